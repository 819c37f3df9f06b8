// The schedules that run over a device set (context.hpp's DeviceSet): every
// GPU that serves calls, in core or out of core (see each file's header).
#pragma once

#include "cuda/context.hpp"
#include "cuda/gpu.hpp"

namespace hqr::gpu {

// xPOTRF over `set` (potrf_node.cu); the Result as gpu::potrf's.
template <class T> Result potrf_node(const DeviceSet &set, bool upper, lint n, T *a, lint lda);

}  // namespace hqr::gpu
