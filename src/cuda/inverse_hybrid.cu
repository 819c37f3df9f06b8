// Hybrid triangular inverse (xTRTRI), triangle times its conjugate transpose
// (xLAUUM) and their composition, the inverse from a Cholesky factor
// (xPOTRI), with the caller's matrix in pageable host memory. After Macindoe
// (UCL, 2013): the CPU works on the small diagonal blocks while the GPU runs
// the big products, as a recursion by halves whose products are nearly all
// large gemms. Small orders skip all of it: one trip (one_trip.cuh;
// OneTripInverse below).
//
// The device holds the caller's triangle as it is (uplo 'U' or 'L', no
// transposes), blocked in nb-wide diagonal blocks. Recursion on blocks
// k0..k1 split at km (1 = rows/columns before the split, 2 = after):
//   inverse (trtri):  X11 = inv(T11), X22 = inv(T22)       recursion
//                     U12 := -X11 * U12 * X22              'U'
//                     L21 := -X22 * L21 * X11              'L'
//   product (lauum):  W11 = lauum(T11)                     recursion
//                     W11 += U12*U12**H;  U12 := U12*U22**H    'U'
//                     W11 += L21**H*L21;  L21 := L22**H*L21    'L'
//                     W22 = lauum(T22)                     recursion
// The in-place triangular products run as trmm_in_place: halves again, a
// gemm for the off-diagonal half and cuBLAS's out-of-place trmm into an
// O(n*leaf) workspace at the leaves; W11's update runs as herk_by_halves.
// A leaf (one diagonal block) only copies in the block the CPU computed:
// inv(T_kk) (trtri), lauum(T_kk) (lauum), or both, lauum(inv(T_kk)) for the
// product phase of potri. CPU workers compute all of them from the caller's
// array from the start, beside the transfers and the GPU. potri runs both
// phases on the device with no round trip between them.
//
// Transfers move only the referenced triangle, in slabs of one block:
//   in-slab k:  'U' rows 0..j1 of columns j0..j1; 'L' rows j0..j1 of columns 0..j1
//   out-slab k: 'U' rows j0..j1 of columns j0..n; 'L' rows j0..n of columns j0..j1
// Column slabs are whole runs of the caller's columns; row slabs are short
// strided pieces of them, which the host copies more slowly. So uploads are
// column slabs: in-slabs in order for 'U', out-slabs from the last for 'L',
// and for 'L' the inverse recursion goes right half first (the mirror image
// of 'U': the persymmetric flip J*L*J is upper triangular and keeps columns
// columns), so that it starts while the rest still arrives. Results leave as
// soon as final:
//   trtri 'U': after each node on the left edge (blocks 0..k1), its in-slabs;
//   trtri 'L': after each node on the right edge (blocks k0..np), its
//          out-slabs, from the last;
//   lauum, potri: after each merge on the right edge (blocks km..np), the
//          out-slabs of its left half, then the right edge's last leaf
//          ('U': those rows, in groups taller than a slab; see download()).
// On those edges a merge's last product runs in pieces along the final
// lines (by_pieces), each piece's slabs leaving while the next ones compute.
//
//   upload thread:    caller -> pinned slot (host copy pool) -> device; a
//                     pinned caller's slabs straight up by DMA (pinned.hpp)
//   CPU workers:      diagonal blocks -> pinned -> device workspace (every
//                     inverse first, then every product)
//   calling thread:   queues the recursion on the compute stream
//   download thread:  device -> pinned slot -> caller, referenced triangle only
//
// Stopping early (gpu.hpp, Result::resume): results are final where they are
// stored, and results are stored in pieces of whole columns or rows along
// the order in which they become final, so the caller's array always holds
// `resume` leading (trtri 'L': trailing) columns or rows of the result and
// the input elsewhere.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu/lauu2.hpp"
#include "cpu/trti2.hpp"
#include "cuda/blas.cuh"
#include "cuda/cholqr.cuh"
#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "cuda/handoff.hpp"
#include "cuda/node.hpp"
#include "cuda/one_trip.cuh"
#include "cuda/pinned.hpp"
#include "host/config.hpp"
#include "host/fault.hpp"
#include "host/inverse_halves.hpp"

namespace hqr::gpu {
namespace {

using fault::Point;

// Diagonal block order when HQR_NB is unset. The CPU inverts and multiplies
// these blocks (2 nb**3/3 flops each for potri) while the GPU runs; smaller
// ones cost the GPU more launches, larger ones the CPU more time.
constexpr lint kDefaultNb = 256;
// CPU threads for the diagonal blocks (each with its own pinned block
// pair): four for real types, where more only slow the copy threads that
// share the cores; twelve for complex ones, whose blocks cost four times
// the flops and set the pace. Measured (H100, bench/results/history/inverse-tuning-NVIDIA-H100-2026-11-26.txt):
// - real, eight against four: dpotri 'L' 16384 0.099-0.105 s against 0.094
// - complex, twelve against four: zpotri 'L' 8192 0.074 s against 0.126-0.136
template <class T> constexpr int kDiagWorkers = is_complex<T> ? 12 : 4;
// Triangles of at most this order go to cuBLAS's trmm/herk whole; larger
// ones split in halves around a gemm. HQR_INV_LEAF overrides it (a tuning
// knob for measurement).
constexpr lint kDefaultLeaf = 1024;
lint leaf_order() {
  const char *v = std::getenv("HQR_INV_LEAF");
  const long n = v ? std::atol(v) : 0;
  return n >= 64 ? n : kDefaultLeaf;
}
// Pieces of an edge merge's last product (see by_pieces): its blocks turn
// final piece by piece, so their download overlaps the rest of the merge
// instead of following the whole call. HQR_INV_PIECES overrides it (1: the
// merge in one go). Eight against one: dpotri U 16384 0.127 s against 0.145
// (H200, bench/results/history/inverse-tuning-NVIDIA-H200-2026-11-24.txt).
constexpr lint kDefaultPieces = 8;
lint edge_pieces() {
  const char *v = std::getenv("HQR_INV_PIECES");
  const long n = v ? std::atol(v) : 0;
  return n >= 1 ? n : kDefaultPieces;
}

using Op = InverseOp;

// Splits a rectangle into pieces of whole columns that fit one staging
// slot, in order.
std::vector<Rect> chunks(const Rect &r, std::size_t elem) {
  std::vector<Rect> out;
  const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(r.m) * elem)));
  for (lint j = 0; j < r.n; j += per) out.push_back({r.r0, r.c0 + j, r.m, std::min(per, r.n - j)});
  return out;
}

// Splits 0..count into a few ranges run at once on `pool`.
template <class F> void for_pieces(CopyPool &pool, lint count, F &&f) {
  const lint pieces = std::max<lint>(1, std::min<lint>(count, pool.threads() * 2));
  const lint per = (count + pieces - 1) / pieces;
  pool.run(int(pieces), [&](int p) { f(std::min(count, p * per), std::min(count, (p + 1) * per)); });
}

// What the threads of one call tell each other: every state change happens
// under one lock and wakes every waiter, and a failure anywhere wakes them
// all to stop.
class Board {
 public:
  // Applies `change` and wakes the waiters.
  template <class F> void post(F &&change) {
    {
      std::lock_guard<std::mutex> g(m_);
      change();
    }
    cv_.notify_all();
  }
  // Waits until ready() holds; false when the call failed first.
  template <class F> bool wait(F &&ready) {
    std::unique_lock<std::mutex> g(m_);
    cv_.wait(g, [&] { return failed_.load() || ready(); });
    return !failed_.load();
  }
  void fail() {
    post([&] { failed_.store(true); });
  }
  bool failed() const { return failed_.load(); }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::atomic<bool> failed_{false};
};

using clk = std::chrono::steady_clock;

template <class T> class HybridInverse {
 public:
  HybridInverse(Context &c, Op op, bool upper, bool unit, lint n, T *a, lint lda, lint nb)
      : c_(c), op_(op), upper_(upper), unit_(unit), n_(n), a_(a), lda_(lda), nb_(nb), np_((n + nb - 1) / nb),
        ldda_(padded(n)), leaf_(std::max(nb, leaf_order())), pieces_(edge_pieces()),
        fill_(upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER), reverse_(!upper),
        final_reverse_(!upper && op == Op::trtri) {}

  // The device memory run() reserves: the square, the leaves' workspace,
  // the diagonal blocks (twice for potri), the CPU workers' pinned pairs'
  // device side.
  static double bytes(Op op, lint n, lint nb) {
    const double block = double(nb) * nb, np = double((n + nb - 1) / nb);
    return double(sizeof(T)) * (double(padded(n)) * n + double(leaf_work(n, std::max(nb, leaf_order()))) +
                                block * np * (op == Op::potri ? 2 : 1) + 2 * block * kDiagWorkers<T>);
  }

  Result run() {
    start_ = clk::now();
    const std::size_t sz = sizeof(T), block = std::size_t(nb_) * nb_;
    if (std::size_t(n_) * sz > Context::kSlotBytes) return {false, 0, "matrix column larger than staging", 0};
    const std::size_t diagonals = block * np_;
    const int phases = (op_ == Op::potri) ? 2 : 1;
    if (fault::hit(Point::alloc) || !c_.matrix.reserve(sz * ldda_ * n_) ||
        !c_.workspace.reserve(sz * (leaf_work(n_, leaf_) + diagonals * phases)) ||
        !c_.panel.reserve(sz * 2 * block * kDiagWorkers<T>))
      return {false, 0, "GPU out of memory", 0};
    dA_ = static_cast<T *>(c_.matrix.get());
    dW_ = static_cast<T *>(c_.workspace.get());
    dInv_ = dW_ + leaf_work(n_, leaf_);
    dLau_ = op_ == Op::potri ? dInv_ + diagonals : dInv_;
    inv_done_.assign(np_, 0);
    lau_done_.assign(np_, 0);
    final_of_.assign(np_, 0);
    if (!events(arrived_, false) || !events(inv_up_, false) || !events(lau_up_, false) || !events(final_ev_, false) ||
        !events(phase_ev_, true, 3))
      return finish({false, 0, "CUDA event", 0});

    pinned_ = pinned_range(a_, (std::size_t(n_ - 1) * lda_ + n_) * sizeof(T)).pinned;
    std::vector<std::thread> threads;
    threads.reserve(2 + kDiagWorkers<T>);
    try {
      threads.emplace_back([this] { upload(); });
      threads.emplace_back([this] { download(); });
      for (int w = 0; w < std::min<lint>(kDiagWorkers<T>, np_); ++w)
        threads.emplace_back([this, w] { diagonals_on_cpu(w); });
      compute();
    } catch (...) {  // a thread could not start: nothing may escape to the C caller
      board_.fail();
    }
    for (std::thread &t : threads) t.join();
    for (cudaStream_t s : {c_.compute_stream, c_.panel_stream, c_.upload_stream, c_.download_stream})
      check(Point::sync, cudaStreamSynchronize(s));
    if (board_.failed()) return finish({false, 0, "CUDA error", stored_});
    if (config::verbose_level() >= 2) report();
    return finish({true, 0, pinned_ ? kPinnedCaller : nullptr, 0});
  }

 private:
  // The device's leading dimension at order n.
  static lint padded(lint n) { return (n + 31) / 32 * 32; }
  // The leaves' out-of-place products (trmm_in_place): m-by-n with the
  // triangle's order at most `leaf` and the other side at most n.
  static std::size_t leaf_work(lint n, lint leaf) { return std::size_t(padded(n)) * std::min(leaf, n); }

  bool has_inverse() const { return op_ != Op::lauum; }
  bool has_product() const { return op_ != Op::trtri; }

  bool events(std::vector<cudaEvent_t> &v, bool timing, lint count = 0) {
    v.assign(count > 0 ? count : np_, nullptr);
    for (cudaEvent_t &e : v)
      if (!ok(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming))) return false;
    return true;
  }

  Result finish(Result r) {
    for (auto *v : {&arrived_, &inv_up_, &lau_up_, &final_ev_, &phase_ev_})
      for (cudaEvent_t e : *v)
        if (e) cudaEventDestroy(e);
    if (!r.ran) (void)cudaGetLastError();
    return r;
  }

  double since_start() const { return std::chrono::duration<double>(clk::now() - start_).count(); }

  // HQR_VERBOSE=2: where the time went (host clock from the call's start;
  // the GPU phases from the compute stream's first command; for lauum the
  // first GPU phase is the wait for the uploads). The download thread's
  // time: waiting for results to be queued as final, waiting for their DMAs
  // (which includes the GPU's work on them), storing them.
  void report() {
    float inverse = 0, product = 0;
    cudaEventElapsedTime(&inverse, phase_ev_[0], phase_ev_[1]);
    cudaEventElapsedTime(&product, phase_ev_[1], phase_ev_[2]);
    std::fprintf(stderr,
                 "hqr: inverse n=%ld nb=%ld leaf=%ld phases (s): uploads done %.4f, diagonal blocks done %.4f, "
                 "queued %.4f, gpu inverse %.4f + product %.4f, stores done %.4f; download thread: waited "
                 "%.4f for results, %.4f for DMAs, stored %.4f\n",
                 long(n_), long(nb_), long(leaf_), uploads_done_, diagonals_done_, queued_, inverse * 1e-3,
                 product * 1e-3, since_start(), final_wait_, dma_wait_, storing_);
  }

  T *dev(lint i, lint j) const { return dA_ + i + std::size_t(j) * ldda_; }
  T *host(lint i, lint j) const { return a_ + i + std::size_t(j) * lda_; }
  // Diagonal block k from the CPU, nb-by-nb slots with leading dimension nb.
  T *inv_block(lint k) const { return dInv_ + std::size_t(k) * nb_ * nb_; }
  T *lau_block(lint k) const { return dLau_ + std::size_t(k) * nb_ * nb_; }
  lint first(lint k) const { return k * nb_; }
  lint width(lint k) const { return std::min(nb_, n_ - k * nb_); }
  lint end_of(lint k1) const { return first(k1 - 1) + width(k1 - 1); }  // past block k1-1

  Rect in_slab(lint k) const {
    const lint j0 = first(k), jb = width(k);
    return upper_ ? Rect{0, j0, j0 + jb, jb} : Rect{j0, 0, jb, j0 + jb};
  }
  Rect out_slab(lint k) const {
    const lint j0 = first(k), jb = width(k);
    return upper_ ? Rect{j0, j0, jb, n_ - j0} : Rect{j0, j0, n_ - j0, jb};
  }
  // The direction in which results become final, which Result::resume
  // counts: columns for trtri and for 'L', rows for lauum and potri 'U'.
  bool final_rows() const { return op_ != Op::trtri && upper_; }
  // Block at position k of the upload and inverse order.
  lint in_order(lint k) const { return reverse_ ? np_ - 1 - k : k; }

  // Threads start on device 0: make the serving device current.
  bool on_device() {
    if (!ok(cudaSetDevice(c_.device))) board_.fail();
    return !board_.failed();
  }

  // Marks the call failed when `status` is an error or HQR_FAULT says so;
  // false when the call has failed (here or in another thread).
  template <class S> bool check(Point p, S status) {
    if (fault::hit(p) || !ok(status)) board_.fail();
    return !board_.failed();
  }

  // ---- upload ---------------------------------------------------------------

  // Caller -> pinned slot -> device (a pinned caller: caller -> device),
  // slab by slab (position k of the upload order is block in_order(k);
  // arrived_[k] marks it). Whole rectangles move, so a diagonal block's
  // other half carries whatever the caller's other triangle holds; the
  // device never reads it and it never comes back.
  void upload() {
    if (!on_device()) return;
    int slot = 0;
    auto step = [this](auto status, Point p) { return check(p, status); };
    for (lint k = 0; k < np_; ++k) {
      const lint b = in_order(k);
      for (const Rect &r : chunks(upper_ ? in_slab(b) : out_slab(b), sizeof(T)))
        if (!upload_block(c_, pinned_, slot, sizeof(T), r.m, r.n, host(r.r0, r.c0), lda_, dev(r.r0, r.c0), ldda_,
                          c_.upload_stream, step, Point::sync))
          return;
      if (!check(Point::sync, cudaEventRecord(arrived_[k], c_.upload_stream))) return;
      board_.post([&] { uploaded_ = k + 1; });
    }
    uploads_done_ = since_start();
  }

  // ---- download -------------------------------------------------------------

  // Device -> pinned slots -> caller, results once final, in the order they
  // turn final. Final columns (trtri, and lauum and potri 'L') leave slab by
  // slab (in-slabs for trtri 'U', out-slabs otherwise; position k: block k,
  // or np-1-k for trtri 'L'), in pieces of whole columns. Final rows
  // (lauum and potri 'U') leave in groups of as many final rows as half the
  // slots hold, each group in tiles of columns, stored once all its tiles
  // have landed, so that a row is never half-written (Result::resume).
  // In the caller's column-major array a group of rows is one short segment
  // per column, and short segments store slowly (25-30 GB/s for 1 KiB a
  // column against 60-70 for whole columns), hence groups of up to 384 rows
  // with streaming stores: dpotri 'U' 16384 0.127-0.130 -> 0.108-0.113 s
  // (H100, bench/results/history/inverse-tuning-NVIDIA-H100-2026-11-26.txt).
  // DMAs run up to kSlots pieces ahead of the host copies.
  void download() {
    if (!on_device()) return;
    struct Unit {
      std::vector<Rect> pieces;
      int first_slot;
      lint stored;  // stored_ once this unit is in the caller's array
    };
    std::deque<Unit> pending;
    int next_slot = 0, in_use = 0;
    auto slot = [&](int i) -> StagingSlot & { return c_.download_slots[i % Context::kSlots]; };
    auto drain_one = [&] {
      const Unit u = std::move(pending.front());
      pending.pop_front();
      const clk::time_point t0 = clk::now();
      for (std::size_t i = 0; i < u.pieces.size(); ++i)
        if (!check(Point::sync, cudaEventSynchronize(slot(u.first_slot + int(i)).dma_done))) return false;
      const clk::time_point t1 = clk::now();
      for (std::size_t i = 0; i < u.pieces.size(); ++i)
        store(u.pieces[i], static_cast<const T *>(slot(u.first_slot + int(i)).host));
      stored_ = u.stored;
      in_use -= int(u.pieces.size());
      dma_wait_ += std::chrono::duration<double>(t1 - t0).count();
      storing_ += std::chrono::duration<double>(clk::now() - t1).count();
      return true;
    };
    auto send = [&](std::vector<Rect> pieces, lint stored) {
      while (in_use + int(pieces.size()) > Context::kSlots)
        if (!drain_one()) return false;
      for (std::size_t i = 0; i < pieces.size(); ++i) {
        const Rect &r = pieces[i];
        StagingSlot &s = slot(next_slot + int(i));
        if (!check(Point::copy, cudaMemcpy2DAsync(s.host, r.m * sizeof(T), dev(r.r0, r.c0), ldda_ * sizeof(T),
                                                  r.m * sizeof(T), r.n, cudaMemcpyDeviceToHost, c_.download_stream)) ||
            !check(Point::sync, cudaEventRecord(s.dma_done, c_.download_stream)))
          return false;
      }
      in_use += int(pieces.size());
      pending.push_back({std::move(pieces), next_slot, stored});
      next_slot += int(pending.back().pieces.size());
      return true;
    };
    // Waits until position k is final; the count of final positions, or -1
    // when the call failed.
    auto wait_final = [&](lint k) {
      lint count = 0;
      const clk::time_point t0 = clk::now();
      if (!board_.wait([&] { return (count = final_) > k; })) return lint(-1);
      final_wait_ += std::chrono::duration<double>(clk::now() - t0).count();
      return count;
    };
    lint waited = -1;  // the last final event the download stream waits for
    auto follow = [&](lint p) {  // the download stream waits for position p's final event
      if (final_of_[p] == waited) return true;
      waited = final_of_[p];
      return check(Point::sync, cudaStreamWaitEvent(c_.download_stream, final_ev_[waited], 0));
    };
    if (final_rows()) {
      const std::size_t half = Context::kSlots / 2 * Context::kSlotBytes;
      for (lint row = 0; row < n_;) {
        const lint count = wait_final(row / nb_);
        if (count < 0) return;
        const lint rows = std::max<lint>(
            1, std::min<lint>(end_of(count) - row, lint(half / (std::size_t(n_ - row) * sizeof(T)))));
        if (!follow((row + rows - 1) / nb_) || !send(chunks({row, row, rows, n_ - row}, sizeof(T)), row + rows))
          return;
        row += rows;
      }
    } else {
      for (lint k = 0; k < np_; ++k) {
        if (wait_final(k) < 0 || !follow(k)) return;
        const lint b = final_reverse_ ? np_ - 1 - k : k;
        std::vector<Rect> pieces = chunks(op_ == Op::trtri && upper_ ? in_slab(b) : out_slab(b), sizeof(T));
        if (final_reverse_) std::reverse(pieces.begin(), pieces.end());
        for (const Rect &r : pieces)
          if (!send({r}, final_reverse_ ? n_ - r.c0 : r.c0 + r.n)) return;
      }
    }
    while (!pending.empty() && !board_.failed())
      if (!drain_one()) return;
  }

  // Pinned -> caller: piece r, only the elements of the referenced triangle
  // (without the diagonal for a unit trtri), with streaming stores, as
  // potrf's: the caller will not read them soon. dtrtri 'L' 16384 0.071-0.074 s
  // against 0.08-0.10 with memcpy (H200, bench/results/history/inverse-NVIDIA-H200-2026-11-25.txt).
  void store(const Rect &r, const T *staged) {
    const lint skip = op_ == Op::trtri && unit_ ? 1 : 0;
    for_pieces(c_.download_copies, r.n, [&](lint j0, lint j1) {
      for (lint jj = j0; jj < j1; ++jj) {
        const lint j = r.c0 + jj;
        const lint lo = upper_ ? r.r0 : std::max(r.r0, j + skip);
        const lint hi = upper_ ? std::min(r.r0 + r.m, j + 1 - skip) : r.r0 + r.m;
        if (hi > lo)
          stream_copy(host(lo, j), staged + (lo - r.r0) + std::size_t(jj) * r.m, std::size_t(hi - lo) * sizeof(T));
      }
      store_fence();
    });
  }

  // ---- diagonal blocks on the CPU -------------------------------------------

  // Worker w: the diagonal blocks at positions w, w + kDiagWorkers<T>, ... of
  // the upload order, from the caller's array (which nothing writes before
  // the block's leaf has used them) to the device workspace; first every
  // inverse, then every product, so that the inverse phase never waits for
  // a product its leaves do not use (one pass doing both put the CPU on
  // potri's critical path): dpotri 'L' 16384 0.094 s against 0.105-0.111
  // (H100, bench/results/history/inverse-tuning-NVIDIA-H100-2026-11-26.txt).
  void diagonals_on_cpu(int w) {
    try {
      if (!on_device()) return;
      const std::size_t block = std::size_t(nb_) * nb_;
      T *inv = static_cast<T *>(c_.panel.get()) + 2 * block * w, *lau = inv + block;
      std::vector<T> work(upper_ ? 0 : block);  // trti2 and lauu2 run 'L' on a transposed copy
      // potri: this worker's inverses, kept for the products.
      std::vector<T> kept(op_ == Op::potri ? block * ((np_ - w + kDiagWorkers<T> - 1) / kDiagWorkers<T>) : 0);
      for (const bool product : {false, true}) {
        if (product ? !has_product() : !has_inverse()) continue;
        T *const h = product ? lau : inv;
        cudaEvent_t uploaded = nullptr;  // the last upload from h
        for (lint p = w, i = 0; p < np_ && !board_.failed(); p += kDiagWorkers<T>, ++i) {
          const lint k = in_order(p), j0 = first(k), jb = width(k);
          if (uploaded && !check(Point::sync, cudaEventSynchronize(uploaded))) return;
          T *const mine = kept.empty() ? nullptr : kept.data() + block * i;
          if (product && op_ == Op::potri)
            std::memcpy(h, mine, sizeof(T) * jb * jb);
          else
            load_diagonal(j0, jb, h);
          if (product) {
            cpu::lauu2<T>(upper_, jb, h, jb, work.data());
          } else {
            cpu::trti2<T>(upper_, unit_, jb, h, jb, work.data());
            if (op_ == Op::potri) std::memcpy(mine, h, sizeof(T) * jb * jb);
          }
          cudaEvent_t up = (product ? lau_up_ : inv_up_)[k];
          if (!check(Point::copy, cudaMemcpy2DAsync(product ? lau_block(k) : inv_block(k), nb_ * sizeof(T), h,
                                                    jb * sizeof(T), jb * sizeof(T), jb, cudaMemcpyHostToDevice,
                                                    c_.panel_stream)) ||
              !check(Point::sync, cudaEventRecord(up, c_.panel_stream)))
            return;
          uploaded = up;
          board_.post([&] {
            (product ? lau_done_ : inv_done_)[k] = 1;
            diagonals_done_ = std::max(diagonals_done_, since_start());
          });
        }
      }
    } catch (...) {  // out of host memory for `work` or `kept`
      board_.fail();
    }
  }

  // The caller's diagonal block at j0 (its uplo triangle) into `d`, leading
  // dimension jb; a unit diagonal is not read (ones go in).
  void load_diagonal(lint j0, lint jb, T *d) const {
    for (lint j = 0; j < jb; ++j) {
      const lint lo = upper_ ? 0 : j, hi = upper_ ? j + 1 : jb;
      std::memcpy(d + lo + std::size_t(j) * jb, host(j0 + lo, j0 + j), sizeof(T) * (hi - lo));
      if (unit_) d[j + std::size_t(j) * jb] = T(1);
    }
  }

  // ---- the recursion ----------------------------------------------------------

  void compute() {
    bool ok_ = check(Point::sync, cudaEventRecord(phase_ev_[0], c_.compute_stream));
    // lauum's first merge (the root's) reads the whole triangle anyway.
    if (ok_ && op_ == Op::lauum) ok_ = arrived(in_order(np_ - 1));
    if (ok_ && has_inverse()) ok_ = inverse(0, np_);
    ok_ = ok_ && check(Point::sync, cudaEventRecord(phase_ev_[1], c_.compute_stream));
    if (ok_ && has_product()) ok_ = product(0, np_, true);
    ok_ = ok_ && check(Point::sync, cudaEventRecord(phase_ev_[2], c_.compute_stream));
    queued_ = since_start();
    if (!ok_) board_.fail();
  }

  // The compute stream waits for the slabs up to block k in the upload order
  // (blocks 0..k for 'U', k..np-1 for 'L').
  bool arrived(lint k) {
    const lint p = in_order(k);  // block k's position: the order is its own inverse
    if (p < waited_upload_) return true;
    waited_upload_ = p + 1;
    return board_.wait([&] { return uploaded_ > p; }) &&
           check(Point::sync, cudaStreamWaitEvent(c_.compute_stream, arrived_[p], 0));
  }
  // ... and for diagonal block k from the CPU, which it copies into place.
  bool leaf(lint k, bool product) {
    const lint j0 = first(k), jb = width(k);
    const std::vector<char> &done = product ? lau_done_ : inv_done_;
    const T *block = product ? lau_block(k) : inv_block(k);
    return board_.wait([&] { return done[k] != 0; }) &&
           check(Point::sync, cudaStreamWaitEvent(c_.compute_stream, (product ? lau_up_ : inv_up_)[k], 0)) &&
           check(Point::copy, cudaMemcpy2DAsync(dev(j0, j0), ldda_ * sizeof(T), block, nb_ * sizeof(T),
                                                jb * sizeof(T), jb, cudaMemcpyDeviceToDevice, c_.compute_stream));
  }
  // Blocks g0..g1-1, and all before them in the order results turn final
  // (from block 0, or from the last for trtri 'L'), are final once the
  // stream gets here. final_ and final_of_ count positions in that order.
  bool now_final(lint g0, lint g1) {
    const lint p0 = final_, p1 = final_reverse_ ? np_ - g0 : g1;
    if (p1 <= p0) return true;
    if (!check(Point::sync, cudaEventRecord(final_ev_[p0], c_.compute_stream))) return false;
    board_.post([&] {
      for (lint p = p0; p < p1; ++p) final_of_[p] = p0;
      final_ = p1;
    });
    return true;
  }

  // Blocks k0..k1-1 of the triangle := its inverse, the halves in upload
  // order. Of the two products of a merge, the one from the left goes last,
  // in pieces of columns (each independent): on trtri's edge (the left one
  // for 'U', the right one for 'L') each piece's blocks turn final at once
  // and travel while the next pieces compute.
  bool inverse(lint k0, lint k1) {
    const bool edge = op_ == Op::trtri && (upper_ ? k0 == 0 : k1 == np_);
    if (k1 - k0 == 1) return arrived(k0) && leaf(k0, false) && (!edge || now_final(k0, k1));
    const lint km = k0 + (k1 - k0 + 1) / 2;
    if (upper_ ? !inverse(k0, km) || !inverse(km, k1) : !inverse(km, k1) || !inverse(k0, km)) return false;
    const lint c0 = first(k0), m = first(km), c1 = end_of(k1);
    const auto diag = unit_ ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    if (upper_)  // U12 := -X11 * (U12 * X22), by U12's columns (blocks km..k1-1)
      return trmm_in_place(CUBLAS_SIDE_RIGHT, CUBLAS_OP_N, diag, m - c0, c1 - m, T(-1), dev(m, m), dev(c0, m)) &&
             by_pieces(km, k1, edge, [&](lint j0, lint j1) {
               return trmm_in_place(CUBLAS_SIDE_LEFT, CUBLAS_OP_N, diag, m - c0, j1 - j0, T(1), dev(c0, c0),
                                    dev(c0, j0));
             });
    // L21 := -X22 * (L21 * X11), by L21's columns (blocks k0..km-1)
    return trmm_in_place(CUBLAS_SIDE_RIGHT, CUBLAS_OP_N, diag, c1 - m, m - c0, T(-1), dev(c0, c0), dev(m, c0)) &&
           by_pieces(k0, km, edge, [&](lint j0, lint j1) {
             return trmm_in_place(CUBLAS_SIDE_LEFT, CUBLAS_OP_N, diag, c1 - m, j1 - j0, T(1), dev(m, m),
                                  dev(m, j0));
           });
  }

  // Blocks k0..k1-1 of the triangle := U*U**H ('U') or L**H*L ('L').
  // `right_edge`: no merge above this one writes these blocks' rows ('U')
  // or columns ('L'), so they are final once written here; the last product
  // of the merge then runs in pieces along them, each piece final at once.
  // (Measured on the H200: also splitting W11's update along the pieces,
  // so that the first piece turns final sooner, made lauum 'L' slower.)
  bool product(lint k0, lint k1, bool right_edge) {
    if (k1 - k0 == 1) return leaf(k0, true) && (!right_edge || now_final(k0, k1));
    const lint km = k0 + (k1 - k0 + 1) / 2;
    if (!product(k0, km, false)) return false;
    const lint c0 = first(k0), m = first(km), c1 = end_of(k1);
    const cublasOperation_t C = blas::op_c<T>();
    const bool ok_ =
        upper_ ? herk_by_halves(CUBLAS_OP_N, m - c0, c1 - m, dev(c0, m), dev(c0, c0)) &&
                     by_pieces(k0, km, right_edge,
                               [&](lint i0, lint i1) {  // U12 := U12 * U22**H, by rows
                                 return trmm_in_place(CUBLAS_SIDE_RIGHT, C, CUBLAS_DIAG_NON_UNIT, i1 - i0, c1 - m,
                                                      T(1), dev(m, m), dev(i0, m));
                               })
               : herk_by_halves(C, m - c0, c1 - m, dev(m, c0), dev(c0, c0)) &&
                     by_pieces(k0, km, right_edge, [&](lint j0, lint j1) {  // L21 := L22**H * L21, by columns
                       return trmm_in_place(CUBLAS_SIDE_LEFT, C, CUBLAS_DIAG_NON_UNIT, c1 - m, j1 - j0, T(1),
                                            dev(m, m), dev(m, j0));
                     });
    return ok_ && product(km, k1, right_edge);
  }

  // Runs f(start, end) over the rows or columns of blocks g0..g1-1: in one
  // go, or on an edge in pieces_ pieces in the order results turn final,
  // the blocks of each piece made final as soon as it is queued.
  template <class F> bool by_pieces(lint g0, lint g1, bool edge, F f) {
    const lint parts = edge ? std::min<lint>(pieces_, g1 - g0) : 1;
    for (lint i = 0; i < parts; ++i) {
      const lint q = final_reverse_ ? parts - 1 - i : i;
      const lint a = g0 + (g1 - g0) * q / parts, b = g0 + (g1 - g0) * (q + 1) / parts;
      if (!f(first(a), end_of(b)) || (edge && !now_final(a, b))) return false;
    }
    return true;
  }

  // B := alpha*op(A)*B (side left, A of order m) or alpha*B*op(A) (side
  // right, order n), in place; A is triangular in the call's uplo, A and B
  // lie in the device matrix. Split in halves, op(A) = [S11 S12; S21 S22]
  // with one of S12, S21 zero; each half of B is formed from halves of B
  // that are still the input, so the order below matters. At the leaves
  // cuBLAS multiplies out of place into the workspace (every output element
  // independent) and the result is copied back.
  bool trmm_in_place(cublasSideMode_t side, cublasOperation_t op, cublasDiagType_t diag, lint m, lint n, T alpha,
                     const T *a, T *b) {
    const bool left = side == CUBLAS_SIDE_LEFT;
    const lint t = left ? m : n;
    if (t <= leaf_)
      return check(Point::kernel, blas::trmm(c_.blas, side, fill_, op, diag, m, n, alpha, a, ldda_, b, ldda_, dW_, m)) &&
             check(Point::copy, cudaMemcpy2DAsync(b, ldda_ * sizeof(T), dW_, m * sizeof(T), m * sizeof(T), n,
                                                  cudaMemcpyDeviceToDevice, c_.compute_stream));
    const lint h = split_half(t), r = t - h;
    const T *a11 = a, *a22 = a + h + std::size_t(h) * ldda_;
    // The stored off-diagonal block: A12 ('U', h-by-r) or A21 ('L', r-by-h);
    // op(A)'s is S12 = op(it) when op(A) is upper, S21 = op(it) otherwise.
    const T *off = upper_ ? a + std::size_t(h) * ldda_ : a + h;
    const bool op_upper = upper_ == (op == CUBLAS_OP_N);
    const T one(1);
    if (left) {
      T *b1 = b, *b2 = b + h;
      if (op_upper)  // B1 := S11*B1 + S12*B2, then B2 := S22*B2
        return trmm_in_place(side, op, diag, h, n, alpha, a11, b1) &&
               check(Point::kernel, blas::gemm(c_.blas, op, CUBLAS_OP_N, h, n, r, alpha, off, ldda_, b2, ldda_, one,
                                               b1, ldda_)) &&
               trmm_in_place(side, op, diag, r, n, alpha, a22, b2);
      // B2 := S21*B1 + S22*B2, then B1 := S11*B1
      return trmm_in_place(side, op, diag, r, n, alpha, a22, b2) &&
             check(Point::kernel,
                   blas::gemm(c_.blas, op, CUBLAS_OP_N, r, n, h, alpha, off, ldda_, b1, ldda_, one, b2, ldda_)) &&
             trmm_in_place(side, op, diag, h, n, alpha, a11, b1);
    }
    T *b1 = b, *b2 = b + std::size_t(h) * ldda_;
    if (op_upper)  // B2 := B1*S12 + B2*S22, then B1 := B1*S11
      return trmm_in_place(side, op, diag, m, r, alpha, a22, b2) &&
             check(Point::kernel,
                   blas::gemm(c_.blas, CUBLAS_OP_N, op, m, r, h, alpha, b1, ldda_, off, ldda_, one, b2, ldda_)) &&
             trmm_in_place(side, op, diag, m, h, alpha, a11, b1);
    // B1 := B1*S11 + B2*S21, then B2 := B2*S22
    return trmm_in_place(side, op, diag, m, h, alpha, a11, b1) &&
           check(Point::kernel,
                 blas::gemm(c_.blas, CUBLAS_OP_N, op, m, h, r, alpha, b2, ldda_, off, ldda_, one, b1, ldda_)) &&
           trmm_in_place(side, op, diag, m, r, alpha, a22, b2);
  }

  // C += A*A**H (op N, A t-by-k) or A**H*A (op C, A k-by-t) on the uplo
  // triangle of C (order t), in halves: the two diagonal halves recursively,
  // the off-diagonal block by gemm.
  bool herk_by_halves(cublasOperation_t op, lint t, lint k, const T *a, T *c) {
    using R = typename Prec<T>::real;
    if (t <= leaf_)
      return check(Point::kernel, blas::herk(c_.blas, fill_, op, t, k, R(1), a, ldda_, R(1), c, ldda_));
    const lint h = split_half(t), r = t - h;
    const bool by_rows = op == CUBLAS_OP_N;
    const T *a1 = a, *a2 = by_rows ? a + h : a + std::size_t(h) * ldda_;
    const cublasOperation_t first = by_rows ? CUBLAS_OP_N : op, second = by_rows ? blas::op_c<T>() : CUBLAS_OP_N;
    const T one(1);
    if (!herk_by_halves(op, h, k, a1, c)) return false;
    // 'U': C12 += A1*A2**H (op N) or A1**H*A2 (op C); 'L': C21 likewise with the halves swapped.
    const bool off_ok =
        upper_ ? check(Point::kernel, blas::gemm(c_.blas, first, second, h, r, k, one, a1, ldda_, a2, ldda_, one,
                                                 c + std::size_t(h) * ldda_, ldda_))
               : check(Point::kernel, blas::gemm(c_.blas, first, second, r, h, k, one, a2, ldda_, a1, ldda_, one,
                                                 c + h, ldda_));
    return off_ok && herk_by_halves(op, r, k, a2, c + h + std::size_t(h) * ldda_);
  }

  Context &c_;
  const Op op_;
  const bool upper_, unit_;
  const lint n_;
  T *const a_;
  const lint lda_, nb_, np_, ldda_, leaf_, pieces_;
  const cublasFillMode_t fill_;
  // 'L': uploads and the inverse recursion run from the last block (see the
  // top); trtri 'L': results also turn final from the last block.
  const bool reverse_, final_reverse_;
  bool pinned_ = false;  // the caller's matrix in pinned memory: uploads go straight up
  T *dA_ = nullptr, *dW_ = nullptr, *dInv_ = nullptr, *dLau_ = nullptr;

  std::vector<cudaEvent_t> arrived_;   // per upload position: its slab is on the device
  std::vector<cudaEvent_t> inv_up_;    // per block: inv(T_kk) from the CPU is in workspace
  std::vector<cudaEvent_t> lau_up_;    // ... and its product (of T_kk or of inv(T_kk), potri)
  std::vector<cudaEvent_t> final_ev_;  // per group of blocks that turn final at once (indexed by its first position)
  std::vector<cudaEvent_t> phase_ev_;  // compute stream: start, inverse done, product done (timing)

  Board board_;  // guards the counters below
  lint uploaded_ = 0, final_ = 0;  // positions in the upload and final orders
  std::vector<char> inv_done_, lau_done_;  // per block: inv_up_, lau_up_ recorded
  std::vector<lint> final_of_;  // per final position: the final_ev_ that makes it final
  lint waited_upload_ = 0;      // compute thread: upload positions the compute stream has waited for
  lint stored_ = 0;             // download thread: columns or rows final in the caller's array (Result::resume)
  clk::time_point start_;
  double uploads_done_ = 0, diagonals_done_ = 0, queued_ = 0;  // HQR_VERBOSE=2
  double final_wait_ = 0, dma_wait_ = 0, storing_ = 0;          // download thread, HQR_VERBOSE=2
};

// The one trip's kernels, on the n-by-n lower triangle L of d (ldd; for
// uplo 'U' the device holds L = U**H, one_trip.cuh):
//   u (N-by-N, N >= n) = [L**H 0; 0 I], zeros below its diagonal, with a
//   unit diagonal for `unit`;
//   d's lower triangle = x(0:n, 0:n)**H for the upper x (below its
//   diagonal only for `unit`, whose diagonal LAPACK leaves as it was);
//   *info = the first i (from 1) with L(i,i) exactly zero, else 0.
template <class S> __global__ void upper_from_lower(int64_t n, int64_t big, const S *d, int64_t ldd, bool unit, S *u) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < big * big; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % big, j = e / big;
    u[e] = i > j || (j >= n && i != j) ? dev_zero(S()) : i == j && (unit || j >= n) ? dev_one(S()) : cj(d[j + i * ldd]);
  }
}
template <class S> __global__ void lower_from_upper(int64_t n, const S *x, int64_t ldx, bool unit, S *d, int64_t ldd) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < n * n; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % n, j = e / n;
    if (i > j || (i == j && !unit)) d[i + j * ldd] = cj(x[j + i * ldx]);
  }
}
template <class S> __global__ void zero_diagonal_info(int64_t n, const S *d, int64_t ldd, int *info) {
  const int first = first_zero_diagonal(n, d, ldd);
  if (threadIdx.x == 0) *info = first;
}

// Small orders go in one trip (one_trip.cuh), on the lower triangle: for
// uplo 'U' the device holds L = U**H, and inv(U**H) = inv(U)**H,
// L**H*L = U*U**H, and potri of the factor L gives the same inverse as of
// U. With U = L**H: trtri is inv(U)**H, inv(U) by cholqr.cuh's
// inverse_upper on U padded with I to an order N of 32 times a power of
// two; potri is the lower triangle of inv(U) inv(U)**H (herk) and lauum of
// U U**H (herk). Up to 4096 for trtri and potri (past it the order pads to
// 8192, two squares of 0.5 GiB in double); lauum, not padded, up to 4608,
// the largest double order whose packed triangle fits the staging twice.
// Measured reasons (H200):
// - hqr's steps, not cuSOLVER's trtri/potri: those took 3.0 and 3.6 ms on the device at 2048
//   (bench/results/history/inverse-NVIDIA-H200-2026-11-26c.txt)
// - one trip against the hybrid, d L: potri 4096 0.0055 s / 0.0150, trtri 4608 lost (0.0110 / 0.0097)
//   (bench/results/inverse-NVIDIA-H200-2026-11-27.txt)
// - lauum: 4096 5.5-5.9 ms against the hybrid's 7.6-9.7
//   (bench/results/history/inverse-tuning-NVIDIA-H200-2026-11-26.txt)
lint one_trip_limit(Op op) { return op == Op::lauum ? 4608 : 4096; }

template <class T> struct OneTripInverse {
  using R = typename Prec<T>::real;
  Op op;
  bool unit;
  const char *name = op == Op::trtri ? "trtri" : op == Op::lauum ? "lauum" : "potri";
  const char *refused = "singular on the device: LAPACK computes it";
  lint order = 0;  // N: u and x are N by N
  std::size_t square() const { return (std::size_t(order) * order * sizeof(T) + 255) / 256 * 256; }
  // Its launches depend on op, unit and n alone: one_trip.cuh replays them as a graph.
  unsigned graph_key() const { return unsigned(op) << 1 | unsigned(unit); }
  bool init(Context &, lint n, T *, std::size_t *work_bytes) {
    order = op == Op::lauum ? n : 32;
    while (order < n) order *= 2;
    *work_bytes = (op == Op::lauum ? 1 : 2) * square();
    return true;
  }
  bool run(Context &c, lint n, T *d, void *work, int *dinfo) {
    T *u = static_cast<T *>(work), *x = reinterpret_cast<T *>(static_cast<char *>(work) + square());
    const cudaStream_t st = c.compute_stream;
    upper_from_lower<<<grid_for(int64_t(order) * order), 256, 0, st>>>(n, order, dv(d), n, unit, dv(u));
    if (!ok(cudaGetLastError())) return false;
    if (op == Op::potri || (op == Op::trtri && !unit))
      zero_diagonal_info<<<1, 256, 0, st>>>(n, dv(d), n, dinfo);
    else
      (void)cudaMemsetAsync(dinfo, 0, sizeof(int), st);
    if (!ok(cudaGetLastError())) return false;
    if (op == Op::lauum)
      return ok(blas::herk(c.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, n, R(1), u, order, R(0), d, n));
    if (!inverse_upper(c.blas, st, u, order, x, order, order, static_cast<T *>(nullptr),
                       [](auto status) { return ok(status); }))
      return false;
    if (op == Op::potri)
      return ok(blas::herk(c.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, n, R(1), x, order, R(0), d, n));
    lower_from_upper<<<grid_for(int64_t(n) * n), 256, 0, st>>>(n, dv(x), order, unit, dv(d), n);
    return ok(cudaGetLastError());
  }
};

// Where the device set's schedule (inverse_node.cu) runs the call: sets of
// at least kNodeGpus from kNodeOrder, and every set of several GPUs at
// every order where HQR_GPU_MIN_N forces the GPU path (the tests).
// Measured on 4 H100s: dpotri L 32768 0.354 s on 4 GPUs, 0.620 on 2,
// 0.553 on one; 49152 0.94 on 4 against 1.74; zpotri 16384 0.162 against
// 0.289 (bench/results/inverse-node-NVIDIA-H100-80GB-HBM3-x4-2026-11-28.txt).
constexpr lint kNodeOrder = 24576;
constexpr int kNodeGpus = 4;

// The one trip at small orders (unless HQR_NB is set), else the hybrid.
bool takes_one_trip(Op op, lint n) { return config::nb() <= 0 && n <= one_trip_limit(op); }
lint inverse_nb(lint n) { return std::min<lint>(config::nb() > 0 ? config::nb() : kDefaultNb, n); }

template <class T> Result run(Op op, bool upper, bool unit, lint n, T *a, lint lda) {
  const DeviceSet set = device_set();
  if (!set.count) return {false, 0, context_error(), 0};
  if (set.count > 1 && (config::gpu_min_n() >= 0 || (set.count >= kNodeGpus && n >= kNodeOrder))) {
    const Result r = inverse_node(set, op, upper, unit, n, a, lda);
    // Nothing stored (the members' memory too small, or a failure before
    // the first store): one GPU may still serve.
    if (r.ran || r.resume > 0) return r;
  }
  Context &c = *set.member[0];
  if (!takes_one_trip(op, n)) {
    const double need = HybridInverse<T>::bytes(op, n, inverse_nb(n));
    std::size_t budget;
    {
      std::lock_guard<std::mutex> g(c.lock);
      budget = schedule_budget(c, need);
    }
    if (budget && need > double(budget)) return inverse_out_of_core(set, op, upper, unit, n, a, lda, budget);
  }
  return inverse_one_gpu(c, op, upper, unit, n, a, lda);
}

}  // namespace

template <class T> Result inverse_one_gpu(Context &c, Op op, bool upper, bool unit, lint n, T *a, lint lda) {
  std::lock_guard<std::mutex> g(c.lock);
  if (!ok(cudaSetDevice(c.device))) return {false, 0, "cudaSetDevice failed", 0};
  if (takes_one_trip(op, n) && triangle_trip_fits<T>(c, n, a, lda)) {
    OneTripInverse<T> device_op{op, unit};
    return one_trip(c, device_op, upper, n, a, lda);
  }
  return HybridInverse<T>(c, op, upper, unit, n, a, lda, inverse_nb(n)).run();
}
template <class T> double inverse_in_core_bytes(Op op, lint n, lint nb) {
  return HybridInverse<T>::bytes(op, n, nb > 0 ? nb : inverse_nb(n));
}

template <class T> Result trtri(bool upper, bool unit, lint n, T *a, lint lda) {
  return run(Op::trtri, upper, unit, n, a, lda);
}
template <class T> Result lauum(bool upper, lint n, T *a, lint lda) { return run(Op::lauum, upper, false, n, a, lda); }
template <class T> Result potri(bool upper, lint n, T *a, lint lda) { return run(Op::potri, upper, false, n, a, lda); }

#define HQR_INSTANTIATE(T)                                                          \
  template Result inverse_one_gpu(Context &, Op, bool, bool, lint, T *, lint);      \
  template double inverse_in_core_bytes<T>(Op, lint, lint);                         \
  template Result trtri(bool, bool, lint, T *, lint);      \
  template Result lauum(bool, lint, T *, lint);            \
  template Result potri(bool, lint, T *, lint);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
