/* The ILP64 library from C (test/ilp64.sh): built with -DHQR_ILP64 against
 * include/hqr.h, every INTEGER an int64_t, linked with -lhqr64 alone.
 * Residual checks of hqr's routines and of BLAS/LAPACK routines it forwards,
 * a QR update, the runtime API, and illegal arguments whose lower 32 bits
 * alone would be legal, reported through this program's own xerbla_.
 * INFO starts at -1 before every call: a library that wrote a 32-bit 0 there
 * would leave the upper half set. The seed is the first argument.
 * Prints "ok: ..." or "FAILED: ..." per check, then PASS (or FAIL, exit 1). */
#include <hqr.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(lapack_int) == sizeof(int64_t), "HQR_ILP64 makes lapack_int 64-bit");

/* Forwarded by hqr (not in hqr.h): BLAS dgemm_ and LAPACK dgesv_. */
void dgemm_(const char *transa, const char *transb, const int64_t *m, const int64_t *n, const int64_t *k,
            const double *alpha, const double *a, const int64_t *lda, const double *b, const int64_t *ldb,
            const double *beta, double *c, const int64_t *ldc, size_t, size_t);
void dgesv_(const int64_t *n, const int64_t *nrhs, double *a, const int64_t *lda, int64_t *ipiv, double *b,
            const int64_t *ldb, int64_t *info);

static const int64_t two32 = INT64_C(1) << 32;
static const double eps = DBL_EPSILON / 2;
static int failures;

static void expect(int ok, const char *what) {
  printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  if (!ok) ++failures;
}
static void ratio_below(const char *what, int64_t info, double ratio) {
  char msg[160];
  snprintf(msg, sizeof msg, "%s: INFO = 0, ratio %.3g < 30", what, ratio);
  expect(info == 0 && ratio < 30, msg);
  if (info != 0) printf("#   INFO = %lld\n", (long long)info);
}

/* XERBLA as a test suite supplies it: record, do not print or stop. */
static struct { int calls; char name[32]; int64_t info; } xerbla_log;
void xerbla_(const char *name, const lapack_int *info, size_t len) {
  ++xerbla_log.calls;
  size_t n = len < sizeof xerbla_log.name - 1 ? len : sizeof xerbla_log.name - 1;
  memcpy(xerbla_log.name, name, n);
  while (n > 0 && xerbla_log.name[n - 1] == ' ') --n;
  xerbla_log.name[n] = '\0';
  xerbla_log.info = *info;
}
static void reset_xerbla(int64_t *info) {
  memset(&xerbla_log, 0, sizeof xerbla_log);
  *info = -1;
}
static void reported(const char *what, int64_t info, const char *routine, int64_t position) {
  char msg[160];
  snprintf(msg, sizeof msg, "%s: INFO = %lld, xerbla_(%s, %lld)", what, (long long)-position, routine,
           (long long)position);
  expect(info == -position && xerbla_log.calls == 1 && strcmp(xerbla_log.name, routine) == 0 &&
             xerbla_log.info == position,
         msg);
  if (info != -position || xerbla_log.calls != 1)
    printf("#   got INFO = %lld, %d xerbla_ call(s), last %s %lld\n", (long long)info, xerbla_log.calls,
           xerbla_log.name, (long long)xerbla_log.info);
}

/* ---- column-major helpers ------------------------------------------------ */
static uint64_t state;
static double rnd(void) { /* uniform in (-1, 1) */
  state = state * 6364136223846793005u + 1442695040888963407u;
  return 2.0 * (double)(state >> 11) / (double)(UINT64_C(1) << 53) - 1.0;
}
static double *matrix(int64_t ld, int64_t n) { /* random, padding rows too */
  double *a = malloc(sizeof(double) * (size_t)(ld * n));
  for (int64_t i = 0; i < ld * n; ++i) a[i] = rnd();
  return a;
}
static double *copy(const double *a, int64_t ld, int64_t n) {
  double *c = malloc(sizeof(double) * (size_t)(ld * n));
  memcpy(c, a, sizeof(double) * (size_t)(ld * n));
  return c;
}
/* C(m,n) = alpha*op(A)*op(B) + C with a plain loop; op is 'N' or 'T'. */
static void mul(char ta, char tb, int64_t m, int64_t n, int64_t k, double alpha, const double *a, int64_t lda,
                const double *b, int64_t ldb, double *c, int64_t ldc) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l)
        s += (ta == 'N' ? a[i + l * lda] : a[l + i * lda]) * (tb == 'N' ? b[l + j * ldb] : b[j + l * ldb]);
      c[i + j * ldc] += alpha * s;
    }
}
static double norm1(int64_t m, int64_t n, const double *a, int64_t lda) {
  double r = 0;
  for (int64_t j = 0; j < n; ++j) {
    double s = 0;
    for (int64_t i = 0; i < m; ++i) s += fabs(a[i + j * lda]);
    r = fmax(r, s);
  }
  return r;
}
static double *identity(int64_t n) {
  double *e = calloc((size_t)(n * n), sizeof(double));
  for (int64_t i = 0; i < n; ++i) e[i + i * n] = 1;
  return e;
}
static int64_t max3(int64_t a, int64_t b, int64_t c) { return a > b ? (a > c ? a : c) : (b > c ? b : c); }

/* ---- checks -------------------------------------------------------------- */

/* dpotrf ('U', LDA > N): ||A - U^T U|| / (n ||A|| eps); then dpotrs:
 * ||B - A X|| / (n ||A|| ||X|| eps). */
static void check_dpotrf_dpotrs(int64_t n, int64_t lda, int64_t nrhs) {
  double *g = matrix(n, n), *a = matrix(lda, n), *b = matrix(n, nrhs);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) a[i + j * lda] = i == j ? (double)n : 0;
  mul('T', 'N', n, n, n, 1, g, n, g, n, a, lda); /* SPD: G^T G + n I */
  double *f = copy(a, lda, n), *x = copy(b, n, nrhs);
  int64_t info = -1;
  dpotrf_("U", &n, f, &lda, &info, 1);
  double *u = calloc((size_t)(n * n), sizeof(double)), *e = copy(a, lda, n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i <= j; ++i) u[i + j * n] = f[i + j * lda];
  mul('T', 'N', n, n, n, -1, u, n, u, n, e, lda);
  ratio_below("dpotrf", info, norm1(n, n, e, lda) / (n * norm1(n, n, a, lda) * eps));
  int untouched = 1;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = n; i < lda; ++i) untouched &= f[i + j * lda] == a[i + j * lda];
  expect(untouched, "dpotrf: rows N+1:LDA untouched");
  info = -1;
  dpotrs_("U", &n, &nrhs, f, &lda, x, &n, &info, 1);
  double *r = copy(b, n, nrhs);
  mul('N', 'N', n, nrhs, n, -1, a, lda, x, n, r, n);
  ratio_below("dpotrs", info, norm1(n, nrhs, r, n) / (n * norm1(n, n, a, lda) * norm1(n, nrhs, x, n) * eps));
  free(g), free(a), free(b), free(f), free(x), free(u), free(e), free(r);
}

/* dgels, minimum norm (M < N, LWORK query first): ||B - A X|| / (max(m,n) ||A|| ||X|| eps) */
static void check_dgels(int64_t m, int64_t n, int64_t nrhs) {
  double *a = matrix(m, n), *b = matrix(n, nrhs), wq;
  double *f = copy(a, m, n), *x = copy(b, n, nrhs);
  int64_t info = -1, query = -1;
  dgels_("N", &m, &n, &nrhs, f, &m, x, &n, &wq, &query, &info, 1);
  int64_t lwork = (int64_t)wq;
  double *work = malloc(sizeof(double) * (size_t)lwork);
  info = -1;
  dgels_("N", &m, &n, &nrhs, f, &m, x, &n, work, &lwork, &info, 1);
  double *r = copy(b, n, nrhs);
  mul('N', 'N', m, nrhs, n, -1, a, m, x, n, r, n);
  ratio_below("dgels (minimum norm)", info,
              norm1(m, nrhs, r, n) / (max3(m, n, 1) * norm1(m, n, a, m) * norm1(n, nrhs, x, n) * eps));
  free(a), free(b), free(f), free(x), free(work), free(r);
}

/* A = Q R (dgeqrf, dorgqr for the full M-by-M Q), then dqrupd_addcols inserts
 * P columns before column J: ||Q R - [A1 U A2]|| / (||A~|| max(m,n) eps),
 * ||Q^T Q - I|| / (m eps), R's strictly lower part exactly zero. */
static void check_qrupd_addcols(int64_t m, int64_t n, int64_t p, int64_t j) {
  const int64_t lw = 64 * m;
  double *a = matrix(m, n), *u = matrix(m, p), *q = matrix(m, m), *r = calloc((size_t)(m * (n + p)), sizeof(double));
  double *work = malloc(sizeof(double) * (size_t)lw), *tau = malloc(sizeof(double) * (size_t)m);
  int64_t info = -1;
  for (int64_t c = 0; c < n; ++c)
    for (int64_t i = 0; i < m; ++i) q[i + c * m] = a[i + c * m];
  dgeqrf_(&m, &n, q, &m, tau, work, &lw, &info);
  for (int64_t c = 0; c < n; ++c)
    for (int64_t i = 0; i <= c && i < m; ++i) r[i + c * m] = q[i + c * m];
  if (info == 0) info = -1, dorgqr_(&m, &m, &n, q, &m, tau, work, &lw, &info);
  double *at = malloc(sizeof(double) * (size_t)(m * (n + p))); /* [A(:,1:J-1) U A(:,J:N)] */
  for (int64_t c = 0; c < n + p; ++c) {
    const double *src = c < j - 1 ? a + c * m : c < j - 1 + p ? u + (c - j + 1) * m : a + (c - p) * m;
    memcpy(at + c * m, src, sizeof(double) * (size_t)m);
  }
  if (info == 0) info = -1, dqrupd_addcols_(&m, &n, &p, &j, q, &m, r, &m, u, &m, work, &lw, &info);
  double *e = copy(at, m, n + p), *o = identity(m);
  mul('N', 'N', m, n + p, m, -1, q, m, r, m, e, m);
  mul('T', 'N', m, m, m, -1, q, m, q, m, o, m);
  ratio_below("dqrupd_addcols: Q*R = A~", info,
              norm1(m, n + p, e, m) / (norm1(m, n + p, at, m) * max3(m, n + p, 1) * eps));
  ratio_below("dqrupd_addcols: Q^T*Q = I", info, norm1(m, m, o, m) / (m * eps));
  int zero = 1;
  for (int64_t c = 0; c < n + p; ++c)
    for (int64_t i = c + 1; i < m; ++i) zero &= r[i + c * m] == 0;
  expect(zero, "dqrupd_addcols: R's strictly lower part is zero");
  free(a), free(u), free(q), free(r), free(work), free(tau), free(at), free(e), free(o);
}

/* dgemm and dgesv, forwarded to the 64-bit system BLAS/LAPACK. */
static void check_forwarded(int64_t n, int64_t nrhs) {
  double *a = matrix(n, n), *b = matrix(n, nrhs), *c = calloc((size_t)(n * nrhs), sizeof(double));
  const double one = 1, zero = 0;
  dgemm_("N", "N", &n, &nrhs, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
  mul('N', 'N', n, nrhs, n, -1, a, n, b, n, c, n);
  const double ratio = norm1(n, nrhs, c, n) / (n * norm1(n, n, a, n) * norm1(n, nrhs, b, n) * eps);
  char msg[80];
  snprintf(msg, sizeof msg, "dgemm (forwarded): ratio %.3g < 30", ratio);
  expect(ratio < 30, msg);
  double *f = copy(a, n, n), *x = copy(b, n, nrhs);
  int64_t *ipiv = malloc(sizeof(int64_t) * (size_t)n), info = -1;
  dgesv_(&n, &nrhs, f, &n, ipiv, x, &n, &info);
  double *r = copy(b, n, nrhs);
  mul('N', 'N', n, nrhs, n, -1, a, n, x, n, r, n);
  ratio_below("dgesv (forwarded)", info, norm1(n, nrhs, r, n) / (n * norm1(n, n, a, n) * norm1(n, nrhs, x, n) * eps));
  free(a), free(b), free(c), free(f), free(x), free(ipiv), free(r);
}

/* Each value below is legal in its lower 32 bits alone; in 64 bits it is not. */
static void check_illegal(void) {
  double *a = matrix(4, 4), work[64];
  int64_t info, n = 4, nrhs = 1, m = 4, three = 3, one = 1, lw = 64, ipiv[4];
  int64_t big = two32 + 1, neg = -two32;
  reset_xerbla(&info);
  dpotrf_("L", &neg, a, &n, &info, 1);
  reported("dpotrf, N = -2**32", info, "DPOTRF", 2);
  reset_xerbla(&info);
  neg = -two32 + 1; /* NRHS: lower half 1 */
  dpotrs_("L", &n, &neg, a, &n, a, &n, &info, 1);
  reported("dpotrs, NRHS = 1 - 2**32", info, "DPOTRS", 3);
  reset_xerbla(&info);
  dqrupd_delcols_("N", &m, &three, &big, &one, a, &m, a, &m, work, &lw, &info, 1);
  reported("dqrupd_delcols, P = 1 + 2**32 > N", info, "DQRUPD_DELCOLS", 4);
  reset_xerbla(&info);
  neg = -two32;
  dgesv_(&neg, &nrhs, a, &n, ipiv, a, &n, &info);
  reported("dgesv (forwarded), N = -2**32", info, "DGESV", 1);
  free(a);
}

int main(int argc, char **argv) {
  state = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
  printf("# seed %llu, hqr %s, device %d (%s)\n", (unsigned long long)state, hqr_version(), hqr_device(),
         hqr_device_name());
  expect(hqr_version()[0] != '\0' && hqr_device() >= -1, "runtime API: hqr_version(), hqr_device()");
  check_dpotrf_dpotrs(60, 66, 3);
  check_dgels(25, 50, 2);
  check_qrupd_addcols(15, 6, 2, 3);
  check_forwarded(40, 3);
  check_illegal();
  if (failures) {
    printf("FAIL: %d check(s) failed\n", failures);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
