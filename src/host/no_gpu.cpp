// The GPU side of a build without CUDA (HQR_CUDA=0): no device ever serves.
#include "common.hpp"

namespace hqr {
int serving_device() { return -1; }
const char *serving_device_name() { return "none"; }
}  // namespace hqr
