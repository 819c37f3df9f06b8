/* qrupd_lsq — least squares whose QR factorization follows the data.
 *
 * Fits b ~ A*x to observations t = 1..10 with the regressors 1, t, cos(t)
 * and b(t) = 2 + t/2 + sin(2t). The augmented matrix W = [A b] is factored
 * once, W = Q*R: R's last column is Q^T*b, so x solves the triangular
 * system R(1:K,1:K)*x = R(1:K,K+1), and |R(K+1,K+1)| is the residual norm
 * ||A*x - b||. Then the data change, and hqr's updating routines change Q
 * and R with them, b always kept as R's last column:
 *   1. a new observation, t = 11, inserted as row 4          dqrupd_addrows_
 *   2. the observations in rows 2..3 (t = 2, 3) deleted       dqrupd_delrows_
 *   3. a new regressor t^2/10, inserted before b (column K+1) dqrupd_addcols_
 *   4. the regressor cos(t) (column 3) deleted                dqrupd_delcols_
 * After each step it prints x and the residual norm (test/qrupd_examples.sh
 * compares them with a direct solve of the changed problem).
 *
 * Build: cc qrupd_lsq.c -I<hqr>/include -L<hqr>/lib -lhqr -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hqr.h"

/* The system LAPACK's triangular solve (hqr.h declares only what hqr
 * implements; libhqr forwards every other LAPACK routine). */
void dtrtrs_(const char *uplo, const char *trans, const char *diag, const int *n, const int *nrhs, const double *a,
             const int *lda, double *b, const int *ldb, int *info, size_t, size_t, size_t);

enum { LD = 16, NMAX = 8 }; /* room: up to LD rows (LDQ = LDR = LD), NMAX columns */

static double q[LD * LD], r[LD * NMAX];
static double *work;
static int lwork;

/* After a LWORK = -1 query that returned *wq: WORK large enough. */
static void need(double wq) {
  if ((int)wq > lwork) {
    lwork = (int)wq;
    work = realloc(work, (size_t)lwork * sizeof *work);
    if (!work) exit(1);
  }
}

static double regressor(int j, double t) { /* j = 0, 1, 2: 1, t, cos(t) */
  return j == 0 ? 1.0 : j == 1 ? t : cos(t);
}
static double rhs(double t) { return 2.0 + 0.5 * t + sin(2.0 * t); }

static void check(const char *what, int info) {
  if (info != 0) {
    fprintf(stderr, "%s: INFO = %d\n", what, info);
    exit(1);
  }
}

/* x from R(1:k,1:k)*x = R(1:k,k+1); the residual norm |R(k+1,k+1)|. */
static void report(const char *step, int m, int k) {
  double x[NMAX];
  const int ldr = LD, one = 1;
  int info;
  for (int i = 0; i < k; ++i) x[i] = r[i + k * LD];
  dtrtrs_("U", "N", "N", &k, &one, r, &ldr, x, &k, &info, 1, 1, 1);
  check("dtrtrs", info);
  printf("%-36s x =", step);
  for (int i = 0; i < k; ++i) printf(" %.12e", x[i]);
  printf("  residual = %.12e\n", m > k ? fabs(r[k + k * LD]) : 0.0);
}

int main(void) {
  int m = 10, k = 3, n, info;
  const int ldq = LD, ldr = LD, query = -1;
  double t[LD], tau[NMAX], wq;

  /* W = [A b] in R's storage, factored by DGEQRF; the full M-by-M Q by DORGQR. */
  for (int i = 0; i < m; ++i) {
    t[i] = i + 1;
    for (int j = 0; j < k; ++j) r[i + j * LD] = regressor(j, t[i]);
    r[i + k * LD] = rhs(t[i]);
  }
  n = k + 1;
  dgeqrf_(&m, &n, r, &ldr, tau, &wq, &query, &info);
  need(wq);
  dgeqrf_(&m, &n, r, &ldr, tau, work, &lwork, &info);
  check("dgeqrf", info);
  for (int j = 0; j < n; ++j)
    for (int i = j + 1; i < m; ++i) {
      q[i + j * LD] = r[i + j * LD]; /* the reflectors, for DORGQR */
      r[i + j * LD] = 0.0;           /* R is upper trapezoidal */
    }
  dorgqr_(&m, &m, &n, q, &ldq, tau, &wq, &query, &info);
  need(wq);
  dorgqr_(&m, &m, &n, q, &ldq, tau, work, &lwork, &info);
  check("dorgqr", info);
  report("10 observations, 3 regressors:", m, k);

  /* 1. Observation t = 11 inserted before row 4: U = [a(t) b(t)], 1-by-(K+1). */
  {
    const int p = 1, j = 4, ldu = 1;
    double u[NMAX];
    for (int c = 0; c < k; ++c) u[c] = regressor(c, 11.0);
    u[k] = rhs(11.0);
    dqrupd_addrows_("U", &m, &n, &p, &j, q, &ldq, r, &ldr, u, &ldu, &wq, &query, &info, 1);
    need(wq);
    dqrupd_addrows_("U", &m, &n, &p, &j, q, &ldq, r, &ldr, u, &ldu, work, &lwork, &info, 1);
    check("dqrupd_addrows", info);
    for (int i = m; i >= j; --i) t[i] = t[i - 1]; /* the rows' t, in order */
    t[j - 1] = 11.0;
    m += p;
    report("1. t = 11 added as row 4:", m, k);
  }

  /* 2. Rows 2..3 (t = 2, 3) deleted; Q is required. */
  {
    const int p = 2, j = 2;
    dqrupd_delrows_(&m, &n, &p, &j, q, &ldq, r, &ldr, &wq, &query, &info);
    need(wq);
    dqrupd_delrows_(&m, &n, &p, &j, q, &ldq, r, &ldr, work, &lwork, &info);
    check("dqrupd_delrows", info);
    for (int i = j - 1; i + p < m; ++i) t[i] = t[i + p];
    m -= p;
    report("2. rows 2..3 deleted:", m, k);
  }

  /* 3. Regressor t^2/10 inserted before b: J = K+1 of the N = K+1 columns,
   *    so b stays last. R has room for N+P columns. */
  {
    const int p = 1, j = k + 1, ldu = LD;
    double u[LD];
    for (int i = 0; i < m; ++i) u[i] = t[i] * t[i] / 10.0;
    dqrupd_addcols_(&m, &n, &p, &j, q, &ldq, r, &ldr, u, &ldu, &wq, &query, &info);
    need(wq);
    dqrupd_addcols_(&m, &n, &p, &j, q, &ldq, r, &ldr, u, &ldu, work, &lwork, &info);
    check("dqrupd_addcols", info);
    n += p;
    k += p;
    report("3. regressor t^2/10 added:", m, k);
  }

  /* 4. Regressor cos(t), column 3, deleted (JOBQ = 'U': Q kept in step;
   *    'N' would update R alone, enough if only solutions are wanted). */
  {
    const int p = 1, j = 3;
    dqrupd_delcols_("U", &m, &n, &p, &j, q, &ldq, r, &ldr, &wq, &query, &info, 1);
    need(wq);
    dqrupd_delcols_("U", &m, &n, &p, &j, q, &ldq, r, &ldr, work, &lwork, &info, 1);
    check("dqrupd_delcols", info);
    n -= p;
    k -= p;
    report("4. regressor cos(t) deleted:", m, k);
  }
  free(work);
  return 0;
}
