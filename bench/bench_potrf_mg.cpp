// Benchmark (a program, not a test): the multi-GPU peer for xPOTRF,
// cuSOLVERMg's dpotrf on data already on the GPUs (1D block-cyclic block
// columns over GPUs 0..g-1, as cuSOLVERMg wants them), the time of the
// factorization alone: no transfers, which hqr's host-to-host times include.
// Issue 36 quotes it as the anchor for hqr over the device set.
//   bench_potrf_mg [n,...] [reps] [gpu counts, e.g. 1,2,4] [block columns]
// One row per (n, GPU count): median seconds of `reps` runs after a warm-up,
// GFLOP/s with LAPACK's count (n^3/3), and INFO.
#include <cuda_runtime.h>
#include <cusolverMg.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "spd_matrix.hpp"
#include "timing.hpp"

namespace {

std::vector<int> list(const char *s) {
  std::vector<int> v;
  std::string text(s);
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    v.push_back(std::atoi(text.substr(at, end - at).c_str()));
    at = end + 1;
  }
  return v;
}

// One dpotrf 'L' of order n over GPUs 0..g-1 with block columns of nb.
void run(int n, int g, int nb, int reps) {
  std::vector<double> a(std::size_t(n) * n);
  make_spd(a, n);
  std::vector<int> ids(g);
  for (int d = 0; d < g; ++d) ids[d] = d;
  for (int d = 0; d < g; ++d) {  // cuSOLVERMg reads the others' blocks GPU to GPU
    CK(cudaSetDevice(d));
    for (int e = 0; e < g; ++e) {
      int can = 0;
      if (e != d && cudaDeviceCanAccessPeer(&can, d, e) == cudaSuccess && can) {
        const cudaError_t r = cudaDeviceEnablePeerAccess(e, 0);
        if (r != cudaSuccess && r != cudaErrorPeerAccessAlreadyEnabled) CK(r);
        (void)cudaGetLastError();
      }
    }
  }
  cusolverMgHandle_t h;
  cudaLibMgGrid_t grid;
  cudaLibMgMatrixDesc_t desc;
  CK(cusolverMgCreate(&h));
  CK(cusolverMgDeviceSelect(h, g, ids.data()));
  CK(cusolverMgCreateDeviceGrid(&grid, 1, g, ids.data(), CUDALIBMG_GRID_MAPPING_COL_MAJOR));
  CK(cusolverMgCreateMatrixDesc(&desc, n, n, n, nb, CUDA_R_64F, grid));
  // Block column b (columns b*nb..) lives on GPU b % g as its local block b / g.
  const int blocks = (n + nb - 1) / nb;
  std::vector<void *> dA(g), dW(g);
  for (int d = 0; d < g; ++d) {
    const int local = (blocks - d + g - 1) / g;
    CK(cudaSetDevice(d));
    CK(cudaMalloc(&dA[d], sizeof(double) * std::size_t(n) * std::max(1, local * nb)));
  }
  auto upload = [&] {
    for (int b = 0; b < blocks; ++b) {
      const int d = b % g, cols = std::min(nb, n - b * nb);
      CK(cudaSetDevice(d));
      CK(cudaMemcpy(static_cast<double *>(dA[d]) + std::size_t(b / g) * nb * n, a.data() + std::size_t(b) * nb * n,
                    sizeof(double) * std::size_t(n) * cols, cudaMemcpyHostToDevice));
    }
  };
  int64_t lwork = 0;
  CK(cusolverMgPotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, dA.data(), 1, 1, desc, CUDA_R_64F, &lwork));
  for (int d = 0; d < g; ++d) {
    CK(cudaSetDevice(d));
    CK(cudaMalloc(&dW[d], sizeof(double) * std::max<int64_t>(lwork, 1)));
  }
  auto sync = [&] {
    for (int d = 0; d < g; ++d) {
      CK(cudaSetDevice(d));
      CK(cudaDeviceSynchronize());
    }
  };
  std::vector<double> t;
  int info = 0;
  for (int r = 0; r <= reps; ++r) {
    upload();
    sync();
    const double s = seconds([&] {
      CK(cusolverMgPotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA.data(), 1, 1, desc, CUDA_R_64F, dW.data(), lwork, &info));
      sync();
    });
    if (r > 0) t.push_back(s);
  }
  const double m = median(t);
  std::printf("dpotrf L %6d | cusolverMg device-only, %d GPU%s, block %d | %8.4f s %7.0f GF/s | info %d\n", n, g,
              g > 1 ? "s" : "", nb, m, double(n) * n * n / 3 / m * 1e-9, info);
  std::fflush(stdout);
  for (int d = 0; d < g; ++d) {
    CK(cudaSetDevice(d));
    CK(cudaFree(dA[d]));
    CK(cudaFree(dW[d]));
  }
  CK(cusolverMgDestroyMatrixDesc(desc));
  CK(cusolverMgDestroyGrid(grid));
  CK(cusolverMgDestroy(h));
}

}  // namespace

int main(int argc, char **argv) {
  const std::vector<int> sizes = list(argc > 1 ? argv[1] : "32768,49152");
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::vector<int> gpus = list(argc > 3 ? argv[3] : "1,2,4");
  const int nb = argc > 4 ? std::atoi(argv[4]) : 256;
  int have = 0;
  CK(cudaGetDeviceCount(&have));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# device: %s, %d GPUs visible\n", p.name, have);
  for (int n : sizes)
    for (int g : gpus)
      if (g >= 1 && g <= have) run(n, g, nb, reps);
  return 0;
}
