// hqr's own U*U**H (L**H*L) for the diagonal blocks of the hybrid
// xLAUUM/xPOTRI: the CPU forms an nb-by-nb block's product while the GPU runs
// the big ones, so this never calls into OpenBLAS (and never fights its
// threads).
#pragma once

#include "host/common.hpp"

namespace hqr::cpu {

// Overwrites the n-by-n upper triangle U of `a` (leading dimension lda) with
// that of U*U**H, or the lower triangle L with that of L**H*L, as LAPACK's
// xLAUU2 does: only that triangle is referenced, and like xLAUU2 only the
// real part of the diagonal is read (the input is a Cholesky factor), so the
// result's diagonal is exactly real. `work` holds n*n elements for the lower
// case (it runs on a transposed copy); the upper case ignores it.
template <class T> void lauu2(bool upper, lint n, T *a, lint lda, T *work);

}  // namespace hqr::cpu
