// hqr's own triangular inverse for the diagonal blocks of the hybrid
// xTRTRI/xPOTRI: the CPU inverts an nb-by-nb block while the GPU runs the
// big products, so this never calls into OpenBLAS (and never fights its
// threads).
#pragma once

#include "host/common.hpp"

namespace hqr::cpu {

// Overwrites the n-by-n upper (or lower) triangle of `a` (leading dimension
// lda) with its inverse, as LAPACK's xTRTI2 does; `unit`: the diagonal is
// taken as ones and neither read nor written. Only that triangle is
// referenced. The diagonal must hold no exact zero (callers check first, as
// xTRTRI does before it writes anything). `work` holds n*n elements for the
// lower case (it runs on a transposed copy); the upper case ignores it.
template <class T> void trti2(bool upper, bool unit, lint n, T *a, lint lda, T *work);

}  // namespace hqr::cpu
