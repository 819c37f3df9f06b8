// Small problems: the caller's arrays in one trip to device routines and
// back, for sizes where the hybrids' threads, events and per-block
// hand-offs cost more than they hide. The triangle routines (potrf, trtri,
// lauum, potri) and the QR family (geqrf, ormqr, orgqr, gels) use it.
//
// What travels is a list of blocks (Travel): whole m-by-n arrays, or the
// referenced triangle of one in LAPACK's packed storage, their columns one
// after another, so that everything moves in plain 1D copies. The host
// threads pack and unpack in parts, each part's DMA running while they copy
// the next, and the threads that unpack start while the device still works,
// so that their wake-up is hidden
// (H200, bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-26.txt).
//
// A triangle is unpacked on the device into the lower triangle of a square,
// an upper one conjugate-transposed (U**H = L): each triangle routine then
// runs as its lower form, and a kernel packs the result again (OnTriangle).
// Measured reason: cuSOLVER's upper potrf takes about twice its lower one, 376 against 206 us at 512
// (H200, bench/results/history/qr-NVIDIA-H200-2026-11-25b.txt).
//
// Nothing reaches the caller's arrays before the device routine's info is
// known: if it is not 0, they come back untouched (ran = false) and the CPU
// computes the call as LAPACK does. If the GPU fails while results are
// stored, the inputs, still in the staging, are put back.
//
// In an unnamed namespace, like qr_kernels.cuh: each translation unit that
// uses it gets its own copy.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
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

// One caller's array as it travels: all of an m-by-n block (packed with
// leading dimension m), the upper triangle of order n (m = n), or the lower
// trapezoid of an m-by-n block, n <= m (a lower triangle when m = n; the
// reflectors of a QR factorization), in LAPACK's packed storage.
enum class Layout { full, upper, lower };
template <class T> struct Block {
  T *a;
  lint lda, m, n;
  Layout layout = Layout::full;
  int64_t at(lint j) const {  // where column j starts, packed
    return layout == Layout::full ? int64_t(j) * m : packed_at(layout == Layout::upper, m, j);
  }
  T *column(lint j) const { return a + (layout == Layout::lower ? j : 0) + std::size_t(j) * lda; }
  std::size_t rows(lint j) const {
    return std::size_t(layout == Layout::full ? m : layout == Layout::upper ? j + 1 : m - j);
  }
  // Columns j0..j1-1 between the caller's array and the packed p (this
  // block's start). Into the staging of a large transfer (stream) with
  // non-temporal stores, into a small one and the caller's array (read next)
  // with ordinary stores. Measured reasons (H200 host):
  // - large: the DMA read cached lines at 10-20 GB/s, streamed ones at the link's rate
  //   (d L 2048, bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-26.txt)
  // - small: streaming into cached lines is slow, d L 256 0.12 ms against 0.02 with memcpy
  //   (bench/results/potrf-NVIDIA-H200-2026-11-26b.txt)
  void copy(lint j0, lint j1, T *p, bool to_packed, bool stream) const {
    for (lint j = j0; j < j1; ++j) {
      T *col = column(j), *q = p + at(j);
      const std::size_t bytes = rows(j) * sizeof(T);
      if (!to_packed)
        std::memcpy(col, q, bytes);
      else if (stream)
        stream_copy(q, col, bytes);
      else
        std::memcpy(q, col, bytes);
    }
  }
};

// Blocks that travel together, packed one after another; their columns
// are numbered through (global column g).
template <class T> class Travel {
 public:
  Travel() = default;
  Travel(std::initializer_list<Block<T>> blocks) : blocks_(blocks) {
    for (const Block<T> &b : blocks_) {
      first_.push_back(columns_), start_.push_back(size_);
      columns_ += b.n, size_ += b.at(b.n);
    }
  }
  const std::vector<Block<T>> &blocks() const { return blocks_; }
  int64_t size() const { return size_; }                   // elements
  int64_t start(std::size_t b) const { return start_[b]; }  // where block b starts
  lint columns() const { return columns_; }
  int64_t at(lint g) const {  // where global column g starts
    if (g >= columns_) return size_;
    const std::size_t b = block_of(g);
    return start_[b] + blocks_[b].at(g - first_[b]);
  }
  lint column_at(int64_t e) const {  // the first global column that starts at or past element e
    lint lo = 0, hi = columns_;
    while (lo < hi) {
      const lint mid = (lo + hi) / 2;
      if (at(mid) < e)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }
  // Global columns g0..g1-1 between the callers' arrays and the packed p.
  void copy(lint g0, lint g1, T *p, bool to_packed, bool stream = false) const {
    for (std::size_t b = 0; b < blocks_.size() && g0 < g1; ++b) {
      const lint f = first_[b], e = f + blocks_[b].n;
      if (g0 >= e) continue;
      blocks_[b].copy(g0 - f, std::min(g1, e) - f, p + start_[b], to_packed, stream);
      g0 = e;
    }
    if (to_packed) store_fence();
  }

 private:
  std::size_t block_of(lint g) const {
    std::size_t b = 0;
    while (b + 1 < blocks_.size() && first_[b + 1] <= g) ++b;
    return b;
  }
  std::vector<Block<T>> blocks_;
  std::vector<lint> first_;
  std::vector<int64_t> start_;
  lint columns_ = 0;
  int64_t size_ = 0;
};

// A Travel in parts of at least 1 MiB, at most 6, in that order, each
// split among the copy threads in pieces of at least 64 KiB, or 256 KiB
// below 1 MiB (fewer threads to wake; the calling thread alone up to 256
// KiB); piece i holds global columns edge[i] .. edge[i+1]-1, all of about
// equal size.
struct Split {
  bool large;  // 1 MiB or more: also streaming stores into the staging
  int parts, per;
  std::vector<lint> edge;
  template <class T> Split(const Travel<T> &t, int threads) {
    const std::size_t bytes = std::size_t(t.size()) * sizeof(T);
    large = bytes >= (std::size_t(1) << 20);
    parts = int(std::clamp<std::size_t>(bytes >> 20, 1, 6));
    per = int(std::clamp<std::size_t>((bytes / parts) >> (large ? 16 : 18), 1, std::size_t(threads)));
    edge.resize(pieces() + 1);
    for (int i = 0; i <= pieces(); ++i) edge[i] = t.column_at(t.size() * i / pieces());
  }
  int pieces() const { return parts * per; }
  lint first(int k) const { return edge[k * per]; }  // part k's first global column
  lint end(int k) const { return edge[(k + 1) * per]; }
};

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

// What the device routine reports, in device memory, read back before
// anything is stored: info (0: the results may be stored; see keeps()) and
// a value of the routine's own (xGELS: max |a_ij| as a double's bits).
struct Report {
  int info;
  unsigned long long value;
};

// Whether results with this info are stored: 0 always; another info only
// where the op says so with `bool keeps(int info) const` (xGELS: INFO > 0,
// a singular triangle, is a LAPACK answer of its own).
template <class Op> auto keeps(const Op &op, int info, int) -> decltype(op.keeps(info)) {
  return info == 0 || op.keeps(info);
}
template <class Op> bool keeps(const Op &, int info, long) { return info == 0; }

// Whether the staging holds what travels both ways and the report.
template <class T> bool one_trip_fits(const Context &c, int64_t in, int64_t out) {
  return std::size_t(in + out) * sizeof(T) + sizeof(Report) + 16 <= c.staging_memory.size();
}

// Op, the device routine:
//   const char *name;        for HQR_VERBOSE=2
//   const char *why(int info);  Result::why when its info is not 0
//   Travel<T> in, out;       what goes up, what comes back
//   int64_t in_at, out_at, device_size;  where they lie in the device
//                            buffer d, and its size (elements)
//   bool init(Context &, T *d, std::size_t *work_bytes);  its scratch
//   bool run(Context &, T *d, void *work, Report *report);  queued on
//                            c.compute_stream (c.solver's stream); it sets
//                            report->info
//   bool keeps(int info);    optional: an info other than 0 whose results
//                            are stored too (Result::info)
//   unsigned long long value;  report->value, once the results are stored
template <class T, class Op> Result one_trip(Context &c, Op &op) {
  using fault::Point;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point entry = Clock::now();
  const Travel<T> &up = op.in, &down = op.out;
  T *in = static_cast<T *>(c.staging_memory.get()), *out = in + up.size();  // `in` keeps the input to the end
  Report *host_report = reinterpret_cast<Report *>((reinterpret_cast<std::uintptr_t>(out + down.size()) + 15) / 16 * 16);
  std::size_t work_bytes = 0;
  bool fine = !fault::hit(Point::alloc) && c.matrix.reserve(std::size_t(op.device_size) * sizeof(T));
  T *d = static_cast<T *>(c.matrix.get()), *din = d + op.in_at, *dout = d + op.out_at;
  fine = fine && op.init(c, d, &work_bytes) && c.workspace.reserve(work_bytes + 256 + sizeof(Report));
  if (!fine) return {false, 0, "GPU out of memory", 0};
  const std::size_t ws = (work_bytes + 255) / 256 * 256;
  Report *report = reinterpret_cast<Report *>(static_cast<char *>(c.workspace.get()) + ws);

  const Split su(up, c.upload_copies.threads()), sd(down, c.download_copies.threads());
  auto part_bytes = [](const Travel<T> &t, const Split &s, int k) {
    return std::size_t(t.at(s.end(k)) - t.at(s.first(k))) * sizeof(T);
  };
  Events done(sd.parts + 1, cudaEventDisableTiming);  // each part's download; then the report
  Events marks(config::verbose_level() >= 2 ? 4 : 0, cudaEventDefault);  // HQR_VERBOSE=2: the device's steps
  cudaStream_t st = c.compute_stream;
  auto mark = [&](int i) { return marks.e.empty() || ok(cudaEventRecord(marks.e[i], st)); };
  const Clock::time_point t0 = Clock::now();

  // In: the thread that packs a part's last piece queues the part's DMA.
  std::vector<std::atomic<int>> left(su.parts);
  for (auto &x : left) x = su.per;
  std::atomic<bool> failed{!done.valid() || !marks.valid() || !mark(0)};
  c.upload_copies.run(su.pieces(), [&](int i) {
    up.copy(su.edge[i], su.edge[i + 1], in, true, su.large);
    const int k = i / su.per;
    if (left[k].fetch_sub(1) != 1 || part_bytes(up, su, k) == 0) return;
    thread_local int device = -1;  // the copy threads are hqr's own: set once
    if (device != c.device && ok(cudaSetDevice(c.device))) device = c.device;
    const int64_t e = up.at(su.first(k));
    if (device != c.device ||
        !ok(cudaMemcpyAsync(din + e, in + e, part_bytes(up, su, k), cudaMemcpyHostToDevice, st)))
      failed = true;
  });
  const Clock::time_point t1 = Clock::now();
  fine = !failed && !fault::hit(Point::copy) && mark(1) && op.run(c, d, c.workspace.get(), report) &&
         ok(cudaMemcpyAsync(host_report, report, sizeof(Report), cudaMemcpyDeviceToHost, st)) &&
         ok(cudaEventRecord(done.e[sd.parts], st)) && mark(2) && !fault::hit(Point::kernel);
  for (int k = 0; k < sd.parts && fine; ++k) {
    const int64_t e = down.at(sd.first(k));
    fine = ok(cudaMemcpyAsync(out + e, dout + e, part_bytes(down, sd, k), cudaMemcpyDeviceToHost, st)) &&
           ok(cudaEventRecord(done.e[k], st));
  }
  fine = fine && mark(3);
  auto fail = [&](const char *why) {
    cudaStreamSynchronize(st);  // nothing of this call may still run when the next one reuses the buffers
    (void)cudaGetLastError();
    return Result{false, 0, why, 0};
  };
  if (!fine) return fail("CUDA error");

  // Out: the copy threads start now, so that they wake while the device
  // works. Every piece waits for the report, then for its part's DMA: the
  // first thread to need an event waits on it, the others spin on what it
  // found.
  enum { waiting, arrived, broken };
  const int parts = sd.parts;
  std::vector<std::atomic<int>> state(parts + 1);  // per event of `done`
  std::vector<std::atomic<bool>> claimed(parts + 1);
  for (int k = 0; k <= parts; ++k) state[k] = waiting, claimed[k] = false;
  std::atomic<bool> device_failed{false};
  auto wait = [&](int k) {
    if (!claimed[k].exchange(true)) {
      const bool synced = ok(cudaEventSynchronize(done.e[k])) && !fault::hit(Point::sync);
      if (!synced) device_failed = true;
      state[k] = synced && (k < parts || keeps(op, host_report->info, 0)) ? arrived : broken;
    }
    while (state[k] == waiting) std::this_thread::yield();
    return state[k] == arrived;
  };
  c.download_copies.run(sd.pieces(), [&](int i) {
    if (wait(parts) && wait(i / sd.per)) down.copy(sd.edge[i], sd.edge[i + 1], out, false);
  });
  const Clock::time_point t2 = Clock::now();
  if (state[parts] != arrived)  // nothing stored
    return fail(device_failed ? "CUDA error" : op.why(host_report->info));
  if (device_failed || fault::hit(Point::copy)) {  // some results stored: the inputs go back
    for (std::size_t b = 0; b < down.blocks().size(); ++b)
      for (std::size_t u = 0; u < up.blocks().size(); ++u)
        if (up.blocks()[u].a == down.blocks()[b].a)
          up.blocks()[u].copy(0, up.blocks()[u].n, in + up.start(u), false, false);
    return fail("CUDA error");
  }
  op.value = host_report->value;
  if (!marks.e.empty()) {
    auto ms = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    float to = 0, work = 0, from = 0;
    cudaEventElapsedTime(&to, marks.e[0], marks.e[1]);
    cudaEventElapsedTime(&work, marks.e[1], marks.e[2]);
    cudaEventElapsedTime(&from, marks.e[2], marks.e[3]);
    std::fprintf(stderr,
                 "hqr: %s one trip (ms): set up %.3f, packed in %.3f, stored %.3f later; on the device from the "
                 "first upload: up %.3f, %s %.3f, down %.3f\n",
                 op.name, ms(entry, t0), ms(t0, t1), ms(t1, t2), to, op.name, work, from);
  }
  return {true, host_report->info, nullptr, 0};
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

// A triangle routine R on the lower triangle of an n-by-n d (leading
// dimension n), as a one trip of the caller's triangle:
//   const char *name, *refused;
//   bool init(Context &, lint n, T *d, std::size_t *work_bytes);
//   bool run(Context &, lint n, T *d, void *work, int *dinfo);
// The square lies at the device buffer's start, the packed triangle after it.
template <class T, class R> struct OnTriangle {
  R &routine;
  bool upper;
  lint n;
  const char *name = routine.name;
  Travel<T> in, out;
  int64_t in_at, out_at, device_size;
  unsigned long long value = 0;
  OnTriangle(R &r, bool up, lint order, T *a, lint lda)
      : routine(r), upper(up), n(order), in{{a, lda, order, order, up ? Layout::upper : Layout::lower}}, out(in),
        in_at(int64_t(order) * order), out_at(in_at), device_size(in_at + in.size()) {}
  const char *why(int) const { return routine.refused; }
  bool init(Context &c, T *d, std::size_t *work_bytes) { return routine.init(c, n, d, work_bytes); }
  bool run(Context &c, T *d, void *work, Report *report) {
    auto convert = [&](bool to_packed) {
      packed_lower<<<grid_for(int64_t(n) * n), 256, 0, c.compute_stream>>>(n, dv(d + in_at), upper, dv(d), to_packed);
      return ok(cudaGetLastError());
    };
    give_value_slot(routine, &report->value, 0);
    return convert(false) && routine.run(c, n, d, work, &report->info) && convert(true);
  }
  // A routine with a member `unsigned long long *value_slot` gets the
  // report's value (device memory) to write a result of its own into.
  template <class X> static auto give_value_slot(X &r, unsigned long long *v, int) -> decltype(r.value_slot = v, void()) {
    r.value_slot = v;
  }
  template <class X> static void give_value_slot(X &, unsigned long long *, long) {}
};

// The one trip of a triangle routine (potrf, trtri, lauum, potri); `value`,
// where given, receives the report's value once the results are stored.
template <class T, class R>
Result one_trip(Context &c, R &routine, bool upper, lint n, T *a, lint lda, unsigned long long *value = nullptr) {
  OnTriangle<T, R> op(routine, upper, n, a, lda);
  const Result r = one_trip<T>(c, op);
  if (value) *value = op.value;
  return r;
}
template <class T> bool one_trip_fits(const Context &c, lint n) {
  const int64_t packed = packed_at(false, n, n);
  return one_trip_fits<T>(c, packed, packed);
}

}  // namespace
}  // namespace hqr::gpu
