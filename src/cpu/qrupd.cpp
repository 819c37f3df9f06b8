// CPU kernels of the QR-updating routines (see qrupd.hpp for the overview).
//
// Conventions: column-major, 0-based indices, `idx` arithmetic so that
// ld*column never overflows the 32-bit INTEGER. Reflectors are LAPACK's
// H = I - tau*v*v^T with v(0) = 1 stored explicitly in the buffers these
// kernels read; Givens rotations act on adjacent rows (or columns) k-1, k as
//   x(k-1) <- c*x(k-1) + s*x(k),   x(k) <- c*x(k) - s*x(k-1),
// the same formula from the left on R's rows and from the right on Q's
// columns, so that Q*R is unchanged.
#include "cpu/qrupd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/blas.hpp"

namespace hqr::cpu {
namespace {

using idx = std::ptrdiff_t;

// Rows of Q per chunk in the right-side kernels: one chunk of each column
// it touches stays in cache while a whole block of reflectors or rotation
// passes is applied to it. A fixed trip count lets the compiler vectorise.
constexpr idx kRows = 16;

// ---- scalar building blocks ------------------------------------------------

// ||x||_2 without overflow or harmful underflow; NaN propagates.
template <class T> T norm2(idx n, const T *x) {
  T amax = 0;
  bool nan = false;
  for (idx i = 0; i < n; ++i) {
    const T a = std::abs(x[i]);
    if (a > amax)
      amax = a;
    else if (a != a)
      nan = true;
  }
  if (nan) return std::numeric_limits<T>::quiet_NaN();
  if (amax == 0 || std::isinf(amax)) return amax;
  const T inv = T(1) / amax;
  T ssq = 0;
  for (idx i = 0; i < n; ++i) {
    const T y = x[i] * inv;
    ssq += y * y;
  }
  return amax * std::sqrt(ssq);
}

// sqrt(a^2 + b^2), scaled.
template <class T> T lapy2(T a, T b) {
  const T x = std::abs(a), y = std::abs(b);
  const T w = std::max(x, y), z = std::min(x, y);
  if (z == 0 || w > std::numeric_limits<T>::max()) return w + z;  // also NaN-propagating
  const T q = z / w;
  return w * std::sqrt(T(1) + q * q);
}

// LAPACK's xLARFG: H*[alpha; x] = [beta; 0] with H = I - tau*[1; v]*[1; v]^T.
// x (n-1 contiguous elements) is overwritten by v, alpha by beta; returns tau.
template <class T> T larfg(idx n, T &alpha, T *x) {
  if (n <= 1) return 0;
  T xnorm = norm2(n - 1, x);
  if (xnorm == 0) return 0;
  T beta = -std::copysign(lapy2(alpha, xnorm), alpha);
  const T safmin = std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon();
  int rescaled = 0;
  if (std::abs(beta) < safmin) {  // xnorm, beta may be inaccurate: scale up
    const T rsafmn = T(1) / safmin;
    do {
      ++rescaled;
      for (idx i = 0; i < n - 1; ++i) x[i] *= rsafmn;
      beta *= rsafmn;
      alpha *= rsafmn;
    } while (std::abs(beta) < safmin && rescaled < 20);
    xnorm = norm2(n - 1, x);
    beta = -std::copysign(lapy2(alpha, xnorm), alpha);
  }
  const T tau = (beta - alpha) / beta;
  const T scal = T(1) / (alpha - beta);
  for (idx i = 0; i < n - 1; ++i) x[i] *= scal;
  for (int j = 0; j < rescaled; ++j) beta *= safmin;
  alpha = beta;
  return tau;
}

// Givens rotation: [c s; -s c]*[f; g] = [r; 0], c >= 0 when f != 0.
template <class T> void lartg(T f, T g, T &c, T &s, T &r) {
  if (g == 0) {
    c = 1;
    s = 0;
    r = f;
  } else if (f == 0) {
    c = 0;
    s = 1;
    r = g;
  } else {
    const T d = std::copysign(lapy2(f, g), f);
    c = f / d;
    s = g / d;
    r = d;
  }
}

// ---- vector kernels (restrict-qualified so that they vectorise) ------------

template <class T> inline T dot(idx n, const T *__restrict x, const T *__restrict y) {
  T s = 0;
  for (idx i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}
template <class T> inline void axpy(idx n, T a, const T *__restrict x, T *__restrict y) {
  for (idx i = 0; i < n; ++i) y[i] += a * x[i];
}
// Rotates two columns of a chunk: a <- c*a + s*b, b <- c*b - s*a.
template <class T, idx N> inline void rot_fixed(T *__restrict a, T *__restrict b, T c, T s) {
  for (idx i = 0; i < N; ++i) {
    const T x = a[i], y = b[i];
    a[i] = c * x + s * y;
    b[i] = c * y - s * x;
  }
}
template <class T> inline void rot_var(idx n, T *__restrict a, T *__restrict b, T c, T s) {
  for (idx i = 0; i < n; ++i) {
    const T x = a[i], y = b[i];
    a[i] = c * x + s * y;
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

// C <- H_{nr-1} ... H_0 * C for the ncols columns of c (c points at the
// staircase's first row). One column at a time: it stays in cache for all
// the reflectors.
template <class T>
void apply_left(idx nr, idx L, idx lim, const T *v, idx ldv, const T *tau, T *c, idx ldc, idx ncols) {
  for (idx j = 0; j < ncols; ++j) {
    T *cj = c + j * ldc;
    for (idx i = 0; i < nr; ++i) {
      if (tau[i] == 0) continue;
      const idx len = std::min(L, lim - i);
      const T *vi = v + i * ldv;
      T *x = cj + i;
      const T s = tau[i] * dot(len, vi, x);
      axpy(len, -s, vi, x);
    }
  }
}

template <class T, idx N>
void apply_right_chunk(T *q, idx ldq, idx nr, idx L, idx lim, const T *v, idx ldv, const T *tau) {
  for (idx i = 0; i < nr; ++i) {
    if (tau[i] == 0) continue;
    const idx len = std::min(L, lim - i);
    const T *vi = v + i * ldv;
    T w[N] = {};
    for (idx k = 0; k < len; ++k) acc_fixed<T, N>(w, q + (i + k) * ldq, vi[k]);
    for (idx r = 0; r < N; ++r) w[r] *= tau[i];
    for (idx k = 0; k < len; ++k) sub_fixed<T, N>(q + (i + k) * ldq, w, vi[k]);
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

// ---- rotation kernels ------------------------------------------------------

// A pass: rotations on (k-1, k) for k = hi down to lo+1, cosines and sines
// at cs[k-lo-1], sn[k-lo-1]. Applied from the left to one column x.
template <class T> inline void rot_chain(T *x, idx hi, idx lo, const T *cs, const T *sn) {
  if (hi <= lo) return;
  T y = x[hi];
  for (idx k = hi; k > lo; --k) {
    const T c = cs[k - lo - 1], s = sn[k - lo - 1];
    const T xk1 = x[k - 1];
    x[k] = c * y - s * xk1;
    y = c * xk1 + s * y;
  }
  x[lo] = y;
}

// Q <- Q * G for npass passes (pass t: hi[t], lo[t], rotations at
// cs + t*ldrot, sn + t*ldrot), applied in order to the mrows rows of q.
template <class T>
void rot_right(idx mrows, T *q, idx ldq, idx npass, const idx *hi, const idx *lo, const T *cs, const T *sn,
               idx ldrot) {
  idx r0 = 0;
  for (; r0 + kRows <= mrows; r0 += kRows)
    for (idx t = 0; t < npass; ++t)
      for (idx k = hi[t]; k > lo[t]; --k) {
        T *a = q + r0 + (k - 1) * ldq;
        rot_fixed<T, kRows>(a, a + ldq, cs[t * ldrot + k - lo[t] - 1], sn[t * ldrot + k - lo[t] - 1]);
      }
  if (r0 < mrows)
    for (idx t = 0; t < npass; ++t)
      for (idx k = hi[t]; k > lo[t]; --k) {
        T *a = q + r0 + (k - 1) * ldq;
        rot_var(mrows - r0, a, a + ldq, cs[t * ldrot + k - lo[t] - 1], sn[t * ldrot + k - lo[t] - 1]);
      }
}

// ---- helpers ---------------------------------------------------------------

template <class F> lint pick_nb(long lwork, F ws) {
  lint nb = qrupd_nb;
  while (nb > 1 && ws(nb) > lwork) --nb;
  return nb;
}

// Zeroes the strictly lower trapezoid of the m-by-n matrix a.
template <class T> void zero_lower(idx m, idx n, T *a, idx lda) {
  for (idx j = 0; j < n && j + 1 < m; ++j) std::fill(a + j * lda + j + 1, a + j * lda + m, T(0));
}

}  // namespace

// ---- workspace -------------------------------------------------------------

long qrupd_delcols_lwork(lint m, lint n, lint p, lint nb) { return long(nb) * (long(p) + 2); }
long qrupd_addcols_lwork(lint m, lint n, lint p, lint nb) {
  return 2L * p + 2L * nb * std::max<long>(1, std::min(m, n));
}
long qrupd_addrows_lwork(bool wantq, lint m, lint n, lint p, lint nb) {
  return long(nb) * (1L + nb + std::max<long>(1, n) + (wantq ? long(m) + p : 0L));
}
long qrupd_delrows_lwork(lint m, lint n, lint p, lint nb) { return 2L * nb * std::max<long>(1, m); }

// ---- delete columns --------------------------------------------------------

template <class T>
void qrupd_delcols(bool wantq, lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *work,
                   long lwork) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_;
  const idx nn = n - p;
  // Close the gap: column c takes column c+p, whose rows below min(c+p, m-1)
  // are zero; R now has p subdiagonals from column j0 on.
  for (idx c = j0; c < nn; ++c) {
    T *dst = r + c * ldr;
    const T *src = r + (c + p) * ldr;
    const idx top = std::min(c + p, m - 1);
    std::copy(src, src + top + 1, dst);
    std::fill(dst + top + 1, dst + m, T(0));
  }
  const idx cend = std::min(nn, m - 1);  // columns with entries to annihilate
  if (j0 >= cend) return;
  const idx L = p + 1;  // reflector length
  const idx nb = pick_nb(lwork, [&](lint b) { return qrupd_delcols_lwork(m_, n_, p_, b); });
  T *tau = work;
  T *v = work + nb;  // nb reflectors of length L
  for (idx c0 = j0; c0 < cend; c0 += nb) {
    const idx nr = std::min(nb, cend - c0);
    for (idx i = 0; i < nr; ++i) {
      const idx c = c0 + i, len = std::min(L, m - c);
      T *rc = r + c + c * ldr;
      tau[i] = larfg(len, rc[0], rc + 1);
      T *vi = v + i * L;
      vi[0] = 1;
      std::copy(rc + 1, rc + len, vi + 1);
      std::fill(rc + 1, rc + len, T(0));
      apply_left(idx(1), L, len, vi, L, tau + i, rc + ldr, ldr, c0 + nr - c - 1);
    }
    apply_left(nr, L, m - c0, v, L, tau, r + c0 + (c0 + nr) * ldr, ldr, nn - c0 - nr);
    if (wantq) apply_right(m, q + c0 * ldq, ldq, nr, L, m - c0, v, L, tau);
  }
}

// ---- add columns -----------------------------------------------------------

template <class T>
void qrupd_addcols(lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *u, lint ldu_, T *work,
                   long lwork) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_;
  // Open the gap: columns j0..n-1 move p to the right.
  for (idx c = n - 1; c >= j0; --c) {
    const T *src = r + c * ldr;
    T *dst = r + (c + p) * ldr;
    const idx top = std::min(c, m - 1);
    std::copy(src, src + top + 1, dst);
    std::fill(dst + top + 1, dst + m, T(0));
  }
  if (m == 0) return;
  // The inserted block: Q^T*U.
  blas::gemm<T>('T', 'N', m_, p_, m_, T(1), q, ldq_, u, ldu_, T(0), r + j0 * ldr, ldr_);

  // Rows n..m-1 are zero outside the block: a Householder QR of that part,
  // applied to Q's columns n..m-1.
  const idx mb = m - n;
  T *tau = work, *beta = work + p;
  if (mb >= 2) {
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

  // Givens passes, one per inserted column, bottom-up; each adds at most one
  // row to the trailing (old) columns, which had p rows of room. Passes are
  // blocked: the trailing columns and Q see nb passes at a time.
  const idx S = std::max<idx>(1, std::min(m, n));
  const idx nb = pick_nb(lwork, [&](lint b) { return qrupd_addcols_lwork(m_, n_, p_, b); });
  T *cs = work + 2 * p, *sn = cs + nb * S;
  idx hi[qrupd_nb], lo[qrupd_nb];
  for (idx i0 = 0; i0 < p; i0 += nb) {
    const idx nt = std::min(nb, p - i0);
    for (idx t = 0; t < nt; ++t) {
      const idx i = i0 + t, col = j0 + i, bot = std::min(n + i, m - 1);
      lo[t] = col;
      hi[t] = std::max(bot, col);
      T *rc = r + col * ldr, *ct = cs + t * S, *st = sn + t * S;
      for (idx k = bot; k > col; --k) {
        T rr;
        lartg(rc[k - 1], rc[k], ct[k - col - 1], st[k - col - 1], rr);
        rc[k - 1] = rr;
        rc[k] = 0;
      }
      for (idx c2 = col + 1; c2 < j0 + p; ++c2) rot_chain(r + c2 * ldr, hi[t], col, ct, st);
    }
    for (idx t2 = 0; t2 < n - j0; ++t2) {
      T *rc = r + (j0 + p + t2) * ldr;
      for (idx t = 0; t < nt; ++t) {
        const idx last = std::min(j0 + t2 + i0 + t, m - 1);  // its last nonzero row before this pass
        rot_chain(rc, std::min(hi[t], last + 1), lo[t], cs + t * S, sn + t * S);
      }
    }
    rot_right(m, q, ldq, nt, hi, lo, cs, sn, S);
  }
  for (idx col = j0; col < j0 + p && col + 1 < m; ++col) std::fill(r + col * ldr + col + 1, r + col * ldr + m, T(0));
}

// ---- add rows --------------------------------------------------------------

template <class T>
void qrupd_addrows(bool wantq, lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *u,
                   lint ldu_, T *work, long lwork) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_, ldu = ldu_, mp = m + p;
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
  const idx nb = pick_nb(lwork, [&](lint b) { return qrupd_addrows_lwork(wantq, m_, n_, p_, b); });
  T *tau = work, *t = tau + nb, *wr = t + nb * nb, *wq = wr + nb * std::max<idx>(1, n);
  for (idx k0 = 0; k0 < k1; k0 += nb) {
    const idx nr = std::min(nb, k1 - k0);
    T *vu = u + k0 * ldu;
    for (idx i = 0; i < nr; ++i) {
      const idx k = k0 + i;
      T *uk = u + k * ldu;
      tau[i] = larfg(p + 1, r[k + k * ldr], uk);
      if (tau[i] == 0) continue;
      for (idx c = k + 1; c < k0 + nr; ++c) {
        T *uc = u + c * ldu;
        const T w = tau[i] * (r[k + c * ldr] + dot(p, uk, uc));
        r[k + c * ldr] -= w;
        axpy(p, -w, uk, uc);
      }
    }
    // T (upper triangular), as xLARFT: T(0:i-1,i) = -tau_i*T(0:i-1,0:i-1)*V_u^T*v_i.
    for (idx i = 0; i < nr; ++i) {
      T *ti = t + i * nb;
      for (idx jj = 0; jj < i; ++jj) ti[jj] = -tau[i] * dot(p, vu + jj * ldu, vu + i * ldu);
      for (idx jj = 0; jj < i; ++jj) {
        T s = 0;
        for (idx l = jj; l < i; ++l) s += t[jj + l * nb] * ti[l];
        ti[jj] = s;
      }
      ti[i] = tau[i];
    }
    const idx nc = n - k0 - nr;
    if (nc > 0) {  // [R(k0:k0+nr-1, k0+nr:); U(:, k0+nr:)] <- H^T * [...]
      T *rt = r + k0 + (k0 + nr) * ldr, *ut = u + (k0 + nr) * ldu;
      for (idx c = 0; c < nc; ++c) std::copy(rt + c * ldr, rt + c * ldr + nr, wr + c * nb);
      blas::gemm<T>('T', 'N', lint(nr), lint(nc), p_, T(1), vu, ldu_, ut, ldu_, T(1), wr, lint(nb));
      blas::trmm<T>('L', 'U', 'T', 'N', lint(nr), lint(nc), T(1), t, lint(nb), wr, lint(nb));
      for (idx c = 0; c < nc; ++c)
        for (idx i = 0; i < nr; ++i) rt[i + c * ldr] -= wr[i + c * nb];
      blas::gemm<T>('N', 'N', p_, lint(nc), lint(nr), T(-1), vu, ldu_, wr, lint(nb), T(1), ut, ldu_);
    }
    if (wantq) {  // Q(:, [k0:k0+nr-1, m:m+p-1]) <- Q(:, ...) * H
      T *qk = q + k0 * ldq, *qm = q + m * ldq;
      for (idx c = 0; c < nr; ++c) std::copy(qk + c * ldq, qk + c * ldq + mp, wq + c * mp);
      blas::gemm<T>('N', 'N', lint(mp), lint(nr), p_, T(1), qm, ldq_, vu, ldu_, T(1), wq, lint(mp));
      blas::trmm<T>('R', 'U', 'N', 'N', lint(mp), lint(nr), T(1), t, lint(nb), wq, lint(mp));
      for (idx c = 0; c < nr; ++c)
        for (idx i = 0; i < mp; ++i) qk[i + c * ldq] -= wq[i + c * mp];
      blas::gemm<T>('N', 'T', lint(mp), p_, lint(nr), T(-1), wq, lint(mp), vu, ldu_, T(1), qm, ldq_);
    }
  }
  // m < n: U(:, m:n-1) is what is left; its QR gives rows m..m+p-1 of R.
  for (idx i = 0; i < std::min(p, n - m); ++i) {
    const idx c = m + i, len = p - i;
    T *d = u + i + c * ldu;
    T tau_i = larfg(len, d[0], d + 1);
    if (tau_i == 0) continue;
    const T b = d[0];
    d[0] = 1;
    apply_left(idx(1), len, len, d, idx(0), &tau_i, d + ldu, ldu, n - c - 1);
    if (wantq) apply_right(mp, q + c * ldq, ldq, idx(1), len, len, d, idx(0), &tau_i);
    d[0] = b;
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
  // Q and the columns of R see nb passes at a time.
  const idx S = std::max<idx>(1, m);
  const idx nb = pick_nb(lwork, [&](lint b) { return qrupd_delrows_lwork(m_, n_, p_, b); });
  T *cs = work, *sn = work + nb * S;
  idx hi[qrupd_nb], lo[qrupd_nb];
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
        lartg(*a, *b, c, s, rr);
        *a = rr;
        *b = 0;
        ct[k - i - 1] = c;
        st[k - i - 1] = s;
        rot_var(rest, a + 1, b + 1, c, s);
      }
    }
    rot_right(j0, q, ldq, nt, hi, lo, cs, sn, S);
    rot_right(m - j0 - p, q + j0 + p, ldq, nt, hi, lo, cs, sn, S);
    for (idx c = 0; c < n; ++c)
      for (idx t = 0; t < nt; ++t) {
        const idx i = i0 + t;
        rot_chain(r + c * ldr, std::min(m - 1, c + 1 + i), i, cs + t * S, sn + t * S);
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

// ---- instantiations --------------------------------------------------------

template void qrupd_delcols<float>(bool, lint, lint, lint, lint, float *, lint, float *, lint, float *, long);
template void qrupd_delcols<double>(bool, lint, lint, lint, lint, double *, lint, double *, lint, double *, long);
template void qrupd_addcols<float>(lint, lint, lint, lint, float *, lint, float *, lint, float *, lint, float *,
                                   long);
template void qrupd_addcols<double>(lint, lint, lint, lint, double *, lint, double *, lint, double *, lint,
                                    double *, long);
template void qrupd_addrows<float>(bool, lint, lint, lint, lint, float *, lint, float *, lint, float *, lint,
                                   float *, long);
template void qrupd_addrows<double>(bool, lint, lint, lint, lint, double *, lint, double *, lint, double *, lint,
                                    double *, long);
template void qrupd_delrows<float>(lint, lint, lint, lint, float *, lint, float *, lint, float *, long);
template void qrupd_delrows<double>(lint, lint, lint, lint, double *, lint, double *, lint, double *, long);

}  // namespace hqr::cpu
