/* Way in 2 from C: a program that calls BLAS and LAPACK routines through
 * their Fortran symbols and is linked with -lhqr alone (test/link.sh).
 * dgesv_ and dgemm_ are not implemented by hqr (its forwarding stubs jump to
 * the system library); dpotrf_ is hqr's own. Prints "PASS" or exits 1. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb, int *info);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc, size_t, size_t);
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t);

enum { N = 120 };
static double A[N * N], F[N * N], B[N], X[N], S[N * N];
static int ipiv[N];

static double rnd(void) { return 2.0 * rand() / RAND_MAX - 1.0; }

int main(void) {
  const int n = N, one = 1;
  const double d1 = 1.0, d0 = 0.0, dm1 = -1.0;
  int info, bad = 0;
  srand(7);
  for (int i = 0; i < n * n; ++i) A[i] = rnd();
  for (int i = 0; i < n; ++i) B[i] = X[i] = rnd();

  /* dgesv: ||b - A x|| small */
  for (int i = 0; i < n * n; ++i) F[i] = A[i];
  dgesv_(&n, &one, F, &n, ipiv, X, &n, &info);
  double r = 0, xn = 0;
  for (int i = 0; i < n; ++i) {
    double s = B[i];
    for (int j = 0; j < n; ++j) s -= A[i + j * n] * X[j];
    r = fmax(r, fabs(s));
    xn = fmax(xn, fabs(X[i]));
  }
  printf("dgesv info=%d residual=%.3e\n", info, r / (xn * n));
  bad |= info != 0 || !(r / (xn * n) < 1e-12);

  /* dgemm: S = A^T A + n I (SPD), checked against a plain loop */
  dgemm_("T", "N", &n, &n, &n, &d1, A, &n, A, &n, &d0, S, &n, 1, 1);
  double e = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int k = 0; k < n; ++k) s += A[k + i * n] * A[k + j * n];
      e = fmax(e, fabs(s - S[i + j * n]));
    }
  printf("dgemm error=%.3e\n", e);
  bad |= !(e < 1e-12 * n);
  for (int i = 0; i < n; ++i) S[i + i * n] += n;

  /* dpotrf: ||S - L L^T|| small; the product computed with dgemm */
  for (int i = 0; i < n * n; ++i) F[i] = S[i];
  dpotrf_("L", &n, F, &n, &info, 1);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i) F[i + j * n] = 0.0;
  dgemm_("N", "T", &n, &n, &n, &d1, F, &n, F, &n, &dm1, S, &n, 1, 1);
  double p = 0;
  for (int i = 0; i < n * n; ++i) p = fmax(p, fabs(S[i]));
  printf("dpotrf info=%d error=%.3e\n", info, p / n);
  bad |= info != 0 || !(p / n < 1e-12);

  puts(bad ? "FAIL" : "PASS");
  return bad;
}
