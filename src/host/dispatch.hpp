// Where a call runs. One function decides, for every routine, from the
// problem size, the settings (HQR_DEVICE, HQR_GPU_MIN_N) and the GPU's state.
#pragma once

namespace hqr {

enum class Path { cpu, gpu };

struct Decision {
  Path path;
  const char *why;  // why the CPU was chosen; nullptr when the GPU was
};

// `n` is the routine's characteristic size (the order for potrf, max(m, n)
// for geqrf, ...).
Decision choose_path(long n);

}  // namespace hqr
