#include "cpu/lauu2.hpp"

#include <algorithm>
#include <cstddef>

#include "cpu/tile.hpp"

namespace hqr::cpu {
namespace {

using namespace tile;

// The product's element (p, q), p <= q, is sum over l >= q of
// U(p,l) * conj(U(q,l)), with the diagonal of U read as real (xLAUU2). For
// column q the factor of U(p,l) is s_q(l): conj(U(q,l)) for l > q,
// Re U(q,q) for l = q.
template <class T> inline T factor(const T *a, idx lda, idx q, idx l) {
  return l == q ? T(std::real(a[q + q * lda])) : conj_of(a[q + l * lda]);
}

// Rows i0..i0+nr-1 (all above q0) of the product's columns q0..q0+nc-1.
// `Full`: nr = kRows and nc = kCols, the fixed-length loops.
template <bool Full, class T>
__attribute__((always_inline)) inline void band(idx n, idx i0, idx nr, idx q0, idx nc, T *a, idx lda) {
  const idx rows = Full ? kRows : nr, cols = Full ? kCols : nc;
  T acc[kCols][kRows] = {};
  // Columns l of the group itself meet only the group's columns q <= l.
  for (idx l = q0; l < q0 + cols; ++l) {
    const T *al = a + i0 + l * lda;
    for (idx c = 0; c <= l - q0; ++c) {
      const T s = factor(a, lda, q0 + c, l);
      for (idx ii = 0; ii < rows; ++ii) acc[c][ii] += mul(al[ii], s);
    }
  }
  for (idx l = q0 + cols; l < n; ++l) {
    const T *al = a + i0 + l * lda;
#pragma GCC unroll 4
    for (idx c = 0; c < cols; ++c) {
      const T s = conj_of(a[q0 + c + l * lda]);
#pragma GCC unroll 16
      for (idx ii = 0; ii < rows; ++ii) acc[c][ii] += mul(al[ii], s);
    }
  }
  for (idx c = 0; c < cols; ++c)
    for (idx ii = 0; ii < rows; ++ii) a[i0 + ii + (q0 + c) * lda] = acc[c][ii];
}

// Upper: in place, kCols columns of the product at a time, left to right.
// Column q needs columns q..n-1 of U, which no earlier group has changed;
// within a group the bands above the diagonal come first and the group's
// own rows (which hold the factors s_q) are stored last.
template <class T> inline void lauu2_upper(idx n, T *a, idx lda) {
  using R = typename Prec<T>::real;
  for (idx q0 = 0; q0 < n; q0 += kCols) {
    const idx nc = std::min(kCols, n - q0);
    idx i0 = 0;
    if (nc == kCols)
      for (; i0 + kRows <= q0; i0 += kRows) band<true>(n, i0, kRows, q0, nc, a, lda);
    for (; i0 < q0; i0 += kRows) band<false>(n, i0, std::min(kRows, q0 - i0), q0, nc, a, lda);
    // The group's own triangle, element by element.
    T tile[kCols][kCols];
    for (idx c = 0; c < nc; ++c) {
      const idx q = q0 + c;
      for (idx p = q0; p < q; ++p) {
        T s = mul(a[p + q * lda], factor(a, lda, q, q));
        for (idx l = q + 1; l < n; ++l) s += mul(a[p + l * lda], conj_of(a[q + l * lda]));
        tile[c][p - q0] = s;
      }
      const R d = std::real(a[q + q * lda]);
      R s = d * d;
      for (idx l = q + 1; l < n; ++l) s += std::norm(a[q + l * lda]);
      tile[c][c] = T(s);
    }
    for (idx c = 0; c < nc; ++c)
      for (idx p = 0; p <= c; ++p) a[q0 + p + (q0 + c) * lda] = tile[c][p];
  }
}

template <class T> inline void lauu2_impl(bool upper, idx n, T *a, idx lda, T *work) {
  if (upper) return lauu2_upper(n, a, lda);
  // L**H*L = U*U**H with U = L**H: run on the conjugate transpose in `work`
  // and copy back. Only the lower triangle is touched.
  for (idx j = 0; j < n; ++j)
    for (idx i = j; i < n; ++i) work[j + i * n] = conj_of(a[i + j * lda]);
  lauu2_upper(n, work, n);
  for (idx j = 0; j < n; ++j)
    for (idx i = j; i < n; ++i) a[i + j * lda] = conj_of(work[j + i * n]);
}

}  // namespace

// One clone per instruction set; the loader picks the best the CPU has.
#define HQR_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
HQR_CLONES static void lauu2_s(bool u, lint n, float *a, lint lda, float *w) { lauu2_impl(u, n, a, lda, w); }
HQR_CLONES static void lauu2_d(bool u, lint n, double *a, lint lda, double *w) { lauu2_impl(u, n, a, lda, w); }
HQR_CLONES static void lauu2_c(bool u, lint n, std::complex<float> *a, lint lda, std::complex<float> *w) {
  lauu2_impl(u, n, a, lda, w);
}
HQR_CLONES static void lauu2_z(bool u, lint n, std::complex<double> *a, lint lda, std::complex<double> *w) {
  lauu2_impl(u, n, a, lda, w);
}
#undef HQR_CLONES

template <> void lauu2<float>(bool u, lint n, float *a, lint lda, float *w) { lauu2_s(u, n, a, lda, w); }
template <> void lauu2<double>(bool u, lint n, double *a, lint lda, double *w) { lauu2_d(u, n, a, lda, w); }
template <>
void lauu2<std::complex<float>>(bool u, lint n, std::complex<float> *a, lint lda, std::complex<float> *w) {
  lauu2_c(u, n, a, lda, w);
}
template <>
void lauu2<std::complex<double>>(bool u, lint n, std::complex<double> *a, lint lda, std::complex<double> *w) {
  lauu2_z(u, n, a, lda, w);
}

}  // namespace hqr::cpu
