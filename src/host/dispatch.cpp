#include "dispatch.hpp"

#include "config.hpp"
#include "cuda/gpu.hpp"

namespace hqr {
namespace {

// Smallest order at which the hybrid path beats the CPU LAPACK, per routine:
// on the H200 host (16 cores, bench/results/potrf-NVIDIA-H200-2026-11-22.txt)
// OpenBLAS wins at 4096 and the hybrid at 8192. Not yet calibrated per
// machine; HQR_GPU_MIN_N overrides it.
long crossover(Routine r) {
  switch (r) {
    case Routine::potrf:
      return 6000;
    case Routine::trtri:  // provisional, not yet measured
    case Routine::lauum:
    case Routine::potri:
      return 4096;
  }
  return 1L << 40;
}

}  // namespace

Decision choose_path(Routine r, long n) {
  const long forced = config::gpu_min_n();
  const long min_n = forced >= 0 ? forced : crossover(r);
  if (n < min_n) return {Path::cpu, "below the GPU crossover"};
  if (!gpu::available()) return {Path::cpu, "no GPU"};
  return {Path::gpu, nullptr};
}

}  // namespace hqr
