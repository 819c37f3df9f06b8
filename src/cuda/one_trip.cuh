// Small orders of the triangle routines (potrf, trtri, lauum, potri): the
// referenced triangle in one trip to one device routine and back, for
// orders where the hybrids' threads, events and per-block hand-offs cost
// more than they hide.
//
// The triangle travels packed (LAPACK's packed storage, its columns one
// after another), so that it moves in plain 1D copies. On the device a
// kernel unpacks it into the lower triangle of a square, an upper one
// conjugate-transposed (U**H = L): each routine then runs as its lower
// form (cuSOLVER's upper potrf takes about twice its lower one), and a
// kernel packs the result again. The host threads pack and unpack in parts,
// each part's DMA running while they copy the next, and the threads that
// unpack start while the device still works, so that their wake-up is
// hidden (H200: bench/results/potrf-tuning-NVIDIA-H200-2026-11-26.txt).
//
// Nothing reaches the caller's array before the device routine's info is
// known: if it is not 0, the array comes back untouched (ran = false) and
// the CPU computes the call as LAPACK does. If the GPU fails while results
// are stored, the input, still in the staging, is put back.
//
// In an unnamed namespace, like qr_kernels.cuh: each translation unit that
// uses it gets its own copy.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "cuda/qr_kernels.cuh"
#include "host/config.hpp"
#include "host/copy_pool.hpp"
#include "host/fault.hpp"

namespace hqr::gpu {
namespace {

// Where column j of the referenced triangle starts in packed storage.
__host__ __device__ inline int64_t packed_at(bool upper, int64_t n, int64_t j) {
  return upper ? j * (j + 1) / 2 : j * n - j * (j - 1) / 2;
}
// The first column whose packed start is at or past element e.
inline lint packed_column(bool upper, lint n, int64_t e) {
  lint lo = 0, hi = n;
  while (lo < hi) {
    const lint mid = (lo + hi) / 2;
    if (packed_at(upper, n, mid) < e)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}
// Columns c0..c1-1 of the referenced triangle, between the caller's array
// and the packed p. Into the staging of a large triangle (stream) with
// non-temporal stores: the DMA that reads it next ran at 10-20 GB/s on
// lines the copy had left in the host's caches, at the link's rate on
// streamed ones (H200 host, d L 2048); a small one stays in the caches
// anyway, and streaming into lines the cache holds is slow (d L 256: 0.12
// ms against 0.02 with memcpy). Into the caller's array with ordinary
// stores, as the caller reads it next.
template <class T>
void pack_columns(bool upper, lint n, lint c0, lint c1, T *a, lint lda, T *p, bool to_packed, bool stream = false) {
  for (lint j = c0; j < c1; ++j) {
    T *col = a + (upper ? 0 : j) + std::size_t(j) * lda, *q = p + packed_at(upper, n, j);
    const std::size_t bytes = std::size_t(upper ? j + 1 : n - j) * sizeof(T);
    if (!to_packed)
      std::memcpy(col, q, bytes);
    else if (stream)
      stream_copy(q, col, bytes);
    else
      std::memcpy(q, col, bytes);
  }
  store_fence();
}
// Between the packed triangle p and the lower triangle of the n-by-n a:
// lower as it is, upper conjugate-transposed.
template <class S> __global__ void packed_lower(int64_t n, S *p, bool upper, S *a, bool to_packed) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < n * n; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % n, j = e / n;
    if (i < j) continue;
    S &q = p[upper ? packed_at(true, n, i) + j : packed_at(false, n, j) + i - j];
    if (to_packed)
      q = upper ? cj(a[e]) : a[e];
    else
      a[e] = upper ? cj(q) : q;
  }
}

// Events that live for one call.
struct Events {
  std::vector<cudaEvent_t> e;
  Events(int count, unsigned flags) : e(count) {
    for (auto &x : e)
      if (!ok(cudaEventCreateWithFlags(&x, flags))) x = nullptr;
  }
  Events(const Events &) = delete;
  Events &operator=(const Events &) = delete;
  ~Events() {
    for (auto x : e)
      if (x) cudaEventDestroy(x);
  }
  bool valid() const { return std::find(e.begin(), e.end(), nullptr) == e.end(); }
};

// Whether the staging holds the triangle twice (in and out) and the info.
template <class T> bool one_trip_fits(const Context &c, lint n) {
  return 2 * std::size_t(packed_at(false, n, n)) * sizeof(T) + sizeof(int) <= c.staging_memory.size();
}

// Op, the device routine, on the lower triangle of the n-by-n d (leading
// dimension n), queued on c.compute_stream (c.solver's stream):
//   const char *name;                  for HQR_VERBOSE=2
//   const char *refused;               Result::why when its info is not 0
//   bool init(Context &, lint n, T *d, std::size_t *work_bytes);  its scratch
//   bool run(Context &, lint n, T *d, void *work, int *dinfo);
template <class T, class Op> Result one_trip(Context &c, Op &op, bool upper, lint n, T *a, lint lda) {
  using fault::Point;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point entry = Clock::now();
  const std::size_t square = std::size_t(n) * n, packed = packed_at(upper, n, n);
  T *in = static_cast<T *>(c.staging_memory.get()), *out = in + packed;  // `in` keeps the input to the end
  int *hinfo = reinterpret_cast<int *>(out + packed);
  std::size_t work_bytes = 0;
  bool fine = !fault::hit(Point::alloc) && c.matrix.reserve((square + packed) * sizeof(T));
  T *d = static_cast<T *>(c.matrix.get()), *dp = d + square;
  fine = fine && op.init(c, n, d, &work_bytes) && c.workspace.reserve(work_bytes + 256 + sizeof(int));
  if (!fine) return {false, 0, "GPU out of memory", 0};
  const std::size_t ws = (work_bytes + 255) / 256 * 256;
  int *dinfo = reinterpret_cast<int *>(static_cast<char *>(c.workspace.get()) + ws);

  // Parts of at least 1 MiB, at most 6, in that order, each split among
  // the copy threads in pieces of at least 64 KiB, or 256 KiB below 1 MiB
  // (fewer threads to wake; the calling thread alone up to 256 KiB); piece
  // i holds columns edge[i] .. edge[i+1]-1, all of about equal size.
  const std::size_t bytes = packed * sizeof(T);
  const bool large = bytes >= (std::size_t(1) << 20);  // also: streaming stores (pack_columns)
  const int parts = int(std::clamp<std::size_t>(bytes >> 20, 1, 6));
  const int per =
      int(std::clamp<std::size_t>((bytes / parts) >> (large ? 16 : 18), 1, std::size_t(c.upload_copies.threads())));
  const int pieces = parts * per;
  std::vector<lint> edge(pieces + 1);
  for (int i = 0; i <= pieces; ++i) edge[i] = packed_column(upper, n, int64_t(packed * i / pieces));
  auto part = [&](int k, T *base) { return base + packed_at(upper, n, edge[k * per]); };
  auto part_bytes = [&](int k) {
    return std::size_t(packed_at(upper, n, edge[(k + 1) * per]) - packed_at(upper, n, edge[k * per])) * sizeof(T);
  };
  Events done(parts + 1, cudaEventDisableTiming);  // each part's download; then the routine's info
  Events marks(config::verbose_level() >= 2 ? 4 : 0, cudaEventDefault);  // HQR_VERBOSE=2: the device's steps
  cudaStream_t st = c.compute_stream;
  auto mark = [&](int i) { return marks.e.empty() || ok(cudaEventRecord(marks.e[i], st)); };
  auto convert = [&](bool to_packed) {
    packed_lower<<<grid_for(int64_t(square)), 256, 0, st>>>(n, dv(dp), upper, dv(d), to_packed);
    return ok(cudaGetLastError());
  };
  const Clock::time_point t0 = Clock::now();

  // In: the thread that packs a part's last piece queues the part's DMA.
  std::vector<std::atomic<int>> left(parts);
  for (auto &x : left) x = per;
  std::atomic<bool> failed{!done.valid() || !marks.valid() || !mark(0)};
  c.upload_copies.run(pieces, [&](int i) {
    pack_columns(upper, n, edge[i], edge[i + 1], a, lda, in, true, large);
    const int k = i / per;
    if (left[k].fetch_sub(1) != 1 || part_bytes(k) == 0) return;
    thread_local int device = -1;  // the copy threads are hqr's own: set once
    if (device != c.device && ok(cudaSetDevice(c.device))) device = c.device;
    if (device != c.device ||
        !ok(cudaMemcpyAsync(part(k, dp), part(k, in), part_bytes(k), cudaMemcpyHostToDevice, st)))
      failed = true;
  });
  const Clock::time_point t1 = Clock::now();
  fine = !failed && !fault::hit(Point::copy) && convert(false) && mark(1) &&
         op.run(c, n, d, c.workspace.get(), dinfo) &&
         ok(cudaMemcpyAsync(hinfo, dinfo, sizeof(int), cudaMemcpyDeviceToHost, st)) &&
         ok(cudaEventRecord(done.e[parts], st)) && convert(true) && mark(2) && !fault::hit(Point::kernel);
  for (int k = 0; k < parts && fine; ++k)
    fine = ok(cudaMemcpyAsync(part(k, out), part(k, dp), part_bytes(k), cudaMemcpyDeviceToHost, st)) &&
           ok(cudaEventRecord(done.e[k], st));
  fine = fine && mark(3);
  auto fail = [&](const char *why) {
    cudaStreamSynchronize(st);  // nothing of this call may still run when the next one reuses the buffers
    (void)cudaGetLastError();
    return Result{false, 0, why, 0};
  };
  if (!fine) return fail("CUDA error");

  // Out: the copy threads start now, so that they wake while the device
  // works. Every piece waits for the routine's info, then for its part's
  // DMA: the first thread to need an event waits on it, the others spin on
  // what it found.
  enum { waiting, arrived, broken };
  std::vector<std::atomic<int>> state(parts + 1);  // per event of `done`
  std::vector<std::atomic<bool>> claimed(parts + 1);
  for (int k = 0; k <= parts; ++k) state[k] = waiting, claimed[k] = false;
  std::atomic<bool> device_failed{false};
  auto wait = [&](int k) {
    if (!claimed[k].exchange(true)) {
      const bool synced = ok(cudaEventSynchronize(done.e[k])) && !fault::hit(Point::sync);
      if (!synced) device_failed = true;
      state[k] = synced && (k < parts || *hinfo == 0) ? arrived : broken;
    }
    while (state[k] == waiting) std::this_thread::yield();
    return state[k] == arrived;
  };
  c.download_copies.run(pieces, [&](int i) {
    if (wait(parts) && wait(i / per)) pack_columns(upper, n, edge[i], edge[i + 1], a, lda, out, false);
  });
  const Clock::time_point t2 = Clock::now();
  if (state[parts] != arrived)  // nothing stored
    return fail(device_failed ? "CUDA error" : op.refused);
  if (device_failed || fault::hit(Point::copy)) {  // some parts stored: the input goes back
    c.download_copies.run(pieces, [&](int i) { pack_columns(upper, n, edge[i], edge[i + 1], a, lda, in, false); });
    return fail("CUDA error");
  }
  if (!marks.e.empty()) {
    auto ms = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    float up = 0, work = 0, down = 0;
    cudaEventElapsedTime(&up, marks.e[0], marks.e[1]);
    cudaEventElapsedTime(&work, marks.e[1], marks.e[2]);
    cudaEventElapsedTime(&down, marks.e[2], marks.e[3]);
    std::fprintf(stderr,
                 "hqr: %s one trip (ms): set up %.3f, packed in %.3f, stored %.3f later; on the device from the "
                 "first upload: up %.3f, %s %.3f, down %.3f\n",
                 op.name, ms(entry, t0), ms(t0, t1), ms(t1, t2), up, op.name, work, down);
  }
  return {true, 0, nullptr, 0};
}

}  // namespace
}  // namespace hqr::gpu
