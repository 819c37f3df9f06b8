// Level-3 BLAS from the next library in the link order (the system's,
// normally OpenBLAS), and the LAPACK auxiliaries built on it that apply
// compact-WY block reflectors, for the large products of hqr's CPU kernels
// (Q^T*U in the QR updates, reflector blocks, products of rotation windows)
// and the tiles the GPU BLAS leaves to the CPU after a failure.
// Column-major, Fortran semantics; callers skip calls with an empty dimension.
#pragma once

#include <cstddef>

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

// B = alpha*op(A)*B (side 'L') or alpha*B*op(A) (side 'R'), A triangular.
template <class T>
void trmm(char side, char uplo, char transa, char diag, lint m, lint n, T alpha, const T *a, lint lda, T *b,
          lint ldb) {
  using F = void(const char *, const char *, const char *, const char *, const lint *, const lint *, const T *,
                 const T *, const lint *, T *, const lint *, std::size_t, std::size_t, std::size_t, std::size_t);
  static F *const f = next::fn<F, T>("trmm");
  f(&side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
}

// B = alpha*op(A)**-1*B (side 'L') or alpha*B*op(A)**-1 (side 'R'), A triangular.
template <class T>
void trsm(char side, char uplo, char transa, char diag, lint m, lint n, T alpha, const T *a, lint lda, T *b,
          lint ldb) {
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
