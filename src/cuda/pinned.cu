#include "cuda/pinned.hpp"

#include "cuda/gpu.hpp"

#include <cuda.h>  // the driver API's types only: its functions come through cudaGetDriverEntryPointByVersion
#include <cuda_runtime.h>

#include <cstdint>

namespace hqr::gpu {
namespace {

using PointerAttributes = CUresult (*)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);

// cuPointerGetAttributes, looked up once; nullptr where the driver has none
// (then nothing counts as pinned and every path stages, as before).
PointerAttributes pointer_attributes() {
  static const PointerAttributes f = [] {
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return PointerAttributes(nullptr);
    }
    return reinterpret_cast<PointerAttributes>(fn);
  }();
  return f;
}

// What the driver says of one address. Each attribute lands in a zeroed
// 64-bit slot (the driver writes 1, 4 or 8 bytes, little-endian); an
// address the driver does not know (pageable memory) reads all zeros.
struct Lookup {
  bool known = false;
  std::uint64_t type = 0, device = 0, buffer = 0, access = 0, managed = 0;
};
Lookup lookup(const void *p) {
  Lookup r;
  const PointerAttributes f = pointer_attributes();
  if (!f) return r;
  CUpointer_attribute what[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_BUFFER_ID,
                                CU_POINTER_ATTRIBUTE_ACCESS_FLAGS};
  void *into[] = {&r.type, &r.device, &r.managed, &r.buffer, &r.access};
  const CUdeviceptr at = CUdeviceptr(reinterpret_cast<std::uintptr_t>(p));
  // A driver that refuses the newer attributes (the buffer id, the access
  // flags) still answers the first three.
  r.known = f(5, what, into, at) == CUDA_SUCCESS;
  if (!r.known) {
    r = Lookup{};
    r.known = f(3, what, into, at) == CUDA_SUCCESS;
  }
  return r;
}

bool pinned_host(const Lookup &l) { return l.known && l.type == CU_MEMORYTYPE_HOST && l.managed == 0; }

}  // namespace

PinnedRange pinned_range(const void *p, std::size_t bytes) {
  PinnedRange r;
  if (!p || bytes == 0) return r;
  const Lookup first = lookup(p), last = lookup(static_cast<const char *>(p) + (bytes - 1));
  // One allocation (its buffer id; both 0 where the driver gives none) of
  // pinned host memory holds the whole range: a registration is one
  // contiguous range of pages, so its first and last bytes vouch for all.
  if (!pinned_host(first) || !pinned_host(last) || first.buffer != last.buffer) return r;
  r.pinned = true;
  // Only an explicit read-only registration says READ; a driver that does
  // not report access flags for host memory leaves them 0.
  r.writable = first.access != CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ && last.access != CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ;
  if (first.device != 0 && last.device - first.device == bytes - 1)
    r.device = reinterpret_cast<void *>(std::uintptr_t(first.device));
  return r;
}

bool caller_pinned(const void *p, std::size_t bytes) { return pinned_range(p, bytes).pinned; }

}  // namespace hqr::gpu
