// Test-only fault injection for the GPU paths: HQR_FAULT=alloc|copy|kernel|sync[:n]
// makes the n-th (default first) and every later pass through a point of that
// kind fail as if CUDA had reported an error, so tests can check that every
// routine still returns LAPACK's answer through the CPU with the caller's
// array intact. Unset, `hit` is one relaxed load.
#pragma once

namespace hqr::fault {

enum class Point { alloc, copy, kernel, sync };

// True when the step at `p` must pretend to fail.
bool hit(Point p);

}  // namespace hqr::fault
