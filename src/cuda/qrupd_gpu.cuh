// What the GPU QR updates share (qrupd_cols.cu: delcols and addcols;
// qrupd_rows.cu: addrows with and without Q, and delrows), s, d, c and z
// (one template; Q unitary for c and z, conjugate transposes where s and d
// transpose), host memory in and out; src/host/qrupd.cpp decides when they run and
// src/cpu/qrupd.cpp has the CPU kernels:
//   Piece, pieces  rectangles of the caller's arrays, each at most one
//                  staging slot, covering a trapezoid column by column;
//   Update         one update's steps: the first failure (or injected
//                  fault) ends it, device memory carved from the context,
//                  uploads through the rotating upload slots, downloads into
//                  pinned staging that reaches the caller only in finish(),
//                  Q's rows streamed out (stream_rows) while the device
//                  makes the next group of them, R's strict lower part
//                  cleared on the host while the device works (Clearing);
//   RightBlocks    the reflectors of a QR done on the device as compact-WY
//                  blocks, formed once, that multiply any rows of Q from
//                  the right with cuBLAS (block_reflector.cuh);
//   HostReflectors the same reflectors in pinned host memory, for the CPU
//                  to finish Q's rows that did not come back;
//   factor         a dense QR on the device (geqrf_device: the hybrid
//                  geqrf's CholeskyQR2 panels);
//   run_locked     one update under the context's lock, its streams left
//                  idle after a failure.
//
// Atomic with respect to failures: the caller's arrays are written only
// after every device step and every download into pinned memory has
// succeeded, so a failing GPU (or HQR_FAULT) leaves them exactly as they
// came and the CPU path redoes the update. That needs the output to fit the
// context's pinned staging (Result.why says so when it does not). Q, too
// large for the staging (2 GiB at M = 16384), is the exception: it streams
// into the caller's array by rows once R is staged and the reflectors are
// on the host, and if that fails the CPU applies them to the rows left (a
// row of the new Q depends only on the same row of the old one). The host
// steps that run while the device works (delcols' shift of R's top rows,
// addrows' move of Q's columns) are undone when the device fails.
//
// In an unnamed namespace, like qr_kernels.cuh: each translation unit that
// uses it gets its own copy.
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuda/block_reflector.cuh"
#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "cuda/qr_device.hpp"
#include "host/config.hpp"
#include "host/fault.hpp"
#include "host/next_lapack.hpp"
#include "host/trace.hpp"

namespace hqr::gpu {
namespace {

using idx = std::ptrdiff_t;
using fault::Point;

// A rectangle of the caller's array (rows r0.., columns c0..) and where it
// goes on the device; `rows_of(c)` columns are cut to what they hold.
struct Piece {
  idx r0, c0, m, n;
};

// Column-major rectangles of at most one staging slot each, covering
// columns c0..c0+cols-1 with rows r0..r0+rows(c)-1 where rows(c) is
// nondecreasing in c (a trapezoid): each piece takes the rows of its last
// column.
template <class F> std::vector<Piece> pieces(idx r0, idx c0, idx cols, std::size_t elem, F rows) {
  std::vector<Piece> out;
  const idx slot = idx(Context::kSlotBytes / elem);
  for (idx c = 0; c < cols;) {
    const idx m = rows(c0 + c);
    if (m <= 0) {
      ++c;
      continue;
    }
    if (m > slot) {  // one column in several pieces
      for (idx r = 0; r < m; r += slot) out.push_back({r0 + r, c0 + c, std::min(slot, m - r), 1});
      ++c;
      continue;
    }
    idx n = 1;
    while (c + n < cols && rows(c0 + c + n) * (n + 1) <= slot && rows(c0 + c + n) > 0) ++n;
    const idx mm = rows(c0 + c + n - 1);
    out.push_back({r0, c0 + c, mm, n});
    c += n;
  }
  return out;
}

template <class T> class Update {
 public:
  explicit Update(Context &c) : c_(c) {}
  ~Update() {
    for (cudaEvent_t e : produced_)
      if (e) cudaEventDestroy(e);
  }
  Update(const Update &) = delete;
  Update &operator=(const Update &) = delete;
  // The verbose trace's phases (HQR_VERBOSE=2): seconds since the update
  // began at each mark; with `drain`, after the compute stream has run dry
  // (a synchronisation the untraced call does not make).
  void mark(const char *what, bool drain = false) {
    if (!phases_.on()) return;
    if (drain) cudaStreamSynchronize(c_.compute_stream);
    phases_.mark(what);
  }
  void print_marks(const char *routine) const { phases_.print(routine); }

  template <class S> bool check(S status, Point p) {
    if (failed_) return false;
    if (!ok(status) || fault::hit(p)) {
      failed_ = true;
      why_ = p == Point::alloc ? "GPU out of memory" : "CUDA error";
    }
    return !failed_;
  }
  bool launched() { return check(cudaGetLastError(), Point::kernel); }
  // A step that reports a Result (geqrf_device).
  bool ran(const Result &r) {
    if (!failed_ && !r.ran) {
      failed_ = true;
      why_ = r.why;
    }
    return !failed_;
  }
  const char *why() const { return why_; }

  // Device memory: the operand buffers and the scratch, carved in order.
  bool reserve(std::size_t matrix_elems, std::size_t work_elems) {
    const std::size_t align = 64;  // elements: 256-byte aligned pieces
    matrix_elems = (matrix_elems + align - 1) / align * align + align * 4;
    work_elems = (work_elems + align - 1) / align * align + align * 8;
    if (fault::hit(Point::alloc) || !c_.matrix.reserve(matrix_elems * sizeof(T)) ||
        !c_.workspace.reserve(work_elems * sizeof(T))) {
      failed_ = true;
      why_ = "GPU out of memory";
      return false;
    }
    mat_ = static_cast<T *>(c_.matrix.get());
    work_ = static_cast<T *>(c_.workspace.get());
    return true;
  }
  T *take_matrix(std::size_t elems) { return take(mat_, elems); }
  T *take_work(std::size_t elems) { return take(work_, elems); }
  // Pinned host memory for the reflectors (HostReflectors) and, where it
  // needs it, R's staging (stage_r), carved in order.
  // required = false: a refusal is not a failure (the caller has another
  // way, and reserves again).
  bool reserve_host(std::size_t elems, bool required = true) {
    if (!c_.reflectors.reserve((elems + 256) * sizeof(T))) {
      if (!required) return false;
      failed_ = true;
      why_ = "out of pinned host memory";
      return false;
    }
    host_ = static_cast<T *>(c_.reflectors.get());
    return true;
  }
  T *take_host(std::size_t elems) { return take(host_, elems); }

  // Caller -> device through the upload slots: the host copies piece i+1
  // into its slot while piece i is on the wire. The slots rotate over all
  // the uploads of a call: a slot is refilled only after the DMA that last
  // read it has finished (a later upload must not overwrite a piece of an
  // earlier one still waiting for its DMA).
  bool upload(const std::vector<Piece> &ps, const T *h, idx ldh, T *d, idx ldd, idx dr0, idx dc0) {
    for (const Piece &pc : ps) {
      StagingSlot &s = c_.upload_slots[uploads_ % Context::kSlots];
      if (uploads_++ >= Context::kSlots && !check(cudaEventSynchronize(s.dma_done), Point::sync)) return false;
      copy_block(c_.upload_copies, sizeof(T), pc.m, pc.n, h + pc.r0 + pc.c0 * ldh, ldh, s.host, pc.m);
      if (!check(cudaMemcpy2DAsync(d + (pc.r0 - dr0) + (pc.c0 - dc0) * ldd, ldd * sizeof(T), s.host,
                                   pc.m * sizeof(T), pc.m * sizeof(T), pc.n, cudaMemcpyHostToDevice,
                                   c_.upload_stream),
                 Point::copy) ||
          !check(cudaEventRecord(s.dma_done, c_.upload_stream), Point::copy))
        return false;
    }
    return true;
  }

  // Device -> pinned staging, laid one piece after another; the caller's
  // arrays are written only by finish(), once every transfer has landed.
  struct Out {
    Piece pc;
    T *host;  // the caller's array (ld)
    idx ld;
    const T *staged;
  };
  static std::size_t staged_elems(const std::vector<Piece> &ps) {
    std::size_t e = 0;
    for (const Piece &p : ps) e += std::size_t(p.m) * p.n;
    return e;
  }
  bool fits(std::size_t elems) const { return elems * sizeof(T) <= c_.staging_memory.size(); }
  bool download(const std::vector<Piece> &ps, const T *d, idx ldd, idx dr0, idx dc0, T *h, idx ldh) {
    T *base = stage_ ? stage_ : static_cast<T *>(c_.staging_memory.get());
    for (const Piece &pc : ps) {
      if (!check(cudaMemcpy2DAsync(base + staged_, pc.m * sizeof(T), d + (pc.r0 - dr0) + (pc.c0 - dc0) * ldd,
                                   ldd * sizeof(T), pc.m * sizeof(T), pc.n, cudaMemcpyDeviceToHost,
                                   c_.download_stream),
                 Point::copy))
        return false;
      outs_.push_back({pc, h, ldh, base + staged_});
      staged_ += std::size_t(pc.m) * pc.n;
    }
    return true;
  }
  // Every transfer in: now the caller's arrays take the results.
  bool land() { return check(cudaStreamSynchronize(c_.download_stream), Point::sync); }
  void finish() {
    for (const Out &o : outs_)
      copy_block(c_.download_copies, sizeof(T), o.pc.m, o.pc.n, o.staged, o.pc.m, o.host + o.pc.r0 + o.pc.c0 * o.ld,
                 o.ld);
    mark("copied out");
  }
  // The update's end: the staged results into the caller's arrays
  // (finish), the trace, and the Result; `why` and `resume` as gpu.hpp says.
  Result done(const char *routine, const char *why = nullptr, lint resume = 0) {
    finish();
    mark("landed");
    print_marks(routine);
    return {true, 0, why, resume};
  }
  // Rows c+1..m-1 of h's columns c = c0..c1-1 (below the diagonal) become
  // zeros, each column's rows read first (mostly they are zero already and
  // stay untouched), on the pool's threads (by default the upload copy
  // threads, idle while the device computes).
  void clear_below_diagonal(T *h, idx ldh, idx c0, idx c1, idx m, CopyPool *pool = nullptr) {
    std::vector<Below> bs;
    for (idx c = c0; c < c1 && c + 1 < m; ++c) bs.push_back({h + c * ldh, c + 1, m});
    clear(pool ? *pool : c_.upload_copies, bs);
  }
  // The same on a thread of its own, once the uploads are done: R's rows
  // below the diagonal are read by neither path, so they can become zeros
  // while the device works and Q streams out, rather than after R lands,
  // where it cost ~7 ms of addcols at J = 1, delrows and addrows with Q
  // (H100, bench/results/update-NVIDIA-H100-80GB-HBM3-2026-11-26b.txt, item 2).
  // Joined by wait() or on leaving the scope.
  class Clearing {
   public:
    Clearing(Update &u, T *h, idx ldh, idx c0, idx c1, idx m, CopyPool *pool = nullptr)
        : t_([&u, h, ldh, c0, c1, m, pool] { u.clear_below_diagonal(h, ldh, c0, c1, m, pool); }) {}
    ~Clearing() { wait(); }
    void wait() {
      if (t_.joinable()) t_.join();
    }

   private:
    std::thread t_;
  };

  // R's staging where Q's rows stream out after it (stream_rows): the
  // download slots must stay free, so R goes to the upload slots (idle by
  // then, the staging's first half) where it fits, else to pinned host
  // memory after the reflectors: reserve_host counts host_r_elems(elems)
  // more, and stage_r(elems) comes before R's download. R's upper trapezoid
  // of 4096 columns is 67 MB in d, 134 MB in z, beside the slots' 96 MiB.
  static std::size_t host_r_elems(std::size_t elems) {
    return elems * sizeof(T) <= std::size_t(Context::kSlots) * Context::kSlotBytes ? 0 : elems + 64;
  }
  void stage_r(std::size_t elems) {
    if (host_r_elems(elems) > 0) stage_ = take_host(elems);
  }

  // Device rows -> the caller's rows (nrows-by-ncols, d at the first row
  // and column of the block, likewise h), blocks of rows in increasing
  // order, each in tiles of columns (a slot each; a block's tiles fill at
  // most about half the slots) through the download slots: a block is
  // copied out once all its tiles have landed (so that a failure never
  // leaves a row half-written) while the next block's DMAs run. Returns how
  // many leading rows of h hold their result (all of them unless a step
  // failed; the rows after the count are untouched).
  // Rows, not columns: a row of Q's result depends only on the same row of
  // the input, so the CPU can finish the rows that did not come back.
  // With `from_end`, the blocks go from the last row up, and the count is
  // of trailing rows.
  // Blocks as tall as that allows, up to kBlockRows (HQR_NB if set): the
  // host writes each column's rows of a tile as one segment into the
  // caller's column-major array, and short segments cost a page walk and a
  // few cache lines each: 1352-byte segments copied at 25 GB/s, 5408-byte ones at 48
  // (16 threads, H100 host, bench/results/update-NVIDIA-H100-80GB-HBM3-2026-11-26b.txt, item 1).
  // `produce`, if given, queues on the compute stream the work that makes
  // rows r0..r1-1 of d final (produce(r0, r1)); it is called for groups of
  // at least kGroupRows rows, one group ahead of the downloads, so that the
  // device computes the next group while this one leaves, and each group's
  // DMAs wait for its own work only. Groups of 4096, not fewer rows: at 768
  // the products' gemms were too thin to fill the GPU (addcols J = 1 0.19 s against 0.18).
  static constexpr idx kGroupRows = 4096, kBlockRows = 1024;
  using Producer = std::function<bool(idx, idx)>;
  idx stream_rows(const T *d, idx ldd, T *h, idx ldh, idx nrows, idx ncols, bool from_end = false,
                  const Producer &produce = nullptr) {
    if (nrows <= 0 || ncols <= 0) return nrows > 0 ? nrows : 0;
    const std::size_t row_bytes = std::size_t(ncols) * sizeof(T), half = Context::kSlots / 2 * Context::kSlotBytes;
    if (row_bytes > half) {  // never in practice
      failed_ = true;
      why_ = "a row of Q larger than the staging";
      return 0;
    }
    const int nb = config::nb();  // HQR_NB: tests take several blocks at small orders
    // Narrow rows (the economy form's Q: a few hundred columns) take blocks
    // of a slot's bytes rather than kBlockRows rows: at 1024 rows of 210
    // doubles, the per-block waits and hand-offs held 1,000,000 rows to 14.6
    // GB/s (H200, bench/results/update-econ-NVIDIA-H200-2026-12-03.txt).
    const idx tall = std::max(kBlockRows, idx(Context::kSlotBytes / row_bytes));
    const idx per = std::min({nrows, nb > 0 ? idx(nb) : tall, idx(half / row_bytes)});  // rows a block
    const idx tc = std::min(ncols, idx(Context::kSlotBytes / (std::size_t(per) * sizeof(T))));  // columns a tile
    const idx tiles_per = (ncols + tc - 1) / tc, blocks = (nrows + per - 1) / per, tiles = blocks * tiles_per;
    auto slot = [&](idx t) -> StagingSlot & { return c_.download_slots[t % Context::kSlots]; };
    // Block b's first row: from the top, or from the end (the last block,
    // at the top, takes what is left).
    auto first = [&](idx b) { return from_end ? std::max<idx>(0, nrows - (b + 1) * per) : b * per; };
    auto rows = [&](idx b) { return from_end ? nrows - b * per - first(b) : std::min(per, nrows - b * per); };
    const idx group = std::max<idx>(1, kGroupRows / per);  // blocks
    const idx groups = (blocks + group - 1) / group;
    auto make = [&](idx g) {  // group g's rows, then its event
      const idx b0 = g * group, b1 = std::min(blocks, b0 + group) - 1;
      const idx r0 = std::min(first(b0), first(b1)), r1 = std::max(first(b0) + rows(b0), first(b1) + rows(b1));
      return produce(r0, r1) && check(cudaEventRecord(produced_[g % 2], c_.compute_stream), Point::kernel);
    };
    if (produce) {
      for (cudaEvent_t &e : produced_)
        if (!e && !check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), Point::sync)) return 0;
      if (!make(0)) return 0;
    }
    // Tile t: block t / tiles_per, columns c0(t) .. c0(t) + cols(t) - 1.
    auto c0 = [&](idx t) { return (t % tiles_per) * tc; };
    auto cols = [&](idx t) { return std::min(tc, ncols - c0(t)); };
    auto issue = [&](idx t) {
      StagingSlot &s = slot(t);
      const idx b = t / tiles_per;
      if (produce && t % tiles_per == 0 && b % group == 0) {
        const idx g = b / group;
        if (!check(cudaStreamWaitEvent(c_.download_stream, produced_[g % 2], 0), Point::sync) ||
            (g + 1 < groups && !make(g + 1)))
          return false;
      }
      return check(cudaMemcpy2DAsync(s.host, rows(b) * sizeof(T), d + first(b) + c0(t) * ldd, ldd * sizeof(T),
                                     rows(b) * sizeof(T), cols(t), cudaMemcpyDeviceToHost, c_.download_stream),
                   Point::copy) &&
             check(cudaEventRecord(s.dma_done, c_.download_stream), Point::copy);
    };
    idx issued = 0;
    bool issuing = true;
    for (; issued < std::min<idx>(tiles, Context::kSlots) && issuing; ++issued) issuing = issue(issued);
    idx done = 0;
    for (idx b = 0; b < blocks; ++b) {
      const idx t0 = b * tiles_per, t1 = t0 + tiles_per;
      bool landed = issued >= t1;
      for (idx t = t0; t < t1 && landed; ++t) landed = check(cudaEventSynchronize(slot(t).dma_done), Point::sync);
      if (!landed) break;
      for (idx t = t0; t < t1; ++t) {
        copy_block(c_.download_copies, sizeof(T), rows(b), cols(t), slot(t).host, rows(b),
                   h + first(b) + c0(t) * ldh, ldh);
        if (issuing && issued < tiles) issuing = issue(issued++);
      }
      done += rows(b);
    }
    if (done < nrows) {  // no DMA may still land in a slot when the next call takes it
      cudaStreamSynchronize(c_.download_stream);
      (void)cudaGetLastError();
    }
    return done;
  }

  Context &c_;

 private:
  // Rows r0..r1-1 of the column at x: zeros.
  struct Below {
    T *x;
    idx r0, r1;
  };
  // Each column's rows read first (mostly they are zero already and stay
  // untouched), the columns spread evenly over the pool's threads.
  static void clear(CopyPool &pool, const std::vector<Below> &bs) {
    if (bs.empty()) return;
    const idx parts = std::min<idx>(pool.threads(), idx(bs.size()));
    pool.run(int(parts), [&](int k) {
      const idx b0 = idx(bs.size()) * k / parts, b1 = idx(bs.size()) * (k + 1) / parts;
      for (idx b = b0; b < b1; ++b)
        for (idx r = bs[b].r0; r < bs[b].r1; ++r)
          if (bs[b].x[r] != T(0)) {  // NaN too
            std::fill(bs[b].x + r, bs[b].x + bs[b].r1, T(0));
            break;
          }
    });
  }
  T *take(T *&at, std::size_t elems) {
    T *p = at;
    at += (elems + 63) / 64 * 64;
    return p;
  }
  Phases phases_;
  bool failed_ = false;
  const char *why_ = nullptr;
  T *mat_ = nullptr, *work_ = nullptr, *host_ = nullptr;
  T *stage_ = nullptr;  // download()'s staging when not the context's (stage_r)
  std::size_t staged_ = 0;
  int uploads_ = 0;  // pieces uploaded so far (slot rotation)
  std::vector<Out> outs_;
  cudaEvent_t produced_[2] = {};  // stream_rows: the latest two groups' work done
};

// The reflectors of a QR done on the device, copied to the host before any
// result reaches the caller: Q's columns col0..col0+order-1 are multiplied
// by them from the right. Only used when Q's rows could not all come back
// (Update::stream_rows): the CPU then applies them to the rows left. The
// copy (into pinned memory: pageable, it took longer than the QR) is queued
// on the compute stream; it has landed once the download stream, which
// waits for the compute stream, has brought R in (Update::land).
template <class T> struct HostReflectors {
  idx col0 = 0, order = 0, k = 0;  // HostReflectors<T>{col0, order, k}; k = 0: none
  T *v = nullptr, *tau = nullptr;  // order-by-k (ld order), k
  static std::size_t elems(idx order, idx k) { return k > 0 ? std::size_t(order + 1) * k + 128 : 0; }
  bool fetch(Update<T> &u, const T *dv, idx lddv, const T *dtau) {
    if (k == 0) return true;
    v = u.take_host(std::size_t(order) * k);
    tau = u.take_host(std::size_t(k));
    return u.check(cudaMemcpy2DAsync(v, order * sizeof(T), dv, lddv * sizeof(T), order * sizeof(T), k,
                                     cudaMemcpyDeviceToHost, u.c_.compute_stream),
                   Point::copy) &&
           u.check(cudaMemcpyAsync(tau, dtau, k * sizeof(T), cudaMemcpyDeviceToHost, u.c_.compute_stream),
                   Point::copy);
  }
  // Rows q(0:rows-1, :) of the caller's Q (still the input) times H_1...H_k.
  void apply(T *q, idx ldq, idx rows) const {
    if (k == 0 || rows <= 0) return;
    const lint mm = lint(rows), nn = lint(order), kk = lint(k), ldv = lint(order), ld = lint(ldq);
    lint info = 0, lw = -1;
    T query{};
    next::ormqr<T>("R", "N", &mm, &nn, &kk, v, &ldv, tau, q + col0 * ldq, &ld, &query, &lw, &info);
    lw = std::max<lint>(1, lint(std::real(query)));
    std::vector<T> work(static_cast<std::size_t>(lw));
    next::ormqr<T>("R", "N", &mm, &nn, &kk, v, &ldv, tau, q + col0 * ldq, &ld, work.data(), &lw, &info);
  }
};

// The reflectors H_1 ... H_k of a QR done on the device (a, lda: order
// rows; tau) as compact-WY blocks of kRightNb, formed once (V with its unit
// triangle written out, and T: block_t) so that any rows of Q can then be
// multiplied by them at gemm rates (cuSOLVER's ormqr ran these products at
// about 12 TFLOP/s) -- all at once, or group by group as they leave
// (Update::stream_rows).
constexpr idx kRightNb = 256;
template <class T> struct RightBlocks {
  idx order = 0, k = 0;
  T *v = nullptr, *t = nullptr;  // block j: V at v + j*order (mk-by-kb, ld mk), T at t + j*kRightNb
  // Device elements for v and t, and the scratch of form and apply (rows of C at most).
  static std::size_t elems(idx order, idx k) {
    return std::size_t(order) * k + std::size_t(k + kRightNb) * kRightNb + 128;
  }
  static std::size_t scratch(idx rows) { return std::size_t(std::max<idx>(rows, kRightNb)) * kRightNb + 64; }
  bool form(Update<T> &u, idx order_, idx k_, const T *a, idx lda, const T *tau, T *space, T *g) {
    order = order_;
    k = k_;
    v = space;
    t = v + std::size_t(order) * k + 64;
    for (idx j = 0; j < k; j += kRightNb)
      if (!block_t(u, order - j, std::min(kRightNb, k - j), a + j + j * lda, lda, v + std::size_t(j) * order,
                   order - j, tau + j, t + std::size_t(j) * kRightNb, kRightNb, g))
        return false;
    return true;
  }
  // C (rows-by-order, ldc) := C * H_1 ... H_k; w: scratch(rows).
  bool apply(Update<T> &u, idx rows, T *c, idx ldc, T *w) const {
    for (idx j = 0; j < k; j += kRightNb) {
      const idx kb = std::min(kRightNb, k - j), mk = order - j;
      if (!apply_block_reflector(u, false, false, rows, mk, kb, v + std::size_t(j) * order, mk,
                                 t + std::size_t(j) * kRightNb, kRightNb, c + j * ldc, ldc, w, rows))
        return false;
    }
    return true;
  }
};

// A dense QR on the device, in place: A and tau as xGEQRF leaves them.
// The hybrid geqrf's (CholeskyQR2 panels; geqrf_device), whose scratch
// is not the Update's.
template <class T> bool factor(Update<T> &u, idx m, idx n, T *a, idx lda, T *tau) {
  return u.ran(geqrf_device(u.c_, lint(m), lint(n), a, lint(lda), tau));
}

template <class T> Result run_locked(Context &c, const std::function<Result(Update<T> &)> &f) {
  std::lock_guard<std::mutex> g(c.lock);
  if (!ok(cudaSetDevice(c.device))) return {false, 0, "cudaSetDevice failed", 0};
  Update<T> u(c);
  Result r = f(u);
  if (!r.ran) {
    // Leave the streams idle for the next call; the error (if any) is not sticky.
    cudaStreamSynchronize(c.upload_stream);
    cudaStreamSynchronize(c.compute_stream);
    cudaStreamSynchronize(c.download_stream);
    (void)cudaGetLastError();
  }
  return r;
}

}  // namespace
}  // namespace hqr::gpu
