// Where a call runs. One function decides, for every routine, from the
// problem size, the settings (HQR_DEVICE, HQR_GPU_MIN_N), the GPU's state and
// the crossover measured on this machine.
#pragma once

namespace hqr {

enum class Path { cpu, gpu };
enum class Routine { potrf, trtri, lauum, potri, geqrf };

struct Decision {
  Path path;
  const char *why;  // why the CPU was chosen; nullptr when the GPU was
};

// Times one call of a routine of order n on `path`, on fresh random data
// (seconds). Routines hand one to choose_path so that the crossover can be
// measured where it is not yet known.
using Probe = double (*)(Path path, long n);

// `n` is the routine's characteristic size (the order for potrf); `prec` is
// 's', 'd', 'c' or 'z'. Below the smallest order worth a GPU the CPU runs
// without further ado; above it, the first call on a machine measures the
// crossover with `probe` (about a second, once) and caches it in
// $XDG_CACHE_HOME/hqr/ (default ~/.cache/hqr/). HQR_GPU_MIN_N overrides it.
Decision choose_path(Routine r, char prec, long n, Probe probe);
// Level-3 BLAS (host/blas3.cpp): no probe per call; a cost model from the
// call's LAPACK flop count, the bytes that must cross the host link (A and
// B once, C in when beta != 0 and out) and the smallest dimension (skinny
// calls stay on the CPU). HQR_GPU_MIN_N forces the GPU from that smallest
// dimension on.
Decision choose_blas3_path(char prec, double flops, double bytes, long min_dim);
// Routines that have no GPU path yet.
inline Decision choose_path(long) { return {Path::cpu, "no GPU path for this routine yet"}; }

}  // namespace hqr
