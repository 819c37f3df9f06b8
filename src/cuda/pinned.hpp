// Whether a caller's array lies in host memory that the CUDA driver has
// pinned (cudaMallocHost, cudaHostAlloc, cudaHostRegister: PyTorch's and
// CuPy's pinned tensors, MPI buffers registered with the driver), so that
// the GPU paths move it by DMA straight from and to the caller instead of
// through hqr's pinned staging (one_trip.cuh, the hybrids' uploads).
//
// Asked of the driver per call (cuPointerGetAttributes, through the
// runtime's entry-point query, so libhqr links no libcuda): two lookups per
// array, its first and its last byte, each well under the microseconds a
// GPU call spends anyway. Deliberately not cached across calls: a cache
// keyed on the address goes stale without a sign when the caller frees a
// pinned buffer (cudaFreeHost, cudaHostUnregister) and gets the same
// address back from malloc; validating an entry (the allocation's buffer
// id) costs the same driver lookup the cache would save, and a stale
// "pinned" would have a kernel write through a dead mapping.
//
// Not pinned here, so staged as before: pageable memory; cudaMallocManaged
// memory (its pages migrate; a DMA or a kernel store may fault them in one
// by one); device memory passed as a host array (not LAPACK's contract);
// an array whose first and last bytes lie in different allocations.
#pragma once

#include <cstddef>

namespace hqr::gpu {

struct PinnedRange {
  bool pinned = false;     // DMA may read [p, p+bytes) directly
  bool writable = false;   // ... and write it: not registered read-only (cudaHostRegisterReadOnly)
  void *device = nullptr;  // p as kernels on the current device address it, the range mapped
                           // contiguously behind it; nullptr: kernels cannot reach it
};

// [p, p+bytes) as the current device sees it (the caller has made the
// serving device current).
PinnedRange pinned_range(const void *p, std::size_t bytes);

// The note HQR_VERBOSE prints on a GPU path that used it ("path=... (pinned caller)").
// (One object in every translation unit: results compare it by address.)
inline constexpr char kPinnedCaller[] = "pinned caller";

}  // namespace hqr::gpu
