// xORMQR (real) / xUNMQR (complex): C := Q*C, Q**T*C (Q**H*C), C*Q or C*Q**T
// (C*Q**H), with Q = H(1) H(2) ... H(k) the orthogonal (unitary) factor of
// order nq held as xGEQRF returns it (nq = m for side 'L', n for side 'R').
// Contract (LAPACK 3.11.0):
//   side 'L'/'R' (arg 1); trans 'N'/'T' for real, 'N'/'C' for complex (2);
//   m >= 0 (3); n >= 0 (4); 0 <= k <= nq (5); lda >= max(1,nq) (7);
//   ldc >= max(1,m) (10); unless LWORK = -1: LWORK >= max(1,n) for side 'L',
//   max(1,m) for side 'R' (12).
// LWORK = -1: a query; the optimal LWORK is returned in WORK(1) (from the
// next LAPACK), nothing else is touched.
// m = 0, n = 0 or k = 0: quick return with WORK(1) = 1. Otherwise WORK(1)
// returns the optimal LWORK. info is 0 on every legal call. A is not modified.
//
// Large problems run on the GPU (src/cuda/qr_apply.cu), every side and
// trans, with their own device workspace (any legal LWORK serves them); A is
// only read there too. If the GPU stops while C is on its way back, the
// columns (side 'L') or rows (side 'R') already stored are final and the CPU
// applies Q to the others, which still hold the input.
#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "flops.hpp"
#include "next_lapack.hpp"
#include "qr_dispatch.hpp"
#include "trace.hpp"

namespace hqr {

template <class T>
void ormqr(const char *side, const char *trans, const lint *m, const lint *n, const lint *k, const T *a,
           const lint *lda, const T *tau, T *c, const lint *ldc, T *work, const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>(is_complex<T> ? "UNMQR" : "ORMQR");
  const bool left = lsame(side, 'L');
  const bool notran = lsame(trans, 'N');
  const bool query = *lwork == -1;
  const lint nq = left ? *m : *n;         // order of Q
  const lint nw = max1(left ? *n : *m);  // minimum LWORK
  *info = 0;
  if (!left && !lsame(side, 'R'))
    *info = -1;
  else if (!notran && !lsame(trans, is_complex<T> ? 'C' : 'T'))
    *info = -2;
  else if (*m < 0)
    *info = -3;
  else if (*n < 0)
    *info = -4;
  else if (*k < 0 || *k > nq)
    *info = -5;
  else if (*lda < max1(nq))
    *info = -7;
  else if (*ldc < max1(*m))
    *info = -10;
  else if (*lwork < nw && !query)
    *info = -12;
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  if (query) {
    next::ormqr(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info);
    return;
  }
  if (*m == 0 || *n == 0 || *k == 0) {
    work[0] = T(1);
    return;
  }

  Trace trace(name, flops::ormqr<T>(left, *m, *n, *k));
  trace.args("side=%c trans=%c m=%ld n=%ld k=%ld lda=%ld ldc=%ld lwork=%ld", *side, *trans, long(*m), long(*n),
             long(*k), long(*lda), long(*ldc), long(*lwork));
  const double flops = flops::ormqr<T>(left, *m, *n, *k);
  const Decision d = choose_path(Routine::geqrf, Prec<T>::letter, qr_order_for_flops<T>(flops), qr_probe<T>, c,
                                 span_bytes<T>(*m, *n, *ldc));
  if (d.path == Path::gpu) {
    const char *path = "gpu";
    const gpu::Result r = gpu::ormqr(left, !notran, *m, *n, *k, a, *lda, tau, c, *ldc, &path);
    if (r.ran || r.resume > 0) {
      trace.devices(r.devices);
      const lint done = r.ran ? 0 : r.resume;
      if (r.ran) {
        trace.path(path, r.why);  // why: "pinned caller" or none
      } else {  // the lines the GPU did not store, on the CPU
        trace.path("cpu-resumed", r.why);
        const lint rm = left ? *m : *m - done, rn = left ? *n - done : *n;
        T *rc = c + (left ? std::size_t(done) * *ldc : std::size_t(done));
        if (rm > 0 && rn > 0) next::ormqr(side, trans, &rm, &rn, k, a, lda, tau, rc, ldc, work, lwork, info);
      }
      const lint query = -1;
      lint qinfo = 0;
      T w{};
      next::ormqr(side, trans, m, n, k, a, lda, tau, c, ldc, &w, &query, &qinfo);
      work[0] = w;
      return;
    }
    trace.path("cpu", r.why);
  } else {
    trace.path("cpu", d.why);
  }
  next::ormqr(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info);
}


// Called by gelsd.cpp as well.
template void ormqr(const char *, const char *, const lint *, const lint *, const lint *, const float *, const lint *,
                    const float *, float *, const lint *, float *, const lint *, lint *);
template void ormqr(const char *, const char *, const lint *, const lint *, const lint *, const double *, const lint *,
                    const double *, double *, const lint *, double *, const lint *, lint *);
template void ormqr(const char *, const char *, const lint *, const lint *, const lint *, const std::complex<float> *, const lint *,
                    const std::complex<float> *, std::complex<float> *, const lint *, std::complex<float> *, const lint *, lint *);
template void ormqr(const char *, const char *, const lint *, const lint *, const lint *, const std::complex<double> *, const lint *,
                    const std::complex<double> *, std::complex<double> *, const lint *, std::complex<double> *, const lint *, lint *);

}  // namespace hqr

extern "C" {
void sormqr_(const char *side, const char *trans, const lapack_int *m, const lapack_int *n, const lapack_int *k,
             const float *a, const lapack_int *lda, const float *tau, float *c, const lapack_int *ldc, float *work,
             const lapack_int *lwork, lapack_int *info, size_t, size_t) {
  hqr::ormqr(side, trans, m, n, k, hqr::cx(a), lda, hqr::cx(tau), hqr::cx(c), ldc, hqr::cx(work), lwork, info);
}
void dormqr_(const char *side, const char *trans, const lapack_int *m, const lapack_int *n, const lapack_int *k,
             const double *a, const lapack_int *lda, const double *tau, double *c, const lapack_int *ldc,
             double *work, const lapack_int *lwork, lapack_int *info, size_t, size_t) {
  hqr::ormqr(side, trans, m, n, k, hqr::cx(a), lda, hqr::cx(tau), hqr::cx(c), ldc, hqr::cx(work), lwork, info);
}
void cunmqr_(const char *side, const char *trans, const lapack_int *m, const lapack_int *n, const lapack_int *k,
             const lapack_complex_float *a, const lapack_int *lda, const lapack_complex_float *tau,
             lapack_complex_float *c, const lapack_int *ldc, lapack_complex_float *work, const lapack_int *lwork,
             lapack_int *info, size_t, size_t) {
  hqr::ormqr(side, trans, m, n, k, hqr::cx(a), lda, hqr::cx(tau), hqr::cx(c), ldc, hqr::cx(work), lwork, info);
}
void zunmqr_(const char *side, const char *trans, const lapack_int *m, const lapack_int *n, const lapack_int *k,
             const lapack_complex_double *a, const lapack_int *lda, const lapack_complex_double *tau,
             lapack_complex_double *c, const lapack_int *ldc, lapack_complex_double *work, const lapack_int *lwork,
             lapack_int *info, size_t, size_t) {
  hqr::ormqr(side, trans, m, n, k, hqr::cx(a), lda, hqr::cx(tau), hqr::cx(c), ldc, hqr::cx(work), lwork, info);
}
}
