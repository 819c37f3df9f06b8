// cuSOLVER's Cholesky factorization of a block on the device, as the
// Cholesky schedules use it (potrf_hybrid.cu, potrf_node.cu): the diagonal
// blocks of the hybrid and the one trip, with LAPACK's INFO for a NaN pivot.
#pragma once

#include <cusolverDn.h>

#include <vector>

#include "cuda/blas.cuh"
#include "cuda/context.hpp"
#include "cuda/qr_kernels.cuh"
#include "host/common.hpp"

namespace hqr::gpu {
namespace {

// cuSOLVER's potrf on the device, for the diagonal blocks and the one
// trip. Always its lower one: an upper triangle is mirrored into the lower one and back (mirror_triangle), as cuSOLVER's
// upper potrf takes about twice as long at these orders (dpotrf U 8192
// with nb = 768 on the H200: the wait for the diagonal blocks 7 ms against
// 3; bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-26.txt, items 2-3).
class DevicePotrf {
 public:
  DevicePotrf() = default;
  DevicePotrf(const DevicePotrf &) = delete;
  DevicePotrf &operator=(const DevicePotrf &) = delete;
  ~DevicePotrf() {
    if (params_) cusolverDnDestroyParams(params_);
  }
  // Workspace sizes for blocks of order nb.
  template <class T> bool init(cusolverDnHandle_t h, lint nb, T *a, lint lda) {
    if (!ok(cusolverDnCreateParams(&params_))) return false;
    const cudaDataType t = blas::data_type<T>();
    if (!ok(cusolverDnXpotrf_bufferSize(h, params_, CUBLAS_FILL_MODE_LOWER, nb, t, a, lda, t, &device_bytes,
                                        &host_bytes)))
      return false;
    host_.resize(host_bytes);
    return true;
  }
  // On h's stream; a failed mirror reports as a failed execution.
  template <class T>
  cusolverStatus_t run(cusolverDnHandle_t h, bool upper, lint n, T *a, lint lda, void *work, int *info) {
    cudaStream_t s = nullptr;
    auto mirror = [&](bool to_upper) {
      mirror_triangle<<<grid_for(int64_t(n) * n), 256, 0, s>>>(int(n), dv(a), int(lda), to_upper);
      return ok(cudaGetLastError());
    };
    if (!ok(cusolverDnGetStream(h, &s)) || (upper && !mirror(false))) return CUSOLVER_STATUS_EXECUTION_FAILED;
    const cudaDataType t = blas::data_type<T>();
    const cusolverStatus_t status =
        cusolverDnXpotrf(h, params_, CUBLAS_FILL_MODE_LOWER, n, t, a, lda, t, work, device_bytes,
                         host_.empty() ? nullptr : host_.data(), host_bytes, info);
    return ok(status) && upper && !mirror(true) ? CUSOLVER_STATUS_EXECUTION_FAILED : status;
  }
  std::size_t device_bytes = 0, host_bytes = 0;

 private:
  cusolverDnParams_t params_ = nullptr;
  std::vector<char> host_;
};

// cuSOLVER's info stops at a pivot <= 0, not at a NaN one; LAPACK's stops
// at both: a NaN on L's diagonal sets *info too.
template <class S> __global__ void flag_nan_pivot(int64_t n, const S *a, int64_t lda, int *info) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    if (nan_real(a[i + i * lda])) *info = int(i + 1);
}

// xPOLOGDET's sum on the device: *out = sum_i log(real(a(i,i))) over a
// factored block of order n, in double whatever S is, so that nothing over-
// or underflows (each term lies within about +-745). One block of threads;
// launched on the stream that factored the block, right behind it, so the
// host never reads the diagonal again.
__device__ inline double real_of(float x) { return x; }
__device__ inline double real_of(double x) { return x; }
__device__ inline double real_of(cuFloatComplex x) { return x.x; }
__device__ inline double real_of(cuDoubleComplex x) { return x.x; }
constexpr int kLogThreads = 256;
template <class S> __global__ void log_diagonal_sum(int64_t n, const S *a, int64_t lda, double *out) {
  __shared__ double part[kLogThreads];
  double s = 0;
  for (int64_t i = threadIdx.x; i < n; i += kLogThreads) s += log(real_of(a[i + i * lda]));
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = kLogThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = part[0];
}
template <class T> cudaError_t launch_log_diagonal_sum(cudaStream_t s, lint n, const T *a, lint lda, double *out) {
  log_diagonal_sum<<<1, kLogThreads, 0, s>>>(n, dv(a), lda, out);
  return cudaGetLastError();
}

}  // namespace
}  // namespace hqr::gpu
