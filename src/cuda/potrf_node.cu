// xPOTRF over a device set (every GPU of the node, or those HQR_DEVICE
// names), host memory in and out, in core or out of core.
//
// The factor is cut into panels nb wide: block columns of L (uplo 'L'),
// block rows of U ('U'), each stored on the device as the caller stores it
// (rows k0..n-1 of a block column, or columns k0..n-1 of a block row).
// Panel k lives on member k % P of the set, which alone factors it.
//
// Windows. The panels that the members' memory holds at once form a
// window; windows run one after another, left-looking between them: before
// window w is factored, every member applies the final panels of the
// windows before it, read back from the caller's array, to its own panels
// of w (out of core). When the whole triangle fits there is one window
// (in core). HQR_GPU_MEMORY makes the members plan with less memory, so
// that tests reach the out-of-core schedule at small orders.
//
// Inside a window the factorization is right-looking with a look-ahead of
// one panel. Member d, for each panel k of the window in order:
//   k foreign: receive it from its owner, GPU to GPU (NVLink where the
//              topology has it), into a ring of slots
//   update its next own panel j with k; if j = k + 1, factor j at once
//   (cuSOLVER's potrf of the diagonal block, trsm of the rest) and
//   publish it, so that the others can receive it while
//   it updates its other own panels with k.
//
// Each member moves its own panels through its own pinned staging and
// copy threads: each byte of the caller's triangle is uploaded once and
// each final panel downloaded once. Panels are stored into the caller's
// array in panel order, so that it always holds final panels and then
// input: a CUDA error, an injected fault or a leading minor that is not
// positive definite (or NaN) stops the call with Result::resume at the
// first column not final, and the CPU finishes from there exactly as
// LAPACK would.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cuda/blas.cuh"
#include "cuda/context.hpp"
#include "cuda/device_potrf.cuh"
#include "cuda/gpu.hpp"
#include "cuda/handoff.hpp"
#include "cuda/node.hpp"
#include "host/config.hpp"
#include "host/fault.hpp"

namespace hqr::gpu {
namespace {

constexpr int kRing = 3;  // foreign panels a member holds at once

template <class T> class NodePotrf {
 public:
  NodePotrf(const DeviceSet &set, bool upper, lint n, T *a, lint lda, lint nb, bool log_det)
      : set_(set), P_(set.count), upper_(upper), n_(n), a_(a), lda_(lda), nb_(nb), np_((n + nb - 1) / nb),
        log_det_(log_det) {}

  Result run() {
    if (std::size_t(upper_ ? nb_ : n_) * sizeof(T) > Context::kSlotBytes)
      return {false, 0, "matrix column larger than staging", 0};
    members_.reset(new Member[P_]);
    final_.assign(np_, nullptr);
    for (int d = 0; d < P_; ++d)
      if (!setup(d)) return finish({false, 0, failed_ ? "CUDA error" : "GPU out of memory", 0});
    if (!plan()) return finish({false, 0, kTooSmall, 0});
    for (const Window &w : plan_) {
      if (halt_) break;
      if (!lay_out(w)) return finish({false, 0, "GPU out of memory", stored_columns_});
      window_ = w;
      run_window(w.w0, w.w1);
    }
    for (int d = 0; d < P_; ++d) {
      const Context &c = *members_[d].c;
      cudaSetDevice(c.device);
      const cudaStream_t streams[] = {c.compute_stream, c.panel_stream, c.upload_stream, c.download_stream};
      for (cudaStream_t s : streams) check(cudaStreamSynchronize(s), fault::Point::sync);
    }
    if (failed_) return finish({false, 0, "CUDA error", stored_columns_, partial_rows_, partial_cols_});
    if (not_spd_)
      return finish({false, 0, "leading minor not positive definite: LAPACK finishes", stored_columns_, partial_rows_,
                     partial_cols_});
    Result done{true, 0, nullptr, 0};
    if (log_det_ && !sum_logs(done)) return finish({false, 0, "CUDA error", 0});
    return finish(done);
  }

  int windows() const { return int(plan_.size()); }

  // xPOLOGDET: each panel's sum from its owner, added in panel order (the
  // streams are synchronized by now).
  bool sum_logs(Result &r) {
    std::vector<std::vector<double>> logs(P_, std::vector<double>(np_));
    for (int d = 0; d < P_; ++d)
      if (!check(cudaSetDevice(members_[d].c->device), fault::Point::sync) ||
          !check(cudaMemcpy(logs[d].data(), members_[d].dlog, sizeof(double) * np_, cudaMemcpyDeviceToHost),
                 fault::Point::copy))
        return false;
    r.has_log_det = true;
    for (lint k = 0; k < np_; ++k) r.log_det += logs[owner(k)][k];
    return true;
  }
  // plan() found no window that holds one panel: narrower panels may fit.
  static constexpr const char *kTooSmall = "GPU memory too small for one panel";

 private:
  struct Member {
    Context *c = nullptr;
    DevicePotrf solver;
    void *work = nullptr;              // cuSOLVER's workspace
    int *dinfo = nullptr, *hinfo = nullptr;  // per panel, device and pinned
    double *dlog = nullptr;                  // xPOLOGDET: per own panel, the sum of log(real(L(i,i)))
    std::vector<T *> panel;            // own panels of the window (else nullptr)
    std::vector<T *> copy;             // where each panel of the window is on this member
    std::vector<lint> applied;         // own panel j has had the window's panels before applied[j]
    T *ring[kRing] = {};
    cudaEvent_t ring_free[kRing] = {}, ring_full[kRing] = {};
    T *prev[2] = {};                   // earlier windows' columns, streamed
    lint prev_ld = 0;
    cudaEvent_t prev_free[2] = {}, prev_full[2] = {};
    std::vector<cudaEvent_t> arrived;  // per panel: own panel on the device
    std::vector<bool> waited;          // compute stream already waits for it
    bool has_own = false;              // in this window
    Progress uploaded, prev_uploaded, prev_applied;
  };

  // Panel k: first row/column k0, width kb, height h (rows of L below and
  // at the diagonal); as stored on the device, `rows` by `cols` with
  // leading dimension ld.
  lint k0(lint k) const { return k * nb_; }
  lint kb(lint k) const { return std::min(nb_, n_ - k * nb_); }
  lint h(lint k) const { return n_ - k * nb_; }
  lint rows(lint k) const { return upper_ ? kb(k) : h(k); }
  lint cols(lint k) const { return upper_ ? h(k) : kb(k); }
  static lint round32(lint x) { return (x + 31) / 32 * 32; }
  lint ld(lint k) const { return round32(rows(k)); }
  std::size_t bytes(lint k) const { return sizeof(T) * std::size_t(ld(k)) * cols(k); }
  int owner(lint k) const { return int(k % P_); }
  T *host(lint i, lint j) const { return a_ + i + std::size_t(j) * lda_; }

  // A CUDA step: false (and every thread stops) on an error, or where the
  // HQR_FAULT test switch says this kind of step fails.
  template <class S> bool check(S status, fault::Point p) {
    if (!ok(status) || fault::hit(p)) {
      failed_ = true;
      stop();
    }
    return !failed_;
  }
  bool launched() { return check(cudaGetLastError(), fault::Point::kernel); }
  void stop() {
    halt_ = true;
    published_.wake();
    turn_.wake();
    for (int d = 0; d < P_; ++d)
      for (Progress *p : {&members_[d].uploaded, &members_[d].prev_uploaded, &members_[d].prev_applied}) p->wake();
  }

  // Per member, once per call: events, cuSOLVER's workspace, INFO slots.
  bool setup(int d) {
    Member &m = members_[d];
    m.c = set_.member[d];
    if (!check(cudaSetDevice(m.c->device), fault::Point::sync)) return false;
    m.arrived.assign(np_, nullptr);
    m.panel.assign(np_, nullptr);
    m.copy.assign(np_, nullptr);
    m.applied.assign(np_, 0);
    m.waited.assign(np_, false);
    for (lint k = 0; k < np_; ++k) {
      if (owner(k) != d) continue;
      if (!ok(cudaEventCreateWithFlags(&m.arrived[k], cudaEventDisableTiming)) ||
          !ok(cudaEventCreateWithFlags(&final_[k], cudaEventDisableTiming)))
        return false;
    }
    for (cudaEvent_t *e : {&m.ring_free[0], &m.ring_free[1], &m.ring_free[2], &m.ring_full[0], &m.ring_full[1],
                           &m.ring_full[2], &m.prev_free[0], &m.prev_free[1], &m.prev_full[0], &m.prev_full[1]})
      if (!ok(cudaEventCreateWithFlags(e, cudaEventDisableTiming))) return false;
    if (fault::hit(fault::Point::alloc)) return false;
    T *probe = nullptr;
    if (!m.solver.init(m.c->solver, nb_, probe, round32(nb_))) return false;
    const std::size_t infos = sizeof(int) * std::size_t(np_), at = (m.solver.device_bytes + infos + 7) / 8 * 8;
    const std::size_t logs = log_det_ ? sizeof(double) * std::size_t(np_) : 0;
    if (!m.c->workspace.reserve(at + logs) || !m.c->panel.reserve(infos)) return false;
    m.work = m.c->workspace.get();
    m.dinfo = reinterpret_cast<int *>(static_cast<char *>(m.work) + m.solver.device_bytes);
    m.dlog = reinterpret_cast<double *>(static_cast<char *>(m.work) + at);
    m.hinfo = static_cast<int *>(m.c->panel.get());
    return check(cudaMemsetAsync(m.dinfo, 0, infos, m.c->compute_stream), fault::Point::copy);
  }

  Result finish(Result r) {
    for (int d = 0; d < P_ && members_; ++d) {
      const Member &m = members_[d];
      if (!m.c) continue;
      cudaSetDevice(m.c->device);
      for (cudaEvent_t e : m.arrived)
        if (e) cudaEventDestroy(e);
      for (cudaEvent_t e : {m.ring_free[0], m.ring_free[1], m.ring_free[2], m.ring_full[0], m.ring_full[1],
                            m.ring_full[2], m.prev_free[0], m.prev_free[1], m.prev_full[0], m.prev_full[1]})
        if (e) cudaEventDestroy(e);
    }
    for (lint k = 0; k < np_; ++k)
      if (final_[k]) {
        cudaSetDevice(members_[owner(k)].c->device);
        cudaEventDestroy(final_[k]);
      }
    if (!r.ran) (void)cudaGetLastError();
    for (int d = 0; d < P_ && d < np_; ++d) r.devices |= std::uint64_t(1) << set_.member[d]->device;  // owners
    return r;
  }

  // The memory a member may plan with (256 MB left to the libraries).
  std::size_t budget(Member &m) { return plan_budget(*m.c, std::size_t(256) << 20); }

  // Which panels each window holds, planned before any data moves, so that
  // a budget too small for one panel leaves the caller's array untouched
  // (potrf_node then tries narrower panels). One window, every member
  // holding every panel (`full`: its own and a copy of each other one),
  // when that fits; else the longest runs of panels whose own share, a
  // ring of kRing foreign panels and the buffers that stream the earlier
  // windows' columns fit every member.
  struct Window {
    lint w0, w1, chunk;  // chunk: columns of the earlier windows streamed at a time
    bool full;
  };
  bool plan() {
    std::vector<std::size_t> cap(P_);
    std::size_t least = ~std::size_t(0);
    for (int d = 0; d < P_; ++d) least = std::min(least, cap[d] = budget(members_[d]));
    std::size_t total = 0;
    for (lint k = 0; k < np_; ++k) total += (bytes(k) + 255) / 256 * 256;
    if (total <= least) {
      plan_.push_back({0, np_, nb_, true});
      return true;
    }
    for (lint w0 = 0; w0 < np_;) {
      const std::size_t ring = P_ > 1 ? kRing * bytes(w0) : 0;
      // Two streaming buffers chunk wide; narrower (down to 32) where two
      // of nb would take over half the memory.
      lint chunk = nb_;
      while (chunk > 32 && ring + prev_bytes(w0, chunk) > least / 2) chunk = (chunk / 2 + 31) / 32 * 32;
      const std::size_t fixed = ring + prev_bytes(w0, chunk) + 256 * (kRing + 2);
      std::vector<std::size_t> own(P_, 0);
      lint end = w0;
      for (; end < np_; ++end) {
        const int d = owner(end);
        const std::size_t b = (bytes(end) + 255) / 256 * 256;
        if (fixed + own[d] + b > cap[d]) break;
        own[d] += b;
      }
      if (end == w0) return false;
      plan_.push_back({w0, end, chunk, false});
      w0 = end;
    }
    return true;
  }
  // The two buffers that stream the columns before panel w0, chunk wide.
  std::size_t prev_bytes(lint w0, lint chunk) const {
    const lint s = k0(w0);
    if (w0 == 0) return 0;
    return 2 * sizeof(T) * std::size_t(upper_ ? round32(chunk) : round32(n_ - s)) * (upper_ ? n_ - s : chunk);
  }

  // Each member's buffer for window w: its own panels, then the copies of
  // the others' (full) or the ring, then the streaming buffers.
  bool lay_out(const Window &w) {
    for (int d = 0; d < P_; ++d) {
      Member &m = members_[d];
      cudaSetDevice(m.c->device);
      std::size_t need = prev_bytes(w.w0, w.chunk) + 256 * (kRing + 2);
      for (lint k = w.w0; k < w.w1; ++k)
        if (w.full || owner(k) == d) need += (bytes(k) + 255) / 256 * 256;
      if (!w.full && P_ > 1) need += kRing * ((bytes(w.w0) + 255) / 256 * 256);
      if (fault::hit(fault::Point::alloc) || !m.c->matrix.reserve(need)) {
        (void)cudaGetLastError();
        return false;
      }
      char *p = static_cast<char *>(m.c->matrix.get());
      auto take = [&](std::size_t b) {
        T *at = reinterpret_cast<T *>(p);
        p += (b + 255) / 256 * 256;
        return at;
      };
      std::fill(m.panel.begin(), m.panel.end(), nullptr);
      std::fill(m.copy.begin(), m.copy.end(), nullptr);
      m.has_own = false;
      for (lint k = w.w0; k < w.w1; ++k) {
        m.applied[k] = w.w0;
        if (owner(k) == d) {
          m.copy[k] = m.panel[k] = take(bytes(k));
          m.has_own = true;
        } else if (w.full) {
          m.copy[k] = take(bytes(k));
        }
      }
      for (T *&r : m.ring) r = !w.full && P_ > 1 ? take(bytes(w.w0)) : nullptr;
      const std::size_t prev = prev_bytes(w.w0, w.chunk);
      for (T *&b : m.prev) b = prev ? take(prev / 2) : nullptr;
      m.prev_ld = upper_ ? round32(w.chunk) : round32(n_ - k0(w.w0));
      m.prev_uploaded.publish(0);  // the earlier windows' chunks count from 0 again
      m.prev_applied.publish(0);
      std::fill(m.waited.begin(), m.waited.end(), false);
    }
    return true;
  }

  void run_window(lint w0, lint w1) {
    std::vector<std::thread> threads;
    for (int d = 0; d < P_; ++d) {
      threads.emplace_back([this, d, w0, w1] {
        if (check(cudaSetDevice(members_[d].c->device), fault::Point::sync)) upload(d, w0, w1);
        members_[d].uploaded.wake();
        members_[d].prev_uploaded.wake();
      });
      threads.emplace_back([this, d, w0, w1] {
        if (check(cudaSetDevice(members_[d].c->device), fault::Point::sync)) download(d, w0, w1);
      });
    }
    std::vector<std::thread> compute;
    for (int d = 0; d < P_; ++d)
      compute.emplace_back([this, d, w0, w1] {
        if (check(cudaSetDevice(members_[d].c->device), fault::Point::sync)) factor(d, w0, w1);
      });
    for (std::thread &t : compute) t.join();
    // The downloaders end once every panel of the window is stored (or the
    // call stopped); a compute thread that stopped early wakes them.
    published_.wake();
    for (std::thread &t : threads) t.join();
  }

  // ---- moving data -----------------------------------------------------------

  // Caller (rows x cols at `src`, leading dimension lda) -> pinned slots ->
  // device (`dst`, ldd), in pieces of whole columns that fit a slot, on
  // the member's upload stream.
  bool upload_block(Member &m, int &slot, const T *src, lint r, lint cl, T *dst, lint ldd) {
    const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(r) * sizeof(T))));
    for (lint j = 0; j < cl && !halt_; j += per) {
      const lint w = std::min(per, cl - j);
      StagingSlot &s = m.c->upload_slots[slot++ % Context::kSlots];
      if (!check(cudaEventSynchronize(s.dma_done), fault::Point::sync)) return false;
      copy_block(m.c->upload_copies, sizeof(T), r, w, src + std::size_t(j) * lda_, lda_, s.host, r);
      if (!check(cudaMemcpy2DAsync(dst + std::size_t(j) * ldd, ldd * sizeof(T), s.host, r * sizeof(T), r * sizeof(T),
                                   w, cudaMemcpyHostToDevice, m.c->upload_stream),
                 fault::Point::copy) ||
          !check(cudaEventRecord(s.dma_done, m.c->upload_stream), fault::Point::copy))
        return false;
    }
    return !halt_;
  }

  // Member d's own panels of the window, in order; then, out of core, the
  // earlier windows' columns (rows or columns s..n-1 of them), window_.chunk
  // at a time into two alternating buffers.
  void upload(int d, lint w0, lint w1) {
    Member &m = members_[d];
    int slot = 0;
    for (lint k = w0; k < w1; ++k) {
      if (owner(k) != d) continue;
      if (!upload_block(m, slot, host(k0(k), k0(k)), rows(k), cols(k), m.panel[k], ld(k)) ||
          !check(cudaEventRecord(m.arrived[k], m.c->upload_stream), fault::Point::copy))
        return;
      m.uploaded.publish(k + 1);
    }
    const lint s = k0(w0);
    const lint chunk = window_.chunk;
    for (lint c = 0; m.has_own && c * chunk < s; ++c) {
      const lint c0 = c * chunk, cb = std::min(chunk, s - c0);
      T *dst = m.prev[c % 2];
      // The buffer's chunk before (c - 2) has been queued for applying
      // (prev_applied), so prev_free marks when it is done.
      if (c >= 2 && !m.prev_applied.wait_past(c - 2, halt_)) return;
      if (!check(cudaStreamWaitEvent(m.c->upload_stream, m.prev_free[c % 2], 0), fault::Point::sync)) return;
      const bool ok_ = upper_ ? upload_block(m, slot, host(c0, s), cb, n_ - s, dst, m.prev_ld)
                              : upload_block(m, slot, host(s, c0), n_ - s, cb, dst, m.prev_ld);
      if (!ok_ || !check(cudaEventRecord(m.prev_full[c % 2], m.c->upload_stream), fault::Point::copy)) return;
      m.prev_uploaded.publish(c + 1);
    }
  }

  // Member d's own final panels -> pinned slots -> caller, in the order
  // StoreTurn gives; each panel's INFO is checked before any of it is
  // stored.
  void download(int d, lint w0, lint w1) {
    Member &m = members_[d];
    int slot = 0;
    for (lint k = w0; k < w1 && !failed_; ++k) {
      if (owner(k) != d) continue;
      if (!published_.wait_past(k, halt_)) return;
      cudaStream_t s = m.c->download_stream;
      if (!check(cudaStreamWaitEvent(s, final_[k], 0), fault::Point::copy) ||
          !check(cudaMemcpyAsync(m.hinfo + k, m.dinfo + k, sizeof(int), cudaMemcpyDeviceToHost, s), fault::Point::copy))
        return;
      // Pieces of whole stored columns that fit a slot; up to kSlots DMAs
      // in flight ahead of the host's stores.
      const lint r = rows(k), per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(r) * sizeof(T))));
      struct Piece {
        lint j, w;
        StagingSlot *s;
      };
      std::deque<Piece> pending;
      bool turn = false;
      auto drain_one = [&] {
        const Piece p = pending.front();
        pending.pop_front();
        if (!check(cudaEventSynchronize(p.s->dma_done), fault::Point::sync)) return false;
        if (!turn) {  // the first piece: INFO has arrived with it
          if (m.hinfo[k] != 0) {
            not_spd_ = true;
            turn_.stop_at(k);
            stop();
            return false;
          }
          if (!turn_.wait(k, failed_)) return false;
          turn = true;
        }
        store(k, p.j, p.w, static_cast<const T *>(p.s->host), m.c->download_copies);
        return true;
      };
      bool fine = true;
      for (lint j = 0; j < cols(k) && fine; j += per) {
        if (pending.size() == std::size_t(Context::kSlots) && !drain_one()) fine = false;
        if (!fine) break;
        const lint w = std::min(per, cols(k) - j);
        StagingSlot &st = m.c->download_slots[slot++ % Context::kSlots];
        const T *src = m.panel[k] + std::size_t(j) * ld(k);
        if (!check(cudaMemcpy2DAsync(st.host, r * sizeof(T), src, ld(k) * sizeof(T), r * sizeof(T), w,
                                     cudaMemcpyDeviceToHost, s),
                   fault::Point::copy) ||
            !check(cudaEventRecord(st.dma_done, s), fault::Point::copy))
          fine = false;
        else
          pending.push_back({j, w, &st});
      }
      while (fine && !pending.empty())
        if (!drain_one()) fine = false;
      if (!fine) return;
      stored_columns_ = k0(k) + kb(k);
      partial_rows_ = partial_cols_ = 0;
      turn_.done(k);
    }
  }

  // Stored columns j..j+w-1 of panel k, staged (leading dimension rows(k)),
  // into the caller's array: only the referenced triangle.
  void store(lint k, lint j, lint w, const T *staged, CopyPool &pool) {
    const lint r = rows(k), c0 = k0(k);
    const lint pieces = std::max<lint>(1, std::min<lint>(w, pool.threads()));
    const lint per = (w + pieces - 1) / pieces;
    pool.run(int(pieces), [&](int p) {
      for (lint jj = std::min(w, p * per); jj < std::min(w, (p + 1) * per); ++jj) {
        const lint col = j + jj;  // of the stored panel
        // lower: rows col.. of the block column; upper: rows 0..col of the
        // block row (all of them past the diagonal block)
        const lint lo = upper_ ? 0 : std::min(col, r), hi = upper_ ? std::min(r, col + 1) : r;
        if (hi > lo)
          stream_copy(host(c0 + lo, c0 + col), staged + lo + std::size_t(jj) * r, (hi - lo) * sizeof(T));
      }
      store_fence();
    });
    if (upper_) {  // rows c0..c0+kb-1 of U final up to column c0+j+w-1
      partial_rows_ = kb(k);
      partial_cols_ = c0 + j + w;
    } else {
      stored_columns_ = c0 + j + w;
    }
  }

  // ---- computing -------------------------------------------------------------

  // Own panel j is on the device (stream-ordered on the compute stream).
  bool arrived(Member &m, lint j) {
    if (m.waited[j]) return true;
    m.waited[j] = true;
    return m.uploaded.wait_past(j, halt_) &&
           check(cudaStreamWaitEvent(m.c->compute_stream, m.arrived[j], 0), fault::Point::sync);
  }

  // Own panel j -= S S**H restricted to its rows (upper: columns), where S
  // holds the same rows (columns) of `width` columns (rows) of L (U):
  // `s` points at row (column) k0(j) of them, leading dimension lds.
  bool update(Member &m, lint j, const T *s, lint lds, lint width) {
    using R = typename Prec<T>::real;
    T *a = m.panel[j];
    const lint b = kb(j), rest = h(j) - b, lda = ld(j);
    cublasHandle_t hb = m.c->blas;
    if (upper_)
      return check(blas::herk(hb, CUBLAS_FILL_MODE_UPPER, blas::op_c<T>(), b, width, R(-1), s, lds, R(1), a, lda),
                   fault::Point::kernel) &&
             (rest == 0 ||
              check(blas::gemm(hb, blas::op_c<T>(), CUBLAS_OP_N, b, rest, width, T(-1), s, lds,
                               s + std::size_t(b) * lds, lds, T(1), a + std::size_t(b) * lda, lda),
                    fault::Point::kernel));
    return check(blas::herk(hb, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, b, width, R(-1), s, lds, R(1), a, lda),
                 fault::Point::kernel) &&
           (rest == 0 || check(blas::gemm(hb, CUBLAS_OP_N, blas::op_c<T>(), rest, b, width, T(-1), s + b, lds, s, lds,
                                          T(1), a + b, lda),
                               fault::Point::kernel));
  }
  // Panel k (own, or a copy of it at `p`) applied to own panel j > k.
  bool update(Member &m, lint j, const T *p, lint k) {
    const std::size_t off = std::size_t(k0(j) - k0(k)) * (upper_ ? std::size_t(ld(k)) : 1);
    return update(m, j, p + off, ld(k), kb(k));
  }

  // Own panel j has had every update: its diagonal block by cuSOLVER
  // (NaN pivots flagged too), the rest by trsm; then it is final.
  bool factor_panel(Member &m, lint j) {
    T *a = m.panel[j];
    const lint b = kb(j), rest = h(j) - b, lda = ld(j);
    cudaStream_t s = m.c->compute_stream;
    if (!check(m.solver.run(m.c->solver, upper_, b, a, lda, m.work, m.dinfo + j), fault::Point::kernel)) return false;
    flag_nan_pivot<<<grid_for(b), 256, 0, s>>>(b, dv(a), lda, m.dinfo + j);
    if (!launched() || (log_det_ && !check(launch_log_diagonal_sum(s, b, a, lda, m.dlog + j), fault::Point::kernel)))
      return false;
    if (rest > 0 &&
        !check(upper_ ? blas::trsm(m.c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, blas::op_c<T>(),
                                   CUBLAS_DIAG_NON_UNIT, b, rest, T(1), a, lda, a + std::size_t(b) * lda, lda)
                      : blas::trsm(m.c->blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, blas::op_c<T>(),
                                   CUBLAS_DIAG_NON_UNIT, rest, b, T(1), a, lda, a + b, lda),
               fault::Point::kernel))
      return false;
    if (!check(cudaEventRecord(final_[j], s), fault::Point::kernel)) return false;
    published_.publish(j + 1);
    return true;
  }

  // Panel k of another member into m.copy[k] (its own buffer, or ring slot
  // `slot`, which waits until the compute stream is done with it), on the
  // member's panel stream; the compute stream waits for it.
  bool receive(Member &m, lint k, int slot) {
    if (!published_.wait_past(k, halt_)) return false;
    cudaStream_t s = m.c->panel_stream;
    const Member &o = members_[owner(k)];
    if (!window_.full) {
      m.copy[k] = m.ring[slot];
      if (!check(cudaStreamWaitEvent(s, m.ring_free[slot], 0), fault::Point::sync)) return false;
    }
    return check(cudaStreamWaitEvent(s, final_[k], 0), fault::Point::sync) &&
           check(cudaMemcpyPeerAsync(m.copy[k], m.c->device, o.panel[k], o.c->device, bytes(k), s),
                 fault::Point::copy) &&
           check(cudaEventRecord(m.ring_full[slot], s), fault::Point::copy) &&
           check(cudaStreamWaitEvent(m.c->compute_stream, m.ring_full[slot], 0), fault::Point::sync);
  }

  // Own panel j brought up to date with the window's panels up to k (its
  // applied[j] ones before were applied earlier).
  bool catch_up(Member &m, lint j, lint k) {
    for (lint i = m.applied[j]; i <= k; ++i)
      if (!update(m, j, m.copy[i], i)) return false;
    m.applied[j] = k + 1;
    return true;
  }

  void factor(int d, lint w0, lint w1) {
    Member &m = members_[d];
    cudaStream_t cs = m.c->compute_stream;
    std::vector<lint> own;
    for (lint k = w0; k < w1; ++k)
      if (owner(k) == d) own.push_back(k);
    // The earlier windows' columns, window_.chunk at a time, to every own panel.
    const lint s = k0(w0);
    const lint chunk = window_.chunk;
    for (lint c = 0; m.has_own && c * chunk < s; ++c) {
      const lint cb = std::min(chunk, s - c * chunk);
      if (!m.prev_uploaded.wait_past(c, halt_) ||
          !check(cudaStreamWaitEvent(cs, m.prev_full[c % 2], 0), fault::Point::sync))
        return;
      for (lint j : own) {
        const std::size_t off = std::size_t(k0(j) - s) * (upper_ ? std::size_t(m.prev_ld) : 1);
        if (!arrived(m, j) || !update(m, j, m.prev[c % 2] + off, m.prev_ld, cb)) return;
      }
      if (!check(cudaEventRecord(m.prev_free[c % 2], cs), fault::Point::kernel)) return;
      m.prev_applied.publish(c + 1);
    }
    // Right-looking through the window, one panel ahead. With every panel
    // kept (full), an own panel still on its way in is skipped and caught
    // up once it is there, so that the updates start before the upload
    // ends; with the ring, each panel is applied everywhere before its slot
    // is reused.
    if (!own.empty() && own[0] == w0 && (!arrived(m, w0) || !factor_panel(m, w0))) return;
    int slot = 0;
    for (lint k = w0; k < w1 && !halt_; ++k) {
      const auto next = std::upper_bound(own.begin(), own.end(), k);
      if (next == own.end()) break;  // nothing of this member's left to update
      const bool mine = owner(k) == d;
      const int ring = slot;
      if (!mine && !receive(m, k, ring)) return;
      slot = mine ? slot : (slot + 1) % kRing;
      if (!arrived(m, *next) || !catch_up(m, *next, k) || (*next == k + 1 && !factor_panel(m, *next))) return;
      for (auto j = next + 1; j != own.end(); ++j) {
        if (window_.full && !m.waited[*j] && m.uploaded.done() <= *j) continue;
        if (!arrived(m, *j) || !catch_up(m, *j, k)) return;
      }
      if (!mine && !window_.full && !check(cudaEventRecord(m.ring_free[ring], cs), fault::Point::kernel)) return;
    }
  }

  const DeviceSet &set_;
  const int P_;
  const bool upper_;
  const lint n_;
  T *const a_;
  const lint lda_, nb_, np_;
  const bool log_det_;
  std::unique_ptr<Member[]> members_;
  std::vector<cudaEvent_t> final_;  // per panel, on its owner: final on the device
  Progress published_;              // panels whose final_ is recorded
  StoreTurn turn_;
  std::vector<Window> plan_;
  Window window_{};  // the one running
  std::atomic<bool> failed_{false}, not_spd_{false}, halt_{false};
  // What of the caller's array is final (see Result); written by the
  // storing thread whose turn it is, read after every thread has joined.
  std::atomic<lint> stored_columns_{0};
  lint partial_rows_ = 0, partial_cols_ = 0;
};

}  // namespace

template <class T> Result potrf_node(const DeviceSet &set, bool upper, lint n, T *a, lint lda, bool log_det) {
  SetLock g(set);
  const int nb_setting = config::nb();
  lint nb = nb_setting > 0 ? nb_setting : n >= 32768 ? 1024 : 512;
  if (upper)  // a diagonal block fits one staging slot (the first piece of a stored panel)
    while (std::size_t(nb) * nb * sizeof(T) > Context::kSlotBytes) nb /= 2;
  // Narrower panels where the memory (HQR_GPU_MEMORY) holds not even one
  // window of these: nothing has moved yet.
  for (nb = std::min(nb, n);; nb = (nb / 2 + 31) / 32 * 32) {
    NodePotrf<T> node(set, upper, n, a, lda, nb, log_det);
    Result r = node.run();
    if (!r.ran && r.why == NodePotrf<T>::kTooSmall && nb > 32) continue;
    r.path = node_path(set.count, node.windows());
    return r;
  }
}

template Result potrf_node(const DeviceSet &, bool, lint, float *, lint, bool);
template Result potrf_node(const DeviceSet &, bool, lint, double *, lint, bool);
template Result potrf_node(const DeviceSet &, bool, lint, std::complex<float> *, lint, bool);
template Result potrf_node(const DeviceSet &, bool, lint, std::complex<double> *, lint, bool);

}  // namespace hqr::gpu
