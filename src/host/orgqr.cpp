// xORGQR (real) / xUNGQR (complex): forms the m x n matrix Q with orthonormal
// columns, the first n columns of H(1) H(2) ... H(k) as xGEQRF returns them.
// Contract (LAPACK 3.11.0):
//   m >= 0 (arg 1); 0 <= n <= m (2); 0 <= k <= n (3); lda >= max(1,m) (5);
//   unless LWORK = -1: LWORK >= max(1,n) (8).
// LWORK = -1: a query; the optimal LWORK is returned in WORK(1) (from the
// next LAPACK), nothing else is touched.
// As LAPACK 3.11, WORK(1) is set to max(1,n)*NB (NB from the next LAPACK's
// ILAENV) before the arguments are checked, so an illegal call leaves that
// value there too (xGEQRF, xORMQR and xGELS have no such store).
// n = 0: quick return with WORK(1) = 1. Otherwise A is overwritten by Q and
// WORK(1) returns the optimal LWORK. info is 0 on every legal call.
//
// Large problems run on the GPU (src/cuda/qr_apply.cu) with their own
// device workspace (any legal LWORK serves them). Q leaves the GPU right to
// left; column j of Q needs only reflectors 1..j+1, so if the GPU stops
// midway the columns not yet stored still hold what the CPU needs to form
// them (xORGQR on the leading columns).
#include <algorithm>

#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "flops.hpp"
#include "next_lapack.hpp"
#include "qr_dispatch.hpp"
#include "trace.hpp"

namespace hqr {

// LAPACK's ILAENV(1, 'xORGQR', ' ', m, n, k, -1): the block size xORGQR uses.
inline lint orgqr_block_size(const RoutineName &name, const lint *m, const lint *n, const lint *k) {
  using F = lint(const lint *, const char *, const char *, const lint *, const lint *, const lint *, const lint *,
                 std::size_t, std::size_t);
  static F *const ilaenv = reinterpret_cast<F *>(next::require("ilaenv_"));
  const lint ispec = 1, unused = -1;
  return ilaenv(&ispec, name.text, " ", m, n, k, &unused, name.len, 1);
}

template <class T>
void orgqr(const lint *m, const lint *n, const lint *k, T *a, const lint *lda, const T *tau, T *work,
           const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>(is_complex<T> ? "UNGQR" : "ORGQR");
  const bool query = *lwork == -1;
  *info = 0;
  if (*m < 0)
    *info = -1;
  else if (*n < 0 || *n > *m)
    *info = -2;
  else if (*k < 0 || *k > *n)
    *info = -3;
  else if (*lda < max1(*m))
    *info = -5;
  else if (*lwork < max1(*n) && !query)
    *info = -8;
  if (*info != 0) {
    work[0] = T(double(max1(*n)) * double(orgqr_block_size(name, m, n, k)));
    report_illegal(name, -*info);
    return;
  }
  if (query) {
    next::orgqr(m, n, k, a, lda, tau, work, lwork, info);
    return;
  }
  if (*n == 0) {
    work[0] = T(1);
    return;
  }

  Trace trace(name, flops::orgqr<T>(*m, *n, *k));
  trace.args("m=%ld n=%ld k=%ld lda=%ld lwork=%ld", long(*m), long(*n), long(*k), long(*lda), long(*lwork));
  const double flops = flops::orgqr<T>(*m, *n, *k);
  const Decision d = choose_path(Routine::geqrf, Prec<T>::letter, qr_order_for_flops<T>(flops), qr_probe<T>, a,
                                 span_bytes<T>(*m, *n, *lda));
  if (d.path == Path::gpu) {
    const char *path = "gpu";
    const gpu::Result r = gpu::orgqr(*m, *n, *k, a, *lda, tau, &path);
    if (r.ran || r.resume < *n) {
      if (r.ran) {
        trace.path(path, r.why);  // why: "pinned caller" or none
      } else {  // columns 0..resume-1 on the CPU, from their own reflectors
        trace.path("cpu-resumed", r.why);
        const lint rn = r.resume, rk = std::min(*k, rn);
        if (rn > 0) next::orgqr(m, &rn, &rk, a, lda, tau, work, lwork, info);
      }
      work[0] = T(double(max1(*n)) * double(orgqr_block_size(name, m, n, k)));
      return;
    }
    trace.path("cpu", r.why);
  } else {
    trace.path("cpu", d.why);
  }
  next::orgqr(m, n, k, a, lda, tau, work, lwork, info);
}

}  // namespace hqr

extern "C" {
void sorgqr_(const lapack_int *m, const lapack_int *n, const lapack_int *k, float *a, const lapack_int *lda,
             const float *tau, float *work, const lapack_int *lwork, lapack_int *info) {
  hqr::orgqr(m, n, k, hqr::cx(a), lda, hqr::cx(tau), hqr::cx(work), lwork, info);
}
void dorgqr_(const lapack_int *m, const lapack_int *n, const lapack_int *k, double *a, const lapack_int *lda,
             const double *tau, double *work, const lapack_int *lwork, lapack_int *info) {
  hqr::orgqr(m, n, k, hqr::cx(a), lda, hqr::cx(tau), hqr::cx(work), lwork, info);
}
void cungqr_(const lapack_int *m, const lapack_int *n, const lapack_int *k, lapack_complex_float *a,
             const lapack_int *lda, const lapack_complex_float *tau, lapack_complex_float *work,
             const lapack_int *lwork, lapack_int *info) {
  hqr::orgqr(m, n, k, hqr::cx(a), lda, hqr::cx(tau), hqr::cx(work), lwork, info);
}
void zungqr_(const lapack_int *m, const lapack_int *n, const lapack_int *k, lapack_complex_double *a,
             const lapack_int *lda, const lapack_complex_double *tau, lapack_complex_double *work,
             const lapack_int *lwork, lapack_int *info) {
  hqr::orgqr(m, n, k, hqr::cx(a), lda, hqr::cx(tau), hqr::cx(work), lwork, info);
}
}
