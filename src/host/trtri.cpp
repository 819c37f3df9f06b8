// xTRTRI: inverse of an upper (uplo 'U') or lower ('L') triangular matrix, in
// place; diag 'N' (non-unit) or 'U' (unit diagonal, not referenced).
// Contract (LAPACK 3.11.0): uplo 'U'/'L' (arg 1); diag 'N'/'U' (2); n >= 0 (3);
// lda >= max(1,n) (5). n = 0: quick return. The other triangle is not referenced.
// info > 0 (diag 'N' only): A(info,info) is exactly zero, the first such one;
// the matrix is singular and A is left unchanged, as LAPACK checks the whole
// diagonal before it starts.
#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "flops.hpp"
#include "inverse.hpp"
#include "next_lapack.hpp"
#include "trace.hpp"

namespace hqr {

namespace {
template <class T> double probe(Path path, long n) { return probe_inverse<T>(Routine::trtri, path, n); }
}  // namespace

template <class T> void trtri(const char *uplo, const char *diag, const lint *n, T *a, const lint *lda, lint *info) {
  const RoutineName name = routine_name<T>("TRTRI");
  *info = 0;
  if (!lsame(uplo, 'U') && !lsame(uplo, 'L'))
    *info = -1;
  else if (!lsame(diag, 'N') && !lsame(diag, 'U'))
    *info = -2;
  else if (*n < 0)
    *info = -3;
  else if (*lda < max1(*n))
    *info = -5;
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  if (*n == 0) return;

  Trace trace(name, flops::trtri<T>(*n));
  trace.args("uplo=%c diag=%c n=%ld lda=%ld", *uplo, *diag, long(*n), long(*lda));
  const bool upper = lsame(uplo, 'U'), unit = lsame(diag, 'U');
  if (!unit && (*info = first_zero_diagonal(*n, a, *lda)) != 0) {
    trace.path("cpu", "singular: a zero on the diagonal");
    return;
  }
  const Decision d = choose_path(Routine::trtri, Prec<T>::letter, *n, probe<T>, a, span_bytes<T>(*n, *n, *lda));
  if (d.path == Path::gpu) {
    const gpu::Result r = gpu::trtri(upper, unit, *n, a, *lda);
    trace.devices(r.devices);
    if (r.ran) {
      trace.path(r.path ? r.path : "gpu-hybrid", r.why);  // why: "pinned caller" or none
      *info = r.info;
      return;
    }
    trace.path(r.resume > 0 ? "cpu-resumed" : "cpu", r.why);
    if (r.resume > 0) return finish_trtri(upper, unit, *n, r.resume, a, *lda);
  } else {
    trace.path("cpu", d.why);
  }
  next::trtri(uplo, diag, n, a, lda, info);
}

}  // namespace hqr

extern "C" {
void strtri_(const char *uplo, const char *diag, const lapack_int *n, float *a, const lapack_int *lda,
             lapack_int *info, size_t, size_t) {
  hqr::trtri(uplo, diag, n, hqr::cx(a), lda, info);
}
void dtrtri_(const char *uplo, const char *diag, const lapack_int *n, double *a, const lapack_int *lda,
             lapack_int *info, size_t, size_t) {
  hqr::trtri(uplo, diag, n, hqr::cx(a), lda, info);
}
void ctrtri_(const char *uplo, const char *diag, const lapack_int *n, lapack_complex_float *a, const lapack_int *lda,
             lapack_int *info, size_t, size_t) {
  hqr::trtri(uplo, diag, n, hqr::cx(a), lda, info);
}
void ztrtri_(const char *uplo, const char *diag, const lapack_int *n, lapack_complex_double *a, const lapack_int *lda,
             lapack_int *info, size_t, size_t) {
  hqr::trtri(uplo, diag, n, hqr::cx(a), lda, info);
}
}
