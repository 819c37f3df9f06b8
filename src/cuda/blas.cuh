// cuBLAS level 3 by element type: one name per operation, so the hybrid
// algorithms are written once for s, d, c and z. For real types the
// "conjugate transpose" is the transpose and herk is syrk.
#pragma once

#include <cublas_v2.h>

#include <complex>
#include <type_traits>

namespace hqr::gpu::blas {

using zc = std::complex<double>;
using cc = std::complex<float>;
inline cuDoubleComplex *cu(zc *p) { return reinterpret_cast<cuDoubleComplex *>(p); }
inline const cuDoubleComplex *cu(const zc *p) { return reinterpret_cast<const cuDoubleComplex *>(p); }
inline cuComplex *cu(cc *p) { return reinterpret_cast<cuComplex *>(p); }
inline const cuComplex *cu(const cc *p) { return reinterpret_cast<const cuComplex *>(p); }
inline double *cu(double *p) { return p; }
inline const double *cu(const double *p) { return p; }
inline float *cu(float *p) { return p; }
inline const float *cu(const float *p) { return p; }

// CUBLAS_OP_C for complex types, CUBLAS_OP_T for real ones.
template <class T> constexpr cublasOperation_t op_c() {
  return std::is_same_v<T, cc> || std::is_same_v<T, zc> ? CUBLAS_OP_C : CUBLAS_OP_T;
}

#define HQR_GEMM(T, fn)                                                                                       \
  inline cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, \
                             int64_t k, T alpha, const T *a, int64_t lda, const T *b, int64_t ldb, T beta, T *c,  \
                             int64_t ldc) {                                                                   \
    return fn(h, ta, tb, m, n, k, cu(&alpha), cu(a), lda, cu(b), ldb, cu(&beta), cu(c), ldc);                 \
  }
HQR_GEMM(float, cublasSgemm_64)
HQR_GEMM(double, cublasDgemm_64)
HQR_GEMM(cc, cublasCgemm_64)
HQR_GEMM(zc, cublasZgemm_64)
#undef HQR_GEMM

// Independent products C_i = alpha*op(A_i)*op(B_i) + beta*C_i, i < count,
// with A_i = a + i*sa, B_i = b + i*sb, C_i = c + i*sc.
#define HQR_GEMM_BATCHED(T, fn)                                                                                  \
  inline cublasStatus_t gemm_batched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,      \
                                     int64_t n, int64_t k, T alpha, const T *a, int64_t lda, int64_t sa, const T *b, \
                                     int64_t ldb, int64_t sb, T beta, T *c, int64_t ldc, int64_t sc, int64_t count) { \
    return fn(h, ta, tb, m, n, k, cu(&alpha), cu(a), lda, sa, cu(b), ldb, sb, cu(&beta), cu(c), ldc, sc, count);    \
  }
HQR_GEMM_BATCHED(float, cublasSgemmStridedBatched_64)
HQR_GEMM_BATCHED(double, cublasDgemmStridedBatched_64)
HQR_GEMM_BATCHED(cc, cublasCgemmStridedBatched_64)
HQR_GEMM_BATCHED(zc, cublasZgemmStridedBatched_64)
#undef HQR_GEMM_BATCHED

#define HQR_TRSM(T, fn)                                                                                        \
  inline cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t t, \
                             cublasDiagType_t diag, int64_t m, int64_t n, T alpha, const T *a, int64_t lda, T *b,  \
                             int64_t ldb) {                                                                    \
    return fn(h, side, uplo, t, diag, m, n, cu(&alpha), cu(a), lda, cu(b), ldb);                               \
  }
HQR_TRSM(float, cublasStrsm_64)
HQR_TRSM(double, cublasDtrsm_64)
HQR_TRSM(cc, cublasCtrsm_64)
HQR_TRSM(zc, cublasZtrsm_64)
#undef HQR_TRSM

// C = alpha*op(A)*B (side left) or alpha*B*op(A) (side right), A triangular.
// C may be B (in place) or a separate array (out of place, where no element
// of C waits for another).
#define HQR_TRMM(T, fn)                                                                                        \
  inline cublasStatus_t trmm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t t, \
                             cublasDiagType_t diag, int64_t m, int64_t n, T alpha, const T *a, int64_t lda,        \
                             const T *b, int64_t ldb, T *c, int64_t ldc) {                                    \
    return fn(h, side, uplo, t, diag, m, n, cu(&alpha), cu(a), lda, cu(b), ldb, cu(c), ldc);                   \
  }
HQR_TRMM(float, cublasStrmm_64)
HQR_TRMM(double, cublasDtrmm_64)
HQR_TRMM(cc, cublasCtrmm_64)
HQR_TRMM(zc, cublasZtrmm_64)
#undef HQR_TRMM

// C = alpha*op(A)*op(A)**H + beta*C on one triangle; alpha, beta real.
inline cublasStatus_t herk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t t, int64_t n, int64_t k,
                           float alpha, const float *a, int64_t lda, float beta, float *c, int64_t ldc) {
  return cublasSsyrk_64(h, uplo, t, n, k, &alpha, a, lda, &beta, c, ldc);
}
inline cublasStatus_t herk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t t, int64_t n, int64_t k,
                           double alpha, const double *a, int64_t lda, double beta, double *c, int64_t ldc) {
  return cublasDsyrk_64(h, uplo, t, n, k, &alpha, a, lda, &beta, c, ldc);
}
inline cublasStatus_t herk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t t, int64_t n, int64_t k,
                           float alpha, const cc *a, int64_t lda, float beta, cc *c, int64_t ldc) {
  return cublasCherk_64(h, uplo, t, n, k, &alpha, cu(a), lda, &beta, cu(c), ldc);
}
inline cublasStatus_t herk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t t, int64_t n, int64_t k,
                           double alpha, const zc *a, int64_t lda, double beta, zc *c, int64_t ldc) {
  return cublasZherk_64(h, uplo, t, n, k, &alpha, cu(a), lda, &beta, cu(c), ldc);
}

// C = op(A) (m-by-n), out of place; op is CUBLAS_OP_N, _T or _C.
#define HQR_GEAM(T, fn)                                                                                     \
  inline cublasStatus_t geam(cublasHandle_t h, cublasOperation_t ta, int64_t m, int64_t n, const T *a,        \
                             int64_t lda, T *c, int64_t ldc) {                                               \
    const T one(1), zero(0);                                                                                \
    return fn(h, ta, CUBLAS_OP_N, m, n, cu(&one), cu(a), lda, cu(&zero), cu(c), ldc, cu(c), ldc);            \
  }
HQR_GEAM(float, cublasSgeam_64)
HQR_GEAM(double, cublasDgeam_64)
HQR_GEAM(cc, cublasCgeam_64)
HQR_GEAM(zc, cublasZgeam_64)
#undef HQR_GEAM

template <class T> constexpr cudaDataType data_type() {
  if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
  if constexpr (std::is_same_v<T, cc>) return CUDA_C_32F;
  return CUDA_C_64F;
}

}  // namespace hqr::gpu::blas
