// CPU kernels of the QR-updating routines (see qrupd.hpp for the overview).
//
// Conventions: column-major, 0-based indices, `idx` arithmetic so that
// ld*column never overflows the 32-bit INTEGER (BLAS and LAPACK calls take
// `lint` again: their dimensions fit). One template serves s, d, c, z.
// Reflectors are LAPACK's H = I - tau*v*v^H (tau complex for c, z), applied
// as H^H from the left and H from the right, with v(0) = 1 stored explicitly
// where the direct kernels read them (xGEQRT's blocks keep LAPACK's implicit
// one). Givens rotations (c real, s complex for c, z) act on adjacent rows
// k-1, k from the left as
//   x(k-1) <- c*x(k-1) + s*x(k),   x(k) <- c*x(k) - conj(s)*x(k-1),
// and on columns k-1, k of Q from the right as the conjugate transpose,
//   a <- c*a + conj(s)*b,   b <- c*b - s*a,
// so that Q*R is unchanged. For real types both are the same formula.
#include "cpu/qrupd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "cpu/blas.hpp"
#include "cpu/parallel.hpp"
#include "cpu/potf2.hpp"
#include "cpu/qrupd_econ_passes.hpp"
#include "cpu/trti2.hpp"

namespace hqr::cpu {
namespace {

using idx = std::ptrdiff_t;

// Rows of Q per chunk in the right-side kernels: one chunk of each column
// it touches stays in cache while a whole block of reflectors or rotation
// passes is applied to it. A fixed trip count lets the compiler vectorise.
constexpr idx kRows = 16;

// Block sizes: reflectors per compact-WY block (and passes per batch of the
// direct kernels); rotation passes per group of the blocked kernels. Larger
// groups make larger gemms (measured: 64 beats 32 by 10-15% for P >= 64).
constexpr idx kNb = 32;
constexpr idx kPasses = 64;

// ---- scalar building blocks ------------------------------------------------

template <class T> using real_of = typename Prec<T>::real;

// ||x||_2 without overflow or harmful underflow; NaN propagates. A complex
// vector is its 2n real and imaginary parts.
template <class R> R norm2_real(idx n, const R *x) {
  R amax = 0;
  bool nan = false;
  for (idx i = 0; i < n; ++i) {
    const R a = std::abs(x[i]);
    if (a > amax)
      amax = a;
    else if (a != a)
      nan = true;
  }
  if (nan) return std::numeric_limits<R>::quiet_NaN();
  if (amax == 0 || std::isinf(amax)) return amax;
  // A subnormal amax has no finite reciprocal (1/amax = Inf, and 0*Inf =
  // NaN): x is scaled by 2^digits first, exactly, which makes it normal.
  const R pre = amax < std::numeric_limits<R>::min() ? std::ldexp(R(1), std::numeric_limits<R>::digits) : R(1);
  const R inv = R(1) / (amax * pre);
  R ssq = 0;
  for (idx i = 0; i < n; ++i) {
    const R y = (x[i] * pre) * inv;
    ssq += y * y;
  }
  return amax * std::sqrt(ssq);
}
template <class T> real_of<T> norm2(idx n, const T *x) {
  if constexpr (is_complex<T>)
    return norm2_real(2 * n, reinterpret_cast<const real_of<T> *>(x));
  else
    return norm2_real(n, x);
}

// sqrt(a^2 + b^2), scaled.
template <class R> R lapy2(R a, R b) {
  const R x = std::abs(a), y = std::abs(b);
  const R w = std::max(x, y), z = std::min(x, y);
  if (z == 0 || w > std::numeric_limits<R>::max()) return w + z;  // also NaN-propagating
  const R q = z / w;
  return w * std::sqrt(R(1) + q * q);
}

// LAPACK's xLARFG: H^H*[alpha; x] = [beta; 0], beta real, with
// H = I - tau*[1; v]*[1; v]^H. x (n-1 contiguous elements) is overwritten by
// v, alpha by beta; returns tau (0: H = I).
template <class T> T larfg(idx n, T &alpha, T *x) {
  using R = real_of<T>;
  if (n <= 0) return 0;
  R xnorm = norm2(n - 1, x);
  R alphr = std::real(alpha), alphi = std::imag(alpha);
  if (xnorm == 0 && alphi == 0) return 0;
  R beta = -std::copysign(lapy2(lapy2(alphr, alphi), xnorm), alphr);
  const R safmin = std::numeric_limits<R>::min() / std::numeric_limits<R>::epsilon();
  int rescaled = 0;
  if (std::abs(beta) < safmin) {  // xnorm, beta may be inaccurate: scale up
    const R rsafmn = R(1) / safmin;
    do {
      ++rescaled;
      for (idx i = 0; i < n - 1; ++i) x[i] *= rsafmn;
      beta *= rsafmn;
      alpha *= rsafmn;
    } while (std::abs(beta) < safmin && rescaled < 20);
    xnorm = norm2(n - 1, x);
    alphr = std::real(alpha);
    alphi = std::imag(alpha);
    beta = -std::copysign(lapy2(lapy2(alphr, alphi), xnorm), alphr);
  }
  T tau;
  if constexpr (is_complex<T>)
    tau = T((beta - alphr) / beta, -alphi / beta);
  else
    tau = (beta - alphr) / beta;
  const T scal = T(1) / (alpha - beta);
  for (idx i = 0; i < n - 1; ++i) x[i] *= scal;
  for (int j = 0; j < rescaled; ++j) beta *= safmin;
  alpha = beta;
  return tau;
}

// Givens rotation: [c s; -conj(s) c]*[f; g] = [r; 0], c real >= 0 (stored
// in a T), as xLARTG: c > 0 when f != 0 (r then has f's sign or phase).
template <class T> void lartg(T f, T g, T &c, T &s, T &r) {
  using R = real_of<T>;
  if (g == T(0)) {
    c = 1;
    s = 0;
    r = f;
  } else if (f == T(0)) {
    const R ag = std::abs(g);
    c = 0;
    s = conj_of(g) / ag;
    r = ag;
  } else if constexpr (is_complex<T>) {
    const R af = std::abs(f), d = lapy2(af, R(std::abs(g)));
    const T phase = f / af;
    c = af / d;
    s = phase * (std::conj(g) / d);
    r = phase * d;
  } else {
    const T d = std::copysign(lapy2(f, g), f);
    c = f / d;
    s = g / d;
    r = d;
  }
}

// ---- vector kernels (restrict-qualified so that they vectorise) ------------

// x^H*y.
template <class T> inline T dot(idx n, const T *__restrict x, const T *__restrict y) {
  T s = 0;
  for (idx i = 0; i < n; ++i) s += conj_of(x[i]) * y[i];
  return s;
}
template <class T> inline void axpy(idx n, T a, const T *__restrict x, T *__restrict y) {
  for (idx i = 0; i < n; ++i) y[i] += a * x[i];
}
// Rotates two columns of a chunk from the right: a <- c*a + conj(s)*b,
// b <- c*b - s*a.
template <class T, idx N> inline void rot_fixed(T *__restrict a, T *__restrict b, T c, T s) {
  const T sc = conj_of(s);
  for (idx i = 0; i < N; ++i) {
    const T x = a[i], y = b[i];
    a[i] = c * x + sc * y;
    b[i] = c * y - s * x;
  }
}
template <class T> inline void rot_var(idx n, T *__restrict a, T *__restrict b, T c, T s) {
  const T sc = conj_of(s);
  for (idx i = 0; i < n; ++i) {
    const T x = a[i], y = b[i];
    a[i] = c * x + sc * y;
    b[i] = c * y - s * x;
  }
}
template <class T, idx N> inline void acc_fixed(T *__restrict w, const T *__restrict x, T v) {
  for (idx i = 0; i < N; ++i) w[i] += x[i] * v;
}
template <class T, idx N> inline void sub_fixed(T *__restrict x, const T *__restrict w, T v) {
  for (idx i = 0; i < N; ++i) x[i] -= w[i] * v;
}

// ---- reflector kernels -----------------------------------------------------

// A staircase of nr reflectors: reflector i acts on indices i .. i+len_i-1
// (rows from the left, columns from the right) with len_i = min(L, lim - i);
// v_i (v_i[0] = 1) is at v + i*ldv, tau_i at tau[i].

// C <- H_{nr-1}^H ... H_0^H * C for the ncols columns of c (c points at the
// staircase's first row). One column at a time: it stays in cache for all
// the reflectors.
template <class T>
void apply_left(idx nr, idx L, idx lim, const T *v, idx ldv, const T *tau, T *c, idx ldc, idx ncols) {
  for (idx j = 0; j < ncols; ++j) {
    T *cj = c + j * ldc;
    for (idx i = 0; i < nr; ++i) {
      if (tau[i] == T(0)) continue;
      const idx len = std::min(L, lim - i);
      const T *vi = v + i * ldv;
      T *x = cj + i;
      const T s = conj_of(tau[i]) * dot(len, vi, x);
      axpy(len, -s, vi, x);
    }
  }
}

template <class T, idx N>
void apply_right_chunk(T *q, idx ldq, idx nr, idx L, idx lim, const T *v, idx ldv, const T *tau) {
  for (idx i = 0; i < nr; ++i) {
    if (tau[i] == T(0)) continue;
    const idx len = std::min(L, lim - i);
    const T *vi = v + i * ldv;
    T w[N] = {};
    for (idx k = 0; k < len; ++k) acc_fixed<T, N>(w, q + (i + k) * ldq, vi[k]);
    for (idx r = 0; r < N; ++r) w[r] *= tau[i];
    for (idx k = 0; k < len; ++k) sub_fixed<T, N>(q + (i + k) * ldq, w, conj_of(vi[k]));
  }
}

// Q <- Q * H_0 * ... * H_{nr-1} for the mrows rows of q (q points at the
// staircase's first column), in chunks of kRows rows.
template <class T>
void apply_right(idx mrows, T *q, idx ldq, idx nr, idx L, idx lim, const T *v, idx ldv, const T *tau) {
  idx r0 = 0;
  for (; r0 + kRows <= mrows; r0 += kRows) apply_right_chunk<T, kRows>(q + r0, ldq, nr, L, lim, v, ldv, tau);
  for (; r0 < mrows; ++r0) apply_right_chunk<T, 1>(q + r0, ldq, nr, L, lim, v, ldv, tau);
}

// ---- helpers ---------------------------------------------------------------

template <class F> lint pick_nb(long lwork, F ws) {
  lint nb = kNb;
  while (nb > 1 && ws(nb) > lwork) --nb;
  return nb;
}

// Zeroes the strictly lower part of the m-by-n matrix a whose first column
// is column c0 of the whole (its column j has rows c0+j+1.. below the
// diagonal).
template <class T> void zero_lower(idx m, idx n, T *a, idx lda, idx c0 = 0) {
  for (idx j = 0; j < n && c0 + j + 1 < m; ++j) std::fill(a + j * lda + c0 + j + 1, a + j * lda + m, T(0));
}

// Column c of an updated R moved to column c+shift (rows 0..min(c, m-1);
// zeros below), for the n columns starting at c0, in an order that reads
// every column before it is overwritten.
template <class T> void shift_columns(idx m, idx c0, idx n, idx shift, T *r, idx ldr) {
  auto move = [&](idx c) {
    const T *src = r + c * ldr;
    T *dst = r + (c + shift) * ldr;
    const idx top = std::min(c, m - 1);
    std::copy(src, src + top + 1, dst);
    std::fill(dst + top + 1, dst + m, T(0));
  };
  if (shift > 0)
    for (idx c = c0 + n - 1; c >= c0; --c) move(c);
  else
    for (idx c = c0; c < c0 + n; ++c) move(c);
}

// ---- rotation passes -------------------------------------------------------

// Passes<T> (qrupd_econ_passes.hpp): a group of passes of rotations on adjacent
// indices.

// Pass t of ps from the left on one column x, restricted to k <= top.
template <class T> inline void rot_chain(T *x, const Passes<T> &ps, idx t, idx top) {
  const idx hi = std::min(ps.hi[t], top), lo = ps.lo[t];
  if (hi <= lo) return;
  T y = x[hi];
  for (idx k = hi; k > lo; --k) {
    const T c = ps.c(t, k), s = ps.s(t, k);
    const T xk1 = x[k - 1];
    x[k] = c * y - conj_of(s) * xk1;
    y = c * xk1 + s * y;
  }
  x[lo] = y;
}

// Q <- Q * G^H (all passes) for the mrows rows of q, directly: each chunk of
// kRows rows sees every pass while it is in cache.
template <class T> void rot_right(idx mrows, T *q, idx ldq, const Passes<T> &ps) {
  idx r0 = 0;
  for (; r0 + kRows <= mrows; r0 += kRows)
    for (idx t = 0; t < ps.nt; ++t)
      for (idx k = ps.hi[t]; k > ps.lo[t]; --k) {
        T *a = q + r0 + (k - 1) * ldq;
        rot_fixed<T, kRows>(a, a + ldq, ps.c(t, k), ps.s(t, k));
      }
  if (r0 < mrows)
    for (idx t = 0; t < ps.nt; ++t)
      for (idx k = ps.hi[t]; k > ps.lo[t]; --k) {
        T *a = q + r0 + (k - 1) * ldq;
        rot_var(mrows - r0, a, a + ldq, ps.c(t, k), ps.s(t, k));
      }
}

// The blocked form. Each of the nt passes is cut into windows of nt
// consecutive k, pass t's windows shifted by t so that a rotation's
// predecessors ((t, k+1) in its own pass, (t-1, k-1) in the one before) lie
// in the same or an earlier window: window b holds, of pass t, the k in
// (b0 + t, b1 + t] with b1 = top - b*nt, b0 = b1 - nt. Window by window,
// from the largest k down, u = I (w-by-w, w <= 2*nt) is multiplied by the
// window's rotations and f(c0, w, u) applies the product to indices
// c0..c0+w-1: Q*u from the right, u^T*R from the left, one gemm each
// instead of a sweep per pass. A window length L costs (L+nt)^2/(3*L*nt)
// times the rotations' flops, least (4/3) at L = nt. u has lower bandwidth
// nt, exactly: u^T*R fills R by nt rows and leaves exact zeros below.
template <class T, class F> void for_each_window(const Passes<T> &ps, T *u, F &&f) {
  const idx L = ps.nt;
  idx top = ps.hi[0], bottom = ps.lo[0], lo_min = ps.lo[0], hi_max = ps.hi[0];
  for (idx t = 1; t < ps.nt; ++t) {
    top = std::max(top, ps.hi[t] - t);
    bottom = std::min(bottom, ps.lo[t] - t);
    lo_min = std::min(lo_min, ps.lo[t]);
    hi_max = std::max(hi_max, ps.hi[t]);
  }
  for (idx b1 = top; b1 > bottom; b1 -= L) {
    const idx b0 = std::max(b1 - L, bottom);
    const idx c0 = std::max(b0, lo_min), w = std::min(b1 + ps.nt - 1, hi_max) - c0 + 1;
    if (w < 2) continue;  // no rotation here
    std::fill(u, u + w * w, T(0));
    for (idx i = 0; i < w; ++i) u[i + i * w] = 1;
    for (idx t = 0; t < ps.nt; ++t)
      for (idx k = std::min(ps.hi[t], b1 + t); k > std::max(ps.lo[t], b0 + t); --k)
        rot_var(w, u + (k - 1 - c0) * w, u + (k - c0) * w, ps.c(t, k), ps.s(t, k));
    f(c0, w, static_cast<const T *>(u));
  }
}

// q(0:rows, 0:w) <- q * u, through tmp (chunk-by-w), chunk rows at a time.
template <class T> void mult_right(idx rows, T *q, idx ldq, idx w, const T *u, T *tmp, idx chunk) {
  for (idx r0 = 0; r0 < rows; r0 += chunk) {
    const idx h = std::min(chunk, rows - r0);
    blas::gemm<T>('N', 'N', lint(h), lint(w), lint(w), T(1), q + r0, lint(ldq), u, lint(w), T(0), tmp, lint(h));
    for (idx c = 0; c < w; ++c) std::copy(tmp + c * h, tmp + (c + 1) * h, q + r0 + c * ldq);
  }
}
template <class T> void mult_right(idx rows, T *q, idx ldq, idx w, const T *u, T *tmp) {
  mult_right(rows, q, ldq, w, u, tmp, std::max<idx>(rows, 1));
}
// r(0:w, 0:cols) <- u^H * r, through tmp (w-by-cols).
template <class T> void mult_left_t(idx cols, T *r, idx ldr, idx w, const T *u, T *tmp) {
  if (cols <= 0) return;
  blas::gemm<T>('C', 'N', lint(w), lint(cols), lint(w), T(1), u, lint(w), r, lint(ldr), T(0), tmp, lint(w));
  for (idx c = 0; c < cols; ++c) std::copy(tmp + c * w, tmp + (c + 1) * w, r + c * ldr);
}

// ---- Householder QR of a block -----------------------------------------------

// The QR factorization of the m-by-n a by xGEQRT: R on and above the
// diagonal, V below, T of block i (kNb reflectors) at t + i*kNb*kNb.
// work: householder_lwork(m, n, rows) for the calls below with `rows`.
template <class T> void householder_qr(idx m, idx n, T *a, idx lda, T *t, T *work) {
  const idx k = std::min(m, n);
  if (k > 0) blas::geqrt<T>(lint(m), lint(n), lint(std::min(kNb, k)), a, lint(lda), t, lint(kNb), work);
}
long householder_lwork(lint m, lint n, lint rows) {
  return long(kNb) * std::max<lint>(1, std::min(m, n)) + long(kNb) * std::max<lint>({1, m, n, rows});
}

// c <- c*H(1)*...*H(k) for the rows-by-m c, H from householder_qr(m, n, a):
// one xLARFB per block. (Not xORMQR: it runs xORM2R, a pass over c per
// reflector, whenever k <= its block size.)
template <class T> void apply_q_right(idx m, idx n, const T *a, idx lda, const T *t, idx rows, T *c, idx ldc, T *work) {
  const idx k = std::min(m, n);
  for (idx i0 = 0; i0 < k && rows > 0; i0 += kNb)
    blas::larfb<T>('R', 'N', lint(rows), lint(m - i0), lint(std::min(kNb, k - i0)), a + i0 + i0 * lda, lint(lda),
                   t + i0 * kNb, lint(kNb), c + i0 * ldc, lint(ldc), work, lint(rows));
}

// The m-by-m q = H(1)*...*H(k)*I, H from householder_qr(m, n, a): the blocks
// applied last to first, each to the part of q it changes (as xORGQR does,
// but level-3 throughout; xORGQR runs xORG2R on its last 128+ reflectors).
template <class T> void generate_q(idx m, idx n, const T *a, idx lda, const T *t, T *q, idx ldq, T *work) {
  const idx k = std::min(m, n);
  for (idx c = 0; c < m; ++c) {
    std::fill(q + c * ldq, q + c * ldq + m, T(0));
    q[c + c * ldq] = 1;
  }
  for (idx i0 = (k - 1) / kNb * kNb; k > 0 && i0 >= 0; i0 -= kNb)
    blas::larfb<T>('L', 'N', lint(m - i0), lint(m - i0), lint(std::min(kNb, k - i0)), a + i0 + i0 * lda, lint(lda),
                   t + i0 * kNb, lint(kNb), q + i0 + i0 * ldq, lint(ldq), work, lint(m - i0));
}

}  // namespace

// ---- workspace -------------------------------------------------------------

namespace {
// tau and the reflectors V (ldv-by-nb, ldv = min(nb+P, M)); blocked, T
// (nb-by-nb) and xLARFB's workspace (M-by-nb) besides.
long delcols_direct_lwork(lint m, lint p, lint nb) {
  return nb + std::max<long>(1, std::min<long>(long(nb) + p, m)) * nb;
}
// qrows: the rows of Q that xLARFB takes at once.
long delcols_blocked_lwork(lint m, lint p, lint nb, lint qrows) {
  return delcols_direct_lwork(m, p, nb) + long(nb) * nb + long(nb) * std::max<lint>(1, qrows);
}
// Reflectors per block: kNb, or fewer when there are fewer.
lint delcols_nb(lint m, lint n, lint p, lint j0) {
  return std::max<lint>(1, std::min<lint>(kNb, std::min(n - p, m - 1) - j0));
}
long addcols_direct_lwork(lint m, lint n, lint p, lint nb) {
  return 2L * p + 2L * nb * std::max<long>(1, std::min(m, n));
}
// nb spare (once tau; ABI.md documents this size), T (nb-by-nb), the
// trailing update's (nb-by-N), with Q the product's (nb-by-(M+P)).
long addrows_wy_lwork(bool wantq, lint m, lint n, lint p, lint nb) {
  return long(nb) * (1L + nb + std::max<long>(1, n) + (wantq ? long(m) + p : 0L));
}
long delrows_direct_lwork(lint m, lint nb) { return 2L * nb * std::max<long>(1, m); }

// The blocked passes' rotations (2*kPasses*S), the window product u
// (w-by-w) and gemm's output (rows-by-w or w-by-cols), w <= 2*kPasses.
long passes_lwork(lint s, lint rows, lint cols) {
  const long w = 2 * kPasses;
  return 2L * kPasses * std::max<lint>(1, s) + w * w + w * std::max<long>({1, rows, cols});
}
}  // namespace

// P + 2 >= delcols_direct_lwork(m, p, 1): the documented minimum.
long qrupd_delcols_lwmin(lint m, lint n, lint p) { return long(p) + 2; }
long qrupd_delcols_lwopt(bool wantq, lint m, lint n, lint p, lint j0) {
  const lint nb = delcols_nb(m, n, p, j0);
  return wantq ? delcols_blocked_lwork(m, p, nb, m) : delcols_direct_lwork(m, p, nb);
}

long qrupd_addcols_lwmin(lint m, lint n, lint p) { return addcols_direct_lwork(m, n, p, 1); }
long qrupd_addcols_lwopt(lint m, lint n, lint p) {
  const long householder = m - n >= 2 ? householder_lwork(m - n, p, m) : 0;
  return 2L * p + std::max(householder, passes_lwork(std::min(m, n), m, n + p));
}

long qrupd_addrows_lwmin(bool wantq, lint m, lint n, lint p) { return addrows_wy_lwork(wantq, m, n, p, 1); }
long qrupd_addrows_lwopt(bool wantq, lint m, lint n, lint p) {
  const lint nb = std::max<lint>(1, std::min<lint>(kNb, std::min(m, n)));
  const long wide = n > m ? householder_lwork(p, n - m, wantq ? m + p : 0) : 0;
  return std::max(addrows_wy_lwork(wantq, m, n, p, nb), wide);
}

long qrupd_delrows_lwmin(lint m, lint n, lint p) { return delrows_direct_lwork(m, 1); }
long qrupd_delrows_lwopt(lint m, lint n, lint p) { return passes_lwork(m, m, n); }

// The forming product's input (min(mold,nold)-by-kFormNb), then the QR's.
constexpr idx kFormNb = 64;
long qrupd_refactor_lwork(lint mnew, lint nnew, lint mold, lint nold) {
  return std::max(long(std::max<lint>(1, std::min(mold, nold))) * kFormNb, householder_lwork(mnew, nnew, mnew));
}

// The economy form. Blocked (from *_lwopt on), Q's rows go through one or
// two passes with every thread (qrupd_econ_passes.hpp), thread 0's block of rows
// in WORK; directly, the kernels above, one reflector or pass at a time.
namespace {
// Gram-Schmidt and the two thin QRs of the inserted block: W2 (N-by-P),
// Ry1 (P-by-P), xGEQRT's T and its (or xLARFB's) workspace (kNb-by-P each).
long addcols_econ_cgs_lwork(lint n, lint p) {
  return std::max<long>(1, long(n) * p) + long(p) * p + 2L * kNb * p;
}
}  // namespace
long qrupd_addcols_econ_lwmin(lint m, lint n, lint p) {
  return std::max(addcols_econ_cgs_lwork(n, p), 2L * std::max<lint>(1, n));
}
// The block Gram-Schmidt's, then the blocked path's (AddcolsEconWork).
long qrupd_addcols_econ_lwopt(lint m, lint n, lint p) {
  const long np = long(n) + p;
  return addcols_econ_cgs_lwork(n, p) + 7L * p * p + np * p + 2L * p * std::max<lint>(1, n) +
         row_scratch_size(np, np * p);
}
// All the reflectors (tau and v, P+1 each), thread 0's block of Q's rows.
long qrupd_delcols_econ_lwopt(bool wantq, lint m, lint n, lint p, lint j0) {
  const long direct = delcols_direct_lwork(n, p, delcols_nb(n, n, p, j0));
  if (!wantq) return direct;
  const long count = std::max<lint>(0, n - p - j0);
  return std::max(direct, count * (p + 2) + row_scratch_size(n - j0, 0));
}
// N spare (once the reflectors' tau; ABI.md documents this size), the
// blocks' T (nb-by-N), the trailing update's (nb-by-N); with Q, the
// (N+P)-by-N product of the reflectors.
long qrupd_addrows_econ_lwork(bool wantq, lint m, lint n, lint p) {
  const long n1 = std::max<lint>(1, n), nb = std::max<lint>(1, std::min<lint>(kNb, n));
  return n1 + 2 * nb * n1 + (wantq ? n1 * n1 + long(p) * n1 : 0L);
}

// ---- delete columns --------------------------------------------------------

namespace {
// Deletes columns j0..j0+p-1 of the mr-by-n R (Q has qrows rows; blocked:
// xLARFB on chunk rows of Q at a time, work delcols_blocked_lwork(mr, p, nb,
// chunk); else directly, nb reflectors at a time).
template <class T>
void delcols_kernel(bool wantq, idx mr, idx qrows, idx n, idx p, idx j0, T *q, idx ldq, T *r, idx ldr, T *work,
                    bool blocked, idx nb, idx chunk) {
  const idx m = mr, nn = n - p;
  // Close the gap: column c takes column c+p, whose rows below min(c+p, m-1)
  // are zero; R now has p subdiagonals from column j0 on.
  shift_columns(m, j0 + p, nn - j0, -p, r, ldr);
  const idx cend = std::min(nn, m - 1);  // columns with entries to annihilate
  if (j0 >= cend) return;
  // nb reflectors of length <= L at a time, v_i in V(i:, i) (V ldv-by-nb,
  // zeros below each v_i), applied to R's trailing columns column by column
  // (each stays in cache for all of them), and to Q directly or, blocked, as
  // H = I - V*T*V^H by xLARFB.
  const idx L = p + 1;
  const idx ldv = std::min(nb + p, m);
  T *tau = work, *v = tau + nb;
  T *t = blocked ? v + ldv * nb : nullptr, *w = blocked ? t + nb * nb : nullptr;
  for (idx c0 = j0; c0 < cend; c0 += nb) {
    const idx nr = std::min(nb, cend - c0);
    std::fill(v, v + ldv * nr, T(0));
    for (idx i = 0; i < nr; ++i) {
      const idx c = c0 + i, len = std::min(L, m - c);
      T *rc = r + c + c * ldr, *vi = v + i + i * ldv;
      tau[i] = larfg(len, rc[0], rc + 1);
      vi[0] = 1;
      std::copy(rc + 1, rc + len, vi + 1);
      std::fill(rc + 1, rc + len, T(0));
      apply_left(idx(1), L, len, vi, idx(0), tau + i, rc + ldr, ldr, c0 + nr - c - 1);
    }
    apply_left(nr, L, m - c0, v, ldv + 1, tau, r + c0 + (c0 + nr) * ldr, ldr, nn - c0 - nr);
    if (!wantq) continue;
    if (blocked) {
      const idx h = std::min(nr + p, m - c0);  // rows the block's reflectors touch
      blas::larft<T>(lint(h), lint(nr), v, lint(ldv), tau, t, lint(nb));
      for (idx r0 = 0; r0 < qrows; r0 += chunk) {
        const idx rows = std::min(chunk, qrows - r0);
        blas::larfb<T>('R', 'N', lint(rows), lint(h), lint(nr), v, lint(ldv), t, lint(nb), q + r0 + c0 * ldq,
                       lint(ldq), w, lint(rows));
      }
    } else {
      apply_right(qrows, q + c0 * ldq, ldq, nr, L, m - c0, v, ldv + 1, tau);
    }
  }
}
}  // namespace

template <class T>
void qrupd_delcols(bool wantq, lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *work,
                   long lwork) {
  const bool blocked = wantq && lwork >= qrupd_delcols_lwopt(true, m_, n_, p_, j0_);
  const idx nb = blocked ? delcols_nb(m_, n_, p_, j0_) : pick_nb(lwork, [&](lint b) { return delcols_direct_lwork(m_, p_, b); });
  delcols_kernel(wantq, m_, m_, n_, p_, j0_, q, ldq_, r, ldr_, work, blocked, nb, std::max<idx>(1, m_));
}

// ---- add columns -----------------------------------------------------------

namespace {
// The Givens passes of adding columns, one per inserted column, bottom-up:
// the inserted block (columns j0..j0+p-1 of the mr-by-(n+p) R) is full down
// to row min(n+p, mr)-1 and upper triangular from row n on; the passes
// reduce it, each adding at most one row of fill to the trailing (old)
// columns, which had p rows of room, and multiply Q's columns (qrows rows)
// from the right. nb passes at a time: generated on the inserted block,
// then applied to the trailing columns and to Q, blocked (windows through
// gemm, Q chunk rows at a time; work passes_lwork(min(mr, n), chunk, n+p))
// or directly (work 2*nb*max(1, min(mr, n))). R's strictly lower part is
// zero in columns j0.. on exit.
template <class T>
void addcols_passes(idx mr, idx qrows, idx n, idx p, idx j0, T *q, idx ldq, T *r, idx ldr, T *work, bool blocked,
                    idx nb, idx chunk) {
  const idx m = mr;
  const idx S = std::max<idx>(1, std::min(m, n));
  T *cs = work, *sn = cs + nb * S;
  T *uw = blocked ? sn + nb * S : nullptr, *tmp = blocked ? uw + 4 * nb * nb : nullptr;
  idx hi[kPasses], lo[kPasses];
  for (idx i0 = 0; i0 < p; i0 += nb) {
    const idx nt = std::min(nb, p - i0);
    const Passes<T> ps{nt, lo, hi, cs, sn, S};
    for (idx t = 0; t < nt; ++t) {
      const idx col = j0 + i0 + t, bot = std::min(n + i0 + t, m - 1);
      // A column at or past row m (M < N+P) has nothing below its diagonal:
      // an empty pass at row m-1, so that no window reaches past Q's m
      // columns (valgrind caught the gemm reading, and the copy writing,
      // past Q when this pass ended at row `col`).
      lo[t] = std::min(col, m - 1);
      hi[t] = std::max(bot, lo[t]);
      T *rc = r + col * ldr, *ct = cs + t * S, *st = sn + t * S;
      for (idx k = bot; k > col; --k) {
        T rr;
        lartg(rc[k - 1], rc[k], ct[k - col - 1], st[k - col - 1], rr);
        rc[k - 1] = rr;
        rc[k] = 0;
      }
      for (idx c2 = col + 1; c2 < j0 + p; ++c2) rot_chain(r + c2 * ldr, ps, t, hi[t]);
    }
    // Old column j0+p+t2 has nonzeros in rows 0..j0+t2+i0 before these passes.
    if (blocked) {
      for_each_window(ps, uw, [&](idx c0, idx w, const T *uwin) {
        mult_right(qrows, q + c0 * ldq, ldq, w, uwin, tmp, chunk);
        const idx first = std::max(j0 + p, c0 + p - i0);
        mult_left_t(n + p - first, r + c0 + first * ldr, ldr, w, uwin, tmp);
      });
    } else {
      for (idx t2 = 0; t2 < n - j0; ++t2)
        for (idx t = 0; t < nt; ++t) rot_chain(r + (j0 + p + t2) * ldr, ps, t, j0 + t2 + i0 + t + 1);
      rot_right(qrows, q, ldq, ps);
    }
  }
  zero_lower(m, n + p - j0, r + j0 * ldr, ldr, j0);
}
}  // namespace

template <class T>
void qrupd_addcols(lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *u, lint ldu_, T *work,
                   long lwork) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_;
  const bool blocked = lwork >= qrupd_addcols_lwopt(m_, n_, p_);
  shift_columns(m, j0, n - j0, p, r, ldr);  // open the gap
  // The inserted block: Q^H*U.
  blas::gemm<T>('C', 'N', m_, p_, m_, T(1), q, ldq_, u, ldu_, T(0), r + j0 * ldr, ldr_);

  // Rows n..m-1 are zero outside the block: a Householder QR of that part,
  // applied to Q's columns n..m-1.
  const idx mb = m - n;
  T *tau = work, *beta = work + p, *rest = work + 2 * p;
  if (mb >= 2 && blocked) {
    T *blk = r + n + j0 * ldr, *t = rest, *w = t + kNb * std::min(mb, p);
    householder_qr(mb, p, blk, ldr, t, w);
    apply_q_right(mb, p, blk, ldr, t, m, q + n * ldq, ldq, w);
    zero_lower(mb, p, blk, ldr);
  } else if (mb >= 2) {
    const idx na = std::min(p, mb);
    for (idx i = 0; i < na; ++i) {
      T *d = r + (n + i) + (j0 + i) * ldr;
      const idx len = mb - i;
      tau[i] = larfg(len, d[0], d + 1);
      beta[i] = d[0];
      d[0] = 1;  // v(0), until Q is updated
      apply_left(idx(1), len, len, d, idx(0), tau + i, d + ldr, ldr, p - i - 1);
    }
    apply_right(m, q + n * ldq, ldq, na, mb, mb, r + n + j0 * ldr, ldr + 1, tau);
    for (idx i = 0; i < na; ++i) {
      T *d = r + (n + i) + (j0 + i) * ldr;
      d[0] = beta[i];
      std::fill(d + 1, d + (mb - i), T(0));
    }
  }

  const idx nb = blocked ? kPasses : pick_nb(lwork, [&](lint b) { return addcols_direct_lwork(m_, n_, p_, b); });
  addcols_passes(m, m, n, p, j0, q, ldq, r, ldr, rest, blocked, nb, std::max<idx>(1, m));
}

// ---- add rows --------------------------------------------------------------

namespace {
// The QR factorization of [A; B] as xTPQRT2 (L = 0) leaves it (A n-by-n
// upper triangular, B m-by-n, T n-by-n), recursively: the halves' products
// are level-3 calls, each below the size at which OpenBLAS wakes its
// threads (m*n*k <= 2^18 for m = 1000 rows and 16 columns), where
// xTPQRT2's xGEMV and xGER each woke them, 64 times per block of 32.
// H1*H2 = I - [V1 V2]*[T1 T12; 0 T2]*[V1 V2]^H with T12 = -T1*(B1^H*B2)*T2
// (V's top rows are the identity's: V1's and V2's do not meet). ADDROWS_ECON
// (N = 200, P = 1000) took 0.8-1.0 ms less than with xTPQRT2 on the 2-core
// host, M = 20,000: 10.6-10.7 ms against 11.4-11.6
// (bench/results/history/addrows-tpqrt-rec-Xeon-2core-2026-12-07.txt).
constexpr idx kTpqrtLeaf = 8;

// [A; B] <- op(H)*[A; B] for H = I - V*T*V^H, V = [I; V2] (V2 m-by-k at v,
// T k-by-k upper triangular; A k-by-nc, B m-by-nc), op 'C' (H^H) or 'N',
// through W = op(T)*(A + V2^H*B) in w (k-by-nc, ld ldw).
template <class T>
void apply_tp_left(char op, idx m, idx k, idx nc, const T *v, idx ldv, const T *t, idx ldt, T *a, idx lda, T *b,
                   idx ldb, T *w, idx ldw) {
  for (idx c = 0; c < nc; ++c) std::copy(a + c * lda, a + c * lda + k, w + c * ldw);
  blas::gemm<T>('C', 'N', lint(k), lint(nc), lint(m), T(1), v, lint(ldv), b, lint(ldb), T(1), w, lint(ldw));
  blas::trmm<T>('L', 'U', op, 'N', lint(k), lint(nc), T(1), t, lint(ldt), w, lint(ldw));
  for (idx c = 0; c < nc; ++c)
    for (idx i = 0; i < k; ++i) a[i + c * lda] -= w[i + c * ldw];
  blas::gemm<T>('N', 'N', lint(m), lint(nc), lint(k), T(-1), v, lint(ldv), w, lint(ldw), T(1), b, lint(ldb));
}

template <class T> void tpqrt_rec(idx m, idx n, T *a, idx lda, T *b, idx ldb, T *t, idx ldt) {
  if (n <= kTpqrtLeaf) return blas::tpqrt2<T>(lint(m), lint(n), a, lint(lda), b, lint(ldb), t, lint(ldt));
  const idx n1 = n / 2, n2 = n - n1;
  T *a12 = a + n1 * lda, *b2 = b + n1 * ldb, *w = t + n1 * ldt, *t2 = t + n1 + n1 * ldt;
  tpqrt_rec(m, n1, a, lda, b, ldb, t, ldt);
  apply_tp_left('C', m, n1, n2, b, ldb, t, ldt, a12, lda, b2, ldb, w, ldt);  // W in T12's place
  tpqrt_rec(m, n2, a + n1 + n1 * lda, lda, b2, ldb, t2, ldt);
  blas::gemm<T>('C', 'N', lint(n1), lint(n2), lint(m), T(1), b, lint(ldb), b2, lint(ldb), T(0), w, lint(ldt));
  blas::trmm<T>('L', 'U', 'N', 'N', lint(n1), lint(n2), T(-1), t, lint(ldt), w, lint(ldt));
  blas::trmm<T>('R', 'U', 'N', 'N', lint(n1), lint(n2), T(1), t2, lint(ldt), w, lint(ldt));
}

// Reflectors k0..k0+nr-1 of [R; U] (p >= 1 new rows, n columns; reflector
// k touches R's row k and U, whose column k becomes its v): generated with
// their compact-WY T (upper triangular, ldt >= nr) by tpqrt_rec, then
// [R(k0:k0+nr-1, k0+nr:); U(:, k0+nr:)] <- H^H * [...] for
// H = I - V*T*V^H, V = [I; U(:, k0:k0+nr-1)], through wr (ldt-by-n;
// apply_tp_left).
// The next BLAS, not plain loops, whose dot products were serial sums: for
// 1000 rows added to N = 200 this step took 6.3 ms on a 2-core host (2.8
// with xTPQRT2), and ADDROWS_ECON's work outside the product with Q
// 12.6-14.5 ms on the 16-core GPU host (6.5-7.0 with xTPQRT2;
// bench/results/history/addrows-small-qr-NVIDIA-H100-80GB-HBM3-2026-12-07.txt).
template <class T> void addrows_block(idx n, idx p, idx k0, idx nr, T *r, idx ldr, T *u, idx ldu, T *t, idx ldt, T *wr) {
  T *vu = u + k0 * ldu;
  tpqrt_rec<T>(p, nr, r + k0 + k0 * ldr, ldr, vu, ldu, t, ldt);
  const idx nc = n - k0 - nr;
  if (nc > 0)
    apply_tp_left('C', p, nr, nc, vu, ldu, t, ldt, r + k0 + (k0 + nr) * ldr, ldr, u + (k0 + nr) * ldu, ldu, wr, ldt);
}
}  // namespace

template <class T>
void qrupd_addrows(bool wantq, lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *u,
                   lint ldu_, T *work, long lwork) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_, ldu = ldu_, mp = m + p;
  const bool blocked = lwork >= qrupd_addrows_lwopt(wantq, m_, n_, p_);
  zero_lower(m, n, r, ldr);
  if (wantq) {
    // [Q 0; 0 I] with its rows permuted so that the new rows sit at j0.
    for (idx c = 0; c < m; ++c) {
      T *qc = q + c * ldq;
      std::copy_backward(qc + j0, qc + m, qc + mp);
      std::fill(qc + j0, qc + j0 + p, T(0));
    }
    for (idx i = 0; i < p; ++i) {
      T *qc = q + (m + i) * ldq;
      std::fill(qc, qc + mp, T(0));
      qc[j0 + i] = 1;
    }
  }
  // Columns 0..min(m,n)-1 of [R; U]: reflector k touches R's row k and U.
  // Blocked in compact WY form: H = I - V*T*V^T, V = [I; U(:, k0:k0+nr-1)].
  const idx k1 = std::min(m, n);
  const idx nb = pick_nb(lwork, [&](lint b) { return addrows_wy_lwork(wantq, m_, n_, p_, b); });
  T *t = work + nb, *wr = t + nb * nb, *wq = wr + nb * std::max<idx>(1, n);  // work's first nb: spare
  for (idx k0 = 0; k0 < k1; k0 += nb) {
    const idx nr = std::min(nb, k1 - k0);
    T *vu = u + k0 * ldu;
    addrows_block(n, p, k0, nr, r, ldr, u, ldu, t, nb, wr);
    if (wantq) {  // Q(:, [k0:k0+nr-1, m:m+p-1]) <- Q(:, ...) * H
      T *qk = q + k0 * ldq, *qm = q + m * ldq;
      for (idx c = 0; c < nr; ++c) std::copy(qk + c * ldq, qk + c * ldq + mp, wq + c * mp);
      blas::gemm<T>('N', 'N', lint(mp), lint(nr), p_, T(1), qm, ldq_, vu, ldu_, T(1), wq, lint(mp));
      blas::trmm<T>('R', 'U', 'N', 'N', lint(mp), lint(nr), T(1), t, lint(nb), wq, lint(mp));
      for (idx c = 0; c < nr; ++c)
        for (idx i = 0; i < mp; ++i) qk[i + c * ldq] -= wq[i + c * mp];
      blas::gemm<T>('N', 'C', lint(mp), p_, lint(nr), T(-1), wq, lint(mp), vu, ldu_, T(1), qm, ldq_);
    }
  }
  // m < n: U(:, m:n-1) is what is left; its QR gives rows m..m+p-1 of R.
  if (n > m && blocked) {
    T *blk = u + m * ldu, *t = work, *w = t + kNb * std::min(p, n - m);
    householder_qr(p, n - m, blk, ldu, t, w);
    if (wantq) apply_q_right(p, n - m, blk, ldu, t, mp, q + m * ldq, ldq, w);
  } else {
    for (idx i = 0; i < std::min(p, n - m); ++i) {
      const idx c = m + i, len = p - i;
      T *d = u + i + c * ldu;
      T tau_i = larfg(len, d[0], d + 1);
      if (tau_i == T(0)) continue;
      const T b = d[0];
      d[0] = 1;
      apply_left(idx(1), len, len, d, idx(0), &tau_i, d + ldu, ldu, n - c - 1);
      if (wantq) apply_right(mp, q + c * ldq, ldq, idx(1), len, len, d, idx(0), &tau_i);
      d[0] = b;
    }
  }
  for (idx c = 0; c < n; ++c)
    for (idx i = 0; i < p; ++i) r[(m + i) + c * ldr] = c >= m + i ? u[i + c * ldu] : T(0);
}

// ---- delete rows -----------------------------------------------------------

template <class T>
void qrupd_delrows(lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *work, long lwork) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_;
  const idx mn = m - p;
  if (mn == 0) return;  // nothing is left
  zero_lower(m, n, r, ldr);
  // Pass i rotates Q's columns (k-1, k), k = m-1 .. i+1, so that row j0+i
  // becomes +-e_i; from the left on R it adds one subdiagonal. After p passes
  // Q is [+-I 0; 0 Q~] (deleted rows first) and R(p:m-1, :) is upper
  // trapezoidal. The deleted rows see each pass at once; the other rows of
  // Q and the columns of R see nb passes at a time, blocked or directly.
  const bool blocked = lwork >= qrupd_delrows_lwopt(m_, n_, p_);
  const idx S = std::max<idx>(1, m);
  const idx nb = blocked ? kPasses : pick_nb(lwork, [&](lint b) { return delrows_direct_lwork(m_, b); });
  T *cs = work, *sn = work + nb * S;
  T *uw = blocked ? sn + nb * S : nullptr, *tmp = blocked ? uw + 4 * nb * nb : nullptr;
  idx hi[kPasses], lo[kPasses];
  for (idx i0 = 0; i0 < p; i0 += nb) {
    const idx nt = std::min(nb, p - i0);
    for (idx t = 0; t < nt; ++t) {
      const idx i = i0 + t, qi = j0 + i, rest = p - 1 - i;  // deleted rows still to reduce
      hi[t] = m - 1;
      lo[t] = i;
      T *ct = cs + t * S, *st = sn + t * S;
      for (idx k = m - 1; k > i; --k) {
        T *a = q + qi + (k - 1) * ldq, *b = a + ldq;
        T c, s, rr;
        // From the right: c*a + conj(s)*b = rr, c*b - s*a = 0.
        lartg(conj_of(*a), conj_of(*b), c, s, rr);
        *a = conj_of(rr);
        *b = 0;
        ct[k - i - 1] = c;
        st[k - i - 1] = s;
        rot_var(rest, a + 1, b + 1, c, s);
      }
    }
    const Passes<T> ps{nt, lo, hi, cs, sn, S};
    // Before these passes R has i0 subdiagonals: R(c0:, c) = 0 for c < c0-i0.
    if (blocked) {
      for_each_window(ps, uw, [&](idx c0, idx w, const T *uwin) {
        mult_right(j0, q + c0 * ldq, ldq, w, uwin, tmp);
        mult_right(m - j0 - p, q + j0 + p + c0 * ldq, ldq, w, uwin, tmp);
        const idx first = std::max<idx>(0, c0 - i0);
        mult_left_t(n - first, r + c0 + first * ldr, ldr, w, uwin, tmp);
      });
    } else {
      rot_right(j0, q, ldq, ps);
      rot_right(m - j0 - p, q + j0 + p, ldq, ps);
      for (idx c = 0; c < n; ++c)
        for (idx t = 0; t < nt; ++t) rot_chain(r + c * ldr, ps, t, c + 1 + i0 + t);
    }
  }
  // Compact: Q~ = Q(kept rows, p:m-1), R~ = R(p:m-1, :).
  for (idx c = 0; c < mn; ++c) {
    T *dst = q + c * ldq;
    const T *src = q + (c + p) * ldq;
    std::copy(src, src + j0, dst);
    std::copy(src + j0 + p, src + m, dst + j0);
  }
  for (idx c = 0; c < n; ++c) {
    T *rc = r + c * ldr;
    for (idx i = 0; i < mn; ++i) rc[i] = i <= c ? rc[i + p] : T(0);
  }
}

// ---- the economy form ------------------------------------------------------

namespace {
// The thin QR of the m-by-k a (m >= k >= 1) by xGEQRT: R in a's upper
// triangle, the m-by-k Q with orthonormal columns in qo. t: kNb-by-k;
// work: kNb*k.
template <class T> void thin_qr(idx m, idx k, T *a, idx lda, T *t, T *qo, idx ldqo, T *work) {
  householder_qr(m, k, a, lda, t, work);
  for (idx c = 0; c < k; ++c) {
    std::fill(qo + c * ldqo, qo + c * ldqo + m, T(0));
    qo[c + c * ldqo] = 1;
  }
  for (idx i0 = (k - 1) / kNb * kNb; i0 >= 0; i0 -= kNb)
    blas::larfb<T>('L', 'N', lint(m - i0), lint(k - i0), lint(std::min(kNb, k - i0)), a + i0 + i0 * lda, lint(lda),
                   t + i0 * kNb, lint(kNb), qo + i0 + i0 * ldqo, lint(ldqo), work, lint(k - i0));
}

template <class T> real_of<T> abs2(T x) {
  if constexpr (is_complex<T>)
    return std::norm(x);
  else
    return x * x;
}

// Classical Gram-Schmidt of v (m) against the m-by-nb b with orthonormal
// columns, repeated while a pass cancels more than half of v (Kahan's
// criterion, "twice is enough"; at most three passes): v <- v - b*c, the
// coefficients added to c (nb; none where c is null), d holds nb elements.
// Returns ||v|| on exit, or 0 where v is in b's range to working precision
// (exactly zero, still cancelling after three passes, or left with less
// than eps of its norm on entry: rounding, whose direction means nothing);
// NaN propagates. Without that floor a column in Q's range whose residual
// stalled near the underflow threshold (complex single) was normalised
// into a unit vector inside Q's range: test_qrupd_econ's degenerate_c with
// HQR_TEST_SEED=3181005594 and OPENBLAS_CORETYPE=SkylakeX, CPU and GPU
// paths alike.
template <class T> real_of<T> cgs_reorth(idx m, idx nb, const T *b, idx ldb, T *v, T *c, T *d) {
  using R = real_of<T>;
  R prev = norm2(m, v);
  const R floor = std::numeric_limits<R>::epsilon() * prev;
  for (int pass = 0; pass < 3 && prev != 0; ++pass) {
    if (prev != prev) return prev;
    blas::gemm<T>('C', 'N', lint(nb), 1, lint(m), T(1), b, lint(ldb), v, lint(m), T(0), d, lint(nb));
    blas::gemm<T>('N', 'N', lint(m), 1, lint(nb), T(-1), b, lint(ldb), d, lint(nb), T(1), v, lint(m));
    if (c)
      for (idx i = 0; i < nb; ++i) c[i] += d[i];
    const R now = norm2(m, v);
    if (now != now) return now;
    if (now <= floor) return 0;
    if (now >= R(0.5) * prev) return now;
    prev = now;
  }
  return 0;
}

// The row of the m-by-nb b (orthonormal columns) with the least 2-norm:
// e_i is the unit vector least in b's range (||b^H*e_i||^2 <= nb/m < 1).
template <class T> idx least_row(idx m, idx nb, const T *b, idx ldb) {
  using R = real_of<T>;
  constexpr idx kc = 64;
  R acc[kc];
  idx best = 0;
  R bestv = std::numeric_limits<R>::infinity();
  for (idx i0 = 0; i0 < m; i0 += kc) {
    const idx nr = std::min(kc, m - i0);
    std::fill(acc, acc + nr, R(0));
    for (idx c = 0; c < nb; ++c)
      for (idx i = 0; i < nr; ++i) acc[i] += abs2(b[i0 + i + c * ldb]);
    for (idx i = 0; i < nr; ++i)
      if (acc[i] < bestv) bestv = acc[i], best = i0 + i;
  }
  return best;
}

// addcols_econ's fallback where block Gram-Schmidt still cancels after its
// passes (a new column exactly in Q's range, zero, or dependent on the other
// new columns): the inserted block ub (m-by-p, u's storage) orthogonalised
// column by column (CGS with reorthogonalisation) against Q and the new
// columns before it, c = n+k coefficients of column k into the block blk of
// R (rows 0..n+p-1). A column in their range gets R's diagonal entry 0 and,
// as Q's new column, the unit vector e_i least in their range (least_row),
// orthogonalised the same way: Q stays orthonormal, Q*R = A. d: n+p-1.
template <class T> void addcols_econ_columnwise(idx m, idx n, idx p, T *q, idx ldq, T *blk, idx ldr, const T *ub,
                                                idx ldu, T *d) {
  using R = real_of<T>;
  for (idx k = 0; k < p; ++k) {
    T *v = q + (n + k) * ldq, *c = blk + k * ldr;
    std::copy(ub + k * ldu, ub + k * ldu + m, v);
    std::fill(c, c + n + p, T(0));
    R nv = cgs_reorth(m, n + k, q, ldq, v, c, d);
    if (nv == 0) {
      std::fill(v, v + m, T(0));
      v[least_row(m, n + k, q, ldq)] = T(1);
      nv = cgs_reorth(m, n + k, q, ldq, v, static_cast<T *>(nullptr), d);
      if (nv > 0)
        for (idx i = 0; i < m; ++i) v[i] /= nv;
      continue;  // c[n+k] = 0
    }
    for (idx i = 0; i < m; ++i) v[i] /= nv;
    c[n + k] = nv;
  }
}

// Block classical Gram-Schmidt run twice ("twice is enough"; BCGS2,
// Barlow & Smoktunowicz 2013) for addcols_econ: W1 = Q^H*U, Y = U - Q*W1 =
// Qy*Ry1, W2 = Q^H*Qy, Z = Qy - Q*W2 = Qn*Ry2 (Householder QRs), so that
// [Q U] = [Q Qn] * [I, W1 + W2*Ry1; 0, Ry2*Ry1], Qn orthogonal to Q to
// working precision when U is nearly in Q's range. Where the second pass
// still cancels (a diagonal entry of Ry2 below 1/2, as Kahan's criterion:
// U's columns in Q's range up to rounding, or dependent among themselves,
// and M - N small), Qn is projected again, at most twice more; where it
// still cancels then (a column exactly in Q's range or dependent on the
// others), the block is orthogonalised column by column instead
// (addcols_econ_columnwise: such a column gets R's diagonal entry 0 and a
// unit vector orthogonal to Q and the other new columns). Qn goes to Q's
// columns n..n+p-1, the inserted block of R (rows 0..n+p-1) to blk; u is
// destroyed. work: addcols_econ_cgs_lwork.
template <class T>
void addcols_econ_bcgs2(idx m, idx n, idx p, T *q, idx ldq, T *blk, idx ldr, T *u, idx ldu, T *work) {
  const lint m_ = lint(m), ldq_ = lint(ldq), ldr_ = lint(ldr), ldu_ = lint(ldu);
  T *qn = q + n * ldq;
  T *w2 = work, *ry1 = w2 + std::max<idx>(1, n * p), *t = ry1 + p * p, *gw = t + kNb * p;
  if (n > 0) {
    blas::gemm<T>('C', 'N', lint(n), lint(p), m_, T(1), q, ldq_, u, ldu_, T(0), blk, ldr_);
    blas::gemm<T>('N', 'N', m_, lint(p), lint(n), T(-1), q, ldq_, blk, ldr_, T(1), u, ldu_);
  }
  thin_qr(m, p, u, ldu, t, qn, ldq, gw);
  T *racc = ry1;  // the product of the passes' triangles, P-by-P
  for (idx c = 0; c < p; ++c)
    for (idx i = 0; i < p; ++i) racc[i + c * p] = i <= c ? u[i + c * ldu] : T(0);
  bool cancelled = n > 0;
  for (int pass = 2; cancelled && pass <= 4; ++pass) {
    blas::gemm<T>('C', 'N', lint(n), lint(p), m_, T(1), q, ldq_, qn, ldq_, T(0), w2, lint(n));
    blas::gemm<T>('N', 'N', m_, lint(p), lint(n), T(-1), q, ldq_, w2, lint(n), T(1), qn, ldq_);
    blas::trmm<T>('R', 'U', 'N', 'N', lint(n), lint(p), T(1), racc, lint(p), w2, lint(n));
    for (idx c = 0; c < p; ++c)
      for (idx i = 0; i < n; ++i) blk[i + c * ldr] += w2[i + c * n];
    for (idx c = 0; c < p; ++c) std::copy(qn + c * ldq, qn + c * ldq + m, u + c * ldu);
    thin_qr(m, p, u, ldu, t, qn, ldq, gw);
    blas::trmm<T>('L', 'U', 'N', 'N', lint(p), lint(p), T(1), u, ldu_, racc, lint(p));
    cancelled = false;
    for (idx i = 0; i < p; ++i) cancelled = cancelled || !(std::abs(u[i + i * ldu]) >= real_of<T>(0.5));
  }
  if (cancelled) {
    // Still cancelling after four passes: a new column exactly in Q's range
    // (its residual zero, which no number of passes turns into a direction
    // orthogonal to Q) or dependent on the others. The inserted block
    // U = Q*W + Qn*Racc formed again in u and orthogonalised column by
    // column, a dependent column getting R's diagonal entry 0 and a unit
    // vector orthogonal to Q and the other new columns as Q's new column.
    for (idx c = 0; c < p; ++c) std::copy(qn + c * ldq, qn + c * ldq + m, u + c * ldu);
    blas::trmm<T>('R', 'U', 'N', 'N', m_, lint(p), T(1), racc, lint(p), u, ldu_);
    blas::gemm<T>('N', 'N', m_, lint(p), lint(n), T(1), q, ldq_, blk, ldr_, T(1), u, ldu_);
    addcols_econ_columnwise(m, n, p, q, ldq, blk, ldr, u, ldu, w2);
  } else {
    T *r22 = blk + n;
    for (idx c = 0; c < p; ++c)
      for (idx i = 0; i < p; ++i) r22[i + c * ldr] = i <= c ? racc[i + c * p] : T(0);
  }
}

// Where addcols_econ's blocked path keeps its small matrices (P-by-P, ld
// P, unless said), after the block Gram-Schmidt's part of WORK:
// qrupd_addcols_econ_lwopt.
template <class T> struct AddcolsEconWork {
  T *r1, *r1inv, *r2, *f, *rc, *spare;  // spare: 2*p*p, potf2's work, then Rc^-1 after it
  T *wg;                                // [W; G2], (n+p)-by-p, ld n+p
  T *cs, *sn;                           // the rotations, p*max(1,n) each
  T *block;                             // thread 0's scratch
  AddcolsEconWork(idx n, idx p, T *w) {
    const idx pp = p * p, s = std::max<idx>(1, n);
    r1 = w, r1inv = r1 + pp, r2 = r1inv + pp, f = r2 + pp, rc = f + pp, spare = rc + pp;
    wg = spare + 2 * pp;
    cs = wg + (n + p) * p, sn = cs + p * s, block = sn + p * s;
  }
};

// sqrt(||a||_1 * ||a||_inf) >= ||a||_2 for the p-by-p upper triangle of a
// with column c scaled by cs[c] and row i by rs[i] (null: 1).
template <class T>
real_of<T> tri_norm2_bound(idx p, const T *a, idx lda, const real_of<T> *cs, const real_of<T> *rs) {
  using R = real_of<T>;
  R n1 = 0, ninf = 0;
  for (idx c = 0; c < p; ++c) {
    R col = 0;
    for (idx i = 0; i <= c; ++i) col += std::abs(a[i + c * lda]) * (cs ? cs[c] : R(1)) * (rs ? rs[i] : R(1));
    n1 = std::max(n1, col);
  }
  for (idx i = 0; i < p; ++i) {
    R row = 0;
    for (idx c = i; c < p; ++c) row += std::abs(a[i + c * lda]) * (cs ? cs[c] : R(1)) * (rs ? rs[i] : R(1));
    ninf = std::max(ninf, row);
  }
  return std::sqrt(n1 * ninf);  // NaN stays NaN
}

// The Cholesky factor of the p-by-p Hermitian a (upper triangle) in place,
// zeros below, and its inverse in ainv; false where a is not (numerically)
// positive definite or holds NaN or Inf. work: p*p.
template <class T> bool cholesky_and_inverse(idx p, T *a, T *ainv, T *work) {
  if (potf2<T>(true, lint(p), a, lint(p), work) != 0) return false;
  for (idx c = 0; c < p; ++c) {
    if (!std::isfinite(std::real(a[c + c * p]))) return false;
    for (idx i = c + 1; i < p; ++i) a[i + c * p] = 0;
  }
  std::copy(a, a + p * p, ainv);
  trti2<T>(true, false, lint(p), ainv, lint(p), work);
  return true;
}

// addcols_econ's blocked orthogonalisation, where the data allow it, in
// passes over U and one over Q: CholeskyQR2 of U (U = U1*R1, U1 = Uq*R2,
// Uq orthonormal), and the projection against Q from Wq = Q^H*Uq alone:
// Y = Uq - Q*Wq has Y^H*Y = I - Wq^H*Wq = Rc^H*Rc, so
//   [Q U] = [Q Qn] * [I, W*R1; 0, Rc*R2*R1],  W = Q^H*U1,
//   Qn = (U1 - Q*W)*F,  F = (Rc*R2)^-1.
// R's inserted block is set, and Qn is left to the rotation pass
// (econ_rotate forms it block by block from U, R1^-1, W and F; U1 = U*R1^-1
// exactly as the pass over Q formed it, the one whose Gram matrix gave R2:
// formed as U*(R1^-1*F) instead, Q lost orthogonality at eps*kappa(U)). Taken where U is well conditioned (its
// columns scaled: kappa below 1/(16*sqrt(eps)), then U1^H*U1 within 1/2
// of I, the range where CholeskyQR2 gives orthonormal columns) and no
// vector of U's span keeps less than 1/sqrt(2) of its norm outside Q's
// range (||Rc^-1|| <= sqrt(2), Kahan's criterion for the block: Qn
// orthogonal to Q to working precision with one projection; its errors
// grow with ||Rc^-1||^2); otherwise false, with U as it came, for the block
// Gram-Schmidt. U is only read (U1 lives in the passes' scratch). In
// parts, so that a device can make the passes (AddcolsEconHost):
//
// CholeskyQR2's first step: w.r1 holds G1 = U^H*U on entry; on true, R1
// (its Cholesky factor) and R1^-1 in w.r1inv, U well conditioned enough
// with its columns scaled (kappa below 1/(16*sqrt(eps))).
template <class T> bool cholqr2_r1(idx p, const AddcolsEconWork<T> &w) {
  using R = real_of<T>;
  const R eps = std::numeric_limits<R>::epsilon();
  if (!cholesky_and_inverse(p, w.r1, w.r1inv, w.spare)) return false;
  std::vector<R> scale;  // U's column norms, then their inverses
  try {
    scale.resize(2 * std::size_t(p));
  } catch (...) {
    return false;
  }
  R *norms = scale.data(), *inv = norms + p;
  for (idx c = 0; c < p; ++c) {
    norms[c] = norm2(c + 1, w.r1 + c * p);
    if (!(norms[c] > 0)) return false;
    inv[c] = R(1) / norms[c];
  }
  const R kappa = tri_norm2_bound<T>(p, w.r1, p, inv, nullptr) * tri_norm2_bound<T>(p, w.r1inv, p, nullptr, norms);
  return kappa <= R(1) / (16 * std::sqrt(eps));
}

// CholeskyQR2's second step and the projection: w.wg holds [W; G2] =
// [Q U1]^H*U1 (U1 = U*R1^-1) on entry; on true, R's inserted block (rows
// 0..n+p-1 of blk) and F in w.f.
template <class T> bool cholqr2_block(idx n, idx p, T *blk, idx ldr, const AddcolsEconWork<T> &w) {
  using R = real_of<T>;
  const idx np = n + p;
  // G2 within 1/2 of I (Gershgorin), then R2.
  const T *g2 = w.wg + n;
  for (idx i = 0; i < p; ++i) {
    R off = 0;
    for (idx c = 0; c < p; ++c) off += std::abs(g2[i + c * np] - (i == c ? T(1) : T(0)));
    if (!(off <= R(0.5))) return false;
  }
  for (idx c = 0; c < p; ++c) std::copy(g2 + c * np, g2 + c * np + p, w.r2 + c * p);
  if (!cholesky_and_inverse(p, w.r2, w.f, w.spare)) return false;

  // Wq = W*R2^-1 (in R's rows 0..n-1 of the block for now), K = I -
  // Wq^H*Wq, Rc its Cholesky factor, ||Rc^-1|| <= sqrt(2).
  for (idx c = 0; c < p; ++c) std::copy(w.wg + c * np, w.wg + c * np + n, blk + c * ldr);
  std::fill(w.rc, w.rc + p * p, T(0));
  for (idx c = 0; c < p; ++c) w.rc[c + c * p] = 1;
  if (n > 0) {
    blas::trmm<T>('R', 'U', 'N', 'N', lint(n), lint(p), T(1), w.f, lint(p), blk, lint(ldr));
    blas::gemm<T>('C', 'N', lint(p), lint(p), lint(n), T(-1), blk, lint(ldr), blk, lint(ldr), T(1), w.rc, lint(p));
  }
  T *rcinv = w.spare + p * p;
  if (!cholesky_and_inverse(p, w.rc, rcinv, w.spare)) return false;
  if (!(tri_norm2_bound<T>(p, rcinv, p, nullptr, nullptr) <= std::sqrt(R(2)))) return false;

  // F = R2^-1*Rc^-1 (in w.f); R's block: W*R1 on top, Rc*R2*R1 below.
  blas::trmm<T>('R', 'U', 'N', 'N', lint(p), lint(p), T(1), rcinv, lint(p), w.f, lint(p));
  blas::trmm<T>('R', 'U', 'N', 'N', lint(p), lint(p), T(1), w.r1, lint(p), w.r2, lint(p));
  blas::trmm<T>('L', 'U', 'N', 'N', lint(p), lint(p), T(1), w.rc, lint(p), w.r2, lint(p));
  for (idx c = 0; c < p; ++c) {
    std::copy(w.wg + c * np, w.wg + c * np + n, blk + c * ldr);
    for (idx i = 0; i < p; ++i) blk[n + i + c * ldr] = i <= c ? w.r2[i + c * p] : T(0);
  }
  if (n > 0) blas::trmm<T>('R', 'U', 'N', 'N', lint(n), lint(p), T(1), w.r1, lint(p), blk, lint(ldr));
  return true;
}

// The passes over U and Q of CholeskyQR2 (econ_gram), its steps between
// them on the small matrices.
template <class T>
bool addcols_econ_cholqr2(idx m, idx n, idx p, const T *q, idx ldq, T *blk, idx ldr, const T *u, idx ldu,
                          const AddcolsEconWork<T> &w, const RowScratch<T> &scratch) {
  econ_gram<T>(m, 0, p, nullptr, 1, u, ldu, nullptr, w.r1, scratch);
  if (!cholqr2_r1(p, w)) return false;
  econ_gram<T>(m, n, p, q, ldq, u, ldu, w.r1inv, w.wg, scratch);
  return cholqr2_block(n, p, blk, ldr, w);
}

// addcols_econ's Givens passes on R (the n+p-by-n+p, its inserted block
// full down to row n+p-1 and upper triangular from row n): pass t reduces
// column j0+t bottom-up, rotating (k-1, k) for k = n+t down to j0+t+1,
// and is applied to the columns after it. All p passes' rotations are kept
// (cs, sn: p*max(1,n) each) for Q; lo, hi: p each. The inserted block's
// columns one pass at a time (each pass comes from the one before), then
// the old columns, which only receive them, on `threads` threads
// (econ_rotate_r; `own`: row_scratch_size(n+p, 0) elements).
template <class T>
void addcols_econ_givens(idx n, idx p, idx j0, T *r, idx ldr, T *cs, T *sn, idx *lo, idx *hi, int threads, T *own) {
  const idx S = std::max<idx>(1, n);
  const Passes<T> ps{p, lo, hi, cs, sn, S};
  for (idx t = 0; t < p; ++t) {
    const idx col = j0 + t;
    lo[t] = col, hi[t] = n + t;
    T *rc = r + col * ldr, *ct = cs + t * S, *st = sn + t * S;
    for (idx k = hi[t]; k > col; --k) {
      T rr;
      lartg(rc[k - 1], rc[k], ct[k - col - 1], st[k - col - 1], rr);
      rc[k - 1] = rr;
      rc[k] = 0;
    }
    for (idx c2 = col + 1; c2 < j0 + p; ++c2) rot_chain(r + c2 * ldr, ps, t, hi[t]);
  }
  // Old column j0+p+t2 has nonzeros in rows 0..j0+t2 before the passes.
  econ_rotate_r<T>(n, p, j0, r, ldr, ps, threads, own);
  zero_lower(n + p, n + p - j0, r + j0 * ldr, ldr, j0);
}

// Work per thread of the passes over Q (in elements of Q touched): below
// it, fewer threads.
constexpr double kPassGrain = 1 << 16;
}  // namespace

template <class T>
void qrupd_addcols_econ(lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *u, lint ldu_,
                        T *work, long lwork, int threads) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_, ldu = ldu_, np = n + p;
  shift_columns(np, j0, n - j0, p, r, ldr);  // open the gap; R has n+p rows now
  T *blk = r + j0 * ldr;                       // the inserted block
  std::unique_ptr<idx[]> bounds;
  if (lwork >= qrupd_addcols_econ_lwopt(m_, n_, p_)) bounds.reset(new (std::nothrow) idx[2 * std::size_t(p)]);
  if (!bounds) {
    // Directly: block Gram-Schmidt, then the Givens passes of the full
    // form on R's n+p rows and Q's n+p columns, as many as LWORK holds at
    // once.
    addcols_econ_bcgs2(m, n, p, q, ldq, blk, ldr, u, ldu, work);
    const idx S = std::max<idx>(1, n);
    const idx nb = std::max<idx>(1, std::min<idx>(kPasses, lwork / (2 * S)));
    addcols_passes(np, m, n, p, j0, q, ldq, r, ldr, work, false, nb, 1);
    zero_lower(np, j0, r, ldr);
    return;
  }
  // Blocked: the orthogonalisation in one pass over Q where CholeskyQR2
  // and Kahan's criterion allow (else block Gram-Schmidt), all p Givens
  // passes generated on R, then one pass over Q's rows that forms Q's new
  // columns (when not yet formed) and applies them to columns j0..n+p-1.
  const AddcolsEconWork<T> w(n, p, work + addcols_econ_cgs_lwork(n_, p_));
  const RowScratch<T> scratch(pass_threads(threads, double(m) * double(np), kPassGrain), np, np * p, w.block);
  const bool formed_later = addcols_econ_cholqr2(m, n, p, q, ldq, blk, ldr, u, ldu, w, scratch);
  if (!formed_later) addcols_econ_bcgs2(m, n, p, q, ldq, blk, ldr, u, ldu, work);
  idx *lo = bounds.get(), *hi = lo + p;
  addcols_econ_givens(n, p, j0, r, ldr, w.cs, w.sn, lo, hi, threads, w.block);
  zero_lower(np, j0, r, ldr);
  const Passes<T> ps{p, lo, hi, w.cs, w.sn, std::max<idx>(1, n)};
  econ_rotate<T>(m, n, p, j0, q, ldq, formed_later ? u : nullptr, ldu, w.r1inv, w.wg, np, w.f, ps, scratch);
}

// ---- the economy addcols' host steps for a device (qrupd.hpp) ----------------

namespace {
// The room's parts (elements, each a multiple of 64): WORK as the CPU
// path's blocked call takes it, the new R ((n+p)^2), M ((n+p-j0)^2).
std::size_t round64(std::size_t e) { return (e + 63) / 64 * 64; }
std::size_t econ_work_elems(lint n, lint p) { return round64(std::size_t(qrupd_addcols_econ_lwopt(n + p, n, p))); }
std::size_t econ_r_elems(lint n, lint p) { return round64(std::size_t(n + p) * std::size_t(n + p)); }
}  // namespace

template <class T> std::size_t AddcolsEconHost<T>::room_elems(lint n, lint p, lint j0) {
  return econ_work_elems(n, p) + econ_r_elems(n, p) + std::size_t(n + p - j0) * std::size_t(n + p - j0);
}

// Nothing in the room needs initialising (each part is written before it
// is read, as the CPU path's WORK and R are): 300 MB of fresh pages cost
// the H200 host 0.1-0.2 s at N = 4096.
template <class T>
AddcolsEconHost<T>::AddcolsEconHost(lint n, lint p, lint j0, int threads, T *room)
    : n_(n), p_(p), j0_(j0), threads_(threads), bounds_(2 * std::size_t(p)) {
  if (!room) {
    own_.reset(new T[room_elems(n, p, j0)]);
    room = own_.get();
  }
  work_ = room;
  r_ = work_ + econ_work_elems(n, p);
  rot_ = r_ + econ_r_elems(n, p);
}

namespace {
template <class T> AddcolsEconWork<T> econ_work(lint n, lint p, T *work) {
  return AddcolsEconWork<T>(n, p, work + addcols_econ_cgs_lwork(n, p));
}
}  // namespace

template <class T> T *AddcolsEconHost<T>::gram1() { return econ_work(n_, p_, work_).r1; }
template <class T> const T *AddcolsEconHost<T>::r1inv() { return econ_work(n_, p_, work_).r1inv; }
template <class T> T *AddcolsEconHost<T>::gram2() { return econ_work(n_, p_, work_).wg; }
template <class T> const T *AddcolsEconHost<T>::f() { return econ_work(n_, p_, work_).f; }
template <class T> bool AddcolsEconHost<T>::factor_gram1() { return cholqr2_r1(idx(p_), econ_work(n_, p_, work_)); }

namespace {
// fn(c) for c in [0, ncols), columns of `rows` elements, on up to
// `threads` threads.
template <class F> void for_columns(idx ncols, idx rows, int threads, F &&fn) {
  const int t = pass_threads(threads, double(ncols) * double(rows), kPassGrain);
  parallel_ranges(ncols, t, 1, [&](int, idx c0, idx c1) {
    for (idx c = c0; c < c1; ++c) fn(c);
  });
}
}  // namespace

// R's first n columns into new_r's storage with the gap for the inserted
// block open, as the CPU path's shift_columns leaves them (old column c at
// c, or c+p from j0 on, zeros below its diagonal), once; the inserted
// block's columns are left to its writers (all n+p rows).
template <class T> void AddcolsEconHost<T>::open_gap(const T *r, lint ldr) {
  if (gap_open_) return;
  const idx n = n_, p = p_, j0 = j0_, np = n + p;
  for_columns(np, np, threads_, [&](idx d) {
    if (d >= j0 && d < j0 + p) return;
    const idx c = d < j0 ? d : d - p;  // the old column
    T *dst = r_ + d * np;
    std::copy(r + c * ldr, r + c * ldr + c + 1, dst);
    std::fill(dst + c + 1, dst + np, T(0));
  });
  gap_open_ = true;
}

template <class T> void AddcolsEconHost<T>::copy_r(T *r, lint ldr) const {
  const idx np = n_ + p_;
  for_columns(np, np, threads_, [&](idx c) { std::copy(r_ + c * np, r_ + (c + 1) * np, r + c * ldr); });
}

template <class T> bool AddcolsEconHost<T>::finish(const T *r, lint ldr) {
  open_gap(r, ldr);
  if (!cholqr2_block(n_, p_, r_ + j0_ * (n_ + p_), n_ + p_, econ_work(n_, p_, work_))) return false;
  passes();
  return true;
}

template <class T>
void AddcolsEconHost<T>::orthogonalize(lint m, T *q, lint ldq, T *u, lint ldu, const T *r, lint ldr) {
  open_gap(r, ldr);
  addcols_econ_bcgs2(idx(m), n_, p_, q, ldq, r_ + j0_ * (n_ + p_), n_ + p_, u, ldu, work_);
  formed_ = true;
  passes();
}

template <class T>
void AddcolsEconHost<T>::take_block(const T *w1, T *w2, const T *ry1, const T *ry2, const T *r, lint ldr) {
  const idx n = n_, p = p_, np = n + p;
  open_gap(r, ldr);
  T *blk = r_ + j0_ * np;  // W1 + W2*Ry1 on top, Ry2*Ry1 below
  // On hqr's threads: the device's phases follow (blas::trmm_own_threads).
  if (n > 0) blas::trmm_own_threads<T>(threads_, 'R', 'U', 'N', 'N', lint(n), lint(p), T(1), ry1, lint(p), w2, lint(n));
  for (idx c = 0; c < p; ++c) {
    for (idx i = 0; i < n; ++i) blk[i + c * np] = w1[i + c * n] + w2[i + c * n];
    for (idx i = 0; i < p; ++i) blk[n + i + c * np] = i <= c ? ry1[i + c * p] : T(0);
  }
  blas::trmm_own_threads<T>(threads_, 'L', 'U', 'N', 'N', lint(p), lint(p), T(1), ry2, lint(p), blk + n, lint(np));
  formed_ = true;
  passes();
}

// The Givens passes on the new R (its inserted block set) and their
// product M (rotation()), unless a device factors the staircase.
template <class T> void AddcolsEconHost<T>::passes() {
  if (staircase_) return;
  const idx n = n_, p = p_, j0 = j0_, np = n + p;
  const AddcolsEconWork<T> w = econ_work(n_, p_, work_);
  T *rn = r_;
  idx *lo = bounds_.data(), *hi = lo + p;
  addcols_econ_givens(n, p, j0, rn, np, w.cs, w.sn, lo, hi, threads_, w.block);
  zero_lower(np, j0, rn, np);
  const Passes<T> ps{p, lo, hi, w.cs, w.sn, std::max<idx>(1, n)};
  econ_rotation_product<T>(n, p, j0, rot_, ps, threads_, w.block);
}

template <class T> void AddcolsEconHost<T>::staircase_factored() {
  const idx np = n_ + p_;
  for_columns(np - j0_, np, threads_, [&](idx c) {
    T *col = r_ + (j0_ + c) * np;
    std::fill(col + j0_ + c + 1, col + np, T(0));
  });
}

template <class T> void AddcolsEconHost<T>::finish_rows(lint rows, T *q, lint ldq, const T *u, lint ldu) {
  if (rows <= 0) return;
  const idx n = n_, p = p_, np = n + p;
  const AddcolsEconWork<T> w = econ_work(n_, p_, work_);
  if (staircase_) {
    // Q(rows, j0:n+p-1) = [Q Qn](rows, j0:n+p-1)*M, kBlockRows rows at a
    // time copied to thread 0's scratch (row_scratch_size(n+p, 0)
    // elements, ld kBlockLd), Qn = (U*R1^-1 - Q*W)*F formed there where U
    // is still in u.
    const idx j0 = j0_, k = np - j0, cut = n - j0, ld = kBlockLd;
    T *x = w.block;
    for (idx r0 = 0; r0 < rows; r0 += kBlockRows) {
      const idx mr = std::min<idx>(kBlockRows, rows - r0);
      T *qr = q + r0;
      for (idx c = 0; c < cut; ++c) std::copy(qr + (j0 + c) * ldq, qr + (j0 + c) * ldq + mr, x + c * ld);
      T *xn = x + cut * ld;
      if (formed_) {
        for (idx c = 0; c < p; ++c) std::copy(qr + (n + c) * ldq, qr + (n + c) * ldq + mr, xn + c * ld);
      } else {
        for (idx c = 0; c < p; ++c) std::copy(u + r0 + c * ldu, u + r0 + c * ldu + mr, xn + c * ld);
        blas::trmm<T>('R', 'U', 'N', 'N', lint(mr), lint(p), T(1), w.r1inv, lint(p), xn, lint(ld));
        if (n > 0)
          blas::gemm<T>('N', 'N', lint(mr), lint(p), lint(n), T(-1), qr, ldq, w.wg, lint(np), T(1), xn, lint(ld));
        blas::trmm<T>('R', 'U', 'N', 'N', lint(mr), lint(p), T(1), w.f, lint(p), xn, lint(ld));
      }
      blas::gemm<T>('N', 'N', lint(mr), lint(k), lint(k), T(1), x, lint(ld), rot_, lint(k), T(0), qr + j0 * ldq,
                    ldq);
    }
    return;
  }
  const idx *lo = bounds_.data(), *hi = lo + p;
  const Passes<T> ps{p, lo, hi, w.cs, w.sn, std::max<idx>(1, n)};
  const RowScratch<T> scratch(pass_threads(threads_, double(rows) * double(np), kPassGrain), np, np * p, w.block);
  econ_rotate<T>(rows, n, p, j0_, q, ldq, formed_ ? nullptr : u, ldu, w.r1inv, w.wg, np, w.f, ps, scratch);
}

template <class T>
void qrupd_delcols_econ(bool wantq, lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *work,
                        long lwork, int threads) {
  if (!wantq || lwork < qrupd_delcols_econ_lwopt(true, m_, n_, p_, j0_)) {
    const idx nb = pick_nb(lwork, [&](lint b) { return delcols_direct_lwork(n_, p_, b); });
    delcols_kernel(wantq, n_, m_, n_, p_, j0_, q, ldq_, r, ldr_, work, false, nb, 1);
    return;
  }
  // Blocked: all the reflectors from R first (each on R's columns after
  // it at once; R is small), then one pass over Q's rows that applies them
  // to columns j0..n-1 and writes back columns j0..n-p-1.
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_, nn = n - p, L = p + 1;
  shift_columns(n, j0 + p, nn - j0, -p, r, ldr);  // close the gap: p subdiagonals from column j0 on
  if (j0 >= nn) return;
  const idx count = nn - j0;
  T *tau = work, *v = tau + count, *block = v + count * L;
  for (idx i = 0; i < count; ++i) {
    const idx c = j0 + i, len = std::min(L, n - c);
    T *rc = r + c + c * ldr, *vi = v + i * L;
    tau[i] = larfg(len, rc[0], rc + 1);
    vi[0] = 1;
    std::copy(rc + 1, rc + len, vi + 1);
    std::fill(rc + 1, rc + len, T(0));
    apply_left(idx(1), L, len, vi, idx(0), tau + i, rc + ldr, ldr, nn - c - 1);
  }
  const RowScratch<T> scratch(pass_threads(threads, double(m) * double(n - j0), kPassGrain), n - j0, 0, block);
  econ_reflect<T>(m, n - j0, count, q + j0 * ldq, ldq, Staircase<T>{count, L, n - j0, v, L, tau}, scratch);
}

template <class T>
void qrupd_addrows_econ(bool wantq, lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *u,
                        lint ldu_, T *work, int threads) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_, ldu = ldu_;
  const idx nb = std::max<idx>(1, std::min(kNb, n));
  T *tall = work + n, *wr = tall + nb * n;  // work's first n: spare (the documented LWORK keeps them)
  zero_lower(n, n, r, ldr);
  // The QR of [R; U] (N+P)-by-N, reflector k on R's row k and U's P rows,
  // in blocks of nb; U keeps the reflectors, tall their T's.
  for (idx k0 = 0; k0 < n; k0 += nb)
    addrows_block(n, p, k0, std::min(nb, n - k0), r, ldr, u, ldu, tall + k0 * nb, nb, wr);
  if (!wantq) return;
  // The new Q is P*[Q 0; 0 I]*H(1)...H(N)*[I; 0] (P moves the new rows to
  // J): with G = H(1)...H(N)*[I; 0] = [Gt; Gb], Gt N-by-N upper triangular
  // and Gb P-by-N, it is Q*Gt with the rows Gb inserted at J. G is formed
  // from the blocks, last to first, each on columns k0.. only (the others
  // are still e_j there).
  T *gt = wr + nb * n, *gb = gt + n * n;
  for (idx c = 0; c < n; ++c) {
    std::fill(gt + c * n, gt + (c + 1) * n, T(0));
    gt[c + c * n] = 1;
    std::fill(gb + c * p, gb + (c + 1) * p, T(0));
  }
  for (idx k0 = (n - 1) / nb * nb; k0 >= 0; k0 -= nb) {
    const idx nr = std::min(nb, n - k0), nc = n - k0;
    apply_tp_left('N', p, nr, nc, u + k0 * ldu, ldu, tall + k0 * nb, nb, gt + k0 + k0 * n, n, gb + k0 * p, p, wr, nb);
  }
  if (m > 0) blas::trmm<T>('R', 'U', 'N', 'N', m_, n_, T(1), gt, n_, q, ldq_);
  // Rows j0.. down by p and Gb into the gap, a range of columns per thread.
  const int threads_used = pass_threads(threads, double(m - j0) * double(n), kPassGrain);
  parallel_ranges(n, threads_used, 1, [&](int, idx c0, idx c1) {
    for (idx c = c0; c < c1; ++c) {
      T *qc = q + c * ldq;
      std::copy_backward(qc + j0, qc + m, qc + m + p);
      for (idx i = 0; i < p; ++i) qc[j0 + i] = gb[i + c * p];
    }
  });
}

// ---- refactoring -------------------------------------------------------------

namespace {

// Rows of Q*R and where they go: Q's rows from..from+count-1 give rows
// to..to+count-1.
struct RowMap {
  idx from, count, to;
};

// Columns c0..c1-1 of R (their upper trapezoid; column c0 at rc) replaced
// by the rows of Q*R that maps select, kFormNb columns at a time through
// tmp (min(m,c1)-by-kFormNb): A = Q*R formed in R's own storage.
template <class T, std::size_t N>
void form_qr(idx m, idx c0, idx c1, const T *q, idx ldq, T *rc, idx ldr, const RowMap (&maps)[N], T *tmp) {
  for (idx b = c0; b < c1; b += kFormNb) {
    const idx nc = std::min(kFormNb, c1 - b), kk = std::min(b + nc, m);
    T *rb = rc + (b - c0) * ldr;
    for (idx j = 0; j < nc; ++j)
      for (idx i = 0; i < kk; ++i) tmp[i + j * kk] = i <= b + j ? rb[i + j * ldr] : T(0);
    for (const RowMap &mp : maps)
      if (mp.count > 0)
        blas::gemm<T>('N', 'N', lint(mp.count), lint(nc), lint(kk), T(1), q + mp.from, lint(ldq), tmp, lint(kk),
                      T(0), rb + mp.to, lint(ldr));
  }
}

// The factors of the m-by-n matrix a from scratch: R in place, the m-by-m
// Q generated. work: qrupd_refactor_lwork.
template <class T> void refactor(idx m, idx n, T *a, idx lda, T *q, idx ldq, T *work) {
  if (m == 0) return;
  T *t = work, *w = t + kNb * std::max<idx>(1, std::min(m, n));
  householder_qr(m, n, a, lda, t, w);
  generate_q(m, n, a, lda, t, q, ldq, w);
  zero_lower(m, n, a, lda);
}

}  // namespace

template <class T>
void qrupd_addcols_refactor(lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, const T *u,
                            lint ldu_, T *work) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_, ldu = ldu_;
  T *tmp = work;
  shift_columns(m, j0, n - j0, p, r, ldr);
  form_qr(m, 0, j0, q, ldq, r, ldr, {RowMap{0, m, 0}}, tmp);
  form_qr(m, j0, n, q, ldq, r + (j0 + p) * ldr, ldr, {RowMap{0, m, 0}}, tmp);
  for (idx c = 0; c < p; ++c) std::copy(u + c * ldu, u + c * ldu + m, r + (j0 + c) * ldr);
  refactor(m, n + p, r, ldr, q, ldq, work);
}

template <class T>
void qrupd_addrows_refactor(lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, const T *u,
                            lint ldu_, T *work) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_, ldu = ldu_;
  T *tmp = work;
  form_qr(m, 0, n, q, ldq, r, ldr, {RowMap{0, j0, 0}, RowMap{j0, m - j0, j0 + p}}, tmp);
  for (idx c = 0; c < n; ++c) std::copy(u + c * ldu, u + c * ldu + p, r + c * ldr + j0);
  refactor(m + p, n, r, ldr, q, ldq, work);
}

template <class T>
void qrupd_delrows_refactor(lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *work) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_;
  T *tmp = work;
  form_qr(m, 0, n, q, ldq, r, ldr, {RowMap{0, j0, 0}, RowMap{j0 + p, m - j0 - p, j0}}, tmp);
  refactor(m - p, n, r, ldr, q, ldq, work);
}

// ---- instantiations --------------------------------------------------------

#define HQR_INSTANTIATE(T)                                                                                      \
  template void qrupd_delcols<T>(bool, lint, lint, lint, lint, T *, lint, T *, lint, T *, long);               \
  template void qrupd_addcols<T>(lint, lint, lint, lint, T *, lint, T *, lint, T *, lint, T *, long);          \
  template void qrupd_addrows<T>(bool, lint, lint, lint, lint, T *, lint, T *, lint, T *, lint, T *, long);    \
  template void qrupd_delrows<T>(lint, lint, lint, lint, T *, lint, T *, lint, T *, long);                     \
  template void qrupd_addcols_refactor<T>(lint, lint, lint, lint, T *, lint, T *, lint, const T *, lint, T *); \
  template void qrupd_addrows_refactor<T>(lint, lint, lint, lint, T *, lint, T *, lint, const T *, lint, T *); \
  template void qrupd_delrows_refactor<T>(lint, lint, lint, lint, T *, lint, T *, lint, T *);                  \
  template void qrupd_addcols_econ<T>(lint, lint, lint, lint, T *, lint, T *, lint, T *, lint, T *, long, int); \
  template void qrupd_delcols_econ<T>(bool, lint, lint, lint, lint, T *, lint, T *, lint, T *, long, int);      \
  template void qrupd_addrows_econ<T>(bool, lint, lint, lint, lint, T *, lint, T *, lint, T *, lint, T *, int); \
  template class AddcolsEconHost<T>;
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::cpu
