#include "cpu/qr_panel.hpp"

#include <cmath>
#include <limits>

#include "cpu/tile.hpp"

namespace hqr::cpu {
namespace {

using tile::idx;
using tile::mul;

// Columns factored one reflector at a time before their block reflector
// updates the rest of the panel: 32 columns of a 16384-row panel are 4 MiB
// (doubles), about what one core's L2 and its share of L3 hold.
constexpr lint kIb = 32;

// Y(0:nv, 0:nc) += V**H * C over `rows` dense rows. Tiles of 4 columns of V
// by 8 rows, each element of C loaded once per 4 columns of V, the 32
// accumulators independent so that the compiler vectorises without
// reassociating sums.
template <class T>
__attribute__((always_inline)) inline void vhc(idx rows, const T *v, idx ldv, idx nv, const T *c, idx ldc, idx nc,
                                               T *y, idx ldy) {
  constexpr idx kV = 4, kR = 8;
  for (idx j = 0; j < nc; ++j) {
    const T *cj = c + j * ldc;
    for (idx l = 0; l < nv; l += kV) {
      const idx nl = nv - l < kV ? nv - l : kV;
      T acc[kV][kR] = {};
      idx r = 0;
      if (nl == kV) {
        for (; r + kR <= rows; r += kR)
          for (idx q = 0; q < kV; ++q) {
            const T *vq = v + (l + q) * ldv + r;
            for (idx ii = 0; ii < kR; ++ii) acc[q][ii] += mul(conj_of(vq[ii]), cj[r + ii]);
          }
      }
      for (idx q = 0; q < nl; ++q) {
        T s = T(0);
        for (idx ii = 0; ii < kR; ++ii) s += acc[q][ii];
        const T *vq = v + (l + q) * ldv;
        for (idx rr = r; rr < rows; ++rr) s += mul(conj_of(vq[rr]), cj[rr]);
        y[(l + q) + j * ldy] += s;
      }
    }
  }
}

// C(0:rows, 0:nc) -= V * Y over dense rows, 4 columns of V at a time (the
// inner loop runs down a column of C: contiguous, no reduction).
template <class T>
__attribute__((always_inline)) inline void c_minus_vy(idx rows, const T *v, idx ldv, idx nv, const T *y, idx ldy, T *c,
                                                      idx ldc, idx nc) {
  for (idx j = 0; j < nc; ++j) {
    T *cj = c + j * ldc;
    idx l = 0;
    for (; l + 4 <= nv; l += 4) {
      const T y0 = y[l + j * ldy], y1 = y[l + 1 + j * ldy], y2 = y[l + 2 + j * ldy], y3 = y[l + 3 + j * ldy];
      const T *v0 = v + l * ldv, *v1 = v0 + ldv, *v2 = v1 + ldv, *v3 = v2 + ldv;
      for (idx r = 0; r < rows; ++r) cj[r] -= mul(v0[r], y0) + mul(v1[r], y1) + mul(v2[r], y2) + mul(v3[r], y3);
    }
    for (; l < nv; ++l) {
      const T yl = y[l + j * ldy];
      const T *vl = v + l * ldv;
      for (idx r = 0; r < rows; ++r) cj[r] -= mul(vl[r], yl);
    }
  }
}

// V is mv-by-nv unit lower trapezoidal (mv >= nv): v(r,l) = 1 for r = l,
// 0 above, the stored value below.
template <class T> inline T unit_lower(const T *v, idx ldv, idx r, idx l) {
  return r == l ? T(1) : r > l ? v[r + l * ldv] : T(0);
}

// Y = V**H * C for a unit lower trapezoidal V (mv-by-nv) and C mv-by-nc.
template <class T>
__attribute__((always_inline)) inline void apply_vh(idx mv, const T *v, idx ldv, idx nv, const T *c, idx ldc, idx nc,
                                                    T *y, idx ldy) {
  for (idx j = 0; j < nc; ++j)
    for (idx l = 0; l < nv; ++l) {
      T s = T(0);
      for (idx r = l; r < nv; ++r) s += mul(conj_of(unit_lower(v, ldv, r, l)), c[r + j * ldc]);
      y[l + j * ldy] = s;
    }
  if (mv > nv) vhc(mv - nv, v + nv, ldv, nv, c + nv, ldc, nc, y, ldy);
}

// C -= V * Y for a unit lower trapezoidal V (mv-by-nv).
template <class T>
__attribute__((always_inline)) inline void apply_v(idx mv, const T *v, idx ldv, idx nv, const T *y, idx ldy, T *c,
                                                   idx ldc, idx nc) {
  if (mv > nv) c_minus_vy(mv - nv, v + nv, ldv, nv, y, ldy, c + nv, ldc, nc);
  for (idx j = 0; j < nc; ++j)
    for (idx r = 0; r < nv; ++r) {
      T s = T(0);
      for (idx l = 0; l <= r; ++l) s += mul(unit_lower(v, ldv, r, l), y[l + j * ldy]);
      c[r + j * ldc] -= s;
    }
}

// 2-norm of x (n entries) without harmful overflow or underflow: the plain
// sum of squares, redone scaled by the largest entry when it is not a
// normal number.
template <class R> R norm2(idx n, const R *x, idx stride) {
  R s[8] = {};
  idx i = 0;
  for (; i + 8 <= n; i += 8)
    for (idx q = 0; q < 8; ++q) s[q] += x[(i + q) * stride] * x[(i + q) * stride];
  R sum = 0;
  for (idx q = 0; q < 8; ++q) sum += s[q];
  for (; i < n; ++i) sum += x[i * stride] * x[i * stride];
  if (std::isnormal(sum) && sum < std::numeric_limits<R>::max() / 4) return std::sqrt(sum);
  R big = 0;
  for (idx q = 0; q < n; ++q) big = std::fmax(big, std::fabs(x[q * stride]));
  if (big == 0 || !std::isfinite(big)) return big == 0 ? R(0) : big;
  R t = 0;
  for (idx q = 0; q < n; ++q) {
    const R y = x[q * stride] / big;
    t += y * y;
  }
  return big * std::sqrt(t);
}

// 2-norm of the n entries of x (complex: of the 2n real parts).
template <class T> typename Prec<T>::real vector_norm(idx n, const T *x) {
  using R = typename Prec<T>::real;
  if constexpr (is_complex<T>)
    return norm2<R>(2 * n, reinterpret_cast<const R *>(x), 1);
  else
    return norm2<R>(n, x, 1);
}

// LAPACK's xLARFG: H**H * (alpha; x) = (beta; 0) with H = I - tau*v*v**H,
// v = (1; x') and beta real; alpha becomes beta, x becomes x'. n is the
// length of (alpha; x).
template <class T> void larfg(idx n, T &alpha, T *x, T &tau) {
  using R = typename Prec<T>::real;
  if (n <= 0 || (!is_complex<T> && n == 1)) {
    tau = T(0);
    return;
  }
  R xnorm = vector_norm(n - 1, x);
  R alphr = std::real(alpha), alphi = std::imag(alpha);
  if (xnorm == 0 && alphi == 0) {
    tau = T(0);
    return;
  }
  auto norm3 = [](R a, R b, R c) { return std::hypot(std::hypot(a, b), c); };
  R beta = -std::copysign(norm3(alphr, alphi, xnorm), alphr);
  const R safmin = std::numeric_limits<R>::min() / std::numeric_limits<R>::epsilon();
  int knt = 0;
  if (std::fabs(beta) < safmin) {  // xnorm and beta may be inaccurate: rescale
    const R rsafmn = 1 / safmin;
    do {
      ++knt;
      for (idx i = 0; i < n - 1; ++i) x[i] *= rsafmn;
      beta *= rsafmn;
      alphi *= rsafmn;
      alphr *= rsafmn;
    } while (std::fabs(beta) < safmin && knt < 20);
    xnorm = vector_norm(n - 1, x);
    beta = -std::copysign(norm3(alphr, alphi, xnorm), alphr);
  }
  T scale;
  if constexpr (is_complex<T>) {
    tau = T((beta - alphr) / beta, -alphi / beta);
    scale = T(1) / T(alphr - beta, alphi);
  } else {
    tau = (beta - alphr) / beta;
    scale = T(1) / (alphr - beta);
  }
  for (idx i = 0; i < n - 1; ++i) x[i] = mul(x[i], scale);
  for (int j = 0; j < knt; ++j) beta *= safmin;
  alpha = T(beta);
}

template <class T> void larft_impl(idx m, idx k, const T *v, idx ldv, const T *tau, T *t, idx ldt, T *g) {
  // G = V**H V (upper triangle): the unit triangle's rows, then the dense ones.
  for (idx i = 0; i < k; ++i)
    for (idx l = 0; l < i; ++l) {
      T s = conj_of(v[i + l * ldv]);
      for (idx r = i + 1; r < k; ++r) s += mul(conj_of(v[r + l * ldv]), v[r + i * ldv]);
      g[l + i * k] = s;
    }
  for (idx i = 0; i < k; ++i) g[i + i * k] = T(0);
  if (m > k) vhc(m - k, v + k, ldv, k, v + k, ldv, k, g, k);
  // T(0:i, i) = -tau(i) * T(0:i, 0:i) * G(0:i, i), T(i, i) = tau(i).
  for (idx i = 0; i < k; ++i) {
    T *ti = t + i * ldt;
    if (tau[i] == T(0)) {
      for (idx r = 0; r <= i; ++r) ti[r] = T(0);
      continue;
    }
    for (idx r = 0; r < i; ++r) ti[r] = mul(-tau[i], g[r + i * k]);
    for (idx r = 0; r < i; ++r) {  // upper triangular product, in place (row r needs rows >= r)
      T s = T(0);
      for (idx c = r; c < i; ++c) s += mul(t[r + c * ldt], ti[c]);
      ti[r] = s;
    }
    ti[i] = tau[i];
  }
}

template <class T> void geqr2_impl(idx m, idx n, T *a, idx lda, T *tau, T *work) {
  const idx k = m < n ? m : n;
  auto A = [&](idx i, idx j) -> T * { return a + i + j * lda; };
  T *t = work, *g = work + kIb * kIb, *y = g + kIb * kIb;
  for (idx i0 = 0; i0 < k; i0 += kIb) {
    const idx b = k - i0 < kIb ? k - i0 : kIb, mv = m - i0;
    // One reflector at a time inside the block: H(i)**H = I - conj(tau) v v**H.
    for (idx i = i0; i < i0 + b; ++i) {
      larfg(m - i, *A(i, i), A(i + 1, i), tau[i]);
      const idx nc = i0 + b - i - 1;
      if (nc == 0 || tau[i] == T(0)) continue;
      apply_vh(m - i, A(i, i), lda, 1, A(i, i + 1), lda, nc, y, 1);
      for (idx j = 0; j < nc; ++j) y[j] = mul(conj_of(tau[i]), y[j]);
      apply_v(m - i, A(i, i), lda, 1, y, 1, A(i, i + 1), lda, nc);
    }
    // The block's reflector H = I - V T V**H on the rest: C -= V T**H V**H C.
    const idx nc = n - i0 - b;
    if (nc == 0) continue;
    larft_impl(mv, b, A(i0, i0), lda, tau + i0, t, kIb, g);
    apply_vh(mv, A(i0, i0), lda, b, A(i0, i0 + b), lda, nc, y, b);
    for (idx j = 0; j < nc; ++j) {  // Y = T**H Y, rows from the bottom (row l needs rows <= l)
      T *yj = y + j * b;
      for (idx l = b - 1; l >= 0; --l) {
        T s = T(0);
        for (idx c = 0; c <= l; ++c) s += mul(conj_of(t[c + l * kIb]), yj[c]);
        yj[l] = s;
      }
    }
    apply_v(mv, A(i0, i0), lda, b, y, b, A(i0, i0 + b), lda, nc);
  }
}

}  // namespace

lint qr_panel_work(lint n) { return 2 * kIb * kIb + kIb * (n > 1 ? n : 1); }

// One clone per instruction set; the loader picks the best the CPU has.
#define HQR_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
#define HQR_PANEL_KERNELS(T, suffix)                                                                            \
  HQR_CLONES static void geqr2_##suffix(lint m, lint n, T *a, lint lda, T *tau, T *w) {                        \
    geqr2_impl<T>(m, n, a, lda, tau, w);                                                                      \
  }                                                                                                           \
  HQR_CLONES static void larft_##suffix(lint m, lint k, const T *v, lint ldv, const T *tau, T *t, lint ldt,    \
                                        T *w) {                                                               \
    larft_impl<T>(m, k, v, ldv, tau, t, ldt, w);                                                              \
  }                                                                                                           \
  template <> void geqr2<T>(lint m, lint n, T * a, lint lda, T * tau, T * w) { geqr2_##suffix(m, n, a, lda, tau, w); } \
  template <> void larft<T>(lint m, lint k, const T *v, lint ldv, const T *tau, T *t, lint ldt, T *w) {       \
    larft_##suffix(m, k, v, ldv, tau, t, ldt, w);                                                             \
  }
HQR_PANEL_KERNELS(float, s)
HQR_PANEL_KERNELS(double, d)
HQR_PANEL_KERNELS(std::complex<float>, c)
HQR_PANEL_KERNELS(std::complex<double>, z)
#undef HQR_PANEL_KERNELS
#undef HQR_CLONES

}  // namespace hqr::cpu
