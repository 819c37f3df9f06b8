// Level-3 BLAS from the next library in the link order (the system's,
// normally OpenBLAS), for the large products of hqr's CPU kernels (Q^T*U in
// the QR updates, the compact-WY block applications). Column-major,
// Fortran semantics; callers skip calls with an empty dimension.
#pragma once

#include <cstddef>

#include "host/next_lapack.hpp"

namespace hqr::blas {

// C = alpha*op(A)*op(B) + beta*C; op is 'N' or 'T'.
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

}  // namespace hqr::blas
