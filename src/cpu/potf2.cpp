#include "cpu/potf2.hpp"

#include <cmath>

namespace hqr::cpu {
namespace {

// Trailing update A22 -= L21 * L21**H (lower triangle of columns k0+kb..n-1)
// with a register tile of 4 columns by 16 rows: each loaded element of L21 is
// used 4 times and the accumulators stay in vector registers.
template <class T> __attribute__((always_inline)) inline void trailing_update(lint n, lint k0, lint kb, T *a, lint lda) {
  constexpr lint kCols = 4, kRows = 16;
  auto A = [&](lint i, lint j) -> T & { return a[i + j * lda]; };
  for (lint l = k0 + kb; l < n; l += kCols) {
    const lint nc = n - l < kCols ? n - l : kCols;
    for (lint i0 = l; i0 < n; i0 += kRows) {
      const lint nr = n - i0 < kRows ? n - i0 : kRows;
      T acc[kCols][kRows] = {};
      if (nr == kRows) {
        for (lint j = k0; j < k0 + kb; ++j) {
          const T *cj = &A(i0, j);
          for (lint c = 0; c < kCols; ++c) {
            const T s = c < nc ? conj_of(A(l + c, j)) : T(0);
            for (lint ii = 0; ii < kRows; ++ii) acc[c][ii] += cj[ii] * s;
          }
        }
      } else {
        for (lint j = k0; j < k0 + kb; ++j)
          for (lint c = 0; c < nc; ++c) {
            const T s = conj_of(A(l + c, j));
            for (lint ii = 0; ii < nr; ++ii) acc[c][ii] += A(i0 + ii, j) * s;
          }
      }
      for (lint c = 0; c < nc; ++c)
        for (lint ii = 0; ii < nr; ++ii)
          if (i0 + ii >= l + c) A(i0 + ii, l + c) -= acc[c][ii];
    }
  }
}

// Blocked right-looking lower Cholesky. Every inner loop runs down a column
// (contiguous, no reduction), so the compiler vectorises it without
// reassociating sums. Block of 48 columns keeps the panel in L1/L2.
template <class T> __attribute__((always_inline)) inline lint potrf_lower(lint n, T *a, lint lda) {
  using R = typename Prec<T>::real;
  constexpr lint kBlock = 48;
  auto A = [&](lint i, lint j) -> T & { return a[i + j * lda]; };
  for (lint k0 = 0; k0 < n; k0 += kBlock) {
    const lint kb = n - k0 < kBlock ? n - k0 : kBlock;
    // Factor the kb panel columns (diagonal block and everything below it).
    for (lint j = k0; j < k0 + kb; ++j) {
      const R ajj = std::real(A(j, j));
      if (!(ajj > R(0))) {  // also catches NaN
        A(j, j) = T(ajj);
        return j + 1;
      }
      const R d = std::sqrt(ajj);
      A(j, j) = T(d);
      const R inv = R(1) / d;
      T *cj = &A(0, j);
      for (lint i = j + 1; i < n; ++i) cj[i] *= inv;
      // Update the remaining panel columns with column j.
      for (lint l = j + 1; l < k0 + kb; ++l) {
        const T s = conj_of(A(l, j));
        T *cl = &A(0, l);
        for (lint i = l; i < n; ++i) cl[i] -= cj[i] * s;
      }
    }
    trailing_update(n, k0, kb, a, lda);
  }
  return 0;
}

template <class T> inline lint potf2_impl(bool upper, lint n, T *a, lint lda, T *work) {
  if (!upper) return potrf_lower(n, a, lda);
  // U**H*U = (U**H)*(U**H)**H: factor the conjugate transpose as a lower
  // triangle in `work`, then copy back. Only the upper triangle is touched.
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i <= j; ++i) work[j + i * n] = conj_of(a[i + j * lda]);
  const lint info = potrf_lower(n, work, n);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i <= j; ++i) a[i + j * lda] = conj_of(work[j + i * n]);
  return info;
}

}  // namespace

// One clone per instruction set; the loader picks the best the CPU has.
#define HQR_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
HQR_CLONES static lint potf2_s(bool u, lint n, float *a, lint lda, float *w) { return potf2_impl(u, n, a, lda, w); }
HQR_CLONES static lint potf2_d(bool u, lint n, double *a, lint lda, double *w) { return potf2_impl(u, n, a, lda, w); }
HQR_CLONES static lint potf2_c(bool u, lint n, std::complex<float> *a, lint lda, std::complex<float> *w) {
  return potf2_impl(u, n, a, lda, w);
}
HQR_CLONES static lint potf2_z(bool u, lint n, std::complex<double> *a, lint lda, std::complex<double> *w) {
  return potf2_impl(u, n, a, lda, w);
}
#undef HQR_CLONES

template <> lint potf2<float>(bool u, lint n, float *a, lint lda, float *w) { return potf2_s(u, n, a, lda, w); }
template <> lint potf2<double>(bool u, lint n, double *a, lint lda, double *w) { return potf2_d(u, n, a, lda, w); }
template <> lint potf2<std::complex<float>>(bool u, lint n, std::complex<float> *a, lint lda, std::complex<float> *w) {
  return potf2_c(u, n, a, lda, w);
}
template <> lint potf2<std::complex<double>>(bool u, lint n, std::complex<double> *a, lint lda,
                                             std::complex<double> *w) {
  return potf2_z(u, n, a, lda, w);
}

}  // namespace hqr::cpu
