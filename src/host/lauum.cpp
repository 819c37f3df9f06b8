// xLAUUM: the product U * U**H (uplo 'U') or L**H * L ('L') of a triangular
// factor with its conjugate transpose, overwriting that triangle of A.
// Contract (LAPACK 3.11.0): uplo 'U'/'L' (arg 1); n >= 0 (2); lda >= max(1,n) (4).
// n = 0: quick return. The other triangle is not referenced. info is 0 on
// every legal call (there is no numerical failure).
#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "flops.hpp"
#include "inverse.hpp"
#include "next_lapack.hpp"
#include "trace.hpp"

namespace hqr {

namespace {
template <class T> double probe(Path path, long n) { return probe_inverse<T>(Routine::lauum, path, n); }
}  // namespace

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
  const bool upper = lsame(uplo, 'U');
  const Decision d = choose_path(Routine::lauum, Prec<T>::letter, *n, probe<T>, a, span_bytes<T>(*n, *n, *lda));
  if (d.path == Path::gpu) {
    const gpu::Result r = gpu::lauum(upper, *n, a, *lda);
    trace.devices(r.devices);
    if (r.ran) {
      trace.path(r.path ? r.path : "gpu-hybrid", r.why);  // why: "pinned caller" or none
      *info = r.info;
      return;
    }
    trace.path(r.resume > 0 ? "cpu-resumed" : "cpu", r.why);
    if (r.resume > 0) return finish_lauum(upper, *n, r.resume, a, *lda);
  } else {
    trace.path("cpu", d.why);
  }
  cpu_lauum(upper, *n, a, *lda);
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
