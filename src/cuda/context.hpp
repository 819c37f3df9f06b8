// The per-device state every GPU path shares: created on the first GPU call,
// reused by every later one, never torn down while the process runs (the
// driver reclaims it at exit). Holding `Context::lock` gives a call the
// device's streams and buffers to itself.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "host/copy_pool.hpp"

namespace hqr::gpu {

// Errors are values inside hqr: a failing CUDA call turns into `false` and
// the caller falls back to the CPU.
inline bool ok(cudaError_t e) { return e == cudaSuccess; }
inline bool ok(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS; }
inline bool ok(cusolverStatus_t s) { return s == CUSOLVER_STATUS_SUCCESS; }

// Device memory that only grows: a call asks for what it needs and the
// buffer is reused by every later call of that size or smaller.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { release(); }
  bool reserve(std::size_t bytes);
  void release();
  void *get() const { return ptr_; }
  std::size_t size() const { return bytes_; }

 private:
  void *ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Page-locked host memory, likewise grow-only.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer &) = delete;
  PinnedBuffer &operator=(const PinnedBuffer &) = delete;
  ~PinnedBuffer() { release(); }
  bool reserve(std::size_t bytes);
  void release();
  void *get() const { return ptr_; }
  // The buffer as kernels address it (mapped pinned memory), asked of the
  // driver once when it is allocated; nullptr where kernels cannot reach it.
  void *device() const { return device_; }
  std::size_t size() const { return bytes_; }

 private:
  void *ptr_ = nullptr, *device_ = nullptr;
  std::size_t bytes_ = 0;
};

// A staging slot: a piece of pinned memory and the event that says when the
// DMA that last used it has finished.
struct StagingSlot {
  void *host = nullptr;
  cudaEvent_t dma_done = nullptr;
};

struct Context {
  int device = -1;
  char name[256] = "";
  std::size_t total_memory = 0;
  std::size_t block_shared_memory = 0;  // a block's opt-in limit (the small geqrf's panels)

  cublasHandle_t blas = nullptr;             // on compute_stream
  cusolverDnHandle_t solver = nullptr;        // on compute_stream
  cusolverDnHandle_t panel_solver = nullptr;  // on panel_stream
  // On upload_stream / download_stream: transposes of staged data, so that
  // the threads that move data never share a handle with the compute one.
  cublasHandle_t upload_blas = nullptr, download_blas = nullptr;
  // A high-priority stream, with its own cuSOLVER and cuBLAS handles, for
  // the critical path of the hybrid geqrf (its panels): their kernels get
  // the SMs first as the compute stream's gemm blocks retire. Created by the
  // first call that needs it.
  cudaStream_t urgent_stream = nullptr;
  cusolverDnHandle_t urgent_solver = nullptr;
  cublasHandle_t urgent_blas = nullptr;
  cudaStream_t compute_stream = nullptr;  // updates, trsm, syrk
  cudaStream_t panel_stream = nullptr;    // diagonal blocks to and from the CPU
  cudaStream_t upload_stream = nullptr;   // caller's matrix in
  cudaStream_t download_stream = nullptr; // results out
  // The small geqrf's lanes (panel_qr.cuh): [0] and [1] its gemms done, by
  // the parity of the panel; [2] a panel done.
  cudaEvent_t small_qr_events[3] = {};
  // Small trips' device work as CUDA graphs (one_trip.cuh), oldest first:
  // the key's uses so far, and its graph once captured (none where the
  // capture failed: that key runs launch by launch).
  using GraphKey = std::array<std::uintptr_t, 7>;
  struct Graph {
    GraphKey key;
    int uses;
    cudaGraphExec_t exec;
  };
  std::vector<Graph> graphs;

  DeviceBuffer matrix;     // the operand (one copy)
  DeviceBuffer workspace;  // O(n*nb) scratch
  DeviceBuffer inner_workspace;  // a geqrf inside another routine's work on the device (geqrf_device)
  PinnedBuffer panel;      // the diagonal block the CPU factors
  PinnedBuffer reflectors; // the QR updates' reflectors, for the CPU to finish Q's rows if the GPU fails

  // Bounded pinned staging between the caller's pageable memory and the GPU.
  static constexpr int kSlots = 6;
  static constexpr std::size_t kSlotBytes = std::size_t(16) << 20;
  PinnedBuffer staging_memory;
  StagingSlot upload_slots[kSlots], download_slots[kSlots];
  // Device twins of the staging slots, for data that is transposed on its
  // way in or out (the QR apply's operands, qr_apply.cu); allocated on
  // first use.
  DeviceBuffer device_staging;

  // Host threads that move pageable <-> pinned, each way (one thread copies
  // ~10 GB/s; sixteen reach the link's rate on the H200 host, eight not
  // quite: bench/bench_copy.cpp, bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-22.txt).
  // One per core up to 16; HQR_COPY_THREADS is
  // a tuning knob for measurement.
  static int copy_threads() {
    const char *v = std::getenv("HQR_COPY_THREADS");
    const int n = v ? std::atoi(v) : 0;
    if (n > 0 && n <= 64) return n;
    const int cores = int(std::thread::hardware_concurrency());
    return std::max(1, std::min(16, cores));
  }
  CopyPool upload_copies{copy_threads()}, download_copies{copy_threads()};

  std::mutex lock;
};

// The GPUs that serve calls (HQR_DEVICE less those missing or whose context
// failed), in ordinal order, each with its context; peer access is enabled
// between every two members that have it (NVLink). Empty when no GPU
// serves calls (none present, HQR_DEVICE=none, driver missing, or this
// process is the child of a fork after CUDA was used).
constexpr int kMaxDevices = 64;
struct DeviceSet {
  int count = 0;
  Context *member[kMaxDevices] = {};
};
DeviceSet device_set();
// The set's first member, the device of the paths that use one GPU; nullptr
// when the set is empty.
Context *context();
// Why the set is empty, or why a member is missing.
const char *context_error();

// Holds every member's lock, taken in ordinal order so that two calls over
// overlapping sets cannot deadlock.
class SetLock {
 public:
  explicit SetLock(const DeviceSet &set) : set_(set) {
    for (int i = 0; i < set_.count; ++i) set_.member[i]->lock.lock();
  }
  ~SetLock() {
    for (int i = set_.count; i-- > 0;) set_.member[i]->lock.unlock();
  }
  SetLock(const SetLock &) = delete;
  SetLock &operator=(const SetLock &) = delete;

 private:
  const DeviceSet &set_;
};

}  // namespace hqr::gpu
