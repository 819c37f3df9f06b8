// hqr's own Householder QR kernels for the panels of the hybrid xGEQRF
// (HQR_PANEL=cpu): the CPU factors an m-by-nb block column while the GPU
// applies the previous block reflector, so these never call into OpenBLAS
// (and never fight its threads).
#pragma once

#include "host/common.hpp"

namespace hqr::cpu {

// LAPACK's xGEQR2 result for the m-by-n block `a` (leading dimension lda):
// R on and above the diagonal, the reflectors' v below it (v(i) = 1
// implicit), tau[0..min(m,n)) as xLARFG defines them (real tau in {0} or
// [1, 2], complex ones make R's diagonal real). Blocked inside: kIb columns
// at a time, whose block reflector then updates the rest of the block, so
// that the work runs from cache. `work` holds qr_panel_work(n) elements.
template <class T> void geqr2(lint m, lint n, T *a, lint lda, T *tau, T *work);
lint qr_panel_work(lint n);

// LAPACK's xLARFT('F', 'C'): the k-by-k upper triangular t (leading
// dimension ldt) with H(1)...H(k) = I - V*t*V**H, V m-by-k unit lower
// trapezoidal as geqr2 leaves it (what lies above its diagonal is ignored).
// `work` holds k*k elements.
template <class T> void larft(lint m, lint k, const T *v, lint ldv, const T *tau, T *t, lint ldt, T *work);

}  // namespace hqr::cpu
