// cuSOLVER's ormqr/unmqr and orgqr/ungqr by element type (cuSOLVER has no
// 64-bit API for them): the one trips (qr_one_trip.cu) and the hybrid
// geqrf's panels with zero columns (geqrf_hybrid.cu); and its legacy geqrf
// (workspace in elements of T), which delrows runs while Q comes in
// (qrupd_rows.cu).
#pragma once

#include <cusolverDn.h>

#include <complex>

#include "cuda/blas.cuh"

namespace hqr::gpu {

#define HQR_CUSOLVER_Q(T, P, MQR, GQR)                                                                        \
  inline cusolverStatus_t ormqr_work(cusolverDnHandle_t h, cublasSideMode_t s, cublasOperation_t t, int m, int n, \
                                     int k, const T *a, int lda, const T *tau, const T *c, int ldc, int *lwork) { \
    return cusolverDn##P##MQR##_bufferSize(h, s, t, m, n, k, blas::cu(a), lda, blas::cu(tau), blas::cu(c), ldc, \
                                          lwork);                                                            \
  }                                                                                                           \
  inline cusolverStatus_t ormqr(cusolverDnHandle_t h, cublasSideMode_t s, cublasOperation_t t, int m, int n,    \
                                int k, const T *a, int lda, const T *tau, T *c, int ldc, void *w, int lwork,   \
                                int *info) {                                                                  \
    return cusolverDn##P##MQR(h, s, t, m, n, k, blas::cu(a), lda, blas::cu(tau), blas::cu(c), ldc,            \
                              blas::cu(static_cast<T *>(w)), lwork, info);                                    \
  }                                                                                                           \
  inline cusolverStatus_t orgqr_work(cusolverDnHandle_t h, int m, int n, int k, const T *a, int lda,            \
                                     const T *tau, int *lwork) {                                              \
    return cusolverDn##P##GQR##_bufferSize(h, m, n, k, blas::cu(a), lda, blas::cu(tau), lwork);               \
  }                                                                                                           \
  inline cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, T *a, int lda, const T *tau, void *w, \
                                int lwork, int *info) {                                                       \
    return cusolverDn##P##GQR(h, m, n, k, blas::cu(a), lda, blas::cu(tau), blas::cu(static_cast<T *>(w)), lwork, \
                              info);                                                                          \
  }
#define HQR_CUSOLVER_GEQRF(T, P)                                                                              \
  inline cusolverStatus_t geqrf_work(cusolverDnHandle_t h, int m, int n, T *a, int lda, int *lwork) {          \
    return cusolverDn##P##geqrf_bufferSize(h, m, n, blas::cu(a), lda, lwork);                                  \
  }                                                                                                           \
  inline cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, T *a, int lda, T *tau, T *w, int lwork,     \
                                int *info) {                                                                  \
    return cusolverDn##P##geqrf(h, m, n, blas::cu(a), lda, blas::cu(tau), blas::cu(w), lwork, info);          \
  }
HQR_CUSOLVER_Q(float, S, ormqr, orgqr)
HQR_CUSOLVER_Q(double, D, ormqr, orgqr)
HQR_CUSOLVER_Q(std::complex<float>, C, unmqr, ungqr)
HQR_CUSOLVER_Q(std::complex<double>, Z, unmqr, ungqr)
#undef HQR_CUSOLVER_Q
HQR_CUSOLVER_GEQRF(float, S)
HQR_CUSOLVER_GEQRF(double, D)
HQR_CUSOLVER_GEQRF(std::complex<float>, C)
HQR_CUSOLVER_GEQRF(std::complex<double>, Z)
#undef HQR_CUSOLVER_GEQRF

}  // namespace hqr::gpu
