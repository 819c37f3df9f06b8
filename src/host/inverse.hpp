// What xTRTRI, xLAUUM and xPOTRI share around their GPU path: LAPACK's
// singularity check, and finishing on the CPU when the GPU stopped with part
// of the result already in the caller's array (gpu.hpp, Result::resume).
#pragma once

#include <cstddef>

#include "common.hpp"
#include "cpu/blas.hpp"
#include "next_lapack.hpp"

namespace hqr {

// xTRTRI (and so xPOTRI) checks the whole diagonal for an exact zero
// before it writes anything: INFO is the first such position, or 0.
template <class T> lint first_zero_diagonal(lint n, const T *a, lint lda) {
  for (lint j = 0; j < n; ++j)
    if (a[j + std::size_t(j) * lda] == T(0)) return j + 1;
  return 0;
}

// trtri, with the first j (> 0) columns ('U') or rows ('L') of the inverse
// final and the rest still the input (nonsingular):
//   'U': U22 = inv(U22); U12 = -inv(U11) * U12 * inv(U22)
//   'L': L22 = inv(L22); L21 = -inv(L22) * L21 * inv(L11)
template <class T> void finish_trtri(bool upper, bool unit, lint n, lint j, T *a, lint lda) {
  const lint m = n - j;
  if (m == 0) return;
  const char uplo = upper ? 'U' : 'L', diag = unit ? 'U' : 'N';
  T *a22 = a + j + std::size_t(j) * lda;
  lint info = 0;
  next::trtri(&uplo, &diag, &m, a22, &lda, &info);
  if (upper) {
    T *a12 = a + std::size_t(j) * lda;
    blas::trmm<T>('L', 'U', 'N', diag, j, m, T(-1), a, lda, a12, lda);
    blas::trmm<T>('R', 'U', 'N', diag, j, m, T(1), a22, lda, a12, lda);
  } else {
    T *a21 = a + j;
    blas::trmm<T>('L', 'L', 'N', diag, m, j, T(-1), a22, lda, a21, lda);
    blas::trmm<T>('R', 'L', 'N', diag, m, j, T(1), a, lda, a21, lda);
  }
}

// lauum, with the first j (> 0) columns ('U') or rows ('L') of the product
// final and the rest still the input:
//   'U': A12 = U12 * U22**H; A22 = U22 * U22**H
//   'L': A21 = L22**H * L21; A22 = L22**H * L22
template <class T> void finish_lauum(bool upper, lint n, lint j, T *a, lint lda) {
  const lint m = n - j;
  if (m == 0) return;
  const char uplo = upper ? 'U' : 'L';
  T *a22 = a + j + std::size_t(j) * lda;
  if (upper)
    blas::trmm<T>('R', 'U', 'C', 'N', j, m, T(1), a22, lda, a + std::size_t(j) * lda, lda);
  else
    blas::trmm<T>('L', 'L', 'C', 'N', m, j, T(1), a22, lda, a + j, lda);
  lint info = 0;
  next::lauum(&uplo, &m, a22, &lda, &info);
}

}  // namespace hqr
