// Level-3 BLAS from the next library in the link order (the system's,
// normally OpenBLAS), and the LAPACK auxiliaries built on it that apply
// compact-WY block reflectors, for the large products of hqr's CPU kernels
// (Q^T*U in the QR updates, reflector blocks, products of rotation windows)
// and the tiles the GPU BLAS leaves to the CPU after a failure.
// Column-major, Fortran semantics; callers skip calls with an empty dimension.
#pragma once

#include <algorithm>
#include <cstddef>

#include "cpu/parallel.hpp"
#include "host/next_lapack.hpp"

namespace hqr::blas {

// C = alpha*op(A)*op(B) + beta*C; op is 'N', 'T' or 'C'.
template <class T>
void gemm(char transa, char transb, lint m, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb,
          T beta, T *c, lint ldc) {
  using F = void(const char *, const char *, const lint *, const lint *, const lint *, const T *, const T *,
                 const lint *, const T *, const lint *, const T *, T *, const lint *, std::size_t, std::size_t);
  static F *const f = next::fn<F, T>("gemm");
  f(&transa, &transb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
}

// Small triangular products and solves, on the calling thread. OpenBLAS
// 0.3 runs xTRMM and xTRSM on all its threads once both dimensions reach 8
// (a 200-by-10 product, 20,000 multiply-adds, woke them), and its woken
// workers then spin for 2^28 cycles (about 0.1 s; OPENBLAS_THREAD_TIMEOUT)
// waiting for more: on every core, so hqr's own threads that follow (the
// passes over Q of the economy updates, the staging copies) lose cores to
// them. The economy addcols at J = N+1 (M = 200,000, N = 200, P = 10, its
// CholeskyQR2 multiplies 200-by-10 blocks) took 0.045 s on this project's
// 2-core host (0.033 s when the workers happened to be asleep), 0.031-0.033
// s with these loops (bench/results/history/cpu-tuning-AMD-EPYC-2core-2026-12-04.txt). Below kSerialMacs multiply-adds, where these plain loops take at
// most about 15 us, they run instead of the next BLAS; above it the next
// BLAS's speed matters more (at 2^18 these loops took 35-120 us against its
// 3-30).
namespace serial {
constexpr double kSerialMacs = double(1 << 15);
using idx = std::ptrdiff_t;

// op(A)(i, k) of the stored triangle, and whether op(A) is upper triangular.
template <class T> struct OpA {
  const T *a;
  idx lda;
  char trans;  // 'N', 'T' or 'C'
  bool unit;
  T operator()(idx i, idx k) const {
    if (trans == 'N') return a[i + k * lda];
    return trans == 'C' ? conj_of(a[k + i * lda]) : a[k + i * lda];
  }
  T diag(idx i) const { return unit ? T(1) : (*this)(i, i); }
};
inline char up(char c) { return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c; }

// Solve false: B = alpha*op(A)*B or alpha*B*op(A); true: B = alpha*op(A)^-1*B
// or alpha*B*op(A)^-1. In place, in the reference BLAS's order of rows or
// columns, so that no entry is read after it is overwritten.
template <class T, bool Solve>
void triangle(char side, char uplo, char transa, char diag, idx m, idx n, T alpha, const T *a, idx lda, T *b,
              idx ldb) {
  if (alpha == T(0)) {  // the reference: B = 0, A not read
    for (idx j = 0; j < n; ++j) std::fill(b + j * ldb, b + j * ldb + m, T(0));
    return;
  }
  const OpA<T> op{a, lda, up(transa), up(diag) == 'U'};
  const bool upper = (op.trans == 'N') == (up(uplo) == 'U');
  if (up(side) == 'L') {  // row i of each column from rows i+1.. (op(A) upper) or ..i-1
    const bool ascending = upper != Solve;
    for (idx j = 0; j < n; ++j) {
      T *x = b + j * ldb;
      for (idx s = 0; s < m; ++s) {
        const idx i = ascending ? s : m - 1 - s;
        T sum = 0;
        if (upper)
          for (idx k = i + 1; k < m; ++k) sum += op(i, k) * x[k];
        else
          for (idx k = 0; k < i; ++k) sum += op(i, k) * x[k];
        if constexpr (Solve)
          x[i] = op.unit ? alpha * x[i] - sum : (alpha * x[i] - sum) / op(i, i);
        else
          x[i] = alpha * (op.diag(i) * x[i] + sum);
      }
    }
  } else {  // column c from columns ..c-1 (op(A) upper) or c+1..
    const bool ascending = upper == Solve;
    for (idx s = 0; s < n; ++s) {
      const idx c = ascending ? s : n - 1 - s;
      T *bc = b + c * ldb;
      const T first = Solve ? alpha : op.diag(c);
      for (idx i = 0; i < m; ++i) bc[i] *= first;
      for (idx k = upper ? 0 : c + 1; k < (upper ? c : n); ++k) {
        const T t = Solve ? -op(k, c) : op(k, c);
        const T *bk = b + k * ldb;
        for (idx i = 0; i < m; ++i) bc[i] += t * bk[i];
      }
      if constexpr (!Solve)
        for (idx i = 0; i < m; ++i) bc[i] *= alpha;
      else if (!op.unit)
        for (idx i = 0; i < m; ++i) bc[i] /= op(c, c);
    }
  }
}

inline bool small(char side, lint m, lint n) {
  const double k = serial::up(side) == 'L' ? double(m) : double(n);
  return double(m) * double(n) * k <= kSerialMacs;
}
}  // namespace serial

// B = alpha*op(A)*B (side 'L') or alpha*B*op(A) (side 'R'), A triangular.
template <class T>
void trmm(char side, char uplo, char transa, char diag, lint m, lint n, T alpha, const T *a, lint lda, T *b,
          lint ldb) {
  if (serial::small(side, m, n)) return serial::triangle<T, false>(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
  using F = void(const char *, const char *, const char *, const char *, const lint *, const lint *, const T *,
                 const T *, const lint *, T *, const lint *, std::size_t, std::size_t, std::size_t, std::size_t);
  static F *const f = next::fn<F, T>("trmm");
  f(&side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
}

// B = alpha*op(A)*B or alpha*B*op(A) by the plain loops above on hqr's own
// short-lived threads (B's columns split for side 'L', its rows for 'R'),
// whatever the size: for the host's steps between device phases, where the
// next BLAS's woken workers would then spin on every core and slow the
// staging copies that follow. xQRUPD_ADDCOLS_ECON's GPU path, M = 16384,
// N = 4096, P = 100 (its block's n-by-p and p-by-p products): at J = 1
// 0.096 s a call against 0.109-0.112 with OpenBLAS's dtrmm (H200 host, 16
// cores; bench/results/update-econ-NVIDIA-H200-2026-12-05.txt).
template <class T>
void trmm_own_threads(int threads, char side, char uplo, char transa, char diag, lint m, lint n, T alpha,
                      const T *a, lint lda, T *b, lint ldb) {
  const bool left = serial::up(side) == 'L';
  const double macs = double(m) * double(n) * double(left ? m : n);
  const int t = cpu::pass_threads(threads, macs, serial::kSerialMacs);
  cpu::parallel_ranges(left ? n : m, t, left ? 1 : 8, [&](int, std::ptrdiff_t r0, std::ptrdiff_t r1) {
    if (r0 >= r1) return;
    if (left)
      serial::triangle<T, false>(side, uplo, transa, diag, m, r1 - r0, alpha, a, lda, b + r0 * ldb, ldb);
    else
      serial::triangle<T, false>(side, uplo, transa, diag, r1 - r0, n, alpha, a, lda, b + r0, ldb);
  });
}

// B = alpha*op(A)**-1*B (side 'L') or alpha*B*op(A)**-1 (side 'R'), A triangular.
template <class T>
void trsm(char side, char uplo, char transa, char diag, lint m, lint n, T alpha, const T *a, lint lda, T *b,
          lint ldb) {
  if (serial::small(side, m, n)) return serial::triangle<T, true>(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
  using F = void(const char *, const char *, const char *, const char *, const lint *, const lint *, const T *,
                 const T *, const lint *, T *, const lint *, std::size_t, std::size_t, std::size_t, std::size_t);
  static F *const f = next::fn<F, T>("trsm");
  f(&side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
}

// C = alpha*A*B + beta*C (side 'L') or alpha*B*A + beta*C ('R'), A
// symmetric, or Hermitian where herm (xHEMM).
template <class T>
void symm(bool herm, char side, char uplo, lint m, lint n, T alpha, const T *a, lint lda, const T *b, lint ldb,
              T beta, T *c, lint ldc) {
  using F = void(const char *, const char *, const lint *, const lint *, const T *, const T *, const lint *,
                 const T *, const lint *, const T *, T *, const lint *, std::size_t, std::size_t);
  F *f = herm ? next::fn<F, T>("hemm") : next::fn<F, T>("symm");
  f(&side, &uplo, &m, &n, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
}
// C = alpha*op(A)*op(A)**T + beta*C on the uplo triangle; herm: xHERK
// (op(A)*op(A)**H, alpha and beta real: their real parts are taken).
template <class T>
void syrk(bool herm, char uplo, char trans, lint n, lint k, T alpha, const T *a, lint lda, T beta, T *c,
              lint ldc) {
  using R = typename Prec<T>::real;
  if (herm) {
    using F = void(const char *, const char *, const lint *, const lint *, const R *, const T *, const lint *,
                   const R *, T *, const lint *, std::size_t, std::size_t);
    const R ra = std::real(alpha), rb = std::real(beta);
    next::fn<F, T>("herk")(&uplo, &trans, &n, &k, &ra, a, &lda, &rb, c, &ldc, 1, 1);
  } else {
    using F = void(const char *, const char *, const lint *, const lint *, const T *, const T *, const lint *,
                   const T *, T *, const lint *, std::size_t, std::size_t);
    next::fn<F, T>("syrk")(&uplo, &trans, &n, &k, &alpha, a, &lda, &beta, c, &ldc, 1, 1);
  }
}
// C = alpha*op(A)*op(B)**T + alpha*op(B)*op(A)**T + beta*C on the uplo
// triangle; herm: xHER2K (conj(alpha) in the second term, beta real).
template <class T>
void syr2k(bool herm, char uplo, char trans, lint n, lint k, T alpha, const T *a, lint lda, const T *b,
               lint ldb, T beta, T *c, lint ldc) {
  using R = typename Prec<T>::real;
  if (herm) {
    using F = void(const char *, const char *, const lint *, const lint *, const T *, const T *, const lint *,
                   const T *, const lint *, const R *, T *, const lint *, std::size_t, std::size_t);
    const R rb = std::real(beta);
    next::fn<F, T>("her2k")(&uplo, &trans, &n, &k, &alpha, a, &lda, b, &ldb, &rb, c, &ldc, 1, 1);
  } else {
    using F = void(const char *, const char *, const lint *, const lint *, const T *, const T *, const lint *,
                   const T *, const lint *, const T *, T *, const lint *, std::size_t, std::size_t);
    next::fn<F, T>("syr2k")(&uplo, &trans, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  }
}

// xGEQRT: the QR factorization of the m-by-n a (R on and above the
// diagonal, the reflectors' V below, as xGEQRF) with the compact-WY T of each
// block of nb reflectors in t (nb-by-min(m,n), block i at column i*nb).
// Level-3 even for a thin a (recursive xGEQRT3), where xGEQRF runs its
// unblocked xGEQR2. 1 <= nb <= min(m,n); work holds nb*n.
template <class T> void geqrt(lint m, lint n, lint nb, T *a, lint lda, T *t, lint ldt, T *work) {
  using F = void(const lint *, const lint *, const lint *, T *, const lint *, T *, const lint *, T *, lint *);
  static F *const f = next::fn<F, T>("geqrt");
  lint info = 0;
  f(&m, &n, &nb, a, &lda, t, &ldt, work, &info);
}

// xTPQRT2 with L = 0: the QR factorization of [A; B], A n-by-n upper
// triangular (its strictly lower part is not referenced), B m-by-n: R
// overwrites A, the reflectors' lower parts overwrite B (each reflector is
// e_i above B's rows), and t gets their n-by-n upper triangular T.
// m >= 1: with m = 0 xTPQRT2 returns without setting t.
template <class T> void tpqrt2(lint m, lint n, T *a, lint lda, T *b, lint ldb, T *t, lint ldt) {
  using F = void(const lint *, const lint *, const lint *, T *, const lint *, T *, const lint *, T *, const lint *,
                 lint *);
  static F *const f = next::fn<F, T>("tpqrt2");
  const lint l = 0;
  lint info = 0;
  f(&m, &n, &l, a, &lda, b, &ldb, t, &ldt, &info);
}

// xLARFT('F', 'C'): the k-by-k upper triangular T of the block reflector
// H = H(1)*...*H(k) = I - V*T*V^T, V n-by-k unit lower trapezoidal (what
// lies above its diagonal is not referenced).
template <class T> void larft(lint n, lint k, T *v, lint ldv, const T *tau, T *t, lint ldt) {
  using F = void(const char *, const char *, const lint *, const lint *, T *, const lint *, const T *, T *,
                 const lint *, std::size_t, std::size_t);
  static F *const f = next::fn<F, T>("larft");
  f("F", "C", &n, &k, v, &ldv, tau, t, &ldt, 1, 1);
}

// xLARFB(side, trans, 'F', 'C'): C = op(H)*C (side 'L') or C*op(H) (side
// 'R'), H = I - V*T*V^T from larft; op is 'N' or 'T'. work holds
// ldwork-by-k, ldwork >= n (side 'L') or m (side 'R').
template <class T>
void larfb(char side, char trans, lint m, lint n, lint k, const T *v, lint ldv, const T *t, lint ldt, T *c,
           lint ldc, T *work, lint ldwork) {
  using F = void(const char *, const char *, const char *, const char *, const lint *, const lint *, const lint *,
                 const T *, const lint *, const T *, const lint *, T *, const lint *, T *, const lint *,
                 std::size_t, std::size_t, std::size_t, std::size_t);
  static F *const f = next::fn<F, T>("larfb");
  f(&side, &trans, "F", "C", &m, &n, &k, v, &ldv, t, &ldt, c, &ldc, work, &ldwork, 1, 1, 1, 1);
}

}  // namespace hqr::blas
