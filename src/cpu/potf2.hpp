// hqr's own Cholesky kernel for the diagonal blocks of the hybrid potrf:
// the CPU factors an nb-by-nb block while the GPU runs the big updates, so
// this never calls into OpenBLAS (and never fights its threads).
#pragma once

#include "host/common.hpp"

namespace hqr::cpu {

// Factors the n-by-n block `a` (leading dimension lda) in place: lower
// (A = L*L**H) or upper (A = U**H*U), referencing only that triangle.
// Returns 0, or the 1-based column j where the leading minor of order j is
// not positive (or is NaN); then A(j,j) holds that value and the columns
// before j hold their factor, as LAPACK's xPOTF2 leaves them.
// `work` holds n*n elements (the upper case runs on a transposed copy).
template <class T> lint potf2(bool upper, lint n, T *a, lint lda, T *work);

}  // namespace hqr::cpu
