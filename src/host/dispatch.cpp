#include "dispatch.hpp"

#include "config.hpp"

namespace hqr {

// Until the GPU paths exist (issues 3-6) every call runs on the CPU.
Decision choose_path(long) { return {Path::cpu, "no GPU path in this build"}; }

}  // namespace hqr
