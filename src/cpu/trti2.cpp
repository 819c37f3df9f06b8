#include "cpu/trti2.hpp"

#include <algorithm>
#include <cstddef>

#include "cpu/tile.hpp"

namespace hqr::cpu {
namespace {

using namespace tile;

// Columns per step of the blocked inverse: the step's rectangle stays in L1.
constexpr idx kBlock = 32;

// One tile of upper_times: rows i0..i0+nr-1, columns c0..c0+nc-1 of V*B.
// `Full`: nr = kRows and nc = kCols, the fixed-length loops.
template <bool Full, class T>
__attribute__((always_inline)) inline void upper_times_tile(bool unit, idx m, idx i0, idx nr, idx c0, idx nc,
                                                            const T *v, idx ldv, T *b, idx ldb) {
  const idx rows = Full ? kRows : nr, cols = Full ? kCols : nc;
  T acc[kCols][kRows] = {};
  // The tile's own triangle: row l of B meets rows i0..l of the tile.
  for (idx l = i0; l < i0 + rows; ++l)
    for (idx c = 0; c < cols; ++c) {
      const T s = b[l + (c0 + c) * ldb];
      for (idx ii = 0; ii < l - i0; ++ii) acc[c][ii] += mul(v[i0 + ii + l * ldv], s);
      acc[c][l - i0] += unit ? s : mul(v[l + l * ldv], s);
    }
  // Below the tile every row of it meets row l.
  for (idx l = i0 + rows; l < m; ++l) {
    const T *vl = v + i0 + l * ldv;
#pragma GCC unroll 4
    for (idx c = 0; c < cols; ++c) {
      const T s = b[l + (c0 + c) * ldb];
#pragma GCC unroll 16
      for (idx ii = 0; ii < rows; ++ii) acc[c][ii] += mul(vl[ii], s);
    }
  }
  for (idx c = 0; c < cols; ++c)
    for (idx ii = 0; ii < rows; ++ii) b[i0 + ii + (c0 + c) * ldb] = acc[c][ii];
}

// B := V*B in place: V is the m-by-m upper triangle of v (unit: ones on its
// diagonal, not read), B is m-by-w. Row i of the product needs rows i..m-1
// of B; tiles go top-down and each is stored once complete, so every tile
// reads rows that no earlier tile has changed.
template <class T> inline void upper_times(bool unit, idx m, idx w, const T *v, idx ldv, T *b, idx ldb) {
  for (idx i0 = 0; i0 < m; i0 += kRows) {
    const idx nr = std::min(kRows, m - i0);
    for (idx c0 = 0; c0 < w; c0 += kCols) {
      const idx nc = std::min(kCols, w - c0);
      if (nr == kRows && nc == kCols)
        upper_times_tile<true>(unit, m, i0, nr, c0, nc, v, ldv, b, ldb);
      else
        upper_times_tile<false>(unit, m, i0, nr, c0, nc, v, ldv, b, ldb);
    }
  }
}

// Rows i0..i0+nr-1 of B*V (see times_upper).
template <bool Full, class T>
__attribute__((always_inline)) inline void times_upper_band(bool unit, idx i0, idx nr, idx w, T alpha, const T *v,
                                                            idx ldv, T *b, idx ldb) {
  const idx rows = Full ? kRows : nr;
  for (idx c = w - 1; c >= 0; --c) {
    T acc[kRows];
    T *bc = b + i0 + c * ldb;
    const T d = unit ? alpha : mul(alpha, v[c + c * ldv]);
    for (idx ii = 0; ii < rows; ++ii) acc[ii] = mul(bc[ii], d);
    for (idx l = 0; l < c; ++l) {
      const T s = mul(alpha, v[l + c * ldv]);
      const T *bl = b + i0 + l * ldb;
#pragma GCC unroll 16
      for (idx ii = 0; ii < rows; ++ii) acc[ii] += mul(bl[ii], s);
    }
    for (idx ii = 0; ii < rows; ++ii) bc[ii] = acc[ii];
  }
}

// B := alpha*B*V in place: V is the w-by-w upper triangle of v (unit: ones
// on its diagonal), B is m-by-w. Column c of the product needs columns 0..c
// of B, so each band of rows forms its columns right to left.
template <class T> inline void times_upper(bool unit, idx m, idx w, T alpha, const T *v, idx ldv, T *b, idx ldb) {
  idx i0 = 0;
  for (; i0 + kRows <= m; i0 += kRows) times_upper_band<true>(unit, i0, kRows, w, alpha, v, ldv, b, ldb);
  if (i0 < m) times_upper_band<false>(unit, i0, m - i0, w, alpha, v, ldv, b, ldb);
}

// LAPACK's unblocked xTRTI2 (upper), for blocks of kBlock columns: column j
// of the inverse is -A(j,j)**-1 times the inverse so far times column j.
template <class T> inline void invert_block(bool unit, idx n, T *a, idx lda) {
  for (idx j = 0; j < n; ++j) {
    T ajj(-1);
    if (!unit) {
      a[j + j * lda] = T(1) / a[j + j * lda];
      ajj = -a[j + j * lda];
    }
    T *x = a + j * lda;
    upper_times(unit, j, 1, a, lda, x, lda);
    for (idx i = 0; i < j; ++i) x[i] = mul(x[i], ajj);
  }
}

// Blocked as LAPACK's xTRTRI (upper), with the step's diagonal block
// inverted first so that both products are multiplications:
//   A(0:j0, J) := -inv(A11) * A(0:j0, J) * inv(A(J,J)).
template <class T> inline void trti2_upper(bool unit, idx n, T *a, idx lda) {
  for (idx j0 = 0; j0 < n; j0 += kBlock) {
    const idx jb = std::min(kBlock, n - j0);
    T *b = a + j0 * lda, *d = a + j0 + j0 * lda;
    upper_times(unit, j0, jb, a, lda, b, lda);
    invert_block(unit, jb, d, lda);
    times_upper(unit, j0, jb, T(-1), d, lda, b, lda);
  }
}

template <class T> inline void trti2_impl(bool upper, bool unit, idx n, T *a, idx lda, T *work) {
  if (upper) return trti2_upper(unit, n, a, lda);
  // inv(L)**H = inv(L**H): invert the conjugate transpose as an upper
  // triangle in `work`, then copy back. Only the lower triangle is touched.
  for (idx j = 0; j < n; ++j)
    for (idx i = j + (unit ? 1 : 0); i < n; ++i) work[j + i * n] = conj_of(a[i + j * lda]);
  trti2_upper(unit, n, work, n);
  for (idx j = 0; j < n; ++j)
    for (idx i = j + (unit ? 1 : 0); i < n; ++i) a[i + j * lda] = conj_of(work[j + i * n]);
}

}  // namespace

// One clone per instruction set; the loader picks the best the CPU has.
#define HQR_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
HQR_CLONES static void trti2_s(bool u, bool unit, lint n, float *a, lint lda, float *w) {
  trti2_impl(u, unit, n, a, lda, w);
}
HQR_CLONES static void trti2_d(bool u, bool unit, lint n, double *a, lint lda, double *w) {
  trti2_impl(u, unit, n, a, lda, w);
}
HQR_CLONES static void trti2_c(bool u, bool unit, lint n, std::complex<float> *a, lint lda, std::complex<float> *w) {
  trti2_impl(u, unit, n, a, lda, w);
}
HQR_CLONES static void trti2_z(bool u, bool unit, lint n, std::complex<double> *a, lint lda,
                               std::complex<double> *w) {
  trti2_impl(u, unit, n, a, lda, w);
}
#undef HQR_CLONES

template <> void trti2<float>(bool u, bool unit, lint n, float *a, lint lda, float *w) {
  trti2_s(u, unit, n, a, lda, w);
}
template <> void trti2<double>(bool u, bool unit, lint n, double *a, lint lda, double *w) {
  trti2_d(u, unit, n, a, lda, w);
}
template <>
void trti2<std::complex<float>>(bool u, bool unit, lint n, std::complex<float> *a, lint lda,
                                std::complex<float> *w) {
  trti2_c(u, unit, n, a, lda, w);
}
template <>
void trti2<std::complex<double>>(bool u, bool unit, lint n, std::complex<double> *a, lint lda,
                                 std::complex<double> *w) {
  trti2_z(u, unit, n, a, lda, w);
}

}  // namespace hqr::cpu
