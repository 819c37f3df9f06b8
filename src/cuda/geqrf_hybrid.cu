// Hybrid QR factorization (xGEQRF) with the caller's matrix in pageable
// host memory.
//
// Right-looking by block columns of nb, with a look-ahead of one panel:
// while panel p+1 is factored, the GPU applies block reflector p to the
// trailing matrix. Step p:
//   compute stream: C(p+1) -= V T**H V**H C(p+1)      block column p+1 first
//   urgent stream:  factor panel p+1 (rows p+1.. of block column p+1); a
//                   high-priority stream, so that the panel's small kernels
//                   get the SMs first as the gemm's blocks retire (measured
//                   on the H200: no worse than a plain stream, within noise)
//   compute stream: the same update of block columns p+2.., in pieces as
//                   they arrive from the host
// The update is xLARFB as cuBLAS level 3: W = V**H C (gemm), W = T**H W
// (trmm), C -= V W (gemm). V is a copy of the panel's reflectors with the
// unit upper triangle written out (ones on the diagonal, zeros above), so
// that plain gemms do the work and the caller's R stays untouched.
//
// Two ways to factor a panel (Panel):
//   gpu: cuSOLVER's geqrf on the device, T from the reflectors on the
//        device too: T**-1 = diag(1/tau) + strictly upper part of V**H V
//        (herk, then trsm against I), so nothing leaves the GPU;
//   cpu: hqr's own geqr2 + larft (src/cpu/qr_panel.cpp) on the host: the
//        panel goes down and back up through pinned memory.
//
//   upload thread:   caller -> pinned slot -> device, block column by block column
//   download thread: device -> pinned slot -> caller, each block column as soon
//                    as it is final (with its tau)
//
// Where the time goes (H200, bench/results/qr-NVIDIA-H200-2026-11-22.txt):
// 16384^2 takes 0.32 s, about cuSOLVER's device-only time, and tall-skinny
// 65536x1024 0.042 s. The panels (cuSOLVER's geqrf on nb columns) are the
// critical path, and step 0's update of the whole trailing matrix waits for
// the last block column to arrive, so the upload is not hidden. Next steps:
// apply the reflectors already computed to late-arriving block columns
// (left-looking catch-up, T of every panel kept) instead of holding step 1
// back, and a recursive or TSQR panel in place of cuSOLVER's.
//
// geqrf_on_device (qr_device.hpp) runs the same factorization for xGELS and
// leaves the factor on the device: every panel's T kept, workspace set aside
// for the caller, and max |a_ij| measured as block columns arrive.
//
// The caller's array is written only with final columns, left to right, so
// if the GPU fails mid-call Result::resume counts the leading columns (and
// their tau) already final there; the rest still holds the input and the CPU
// finishes from there.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu/qr_panel.hpp"
#include "cuda/blas.cuh"
#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "cuda/handoff.hpp"
#include "cuda/qr_device.hpp"
#include "cuda/qr_kernels.cuh"
#include "host/config.hpp"
#include "host/fault.hpp"

namespace hqr::gpu {
namespace {

using fault::Point;

enum class Panel { cpu, gpu };

// The context's high-priority stream and its handles (context.hpp), created
// once; false if CUDA cannot make them.
bool urgent_stream(Context &c) {
  if (c.urgent_blas) return true;
  int least = 0, greatest = 0;
  if (!ok(cudaDeviceGetStreamPriorityRange(&least, &greatest))) return false;
  if (!c.urgent_stream && !ok(cudaStreamCreateWithPriority(&c.urgent_stream, cudaStreamNonBlocking, greatest))) {
    c.urgent_stream = nullptr;
    return false;
  }
  if (!c.urgent_solver && (!ok(cusolverDnCreate(&c.urgent_solver)) ||
                           !ok(cusolverDnSetStream(c.urgent_solver, c.urgent_stream)))) {
    if (c.urgent_solver) cusolverDnDestroy(c.urgent_solver);
    c.urgent_solver = nullptr;
    return false;
  }
  cublasHandle_t h = nullptr;
  if (!ok(cublasCreate(&h))) return false;
  if (!ok(cublasSetStream(h, c.urgent_stream))) {
    cublasDestroy(h);
    return false;
  }
  c.urgent_blas = h;
  return true;
}

template <class T> class HybridGeqrf {
 public:
  // keep: leave the factor on the device for the caller (qr_device.hpp):
  // every panel's T is kept, extra bytes of workspace are set aside and
  // max |a_ij| of the input is measured on its way in.
  HybridGeqrf(Context &c, lint m, lint n, T *a, lint lda, T *tau, lint nb, Panel mode, std::size_t keep_extra = 0,
              DeviceQR<T> *keep = nullptr)
      : c_(c), m_(m), n_(n), k_(std::min(m, n)), a_(a), lda_(lda), tau_(tau), nb_(nb), nblocks_((n + nb - 1) / nb),
        npanels_((std::min(m, n) + nb - 1) / nb), ldda_((m + 31) / 32 * 32), mode_(mode), keep_(keep),
        keep_extra_(keep_extra) {}

  Result run() {
    if (std::size_t(m_) * sizeof(T) > Context::kSlotBytes) return {false, 0, "matrix column larger than staging", 0};
    if (!reserve()) return finish({false, 0, "GPU out of memory", 0});
    arrived_.resize(nblocks_);
    panel_done_.resize(npanels_);
    for (auto *v : {&arrived_, &panel_done_})
      for (auto &e : *v)
        if (!ok(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return finish({false, 0, "CUDA event", 0});
    for (cudaEvent_t *e : {&next_ready_, &all_done_, &panel_down_})
      if (!ok(cudaEventCreateWithFlags(e, cudaEventDisableTiming))) return finish({false, 0, "CUDA event", 0});

    std::thread uploader([this] {
      if (check(cudaSetDevice(c_.device), Point::sync)) upload();
      uploaded_.wake();
    });
    std::thread downloader([this] {
      if (check(cudaSetDevice(c_.device), Point::sync)) download();
    });
    factor();
    stop_ = true;
    uploaded_.wake();
    finalized_.wake();
    uploader.join();
    downloader.join();
    for (cudaStream_t s : {c_.compute_stream, c_.urgent_stream, c_.upload_stream, c_.download_stream})
      check(cudaStreamSynchronize(s), Point::sync);
    if (failed_) return finish({false, 0, "CUDA error", stored_columns_.load()});
    if (keep_) *keep_ = DeviceQR<T>{dA_, ldda_, dtau_, dT_[0], nb_, dextra_, damax_};
    return finish({true, 0, nullptr, 0});
  }

 private:
  // Device: the matrix (ldda by n), two V copies (ldda by nb) and two T
  // (nb by nb) alternating between panels (with keep: every panel's T, the
  // caller's extra bytes and max |a_ij|), W (nb by n), G (nb by nb), tau,
  // cuSOLVER's workspace and INFO. Pinned: tau on its way out, and for the
  // cpu mode the panel, its T and tau.
  bool reserve() {
    if (fault::hit(Point::alloc)) return false;
    if (!c_.matrix.reserve(sizeof(T) * std::size_t(ldda_) * n_)) return false;
    dA_ = static_cast<T *>(c_.matrix.get());
    const dtype t = blas::data_type<T>();
    if (!urgent_stream(c_)) return false;
    if (mode_ == Panel::gpu) {
      if (!ok(cusolverDnCreateParams(&params_))) return false;
      if (!ok(cusolverDnXgeqrf_bufferSize(c_.urgent_solver, params_, m_, std::min(nb_, n_), t, dA_, ldda_, t, dA_, t,
                                          &solver_device_bytes_, &solver_host_bytes_)))
        return false;
      solver_host_.resize(solver_host_bytes_);
    }
    const std::size_t e = sizeof(T), v = e * ldda_ * nb_, tt = e * nb_ * nb_;
    auto round = [](std::size_t b) { return (b + 255) / 256 * 256; };
    std::size_t off[8], total = 0;
    const std::size_t sizes[8] = {v, v, tt * (keep_ ? std::max<lint>(npanels_, 1) : 1),
                                  keep_ ? keep_extra_ + 256 : tt, e * nb_ * n_, tt, e * k_,
                                  solver_device_bytes_ + sizeof(int)};
    for (int i = 0; i < 8; ++i) {
      off[i] = total;
      total += round(sizes[i]);
    }
    if (!c_.workspace.reserve(total)) return false;
    char *w = static_cast<char *>(c_.workspace.get());
    dV_[0] = reinterpret_cast<T *>(w + off[0]);
    dV_[1] = reinterpret_cast<T *>(w + off[1]);
    dT_[0] = reinterpret_cast<T *>(w + off[2]);
    dT_[1] = keep_ ? nullptr : reinterpret_cast<T *>(w + off[3]);
    if (keep_) {
      damax_ = reinterpret_cast<unsigned long long *>(w + off[3]);
      dextra_ = w + off[3] + 256;
    }
    dW_ = reinterpret_cast<T *>(w + off[4]);
    dG_ = reinterpret_cast<T *>(w + off[5]);
    dtau_ = reinterpret_cast<T *>(w + off[6]);
    dsolver_ = w + off[7];
    dinfo_ = reinterpret_cast<int *>(w + off[7] + solver_device_bytes_);
    const std::size_t pinned = round(e * k_) + (mode_ == Panel::cpu ? round(e * m_ * nb_) + round(tt) + round(e * k_) : 0);
    if (!c_.panel.reserve(pinned)) return false;
    char *p = static_cast<char *>(c_.panel.get());
    htau_out_ = reinterpret_cast<T *>(p);
    if (mode_ == Panel::cpu) {
      hpanel_ = reinterpret_cast<T *>(p + round(e * k_));
      hT_ = reinterpret_cast<T *>(p + round(e * k_) + round(e * m_ * nb_));
      htau_ = reinterpret_cast<T *>(p + round(e * k_) + round(e * m_ * nb_) + round(tt));
      cpu_work_.resize(std::max<std::size_t>(cpu::qr_panel_work(nb_), std::size_t(nb_) * nb_));
    }
    return true;
  }
  using dtype = cudaDataType;

  Result finish(Result r) {
    for (auto *v : {&arrived_, &panel_done_})
      for (auto &e : *v)
        if (e) cudaEventDestroy(e);
    for (cudaEvent_t e : {next_ready_, all_done_, panel_down_})
      if (e) cudaEventDestroy(e);
    if (params_) cusolverDnDestroyParams(params_);
    if (!r.ran) (void)cudaGetLastError();
    return r;
  }

  T *dev(lint i, lint j) const { return dA_ + i + std::size_t(j) * ldda_; }
  T *host(lint i, lint j) const { return a_ + i + std::size_t(j) * lda_; }
  Rect block(lint j) const { return Rect{0, j * nb_, m_, std::min(nb_, n_ - j * nb_)}; }

  // A CUDA step: false (and every thread stops) on an error, or where the
  // HQR_FAULT test switch says this kind of step fails.
  template <class S> bool check(S status, Point p) {
    if (!ok(status) || fault::hit(p)) failed_ = true;
    return !failed_;
  }
  bool launched(Point p) { return check(cudaGetLastError(), p); }

  // Splits a block column into pieces of whole columns that fit one slot.
  std::vector<Rect> chunks(const Rect &r) const {
    const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(r.m) * sizeof(T))));
    std::vector<Rect> out;
    for (lint j = 0; j < r.n; j += per) out.push_back({r.r0, r.c0 + j, r.m, std::min(per, r.n - j)});
    return out;
  }

  // Caller -> pinned slot -> device, block column by block column.
  void upload() {
    int slot = 0;
    if (keep_ && !check(cudaMemsetAsync(damax_, 0, sizeof *damax_, c_.upload_stream), Point::copy)) return;
    for (lint j = 0; j < nblocks_ && !stop_ && !failed_; ++j) {
      for (const Rect &r : chunks(block(j))) {
        StagingSlot &s = c_.upload_slots[slot++ % Context::kSlots];
        if (!check(cudaEventSynchronize(s.dma_done), Point::sync)) return;
        copy_block(c_.upload_copies, sizeof(T), r.m, r.n, host(r.r0, r.c0), lda_, s.host, r.m);
        if (!check(cudaMemcpy2DAsync(dev(r.r0, r.c0), ldda_ * sizeof(T), s.host, r.m * sizeof(T), r.m * sizeof(T), r.n,
                                     cudaMemcpyHostToDevice, c_.upload_stream),
                   Point::copy) ||
            !check(cudaEventRecord(s.dma_done, c_.upload_stream), Point::copy))
          return;
        if (keep_) {
          max_abs<<<grid_for(int64_t(r.m) * r.n, 256, 1024), 256, 0, c_.upload_stream>>>(
              r.m, r.n, dv(dev(r.r0, r.c0)), ldda_, damax_);
          if (!launched(Point::kernel)) return;
        }
      }
      if (!check(cudaEventRecord(arrived_[j], c_.upload_stream), Point::copy)) return;
      uploaded_.publish(j + 1);
    }
  }

  // Device -> pinned slot -> caller, each block column once it is final;
  // the first chunk of a panel's block column brings that panel's tau, so
  // every stored column has its tau stored too. DMAs run up to kSlots
  // chunks ahead of the host copies.
  void download() {
    struct Pending {
      lint j;
      Rect r;
      StagingSlot *s;
      bool with_tau;
    };
    std::deque<Pending> pending;
    int slot = 0;
    // A chunk whose DMA completed holds final columns even if another step
    // failed meanwhile: it is stored, so that the CPU has less to redo. After
    // the first chunk that cannot be stored, none is (the stored columns
    // stay a leading block).
    bool storing = true;
    auto drain_one = [&] {
      const Pending p = pending.front();
      pending.pop_front();
      const bool done = failed_ ? ok(cudaEventSynchronize(p.s->dma_done))
                                : check(cudaEventSynchronize(p.s->dma_done), Point::sync);
      storing = storing && done;
      if (!storing) return;
      copy_block(c_.download_copies, sizeof(T), p.r.m, p.r.n, p.s->host, p.r.m, host(p.r.r0, p.r.c0), lda_);
      if (p.with_tau) {
        const lint t0 = p.j * nb_;
        std::copy(htau_out_ + t0, htau_out_ + t0 + panel_reflectors(p.j), tau_ + t0);
      }
      stored_columns_.store(p.r.c0 + p.r.n);
    };
    for (lint j = 0; j < nblocks_ && !failed_; ++j) {
      if (!finalized_.wait_past(j, stop_) || failed_) break;
      cudaEvent_t final_event = j < npanels_ ? panel_done_[j] : all_done_;
      if (!check(cudaStreamWaitEvent(c_.download_stream, final_event, 0), Point::sync)) break;
      bool first = true;
      for (const Rect &r : chunks(block(j))) {
        if (pending.size() == std::size_t(Context::kSlots)) drain_one();
        StagingSlot &s = c_.download_slots[slot++ % Context::kSlots];
        const bool with_tau = first && j < npanels_;
        first = false;
        if (!check(cudaMemcpy2DAsync(s.host, r.m * sizeof(T), dev(r.r0, r.c0), ldda_ * sizeof(T), r.m * sizeof(T),
                                     r.n, cudaMemcpyDeviceToHost, c_.download_stream),
                   Point::copy) ||
            (with_tau && !check(cudaMemcpyAsync(htau_out_ + j * nb_, dtau_ + j * nb_, sizeof(T) * panel_reflectors(j),
                                                cudaMemcpyDeviceToHost, c_.download_stream),
                                Point::copy)) ||
            !check(cudaEventRecord(s.dma_done, c_.download_stream), Point::copy))
          break;
        pending.push_back({j, r, &s, with_tau});
      }
    }
    while (!pending.empty()) drain_one();
  }

  // Panel p's T: one of two alternating, or with keep, its own.
  T *tmat(lint p) const { return keep_ ? dT_[0] + std::size_t(p) * nb_ * nb_ : dT_[p % 2]; }

  // Panel p: rows p*nb.. of block column p; its reflectors number
  // min(rows, columns).
  lint panel_rows(lint p) const { return m_ - p * nb_; }
  lint panel_cols(lint p) const { return std::min(nb_, n_ - p * nb_); }
  lint panel_reflectors(lint p) const { return std::min(panel_rows(p), panel_cols(p)); }

  // Block column j is on the device (stream-ordered on `s`).
  bool arrived(lint j, cudaStream_t s) {
    return uploaded_.wait_past(j, failed_) && check(cudaStreamWaitEvent(s, arrived_[j], 0), Point::sync);
  }

  // V (with its unit triangle) of the factored panel p into dV_[p % 2].
  bool copy_v(lint p) {
    const lint k0 = p * nb_, mk = panel_rows(p), kf = panel_reflectors(p);
    const int threads = 256, blocks = int(std::min<int64_t>(4096, (int64_t(mk) * kf + threads - 1) / threads));
    unit_lower_copy<<<blocks, threads, 0, c_.urgent_stream>>>(mk, kf, dv(dev(k0, k0)), ldda_, dv(dV_[p % 2]), ldda_);
    return launched(Point::kernel);
  }
  // Panel p, its V and T are ready: its block column is final and may
  // leave, and its block reflector may be applied.
  bool panel_finished(lint p) { return check(cudaEventRecord(panel_done_[p], c_.urgent_stream), Point::kernel); }

  // gpu mode: geqrf, then T = (diag(1/tau) + strictly upper V**H V)**-1.
  bool factor_panel_gpu(lint p) {
    using R = typename Prec<T>::real;
    const lint k0 = p * nb_, mk = panel_rows(p), kf = panel_reflectors(p);
    const dtype t = blas::data_type<T>();
    T *tau = dtau_ + k0, *dT = tmat(p);
    if (!check(cusolverDnXgeqrf(c_.urgent_solver, params_, mk, panel_cols(p), t, dev(k0, k0), ldda_, t, tau, t,
                                dsolver_, solver_device_bytes_, solver_host_.empty() ? nullptr : solver_host_.data(),
                                solver_host_bytes_, dinfo_),
               Point::kernel) ||
        !copy_v(p) ||
        !check(blas::herk(c_.urgent_blas, CUBLAS_FILL_MODE_UPPER, blas::op_c<T>(), kf, mk, R(1), dV_[p % 2], ldda_, R(0),
                          dG_, nb_),
               Point::kernel))
      return false;
    const int threads = 256, blocks = int(std::min<lint>(1024, (kf * kf + threads - 1) / threads));
    t_inverse_setup<<<blocks, threads, 0, c_.urgent_stream>>>(int(kf), dv(dG_), int(nb_), dv(tau), dv(dT), int(nb_));
    if (!launched(Point::kernel) ||
        !check(blas::trsm(c_.urgent_blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                          kf, kf, T(1), dG_, nb_, dT, nb_),
               Point::kernel))
      return false;
    fix_zero_tau<<<(int(kf) + 255) / 256, 256, 0, c_.urgent_stream>>>(int(kf), dv(tau), dv(dT), int(nb_));
    return launched(Point::kernel) && panel_finished(p);
  }

  // cpu mode, first half: panel p (updated) on its way to the host.
  bool send_panel(lint p) {
    const lint k0 = p * nb_, mk = panel_rows(p), kw = panel_cols(p);
    return check(cudaMemcpy2DAsync(hpanel_, mk * sizeof(T), dev(k0, k0), ldda_ * sizeof(T), mk * sizeof(T), kw,
                                   cudaMemcpyDeviceToHost, c_.urgent_stream),
                 Point::copy) &&
           check(cudaEventRecord(panel_down_, c_.urgent_stream), Point::copy);
  }
  // cpu mode, second half: geqr2 + larft on the host, R, V, T and tau back up.
  bool factor_sent_panel(lint p) {
    const lint k0 = p * nb_, mk = panel_rows(p), kw = panel_cols(p), kf = panel_reflectors(p);
    if (!check(cudaEventSynchronize(panel_down_), Point::sync)) return false;
    cpu::geqr2(mk, kw, hpanel_, mk, htau_ + k0, cpu_work_.data());
    cpu::larft(mk, kf, hpanel_, mk, htau_ + k0, hT_, nb_, cpu_work_.data());
    return check(cudaMemcpy2DAsync(dev(k0, k0), ldda_ * sizeof(T), hpanel_, mk * sizeof(T), mk * sizeof(T), kw,
                                   cudaMemcpyHostToDevice, c_.urgent_stream),
                 Point::copy) &&
           check(cudaMemcpy2DAsync(tmat(p), nb_ * sizeof(T), hT_, nb_ * sizeof(T), kf * sizeof(T), kf,
                                   cudaMemcpyHostToDevice, c_.urgent_stream),
                 Point::copy) &&
           check(cudaMemcpyAsync(dtau_ + k0, htau_ + k0, kf * sizeof(T), cudaMemcpyHostToDevice, c_.urgent_stream),
                 Point::copy) &&
           copy_v(p) && panel_finished(p);
  }

  // Block columns c0.. (nc columns) of the trailing matrix: C -= V T**H V**H C
  // with block reflector p.
  bool larfb(lint p, lint c0, lint nc) {
    const lint k0 = p * nb_, mk = panel_rows(p), kf = panel_reflectors(p);
    const T *V = dV_[p % 2], *Tm = tmat(p);
    T *C = dev(k0, c0), *W = dW_ + std::size_t(c0) * nb_;
    return nc == 0 ||
           (check(blas::gemm(c_.blas, blas::op_c<T>(), CUBLAS_OP_N, kf, nc, mk, T(1), V, ldda_, C, ldda_, T(0), W, nb_),
                  Point::kernel) &&
            check(blas::trmm(c_.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, blas::op_c<T>(), CUBLAS_DIAG_NON_UNIT,
                             kf, nc, T(1), Tm, nb_, W, nb_, W, nb_),
                  Point::kernel) &&
            check(blas::gemm(c_.blas, CUBLAS_OP_N, CUBLAS_OP_N, mk, nc, kf, T(-1), V, ldda_, W, nb_, T(1), C, ldda_),
                  Point::kernel));
  }

  // Block reflector p on block columns j0..nblocks-1, in pieces: each piece
  // takes every block column the upload has delivered by then (at least one).
  bool update_rest(lint p, lint j0) {
    for (lint j = j0; j < nblocks_;) {
      const lint last = std::max(j, std::min(nblocks_, uploaded_.done()) - 1);
      if (!arrived(last, c_.compute_stream)) return false;
      const lint c0 = j * nb_, c1 = std::min(n_, (last + 1) * nb_);
      if (!larfb(p, c0, c1 - c0)) return false;
      j = last + 1;
    }
    return true;
  }

  bool publish(lint blocks) {
    finalized_.publish(blocks);
    return true;
  }

  void factor() {
    const bool gpu = mode_ == Panel::gpu;
    if (!arrived(0, c_.urgent_stream) || !(gpu ? factor_panel_gpu(0) : send_panel(0) && factor_sent_panel(0)) ||
        !publish(1))
      return;
    for (lint p = 0; p < npanels_; ++p) {
      const bool ahead = p + 1 < npanels_;
      if (!check(cudaStreamWaitEvent(c_.compute_stream, panel_done_[p], 0), Point::sync)) return;
      if (ahead) {  // block column p+1 first, then its panel leaves for the factorization
        if (!arrived(p + 1, c_.compute_stream) || !larfb(p, (p + 1) * nb_, panel_cols(p + 1)) ||
            !check(cudaEventRecord(next_ready_, c_.compute_stream), Point::kernel) ||
            !check(cudaStreamWaitEvent(c_.urgent_stream, next_ready_, 0), Point::sync) ||
            !(gpu ? factor_panel_gpu(p + 1) && publish(p + 2) : send_panel(p + 1)))
          return;
      }
      if (!update_rest(p, p + (ahead ? 2 : 1))) return;
      // hqr's CPU panel runs while the GPU works through the update.
      if (ahead && !gpu && (!factor_sent_panel(p + 1) || !publish(p + 2))) return;
    }
    // Block columns past the last panel (wide matrices) are final now.
    if (!check(cudaEventRecord(all_done_, c_.compute_stream), Point::kernel)) return;
    publish(nblocks_);
  }

  Context &c_;
  const lint m_, n_, k_;
  T *const a_;
  const lint lda_;
  T *const tau_;
  const lint nb_, nblocks_, npanels_, ldda_;
  const Panel mode_;
  DeviceQR<T> *const keep_;
  const std::size_t keep_extra_;
  unsigned long long *damax_ = nullptr;
  void *dextra_ = nullptr;
  T *dA_ = nullptr, *dV_[2] = {}, *dT_[2] = {}, *dW_ = nullptr, *dG_ = nullptr, *dtau_ = nullptr;
  void *dsolver_ = nullptr;
  int *dinfo_ = nullptr;
  cusolverDnParams_t params_ = nullptr;
  std::size_t solver_device_bytes_ = 0, solver_host_bytes_ = 0;
  std::vector<char> solver_host_;
  T *htau_out_ = nullptr, *hpanel_ = nullptr, *hT_ = nullptr, *htau_ = nullptr;
  std::vector<T> cpu_work_;
  std::vector<cudaEvent_t> arrived_, panel_done_;
  cudaEvent_t next_ready_ = nullptr, all_done_ = nullptr, panel_down_ = nullptr;
  Progress uploaded_, finalized_;
  std::atomic<bool> failed_{false}, stop_{false};
  std::atomic<lint> stored_columns_{0};  // leading columns final (with their tau) in the caller's arrays
};

}  // namespace

template <class T>
Result geqrf_on_device(Context &c, lint m, lint n, T *a, lint lda, T *tau, std::size_t extra_bytes, DeviceQR<T> *out,
                       const char **path) {
  const Panel mode = config::panel() == config::kPanelCpu ? Panel::cpu : Panel::gpu;
  const int nb_setting = config::nb();
  // Block sizes measured on the H200 (bench/results/qr-*): 512 from n =
  // 8192 (the updates' gemms run faster than the extra panel work costs),
  // 256 below (and for tall-skinny shapes, where the panels dominate);
  // hqr's CPU panel is a single core's work and wants fewer.
  lint nb = nb_setting > 0 ? nb_setting : mode == Panel::cpu ? 128 : n >= 8192 ? 512 : 256;
  nb = std::min<lint>({nb, n, 1024});
  if (path) *path = mode == Panel::cpu ? "gpu-hybrid (cpu panels)" : "gpu-hybrid (gpu panels)";
  return HybridGeqrf<T>(c, m, n, a, lda, tau, nb, mode, extra_bytes, out).run();
}

template <class T> Result geqrf(lint m, lint n, T *a, lint lda, T *tau, const char **path) {
  Context *c = context();
  if (!c) return {false, 0, context_error(), 0};
  std::lock_guard<std::mutex> g(c->lock);
  if (!ok(cudaSetDevice(c->device))) return {false, 0, "cudaSetDevice failed", 0};
  return geqrf_on_device(*c, m, n, a, lda, tau, 0, static_cast<DeviceQR<T> *>(nullptr), path);
}

template Result geqrf(lint, lint, float *, lint, float *, const char **);
template Result geqrf(lint, lint, double *, lint, double *, const char **);
template Result geqrf(lint, lint, std::complex<float> *, lint, std::complex<float> *, const char **);
template Result geqrf(lint, lint, std::complex<double> *, lint, std::complex<double> *, const char **);
#define HQR_INSTANTIATE(T) \
  template Result geqrf_on_device(Context &, lint, lint, T *, lint, T *, std::size_t, DeviceQR<T> *, const char **);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
