#include "cuda/context.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "cuda/cuda_libs.hpp"
#include "cuda/gpu.hpp"
#include "host/config.hpp"

namespace hqr::gpu {

bool DeviceBuffer::reserve(std::size_t bytes) {
  if (bytes <= bytes_) return true;
  release();
  if (!ok(cudaMalloc(&ptr_, bytes))) {
    ptr_ = nullptr;
    (void)cudaGetLastError();  // an allocation failure is not sticky
    return false;
  }
  bytes_ = bytes;
  return true;
}

void DeviceBuffer::release() {
  if (ptr_) cudaFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
}

bool PinnedBuffer::reserve(std::size_t bytes) {
  if (bytes <= bytes_) return true;
  release();
  if (!ok(cudaMallocHost(&ptr_, bytes))) {
    ptr_ = nullptr;
    (void)cudaGetLastError();
    return false;
  }
  bytes_ = bytes;
  if (!ok(cudaHostGetDevicePointer(&device_, ptr_, 0))) {
    device_ = nullptr;
    (void)cudaGetLastError();
  }
  return true;
}

void PinnedBuffer::release() {
  if (ptr_) cudaFreeHost(ptr_);
  ptr_ = device_ = nullptr;
  bytes_ = 0;
}

namespace {

// CUDA state does not survive fork(): a child must stay on the CPU.
std::atomic<bool> forked_child{false};
void mark_child() { forked_child.store(true); }

// Why the context could not be created, for HQR_VERBOSE.
char creation_error[160] = "";

bool fail(const char *step, cudaError_t e = cudaGetLastError()) {
  std::snprintf(creation_error, sizeof creation_error, "GPU context: %s failed (%s)", step, cudaGetErrorString(e));
  return false;
}

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A context costs a few tenths of a second, most of it the CUDA context
// itself and the pinned staging (H200: context 0.11-0.15 s, handles
// 0.003-0.03, 192 MiB pinned 0.07-0.13;
// bench/results/history/first-call-NVIDIA-H200-2026-11-28.txt).
bool create(Context &c, int device) {
  const Clock::time_point start = Clock::now();
  c.device = device;
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaSetDevice(device); !ok(e)) return fail("cudaSetDevice", e);
  if (cudaError_t e = cudaFree(nullptr); !ok(e)) return fail("creating the CUDA context", e);
  const double context_s = seconds_since(start);
  if (cudaError_t e = cudaGetDeviceProperties(&prop, device); !ok(e)) return fail("cudaGetDeviceProperties", e);
  std::snprintf(c.name, sizeof c.name, "%s", prop.name);
  c.total_memory = prop.totalGlobalMem;
  c.block_shared_memory = prop.sharedMemPerBlockOptin;
  if (const char *why = load_cuda_libraries()) {  // bound with the first context
    std::snprintf(creation_error, sizeof creation_error, "GPU context: %s", why);
    return false;
  }
  if (!ok(cublasCreate(&c.blas))) return fail("cublasCreate");
  if (!ok(cusolverDnCreate(&c.solver)) || !ok(cusolverDnCreate(&c.panel_solver))) return fail("cusolverDnCreate");
  if (!ok(cublasCreate(&c.upload_blas)) || !ok(cublasCreate(&c.download_blas))) return fail("cublasCreate");
  for (cudaStream_t *s : {&c.compute_stream, &c.panel_stream, &c.upload_stream, &c.download_stream})
    if (!ok(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking))) return fail("cudaStreamCreate");
  if (!ok(cublasSetStream(c.blas, c.compute_stream)) || !ok(cusolverDnSetStream(c.solver, c.compute_stream)) ||
      !ok(cusolverDnSetStream(c.panel_solver, c.panel_stream)) || !ok(cublasSetStream(c.upload_blas, c.upload_stream)) ||
      !ok(cublasSetStream(c.download_blas, c.download_stream)))
    return fail("setting the library streams");
  for (cudaEvent_t &e : c.small_qr_events)
    if (!ok(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return fail("cudaEventCreate");
  const double handles_s = seconds_since(start) - context_s;
  if (!c.staging_memory.reserve(2 * Context::kSlots * Context::kSlotBytes)) return fail("pinned staging");
  char *p = static_cast<char *>(c.staging_memory.get());
  for (int i = 0; i < Context::kSlots; ++i) {
    c.upload_slots[i].host = p + i * Context::kSlotBytes;
    c.download_slots[i].host = p + (Context::kSlots + i) * Context::kSlotBytes;
    if (!ok(cudaEventCreateWithFlags(&c.upload_slots[i].dma_done, cudaEventDisableTiming)) ||
        !ok(cudaEventCreateWithFlags(&c.download_slots[i].dma_done, cudaEventDisableTiming)))
      return fail("cudaEventCreate");
  }
  if (config::verbose()) {
    const double total = seconds_since(start);
    std::fprintf(stderr,
                 "hqr: GPU %d (%s) context created in %.3f s (CUDA context %.3f, handles and streams %.3f, pinned "
                 "staging %.3f)\n",
                 device, c.name, total, context_s, handles_s, total - context_s - handles_s);
  }
  return true;
}

// Visible GPUs, counted once (CUDA's count does not change while a process runs).
int visible_devices() {
  static const int count = [] {
    int n = 0;
    const Clock::time_point start = Clock::now();
    if (cudaError_t e = cudaGetDeviceCount(&n); !ok(e)) {
      fail("cudaGetDeviceCount", e);
      n = 0;
    }
    (void)cudaGetLastError();
    if (config::verbose())
      std::fprintf(stderr, "hqr: the CUDA driver found %d GPU(s) in %.3f s\n", n, seconds_since(start));
    return std::min(n, kMaxDevices);
  }();
  return count;
}

// One context per device (per replica of it: HQR_DEVICE_REPLICAS), created
// once; a failed creation is not retried.
constexpr int kMaxReplicas = 8;
Context *device_context(int device, int replica) {
  static Context *contexts[kMaxDevices][kMaxReplicas] = {};
  static bool failed[kMaxDevices][kMaxReplicas] = {};
  static std::mutex create_lock;
  std::lock_guard<std::mutex> g(create_lock);
  Context *&slot = contexts[device][replica];
  if (!slot && !failed[device][replica]) {
    auto *c = new Context;
    if (create(*c, device)) {
      slot = c;
    } else {
      failed[device][replica] = true;
      (void)cudaGetLastError();
      // Leaked on purpose: half-created CUDA objects are not worth the risk
      // of tearing down.
    }
  }
  return slot;
}

// Peer access between every two members of a set, asked once per pair.
void enable_peers(const DeviceSet &set) {
  static std::mutex lock;
  static std::uint64_t asked[kMaxDevices] = {};
  std::lock_guard<std::mutex> g(lock);
  for (int i = 0; i < set.count; ++i)
    for (int j = 0; j < set.count; ++j) {
      const int a = set.member[i]->device, b = set.member[j]->device;
      if (a == b || (asked[a] >> b & 1)) continue;
      asked[a] |= std::uint64_t(1) << b;
      int can = 0;
      if (ok(cudaDeviceCanAccessPeer(&can, a, b)) && can && ok(cudaSetDevice(a))) cudaDeviceEnablePeerAccess(b, 0);
      (void)cudaGetLastError();  // "already enabled" is not an error here
    }
}

// A list that names GPUs this process cannot see is said once per list.
void report_missing(std::uint64_t wanted, int visible) {
  static std::mutex lock;
  static std::uint64_t reported = 0;
  const std::uint64_t missing = visible >= 64 ? 0 : wanted & ~((std::uint64_t(1) << visible) - 1);
  if (!missing || wanted == config::kDevicesAll) return;
  std::lock_guard<std::mutex> g(lock);
  if (reported == wanted) return;
  reported = wanted;
  char list[256] = "";
  for (int d = 0, len = 0; d < 64 && len < 200; ++d)
    if (missing >> d & 1) len += std::snprintf(list + len, sizeof list - len, "%s%d", len ? "," : "", d);
  std::fprintf(stderr, "hqr: the device list (HQR_DEVICE) names GPU %s, which this process does not see (%d visible): %s\n", list,
               visible, (wanted & ~missing) ? "the others serve calls" : "the CPU serves calls");
}

}  // namespace

namespace {

// Registered before CUDA is first used, in this thread or the starter.
void watch_fork() {
  static std::once_flag atfork_once;
  std::call_once(atfork_once, [] { pthread_atfork(nullptr, nullptr, mark_child); });
}

// The background start (start()): `settled` once any device_set() call has
// created (or failed to create) the set's contexts.
std::atomic<bool> settled{false};
std::mutex starter_lock;
std::thread *starter = nullptr;  // never destroyed: joined at exit, if ever started
Clock::time_point started_at;

// At exit, a start still in progress is waited for, so that the process
// does not tear CUDA down under the thread creating a context. A fork
// child has no such thread.
void join_starter() {
  if (forked_child.load()) return;
  std::lock_guard<std::mutex> g(starter_lock);
  if (starter && starter->joinable()) starter->join();
}

// HQR_GPU_START=load: the contexts start when the library loads, so that
// a program's first call finds them ready.
__attribute__((constructor)) void start_at_load() {
  if (config::gpu_start() == config::kStartLoad) start();
}

}  // namespace

const char *context_error() { return creation_error[0] ? creation_error : "no GPU"; }

DeviceSet device_set() {
  watch_fork();
  DeviceSet set;
  if (config::device_mask() == 0 || forked_child.load()) return set;  // "none" never starts CUDA
  const int visible = visible_devices();
  const std::uint64_t wanted = config::device_mask(visible);
  report_missing(wanted, visible);
  // Replicas of one GPU follow each other in the set (HQR_DEVICE_REPLICAS).
  const int replicas = std::min(config::device_replicas(), kMaxReplicas);
  for (int d = 0; d < visible; ++d)
    if (wanted >> d & 1)
      for (int r = 0; r < replicas && set.count < kMaxDevices; ++r)
        if (Context *c = device_context(d, r)) set.member[set.count++] = c;
  if (set.count > 1) enable_peers(set);
  settled.store(true);
  return set;
}

void start() {
  watch_fork();
  if (config::device_mask() == 0 || forked_child.load()) return;
  std::lock_guard<std::mutex> g(starter_lock);
  if (starter) return;
  started_at = Clock::now();
  std::atexit(join_starter);
  starter = new std::thread([] { device_set(); });
}

StartState startup() {
  if (config::device_mask() == 0 || forked_child.load()) return {Startup::off, 0};
  if (settled.load()) return {context() ? Startup::ready : Startup::off, 0};
  std::lock_guard<std::mutex> g(starter_lock);
  if (!starter) return {Startup::cold, 0};
  return {Startup::starting, seconds_since(started_at)};
}

Context *context() {
  const DeviceSet set = device_set();
  return set.count ? set.member[0] : nullptr;
}

}  // namespace hqr::gpu

namespace hqr {

int serving_device() {
  gpu::Context *c = gpu::context();
  return c ? c->device : -1;
}

int serving_device_count() { return gpu::device_set().count; }

const char *serving_device_name() {
  gpu::Context *c = gpu::context();
  return c ? c->name : "none";
}

}  // namespace hqr
