// The compact-WY block reflector on the device, LAPACK's xLARFT (forward,
// columnwise) and xLARFB with cuBLAS level 3, shared by the routines that
// apply or form Q (qr_apply.cu) and the QR updates (qrupd_gpu.cu). S runs
// the steps on its context's compute stream: check(status, point) and
// launched() record the first failure (or injected fault) and make every
// later step a no-op returning false; c_ is the context.
#pragma once

#include "cuda/blas.cuh"
#include "cuda/context.hpp"
#include "cuda/qr_kernels.cuh"
#include "host/common.hpp"
#include "host/fault.hpp"

namespace hqr::gpu {

// V (mk-by-kb, the unit lower trapezoid of a, its unit triangle written
// out so that plain gemms do the work) into v, and T (kb-by-kb, leading
// dimension ldt) from V and tau as T = (striu(V**H V) + diag(1/tau))**-1,
// with T's column zero where tau is; g is kb-by-kb scratch (ldt).
template <class T, class S>
bool block_t(S &s, lint mk, lint kb, const T *a, lint lda, T *v, lint ldv, const T *tau, T *t, lint ldt, T *g) {
  using R = typename Prec<T>::real;
  cudaStream_t st = s.c_.compute_stream;
  unit_lower_copy<<<grid_for(int64_t(mk) * kb), 256, 0, st>>>(mk, kb, dv(a), lda, dv(v), ldv);
  if (!s.launched() || !s.check(blas::herk(s.c_.blas, CUBLAS_FILL_MODE_UPPER, blas::op_c<T>(), kb, mk, R(1), v, ldv,
                                           R(0), g, ldt),
                                fault::Point::kernel))
    return false;
  t_inverse_setup<<<grid_for(int64_t(kb) * kb, 256, 1024), 256, 0, st>>>(int(kb), dv(g), int(ldt), dv(tau), dv(t),
                                                                         int(ldt));
  if (!s.launched() || !s.check(blas::trsm(s.c_.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                           CUBLAS_DIAG_NON_UNIT, kb, kb, T(1), g, ldt, t, ldt),
                                fault::Point::kernel))
    return false;
  fix_zero_tau<<<grid_for(kb), 256, 0, st>>>(int(kb), dv(tau), dv(t), int(ldt));
  return s.launched();
}

// Left: C (rows-by-cols) := (I - V op(T) V**H) C, W kb-by-cols (ldw >= kb).
// Right: C (rows-by-cols) := C (I - V op(T) V**H), W rows-by-kb (ldw >= rows).
// op(T) = T**H for `conj`, T otherwise.
template <class T, class S>
bool apply_block_reflector(S &s, bool left, bool conj, lint rows, lint cols, lint kb, const T *v, lint ldv,
                           const T *t, lint ldt, T *c, lint ldc, T *w, lint ldw) {
  const cublasOperation_t opt = conj ? blas::op_c<T>() : CUBLAS_OP_N;
  const fault::Point k = fault::Point::kernel;
  cublasHandle_t h = s.c_.blas;
  if (rows == 0 || cols == 0 || kb == 0) return true;
  if (left)
    return s.check(blas::gemm(h, blas::op_c<T>(), CUBLAS_OP_N, kb, cols, rows, T(1), v, ldv, c, ldc, T(0), w, ldw),
                   k) &&
           s.check(blas::trmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, opt, CUBLAS_DIAG_NON_UNIT, kb, cols, T(1), t,
                              ldt, w, ldw, w, ldw),
                   k) &&
           s.check(blas::gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, rows, cols, kb, T(-1), v, ldv, w, ldw, T(1), c, ldc), k);
  return s.check(blas::gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, rows, kb, cols, T(1), c, ldc, v, ldv, T(0), w, ldw), k) &&
         s.check(blas::trmm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, opt, CUBLAS_DIAG_NON_UNIT, rows, kb, T(1), t,
                            ldt, w, ldw, w, ldw),
                 k) &&
         s.check(blas::gemm(h, CUBLAS_OP_N, blas::op_c<T>(), rows, cols, kb, T(-1), w, ldw, v, ldv, T(1), c, ldc), k);
}

}  // namespace hqr::gpu
