/* qrupd_econ_cols — tall least squares while regressors enter and leave,
 * with the economy QR factorization (ABI.md section 5.8).
 *
 *   qrupd_econ_cols [M [N]]      default M = 1000000 observations, N = 200
 *
 * Fits b ~ A*x, A M-by-K, with K = N regressors chosen from a pool of N+10.
 * The economy factors A = Q*R (Q M-by-K with orthonormal columns, R K-by-K)
 * come once from DGEQRF + DORGQR; the full M-by-M Q would take 8 TB at the
 * default size, the economy Q takes 1.6 GB. Then the model changes, and
 * hqr's economy updating routines change Q and R with it:
 *   1. 10 new regressors enter before column K/2+1    dqrupd_addcols_econ_
 *   2. the first 10 regressors leave (columns 1..10)   dqrupd_delcols_econ_
 *   3. the regressor in column K/2 leaves              dqrupd_delcols_econ_
 *   4. it enters again, as the last column (J = K+1)   dqrupd_addcols_econ_
 * After the factorization and after each step, x solves R*x = Q^T*b (DGEMV,
 * DTRTRS) and is compared with a fresh solve of the current A by DGELS: the
 * program prints the relative difference ||x - x_dgels|| / ||x_dgels|| and
 * the seconds each took, and ends with a check line; it exits with 1 when
 * a difference exceeds 1e-10 (A's condition number is close to 1, so
 * rounding leaves about 1e-15). The default size needs 3.5 GB and runs for
 * minutes on two cores, nearly all of it in the first factorization and
 * the five fresh solves (each update takes seconds);
 * test/qrupd_econ_examples.sh runs it at M = 100000.
 *
 * The data: column c (from 0) of the pool is the numbers c*M+1 .. c*M+M of
 * one MINSTD stream (x <- 16807*x mod (2^31-1), uniform on (-1/2,1/2)), so
 * any column can be made again from its index alone (a jump ahead); b's
 * noise is the column after the pool's last. b = sum over c < 20 of the
 * pool's column c/(c+1), plus noise/10.
 *
 * Build: cc qrupd_econ_cols.c -I<hqr>/include -L<hqr>/lib -lhqr -lm
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hqr.h"

/* The BLAS and LAPACK routines hqr does not implement (libhqr forwards them
 * to the system's). */
void dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a, const int *lda,
            const double *x, const int *incx, const double *beta, double *y, const int *incy, size_t);
void dtrtrs_(const char *uplo, const char *trans, const char *diag, const int *n, const int *nrhs, const double *a,
             const int *lda, double *b, const int *ldb, int *info, size_t, size_t, size_t);

enum { PADD = 10 };                /* regressors entering in step 1 (and leaving in step 2) */
static const double LIMIT = 1e-10; /* largest relative difference accepted */

static int m, npool, kmax;         /* observations, pool size, most columns at once */
static double *q, *r, *u, *a, *b, *work;
static int *reg;                   /* reg[c]: the pool index of column c of A */
static int k;                      /* columns of A now */
static int lwork;
static double worst;               /* the largest relative difference so far */

/* ---- data ------------------------------------------------------------------ */

static const long long MINSTD_M = 2147483647, MINSTD_A = 16807;

static long long powmod(long long base, long long e) {
  long long y = 1;
  for (base %= MINSTD_M; e > 0; e >>= 1, base = base * base % MINSTD_M)
    if (e & 1) y = y * base % MINSTD_M;
  return y;
}

/* out(0:M-1) = column c of the stream: its numbers c*M+1 .. c*M+M. */
static void column(int c, double *out) {
  long long s = powmod(MINSTD_A, (long long)c * m); /* the seed is 1 */
  for (int i = 0; i < m; ++i) {
    s = s * MINSTD_A % MINSTD_M;
    out[i] = (double)s / MINSTD_M - 0.5;
  }
}

/* ---- helpers ----------------------------------------------------------------- */

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void check(const char *what, int info) {
  if (info != 0) {
    fprintf(stderr, "%s: INFO = %d\n", what, info);
    exit(1);
  }
}

/* After a LWORK = -1 query that returned wq: WORK large enough. */
static void need(double wq) {
  if ((int)wq > lwork) {
    lwork = (int)wq;
    free(work);
    work = malloc((size_t)lwork * sizeof *work);
    if (!work) exit(1);
  }
}

static double *alloc(size_t n) {
  double *p = malloc(n * sizeof *p);
  if (!p) {
    fprintf(stderr, "qrupd_econ_cols: out of memory (%zu doubles)\n", n);
    exit(1);
  }
  return p;
}

/* x from R*x = Q^T*b; x_dgels from DGELS on a fresh copy of A; prints their
 * relative difference. */
static void solve_and_compare(const char *step, const char *how, double t_update) {
  const int one = 1, query = -1, ldq = m, ldr = kmax;
  const double d_one = 1, d_zero = 0;
  double x[kmax], wq;
  int info;

  double t0 = seconds();
  dgemv_("T", &m, &k, &d_one, q, &ldq, b, &one, &d_zero, x, &one, 1);
  dtrtrs_("U", "N", "N", &k, &one, r, &ldr, x, &k, &info, 1, 1, 1);
  check("dtrtrs", info);
  double t_solve = seconds() - t0;

  t0 = seconds();
  for (int c = 0; c < k; ++c) column(reg[c], a + (size_t)c * m);
  double *bf = u; /* U is free between updates: b's copy for DGELS */
  memcpy(bf, b, (size_t)m * sizeof *b);
  dgels_("N", &m, &k, &one, a, &ldq, bf, &ldq, &wq, &query, &info, 1);
  need(wq);
  dgels_("N", &m, &k, &one, a, &ldq, bf, &ldq, work, &lwork, &info, 1);
  check("dgels", info);
  double t_fresh = seconds() - t0;

  double dn = 0, xn = 0;
  for (int c = 0; c < k; ++c) {
    dn += (x[c] - bf[c]) * (x[c] - bf[c]);
    xn += bf[c] * bf[c];
  }
  double rel = sqrt(dn / xn);
  if (!isnan(worst) && !(rel <= worst)) worst = rel; /* a NaN sticks */
  printf("%-44s K = %3d  %s %6.2f s, solve %5.2f s, fresh DGELS %6.2f s:  |x - x_dgels|/|x_dgels| = %.1e\n",
         step, k, how, t_update, t_solve, t_fresh, rel);
  fflush(stdout);
}

/* Insert the pool's regressors first..first+p-1 before column j (1-based). */
static void add_columns(int first, int p, int j, const char *step) {
  const int ldq = m, ldr = kmax, ldu = m, query = -1;
  double wq;
  int info;
  for (int c = 0; c < p; ++c) column(first + c, u + (size_t)c * m);
  double t0 = seconds();
  dqrupd_addcols_econ_(&m, &k, &p, &j, q, &ldq, r, &ldr, u, &ldu, &wq, &query, &info);
  check("dqrupd_addcols_econ (query)", info);
  need(wq);
  dqrupd_addcols_econ_(&m, &k, &p, &j, q, &ldq, r, &ldr, u, &ldu, work, &lwork, &info);
  check("dqrupd_addcols_econ", info);
  double t = seconds() - t0;
  memmove(reg + j - 1 + p, reg + j - 1, (size_t)(k - j + 1) * sizeof *reg);
  for (int c = 0; c < p; ++c) reg[j - 1 + c] = first + c;
  k += p;
  solve_and_compare(step, "update", t);
}

/* Delete columns j..j+p-1 (1-based); JOBQ = 'U': Q is needed for Q^T*b and
 * for the next ADDCOLS_ECON. */
static void delete_columns(int p, int j, const char *step) {
  const int ldq = m, ldr = kmax, query = -1;
  double wq;
  int info;
  double t0 = seconds();
  dqrupd_delcols_econ_("U", &m, &k, &p, &j, q, &ldq, r, &ldr, &wq, &query, &info, 1);
  check("dqrupd_delcols_econ (query)", info);
  need(wq);
  dqrupd_delcols_econ_("U", &m, &k, &p, &j, q, &ldq, r, &ldr, work, &lwork, &info, 1);
  check("dqrupd_delcols_econ", info);
  double t = seconds() - t0;
  memmove(reg + j - 1, reg + j - 1 + p, (size_t)(k - j - p + 1) * sizeof *reg);
  k -= p;
  solve_and_compare(step, "update", t);
}

int main(int argc, char **argv) {
  int n = 200;
  m = 1000000;
  if (argc > 1) m = atoi(argv[1]);
  if (argc > 2) n = atoi(argv[2]);
  if (n < 2 * PADD || m < n + PADD + 1) {
    fprintf(stderr, "usage: qrupd_econ_cols [M [N]] with N >= %d and M > N + %d\n", 2 * PADD, PADD);
    return 2;
  }
  npool = n + PADD;
  kmax = n + PADD;
  q = alloc((size_t)m * kmax);
  a = alloc((size_t)m * kmax);
  u = alloc((size_t)m * PADD);
  b = alloc((size_t)m);
  r = alloc((size_t)kmax * kmax);
  reg = malloc((size_t)kmax * sizeof *reg);
  if (!reg) return 1;
  printf("qrupd_econ_cols: least squares on %d observations, %d regressors of a pool of %d;\n"
         "economy factors: Q %d x K (%.2f GB at K = %d), R K x K\n",
         m, n, npool, m, 8e-9 * m * kmax, kmax);

  /* b: the first 20 regressors of the pool, weighted, plus noise/10. */
  column(npool, b);
  for (int i = 0; i < m; ++i) b[i] *= 0.1;
  for (int c = 0; c < 20; ++c) {
    column(c, u);
    for (int i = 0; i < m; ++i) b[i] += u[i] / (c + 1);
  }

  /* A = the pool's first N regressors, factored in Q's storage by DGEQRF;
   * R is its upper triangle, Q (M-by-K) comes from DORGQR. */
  {
    const int ldq = m, ldr = kmax, query = -1;
    double *tau = alloc((size_t)n), wq;
    int info;
    k = n;
    for (int c = 0; c < k; ++c) {
      reg[c] = c;
      column(c, q + (size_t)c * m);
    }
    double t0 = seconds();
    dgeqrf_(&m, &k, q, &ldq, tau, &wq, &query, &info);
    need(wq);
    dgeqrf_(&m, &k, q, &ldq, tau, work, &lwork, &info);
    check("dgeqrf", info);
    memset(r, 0, (size_t)kmax * kmax * sizeof *r);
    for (int c = 0; c < k; ++c)
      for (int i = 0; i <= c; ++i) r[i + (size_t)c * ldr] = q[i + (size_t)c * m];
    dorgqr_(&m, &k, &k, q, &ldq, tau, &wq, &query, &info);
    need(wq);
    dorgqr_(&m, &k, &k, q, &ldq, tau, work, &lwork, &info);
    check("dorgqr", info);
    free(tau);
    solve_and_compare("start: DGEQRF + DORGQR", "factor", seconds() - t0);
  }

  char step[64];
  snprintf(step, sizeof step, "1. %d regressors enter at column %d", PADD, k / 2 + 1);
  add_columns(n, PADD, k / 2 + 1, step);
  snprintf(step, sizeof step, "2. regressors in columns 1..%d leave", PADD);
  delete_columns(PADD, 1, step);
  const int jout = k / 2, gone = reg[jout - 1];
  snprintf(step, sizeof step, "3. the regressor in column %d leaves", jout);
  delete_columns(1, jout, step);
  snprintf(step, sizeof step, "4. it enters again as column %d", k + 1);
  add_columns(gone, 1, k + 1, step);

  int ok = worst <= LIMIT;
  printf("check: largest |x - x_dgels|/|x_dgels| = %.1e (limit %.0e): %s\n", worst, LIMIT, ok ? "ok" : "FAILED");
  free(q), free(a), free(u), free(b), free(r), free(reg), free(work);
  return ok ? 0 : 1;
}
