// xGEQRF: QR factorization A = Q*R of an m x n matrix, Q held compactly as
// k = min(m,n) elementary reflectors H(i) = I - tau(i)*v*v**H (v below the
// diagonal of A, v(i) = 1 implicit, tau in TAU), R on and above the diagonal.
// Contract (LAPACK 3.11.0 -- the LWORK rule below is 3.11's; 3.10 and earlier
// asked LWORK >= max(1,n) always and wrote WORK(1) before checking):
//   m >= 0 (arg 1); n >= 0 (2); lda >= max(1,m) (4);
//   unless LWORK = -1: LWORK >= 1, and LWORK >= max(1,n) when m > 0 (7).
// LWORK = -1: a query; the optimal LWORK is returned in WORK(1) (from the
// next LAPACK), nothing else is touched.
// k = 0: quick return with WORK(1) = 1. Otherwise WORK(1) returns the LWORK
// used. info is 0 on every legal call.
//
// Large problems run on the hybrid GPU path (src/cuda/geqrf_hybrid.cu),
// which keeps its own workspace: any legal LWORK serves it. If the GPU
// stops mid-call, the leading columns it stored are final (with their tau)
// and the CPU applies their reflectors to the rest and factors that.
#include <algorithm>
#include <vector>

#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "flops.hpp"
#include "lapack_reflectors.hpp"
#include "next_lapack.hpp"
#include "qr_dispatch.hpp"
#include "trace.hpp"

namespace hqr {

namespace {

// The optimal LWORK of the next LAPACK's geqrf (what WORK(1) returns).
template <class T> lint optimal_lwork(lint m, lint n, T *a, lint lda) {
  const lint query = -1;
  lint info = 0;
  T w{}, tau{};
  next::geqrf(&m, &n, a, &lda, &tau, &w, &query, &info);
  return std::max<lint>(1, lint(std::real(w)));
}

}  // namespace

template <class T>
void geqrf(const lint *m, const lint *n, T *a, const lint *lda, T *tau, T *work, const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>("GEQRF");
  const bool query = *lwork == -1;
  *info = 0;
  if (*m < 0)
    *info = -1;
  else if (*n < 0)
    *info = -2;
  else if (*lda < max1(*m))
    *info = -4;
  else if (!query && (*lwork <= 0 || (*m > 0 && *lwork < max1(*n))))
    *info = -7;
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  if (query) {
    next::geqrf(m, n, a, lda, tau, work, lwork, info);
    return;
  }
  if (*m == 0 || *n == 0) {
    work[0] = T(1);
    return;
  }

  Trace trace(name, flops::geqrf<T>(*m, *n));
  trace.args("m=%ld n=%ld lda=%ld lwork=%ld", long(*m), long(*n), long(*lda), long(*lwork));
  const Decision d = choose_path(Routine::geqrf, Prec<T>::letter, qr_equivalent_order(*m, *n), qr_probe<T>, a,
                                 span_bytes<T>(*m, *n, *lda));
  if (d.path == Path::gpu) {
    const char *path = "gpu-hybrid";
    const gpu::Result r = gpu::geqrf(*m, *n, a, *lda, tau, &path);
    trace.devices(r.devices);
    if (r.ran) {
      trace.path(path, r.why);  // why: "pinned caller" or none
      lapack_zero_reflectors(*m, *n, a, *lda, tau);
      work[0] = T(optimal_lwork(*m, *n, a, *lda));
      return;
    }
    if (r.resume > 0) {
      trace.path("cpu-resumed", r.why);  // from the GPU's final columns
      finish_geqrf(*m, *n, r.resume, a, *lda, tau);
      lapack_zero_reflectors(*m, *n, a, *lda, tau);
      work[0] = T(optimal_lwork(*m, *n, a, *lda));
      return;
    }
    trace.path("cpu", r.why);
  } else {
    trace.path("cpu", d.why);
  }
  next::geqrf(m, n, a, lda, tau, work, lwork, info);
}


// Called by gelsd.cpp as well.
template void geqrf(const lint *, const lint *, float *, const lint *, float *, float *, const lint *, lint *);
template void geqrf(const lint *, const lint *, double *, const lint *, double *, double *, const lint *, lint *);
template void geqrf(const lint *, const lint *, std::complex<float> *, const lint *, std::complex<float> *, std::complex<float> *, const lint *, lint *);
template void geqrf(const lint *, const lint *, std::complex<double> *, const lint *, std::complex<double> *, std::complex<double> *, const lint *, lint *);

}  // namespace hqr

extern "C" {
void sgeqrf_(const lapack_int *m, const lapack_int *n, float *a, const lapack_int *lda, float *tau, float *work,
             const lapack_int *lwork, lapack_int *info) {
  hqr::geqrf(m, n, hqr::cx(a), lda, hqr::cx(tau), hqr::cx(work), lwork, info);
}
void dgeqrf_(const lapack_int *m, const lapack_int *n, double *a, const lapack_int *lda, double *tau, double *work,
             const lapack_int *lwork, lapack_int *info) {
  hqr::geqrf(m, n, hqr::cx(a), lda, hqr::cx(tau), hqr::cx(work), lwork, info);
}
void cgeqrf_(const lapack_int *m, const lapack_int *n, lapack_complex_float *a, const lapack_int *lda,
             lapack_complex_float *tau, lapack_complex_float *work, const lapack_int *lwork, lapack_int *info) {
  hqr::geqrf(m, n, hqr::cx(a), lda, hqr::cx(tau), hqr::cx(work), lwork, info);
}
void zgeqrf_(const lapack_int *m, const lapack_int *n, lapack_complex_double *a, const lapack_int *lda,
             lapack_complex_double *tau, lapack_complex_double *work, const lapack_int *lwork, lapack_int *info) {
  hqr::geqrf(m, n, hqr::cx(a), lda, hqr::cx(tau), hqr::cx(work), lwork, info);
}
}
