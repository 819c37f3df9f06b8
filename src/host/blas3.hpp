// The level-3 BLAS front (blas3.cpp): xGEMM, xSYMM/xHEMM, xSYRK/xHERK,
// xSYR2K/xHER2K, xTRMM, xTRSM, column-major, arguments by value. The Fortran
// entry points (blas3.cpp) and the CBLAS ones (cblas3.cpp) both come here.
//
// Each function returns false, having done nothing, when the call is not
// hqr's to run: an illegal argument (the reference BLAS 3.11's checks, in
// its order), a quick return, or a call from inside one of hqr's own
// routines on this thread (hqr's CPU work stays on the next BLAS). The
// caller then forwards its call verbatim to the next library, which reports
// or returns as it always has. Otherwise it returns true with the result in
// C (B for trmm/trsm). alpha == 0 (or k == 0): hqr scales C by beta itself
// (B := 0 for trmm/trsm), never reading A or B, as the reference BLAS
// promises and OpenBLAS 0.3.21 does not keep (its xGEMM with alpha = 0
// carries NaN from A and B into C up to orders ~100); beta == 0 zeroes C
// before the next BLAS adds to it, so C is never read whatever that BLAS
// does. The rest runs
// on the GPUs when the cost model (choose_blas3_path) says so and the GPU
// ran, else on the next BLAS.
//
// Transposes are 'N', 'T' or 'C' in either case; for complex xSYRK/xSYR2K
// only 'N'/'T' and for xHERK/xHER2K only 'N'/'C' are legal, as in the
// reference BLAS. Herm = true: xHEMM, xHERK, xHER2K (complex T only); xHERK's
// alpha and beta and xHER2K's beta are real.
#pragma once

#include <type_traits>

#include "common.hpp"

namespace hqr::blas3 {

// The type of xHERK's alpha and xHERK's/xHER2K's beta: real for Herm.
template <class T, bool Herm> using Scalar = std::conditional_t<Herm, typename Prec<T>::real, T>;

template <class T>
bool gemm(char transa, char transb, lint m, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb, T beta,
          T *c, lint ldc);
template <class T, bool Herm>
bool symm(char side, char uplo, lint m, lint n, T alpha, const T *a, lint lda, const T *b, lint ldb, T beta, T *c,
          lint ldc);
template <class T, bool Herm>
bool syrk(char uplo, char trans, lint n, lint k, Scalar<T, Herm> alpha, const T *a, lint lda, Scalar<T, Herm> beta,
          T *c, lint ldc);
template <class T, bool Herm>
bool syr2k(char uplo, char trans, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb,
           Scalar<T, Herm> beta, T *c, lint ldc);
// Solve = false: xTRMM, B := alpha*op(A)*B or alpha*B*op(A);
// Solve = true: xTRSM, B := alpha*op(A)**-1*B or alpha*B*op(A)**-1.
template <class T, bool Solve>
bool trmm(char side, char uplo, char transa, char diag, lint m, lint n, T alpha, const T *a, lint lda, T *b, lint ldb);

}  // namespace hqr::blas3
