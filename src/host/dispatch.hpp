// Where a call runs. One function decides, for every routine, from the
// problem size, the settings (HQR_DEVICE, HQR_GPU_MIN_N) and the GPU's state.
#pragma once

namespace hqr {

enum class Path { cpu, gpu };
enum class Routine { potrf, trtri, lauum, potri };

struct Decision {
  Path path;
  const char *why;  // why the CPU was chosen; nullptr when the GPU was
};

// `n` is the routine's characteristic size (the order for potrf).
Decision choose_path(Routine r, long n);
// Routines that have no GPU path yet.
inline Decision choose_path(long) { return {Path::cpu, "no GPU path for this routine yet"}; }

}  // namespace hqr
