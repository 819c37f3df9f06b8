// xLAUUM: the product U * U**H (uplo 'U') or L**H * L ('L') of a triangular
// factor with its conjugate transpose, overwriting that triangle of A.
// Contract (LAPACK 3.11.0): uplo 'U'/'L' (arg 1); n >= 0 (2); lda >= max(1,n) (4).
// n = 0: quick return. The other triangle is not referenced. info is 0 on
// every legal call (there is no numerical failure).
#include "dispatch.hpp"
#include "flops.hpp"
#include "next_lapack.hpp"
#include "trace.hpp"

namespace hqr {

template <class T> void lauum(const char *uplo, const lint *n, T *a, const lint *lda, lint *info) {
  const RoutineName name = routine_name<T>("LAUUM");
  *info = check_uplo_n_lda(uplo, *n, *lda);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  if (*n == 0) return;

  Trace trace(name, flops::lauum<T>(*n));
  trace.args("uplo=%c n=%ld lda=%ld", *uplo, long(*n), long(*lda));
  const Decision d = choose_path(*n);
  trace.path("cpu", d.why);
  next::lauum(uplo, n, a, lda, info);
}

}  // namespace hqr

extern "C" {
void slauum_(const char *uplo, const lapack_int *n, float *a, const lapack_int *lda, lapack_int *info, size_t) {
  hqr::lauum(uplo, n, hqr::cx(a), lda, info);
}
void dlauum_(const char *uplo, const lapack_int *n, double *a, const lapack_int *lda, lapack_int *info, size_t) {
  hqr::lauum(uplo, n, hqr::cx(a), lda, info);
}
void clauum_(const char *uplo, const lapack_int *n, lapack_complex_float *a, const lapack_int *lda, lapack_int *info,
             size_t) {
  hqr::lauum(uplo, n, hqr::cx(a), lda, info);
}
void zlauum_(const char *uplo, const lapack_int *n, lapack_complex_double *a, const lapack_int *lda, lapack_int *info,
             size_t) {
  hqr::lauum(uplo, n, hqr::cx(a), lda, info);
}
}
