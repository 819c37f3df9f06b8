// xPOTRI: inverse of a Hermitian (symmetric) positive definite matrix from its
// Cholesky factor, A**-1 = U**-1 * U**-H (uplo 'U') or L**-H * L**-1 ('L');
// LAPACK computes it as xTRTRI then xLAUUM, and so does hqr.
// Contract (LAPACK 3.11.0): uplo 'U'/'L' (arg 1); n >= 0 (2); lda >= max(1,n) (4).
// On entry A holds the factor from xPOTRF; on exit the same triangle holds the
// inverse, the other triangle is not referenced.
// n = 0: quick return. info > 0: A(info,info) is exactly zero, the factor is
// singular and the inverse could not be computed (A is left as xTRTRI leaves it).
#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "flops.hpp"
#include "inverse.hpp"
#include "next_lapack.hpp"
#include "trace.hpp"

namespace hqr {

namespace {
template <class T> double probe(Path path, long n) { return probe_inverse<T>(Routine::potri, path, n); }
}  // namespace

template <class T> void potri(const char *uplo, const lint *n, T *a, const lint *lda, lint *info) {
  const RoutineName name = routine_name<T>("POTRI");
  *info = check_uplo_n_lda(uplo, *n, *lda);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  if (*n == 0) return;

  Trace trace(name, flops::potri<T>(*n));
  trace.args("uplo=%c n=%ld lda=%ld", *uplo, long(*n), long(*lda));
  const bool upper = lsame(uplo, 'U');
  if ((*info = first_zero_diagonal(*n, a, *lda)) != 0) {
    trace.path("cpu", "singular: a zero on the diagonal");
    return;
  }
  const Decision d = choose_path(Routine::potri, Prec<T>::letter, *n, probe<T>, a, span_bytes<T>(*n, *n, *lda));
  if (d.path == Path::gpu) {
    const gpu::Result r = gpu::potri(upper, *n, a, *lda);
    trace.devices(r.devices);
    if (r.ran) {
      trace.path(r.path ? r.path : "gpu-hybrid", r.why);  // why: "pinned caller" or none
      *info = r.info;
      return;
    }
    trace.path(r.resume > 0 ? "cpu-resumed" : "cpu", r.why);
    if (r.resume > 0) return finish_potri(upper, *n, r.resume, a, *lda);
  } else {
    trace.path("cpu", d.why);
  }
  next::potri(uplo, n, a, lda, info);
}

}  // namespace hqr

extern "C" {
void spotri_(const char *uplo, const lapack_int *n, float *a, const lapack_int *lda, lapack_int *info, size_t) {
  hqr::potri(uplo, n, hqr::cx(a), lda, info);
}
void dpotri_(const char *uplo, const lapack_int *n, double *a, const lapack_int *lda, lapack_int *info, size_t) {
  hqr::potri(uplo, n, hqr::cx(a), lda, info);
}
void cpotri_(const char *uplo, const lapack_int *n, lapack_complex_float *a, const lapack_int *lda, lapack_int *info,
             size_t) {
  hqr::potri(uplo, n, hqr::cx(a), lda, info);
}
void zpotri_(const char *uplo, const lapack_int *n, lapack_complex_double *a, const lapack_int *lda, lapack_int *info,
             size_t) {
  hqr::potri(uplo, n, hqr::cx(a), lda, info);
}
}
