// The GPU side of a build without CUDA (HQR_CUDA=0): no device ever serves.
#include "cuda/gpu.hpp"

namespace hqr {
int serving_device() { return -1; }
const char *serving_device_name() { return "none"; }

namespace gpu {
bool available() { return false; }
template <class T> Result potrf(bool, lint, T *, lint) { return {false, 0, "built without CUDA", 0}; }
template Result potrf(bool, lint, float *, lint);
template Result potrf(bool, lint, double *, lint);
template Result potrf(bool, lint, std::complex<float> *, lint);
template Result potrf(bool, lint, std::complex<double> *, lint);
}  // namespace gpu
}  // namespace hqr
