// The schedules that run over a device set (context.hpp's DeviceSet): every
// GPU that serves calls, in core or out of core (see each file's header).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "host/config.hpp"
#include "host/set_order.hpp"

namespace hqr::gpu {

// xPOTRF over `set` (potrf_node.cu); the Result as gpu::potrf's.
template <class T> Result potrf_node(const DeviceSet &set, bool upper, lint n, T *a, lint lda, bool log_det);

// xTRTRI, xLAUUM and xPOTRI over `set`, in core (inverse_node.cu); the
// Result as gpu::trtri's, lauum's and potri's.
enum class InverseOp { trtri, lauum, potri };
template <class T>
Result inverse_node(const DeviceSet &set, InverseOp op, bool upper, bool unit, lint n, T *a, lint lda);

// The same on one GPU, whole in its memory (inverse_hybrid.cu): the one trip
// or the hybrid on c (takes c's lock); and the device memory the hybrid
// needs at order n with blocks of nb (0: its default).
template <class T> Result inverse_one_gpu(Context &c, InverseOp op, bool upper, bool unit, lint n, T *a, lint lda);
template <class T> double inverse_in_core_bytes(InverseOp op, lint n, lint nb);

// xTRTRI, xLAUUM and xPOTRI whose order is past what one GPU holds
// (`budget` bytes), out of core (inverse_ooc.cu): a recursion by halves
// whose diagonal blocks run in core on the set's first GPU
// (inverse_one_gpu) and whose products run host to host over the set
// (blas3_gpu.cu). Every piece the GPU does not finish the CPU completes, so
// `ran` is always true; `path` says how it went.
template <class T>
Result inverse_out_of_core(const DeviceSet &set, InverseOp op, bool upper, bool unit, lint n, T *a, lint lda,
                           std::size_t budget);

// The order from which the QR routines use the set rather than one GPU
// (a square xGEQRF's; xORMQR's flops as those of a square xGEQRF). Not yet
// measured on several GPUs: a square QR of 16384 does the flops of xPOTRF
// at 26000, past the order from which xPOTRF's set gained (24576).
constexpr lint kNodeQrOrder = 16384;

// xGEQRF over `set`, in core (geqrf_node.cu): whether that schedule serves
// an m-by-n call (one_fits: whether the first member alone holds the
// matrix and its workspace), and the schedule, the Result as gpu::geqrf's.
// The caller holds the set's lock (SetLock).
// rhs (xGELS, trans 'N'): B (m by nrhs) goes through the schedule as
// columns right of A, coming back as Q**H B; `stored` then counts its
// columns stored so (all of them where the Result ran); nrhs sizes the
// members' needs for it in geqrf_over_set.
template <class T> struct SetRhs {
  T *b;
  lint ldb, nrhs;
  lint stored = 0;
};
template <class T> bool geqrf_over_set(const DeviceSet &set, lint m, lint n, bool one_fits, lint nrhs = 0);
template <class T>
Result geqrf_node(const DeviceSet &set, lint m, lint n, T *a, lint lda, T *tau, SetRhs<T> *rhs = nullptr);
// qr_apply.cu: the set's xGEQRF in core or, where the matrix fits neither
// one GPU (one_fits) nor the members' shares, out of core: geqrf_set_plan
// answers n (in core), a window w < n (out of core) or 0 (not over the
// set); geqrf_set runs that plan (windows: how many), each window brought
// up to date by xORMQR over the set and factored by geqrf_node. A, tau and
// the Result as gpu::geqrf's. The caller holds the set's lock.
template <class T> lint geqrf_set_plan(const DeviceSet &set, lint m, lint n, bool one_fits);
template <class T>
Result geqrf_set(const DeviceSet &set, lint m, lint n, T *a, lint lda, T *tau, lint w, int *windows);

// xORMQR over `set` (qr_apply.cu): whether that schedule serves the call,
// and the schedule, the Result as gpu::ormqr's except that `ran` false
// means the CPU finished what the GPUs left (resume: every line). The
// caller holds the set's lock (SetLock).
bool ormqr_over_set(const DeviceSet &set, bool left, lint m, lint n, lint k, std::size_t elem);
template <class T>
Result ormqr_node(const DeviceSet &set, bool left, bool trans, lint m, lint n, lint k, const T *a, lint lda,
                  const T *tau, T *c, lint ldc);

// xORGQR over `set` (qr_apply.cu): in how many windows of Q's columns that
// schedule serves the call (0: it does not; the set's size or more), and
// the schedule, the Result as gpu::orgqr's (`ran` false: the columns from
// r.resume on are final, the others hold their reflectors). The caller
// holds the set's lock.
template <class T> int orgqr_set_windows(const DeviceSet &set, lint m, lint n, lint k);
template <class T>
Result orgqr_node(const DeviceSet &set, lint m, lint n, lint k, T *a, lint lda, const T *tau, int windows);

// The trace's path of a set's schedule: "gpu-node (4 GPUs, in core)", or
// "... out of core: 3 windows" where it ran `windows` windows.
inline const char *node_path(int gpus, int windows) {
  thread_local char text[80];
  if (windows <= 1)
    std::snprintf(text, sizeof text, "gpu-node (%d GPU%s, in core)", gpus, gpus > 1 ? "s" : "");
  else
    std::snprintf(text, sizeof text, "gpu-node (%d GPU%s, out of core: %d windows)", gpus, gpus > 1 ? "s" : "",
                  windows);
  return text;
}

// The memory a GPU's schedule may plan with: what it has free (its own
// buffers included) less `margin` for the libraries, or HQR_GPU_MEMORY;
// 0 when the GPU cannot be asked. Makes c's GPU current.
inline std::size_t plan_budget(Context &c, std::size_t margin) {
  std::size_t free = 0, total = 0;
  if (!ok(cudaSetDevice(c.device)) || !ok(cudaMemGetInfo(&free, &total))) {
    (void)cudaGetLastError();
    return 0;
  }
  const std::size_t have = free + c.matrix.size();
  if (const std::size_t cap = config::gpu_memory()) return std::min(have, cap);
  return have > margin ? have - margin : 0;
}

// The memory a one-GPU schedule needing `need` bytes may plan with
// (plan_budget), or 0 for "no limit" where the need is at most half the
// GPU's memory and HQR_GPU_MEMORY is not set: small calls (a one trip at
// order 256 takes well under a millisecond) do not ask the driver.
inline std::size_t schedule_budget(Context &c, double need) {
  if (!config::gpu_memory() && need <= double(c.total_memory) / 2) return 0;
  return plan_budget(c, std::size_t(256) << 20);
}

// Runs fn(0) .. fn(pieces - 1) on the download copy threads of every
// member of `set` at once. The set's schedules store into the caller's
// array one piece at a time (StoreTurn), so while one member stores, the
// others' threads are idle. Measured on 4 H100s (bench/results/
// inverse-node-NVIDIA-H100-80GB-HBM3-x4-2026-11-28.txt): the inverse's
// block rows ('U') took 0.365 s with it against 0.451 without, its block
// columns 0.354 against 0.362; xPOTRF's panels were slower with it (L
// 32768 0.204 s against 0.164 the session before), so potrf_node keeps
// one member's threads.
inline void run_on_set(const DeviceSet &set, int pieces, const std::function<void(int)> &fn) {
  std::atomic<int> next{0};
  auto take = [&](int) {
    for (int p; (p = next++) < pieces;) fn(p);
  };
  std::vector<std::thread> helpers;
  for (int d = 1; d < set.count; ++d)
    helpers.emplace_back([&, d] {
      CopyPool &pool = set.member[d]->download_copies;
      pool.run(pool.threads(), take);
    });
  CopyPool &own = set.member[0]->download_copies;
  own.run(own.threads(), take);
  for (std::thread &t : helpers) t.join();
}

// fn(0) .. fn(P - 1) at once, fn(0) on this thread and each other on a
// thread of its own: the schedules whose members work alone (xORMQR's and
// xORGQR's ranges), each making its member's GPU current.
template <class Fn> void on_each_member(int P, const Fn &fn) {
  std::vector<std::thread> others;
  for (int d = 1; d < P; ++d) others.emplace_back(fn, d);
  fn(0);
  for (std::thread &t : others) t.join();
}

// The copy threads of every member of `set`.
inline int set_copy_threads(const DeviceSet &set) {
  int t = 0;
  for (int d = 0; d < set.count; ++d) t += set.member[d]->download_copies.threads();
  return t;
}

}  // namespace hqr::gpu
