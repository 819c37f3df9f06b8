// The hybrid xGEQRF schedule (HybridGeqrf) with the caller's matrix in
// pageable host memory, on one GPU; also one member of a device set's
// schedule (its Member form: geqrf_node.cu orders its panels and updates).
//
// Right-looking by block columns of nb, with a look-ahead of one panel:
// while panel p+1 is factored, the GPU applies block reflector p to the
// trailing matrix. Step p:
//   compute stream: C(p+1) -= V T**H V**H C(p+1)      block column p+1 first
//   urgent stream:  factor panel p+1 (rows p+1.. of block column p+1); a
//                   high-priority stream, so that the panel's small kernels
//                   get the SMs first as the gemm's blocks retire
//   compute stream: the same update of every later block column that has
//                   arrived from the host; one that arrives later catches up
//                   with all the reflectors before it at the next step, so
//                   the panels do not wait for the whole upload
// The update is xLARFB as cuBLAS level 3: W = V**H C, W2 = T**H W (T is
// zero below its diagonal), C -= V W2, three gemms. V is a copy of the
// panel's reflectors with the unit upper triangle written out (ones on the
// diagonal, zeros above), so that plain gemms do the work and the caller's
// R stays untouched.
//
// Three ways to factor a panel (Panel, HQR_PANEL):
//   gpu (default): CholeskyQR2 and Householder reconstruction (cholqr.cuh),
//        all level 3 on the device; cuSOLVER's geqrf where CholeskyQR2
//        cannot be trusted (an ill-conditioned panel);
//   cusolver: cuSOLVER's geqrf on the device, T from the reflectors on the
//        device too: T**-1 = diag(1/tau) + strictly upper part of V**H V
//        (herk, then trsm against I), so nothing leaves the GPU;
//   cpu: hqr's own geqr2 + larft (src/cpu/qr_panel.cpp) on the host: the
//        panel goes down and back up through pinned memory.
//
//   upload thread:   caller -> pinned slot -> device, block column by block column
//                    (a pinned caller's straight up by DMA, pinned.hpp)
//   download thread: device -> pinned slot -> caller, each block column once
//                    it is final (with its tau) and the upload is done
//
// Measured reasons (dgeqrf, hqr alone; results under bench/results/history/):
// - late block columns catch up: 16384^2 0.30 -> 0.27 s (H200, qr-NVIDIA-H200-2026-11-25.txt)
// - CholeskyQR2 panels: 16384^2 0.27 -> 0.21 s, 65536x1024 0.040 -> 0.027 (H200, qr-NVIDIA-H200-2026-11-25.txt)
// - look-ahead on the high-priority stream: 16384^2 0.206 -> 0.200 s (H200, qr-NVIDIA-H200-2026-11-25.txt)
// - gemm, not trmm, for T**H W: 22 against 100 us at 512 by 512 (H100, qr-tuning-NVIDIA-H100-2026-11-27.txt)
// - the panel's lower Cholesky, batched inverses, kernel-written verdict: 16384^2 0.200-0.204 -> 0.184-0.187 s
//   (H200, qr-NVIDIA-H200-2026-11-25b.txt)
// - signed LU one launch a step: 16384^2 0.180-0.183 -> 0.176-0.178 s (H200, qr-tuning-NVIDIA-H200-H100-2026-11-27.txt)
// - the last ~15 panels' chain sets the end; wider panels, a narrow first one, a faster upload
//   did not move it (H200, qr-tuning-NVIDIA-H200-2026-11-27b.txt)
//
// geqrf_on_device (qr_device.hpp) runs the same factorization for xGELS and
// leaves the factor on the device: every panel's T kept, workspace set aside
// for the caller, and max |a_ij| measured as block columns arrive.
//
// The caller's array is written only with final columns, left to right, so
// if the GPU fails mid-call Result::resume counts the leading columns (and
// their tau) already final there; the rest still holds the input and the CPU
// finishes from there.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu/qr_panel.hpp"
#include "cuda/blas.cuh"
#include "cuda/cholqr.cuh"
#include "cuda/context.hpp"
#include "cuda/cusolver_q.cuh"
#include "cuda/gpu.hpp"
#include "cuda/handoff.hpp"
#include "cuda/node.hpp"
#include "cuda/pinned.hpp"
#include "cuda/qr_device.hpp"
#include "cuda/qr_kernels.cuh"
#include "host/config.hpp"
#include "host/fault.hpp"

namespace hqr::gpu {


enum class Panel { cpu, cusolver, gpu };

// The context's high-priority stream and its handles (context.hpp), created
// once; false if CUDA cannot make them.
inline bool urgent_stream(Context &c) {
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

template <class T> class NodeGeqrf;

template <class T> class HybridGeqrf {
  using Point = fault::Point;
  friend class NodeGeqrf<T>;

 public:
  // keep: leave the factor on the device for the caller (qr_device.hpp):
  // every panel's T is kept, extra bytes of workspace are set aside and
  // max |a_ij| of the input is measured on its way in.
  HybridGeqrf(Context &c, lint m, lint n, T *a, lint lda, T *tau, lint nb, Panel mode, std::size_t keep_extra = 0,
              DeviceQR<T> *keep = nullptr)
      : c_(c), m_(m), n_(n), kcols_(n), k_(std::min(m, n)), a_(a), lda_(lda), tau_(tau), nb_(nb), nblocks_((n + nb - 1) / nb),
        npanels_((std::min(m, n) + nb - 1) / nb), ldda_((m + 31) / 32 * 32), mode_(mode), keep_(keep),
        keep_extra_(keep_extra) {}
  // The caller's array holds A (n-by-m, leading dimension lda) and the
  // matrix factored is F = A**H (m-by-n): F's block columns go up as A's
  // block rows and come back into them, conjugate-transposed on the device
  // (geam) through a device twin of each staging slot. xGELS with fewer
  // rows than columns factors A**H so (qr_apply.cu's gels_lq).
  struct ConjTransposed {};
  HybridGeqrf(ConjTransposed, Context &c, lint m, lint n, T *a, lint lda, T *tau, lint nb, Panel mode,
              std::size_t keep_extra, DeviceQR<T> *keep)
      : HybridGeqrf(c, m, n, a, lda, tau, nb, mode, keep_extra, keep) {
    transposed_ = true;
  }
  // The matrix already on the device (da, ldda; tau into dtau), factored
  // in place: nothing travels (geqrf_device, qr_device.hpp). keep: the
  // T's are left for the caller (no max |a_ij|, no extra bytes).
  struct OnDevice {};
  HybridGeqrf(OnDevice, Context &c, lint m, lint n, T *da, lint ldda, T *dtau, lint nb, Panel mode,
              DeviceQR<T> *keep = nullptr)
      : c_(c), m_(m), n_(n), kcols_(n), k_(std::min(m, n)), a_(nullptr), lda_(0), tau_(nullptr), nb_(nb),
        nblocks_((n + nb - 1) / nb), npanels_((std::min(m, n) + nb - 1) / nb), ldda_(ldda), mode_(mode),
        keep_(keep), keep_extra_(0), on_device_(true) {
    dA_ = da;
    dtau_ = dtau;
  }
  // One member of a device set's schedule (geqrf_node.cu), which drives
  // it step by step: block column j of the m-by-n matrix at cols[j]
  // (leading dimension ldda) where this member holds it, else null; the
  // panels and the updates are the set's to order, a failure is
  // `failed` (the set's). Only the first kcols columns are factored (the
  // others, whole block columns right of them, only take the reflectors:
  // xGELS's B beside A).
  struct Member {};
  HybridGeqrf(Member, Context &c, lint m, lint n, lint nb, Panel mode, lint ldda, std::vector<T *> cols,
              std::atomic<bool> &failed, lint kcols)
      : c_(c), m_(m), n_(n), kcols_(kcols), k_(std::min(m, kcols)), a_(nullptr), lda_(0), tau_(nullptr), nb_(nb),
        nblocks_((n + nb - 1) / nb), npanels_((std::min(m, kcols) + nb - 1) / nb), ldda_(ldda), mode_(mode),
        keep_(nullptr), keep_extra_(0), cols_(std::move(cols)), failed_(failed), member_(true) {}
  HybridGeqrf(const HybridGeqrf &) = delete;
  HybridGeqrf &operator=(const HybridGeqrf &) = delete;

  // About the device bytes the schedule reserves for an m-by-n matrix in
  // blocks of nb (reserve(), less cuSOLVER's workspace, taken as two V
  // copies): the matrix, the V copies, every T, W and W2.
  static double in_core_bytes(lint m, lint n, lint nb) {
    const double e = sizeof(T), ldd = double((m + 31) / 32 * 32), panels = double((std::min(m, n) + nb - 1) / nb);
    return e * (ldd * n + ldd * nb * (kRing + 4) + panels * nb * nb + 2.0 * nb * n);
  }

  Result run() {
    if (!on_device_ && std::size_t(m_) * sizeof(T) > Context::kSlotBytes)
      return {false, 0, "matrix column larger than staging", 0};
    if (!reserve()) return finish({false, 0, "GPU out of memory", 0});
    if (!prepare()) return finish({false, 0, "CUDA event", 0});


    if (on_device_) {  // every block column "arrives" after the caller's work on the compute stream
      if (!check(cudaEventRecord(start_, c_.compute_stream), Point::kernel)) return finish({false, 0, "CUDA error", 0});
      for (cudaEvent_t e : arrived_)
        if (!check(cudaEventRecord(e, c_.compute_stream), Point::kernel)) return finish({false, 0, "CUDA error", 0});
      uploaded_.publish(nblocks_);
      factor();
    } else {
      pinned_ = transposed_ ? pinned_range(a_, (std::size_t(m_ - 1) * lda_ + n_) * sizeof(T)).pinned
                            : pinned_range(a_, (std::size_t(n_ - 1) * lda_ + m_) * sizeof(T)).pinned;
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
    }
    for (cudaStream_t s : {c_.compute_stream, c_.urgent_stream, c_.upload_stream, c_.download_stream})
      check(cudaStreamSynchronize(s), Point::sync);
    if (failed_) return finish({false, 0, "CUDA error", stored_columns_.load()});
    if (timeline_) print_timeline();
    if (!phases_.empty()) print_phases();
    if (keep_) *keep_ = DeviceQR<T>{dA_, ldda_, dtau_, dT_, nb_, dextra_, damax_};
    return finish({true, 0, pinned_ ? kPinnedCaller : nullptr, 0});
  }

 private:
  // The schedule's events, after reserve(); false where CUDA cannot make
  // them (finish() destroys those made).
  bool prepare() {
    arrived_.resize(nblocks_);
    panel_done_.resize(npanels_);
    ahead_ready_.resize(timeline_ ? npanels_ : 0);  // read only by the timeline
    rest_done_.resize(npanels_);
    caught_up_.resize(nblocks_);
    phases_.resize(config::verbose_level() >= 3 ? std::size_t(npanels_) * kPhases : 0);
    // Timing events only for the HQR_VERBOSE=2 timeline.
    const unsigned flags = timeline_ ? cudaEventDefault : cudaEventDisableTiming;
    for (auto *v : {&arrived_, &panel_done_, &ahead_ready_, &rest_done_, &caught_up_, &phases_})
      for (auto &e : *v)
        if (!ok(cudaEventCreateWithFlags(&e, flags))) return false;
    for (cudaEvent_t *e : {&start_, &all_done_, &panel_down_, &verdict_ready_})
      if (!ok(cudaEventCreateWithFlags(e, flags))) return false;
    applied_.assign(nblocks_, 0);
    return true;
  }

  // Device: the matrix (ldda by n; a member's: the set's) and the workspace listed below.
  // Pinned: tau on its way out, the verdict, and for the cpu mode the
  // panel, its T and tau.
  bool reserve() {
    if (fault::hit(Point::alloc)) return false;
    if (!on_device_ && !member_) {
      if (!c_.matrix.reserve(sizeof(T) * std::size_t(ldda_) * n_)) return false;
      dA_ = static_cast<T *>(c_.matrix.get());
    }
    if (transposed_ && !c_.device_staging.reserve(2 * Context::kSlots * Context::kSlotBytes)) return false;
    const dtype t = blas::data_type<T>();
    if (!urgent_stream(c_)) return false;
    if (mode_ != Panel::cpu) {
      // cuSOLVER's geqrf may factor any panel (the verdict's fallback), and
      // its workspace does not grow with the rows: a 23744-by-256 panel
      // needs more than the 24000-by-256 first one (INVALID_VALUE, and the
      // whole call went to the CPU). So the largest over every panel shape.
      std::size_t device_bytes = 0, host_bytes = 0;
      if (!ok(cusolverDnCreateParams(&params_)) ||
          !ok(cusolverDnXpotrf_bufferSize(c_.urgent_solver, params_, CUBLAS_FILL_MODE_LOWER, nb_, t, dA_, nb_, t,
                                          &solver_device_bytes_, &solver_host_bytes_)))
        return false;
      for (lint p = 0; p < npanels_; ++p) {
        if (!ok(cusolverDnXgeqrf_bufferSize(c_.urgent_solver, params_, panel_rows(p), panel_cols(p), t, dA_, ldda_, t,
                                            dA_, t, &device_bytes, &host_bytes)))
          return false;
        solver_device_bytes_ = std::max(solver_device_bytes_, device_bytes);
        solver_host_bytes_ = std::max(solver_host_bytes_, host_bytes);
        // A panel with zero columns applies each run's reflectors to the
        // columns after it (geqrf_between_zero_columns): cuSOLVER's ormqr
        // asked more than the geqrf (the 24000-by-2400 test's panels then
        // went whole to geqrf, tau 1.99978 on the zero column; H100).
        int lwork = 0;
        if (!ok(ormqr_work(c_.urgent_solver, CUBLAS_SIDE_LEFT, blas::op_c<T>(), int(panel_rows(p)),
                           int(panel_cols(p)), int(std::min(panel_rows(p), panel_cols(p))), dA_, int(ldda_), dA_, dA_,
                           int(ldda_), &lwork)))
          return false;
        solver_device_bytes_ = std::max(solver_device_bytes_, sizeof(T) * std::size_t(lwork));
      }
      solver_host_.resize(solver_host_bytes_);
      // signed_lu_step's shared memory is over the default 48 KB for
      // complex double.
      using S = typename Dev<T>::type;
      if (!ok(cudaFuncSetAttribute(signed_lu_step<S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   int(signed_lu_smem<S>()))))
        return false;
    }
    const std::size_t e = sizeof(T), v = e * ldda_ * nb_, tt = e * nb_ * nb_;
    auto round = [](std::size_t b) { return (b + 255) / 256 * 256; };
    // In order: V copies (the ring, then the compute and urgent lanes'),
    // every T, keep's bytes, W, W2, G, X, R, the inverses' scratch, tau, cuSOLVER's workspace and the
    // scratch (INFO x2, ||G - I||**2, max |pivot|, the signs).
    const bool kept = keep_ && !on_device_;  // max |a_ij| and extra bytes (those travel up)
    const std::size_t sizes[] = {v * (kRing + 2), tt * std::max<lint>(npanels_, 1), kept ? keep_extra_ + 256 : 0,
                                 e * nb_ * n_,    e * nb_ * n_, tt, tt, tt, tt, on_device_ ? 0 : e * k_,
                                 solver_device_bytes_ + kScratch + sizeof(double) * nb_};
    std::size_t total = 0;
    for (std::size_t b : sizes) total += round(b);
    // On the device, the caller's buffers (its matrix and workspace) stay.
    DeviceBuffer &workspace = on_device_ ? c_.inner_workspace : c_.workspace;
    if (!workspace.reserve(total)) return false;
    char *w = static_cast<char *>(workspace.get());
    const std::size_t *next = sizes;
    auto take = [&] {
      char *at = w;
      w += round(*next++);
      return at;
    };
    T *vs = reinterpret_cast<T *>(take());
    for (int i = 0; i < kRing + 2; ++i)
      (i < kRing ? dV_[i] : i == kRing ? dVc_ : dVu_) = vs + std::size_t(i) * ldda_ * nb_;
    dT_ = reinterpret_cast<T *>(take());
    char *kept_bytes = take();
    if (kept) {
      damax_ = reinterpret_cast<unsigned long long *>(kept_bytes);
      dextra_ = kept_bytes + 256;
    }
    dW_ = reinterpret_cast<T *>(take());
    dW2_ = reinterpret_cast<T *>(take());
    dG_ = reinterpret_cast<T *>(take());
    dX_ = reinterpret_cast<T *>(take());
    dR_ = reinterpret_cast<T *>(take());
    dIW_ = reinterpret_cast<T *>(take());
    T *tau = reinterpret_cast<T *>(take());
    if (!on_device_) dtau_ = tau;
    dsolver_ = take();
    char *scratch = static_cast<char *>(dsolver_) + solver_device_bytes_;
    dinfo_ = reinterpret_cast<int *>(scratch);
    ddev_ = reinterpret_cast<double *>(scratch + 16);
    dpivot_ = reinterpret_cast<unsigned long long *>(scratch + 24);
    dsign_ = reinterpret_cast<double *>(scratch + kScratch);
    const std::size_t pinned = round(e * k_) + kScratch + round(sizeof(int) * nb_) +
                               (mode_ == Panel::cpu ? round(e * m_ * nb_) + round(tt) + round(e * k_) : 0);
    if (!c_.panel.reserve(pinned)) return false;
    char *p = static_cast<char *>(c_.panel.get());
    htau_out_ = reinterpret_cast<T *>(p);
    hok_ = reinterpret_cast<int *>(p + round(e * k_));
    hzero_ = reinterpret_cast<int *>(p + round(e * k_) + kScratch);
    p += round(sizeof(int) * nb_);
    if (mode_ == Panel::cpu) {
      p += kScratch;
      hpanel_ = reinterpret_cast<T *>(p + round(e * k_));
      hT_ = reinterpret_cast<T *>(p + round(e * k_) + round(e * m_ * nb_));
      htau_ = reinterpret_cast<T *>(p + round(e * k_) + round(e * m_ * nb_) + round(tt));
      cpu_work_.resize(std::max<std::size_t>(cpu::qr_panel_work(nb_), std::size_t(nb_) * nb_));
    }
    return true;
  }
  using dtype = cudaDataType;

  Result finish(Result r) {
    for (auto *v : {&arrived_, &panel_done_, &ahead_ready_, &rest_done_, &caught_up_, &phases_})
      for (auto &e : *v)
        if (e) cudaEventDestroy(e);
    for (cudaEvent_t e : {start_, all_done_, panel_down_, verdict_ready_})
      if (e) cudaEventDestroy(e);
    if (params_) cusolverDnDestroyParams(params_);
    if (!r.ran) (void)cudaGetLastError();
    return r;
  }

  T *dev(lint i, lint j) const {
    return member_ ? cols_[j / nb_] + i + std::size_t(j % nb_) * ldda_ : dA_ + i + std::size_t(j) * ldda_;
  }
  // Where element (i, j) of the matrix factored lies in the caller's array.
  T *host(lint i, lint j) const {
    return transposed_ ? a_ + j + std::size_t(i) * lda_ : a_ + i + std::size_t(j) * lda_;
  }
  // Staging slot i's device twin (the upload slots', then the download slots').
  T *twin(int i, bool down) const {
    return reinterpret_cast<T *>(static_cast<char *>(c_.device_staging.get()) +
                                 std::size_t(i + (down ? Context::kSlots : 0)) * Context::kSlotBytes);
  }
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
  // The pieces in which a block column goes up: whole columns, or for
  // A**H pieces of whole rows (A's columns), so that the host copies runs
  // of r.n elements, not of a slot's worth of columns (512 bytes for
  // 32768 rows of doubles).
  std::vector<Rect> up_chunks(const Rect &r) const {
    if (!transposed_) return chunks(r);
    const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(r.n) * sizeof(T))));
    std::vector<Rect> out;
    for (lint i = 0; i < r.m; i += per) out.push_back({r.r0 + i, r.c0, std::min(per, r.m - i), r.n});
    return out;
  }

  // Rectangle r of F = A**H up from A's r.n-by-r.m block at host(r.r0,
  // r.c0): into upload slot `slot`'s device twin (through its host slot, or
  // straight from a pinned caller), then r := its conjugate transpose.
  bool up_transposed(const Rect &r, int &slot) {
    const std::size_t e = sizeof(T);
    const int i = slot++ % Context::kSlots;
    T *d = twin(i, false);
    const cudaStream_t st = c_.upload_stream;
    if (pinned_) {
      if (!check(cudaMemcpy2DAsync(d, r.n * e, host(r.r0, r.c0), lda_ * e, r.n * e, r.m, cudaMemcpyHostToDevice, st),
                 Point::copy))
        return false;
    } else {
      StagingSlot &s = c_.upload_slots[i];
      if (!check(cudaEventSynchronize(s.dma_done), Point::sync)) return false;
      copy_block(c_.upload_copies, e, r.n, r.m, host(r.r0, r.c0), lda_, s.host, r.n);
      if (!check(cudaMemcpyAsync(d, s.host, e * r.n * r.m, cudaMemcpyHostToDevice, st), Point::copy) ||
          !check(cudaEventRecord(s.dma_done, st), Point::copy))
        return false;
    }
    return check(blas::geam(c_.upload_blas, blas::op_c<T>(), r.m, r.n, d, r.n, dev(r.r0, r.c0), ldda_), Point::kernel);
  }

  // Caller -> pinned slot -> device (a pinned caller: caller -> device),
  // block column by block column.
  void upload() {
    int slot = 0;
    auto step = [this](auto status, Point p) { return check(status, p); };
    if (!check(cudaEventRecord(start_, c_.upload_stream), Point::copy)) return;
    if (keep_ && !check(cudaMemsetAsync(damax_, 0, sizeof *damax_, c_.upload_stream), Point::copy)) return;
    for (lint j = 0; j < nblocks_ && !stop_ && !failed_; ++j) {
      for (const Rect &r : up_chunks(block(j))) {
        if (transposed_ ? !up_transposed(r, slot)
                        : !upload_block(c_, pinned_, slot, sizeof(T), r.m, r.n, host(r.r0, r.c0), lda_,
                                        dev(r.r0, r.c0), ldda_, c_.upload_stream, step))
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
  // chunks ahead of the host copies. Only whole block columns reach the
  // caller: one whose rows above its panel were stored early, before the
  // panel was done, held neither the input nor the result when a GPU
  // failure came between, and the CPU's resume from it went wrong (xGELS
  // under injected sync faults,
  // bench/results/history/qr-tuning-NVIDIA-H200-2026-11-27b.txt item 2).
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
      if (transposed_)  // the slot holds r's conjugate transpose: whole rows of A
        copy_block(c_.download_copies, sizeof(T), p.r.n, p.r.m, p.s->host, p.r.n, host(p.r.r0, p.r.c0), lda_);
      else
        copy_block(c_.download_copies, sizeof(T), p.r.m, p.r.n, p.s->host, p.r.m, host(p.r.r0, p.r.c0), lda_);
      if (p.with_tau) {
        const lint t0 = p.j * nb_;
        std::copy(htau_out_ + t0, htau_out_ + t0 + panel_reflectors(p.j), tau_ + t0);
      }
      stored_columns_.store(p.r.c0 + p.r.n);
    };
    // The first result leaves once the whole matrix is on the device: the
    // host's staging copies in both directions share its memory bandwidth,
    // and the compute waits for the upload, not for the results (16384^2 on
    // H100s: 0.183 s against 0.191, medians over four calls).
    if (!uploaded_.wait_past(nblocks_ - 1, stop_)) return;
    for (lint j = 0; j < nblocks_ && !failed_; ++j) {
      if (!finalized_.wait_past(j, stop_) || failed_) break;
      cudaEvent_t final_event = j < npanels_ ? panel_done_[j] : all_done_;
      if (!check(cudaStreamWaitEvent(c_.download_stream, final_event, 0), Point::sync)) break;
      bool first = true;
      for (const Rect &r : chunks(block(j))) {
        if (pending.size() == std::size_t(Context::kSlots)) drain_one();
        const int i = slot++ % Context::kSlots;
        StagingSlot &s = c_.download_slots[i];
        const bool with_tau = first && j < npanels_;
        first = false;
        if (!chunk_down(j, r, s, i, with_tau)) break;
        pending.push_back({j, r, &s, with_tau});
      }
    }
    while (!pending.empty()) drain_one();
  }

  // Rectangle r of block column j into staging slot s (download slot i)
  // on the download stream (for A**H its conjugate transpose, through the
  // slot's device twin), with panel j's tau into htau_out_ where with_tau;
  // s's event then says it is there.
  bool chunk_down(lint j, const Rect &r, StagingSlot &s, int i, bool with_tau) {
    const cudaStream_t st = c_.download_stream;
    const bool piece =
        transposed_
            ? check(blas::geam(c_.download_blas, blas::op_c<T>(), r.n, r.m, dev(r.r0, r.c0), ldda_, twin(i, true), r.n),
                    Point::kernel) &&
                  check(cudaMemcpyAsync(s.host, twin(i, true), sizeof(T) * r.m * r.n, cudaMemcpyDeviceToHost, st),
                        Point::copy)
            : check(cudaMemcpy2DAsync(s.host, r.m * sizeof(T), dev(r.r0, r.c0), ldda_ * sizeof(T), r.m * sizeof(T),
                                      r.n, cudaMemcpyDeviceToHost, st),
                    Point::copy);
    return piece &&
           (!with_tau || check(cudaMemcpyAsync(htau_out_ + j * nb_, dtau_ + j * nb_, sizeof(T) * panel_reflectors(j),
                                               cudaMemcpyDeviceToHost, st),
                               Point::copy)) &&
           check(cudaEventRecord(s.dma_done, st), Point::copy);
  }

  // Panel p's T: every panel keeps its own, for block columns that catch
  // up late and for xGELS.
  T *tmat(lint p) const { return dT_ + std::size_t(p) * nb_ * nb_; }

  // Panel p: rows p*nb.. of block column p; its reflectors number
  // min(rows, columns).
  lint panel_rows(lint p) const { return m_ - p * nb_; }
  lint panel_cols(lint p) const { return std::min(nb_, kcols_ - p * nb_); }
  lint panel_reflectors(lint p) const { return std::min(panel_rows(p), panel_cols(p)); }

  // Block column j is on the device (stream-ordered on `s`).
  bool arrived(lint j, cudaStream_t s) {
    return uploaded_.wait_past(j, failed_) && check(cudaStreamWaitEvent(s, arrived_[j], 0), Point::sync);
  }

  // V (with its unit triangle) of the factored panel p into v, so that
  // plain gemms apply it.
  bool copy_v(lint p, T *v, cudaStream_t s) {
    const lint k0 = p * nb_, mk = panel_rows(p), kf = panel_reflectors(p);
    const int threads = 256, blocks = int(std::min<int64_t>(4096, (int64_t(mk) * kf + threads - 1) / threads));
    unit_lower_copy<<<blocks, threads, 0, s>>>(mk, kf, dv(dev(k0, k0)), ldda_, dv(v), ldda_);
    return launched(Point::kernel);
  }
  T *panel_v(lint p) const { return dV_[p % kRing]; }
  // Panel p, its V and T are ready: its block column is final and may
  // leave, and its block reflector may be applied.
  bool panel_finished(lint p) { return check(cudaEventRecord(panel_done_[p], c_.urgent_stream), Point::kernel); }

  // cuSOLVER's geqrf of the panel's columns c0..c1-1, rows c0.. of the
  // panel (reflectors c0..c1-1).
  bool geqrf_columns(lint p, lint c0, lint c1) {
    const lint k0 = p * nb_;
    const dtype t = blas::data_type<T>();
    return check(cusolverDnXgeqrf(c_.urgent_solver, params_, panel_rows(p) - c0, c1 - c0, t, dev(k0 + c0, k0 + c0),
                                  ldda_, t, dtau_ + k0 + c0, t, dsolver_, solver_device_bytes_,
                                  solver_host_.empty() ? nullptr : solver_host_.data(), solver_host_bytes_, dinfo_),
                 Point::kernel);
  }

  // A column of the panel that is exactly zero gets LAPACK's reflector,
  // H = I (tau 0): cuSOLVER's geqrf gave such a column, among duplicate
  // ones, a reflector of its own (tau 1.99996, entries up to 4e-4 below
  // the diagonal, on the input's own 24000 by 256 panel; H100,
  // bench/results/qr-zero-column-NVIDIA-H100-80GB-HBM3-2026-11-28.txt).
  // So a panel with zero columns (hzero_, found beside CholeskyQR2's
  // verdict) is factored by cuSOLVER between them: each run of columns,
  // its reflectors applied to the columns after it (cuSOLVER's ormqr),
  // then tau 0 for the zero column, which those reflectors left zero.
  // False where the workspace does not hold a run's (nothing is changed
  // then, and the whole panel goes to cuSOLVER).
  bool geqrf_between_zero_columns(lint p, bool *done) {
    *done = false;
    const lint k0 = p * nb_, mk = panel_rows(p), b = panel_cols(p);
    std::vector<lint> cuts;
    for (lint j = 0; j < b; ++j)
      if (hzero_[j]) cuts.push_back(j);
    if (cuts.empty()) return true;
    cuts.push_back(b);
    const dtype t = blas::data_type<T>();
    for (lint c0 = 0, i = 0; c0 < b; c0 = cuts[i++] + 1) {  // the workspace first
      const lint c1 = cuts[i];
      if (c1 == c0) continue;
      std::size_t device_bytes = 0, host_bytes = 0;
      int lwork = 0;
      if (!check(cusolverDnXgeqrf_bufferSize(c_.urgent_solver, params_, mk - c0, c1 - c0, t, dA_, ldda_, t, dA_, t,
                                             &device_bytes, &host_bytes),
                 Point::kernel) ||
          (c1 < b && !check(ormqr_work(c_.urgent_solver, CUBLAS_SIDE_LEFT, blas::op_c<T>(), int(mk - c0),
                                       int(b - c1), int(c1 - c0), dev(k0 + c0, k0 + c0), int(ldda_), dtau_,
                                       dev(k0 + c0, k0 + c1), int(ldda_), &lwork),
                            Point::kernel)))
        return false;
      if (device_bytes > solver_device_bytes_ || host_bytes > solver_host_bytes_ ||
          std::size_t(lwork) * sizeof(T) > solver_device_bytes_)
        return true;
    }
    for (lint c0 = 0, i = 0; c0 < b; c0 = cuts[i++] + 1) {
      const lint c1 = cuts[i];
      if (c1 > c0) {
        int lwork = 0;
        if (!geqrf_columns(p, c0, c1)) return false;
        if (c1 < b && (!check(ormqr_work(c_.urgent_solver, CUBLAS_SIDE_LEFT, blas::op_c<T>(), int(mk - c0),
                                         int(b - c1), int(c1 - c0), dev(k0 + c0, k0 + c0), int(ldda_),
                                         dtau_ + k0 + c0, dev(k0 + c0, k0 + c1), int(ldda_), &lwork),
                              Point::kernel) ||
                       !check(ormqr(c_.urgent_solver, CUBLAS_SIDE_LEFT, blas::op_c<T>(), int(mk - c0), int(b - c1),
                                    int(c1 - c0), dev(k0 + c0, k0 + c0), int(ldda_), dtau_ + k0 + c0,
                                    dev(k0 + c0, k0 + c1), int(ldda_), dsolver_, lwork, dinfo_),
                              Point::kernel)))
          return false;
      }
      if (c1 < b && !check(cudaMemsetAsync(dtau_ + k0 + c1, 0, sizeof(T), c_.urgent_stream), Point::copy))
        return false;
    }
    *done = true;
    return true;
  }

  // gpu mode: geqrf (between zero columns where CholeskyQR2's verdict
  // found some: `zeros_known`), then T = (diag(1/tau) + strictly upper
  // V**H V)**-1.
  bool factor_panel_gpu(lint p, bool zeros_known = false) {
    using R = typename Prec<T>::real;
    const lint k0 = p * nb_, mk = panel_rows(p), kf = panel_reflectors(p);
    T *tau = dtau_ + k0, *dT = tmat(p);
    bool done = false;
    if ((zeros_known && !geqrf_between_zero_columns(p, &done)) || (!done && !geqrf_columns(p, 0, panel_cols(p))) ||
        !copy_v(p, panel_v(p), c_.urgent_stream) ||
        !check(blas::herk(c_.urgent_blas, CUBLAS_FILL_MODE_UPPER, blas::op_c<T>(), kf, mk, R(1), panel_v(p), ldda_,
                          R(0), dG_, nb_),
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

  // gpu mode: panels at least as tall as wide are factored by CholeskyQR2
  // and Householder reconstruction (cholqr.cuh): level 3 but for two
  // Cholesky factorizations and the signed LU of an nb-by-nb block, 2.4 ms
  // on an idle H200 where cuSOLVER's geqrf takes 10 (16384 by 512). Where
  // it cannot be trusted (a Cholesky factorization fails, the second Gram
  // matrix is not close to I, so the panel's condition number is above
  // ~1e6 in double, or a column is already reduced, see start_cholqr),
  // cuSOLVER's geqrf factors the panel instead; the panel in A is untouched
  // until the verdict.
  bool cholqr_panel(lint p) const { return mode_ == Panel::gpu && panel_rows(p) >= panel_cols(p); }

  // First half, queued before the step's trailing updates (A is the panel
  // in dA, untouched here): R1 = chol(A**H A), Q = A R1**-1 into
  // panel_v(p), R2 = chol(Q**H Q) in tmat(p), R = R2 R1 in dR_; the final
  // Q's top block, Q1 R2**-1, less S = L1 U in Z (dG_); the verdict into
  // pinned host memory. Triangular solves with many rows run as gemms with
  // the explicit inverse (cuBLAS's trsm ran at a sixth of gemm's rate
  // there: 0.53 against 0.2 ms); the triangles' other halves are set to
  // zero so that the gemms see triangular matrices.
  bool start_cholqr(lint p) {
    using R = typename Prec<T>::real;
    const lint k0 = p * nb_, mk = panel_rows(p), b = panel_cols(p);
    const dtype t = blas::data_type<T>();
    const cudaStream_t s = c_.urgent_stream;
    const cublasHandle_t h = c_.urgent_blas;
    const T *A = dev(k0, k0);
    T *Q = panel_v(p), *G1 = dG_, *G2 = tmat(p);
    auto cholesky = [&](T *g, int *info) {
      return check(cusolverDnXpotrf(c_.urgent_solver, params_, CUBLAS_FILL_MODE_LOWER, b, t, g, nb_, t, dsolver_,
                                    solver_device_bytes_, solver_host_.empty() ? nullptr : solver_host_.data(),
                                    solver_host_bytes_, info),
                   Point::kernel);
    };
    // A gemm, not a herk: cuBLAS spreads a gemm's long inner dimension
    // over the SMs, and its ssyrk did not (65536 by 256 float panel: 12-17 ms
    // against 2-3 in double, H200, bench/results/history/qr-NVIDIA-H200-2026-11-25.txt).
    auto gram = [&](const T *x, T *g) {
      return check(blas::gemm(h, blas::op_c<T>(), CUBLAS_OP_N, b, b, mk, T(1), x, ldda_, x, ldda_, T(0), g, nb_),
                   Point::kernel);
    };
    auto cholesky_upper = [&](T *g, int *info) {  // R = L**H, zeros below the diagonal
      if (!cholesky(g, info)) return false;
      mirror_triangle<<<grid_for(b * b), 256, 0, s>>>(int(b), dv(g), int(nb_), true);
      return launched(Point::kernel);
    };
    phase(p, 0);
    if (!check(cudaMemsetAsync(ddev_, 0, 2 * sizeof *ddev_, s), Point::copy) || !gram(A, G1)) return false;
    phase(p, 1);
    if (!cholesky_upper(G1, dinfo_)) return false;
    phase(p, 2);
    if (!inverse_upper(G1, dX_, b)) return false;
    phase(p, 3);
    if (!check(blas::gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, mk, b, b, T(1), A, ldda_, dX_, nb_, T(0), Q, ldda_),
               Point::kernel))
      return false;
    phase(p, 4);
    if (!gram(Q, G2)) return false;
    phase(p, 5);
    gram_deviation<<<grid_for(b * b, 256, 256), 256, 0, s>>>(int(b), dv(G2), int(nb_), ddev_);
    if (!launched(Point::kernel) || !cholesky_upper(G2, dinfo_ + 1)) return false;
    phase(p, 6);
    if (!check(blas::gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, b, b, b, T(1), G2, nb_, G1, nb_, T(0), dR_, nb_),
               Point::kernel))
      return false;
    T *Z = G1;  // R1 is in R now
    phase(p, 7);
    if (!inverse_upper(G2, dX_, b)) return false;
    phase(p, 8);
    if (!check(blas::gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, b, b, b, T(1), Q, ldda_, dX_, nb_, T(0), Z, nb_),
               Point::kernel))  // Z = the final Q's top block
      return false;
    phase(p, 9);
    // Z - S = L1 U, 32 columns at a time. A pivot of modulus near 1 is a
    // column already reduced (to rounding): LAPACK's reflector there depends
    // on whether the entries below the diagonal are exactly zero (tau = 0),
    // so cuSOLVER's geqrf decides. A square panel's last column has no
    // entries below, so its pivot's modulus is always 1: it is not checked
    // (else every square matrix's last panel went to cuSOLVER), and
    // finish_cholqr gives it LAPACK's tau.
    // One launch a step (signed_lu_step); dIW_, inverse_upper's scratch and
    // free here, keeps a step's diagonal block for the next.
    const int checked = int(mk > b ? b : b - 1), smem = int(signed_lu_smem<typename Dev<T>::type>());
    for (lint kb = 0; kb < b; kb += 32) {
      const lint nt = (b - kb - std::min<lint>(32, b - kb) + 31) / 32;
      signed_lu_step<<<int(1 + 2 * nt + (kb > 0 ? nt * nt : 0)), kLuThreads, smem, s>>>(
          int(b), int(kb), dv(Z), nb_, dv(dIW_), dsign_, dpivot_, checked);
      if (!launched(Point::kernel)) return false;
    }
    const double pivot_max = 1 - std::sqrt(double(std::numeric_limits<R>::epsilon()));
    phase(p, 10);
    // The kernel writes the verdict straight into pinned host memory: a
    // 4-byte DMA queued behind the downloads' chunks on the copy engine
    // reached the host 0.5-1.7 ms late (H200, bench/results/history/qr-NVIDIA-H200-2026-11-25b.txt).
    zero_columns<<<int(b), 256, 0, s>>>(mk, dv(A), ldda_, hzero_);
    if (!launched(Point::kernel)) return false;
    cholqr_verdict<<<1, 1, 0, s>>>(dinfo_, ddev_, 0.1, dpivot_, pivot_max, hok_);
    return launched(Point::kernel) && check(cudaEventRecord(verdict_ready_, s), Point::copy);
  }

  // x = u**-1 for the upper triangular b-by-b u (leading dimension nb):
  // zero below the diagonal, as u's inverse; cholqr.cuh's inverse_upper
  // (three a panel; at b = 512 0.07-0.10 ms against 0.23-0.26 for cuBLAS's
  // trsm against I, H200, bench/results/history/qr-NVIDIA-H200-2026-11-25b.txt).
  // Other widths (a last, narrower panel) take the trsm.
  bool inverse_upper(const T *u, T *x, lint b) {
    const cudaStream_t s = c_.urgent_stream;
    const cublasHandle_t h = c_.urgent_blas;
    if (!inverse_upper_fits(b)) {
      set_identity<<<grid_for(b * b), 256, 0, s>>>(b, b, 0, dv(x), nb_);
      return launched(Point::kernel) && check(blas::trsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                                         CUBLAS_DIAG_NON_UNIT, b, b, T(1), u, nb_, x, nb_),
                                              Point::kernel);
    }
    return gpu::inverse_upper(h, s, u, nb_, x, nb_, b, dIW_, [&](auto status) { return check(status, Point::kernel); });
  }

  // Second half, queued after the step's trailing updates: the rest of the
  // reconstruction, or cuSOLVER's geqrf where the verdict says no.
  // L2 = (the final Q's rows below the top block) U**-1 = Q2 (U R2)**-1
  // with Q2 the first pass's, into A's rows and V's; T = -U S L1**-H; A's
  // top block gets S R and L1.
  bool finish_cholqr(lint p) {
    if (!check(cudaEventSynchronize(verdict_ready_), Point::sync)) return false;
    phase(p, 11);
    if (!*hok_) {
      ++cusolver_panels_;
      return factor_panel_gpu(p, true);
    }
    const lint k0 = p * nb_, mk = panel_rows(p), b = panel_cols(p);
    const cudaStream_t s = c_.urgent_stream;
    const cublasHandle_t h = c_.urgent_blas;
    T *Q = panel_v(p), *R2 = tmat(p), *Z = dG_, *Tm = tmat(p);  // Z: L1 and U
    if (mk > b) {  // dX = U R2, R2 := (U R2)**-1, then L2 = Q2 R2 into A and V
      if (!check(blas::trmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, b, b, T(1),
                            Z, nb_, R2, nb_, dX_, nb_),
                 Point::kernel) ||
          !inverse_upper(dX_, R2, b))
        return false;
      phase(p, 12);
      if (!check(blas::gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, mk - b, b, b, T(1), Q + b, ldda_, R2, nb_, T(0),
                            dev(k0 + b, k0), ldda_),
                 Point::kernel) ||
          !check(cudaMemcpy2DAsync(Q + b, ldda_ * sizeof(T), dev(k0 + b, k0), ldda_ * sizeof(T), (mk - b) * sizeof(T),
                                   b, cudaMemcpyDeviceToDevice, s),
                 Point::copy))
        return false;
    }
    phase(p, 13);
    t_from_u<<<grid_for(b * b), 256, 0, s>>>(int(b), dv(Z), nb_, dsign_, dv(Tm), int(nb_));
    if (!launched(Point::kernel) ||
        !check(blas::trsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, blas::op_c<T>(), CUBLAS_DIAG_UNIT, b, b, T(1),
                          Z, nb_, Tm, nb_),
               Point::kernel))  // T = -U S L1**-H
      return false;
    if (mk == b) {
      drop_last_reflector<<<1, 256, 0, s>>>(int(b), dv(Tm), int(nb_), dsign_);
      if (!launched(Point::kernel)) return false;
    }
    phase(p, 14);
    reconstructed_top<<<grid_for(b * b), 256, 0, s>>>(int(b), dv(dR_), int(nb_), dsign_, dv(Tm), int(nb_), dv(Z),
                                                      nb_, dv(Q), ldda_, dv(dev(k0, k0)), ldda_, dv(dtau_ + k0));
    phase(p, 15);
    return launched(Point::kernel) && panel_finished(p);
  }

  // HQR_VERBOSE=3: how long each step of each CholeskyQR2 panel took on
  // the urgent stream (events between the steps; -1 where a step did not
  // run: a panel that went to cuSOLVER, or a square one with no rows below
  // its top block). "verdict+host" includes the host's wait for the verdict.
  static constexpr int kPhases = 16;
  void phase(lint p, int i) {
    if (!phases_.empty()) cudaEventRecord(phases_[std::size_t(p) * kPhases + i], c_.urgent_stream);
  }
  void print_phases() {
    static const char *names[kPhases - 1] = {"gram1", "chol1", "inv1", "Q", "gram2", "chol2", "R", "inv2", "Z",
                                             "LU", "verdict+host", "trmm+inv3", "L2+copy", "T", "top"};
    std::fprintf(stderr, "hqr: geqrf panel phases (ms):");
    for (const char *n : names) std::fprintf(stderr, " %s", n);
    std::fprintf(stderr, "\n");
    for (lint p = 0; p < npanels_; ++p) {
      std::fprintf(stderr, "hqr:   %4lld", (long long)p);
      for (int i = 0; i + 1 < kPhases; ++i) {
        float t = -1;
        const std::size_t e = std::size_t(p) * kPhases + i;
        if (!ok(cudaEventElapsedTime(&t, phases_[e], phases_[e + 1]))) t = -1;
        std::fprintf(stderr, " %6.3f", t);
      }
      std::fprintf(stderr, "\n");
    }
    (void)cudaGetLastError();
  }

  // Panel p: the first half is queued before the step's trailing updates,
  // the second after them (the cpu mode factors the panel on the host
  // there, the gpu mode waits for CholeskyQR2's verdict).
  bool start_panel(lint p) {
    if (mode_ == Panel::cpu) return send_panel(p);
    return cholqr_panel(p) ? start_cholqr(p) : factor_panel_gpu(p);
  }
  bool finish_panel(lint p) {
    if (mode_ == Panel::cpu) return factor_sent_panel(p);
    return !cholqr_panel(p) || finish_cholqr(p);
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
    for (lint j = 0; j < kf; ++j)  // larfb multiplies by T with a gemm: zeros below its diagonal
      std::fill(hT_ + j + 1 + std::size_t(j) * nb_, hT_ + kf + std::size_t(j) * nb_, T(0));
    return check(cudaMemcpy2DAsync(dev(k0, k0), ldda_ * sizeof(T), hpanel_, mk * sizeof(T), mk * sizeof(T), kw,
                                   cudaMemcpyHostToDevice, c_.urgent_stream),
                 Point::copy) &&
           check(cudaMemcpy2DAsync(tmat(p), nb_ * sizeof(T), hT_, nb_ * sizeof(T), kf * sizeof(T), kf,
                                   cudaMemcpyHostToDevice, c_.urgent_stream),
                 Point::copy) &&
           check(cudaMemcpyAsync(dtau_ + k0, htau_ + k0, kf * sizeof(T), cudaMemcpyHostToDevice, c_.urgent_stream),
                 Point::copy) &&
           copy_v(p, panel_v(p), c_.urgent_stream) && panel_finished(p);
  }

  // Block columns c0.. (nc columns) of the trailing matrix: C -= V T**H V**H C
  // with block reflector p, V its copy.
  // W's columns are those of C, so updates of different block columns on
  // different streams do not share it.
  bool larfb(lint p, const T *V, lint c0, lint nc, cublasHandle_t h) {
    return larfb_at(p, V, dev(p * nb_, c0), c0, nc, h);
  }
  // The same with C (rows p*nb.. of nc columns side by side, leading
  // dimension ldda) given, and W, W2 from their column w0 on.
  bool larfb_at(lint p, const T *V, T *C, lint w0, lint nc, cublasHandle_t h) {
    const lint mk = panel_rows(p), kf = panel_reflectors(p);
    const T *Tm = tmat(p);
    T *W = dW_ + std::size_t(w0) * nb_, *W2 = dW2_ + std::size_t(w0) * nb_;
    return nc == 0 ||
           (check(blas::gemm(h, blas::op_c<T>(), CUBLAS_OP_N, kf, nc, mk, T(1), V, ldda_, C, ldda_, T(0), W, nb_),
                  Point::kernel) &&
            check(blas::gemm(h, blas::op_c<T>(), CUBLAS_OP_N, kf, nc, kf, T(1), Tm, nb_, W, nb_, T(0), W2, nb_),
                  Point::kernel) &&
            check(blas::gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, mk, nc, kf, T(-1), V, ldda_, W2, nb_, T(1), C, ldda_),
                  Point::kernel));
  }

  // Where updates run: the compute stream (the trailing matrix) or the
  // urgent one (the next panel's block column), each with its own copy of
  // an earlier panel's V.
  struct Lane {
    cudaStream_t stream;
    cublasHandle_t blas;
    T *v;
  };
  Lane compute_lane() const { return {c_.compute_stream, c_.blas, dVc_}; }
  Lane urgent_lane() const { return {c_.urgent_stream, c_.urgent_blas, dVu_}; }

  // Brings block columns j0..j1-1 (on the device) up to date with block
  // reflectors 0..p (catch_up_plan, handoff.hpp) on lane l. Reflectors
  // before p are applied from a fresh copy of their V into the lane's own
  // buffer (the ring holds the current panels').
  bool catch_up(lint j0, lint j1, lint p, const Lane &l) {
    return catch_up_plan(applied_, j0, j1, p, [&](lint q, lint j) {
      const T *v = panel_v(p);
      if (q < p) {
        if (!copy_v(q, l.v, l.stream)) return false;
        v = l.v;
      }
      return larfb(q, v, j * nb_, std::min(n_, j1 * nb_) - j * nb_, l.blas);
    });
  }

  bool publish(lint blocks) {
    finalized_.publish(blocks);
    return true;
  }

  // Step p: on the urgent stream, block column p+1 takes block reflector p
  // (and any before it that it missed), then panel p+1 is factored; on the
  // compute stream, block column p+2 takes reflector p, then every later
  // block column that has arrived by then. A block column that arrives
  // later catches up with all the reflectors before it (catch_up), so the
  // panels keep going while the matrix is still on its way in; the last
  // step waits for everything. The urgent stream waits for the compute
  // stream only where block column p+1 had its last update there
  // (caught_up_), and for V's ring slot to be free (rest_done_), so the
  // panels run up to kRing - 1 steps ahead of the trailing updates.
  void factor() {
    if (!arrived(0, c_.urgent_stream) || !start_panel(0) || !finish_panel(0) || !publish(1)) return;
    std::vector<char> on_compute(std::size_t(nblocks_), 0);  // block column j's last update was on the compute stream
    for (lint p = 0; p < npanels_; ++p) {
      const bool ahead = p + 1 < npanels_;
      if (!check(cudaStreamWaitEvent(c_.compute_stream, panel_done_[p], 0), Point::sync)) return;
      if (ahead) {
        const cudaStream_t u = c_.urgent_stream;
        if (!(on_compute[p + 1] ? check(cudaStreamWaitEvent(u, caught_up_[p + 1], 0), Point::sync)
                                : arrived(p + 1, u)) ||
            !catch_up(p + 1, p + 2, p, urgent_lane()) ||
            (timeline_ && !check(cudaEventRecord(ahead_ready_[p], u), Point::kernel)) ||
            (p + 1 >= kRing && !check(cudaStreamWaitEvent(u, rest_done_[p + 1 - kRing], 0), Point::sync)) ||
            !start_panel(p + 1))
          return;
      }
      const lint j0 = p + 1 + ahead, have = ahead ? std::min(nblocks_, uploaded_.done()) : nblocks_;
      if (have > j0) {
        if (!arrived(have - 1, c_.compute_stream) || !catch_up(j0, j0 + 1, p, compute_lane()) ||
            !check(cudaEventRecord(caught_up_[j0], c_.compute_stream), Point::kernel) ||
            !catch_up(j0 + 1, have, p, compute_lane()))
          return;
        on_compute[j0] = 1;
      }
      if (!check(cudaEventRecord(rest_done_[p], c_.compute_stream), Point::kernel)) return;
      if (ahead && (!finish_panel(p + 1) || !publish(p + 2))) return;
    }
    // Block columns past the last panel (wide matrices) are final now.
    if (!check(cudaEventRecord(all_done_, c_.compute_stream), Point::kernel)) return;
    publish(nblocks_);
  }

  // HQR_VERBOSE=2: when (ms after the first upload) each block column
  // arrived, each panel's block column was up to date (the panel could
  // start), each panel was done, and each step's updates were done.
  void print_timeline() {
    auto ms = [this](cudaEvent_t e) {
      float t = 0;
      return ok(cudaEventElapsedTime(&t, start_, e)) ? double(t) : -1.0;
    };
    std::fprintf(stderr, "hqr: geqrf %lldx%lld nb %lld timeline (ms): block arrived | panel ready, done | step done\n",
                 (long long)m_, (long long)n_, (long long)nb_);
    for (lint p = 0; p < npanels_; ++p)
      std::fprintf(stderr, "hqr:   %4lld  %8.3f | %8.3f %8.3f | %8.3f\n", (long long)p, ms(arrived_[p]),
                   p == 0 ? ms(arrived_[0]) : ms(ahead_ready_[p - 1]), ms(panel_done_[p]), ms(rest_done_[p]));
    std::fprintf(stderr, "hqr:   last block arrived %.3f, all done %.3f; %d panels failed CholeskyQR2's check\n",
                 ms(arrived_[nblocks_ - 1]), ms(all_done_), cusolver_panels_);
  }

  Context &c_;
  const lint m_, n_, kcols_, k_;  // kcols_: the columns factored (n_ but in a set's xGELS)
  T *const a_;
  const lint lda_;
  T *const tau_;
  const lint nb_, nblocks_, npanels_, ldda_;
  const Panel mode_;
  DeviceQR<T> *const keep_;
  const std::size_t keep_extra_;
  unsigned long long *damax_ = nullptr;
  void *dextra_ = nullptr;
  T *dX_ = nullptr, *dR_ = nullptr, *dIW_ = nullptr;  // gpu mode: b-by-b inverses, R = R2 R1, inverse_upper's scratch
  static constexpr int kRing = 3;  // the latest panels' V copies
  T *dA_ = nullptr, *dT_ = nullptr, *dW_ = nullptr, *dW2_ = nullptr, *dG_ = nullptr, *dtau_ = nullptr;
  T *dV_[kRing] = {}, *dVc_ = nullptr, *dVu_ = nullptr;  // V copies: the ring, the compute and urgent lanes'
  void *dsolver_ = nullptr;
  int *dinfo_ = nullptr;
  cusolverDnParams_t params_ = nullptr;
  std::size_t solver_device_bytes_ = 0, solver_host_bytes_ = 0;
  std::vector<char> solver_host_;
  T *htau_out_ = nullptr, *hpanel_ = nullptr, *hT_ = nullptr, *htau_ = nullptr;
  std::vector<T> cpu_work_;
  std::vector<cudaEvent_t> arrived_, panel_done_, ahead_ready_, rest_done_, caught_up_, phases_;
  cudaEvent_t start_ = nullptr, all_done_ = nullptr, panel_down_ = nullptr, verdict_ready_ = nullptr;
  static constexpr std::size_t kScratch = 256;
  int *hok_ = nullptr;
  int *hzero_ = nullptr;  // pinned, per column of the CholeskyQR2 panel: exactly zero (zero_columns)
  int cusolver_panels_ = 0;  // gpu mode: panels that CholeskyQR2's verdict sent to cuSOLVER
  double *ddev_ = nullptr, *dsign_ = nullptr;
  unsigned long long *dpivot_ = nullptr;  // max |pivot| of the signed LU, as a double's bits
  std::vector<lint> applied_;  // block reflectors applied to each block column, as queued
  const bool timeline_ = config::verbose_level() >= 2;
  Progress uploaded_, finalized_;
  std::vector<T *> cols_;  // a member's block columns (Member)
  std::atomic<bool> own_failed_{false}, stop_{false};
  std::atomic<bool> &failed_ = own_failed_;  // a member's: the set's
  std::atomic<lint> stored_columns_{0};  // leading columns final (with their tau) in the caller's arrays
  const bool on_device_ = false;         // the matrix came on the device and stays there
  const bool member_ = false;            // one member of a set's schedule (Member)
  bool pinned_ = false;                  // the caller's matrix in pinned memory: uploads go straight up
  bool transposed_ = false;              // the caller's array holds A, the matrix factored is A**H (ConjTransposed)
};

// The panel's kind (HQR_PANEL) and the block size for n columns (HQR_NB,
// else 512 from n = 8192, where the updates' gemms run faster than the
// extra panel work costs, 256 below and for tall-skinny shapes, where the
// panels dominate; hqr's CPU panel is a single core's work and wants fewer).
// 8192^2 0.084 s at 512 against 0.093 at 256, 65536x1024 0.042 at 256 against 0.051 at 512
// (H200, bench/results/history/qr-NVIDIA-H200-2026-11-22.txt).
inline Panel panel_mode() {
  const int setting = config::panel();
  return setting == config::kPanelCpu ? Panel::cpu : setting == config::kPanelCusolver ? Panel::cusolver : Panel::gpu;
}
inline lint block_size(lint n, Panel mode) {
  const int nb_setting = config::nb();
  const lint nb = nb_setting > 0 ? nb_setting : mode == Panel::cpu ? 128 : n >= 8192 ? 512 : 256;
  return std::min<lint>({nb, n, 1024});
}

}  // namespace hqr::gpu
