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
// A caller whose (large) arrays lie in pinned memory (pinned.hpp) skips the
// staging and the host threads: see "A pinned caller" below.
//
// In an unnamed namespace, like qr_kernels.cuh: each translation unit that
// uses it gets its own copy.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <thread>
#include <typeinfo>
#include <utility>
#include <vector>

#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "cuda/pinned.hpp"
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

// HQR_VERBOSE=2: milliseconds between two host times, and the device's
// three steps between the four marks recorded on its stream (up, the op, down).
inline double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}
struct TripTimes {
  float up = 0, work = 0, down = 0;
  explicit TripTimes(const Events &marks) {
    cudaEventElapsedTime(&up, marks.e[0], marks.e[1]);
    cudaEventElapsedTime(&work, marks.e[1], marks.e[2]);
    cudaEventElapsedTime(&down, marks.e[2], marks.e[3]);
  }
};
// The line of a trip from a pinned caller (`what`: which of its arrays, or
// ""): the host's set-up (entry to t0), its wait for the queued steps (t0
// to t1), and the device's three steps.
inline void print_pinned_trip(const char *name, const char *what, std::chrono::steady_clock::time_point entry,
                              std::chrono::steady_clock::time_point t0, std::chrono::steady_clock::time_point t1,
                              const Events &marks) {
  const TripTimes dev(marks);
  std::fprintf(stderr,
               "hqr: %s one trip, pinned caller%s (ms): set up %.3f, queued and done %.3f; on the device: up %.3f, "
               "%s %.3f, down %.3f\n",
               name, what, ms_between(entry, t0), ms_between(t0, t1), dev.up, name, dev.work, dev.down);
}

// After a failure while results were being stored: the callers' arrays
// that were both read and written get back their input from its packed
// copy `in` (only the elements that travelled up; the CPU reads no others).
template <class T> void restore_inputs(const Travel<T> &up, const Travel<T> &down, T *in) {
  for (std::size_t b = 0; b < down.blocks().size(); ++b)
    for (std::size_t u = 0; u < up.blocks().size(); ++u)
      if (up.blocks()[u].a == down.blocks()[b].a) up.blocks()[u].copy(0, up.blocks()[u].n, in + up.start(u), false, false);
}

// ---- A small trip's device work as one graph -------------------------------
//
// A small trip's device work is a dozen launches or more (potri 256:
// eleven, seven of them cuBLAS's; geqrf 256: a panel kernel and two gemms
// per 16 columns), each queued by the calling thread, and the trip is then
// as fast as that thread: on one H100 host spotri U 256 with a pinned
// caller took 0.13-0.14 ms in some processes and 0.16-0.25 ms in others,
// the same all through a process, its device steps longer by as much as
// its host set-up (the device waiting for the launches), with or without
// busy loops on every core, while cuSOLVER on the same buffer kept 0.14
// (bench/results/history/pinned-spread-NVIDIA-H100-80GB-HBM3-2026-12-06.txt).
// Work that declares a graph key (what, besides its device buffers,
// decides its launches) is captured into a graph the second time a key
// comes (a single call does not pay for the capture), and replayed by one
// launch from then on: spotri U 256, six processes on one H100, 0.11-0.12
// ms (cuSOLVER-on-pinned / hqr 1.21-1.31) against 0.14-0.22 (0.65-1.00);
// dpotri L 1024 3.2-3.4 -> 3.8-4.0
// (bench/results/history/pinned-graph-NVIDIA-H100-80GB-HBM3-2026-12-06.txt);
// the small geqrf's trips (xGEQRF, xGELS), one H100, pinned caller, the
// same ratio: sgeqrf 256 0.93 -> 1.21-1.41, cgeqrf 256 0.93 -> 1.09-1.13,
// cgels 256 0.95 -> 1.23-1.25
// (bench/results/history/pinned-qrgraph-NVIDIA-H100-80GB-HBM3-2026-12-06.txt).
// Each context keeps the last kGraphs keys. A capture that fails (a call
// that cannot be captured) leaves its key without a graph: it runs launch
// by launch.
constexpr std::size_t kGraphs = 16;
using GraphKey = Context::GraphKey;
inline std::uintptr_t key_word(const void *p) { return reinterpret_cast<std::uintptr_t>(p); }

// queue() (true: all queued) on the compute stream, as the graph of `key`
// where it has one; `name` and `size` name the work in HQR_VERBOSE=2 lines.
template <class Queue> bool run_captured(Context &c, const GraphKey &key, const char *name, long size, Queue &&queue) {
  const cudaStream_t st = c.compute_stream;
  auto g = std::find_if(c.graphs.begin(), c.graphs.end(), [&](const Context::Graph &x) { return x.key == key; });
  if (g == c.graphs.end()) {
    if (c.graphs.size() == kGraphs) {
      if (c.graphs.front().exec) cudaGraphExecDestroy(c.graphs.front().exec);
      c.graphs.erase(c.graphs.begin());
    }
    c.graphs.push_back({key, 0, nullptr});
    g = c.graphs.end() - 1;
  }
  if (++g->uses == 2) {  // the second call: captured
    cudaGraph_t graph = nullptr;
    if (ok(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal))) {
      const bool queued = queue();
      if (ok(cudaStreamEndCapture(st, &graph)) && queued && graph && !ok(cudaGraphInstantiate(&g->exec, graph, 0)))
        g->exec = nullptr;
      if (graph) cudaGraphDestroy(graph);
    }
    (void)cudaGetLastError();  // a failed capture leaves nothing queued and no error behind
    if (config::verbose_level() >= 2)
      std::fprintf(stderr, "hqr: %s n=%ld %s\n", name, size,
                   g->exec ? "captured as a graph" : "not captured: launch by launch");
  }
  if (!g->exec) return queue();
  if (config::verbose_level() >= 2) std::fprintf(stderr, "hqr: %s n=%ld from its graph\n", name, size);
  return ok(cudaGraphLaunch(g->exec, st));
}

// A triangle routine (OnTriangle's contract below) declares
// `unsigned graph_key() const`: what, besides n and its buffers, decides
// its launches.
template <class R> constexpr auto has_graph_key(int) -> decltype(std::declval<R &>().graph_key(), true) {
  return true;
}
template <class R> constexpr bool has_graph_key(long) { return false; }
template <class T, class R> bool run_routine(Context &c, R &routine, lint n, T *d, void *work, int *dinfo) {
  auto queue = [&] { return routine.run(c, n, d, work, dinfo); };
  if constexpr (!has_graph_key<R>(0)) {
    return queue();
  } else {
    const GraphKey key{key_word(&typeid(R)), std::uintptr_t(routine.graph_key()), std::uintptr_t(n), key_word(d),
                       key_word(work), key_word(dinfo), 0};
    return run_captured(c, key, routine.name, long(n), queue);
  }
}

// An op (one_trip's contract below) declares
// `bool graph_key(std::array<std::uintptr_t, 3> *k) const`: false where its
// launches cannot be captured (a step that waits for the device), else
// true with what, besides its buffers, decides them in *k.
template <class Op>
constexpr auto has_op_graph_key(int)
    -> decltype(std::declval<const Op &>().graph_key(static_cast<std::array<std::uintptr_t, 3> *>(nullptr)), true) {
  return true;
}
template <class Op> constexpr bool has_op_graph_key(long) { return false; }
template <class T, class Op> bool run_op(Context &c, Op &op, T *d, void *work, Report *report) {
  auto queue = [&] { return op.run(c, d, work, report); };
  if constexpr (has_op_graph_key<Op>(0)) {
    std::array<std::uintptr_t, 3> k{};
    if (op.graph_key(&k))
      return run_captured(c, GraphKey{key_word(&typeid(Op)), k[0], k[1], k[2], key_word(d), key_word(work),
                                      key_word(report)},
                          op.name, long(k[1]), queue);
  }
  return queue();
}

// ---- A pinned caller ------------------------------------------------------
//
// Where the call's arrays lie in pinned host memory (pinned.hpp), the one
// trip is the compute stream's alone, queued by the calling thread, which
// then waits once:
//   up:    2D DMAs straight from each array into its rectangle X on the
//          device (a triangle or trapezoid as a staircase of at most eight
//          column groups: a little over half the square), a kernel that
//          packs X into the op's input as the staged path lays it out, and
//          into P, a packed copy of the input that the op never touches
//          (a full block lands in P itself);
//   the op and its report, as in the staged path;
//   down:  a kernel that stores the op's output into the caller's arrays
//          through their device mapping: exactly the elements LAPACK
//          writes (no rectangular DMA writes a triangle alone), and only
//          when the report keeps the results, so that a refused one (not
//          positive definite, NaN in xGELS's A) leaves the arrays untouched
//          with no host round trip in between.
// Small arrays in pageable memory (tau, xGELS's WORK: under kStagedBytes)
// travel beside them through the staging, copied by the calling thread:
// packed into `in` and up before the op, down into `out` after it, and
// into the caller's array only once the call has succeeded. Where a large
// array is not pinned, the staged path runs the whole call.
// The pinned arrays' results reach them only through the store kernel.
// Against a failure while it runs, P goes down to `in` (the staged path's
// layout) on the download stream while the op runs, then a word that says
// so; the store waits for both. After any failure once the store was
// queued, the inputs go back from `in` if the word says it is whole (no
// store can have started otherwise), so the arrays hold the input again and
// the CPU computes the call, as after the staged path.
// Fault points: alloc, copy (after the uploads), kernel (after the op),
// sync (the one wait), copy (after the stores: the inputs go back).

// Columns of one block between its packed form p and a column-major r
// (leading dimension ldr), only the elements the block's layout references.
// to_packed: r -> p, and into q too unless null. Else p -> r, unless the
// report refuses the results: info other than 0 (and, with `positive`,
// than > 0).
template <class S>
__global__ void packed_columns(int64_t m, int64_t n, Layout layout, S *p, S *q, S *r, int64_t ldr, bool to_packed,
                               const Report *report, bool positive) {
  if (report && report->info != 0 && !(positive && report->info > 0)) return;
  for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    const int64_t at = layout == Layout::full ? j * m : packed_at(layout == Layout::upper, m, j);
    const int64_t rows = layout == Layout::full ? m : layout == Layout::upper ? j + 1 : m - j;
    S *col = r + (layout == Layout::lower ? j : 0) + j * ldr;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < rows; i += int64_t(gridDim.x) * blockDim.x)
      if (!to_packed)
        col[i] = p[at + i];
      else if (q)
        p[at + i] = q[at + i] = col[i];
      else
        p[at + i] = col[i];
  }
}
inline dim3 column_grid(int64_t m, int64_t n) {
  return dim3(unsigned(std::clamp<int64_t>((m + 255) / 256, 1, 256)), unsigned(std::clamp<int64_t>(n, 1, 65535)));
}

// The bytes from a block's first element to its last (0: empty).
template <class T> std::size_t block_bytes(const Block<T> &b) {
  return b.m > 0 && b.n > 0 ? (std::size_t(b.n - 1) * b.lda + b.m) * sizeof(T) : 0;
}

// Pageable arrays up to this size may travel staged beside pinned ones.
constexpr std::size_t kStagedBytes = std::size_t(64) << 10;

// How a pinned caller's blocks travel: straight (in: DMA from the caller;
// out: stored by the device at its address in `store`) or staged.
template <class T> struct PinnedPlan {
  std::vector<char> direct_in;  // per block of `in`
  std::vector<T *> store;       // per block of `out`: its device address, or null (staged)
};

// Whether the call goes the pinned way: every array of kStagedBytes or
// more lies in pinned memory that DMAs may read and, for those written,
// kernels may write, and at least one array does.
template <class T> bool pinned_plan(const Travel<T> &up, const Travel<T> &down, PinnedPlan<T> *plan) {
  struct Seen {
    const void *a;
    std::size_t bytes;
    PinnedRange r;
  };
  std::vector<Seen> seen;  // each range asked once (an array both read and written)
  auto range = [&](const Block<T> &b) {
    for (const Seen &s : seen)
      if (s.a == b.a && s.bytes == block_bytes(b)) return s.r;
    seen.push_back({b.a, block_bytes(b), pinned_range(b.a, block_bytes(b))});
    return seen.back().r;
  };
  bool any = false;
  for (const Block<T> &b : up.blocks()) {
    const bool direct = block_bytes(b) && range(b).pinned;
    if (!direct && block_bytes(b) >= kStagedBytes) return false;
    plan->direct_in.push_back(direct);
    any = any || direct;
  }
  for (const Block<T> &b : down.blocks()) {
    const PinnedRange r = block_bytes(b) ? range(b) : PinnedRange{};
    const bool direct = r.pinned && r.writable && r.device;
    if (!direct && block_bytes(b) >= kStagedBytes) return false;
    plan->store.push_back(direct ? static_cast<T *>(r.device) : nullptr);
    any = any || direct;
  }
  return any;
}

// Block b of a pinned caller into x (leading dimension b.m) by DMA: all of
// it, or the staircase of column groups that holds its triangle or
// trapezoid (each group from its diagonal block down, or up to it). At
// most eight groups, 128 columns for 16-byte elements and 256 for the
// rest: each copy costs a few us of its own, and halving a group saves
// its (w/2)^2 elements above the diagonal, which pays only where those
// are 16 bytes each. zpotrf L 256 with 128-column groups, against
// cuSOLVER on the same pinned buffer: 0.91-0.94 -> 0.97-1.01 (H200),
// 0.88-0.92 -> 0.97-0.99 (H100, the same machine, alternated); dpotrf L
// 256 lost with them (1.03-1.04 -> 0.98-1.01, H200)
// (bench/results/history/pinned-tuning-NVIDIA-H200-2026-12-05.txt,
// bench/results/history/pinned-zstair-NVIDIA-H100-80GB-HBM3-2026-12-06.txt).
template <class T> bool dma_in(const Block<T> &b, T *x, cudaStream_t st) {
  const std::size_t e = sizeof(T);
  if (b.n == 1) return ok(cudaMemcpyAsync(x, b.a, std::size_t(b.m) * e, cudaMemcpyHostToDevice, st));
  constexpr lint group = sizeof(T) == 16 ? 128 : 256;
  const lint w = b.layout == Layout::full ? b.n : std::max<lint>(group, ((b.n + 7) / 8 + 31) / 32 * 32);
  for (lint j0 = 0; j0 < b.n; j0 += w) {
    const lint j1 = std::min(b.n, j0 + w), r0 = b.layout == Layout::lower ? j0 : 0;
    const lint rows = b.layout == Layout::full ? b.m : b.layout == Layout::lower ? b.m - j0 : j1;
    if (!ok(cudaMemcpy2DAsync(x + r0 + std::size_t(j0) * b.m, b.m * e, b.a + r0 + std::size_t(j0) * b.lda, b.lda * e,
                              rows * e, j1 - j0, cudaMemcpyHostToDevice, st)))
      return false;
  }
  return true;
}

// The one trip of a pinned caller (plan from pinned_plan()). False (nothing
// done) where the staging cannot hold what it needs; the staged path then
// runs.
template <class T, class Op> bool one_trip_pinned(Context &c, Op &op, const PinnedPlan<T> &plan, Result *out) {
  using fault::Point;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point entry = Clock::now();
  const Travel<T> &up = op.in, &down = op.out;
  const std::vector<Block<T>> &ub = up.blocks(), &db = down.blocks();
  // Host staging: the inputs' packed copy `in` (staged blocks, and P's
  // copy), the staged outputs (at staged_at), the report and the word that
  // says P's copy is whole. The stored outputs take none of it, so a
  // triangle of up to the whole staging fits (triangle_trip_fits).
  std::vector<int64_t> staged_at(db.size(), 0);
  int64_t staged = 0;
  for (std::size_t k = 0; k < db.size(); ++k)
    if (!plan.store[k]) staged_at[k] = staged, staged += db[k].at(db[k].n);
  const std::size_t report_at = (std::size_t(up.size() + staged) * sizeof(T) + 15) / 16 * 16;
  if (report_at + 2 * sizeof(Report) > c.staging_memory.size()) return false;
  char *staging = static_cast<char *>(c.staging_memory.get());
  T *in = reinterpret_cast<T *>(staging), *staged_out = in + up.size();
  Report *host_report = reinterpret_cast<Report *>(staging + report_at);
  volatile int *saved = reinterpret_cast<volatile int *>(host_report + 1);
  // Device: the op's buffer, each direct triangle's or trapezoid's
  // rectangle X, then P.
  auto align = [](int64_t e) { return (e + 31) / 32 * 32; };
  auto x_size = [&](std::size_t u) {
    return plan.direct_in[u] && ub[u].layout != Layout::full ? align(int64_t(ub[u].m) * ub[u].n) : int64_t(0);
  };
  int64_t p_at = align(op.device_size);
  for (std::size_t u = 0; u < ub.size(); ++u) p_at += x_size(u);
  std::size_t work_bytes = 0;
  bool fine = !fault::hit(Point::alloc) && c.matrix.reserve(std::size_t(p_at + up.size()) * sizeof(T));
  T *d = static_cast<T *>(c.matrix.get()), *din = d + op.in_at, *dout = d + op.out_at, *dp = d + p_at;
  fine = fine && op.init(c, d, &work_bytes) && c.workspace.reserve(work_bytes + 256 + 2 * sizeof(Report));
  if (!fine) {
    *out = {false, 0, "GPU out of memory", 0};
    return true;
  }
  const std::size_t ws = (work_bytes + 255) / 256 * 256;
  Report *report = reinterpret_cast<Report *>(static_cast<char *>(c.workspace.get()) + ws);
  int *dsaved = reinterpret_cast<int *>(report + 1);

  Events ev(2, cudaEventDisableTiming);  // [0] the input packed on the device, [1] its copy in the staging
  Events marks(config::verbose_level() >= 2 ? 4 : 0, cudaEventDefault);  // HQR_VERBOSE=2: the device's steps
  const cudaStream_t st = c.compute_stream, ds = c.download_stream;
  auto mark = [&](int i) { return marks.e.empty() || ok(cudaEventRecord(marks.e[i], st)); };
  const Clock::time_point t0 = Clock::now();
  *saved = 0;

  // Up, and P's copy beside the op.
  fine = ev.valid() && marks.valid() && mark(0);
  int64_t x = align(op.device_size);
  for (std::size_t u = 0; u < ub.size() && fine; ++u) {
    const Block<T> &b = ub[u];
    if (!block_bytes(b)) continue;
    const std::size_t bytes = std::size_t(b.at(b.n)) * sizeof(T);
    if (!plan.direct_in[u]) {  // staged: packed by this thread, then up
      b.copy(0, b.n, in + up.start(u), true, false);
      fine = ok(cudaMemcpyAsync(din + up.start(u), in + up.start(u), bytes, cudaMemcpyHostToDevice, st));
      continue;
    }
    const bool full = b.layout == Layout::full;
    T *xb = full ? dp + up.start(u) : d + x;
    x += x_size(u);
    fine = dma_in(b, xb, st);
    if (!fine) break;
    packed_columns<<<column_grid(b.m, b.n), 256, 0, st>>>(b.m, b.n, b.layout, dv(din + up.start(u)),
                                                          full ? nullptr : dv(dp + up.start(u)), dv(xb), b.m, true,
                                                          nullptr, false);
    fine = ok(cudaGetLastError());
  }
  fine = fine && ok(cudaEventRecord(ev.e[0], st)) && !fault::hit(Point::copy) && ok(cudaStreamWaitEvent(ds, ev.e[0], 0));
  for (std::size_t u = 0; u < ub.size() && fine; ++u)
    for (const Block<T> &b : db)
      if (fine && plan.direct_in[u] && b.a == ub[u].a)
        fine = ok(cudaMemcpyAsync(in + up.start(u), dp + up.start(u), std::size_t(ub[u].at(ub[u].n)) * sizeof(T),
                                  cudaMemcpyDeviceToHost, ds));
  fine = fine && ok(cudaMemsetAsync(dsaved, 0xff, sizeof(int), ds)) &&
         ok(cudaMemcpyAsync(const_cast<int *>(saved), dsaved, sizeof(int), cudaMemcpyDeviceToHost, ds)) &&
         ok(cudaEventRecord(ev.e[1], ds));
  // The op; down once the inputs' copy is whole.
  fine = fine && mark(1) && run_op(c, op, d, c.workspace.get(), report) &&
         ok(cudaMemcpyAsync(host_report, report, sizeof(Report), cudaMemcpyDeviceToHost, st)) && mark(2) &&
         !fault::hit(Point::kernel) && ok(cudaStreamWaitEvent(st, ev.e[1], 0));
  bool storing = false;  // a store kernel queued
  const bool positive = keeps(op, 1, 0);
  for (std::size_t k = 0; k < db.size() && fine; ++k) {
    const Block<T> &b = db[k];
    if (!block_bytes(b)) continue;
    if (!plan.store[k]) {  // staged: into `out`, stored by this thread once all went well
      fine = ok(cudaMemcpyAsync(staged_out + staged_at[k], dout + down.start(k), std::size_t(b.at(b.n)) * sizeof(T),
                                cudaMemcpyDeviceToHost, st));
      continue;
    }
    storing = true;
    packed_columns<<<column_grid(b.m, b.n), 256, 0, st>>>(b.m, b.n, b.layout, dv(dout + down.start(k)),
                                                          dv(static_cast<T *>(nullptr)), dv(plan.store[k]), b.lda,
                                                          false, report, positive);
    fine = ok(cudaGetLastError());
  }
  fine = fine && mark(3);
  const bool synced = fine && ok(cudaStreamSynchronize(st)) && !fault::hit(Point::sync);
  const Clock::time_point t1 = Clock::now();
  auto fail = [&](bool stored) {
    // Nothing of this call may still run when the next one reuses the buffers.
    cudaStreamSynchronize(st);
    cudaStreamSynchronize(ds);
    (void)cudaGetLastError();
    if (stored && *saved) restore_inputs(up, down, in);
    return Result{false, 0, "CUDA error", 0};
  };
  if (!synced) {
    *out = fail(storing);
    return true;
  }
  if (!keeps(op, host_report->info, 0)) {  // the store kernels wrote nothing
    *out = {false, 0, op.why(host_report->info), 0};
    return true;
  }
  if (fault::hit(Point::copy)) {  // as if a store had failed: the inputs go back
    *out = fail(true);
    return true;
  }
  for (std::size_t k = 0; k < db.size(); ++k)
    if (!plan.store[k]) db[k].copy(0, db[k].n, staged_out + staged_at[k], false, false);
  op.value = host_report->value;
  if (!marks.e.empty()) print_pinned_trip(op.name, "", entry, t0, t1, marks);
  *out = {true, host_report->info, kPinnedCaller, 0, 0, 0, 0, "gpu-one-trip"};
  return true;
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
//   bool graph_key(std::array<std::uintptr_t, 3> *k);  optional: run
//                            replayed as a graph (run_op above)
//   unsigned long long value;  report->value, once the results are stored
template <class T, class Op> Result one_trip(Context &c, Op &op) {
  using fault::Point;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point entry = Clock::now();
  const Travel<T> &up = op.in, &down = op.out;
  if (PinnedPlan<T> plan; pinned_plan(up, down, &plan))
    if (Result r; one_trip_pinned<T>(c, op, plan, &r)) return r;
  // The callers ask one_trip_fits (triangle_trip_fits) first; a pinned
  // caller's trip, which may need less, ran above.
  if (!one_trip_fits<T>(c, up.size(), down.size())) return {false, 0, "larger than the staging", 0};
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
  fine = !failed && !fault::hit(Point::copy) && mark(1) && run_op(c, op, d, c.workspace.get(), report) &&
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
    restore_inputs(up, down, in);
    return fail("CUDA error");
  }
  op.value = host_report->value;
  if (!marks.e.empty()) {
    const TripTimes dev(marks);
    std::fprintf(stderr,
                 "hqr: %s one trip (ms): set up %.3f, packed in %.3f, stored %.3f later; on the device from the "
                 "first upload: up %.3f, %s %.3f, down %.3f\n",
                 op.name, ms_between(entry, t0), ms_between(t0, t1), ms_between(t1, t2), dev.up, op.name, dev.work,
                 dev.down);
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
    return convert(false) && run_routine(c, routine, n, d, work, &report->info) && convert(true);
  }
  // A routine with a member `unsigned long long *value_slot` gets the
  // report's value (device memory) to write a result of its own into.
  template <class X> static auto give_value_slot(X &r, unsigned long long *v, int) -> decltype(r.value_slot = v, void()) {
    r.value_slot = v;
  }
  template <class X> static void give_value_slot(X &, unsigned long long *, long) {}
};

// ---- A pinned caller's small lower triangle ---------------------------------
//
// At small orders the general pinned trip is bound by the host queuing its
// steps, not by the device running them: 17 queued operations (packing,
// P's copy down and its word, unpacking, packing again, the store) for a
// device routine of 0.12 ms (d L 256 on the H200: 0.18 ms against 0.14
// for cuSOLVER called on the same pinned buffer,
// bench/results/history/pinned-NVIDIA-H200-2026-11-28.txt). A lower triangle needs
// none of that: the DMA lands in the routine's square itself (leading
// dimension n, whatever it carries above the diagonal is never read), the
// routine runs there, and one kernel checks the routine's report, sends
// it home (mapped pinned memory) and stores the triangle from the square;
// for xPOTRF the same kernel flags a NaN pivot (cuSOLVER's INFO does not),
// so that no kernel and no copy of the report's own sit between the
// routine and the store (d L 256 on an H100: cuSOLVER-on-pinned / hqr
// 0.94-0.95 with them, 0.99-1.01 without;
// bench/results/pinned-small-NVIDIA-H100-80GB-HBM3-2026-12-05.txt).
// The inputs' copy against a failed store is taken by the calling thread
// into the staging while the device works, before the store is queued, so
// the largest square a routine takes this way is what that copy finishes
// within the device's time: kSmallSquare by default (at 2 MiB, potri d L
// 512 took 0.31-0.37 ms against 0.29-0.30 the general way, whose copy is a
// DMA beside the routine); potrf, whose device time is longer, declares
// its own (potrf_hybrid.cu). Upper triangles keep the general trip (their
// transpose needs its kernels anyway; they already beat that peer,
// bench/results/pinned-*).
constexpr std::size_t kSmallSquare = std::size_t(1) << 20;

// What a routine may declare for this trip (beside OnTriangle's contract):
//   static constexpr std::size_t square_bytes   the largest square it takes
//                                               this way (kSmallSquare)
//   bool flag_nan                                true: its run flags a NaN
//       pivot itself; this trip sets it false and the store flags one.
template <class R> constexpr auto lower_square_bytes(int) -> decltype(std::size_t(R::square_bytes)) {
  return R::square_bytes;
}
template <class R> constexpr std::size_t lower_square_bytes(long) { return kSmallSquare; }
template <class R> auto take_nan_flag(R &r, int) -> decltype(r.flag_nan = false, bool()) {
  r.flag_nan = false;
  return true;
}
template <class R> bool take_nan_flag(R &, long) { return false; }

// The report (and, where nan_pivot, a NaN on sq's diagonal as INFO > 0)
// into *home by one thread; then, if it accepts the results, the lower
// triangle of the n-by-n square sq into dst (leading dimension ldd). Each
// block reads the report and the diagonal itself (the grid's rows are
// capped so that those reads stay small beside the store's).
template <class S>
__global__ void store_lower(int64_t n, const S *sq, S *dst, int64_t ldd, const Report *report, Report *home,
                            bool nan_pivot) {
  __shared__ int routine_info, first_nan;
  if (threadIdx.x == 0) {
    routine_info = report->info;
    first_nan = INT_MAX;
  }
  __syncthreads();
  if (nan_pivot && routine_info == 0)
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
      if (nan_real(sq[i + i * n])) atomicMin(&first_nan, int(i + 1));
  __syncthreads();
  const int info = routine_info != 0 ? routine_info : first_nan != INT_MAX ? first_nan : 0;
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) *home = Report{info, report->value};
  if (info != 0) return;
  for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
    for (int64_t i = j + blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
      dst[i + j * ldd] = sq[i + j * n];
}

// False (nothing done) where this way does not serve; else *out is the
// outcome (ran = false: the caller's triangle as it came, the CPU computes).
// Fault points as the general pinned trip: alloc, copy (after the upload),
// kernel (after the routine), sync (the one wait), copy (after the store:
// the inputs go back).
template <class T, class R>
bool one_trip_pinned_lower(Context &c, R &routine, lint n, T *a, lint lda, unsigned long long *value, Result *out) {
  using fault::Point;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point entry = Clock::now();
  const Block<T> b{a, lda, n, n, Layout::lower};
  const std::size_t packed = std::size_t(b.at(n)) * sizeof(T), report_at = (packed + 15) / 16 * 16;
  if (std::size_t(n) * n * sizeof(T) > lower_square_bytes<R>(0) || report_at + sizeof(Report) > c.staging_memory.size())
    return false;
  const PinnedRange range = pinned_range(a, block_bytes(b));
  if (!range.pinned || !range.writable || !range.device) return false;
  T *in = static_cast<T *>(c.staging_memory.get());
  Report *host_report = reinterpret_cast<Report *>(static_cast<char *>(c.staging_memory.get()) + report_at);
  if (!c.staging_memory.device()) return false;
  Report *home = reinterpret_cast<Report *>(static_cast<char *>(c.staging_memory.device()) + report_at);
  std::size_t work_bytes = 0;
  bool fine = !fault::hit(Point::alloc) && c.matrix.reserve(std::size_t(n) * n * sizeof(T));
  T *sq = static_cast<T *>(c.matrix.get());
  fine = fine && routine.init(c, n, sq, &work_bytes) && c.workspace.reserve(work_bytes + 256 + sizeof(Report));
  if (!fine) {
    *out = {false, 0, "GPU out of memory", 0};
    return true;
  }
  Report *report = reinterpret_cast<Report *>(static_cast<char *>(c.workspace.get()) + (work_bytes + 255) / 256 * 256);
  OnTriangle<T, R>::give_value_slot(routine, &report->value, 0);

  Events marks(config::verbose_level() >= 2 ? 4 : 0, cudaEventDefault);  // HQR_VERBOSE=2: the device's steps
  const cudaStream_t st = c.compute_stream;
  auto mark = [&](int i) { return marks.e.empty() || ok(cudaEventRecord(marks.e[i], st)); };
  const bool nan_pivot = take_nan_flag(routine, 0);
  const Clock::time_point t0 = Clock::now();
  fine = marks.valid() && mark(0) && dma_in(b, sq, st) && !fault::hit(Point::copy) && mark(1) &&
         run_routine(c, routine, n, sq, c.workspace.get(), &report->info) && mark(2) && !fault::hit(Point::kernel);
  if (fine) b.copy(0, n, in, true, false);  // the inputs, while the device works
  bool storing = false;
  if (fine) {
    storing = true;
    const dim3 grid(column_grid(n, n).x, unsigned(std::min<int64_t>(n, 128)));
    store_lower<<<grid, 256, 0, st>>>(n, dv(sq), dv(static_cast<T *>(range.device)), lda, report, home, nan_pivot);
    fine = ok(cudaGetLastError()) && mark(3);
  }
  const bool synced = fine && ok(cudaStreamSynchronize(st)) && !fault::hit(Point::sync);
  const Clock::time_point t1 = Clock::now();
  auto fail = [&](bool stored) {
    cudaStreamSynchronize(st);  // nothing of this call may still run when the next one reuses the buffers
    (void)cudaGetLastError();
    if (stored) b.copy(0, n, in, false, false);
    return Result{false, 0, "CUDA error", 0};
  };
  if (!synced) {
    *out = fail(storing);
    return true;
  }
  if (host_report->info != 0) {  // the store wrote nothing
    *out = {false, 0, routine.refused, 0};
    return true;
  }
  if (fault::hit(Point::copy)) {  // as if the store had failed: the inputs go back
    *out = fail(true);
    return true;
  }
  if (value) *value = host_report->value;
  if (!marks.e.empty()) print_pinned_trip(routine.name, "'s lower triangle", entry, t0, t1, marks);
  *out = {true, 0, kPinnedCaller, 0, 0, 0, 0, "gpu-one-trip"};
  return true;
}

// The one trip of a triangle routine (potrf, trtri, lauum, potri); `value`,
// where given, receives the report's value once the results are stored.
template <class T, class R>
Result one_trip(Context &c, R &routine, bool upper, lint n, T *a, lint lda, unsigned long long *value = nullptr) {
  if (Result r; !upper && one_trip_pinned_lower(c, routine, n, a, lda, value, &r)) return r;
  OnTriangle<T, R> op(routine, upper, n, a, lda);
  const Result r = one_trip<T>(c, op);
  if (value) *value = op.value;
  return r;
}
// Whether the caller's triangle (order n at a, lda) goes the pinned way:
// pinned_plan's test for it.
template <class T> bool pinned_triangle(T *a, lint lda, lint n) {
  const Block<T> b{a, lda, n, n, Layout::lower};
  const PinnedRange r = pinned_range(a, block_bytes(b));
  return r.pinned && r.writable && r.device;
}
// Whether the staging holds a triangle's trip: its packed copy both ways,
// or for a pinned caller (pinned_triangle) the inputs' copy alone (the
// results go home from the device; 64 bytes for the reports).
template <class T> bool triangle_trip_fits(const Context &c, lint n, bool pinned) {
  const int64_t packed = packed_at(false, n, n);
  return one_trip_fits<T>(c, packed, pinned ? int64_t(64 / sizeof(T)) : packed);
}
// Whether the trip of the caller's triangle (order n at a, lda) fits: staged,
// or pinned where the staged one does not (z 4096's triangle, 134 MB, fits
// the 201 MB staging once, not twice). The driver is asked only then.
template <class T> bool triangle_trip_fits(const Context &c, lint n, T *a, lint lda) {
  return triangle_trip_fits<T>(c, n, false) || (pinned_triangle(a, lda, n) && triangle_trip_fits<T>(c, n, true));
}

}  // namespace
}  // namespace hqr::gpu
