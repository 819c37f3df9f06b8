// xPOTRF: Cholesky factorization A = U**H*U (uplo 'U') or L*L**H ('L').
// Contract (LAPACK 3.11): uplo 'U'/'L' (arg 1); n >= 0 (2); lda >= max(1,n) (4).
// info > 0: the leading minor of that order is not positive definite; the
// factorization stopped there, as LAPACK leaves it.
#include "dispatch.hpp"
#include "flops.hpp"
#include "next_lapack.hpp"
#include "trace.hpp"

namespace hqr {

template <class T> void potrf(const char *uplo, const lint *n, T *a, const lint *lda, lint *info) {
  const RoutineName name = routine_name<T>("POTRF");
  *info = 0;
  if (!lsame(uplo, 'U') && !lsame(uplo, 'L'))
    *info = -1;
  else if (*n < 0)
    *info = -2;
  else if (*lda < max1(*n))
    *info = -4;
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  if (*n == 0) return;

  Trace trace(name, flops::potrf<T>(*n));
  trace.args("uplo=%c n=%ld lda=%ld", *uplo, long(*n), long(*lda));
  const Decision d = choose_path(*n);
  trace.path("cpu", d.why);
  next::potrf(uplo, n, a, lda, info);
}

}  // namespace hqr

extern "C" {
void spotrf_(const char *uplo, const lapack_int *n, float *a, const lapack_int *lda, lapack_int *info, size_t) {
  hqr::potrf(uplo, n, hqr::cx(a), lda, info);
}
void dpotrf_(const char *uplo, const lapack_int *n, double *a, const lapack_int *lda, lapack_int *info, size_t) {
  hqr::potrf(uplo, n, hqr::cx(a), lda, info);
}
void cpotrf_(const char *uplo, const lapack_int *n, lapack_complex_float *a, const lapack_int *lda, lapack_int *info,
             size_t) {
  hqr::potrf(uplo, n, hqr::cx(a), lda, info);
}
void zpotrf_(const char *uplo, const lapack_int *n, lapack_complex_double *a, const lapack_int *lda, lapack_int *info,
             size_t) {
  hqr::potrf(uplo, n, hqr::cx(a), lda, info);
}
}
