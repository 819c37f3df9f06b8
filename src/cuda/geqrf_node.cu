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
  NodeGeqrf(const DeviceSet &set, lint m, lint n, T *a, lint lda, T *tau, lint nb, Panel mode)
      : set_(set), P_(set.count), m_(m), n_(n), a_(a), lda_(lda), tau_(tau), nb_(nb), mode_(mode),
        nblocks_((n + nb - 1) / nb), npanels_((std::min(m, n) + nb - 1) / nb), ldda_((m + 31) / 32 * 32) {}

  // The device bytes member d needs: its block columns and a one-GPU
  // schedule's workspace (W and W2 as wide as the whole matrix).
  static double member_bytes(lint m, lint n, lint nb, int P, int d) {
    const double ldd = double((m + 31) / 32 * 32);
    return Engine::in_core_bytes(m, n, nb) - sizeof(T) * ldd * double(n - own_columns(n, nb, P, d));
  }

  Result run() {
    if (std::size_t(m_) * sizeof(T) > Context::kSlotBytes) return {false, 0, "matrix column larger than staging", 0};
    members_.reset(new Member[P_]);
    for (int d = 0; d < P_; ++d)
      if (!setup(d)) return finish({false, 0, failed_ ? "CUDA error" : "GPU out of memory", 0});
    pinned_ = pinned_range(a_, (std::size_t(n_ - 1) * lda_ + m_) * sizeof(T)).pinned;
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
    if (failed_) return finish({false, 0, "CUDA error", stored_columns_.load()});
    Result r{true, 0, pinned_ ? kPinnedCaller : nullptr, 0};
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

  int owner(lint j) const { return int(j % P_); }
  lint local(lint j) const { return j / P_; }  // index among its owner's block columns
  static lint own_columns(lint n, lint nb, int P, int d) {
    lint cols = 0;
    for (lint j = d; j * nb < n; j += P) cols += std::min(nb, n - j * nb);
    return cols;
  }
  Rect block(lint j) const { return Rect{0, j * nb_, m_, std::min(nb_, n_ - j * nb_)}; }
  T *host(lint i, lint j) const { return a_ + i + std::size_t(j) * lda_; }
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
    const lint cols = own_columns(n_, nb_, P_, d);
    if (fault::hit(Point::alloc) || !mb.c->matrix.reserve(sizeof(T) * std::size_t(ldda_) * std::max<lint>(cols, 1)))
      return false;
    mb.local = static_cast<T *>(mb.c->matrix.get());
    std::vector<T *> cols_at(nblocks_, nullptr);
    for (lint j = d; j < nblocks_; j += P_) {
      cols_at[j] = mb.local + std::size_t(local(j)) * nb_ * ldda_;
      mb.owned.push_back(j);
    }
    mb.applied.assign(mb.owned.size(), 0);
    mb.e.reset(new Engine(typename Engine::Member{}, *mb.c, m_, n_, nb_, mode_, ldda_, std::move(cols_at), failed_));
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
        if (!upload_block(*mb.c, pinned_, slot, sizeof(T), r.m, r.n, host(r.r0, r.c0), lda_, mb.e->dev(r.r0, r.c0),
                          ldda_, mb.c->upload_stream, step))
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
      copy_block(c.download_copies, sizeof(T), p.r.m, p.r.n, p.s->host, p.r.m, host(p.r.r0, p.r.c0), lda_);
      if (p.first && p.j < npanels_) {
        const lint t0 = p.j * nb_;
        std::copy(e.htau_out_ + t0, e.htau_out_ + t0 + e.panel_reflectors(p.j), tau_ + t0);
      }
      if (p.last) {
        stored_columns_.store(p.r.c0 + p.r.n);
        turn_.done(p.j);
      }
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
    const lint end = l1 == lint(mb.owned.size()) ? own_columns(n_, nb_, P_, owner(mb.owned[0])) : l1 * nb_;
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
  const lint nblocks_, npanels_, ldda_;
  std::unique_ptr<Member[]> members_;
  std::atomic<bool> failed_{false}, stop_{false};
  Progress finalized_;     // block columns whose final event is queued, in order
  Progress uploads_done_;  // 1 once every member's uploads are done
  std::atomic<int> uploaders_done_{0};
  StoreTurn turn_;
  std::atomic<lint> stored_columns_{0};
  bool pinned_ = false;
};

// The set's schedule serves where the caller asks for it (HQR_GPU_MIN_N),
// where min(m,n) reaches kNodeQrOrder (node.hpp), or where one GPU's
// memory does not hold the matrix; and only where every member holds its
// share (else one GPU runs it, out of core).

template <class T> bool geqrf_over_set(const DeviceSet &set, lint m, lint n, bool one_fits) {
  if (set.count < 2 || std::min(m, n) < 1 || std::size_t(m) * sizeof(T) > Context::kSlotBytes) return false;
  const lint nb = block_size(n, panel_mode());
  if (config::gpu_min_n() < 0 && std::min(m, n) < kNodeQrOrder && one_fits) return false;
  for (int d = 0; d < set.count; ++d) {
    const double need = NodeGeqrf<T>::member_bytes(m, n, nb, set.count, d);
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
  if (geqrf_over_set<T>(set, m, n, one_fits)) return n;
  if (one_fits || set.count < 2) return 0;
  const lint nb = block_size(n, panel_mode());
  lint lo = 0, hi = (n + nb - 1) / nb;  // in panels: lo fits (or is 0), more than hi do not
  while (lo < hi) {
    const lint mid = (lo + hi + 1) / 2;
    if (geqrf_over_set<T>(set, m, std::min(n, mid * nb), false))
      lo = mid;
    else
      hi = mid - 1;
  }
  return std::min(n, lo * nb);
}

template <class T> Result geqrf_node(const DeviceSet &set, lint m, lint n, T *a, lint lda, T *tau) {
  const Panel mode = panel_mode();
  Result r = NodeGeqrf<T>(set, m, n, a, lda, tau, block_size(n, mode), mode).run();
  r.path = node_path(set.count, 1);
  return r;
}

#define HQR_INSTANTIATE(T)                                                  \
  template bool geqrf_over_set<T>(const DeviceSet &, lint, lint, bool); \
  template lint geqrf_set_plan<T>(const DeviceSet &, lint, lint, bool); \
  template Result geqrf_node(const DeviceSet &, lint, lint, T *, lint, T *);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
