/* qrupd_econ_rows — tall least squares while observations stream in, with
 * R alone (ABI.md section 5.8).
 *
 *   qrupd_econ_rows [M [K [B]]]  default M = 1000000 observations, K = 200
 *                                regressors, batches of B = 10000 rows
 *
 * Fits b ~ A*x (A M-by-K) from observations that arrive B rows at a time
 * and are not kept. The trick: factor the augmented matrix W = [A b]
 * (M-by-(K+1)) instead of A. Its economy factors W = Q*R have
 *
 *       R = [ R1  d   ]    R1 K-by-K upper triangular, d = Q(:,1:K)^T*b,
 *           [ 0   rho ]    rho = R(K+1,K+1),
 *
 * so A = Q(:,1:K)*R1 and b = Q(:,1:K)*d + rho*Q(:,K+1), and since Q's
 * columns are orthonormal, ||A*x - b||^2 = ||R1*x - d||^2 + rho^2: the
 * least-squares solution solves R1*x = d and the residual norm is |rho|.
 * Q is never needed: appending observations [a b] as rows of W is
 * dqrupd_addrows_econ_ with JOBQ = 'N', which updates R alone (R^T*R =
 * W^T*W stays exact), so the whole history of the data is the
 * (K+1)-by-(K+1) R, whatever M is.
 *
 * The first batch is factored by DGEQRF (R only), then the others are
 * appended (J = rows so far + 1). After the first batch, at half the rows
 * and at the end, x and |rho| are compared with a fresh DGELS of all the
 * rows so far (made again from the stream): the program prints the relative
 * differences and the seconds each part took, and ends with a check line;
 * it exits with 1 when a difference exceeds 1e-10 (A's condition number is
 * close to 1, so rounding leaves about 1e-15). The default size needs
 * 1.8 GB (for the fresh solves; the updates need R and one batch) and
 * about a minute on two cores; test/qrupd_econ_examples.sh runs it at
 * M = 100000.
 *
 * The data: one MINSTD stream (x <- 16807*x mod (2^31-1), uniform on
 * (-1/2,1/2)) read row by row, K regressors and then a noise term e per
 * observation; b = sum over c of a(c)/(c+1), plus e/10.
 *
 * Build: cc qrupd_econ_rows.c -I<hqr>/include -L<hqr>/lib -lhqr -lm
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hqr.h"

/* The LAPACK routine hqr does not implement (libhqr forwards it). */
void dtrtrs_(const char *uplo, const char *trans, const char *diag, const int *n, const int *nrhs, const double *a,
             const int *lda, double *b, const int *ldb, int *info, size_t, size_t, size_t);

static const double LIMIT = 1e-10; /* largest relative difference accepted */

static int kreg, n;                /* regressors; columns of W = [A b] (K+1) */
static double *r, *work;           /* R of W: n-by-n, LDR = n */
static int lwork;
static double worst;               /* the largest relative difference so far */

/* ---- data ------------------------------------------------------------------ */

static const long long MINSTD_M = 2147483647, MINSTD_A = 16807;

/* One observation from the stream: the row [a(1..K) b] of W, its elements
 * inc apart. */
static void observation(long long *s, double *w, int inc) {
  double b = 0;
  for (int c = 0; c < kreg; ++c) {
    *s = *s * MINSTD_A % MINSTD_M;
    w[(size_t)c * inc] = (double)*s / MINSTD_M - 0.5;
    b += w[(size_t)c * inc] / (c + 1);
  }
  *s = *s * MINSTD_A % MINSTD_M;
  w[(size_t)kreg * inc] = b + 0.1 * ((double)*s / MINSTD_M - 0.5);
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

static double *alloc(size_t len) {
  double *p = malloc(len * sizeof *p);
  if (!p) {
    fprintf(stderr, "qrupd_econ_rows: out of memory (%zu doubles)\n", len);
    exit(1);
  }
  return p;
}

/* x from R1*x = d and |rho|; x_dgels and its residual norm from DGELS on the
 * m rows so far, made again from the stream into a (m-by-K) and bf. */
static void compare(int m, int batches, double t_update, double *a, double *bf) {
  const int one = 1, query = -1;
  double x[kreg], wq;
  int info;

  for (int c = 0; c < kreg; ++c) x[c] = r[c + (size_t)kreg * n];
  dtrtrs_("U", "N", "N", &kreg, &one, r, &n, x, &kreg, &info, 1, 1, 1);
  check("dtrtrs", info);
  const double rho = fabs(r[kreg + (size_t)kreg * n]);

  double t0 = seconds();
  long long s = 1;
  double row[n];
  for (int i = 0; i < m; ++i) {
    observation(&s, row, 1);
    for (int c = 0; c < kreg; ++c) a[i + (size_t)c * m] = row[c];
    bf[i] = row[kreg];
  }
  dgels_("N", &m, &kreg, &one, a, &m, bf, &m, &wq, &query, &info, 1);
  need(wq);
  dgels_("N", &m, &kreg, &one, a, &m, bf, &m, work, &lwork, &info, 1);
  check("dgels", info);
  double res = 0;
  for (int i = kreg; i < m; ++i) res += bf[i] * bf[i];
  res = sqrt(res);
  double t_fresh = seconds() - t0;

  double dn = 0, xn = 0;
  for (int c = 0; c < kreg; ++c) {
    dn += (x[c] - bf[c]) * (x[c] - bf[c]);
    xn += bf[c] * bf[c];
  }
  const double rel_x = sqrt(dn / xn), rel_res = fabs(rho - res) / res;
  if (!isnan(worst) && !(rel_x <= worst)) worst = rel_x; /* a NaN sticks */
  if (!isnan(worst) && !(rel_res <= worst)) worst = rel_res;
  printf("M = %7d (batch %4d, %s %6.2f s), fresh DGELS %6.2f s:  |x - x_dgels|/|x_dgels| = %.1e\n"
         "    residual |rho| = %.12e, DGELS's %.12e: relative difference %.1e\n",
         m, batches, batches == 1 ? "DGEQRF" : "updates so far", t_update, t_fresh, rel_x, rho, res, rel_res);
  fflush(stdout);
}

int main(int argc, char **argv) {
  int mtotal = 1000000, batch = 10000;
  kreg = 200;
  if (argc > 1) mtotal = atoi(argv[1]);
  if (argc > 2) kreg = atoi(argv[2]);
  if (argc > 3) batch = atoi(argv[3]);
  n = kreg + 1;
  if (kreg < 1 || batch < n || mtotal < batch) {
    fprintf(stderr, "usage: qrupd_econ_rows [M [K [B]]] with K >= 1, B > K, M >= B\n");
    return 2;
  }
  r = alloc((size_t)n * n);
  double *u = alloc((size_t)batch * n);     /* one batch of rows of W */
  double *a = alloc((size_t)mtotal * kreg); /* A and b for the fresh solves */
  double *bf = alloc((size_t)mtotal);
  printf("qrupd_econ_rows: least squares on %d observations of %d regressors, arriving %d at a time;\n"
         "R of [A b] (%d x %d) updated by dqrupd_addrows_econ_ with JOBQ = 'N'\n",
         mtotal, kreg, batch, n, n);

  long long s = 1; /* the stream's state: where the next observation starts */
  int m = batch, batches = 1, info;
  const int query = -1, ldq = 1;
  double wq, dummy_q = 0;

  /* The first batch: W(1:B,:) factored by DGEQRF; R is its upper triangle. */
  {
    double *tau = alloc((size_t)n), t0 = seconds();
    for (int i = 0; i < batch; ++i) observation(&s, u + i, batch);
    dgeqrf_(&batch, &n, u, &batch, tau, &wq, &query, &info);
    need(wq);
    dgeqrf_(&batch, &n, u, &batch, tau, work, &lwork, &info);
    check("dgeqrf", info);
    memset(r, 0, (size_t)n * n * sizeof *r);
    for (int c = 0; c < n; ++c)
      for (int i = 0; i <= c; ++i) r[i + (size_t)c * n] = u[i + (size_t)c * batch];
    free(tau);
    compare(m, batches, seconds() - t0, a, bf);
  }

  /* The others, appended as rows m+1.. of W: R alone (Q not referenced). */
  const int half = mtotal / 2;
  double t_update = 0;
  while (m < mtotal) {
    const int p = m + batch <= mtotal ? batch : mtotal - m, j = m + 1;
    for (int i = 0; i < p; ++i) observation(&s, u + i, p);
    double t0 = seconds();
    dqrupd_addrows_econ_("N", &m, &n, &p, &j, &dummy_q, &ldq, r, &n, u, &p, &wq, &query, &info, 1);
    check("dqrupd_addrows_econ (query)", info);
    need(wq);
    dqrupd_addrows_econ_("N", &m, &n, &p, &j, &dummy_q, &ldq, r, &n, u, &p, work, &lwork, &info, 1);
    check("dqrupd_addrows_econ", info);
    t_update += seconds() - t0;
    m += p;
    ++batches;
    if ((m >= half && m - p < half) || m == mtotal) {
      compare(m, batches, t_update, a, bf);
    }
  }

  int ok = worst <= LIMIT;
  printf("check: largest relative difference from DGELS = %.1e (limit %.0e): %s\n", worst, LIMIT,
         ok ? "ok" : "FAILED");
  free(r), free(u), free(a), free(bf), free(work);
  return ok ? 0 : 1;
}
