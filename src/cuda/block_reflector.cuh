// The compact-WY block reflector on the device, LAPACK's xLARFT (forward,
// columnwise) and xLARFB with cuBLAS level 3, and xORGQR's block built on
// them, shared by the routines that apply or form Q (qr_apply.cu,
// qr_one_trip.cu) and the QR updates (qrupd_gpu.cuh). S runs
// the steps on its context's compute stream: check(status, point) and
// launched() record the first failure (or injected fault) and make every
// later step a no-op returning false; c_ is the context (DeviceSteps).
#pragma once

#include "cuda/blas.cuh"
#include "cuda/cholqr.cuh"
#include "cuda/context.hpp"
#include "cuda/qr_kernels.cuh"
#include "host/common.hpp"
#include "host/config.hpp"
#include "host/fault.hpp"

namespace hqr::gpu {

// The steps' bookkeeping: the first failure (or injected fault) makes every
// later step a no-op returning false.
struct DeviceSteps {
  Context &c_;
  bool failed_ = false;
  explicit DeviceSteps(Context &c) : c_(c) {}
  bool failed() const { return failed_; }
  template <class St> bool check(St status, fault::Point p) {
    if (failed_) return false;
    if (!ok(status) || fault::hit(p)) failed_ = true;
    return !failed_;
  }
  bool launched() { return check(cudaGetLastError(), fault::Point::kernel); }
};

// The block size for applying and forming Q: HQR_NB, else 256 (the hybrid
// geqrf's for the sizes where the GPU serves these routines).
inline lint apply_block(lint k) {
  const int nb = config::nb();
  return std::max<lint>(1, std::min<lint>(nb > 0 ? nb : 256, std::max<lint>(k, 1)));
}

// T (kb-by-kb, leading dimension ldt, zeros below the diagonal) from V
// (mk-by-kb, ldv, its unit triangle written out) and tau as
// T = (striu(V**H V) + diag(1/tau))**-1, with T's column zero where tau is;
// g is kb-by-kb scratch (ldt). The inverse by cholqr.cuh's inverse_upper
// where kb is 32 times a power of two, else by cuBLAS's trsm against I.
// Measured reasons:
// - trsm against I 77 and 157 us at kb = 256 and 512 (H100, bench/results/history/qr-tuning-NVIDIA-H100-2026-11-27.txt)
// - inverse_upper 0.07-0.10 ms at 512 against 0.23-0.26 (H200, bench/results/history/qr-NVIDIA-H200-2026-11-25b.txt)
template <class T, class S>
bool t_of_v(S &s, lint mk, lint kb, const T *v, lint ldv, const T *tau, T *t, lint ldt, T *g) {
  using R = typename Prec<T>::real;
  cudaStream_t st = s.c_.compute_stream;
  if (!s.check(blas::herk(s.c_.blas, CUBLAS_FILL_MODE_UPPER, blas::op_c<T>(), kb, mk, R(1), v, ldv, R(0), g, ldt),
               fault::Point::kernel))
    return false;
  const bool by_blocks = inverse_upper_fits(kb);
  t_inverse_setup<<<grid_for(int64_t(kb) * kb, 256, 1024), 256, 0, st>>>(int(kb), dv(g), int(ldt), dv(tau),
                                                                         by_blocks ? nullptr : dv(t), int(ldt));
  if (!s.launched()) return false;
  if (by_blocks) {
    if (!inverse_upper(s.c_.blas, st, g, ldt, t, ldt, kb, static_cast<T *>(nullptr),
                       [&](auto status) { return s.check(status, fault::Point::kernel); }))
      return false;
  } else if (!s.check(blas::trsm(s.c_.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                                 kb, kb, T(1), g, ldt, t, ldt),
                      fault::Point::kernel)) {
    return false;
  }
  fix_zero_tau<<<grid_for(kb), 256, 0, st>>>(int(kb), dv(tau), dv(t), int(ldt));
  return s.launched();
}

// V (mk-by-kb, the unit lower trapezoid of a, its unit triangle written
// out so that plain gemms do the work) into v, and T from it (t_of_v).
template <class T, class S>
bool block_t(S &s, lint mk, lint kb, const T *a, lint lda, T *v, lint ldv, const T *tau, T *t, lint ldt, T *g) {
  unit_lower_copy<<<grid_for(int64_t(mk) * kb), 256, 0, s.c_.compute_stream>>>(mk, kb, dv(a), lda, dv(v), ldv);
  return s.launched() && t_of_v(s, mk, kb, v, ldv, tau, t, ldt, g);
}

// Left: C (rows-by-cols) := (I - V op(T) V**H) C, W kb-by-cols (ldw >= kb).
// Right: C (rows-by-cols) := C (I - V op(T) V**H), W rows-by-kb (ldw >= rows).
// op(T) = T**H for `conj`, T otherwise. With w2 (W's shape, ldw), op(T)
// multiplies W out of place by a gemm (T is zero below its diagonal).
// Measured reason: kb = 256 and 512 by 512 columns, trmm 50 and 100 us, gemm 18 and 22
// (H100, bench/results/history/qr-tuning-NVIDIA-H100-2026-11-27.txt).
template <class T, class S>
bool apply_block_reflector(S &s, bool left, bool conj, lint rows, lint cols, lint kb, const T *v, lint ldv,
                           const T *t, lint ldt, T *c, lint ldc, T *w, lint ldw, T *w2 = nullptr) {
  const cublasOperation_t opt = conj ? blas::op_c<T>() : CUBLAS_OP_N;
  const fault::Point k = fault::Point::kernel;
  cublasHandle_t h = s.c_.blas;
  if (rows == 0 || cols == 0 || kb == 0) return true;
  T *tw = w2 ? w2 : w;  // op(T) W or W op(T)
  if (left)
    return s.check(blas::gemm(h, blas::op_c<T>(), CUBLAS_OP_N, kb, cols, rows, T(1), v, ldv, c, ldc, T(0), w, ldw),
                   k) &&
           s.check(w2 ? blas::gemm(h, opt, CUBLAS_OP_N, kb, cols, kb, T(1), t, ldt, w, ldw, T(0), w2, ldw)
                      : blas::trmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, opt, CUBLAS_DIAG_NON_UNIT, kb, cols,
                                   T(1), t, ldt, w, ldw, w, ldw),
                   k) &&
           s.check(blas::gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, rows, cols, kb, T(-1), v, ldv, tw, ldw, T(1), c, ldc), k);
  return s.check(blas::gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, rows, kb, cols, T(1), c, ldc, v, ldv, T(0), w, ldw), k) &&
         s.check(w2 ? blas::gemm(h, CUBLAS_OP_N, opt, rows, kb, kb, T(1), w, ldw, t, ldt, T(0), w2, ldw)
                    : blas::trmm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, opt, CUBLAS_DIAG_NON_UNIT, rows, kb,
                                 T(1), t, ldt, w, ldw, w, ldw),
                 k) &&
         s.check(blas::gemm(h, CUBLAS_OP_N, blas::op_c<T>(), rows, cols, kb, T(-1), tw, ldw, v, ldv, T(1), c, ldc), k);
}

// B (p-by-nrhs, ldb) := Q**H B (conj: the blocks first to last) or Q B (last
// to first), Q from the reflectors of the p-by-q factor f (ldf) in blocks of
// nb columns, block j's T at t + j*nb*nb (ldt nb): each block's V copied
// with its unit triangle into v (ldv by nb) first; w nb by nrhs (ldw).
template <class T, class S>
bool apply_q_blocks(S &s, bool conj, lint p, lint q, lint nrhs, const T *f, lint ldf, const T *t, lint nb, T *b,
                    lint ldb, T *v, lint ldv, T *w, lint ldw) {
  const lint nblocks = (q + nb - 1) / nb;
  for (lint i = 0; i < nblocks; ++i) {
    const lint j = conj ? i : nblocks - 1 - i, k0 = j * nb, kb = std::min(nb, q - k0);
    unit_lower_copy<<<grid_for(int64_t(p - k0) * kb), 256, 0, s.c_.compute_stream>>>(
        p - k0, kb, dv(f + k0 + std::size_t(k0) * ldf), ldf, dv(v), ldv);
    if (!s.launched() || !apply_block_reflector(s, true, conj, p - k0, nrhs, kb, v, ldv, t + std::size_t(j) * nb * nb,
                                                nb, b + k0, ldb, w, ldw))
      return false;
  }
  return true;
}

// xORGQR's start: columns k..n-1 of the m-by-n a (lda) become those of the
// identity, which the blocks then multiply.
template <class T, class S> bool orgqr_start(S &s, lint m, lint n, lint k, T *a, lint lda) {
  if (k >= n) return true;
  set_identity<<<grid_for(int64_t(m) * (n - k)), 256, 0, s.c_.compute_stream>>>(m, n - k, k,
                                                                                   dv(a + std::size_t(k) * lda), lda);
  return s.launched();
}

// xORGQR's block of reflectors k0..k0+kb-1, the blocks last first, in place
// in the m-by-n a (lda) as LAPACK's: columns k0+kb.. (already Q's of the
// later blocks) are multiplied by Q_p, then the block's own columns become
// Q_p's, E - V (T V1**H) with E = [0; I; 0], zeros above. Scratch: v (m - k0
// by kb, ldv), t, g and e (nb by nb), w (kb by n - k0 - kb, ld nb), and
// w2 as w, or null (apply_block_reflector).
template <class T, class S>
bool orgqr_block(S &s, lint m, lint n, lint k0, lint kb, T *a, lint lda, const T *tau, T *v, lint ldv, T *t, T *g,
                 T *e, lint nb, T *w, T *w2 = nullptr) {
  const lint mk = m - k0, c0 = k0 + kb;
  T *akk = a + k0 + std::size_t(k0) * lda;
  cudaStream_t st = s.c_.compute_stream;
  if (!block_t(s, mk, kb, akk, lda, v, ldv, tau, t, nb, g) ||
      !apply_block_reflector(s, true, false, mk, n - c0, kb, v, ldv, t, nb, akk + std::size_t(kb) * lda, lda, w, nb,
                             w2) ||
      !s.check(blas::gemm(s.c_.blas, CUBLAS_OP_N, blas::op_c<T>(), kb, kb, kb, T(1), t, nb, v, ldv, T(0), e, nb),
               fault::Point::kernel) ||
      !s.check(blas::gemm(s.c_.blas, CUBLAS_OP_N, CUBLAS_OP_N, mk, kb, kb, T(-1), v, ldv, e, nb, T(0), akk, lda),
               fault::Point::kernel))
    return false;
  add_identity<<<grid_for(kb), 256, 0, st>>>(kb, dv(akk), lda);
  return s.launched() && (k0 == 0 || s.check(cudaMemset2DAsync(a + std::size_t(k0) * lda, lda * sizeof(T), 0,
                                                               k0 * sizeof(T), kb, st),
                                             fault::Point::kernel));
}

}  // namespace hqr::gpu
