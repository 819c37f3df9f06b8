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
#include "dispatch.hpp"
#include "flops.hpp"
#include "next_lapack.hpp"
#include "trace.hpp"

namespace hqr {

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
  const Decision d = choose_path(*m > *n ? *m : *n);
  trace.path("cpu", d.why);
  next::geqrf(m, n, a, lda, tau, work, lwork, info);
}

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
