// xGEQRF over a device set (every GPU of the node, or those HQR_DEVICE
// names), host memory in and out, in core.
//
// Right-looking by block columns of nb, dealt out block-cyclically: block
// column j lives on member j % P of the set, beside that member's other
// block columns (so a run of them is one gemm's operand), and only its
// owner updates it. Each member is a HybridGeqrf in its Member form
// (geqrf_hybrid.cuh): the one-GPU schedule's panels (CholeskyQR2 with
// cuSOLVER's geqrf where it cannot be trusted, or the CPU's), its V ring,
// its T of every panel, its lanes; this file orders their steps. Step p:
//   owner of p:     panel p was factored on its urgent stream (step p-1)
//   every other:    V_p and T_p GPU to GPU into its own ring slot and T
//                   (NVLink where the topology has it), on its urgent stream
//   owner of p+1:   block column p+1 takes reflector p (and any it missed)
//                   on its urgent stream, then panel p+1 starts there
//   every member:   its later block columns that have arrived take
//                   reflector p on its compute stream; one that arrives
//                   later catches up with the reflectors before it, V read
//                   again from its owner's final block column
//   owner of p+1:   panel p+1 finishes (CholeskyQR2's verdict on the host)
// One host thread queues every member's work, so the host's wait for a
// verdict overlaps every GPU's updates, as on one GPU.
//
// Each member moves its own block columns through its own pinned staging
// and copy threads: each byte of the caller's matrix goes up once and
// comes down once, final, with its tau. Block columns are stored into the
// caller's arrays in order (StoreTurn), so a CUDA error or an injected
// fault (HQR_FAULT) leaves final columns then input, and the CPU resumes
// from Result::resume as after the one-GPU schedule.
//
// xGELS (trans 'N') hands its B over too (SetRhs, node.hpp): B's columns
// form block columns of their own right of A's last one (which may be
// narrower than nb: the gap between them is never stored), dealt out with
// the others; they take every reflector as A's trailing columns do and
// come back as Q**H B after A, so A's reflectors are not read again from
// the caller's array to apply them (xORMQR over the set did that).
#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "cuda/geqrf_hybrid.cuh"
#include "cuda/node.hpp"
#include "cuda/qr_device.hpp"

namespace hqr::gpu {

template <class T> class NodeGeqrf {
  using Point = fault::Point;
  using Engine = HybridGeqrf<T>;

 public:
  NodeGeqrf(const DeviceSet &set, lint m, lint n, T *a, lint lda, T *tau, lint nb, Panel mode, SetRhs<T> *rhs)
      : set_(set), P_(set.count), m_(m), n_(n), a_(a), lda_(lda), tau_(tau), nb_(nb), mode_(mode), rhs_(rhs),
        cols_(n, rhs ? rhs->nrhs : 0, nb), nblocks_(cols_.blocks()), npanels_((std::min(m, n) + nb - 1) / nb),
        ldda_((m + 31) / 32 * 32) {}

  // The device bytes member d needs: its block columns and a one-GPU
  // schedule's workspace (W and W2 as wide as the whole matrix).
  static double member_bytes(lint m, lint n, lint nrhs, lint nb, int P, int d) {
    const double ldd = double((m + 31) / 32 * 32);
    const Columns c(n, nrhs, nb);
    return Engine::in_core_bytes(m, c.width, nb) - sizeof(T) * ldd * double(c.width - c.local_end(P, d));
  }

  Result run() {
    if (std::size_t(m_) * sizeof(T) > Context::kSlotBytes) return {false, 0, "matrix column larger than staging", 0};
    members_.reset(new Member[P_]);
    for (int d = 0; d < P_; ++d)
      if (!setup(d)) return finish({false, 0, failed_ ? "CUDA error" : "GPU out of memory", 0});
    pinned_ = pinned_range(a_, (std::size_t(n_ - 1) * lda_ + m_) * sizeof(T)).pinned;
    if (rhs_) pinned_b_ = pinned_range(rhs_->b, (std::size_t(rhs_->nrhs - 1) * rhs_->ldb + m_) * sizeof(T)).pinned;
    std::vector<std::thread> threads;
    for (int d = 0; d < P_; ++d) {
      threads.emplace_back([this, d] {
        if (check(cudaSetDevice(members_[d].c->device), Point::sync)) upload(d);
        if (++uploaders_done_ == P_) uploads_done_.publish(1);
      });
      threads.emplace_back([this, d] {
        if (check(cudaSetDevice(members_[d].c->device), Point::sync)) download(d);
      });
    }
    if (!factor()) failed_ = true;
    stop_ = true;
    wake_all();
    for (std::thread &t : threads) t.join();
    for (int d = 0; d < P_; ++d) {
      const Member &mb = members_[d];
      cudaSetDevice(mb.c->device);
      const cudaStream_t streams[] = {mb.c->compute_stream, mb.c->urgent_stream, mb.c->upload_stream,
                                      mb.c->download_stream};
      for (cudaStream_t s : streams) check(cudaStreamSynchronize(s), Point::sync);
    }
    if (rhs_) rhs_->stored = failed_ ? stored_b_.load() : rhs_->nrhs;
    if (failed_) return finish({false, 0, "CUDA error", stored_columns_.load()});
    Result r{true, 0, pinned_ && (!rhs_ || pinned_b_) ? kPinnedCaller : nullptr, 0};
    for (int d = 0; d < P_ && d < nblocks_; ++d) r.devices |= std::uint64_t(1) << members_[d].c->device;
    return finish(r);
  }

 private:
  struct Member {
    Context *c = nullptr;
    std::unique_ptr<Engine> e;
    T *local = nullptr;        // its block columns side by side, ldda by own_columns
    std::vector<lint> owned;   // their global indices, in order
    std::vector<lint> applied; // per own block column: reflectors applied, as queued
    Progress uploaded;         // own block columns on the device
  };

  // The block columns: A's n columns, then (xGELS) B's nrhs from the
  // first multiple of nb on (b0), so the matrix the members hold is
  // `width` wide.
  struct Columns {
    lint n, nb, b0, width;
    Columns(lint n, lint nrhs, lint nb)
        : n(n), nb(nb), b0(nrhs > 0 ? (n + nb - 1) / nb * nb : n), width(b0 + nrhs) {}
    lint blocks() const { return (width + nb - 1) / nb; }
    lint count(lint j) const { return std::min(nb, (j * nb < b0 ? n : width) - j * nb); }  // its columns
    // Where member d's last block column ends among its own (block column
    // j at local index j / P, nb apart).
    lint local_end(int P, int d) const {
      const lint last = d < blocks() ? d + (blocks() - 1 - d) / P * P : -1;
      return last < 0 ? 0 : last / P * nb + count(last);
    }
  };

  int owner(lint j) const { return int(j % P_); }
  lint local(lint j) const { return j / P_; }  // index among its owner's block columns
  Rect block(lint j) const { return Rect{0, j * nb_, m_, cols_.count(j)}; }
  // Element (i, j) of the matrix held in the caller's arrays, and their
  // leading dimension there.
  T *host(lint i, lint j) const {
    return j < cols_.b0 ? a_ + i + std::size_t(j) * lda_ : rhs_->b + i + std::size_t(j - cols_.b0) * rhs_->ldb;
  }
  lint ld(lint j) const { return j < cols_.b0 ? lda_ : rhs_->ldb; }
  bool pinned(lint j) const { return j < cols_.b0 ? pinned_ : pinned_b_; }
  Engine &eng(lint j) { return *members_[owner(j)].e; }

  template <class S> bool check(S status, Point p) {
    if (!ok(status) || fault::hit(p)) {
      failed_ = true;
      wake_all();
    }
    return !failed_;
  }
  void wake_all() {
    finalized_.wake();
    uploads_done_.wake();
    turn_.wake();
    for (int d = 0; d < P_ && members_; ++d) members_[d].uploaded.wake();
  }

  // Member d's context, its block columns' memory and its engine.
  bool setup(int d) {
    Member &mb = members_[d];
    mb.c = set_.member[d];
    if (!check(cudaSetDevice(mb.c->device), Point::sync)) return false;
    const lint cols = cols_.local_end(P_, d);
    if (fault::hit(Point::alloc) || !mb.c->matrix.reserve(sizeof(T) * std::size_t(ldda_) * std::max<lint>(cols, 1)))
      return false;
    mb.local = static_cast<T *>(mb.c->matrix.get());
    // The gap right of A's last block column where B follows: never
    // stored, but updated with its block column, so not left undefined.
    const lint last_a = (n_ - 1) / nb_, gap = cols_.b0 - n_;
    if (gap > 0 && owner(last_a) == d && last_a + P_ < nblocks_) {
      T *at = mb.local + std::size_t(local(last_a) * nb_ + nb_ - gap) * ldda_;
      if (!check(cudaMemset2DAsync(at, ldda_ * sizeof(T), 0, m_ * sizeof(T), gap, mb.c->upload_stream), Point::copy))
        return false;
    }
    std::vector<T *> cols_at(nblocks_, nullptr);
    for (lint j = d; j < nblocks_; j += P_) {
      cols_at[j] = mb.local + std::size_t(local(j)) * nb_ * ldda_;
      mb.owned.push_back(j);
    }
    mb.applied.assign(mb.owned.size(), 0);
    mb.e.reset(
        new Engine(typename Engine::Member{}, *mb.c, m_, cols_.width, nb_, mode_, ldda_, std::move(cols_at), failed_, n_));
    mb.e->dA_ = mb.local;  // for cuSOLVER's workspace queries
    if (!mb.e->reserve()) return false;
    if (!mb.e->prepare()) failed_ = true;
    return !failed_;
  }

  Result finish(Result r) {
    for (int d = 0; d < P_ && members_; ++d)
      if (Member &mb = members_[d]; mb.e) {
        cudaSetDevice(mb.c->device);
        mb.e->finish(r);
      }
    if (!r.ran) (void)cudaGetLastError();
    return r;
  }

  // Caller -> pinned slot -> member d's block columns, in order.
  void upload(int d) {
    Member &mb = members_[d];
    int slot = 0;
    auto step = [this](auto status, Point p) { return check(status, p); };
    for (std::size_t l = 0; l < mb.owned.size() && !stop_ && !failed_; ++l) {
      const lint j = mb.owned[l];
      for (const Rect &r : mb.e->chunks(block(j)))
        if (!upload_block(*mb.c, pinned(r.c0), slot, sizeof(T), r.m, r.n, host(r.r0, r.c0), ld(r.c0),
                          mb.e->dev(r.r0, r.c0), ldda_, mb.c->upload_stream, step))
          return;
      if (!check(cudaEventRecord(mb.e->arrived_[j], mb.c->upload_stream), Point::copy)) return;
      mb.uploaded.publish(lint(l) + 1);
    }
  }

  // Member d's block columns -> pinned slot -> caller, each once final, in
  // the set's order (turn_); the first chunk of a panel's block column
  // brings its tau. DMAs run up to kSlots chunks ahead of the host copies.
  // As on one GPU, the results leave once the whole matrix is up.
  void download(int d) {
    Member &mb = members_[d];
    Context &c = *mb.c;
    Engine &e = *mb.e;
    struct Pending {
      lint j;
      Rect r;
      StagingSlot *s;
      bool first, last;
    };
    std::deque<Pending> pending;
    int slot = 0;
    bool storing = true;
    auto drain_one = [&] {
      const Pending p = pending.front();
      pending.pop_front();
      storing = storing && check(cudaEventSynchronize(p.s->dma_done), Point::sync) &&
                (!p.first || turn_.wait(p.j, failed_));
      if (!storing) return;
      copy_block(c.download_copies, sizeof(T), p.r.m, p.r.n, p.s->host, p.r.m, host(p.r.r0, p.r.c0), ld(p.r.c0));
      if (p.first && p.j < npanels_) {
        const lint t0 = p.j * nb_;
        std::copy(e.htau_out_ + t0, e.htau_out_ + t0 + e.panel_reflectors(p.j), tau_ + t0);
      }
      // Each chunk stored counts (a block column can take several): the
      // CPU must not take its final columns for input.
      if (p.r.c0 < cols_.b0)
        stored_columns_.store(p.r.c0 + p.r.n);
      else
        stored_b_.store(p.r.c0 + p.r.n - cols_.b0);
      if (p.last) turn_.done(p.j);
    };
    // Only a failure gives up: the schedule can end before every upload
    // thread has counted itself done (a one-block matrix waits for one
    // upload), and giving up at its end stored nothing (H200, 4 members).
    if (!uploads_done_.wait_past(0, failed_)) return;
    for (const lint j : mb.owned) {
      if (!finalized_.wait_past(j, failed_) || failed_) break;
      if (!check(cudaStreamWaitEvent(c.download_stream, j < npanels_ ? e.panel_done_[j] : e.all_done_, 0),
                 Point::sync))
        break;
      const std::vector<Rect> rs = e.chunks(block(j));
      bool queued = true;
      for (std::size_t i = 0; i < rs.size() && queued; ++i) {
        const Rect &r = rs[i];
        if (pending.size() == std::size_t(Context::kSlots)) drain_one();
        const int si = slot++ % Context::kSlots;
        StagingSlot &s = c.download_slots[si];
        queued = e.chunk_down(j, r, s, si, i == 0 && j < npanels_);
        if (queued) pending.push_back({j, r, &s, i == 0, i + 1 == rs.size()});
      }
      if (!queued) {
        wake_all();  // the engine's check does not wake the other members' threads
        break;
      }
    }
    while (!pending.empty()) drain_one();
  }

  // Own block column l of member mb (local index) is on the device, ordered
  // before the work next queued on s.
  bool arrived(Member &mb, lint l, cudaStream_t s) {
    return mb.uploaded.wait_past(l, failed_) && check(cudaStreamWaitEvent(s, mb.e->arrived_[mb.owned[l]], 0), Point::sync);
  }
  bool wait(cudaStream_t s, cudaEvent_t e) { return check(cudaStreamWaitEvent(s, e, 0), Point::sync); }

  // V_q (with its unit triangle) into the lane's buffer of member mb, read
  // from the owner's block column q, final since panel q (ordered by the
  // lane's wait for mb's panel_done_ of a later panel).
  bool fetch_v(Member &mb, lint q, const typename Engine::Lane &lane) {
    Engine &o = eng(q);
    if (&o == mb.e.get()) return o.copy_v(q, lane.v, lane.stream);
    const lint k0 = q * nb_, mk = m_ - k0, kf = o.panel_reflectors(q);
    if (!check(cudaMemcpy2DAsync(lane.v, ldda_ * sizeof(T), o.dev(k0, k0), ldda_ * sizeof(T), mk * sizeof(T), kf,
                                 cudaMemcpyDefault, lane.stream),
               Point::copy))
      return false;
    const int threads = 256, blocks = int(std::min<int64_t>(4096, (int64_t(mk) * kf + threads - 1) / threads));
    unit_lower_copy<<<blocks, threads, 0, lane.stream>>>(mk, kf, dv(lane.v), ldda_, dv(lane.v), ldda_);
    return check(cudaGetLastError(), Point::kernel);
  }

  // Brings member mb's own block columns l0..l1-1 up to date with
  // reflectors 0..p on the lane (catch_up_plan, handoff.hpp); V_p is in
  // mb's ring, earlier ones are fetched again.
  bool catch_up(Member &mb, lint l0, lint l1, lint p, const typename Engine::Lane &lane) {
    Engine &e = *mb.e;
    const lint end = l1 == lint(mb.owned.size()) ? cols_.local_end(P_, owner(mb.owned[0])) : l1 * nb_;
    return catch_up_plan(mb.applied, l0, l1, p, [&](lint q, lint l) {
      const T *v = e.panel_v(p);
      if (q < p) {
        if (!fetch_v(mb, q, lane)) return false;
        v = lane.v;
      }
      return e.larfb_at(q, v, mb.local + q * nb_ + std::size_t(l) * nb_ * ldda_, l * nb_, end - l * nb_, lane.blas);
    });
  }

  // V_p and T_p from panel p's owner into member d's ring slot and T (once
  // d's updates with the slot's last panel are done); d's panel_done_[p]
  // then says they are there.
  bool send(lint p, int d) {
    Engine &o = eng(p), &r = *members_[d].e;
    const cudaStream_t s = members_[d].c->urgent_stream;
    const lint k0 = p * nb_, mk = m_ - k0, kf = o.panel_reflectors(p);
    return check(cudaSetDevice(members_[d].c->device), Point::sync) && wait(s, o.panel_done_[p]) &&
           (p < Engine::kRing || wait(s, r.rest_done_[p - Engine::kRing])) &&
           check(cudaMemcpy2DAsync(r.panel_v(p), ldda_ * sizeof(T), o.panel_v(p), ldda_ * sizeof(T), mk * sizeof(T),
                                   kf, cudaMemcpyDefault, s),
                 Point::copy) &&
           check(cudaMemcpy2DAsync(r.tmat(p), nb_ * sizeof(T), o.tmat(p), nb_ * sizeof(T), kf * sizeof(T), kf,
                                   cudaMemcpyDefault, s),
                 Point::copy) &&
           check(cudaEventRecord(r.panel_done_[p], s), Point::copy);
  }

  // The steps above; false at the first failure.
  bool factor() {
    {
      Member &o = members_[0];
      if (!check(cudaSetDevice(o.c->device), Point::sync) || !arrived(o, 0, o.c->urgent_stream) ||
          !o.e->start_panel(0) || !o.e->finish_panel(0))
        return false;
      finalized_.publish(1);
    }
    std::vector<char> on_compute(std::size_t(nblocks_), 0);  // block column j's last update was on its compute stream
    for (lint p = 0; p < npanels_; ++p) {
      const int op = owner(p);
      for (int d = 0; d < P_; ++d)
        if (d != op && !send(p, d)) return false;
      const bool ahead = p + 1 < npanels_;
      if (ahead) {  // the look-ahead: block column p+1, then its panel
        Member &o = members_[owner(p + 1)];
        Engine &e = *o.e;
        const lint l = local(p + 1);
        const cudaStream_t u = o.c->urgent_stream;
        if (!check(cudaSetDevice(o.c->device), Point::sync) ||
            !(on_compute[p + 1] ? wait(u, e.caught_up_[p + 1]) : arrived(o, l, u)) ||
            !catch_up(o, l, l + 1, p, e.urgent_lane()) ||
            (p + 1 >= Engine::kRing && !wait(u, e.rest_done_[p + 1 - Engine::kRing])) || !e.start_panel(p + 1))
          return false;
      }
      const lint first = p + 1 + ahead;  // the first block column the compute streams update
      for (int d = 0; d < P_; ++d) {
        Member &mb = members_[d];
        Engine &e = *mb.e;
        const cudaStream_t cs = mb.c->compute_stream;
        if (!check(cudaSetDevice(mb.c->device), Point::sync) || !wait(cs, e.panel_done_[p])) return false;
        lint l0 = 0;
        while (l0 < lint(mb.owned.size()) && mb.owned[l0] < first) ++l0;
        const lint have = ahead ? std::min<lint>(mb.owned.size(), mb.uploaded.done()) : lint(mb.owned.size());
        if (have > l0) {
          if (!arrived(mb, have - 1, cs) || !catch_up(mb, l0, l0 + 1, p, e.compute_lane()) ||
              !check(cudaEventRecord(e.caught_up_[mb.owned[l0]], cs), Point::kernel) ||
              !catch_up(mb, l0 + 1, have, p, e.compute_lane()))
            return false;
          on_compute[mb.owned[l0]] = 1;
        }
        // Panel p's owner reuses V_p's ring slot only after every member
        // has its copy.
        if (d == op)
          for (int r = 0; r < P_; ++r)
            if (r != op && !wait(cs, members_[r].e->panel_done_[p])) return false;
        if (!check(cudaEventRecord(e.rest_done_[p], cs), Point::kernel)) return false;
      }
      if (ahead) {
        Member &o = members_[owner(p + 1)];
        if (!check(cudaSetDevice(o.c->device), Point::sync) || !o.e->finish_panel(p + 1)) return false;
        finalized_.publish(p + 2);
      }
    }
    // Block columns past the last panel (wide matrices) are final now.
    for (int d = 0; d < P_; ++d)
      if (Member &mb = members_[d]; !check(cudaSetDevice(mb.c->device), Point::sync) ||
                                    !check(cudaEventRecord(mb.e->all_done_, mb.c->compute_stream), Point::kernel))
        return false;
    finalized_.publish(nblocks_);
    return true;
  }

  const DeviceSet &set_;
  const int P_;
  const lint m_, n_;
  T *const a_;
  const lint lda_;
  T *const tau_;
  const lint nb_;
  const Panel mode_;
  SetRhs<T> *const rhs_;
  const Columns cols_;
  const lint nblocks_, npanels_, ldda_;
  std::unique_ptr<Member[]> members_;
  std::atomic<bool> failed_{false}, stop_{false};
  Progress finalized_;     // block columns whose final event is queued, in order
  Progress uploads_done_;  // 1 once every member's uploads are done
  std::atomic<int> uploaders_done_{0};
  StoreTurn turn_;
  std::atomic<lint> stored_columns_{0}, stored_b_{0};  // A's, B's columns stored, final
  bool pinned_ = false, pinned_b_ = false;
};

// The set's schedule serves where the caller asks for it (HQR_GPU_MIN_N),
// where min(m,n) reaches kNodeQrOrder (node.hpp), or where one GPU's
// memory does not hold the matrix; and only where every member holds its
// share (else one GPU runs it, out of core).

template <class T> bool geqrf_over_set(const DeviceSet &set, lint m, lint n, bool one_fits, lint nrhs) {
  if (set.count < 2 || std::min(m, n) < 1 || std::size_t(m) * sizeof(T) > Context::kSlotBytes) return false;
  const lint nb = block_size(n, panel_mode());
  if (config::gpu_min_n() < 0 && std::min(m, n) < kNodeQrOrder && one_fits) return false;
  for (int d = 0; d < set.count; ++d) {
    const double need = NodeGeqrf<T>::member_bytes(m, n, nrhs, nb, set.count, d);
    const std::size_t budget = plan_budget(*set.member[d], std::size_t(256) << 20);
    if (budget == 0 || need > double(budget)) return false;
  }
  return true;
}

// Where the set's xGEQRF serves an m-by-n A (geqrf_over_set), n; where
// the whole matrix fits neither one GPU nor the members' shares, the widest
// window of whole panels that the set's schedule holds on every member
// (out of core); else 0.
template <class T> lint geqrf_set_plan(const DeviceSet &set, lint m, lint n, bool one_fits) {
  if (geqrf_over_set<T>(set, m, n, one_fits, 0)) return n;
  if (one_fits || set.count < 2) return 0;
  const lint nb = block_size(n, panel_mode());
  lint lo = 0, hi = (n + nb - 1) / nb;  // in panels: lo fits (or is 0), more than hi do not
  while (lo < hi) {
    const lint mid = (lo + hi + 1) / 2;
    if (geqrf_over_set<T>(set, m, std::min(n, mid * nb), false, 0))
      lo = mid;
    else
      hi = mid - 1;
  }
  return std::min(n, lo * nb);
}

template <class T> Result geqrf_node(const DeviceSet &set, lint m, lint n, T *a, lint lda, T *tau, SetRhs<T> *rhs) {
  const Panel mode = panel_mode();
  Result r = NodeGeqrf<T>(set, m, n, a, lda, tau, block_size(n, mode), mode, rhs).run();
  r.path = node_path(set.count, 1);
  return r;
}

#define HQR_INSTANTIATE(T)                                                  \
  template bool geqrf_over_set<T>(const DeviceSet &, lint, lint, bool, lint); \
  template lint geqrf_set_plan<T>(const DeviceSet &, lint, lint, bool); \
  template Result geqrf_node(const DeviceSet &, lint, lint, T *, lint, T *, SetRhs<T> *);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
