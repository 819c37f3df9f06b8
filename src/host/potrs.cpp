// xPOTRS: solves A*X = B with A Hermitian (symmetric) positive definite, given
// its Cholesky factor A = U**H*U (uplo 'U') or L*L**H ('L') from xPOTRF.
// Contract (LAPACK 3.11.0): uplo 'U'/'L' (arg 1); n >= 0 (2); nrhs >= 0 (3);
// lda >= max(1,n) (5); ldb >= max(1,n) (7). n = 0 or nrhs = 0: quick return.
// On exit B (n x nrhs) holds X; A is not modified. info is 0 on every legal
// call (a zero on the factor's diagonal is not checked, as in LAPACK).
#include "dispatch.hpp"
#include "flops.hpp"
#include "next_lapack.hpp"
#include "trace.hpp"

namespace hqr {

template <class T>
void potrs(const char *uplo, const lint *n, const lint *nrhs, const T *a, const lint *lda, T *b, const lint *ldb,
           lint *info) {
  const RoutineName name = routine_name<T>("POTRS");
  *info = check_uplo_n_nrhs(uplo, *n, *nrhs, *lda, *ldb);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  if (*n == 0 || *nrhs == 0) return;

  Trace trace(name, flops::potrs<T>(*n, *nrhs));
  trace.args("uplo=%c n=%ld nrhs=%ld lda=%ld ldb=%ld", *uplo, long(*n), long(*nrhs), long(*lda), long(*ldb));
  const Decision d = choose_path(*n);
  trace.path("cpu", d.why);
  next::potrs(uplo, n, nrhs, a, lda, b, ldb, info);
}

}  // namespace hqr

extern "C" {
void spotrs_(const char *uplo, const lapack_int *n, const lapack_int *nrhs, const float *a, const lapack_int *lda,
             float *b, const lapack_int *ldb, lapack_int *info, size_t) {
  hqr::potrs(uplo, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, info);
}
void dpotrs_(const char *uplo, const lapack_int *n, const lapack_int *nrhs, const double *a, const lapack_int *lda,
             double *b, const lapack_int *ldb, lapack_int *info, size_t) {
  hqr::potrs(uplo, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, info);
}
void cpotrs_(const char *uplo, const lapack_int *n, const lapack_int *nrhs, const lapack_complex_float *a,
             const lapack_int *lda, lapack_complex_float *b, const lapack_int *ldb, lapack_int *info, size_t) {
  hqr::potrs(uplo, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, info);
}
void zpotrs_(const char *uplo, const lapack_int *n, const lapack_int *nrhs, const lapack_complex_double *a,
             const lapack_int *lda, lapack_complex_double *b, const lapack_int *ldb, lapack_int *info, size_t) {
  hqr::potrs(uplo, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, info);
}
}
