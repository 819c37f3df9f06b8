// Where a call runs. One function decides, for every routine, from the
// problem size, the settings (HQR_DEVICE, HQR_GPU_MIN_N), the GPU's state and
// the crossover of this GPU and host (crossover.hpp).
#pragma once

#include <cstddef>

namespace hqr {

enum class Path { cpu, gpu };
enum class Routine { potrf, trtri, lauum, potri, geqrf };

struct Decision {
  Path path;
  const char *why;  // why the CPU was chosen; nullptr when the GPU was
};

// Times one call of a routine of order n on `path`, on fresh random data
// (seconds). Routines hand one to choose_path so that the crossover can be
// measured where HQR_CALIBRATE=1 asks for it; hqr_calibrate() measures
// with the same probes.
using Probe = double (*)(Path path, long n);

// `n` is the routine's characteristic size (the order for potrf); `prec` is
// 's', 'd', 'c' or 'z'. Below the smallest order worth a GPU the CPU runs
// without further ado. Above it, the GPU serves from the crossover on: the
// cached measurement (hqr-calibrate), else the default shipped for the GPU
// model, else a generic one; nothing is measured inside the call unless
// HQR_CALIBRATE=1. HQR_GPU_MIN_N overrides all of it. While the GPU's
// context is not ready, a call that is short on the CPU runs there instead
// of waiting for it (gpu_gate). `a`, `bytes`: the call's main array, where
// it lies in pinned memory (the GPU path skips the staging copies) the
// crossover is lower (kPinnedCrossover, dispatch.cpp).
Decision choose_path(Routine r, char prec, long n, Probe probe, const void *a = nullptr, std::size_t bytes = 0);
// The bytes an m-by-n array with leading dimension ld spans.
template <class T> std::size_t span_bytes(long m, long n, long ld) {
  return m > 0 && n > 0 ? (std::size_t(n - 1) * std::size_t(ld) + std::size_t(m)) * sizeof(T) : 0;
}
// Level-3 BLAS (host/blas3.cpp): no probe per call; a cost model from the
// call's LAPACK flop count, the bytes that must cross the host link (A and
// B once, C in when beta != 0 and out) and its shape: `outer`, the smaller
// of the result's dimensions, and `inner`, the one the product sums over
// (gemm: min(m, n) and k; syrk/syr2k: n and k; symm, trmm, trsm: min(m, n)
// and A's order). The host BLAS slows down on either when it is small, in
// different measure. Calls whose smallest dimension is below 64 stay on the
// CPU; HQR_GPU_MIN_N forces the GPU from that smallest dimension on.
struct Dims {
  long outer, inner;
};
Decision choose_blas3_path(char prec, double flops, double bytes, Dims dims);
// While a call runs on the CPU because its data hold a NaN or an Inf, the
// next LAPACK's calls back into hqr from inside it (its xGELS calling
// xGEQRF on the zeros and NaN that xLASCL makes of an Inf) run on the CPU
// too, so that the answer and INFO are the plain LAPACK's: the GPU's
// arithmetic on such data differs (dgels with an Inf in A gave INFO 0
// against LAPACK's 1 on the H200). choose_path and choose_blas3_path
// answer "cpu" on this thread while one is alive with `on`.
class CpuOnly {
 public:
  explicit CpuOnly(bool on);
  ~CpuOnly();
  CpuOnly(const CpuOnly &) = delete;
  CpuOnly &operator=(const CpuOnly &) = delete;

 private:
  bool saved_;
};
// Routines that have no GPU path yet (xPOSV, xPOTRS).
inline Decision choose_path(long) { return {Path::cpu, "no GPU path for this routine yet"}; }
// A step with no crossover of its own (xGELSD's bidiagonal form): the GPU
// from order `min_n` on, a fixed order measured where the step's code says;
// HQR_GPU_MIN_N, CpuOnly and the GPU's start (gpu_gate, from `cpu_s`, the
// step's estimated CPU time) as for choose_path.
Decision choose_fixed_path(long n, long min_n, double cpu_s);

// A call the model sends to the GPU, which would take about `cpu_seconds`
// on the CPU: whether the GPU takes it now. With the GPU's contexts ready,
// yes; not yet created or still starting, the call runs on the CPU unless
// waiting for them is estimated to cost less than that (and the start
// begins once the CPU has spent about what it costs: HQR_GPU_START).
// HQR_GPU_MIN_N (or hqr_set_gpu_min_n) set: the call always waits.
struct GpuGate {
  bool open;
  const char *why;  // why the CPU runs when !open
};
GpuGate gpu_gate(double cpu_seconds);
// The estimated time of `flops` real flops of precision `prec` on the host's
// cores with the CPU LAPACK (kCoreRate per core).
double cpu_seconds(double flops, char prec);

// Measures the crossover of (r, prec) with `probe` now, caches it for this
// GPU and host and returns it; -1 when no GPU serves calls.
long measure_crossover(Routine r, char prec, Probe probe);
// Whether the last measure_crossover() calls could write the cache file.
bool crossover_cache_written();

}  // namespace hqr
