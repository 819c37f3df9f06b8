// xPOSV: solves A*X = B for A Hermitian (symmetric) positive definite: the
// Cholesky factorization A = U**H*U (uplo 'U') or L*L**H ('L') as xPOTRF, then
// the solve as xPOTRS.
// Contract (LAPACK 3.11.0): uplo 'U'/'L' (arg 1); n >= 0 (2); nrhs >= 0 (3);
// lda >= max(1,n) (5); ldb >= max(1,n) (7). n = 0: quick return. nrhs = 0 is
// no quick return: A is still factored, as LAPACK does. XERBLA gets LAPACK's
// 6-character name, 'DPOSV ' (blank-padded).
// On exit A holds the factor and B (n x nrhs) the solution X.
// info > 0: the leading minor of that order is not positive definite; the
// factorization stopped there and B is unchanged.
#include "dispatch.hpp"
#include "flops.hpp"
#include "next_lapack.hpp"
#include "trace.hpp"

namespace hqr {

template <class T>
void posv(const char *uplo, const lint *n, const lint *nrhs, T *a, const lint *lda, T *b, const lint *ldb,
          lint *info) {
  const RoutineName name = routine_name<T>("POSV ");  // as LAPACK passes it to XERBLA
  *info = check_uplo_n_nrhs(uplo, *n, *nrhs, *lda, *ldb);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  if (*n == 0) return;

  Trace trace(routine_name<T>("POSV"), flops::posv<T>(*n, *nrhs));
  trace.args("uplo=%c n=%ld nrhs=%ld lda=%ld ldb=%ld", *uplo, long(*n), long(*nrhs), long(*lda), long(*ldb));
  const Decision d = choose_path(*n);
  trace.path("cpu", d.why);
  next::posv(uplo, n, nrhs, a, lda, b, ldb, info);
}

}  // namespace hqr

extern "C" {
void sposv_(const char *uplo, const lapack_int *n, const lapack_int *nrhs, float *a, const lapack_int *lda, float *b,
            const lapack_int *ldb, lapack_int *info, size_t) {
  hqr::posv(uplo, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, info);
}
void dposv_(const char *uplo, const lapack_int *n, const lapack_int *nrhs, double *a, const lapack_int *lda,
            double *b, const lapack_int *ldb, lapack_int *info, size_t) {
  hqr::posv(uplo, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, info);
}
void cposv_(const char *uplo, const lapack_int *n, const lapack_int *nrhs, lapack_complex_float *a,
            const lapack_int *lda, lapack_complex_float *b, const lapack_int *ldb, lapack_int *info, size_t) {
  hqr::posv(uplo, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, info);
}
void zposv_(const char *uplo, const lapack_int *n, const lapack_int *nrhs, lapack_complex_double *a,
            const lapack_int *lda, lapack_complex_double *b, const lapack_int *ldb, lapack_int *info, size_t) {
  hqr::posv(uplo, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, info);
}
}
