// Hybrid Cholesky with the caller's matrix in pageable host memory.
//
// Left-looking by block columns, so that the work of panel k needs only
// panels 0..k: panels stream in while earlier ones compute, and each panel
// streams out as soon as it is final.
//
//   upload thread:   caller -> pinned slot (host threads) -> device, panel by panel;
//                    a pinned caller's panels go straight up by DMA (pinned.hpp)
//   compute stream:  herk(diag k) ; gemm(below diag k) ; trsm
//   download thread: device -> pinned slot -> caller, only the referenced
//                    triangle (gpu mode: once the upload is done)
//
// Two ways to factor the diagonal block (Panel):
//   cpu: hqr's own potf2 on the host while the GPU runs gemm(k); the trsm of
//        panel k is split so that the rows of block k+1 go first and the
//        herk of diagonal block k+1 can leave for the CPU early (look-ahead).
//   gpu: cuSOLVER's potrf on the device, queued behind herk(k): the host
//        never waits and the GPU never idles on a host round trip.
// gpu is the default; HQR_PANEL=cpu picks the other (which is faster depends
// on the host's single-core speed against the GPU's small-kernel latency).
//
// The device holds the triangle as the caller stores it. For uplo = 'U'
// (A = U**H*U, U = L**H) panel k is block row k of U, and each step is the
// conjugate transpose of the lower one: herk and gemm with the left factor
// transposed, trsm from the left. Its pieces travel as stored, column
// segments of U a panel wide, with no transposes on the device. Only the
// triangle LAPACK references moves; the other triangle is never written.
//
// Measured reason (H200, hqr alone): U kept as stored, no transposes, dpotrf U 24576
// 0.146-0.158 -> 0.131 s (bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-26.txt, items 1-3).
//
// If the GPU fails mid-call, or a leading minor is not positive definite (or
// NaN), the columns of L already stored in the caller's array are final and
// the rest still hold the input: Result::resume tells the host side to finish
// from there on the CPU, which leaves the factor exactly as LAPACK does.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu/potf2.hpp"
#include "cuda/blas.cuh"
#include "cuda/context.hpp"
#include "cuda/device_potrf.cuh"
#include "cuda/gpu.hpp"
#include "cuda/handoff.hpp"
#include "cuda/node.hpp"
#include "cuda/one_trip.cuh"
#include "cuda/pinned.hpp"
#include "cuda/qr_kernels.cuh"
#include "host/config.hpp"
#include "host/fault.hpp"

namespace hqr::gpu {
namespace {

// Panel k of L: block column k, diagonal block included.
Rect panel_rect(lint n, lint nb, lint k) {
  const lint k0 = k * nb;
  return Rect{k0, k0, n - k0, std::min(nb, n - k0)};
}

// Splits a panel into pieces that fit one staging slot, so that the host
// copies long contiguous runs of the caller's array: for lower, whole
// columns of L; for upper, whole rows of the panel of L (whole column
// segments of U, each a panel wide). The first piece of an upper panel holds
// its whole diagonal block (potrf keeps nb small enough for that). A Rect
// names rows and columns of L: for upper, piece r is U(c0.., r0..), r.n
// rows by r.m columns.
std::vector<Rect> chunks(const Rect &r, std::size_t elem, bool upper) {
  std::vector<Rect> out;
  if (upper) {
    const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(r.n) * elem)));
    for (lint i = 0; i < r.m; i += per) out.push_back({r.r0 + i, r.c0, std::min(per, r.m - i), r.n});
  } else {
    const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(r.m) * elem)));
    for (lint j = 0; j < r.n; j += per) out.push_back({r.r0, r.c0 + j, r.m, std::min(per, r.n - j)});
  }
  return out;
}

// Where the diagonal blocks are factored (see the top of this file).
enum class Panel { cpu, gpu };

// Small orders go to cuSOLVER's potrf in one trip (one_trip.cuh): up to
// 3072 that beats the hybrid (H200, ms: d L 2048 1.88 against 2.33, 3072
// 3.36 against 3.65, 3584 the same, 4096 5.2 against 4.9-5.1;
// bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-26.txt).
constexpr lint kOneTrip = 3072;
// A pinned caller's trip (no staging copies; the factor stored from the
// device) serves single precision up to 4096, where its DMAs, which the
// hybrid overlaps with the factorization and the trip does not, are half
// as long. One H100, 4096, hybrid -> trip, ms: s L 4.47 -> 3.35-3.41, s U
// 4.61 -> 3.41-3.45, c L 7.31-7.37 -> 6.95-7.01, c U 7.83 -> 7.12; d L
// 4.59-4.65 -> 4.97-5.04, z L 7.11 -> 10.14
// (bench/results/history/pinned-trip4096-NVIDIA-H100-80GB-HBM3-2026-12-06.txt).
constexpr lint kOneTripPinned = 4096;
template <class T> constexpr bool pinned_trip_pays = sizeof(typename Prec<T>::real) == 4;

// The one trip's device routine.
template <class T> struct OneTripPotrf {
  const char *name = "potrf", *refused = "leading minor not positive definite: LAPACK factors it";
  DevicePotrf solver;
  bool log_det = false;                       // xPOLOGDET: the sum of log(real(L(i,i)))
  unsigned long long *value_slot = nullptr;  // goes here (OnTriangle's report, a double's bits)
  bool flag_nan = true;                      // false: the trip flags a NaN pivot (one_trip_pinned_lower)
  // A pinned caller's lower triangle goes the small trip up to 4 MiB (d n
  // <= 724): on an H100 cuSOLVER-on-pinned / hqr at d L 384 and 512 went
  // from 0.89-0.95 (the general pinned trip) to 0.94-1.03, the inputs'
  // host copy (2 MiB at 512) ending within the device's 0.25 ms
  // (bench/results/pinned-small-NVIDIA-H100-80GB-HBM3-2026-12-05.txt).
  static constexpr std::size_t square_bytes = std::size_t(4) << 20;
  // cuSOLVER's potrf, the NaN flag and the log sum: launches decided by n,
  // the buffers and these two switches (one_trip.cuh replays them as a
  // graph from the second call).
  unsigned graph_key() const { return unsigned(log_det) | unsigned(flag_nan) << 1; }
  bool init(Context &c, lint n, T *d, std::size_t *work_bytes) {
    *work_bytes = 0;
    if (!solver.init(c.solver, n, d, n)) return false;
    *work_bytes = solver.device_bytes;
    return true;
  }
  bool run(Context &c, lint n, T *d, void *work, int *dinfo) {
    if (!ok(solver.run(c.solver, false, n, d, n, work, dinfo))) return false;
    if (flag_nan) flag_nan_pivot<<<grid_for(n), 256, 0, c.compute_stream>>>(n, dv(d), n, dinfo);
    return ok(cudaGetLastError()) &&
           (!log_det || ok(launch_log_diagonal_sum(c.compute_stream, n, d, n, reinterpret_cast<double *>(value_slot))));
  }
};

template <class T> class HybridPotrf {
 public:
  HybridPotrf(Context &c, bool upper, lint n, T *a, lint lda, lint nb, Panel mode, bool log_det)
      : c_(c), upper_(upper), n_(n), a_(a), lda_(lda), nb_(nb), np_((n + nb - 1) / nb),
        ldda_((n + 31) / 32 * 32), mode_(mode), log_det_(log_det) {}

  Result run() {
    if (std::size_t(n_) * sizeof(T) > Context::kSlotBytes) return {false, 0, "matrix column larger than staging", 0};
    if (!reserve()) return {false, 0, "GPU out of memory", 0};
    arrived_.resize(np_);
    final_.resize(np_);
    for (auto *v : {&arrived_, &final_})
      for (auto &e : *v)
        if (!ok(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return finish({false, 0, "CUDA event", 0});
    for (cudaEvent_t *e : {&diag_ready_, &diag_down_, &diag_up_})
      if (!ok(cudaEventCreateWithFlags(e, cudaEventDisableTiming))) return finish({false, 0, "CUDA event", 0});
    phases_.resize(config::verbose_level() >= 3 && mode_ == Panel::gpu ? std::size_t(np_) * kPhases : 0);
    for (auto &e : phases_)
      if (!ok(cudaEventCreate(&e))) return finish({false, 0, "CUDA event", 0});
    pinned_ = pinned_range(a_, (std::size_t(n_ - 1) * lda_ + n_) * sizeof(T)).pinned;

    start_ = Clock::now();
    // CUDA's current device is per thread.
    std::thread uploader([this] {
      if (check(cudaSetDevice(c_.device), fault::Point::sync))
        upload();
      else
        uploaded_.wake();
      upload_done_ = since_start();
    });
    std::thread downloader([this] {
      if (check(cudaSetDevice(c_.device), fault::Point::sync)) download();
    });
    factor();
    factor_done_ = since_start();
    stop_upload_ = true;
    uploaded_.wake();
    uploader.join();
    downloader.join();
    for (cudaStream_t s : {c_.compute_stream, c_.panel_stream, c_.upload_stream, c_.download_stream})
      check(cudaStreamSynchronize(s), fault::Point::sync);
    if (config::verbose_level() >= 2)
      std::fprintf(stderr,
                   "hqr: potrf phases (s from start): uploads queued %.4f, factor queued %.4f, last panel final "
                   "%.4f, stores done %.4f\n",
                   upload_done_, factor_done_, last_final_, since_start());
    if (!phases_.empty() && !gpu_failed_) print_phases();
    if (gpu_failed_) return finish({false, 0, "CUDA error", stored_columns_.load(), partial_rows_, partial_cols_});
    if (not_spd_)
      return finish({false, 0, "leading minor not positive definite: LAPACK finishes", stored_columns_.load(),
                     partial_rows_, partial_cols_});
    Result done{true, 0, pinned_ ? kPinnedCaller : nullptr, 0};
    if (log_det_ && !sum_logs(done)) return finish({false, 0, "CUDA error", 0});
    return finish(done);
  }

 private:
  // xPOLOGDET: the panels' sums of log(real(L(i,i))), summed in panel
  // order (the gpu mode's are on the device, one double per panel).
  bool sum_logs(Result &r) {
    r.has_log_det = true;
    r.log_det = host_log_;
    if (mode_ == Panel::cpu) return true;
    std::vector<double> logs(np_);
    if (!check(cudaMemcpy(logs.data(), dlog_, sizeof(double) * np_, cudaMemcpyDeviceToHost), fault::Point::copy))
      return false;
    for (double x : logs) r.log_det += x;
    return true;
  }

  // Device: the matrix, and for the gpu mode cuSOLVER's workspace, one
  // INFO per panel and, for xPOLOGDET, one log sum per panel. Pinned: the
  // diagonal block (cpu mode) or the INFOs.
  bool reserve() {
    if (fault::hit(fault::Point::alloc)) return false;
    if (!c_.matrix.reserve(sizeof(T) * std::size_t(ldda_) * n_)) return false;
    dA_ = static_cast<T *>(c_.matrix.get());
    if (mode_ == Panel::cpu) {
      if (!c_.panel.reserve(2 * sizeof(T) * std::size_t(nb_) * nb_)) return false;
      return true;
    }
    if (!solver_.init(c_.panel_solver, nb_, dA_, ldda_)) return false;
    const std::size_t infos = std::size_t(np_) * sizeof(int), ws = (solver_.device_bytes + 255) / 256 * 256;
    const std::size_t logs = log_det_ ? (infos + 7) / 8 * 8 + sizeof(double) * np_ : 0;
    if (!c_.workspace.reserve(ws + std::max(infos, logs)) || !c_.panel.reserve(infos)) return false;
    dwork_ = c_.workspace.get();
    dinfo_ = reinterpret_cast<int *>(static_cast<char *>(dwork_) + ws);
    dlog_ = reinterpret_cast<double *>(static_cast<char *>(dwork_) + ws + (infos + 7) / 8 * 8);
    hinfo_ = static_cast<int *>(c_.panel.get());
    return true;
  }

  Result finish(Result r) {
    for (auto *v : {&arrived_, &final_, &phases_})
      for (auto &e : *v)
        if (e) cudaEventDestroy(e);
    for (cudaEvent_t e : {diag_ready_, diag_down_, diag_up_})
      if (e) cudaEventDestroy(e);
    if (!r.ran) (void)cudaGetLastError();
    return r;
  }

  using Clock = std::chrono::steady_clock;
  double since_start() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  T *dev(lint i, lint j) const { return dA_ + i + std::size_t(j) * ldda_; }
  T *host(lint i, lint j) const { return a_ + i + std::size_t(j) * lda_; }

  // A CUDA step: false (and every thread stops) on an error, or where the
  // HQR_FAULT test switch says this kind of step fails.
  template <class S> bool check(S status, fault::Point p) {
    if (!ok(status) || fault::hit(p)) {
      gpu_failed_ = true;
      halt_ = true;
    }
    return !gpu_failed_;
  }
  // A pivot failed: the CPU finishes from the columns stored so far.
  void pivot_failed() {
    not_spd_ = true;
    halt_ = true;
  }
  bool stopped() const { return halt_; }

  // Caller -> pinned slot -> device (a pinned caller: caller -> device),
  // panel by panel, in factorization order.
  void upload() {
    int slot = 0;
    auto step = [this](auto status, fault::Point p) { return check(status, p); };
    for (lint k = 0; k < np_ && !stop_upload_ && !stopped(); ++k) {
      bool fine = true;
      for (const Rect &r : chunks(panel_rect(n_, nb_, k), sizeof(T), upper_)) {
        const Stored p = stored(r);
        fine = upload_block(c_, pinned_, slot, sizeof(T), p.rows, p.cols, host(p.i, p.j), lda_, dev(p.i, p.j), ldda_,
                            c_.upload_stream, step);
        if (!fine) break;
      }
      if (!fine) break;
      if (!check(cudaEventRecord(arrived_[k], c_.upload_stream), fault::Point::copy)) break;
      uploaded_.publish(k + 1);
    }
    uploaded_.wake();
  }

  // Where chunk r lies in the caller's array and on the device: its first
  // element and its shape as stored (for upper the transpose of r).
  struct Stored {
    lint i, j, rows, cols;
  };
  Stored stored(const Rect &r) const { return upper_ ? Stored{r.c0, r.r0, r.n, r.m} : Stored{r.r0, r.c0, r.m, r.n}; }

  // Element (i, jj) of chunk r of L as staged: column-major r.m by r.n for
  // lower; for upper the rows of U as stored, r.n by r.m.
  T staged_at(const Rect &r, const T *staged, lint i, lint jj) const {
    return upper_ ? conj_of(staged[jj + std::size_t(i) * r.n]) : staged[i + std::size_t(jj) * r.m];
  }

  // A chunk of L is final only if its diagonal is positive: the device does
  // not stop at a NaN pivot (cuSOLVER tests `<= 0`, as OpenBLAS does), so a
  // NaN there marks where LAPACK would have stopped.
  bool diagonal_ok(const Rect &r, const T *staged) const {
    for (lint jj = 0; jj < r.n; ++jj) {
      const lint d = r.c0 + jj;  // diagonal element (d, d), if the chunk holds it
      if (d >= r.r0 && d < r.r0 + r.m && std::isnan(std::real(staged_at(r, staged, d - r.r0, jj)))) return false;
    }
    return true;
  }

  // Pinned -> caller: chunk r of L, only the elements of the referenced
  // triangle (the diagonal block's other half stays untouched).
  void store(const Rect &r, const T *staged) {
    for_pieces(c_.download_copies, upper_ ? r.m : r.n, [&](lint p0, lint p1) {
      if (!upper_) {
        for (lint jj = p0; jj < p1; ++jj) {
          const lint j = r.c0 + jj, lo = std::max(r.r0, j);
          stream_copy(host(lo, j), staged + (lo - r.r0) + std::size_t(jj) * r.m, (r.r0 + r.m - lo) * sizeof(T));
        }
        store_fence();
        return;
      }
      // Column r.r0+i of U: rows r.c0.. up to the diagonal.
      for (lint i = p0; i < p1; ++i) {
        const lint rows = std::min(r.n, r.r0 + i - r.c0 + 1);
        if (rows > 0) stream_copy(host(r.c0, r.r0 + i), staged + std::size_t(i) * r.n, rows * sizeof(T));
      }
      store_fence();
    });
    // Upper: a panel's columns of L are final in the caller's array once
    // its last piece (the bottom rows) is stored; until then its rows of U
    // are final only up to the stored columns (partial_*, read after the
    // downloader has joined).
    const bool whole = !upper_ || r.r0 + r.m == n_;
    partial_rows_ = whole ? 0 : r.n;
    partial_cols_ = whole ? 0 : r.r0 + r.m;
    if (whole) stored_columns_.store(r.c0 + r.n);
  }

  // Splits 0..count into a few ranges run at once on `pool`.
  template <class F> static void for_pieces(CopyPool &pool, lint count, F &&f) {
    const lint pieces = std::max<lint>(1, std::min<lint>(count, pool.threads()));
    const lint per = (count + pieces - 1) / pieces;
    pool.run(int(pieces), [&](int p) { f(std::min(count, p * per), std::min(count, (p + 1) * per)); });
  }

  // Device -> pinned slot -> caller, each panel once it is final; DMAs run
  // up to kSlots chunks ahead of the host copies. Stops storing at the first
  // panel whose pivot failed, so the caller's array holds final columns and
  // then input.
  void download() {
    struct Pending {
      lint k;
      Rect r;
      StagingSlot *s;
    };
    std::deque<Pending> pending;
    int slot = 0;
    bool halted = false;  // a pivot failed: nothing more is stored
    auto drain_one = [&] {
      Pending p = pending.front();
      pending.pop_front();
      if (halted || gpu_failed_ || !check(cudaEventSynchronize(p.s->dma_done), fault::Point::sync)) return;
      const T *staged = static_cast<const T *>(p.s->host);
      if (p.k == np_ - 1 && last_final_ == 0) last_final_ = since_start();
      if ((mode_ == Panel::gpu && hinfo_[p.k] != 0) || !diagonal_ok(p.r, staged)) {
        halted = true;
        pivot_failed();
        return;
      }
      store(p.r, staged);
    };
    // gpu mode: results wait until the whole upload is on the device.
    // Staging in both directions at once shares the host's memory bandwidth
    // (about half the rate each way), and the first panels' factorization
    // waits for the upload while the results have slack until the end. On
    // the H200, with and without the hold: dpotrf L 24576 0.124 against
    // 0.132-0.135 s, U 16384 0.050 against 0.055; from 8192 down, even
    // (bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-26.txt).
    if (mode_ == Panel::gpu) uploaded_.wait_past(np_ - 1, halt_);
    // Panels published before a failure in the cpu mode are still stored.
    for (lint k = 0; k < np_ && !halted && !gpu_failed_; ++k) {
      if (!finalized_.wait_past(k, stop_download_) || halted || gpu_failed_) break;
      if (!check(cudaStreamWaitEvent(c_.download_stream, final_[k], 0), fault::Point::copy)) break;
      // The gpu mode's INFO of diagonal block k, ahead of the panel's
      // chunks: on this stream, not the panel stream, so that the copy
      // engine's queue of results never holds up the factorization.
      if (mode_ == Panel::gpu &&
          !check(cudaMemcpyAsync(hinfo_ + k, dinfo_ + k, sizeof(int), cudaMemcpyDeviceToHost, c_.download_stream),
                 fault::Point::copy))
        break;
      for (const Rect &r : chunks(panel_rect(n_, nb_, k), sizeof(T), upper_)) {
        if (pending.size() == std::size_t(Context::kSlots)) drain_one();
        const int i = slot++ % Context::kSlots;
        StagingSlot &s = c_.download_slots[i];
        const Stored p = stored(r);
        if (!check(cudaMemcpy2DAsync(s.host, p.rows * sizeof(T), dev(p.i, p.j), ldda_ * sizeof(T),
                                     p.rows * sizeof(T), p.cols, cudaMemcpyDeviceToHost, c_.download_stream),
                   fault::Point::copy) ||
            !check(cudaEventRecord(s.dma_done, c_.download_stream), fault::Point::copy))
          break;
        pending.push_back({k, r, &s});
      }
    }
    while (!pending.empty()) drain_one();
  }

  // Panel k is on the device (stream-ordered on the compute stream).
  bool arrived(lint k) {
    return uploaded_.wait_past(k, halt_) &&
           check(cudaStreamWaitEvent(c_.compute_stream, arrived_[k], 0), fault::Point::sync);
  }

  // Diagonal block k: A(k,k) -= L(k,0:k) L(k,0:k)**H (upper: U(0:k,k)**H U(0:k,k)).
  bool update_diagonal(lint k) {
    using R = typename Prec<T>::real;
    const lint k0 = k * nb_, kb = std::min(nb_, n_ - k0);
    if (k0 == 0) return true;
    return check(upper_ ? blas::herk(c_.blas, CUBLAS_FILL_MODE_UPPER, blas::op_c<T>(), kb, k0, R(-1), dev(0, k0), ldda_,
                                     R(1), dev(k0, k0), ldda_)
                        : blas::herk(c_.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, kb, k0, R(-1), dev(k0, 0), ldda_,
                                     R(1), dev(k0, k0), ldda_),
                 fault::Point::kernel);
  }

  // Rows r0..r0+m-1 below diagonal block k: A -= L(rows,0:k) L(k,0:k)**H
  // (upper, columns r0.. right of it: A -= U(0:k,k)**H U(0:k,cols)).
  bool update_rows(lint k, lint r0, lint m) {
    const lint k0 = k * nb_, kb = std::min(nb_, n_ - k0);
    if (k0 == 0 || m == 0) return true;
    return check(upper_ ? blas::gemm(c_.blas, blas::op_c<T>(), CUBLAS_OP_N, kb, m, k0, T(-1), dev(0, k0), ldda_,
                                     dev(0, r0), ldda_, T(1), dev(k0, r0), ldda_)
                        : blas::gemm(c_.blas, CUBLAS_OP_N, blas::op_c<T>(), m, kb, k0, T(-1), dev(r0, 0), ldda_,
                                     dev(k0, 0), ldda_, T(1), dev(r0, k0), ldda_),
                 fault::Point::kernel);
  }

  // Rows r0..r0+m-1 of panel k: A := A * L(k,k)**-H (upper: U(k,k)**-H * A).
  bool solve_rows(lint k, lint r0, lint m) {
    const lint k0 = k * nb_, kb = std::min(nb_, n_ - k0);
    if (m == 0) return true;
    if (upper_) return solve_upper(dev(k0, k0), kb, dev(k0, r0), m);
    return check(blas::trsm(c_.blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, blas::op_c<T>(), CUBLAS_DIAG_NON_UNIT,
                            m, kb, T(1), dev(k0, k0), ldda_, dev(r0, k0), ldda_),
                 fault::Point::kernel);
  }

  // U**H X = B in place (U n by n, B n by m): by halves, a gemm for the
  // off-diagonal half and cuBLAS's trsm at leaves of 128, because cuBLAS's
  // left-side trsm is slow: dpotrf U 24576 0.135 -> 0.126 s, leaves of 256 or 512 no gain
  // (H200, bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-26.txt, item 5).
  // The lower case's right-side trsm by halves gained nothing
  // (bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-25.txt, item 3).
  bool solve_upper(const T *u, lint n, T *b, lint m) {
    constexpr lint kLeaf = 128;
    if (n <= kLeaf)
      return check(blas::trsm(c_.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, blas::op_c<T>(), CUBLAS_DIAG_NON_UNIT,
                              n, m, T(1), u, ldda_, b, ldda_),
                   fault::Point::kernel);
    const lint n1 = (n / 2 + 31) / 32 * 32;
    return solve_upper(u, n1, b, m) &&
           check(blas::gemm(c_.blas, blas::op_c<T>(), CUBLAS_OP_N, n - n1, m, n1, T(-1), u + std::size_t(n1) * ldda_,
                            ldda_, b, ldda_, T(1), b + n1, ldda_),
                 fault::Point::kernel) &&
           solve_upper(u + n1 + std::size_t(n1) * ldda_, n - n1, b + n1, m);
  }

  bool publish_final(lint k) {
    if (!check(cudaEventRecord(final_[k], c_.compute_stream), fault::Point::kernel)) return false;
    finalized_.publish(k + 1);
    return true;
  }

  void factor() {
    if (mode_ == Panel::gpu)
      factor_gpu_panels();
    else
      factor_cpu_panels();
    stop_download_ = true;
    finalized_.wake();
  }

  // Everything queued on the device; the host only waits for uploads. The
  // diagonal block's potrf runs on the panel stream beside gemm(k), which
  // does not need it. Splitting trsm(k) so that block k+1's herk and potrf
  // start early measured no faster (H200, bench/results/history/potrf-NVIDIA-H200-2026-11-22b.txt).
  void factor_gpu_panels() {
    for (lint k = 0; k < np_ && !stopped(); ++k) {
      const lint k0 = k * nb_, kb = std::min(nb_, n_ - k0);
      if (!arrived(k) || !phase(k, 0) || !update_diagonal(k) || !phase(k, 1) || !factor_diagonal(k) ||
          !update_rows(k, k0 + kb, n_ - k0 - kb) || !phase(k, 2) ||
          !check(cudaStreamWaitEvent(c_.compute_stream, diag_up_, 0), fault::Point::sync) || !phase(k, 3) ||
          !solve_rows(k, k0 + kb, n_ - k0 - kb) || !phase(k, 4) || !publish_final(k))
        return;
    }
  }

  // HQR_VERBOSE=3: how long each step of each panel took on the compute
  // stream (events between the steps): "arrive" is the wait for the
  // upload after the previous panel's trsm, "potrf" the wait for the
  // diagonal block's factor after the gemm.
  static constexpr int kPhases = 5;
  bool phase(lint k, int i) {
    if (!phases_.empty()) cudaEventRecord(phases_[std::size_t(k) * kPhases + i], c_.compute_stream);
    return true;
  }
  void print_phases() {
    double sum[kPhases] = {};
    std::fprintf(stderr, "hqr: potrf panel phases (ms): arrive herk gemm potrf trsm\n");
    for (lint k = 0; k < np_; ++k) {
      float t[kPhases] = {0, -1, -1, -1, -1};
      const cudaEvent_t *e = &phases_[std::size_t(k) * kPhases];
      if (k > 0) cudaEventElapsedTime(&t[0], phases_[std::size_t(k - 1) * kPhases + 4], e[0]);
      for (int i = 1; i < kPhases; ++i) cudaEventElapsedTime(&t[i], e[i - 1], e[i]);
      for (int i = 0; i < kPhases; ++i) sum[i] += t[i];
      if (config::verbose_level() >= 4)
        std::fprintf(stderr, "hqr:   %4lld %7.3f %7.3f %7.3f %7.3f %7.3f\n", (long long)k, t[0], t[1], t[2], t[3], t[4]);
    }
    std::fprintf(stderr, "hqr:   sum  %7.2f %7.2f %7.2f %7.2f %7.2f\n", sum[0], sum[1], sum[2], sum[3], sum[4]);
    (void)cudaGetLastError();
  }

  // cuSOLVER's potrf of diagonal block k on the panel stream, once its herk
  // is done; diag_up_ tells the compute stream when the block is factored.
  // Its INFO stays on the device until the downloader fetches it.
  bool factor_diagonal(lint k) {
    const lint k0 = k * nb_, kb = std::min(nb_, n_ - k0);
    return check(cudaEventRecord(diag_ready_, c_.compute_stream), fault::Point::kernel) &&
           check(cudaStreamWaitEvent(c_.panel_stream, diag_ready_, 0), fault::Point::sync) &&
           check(solver_.run(c_.panel_solver, upper_, kb, dev(k0, k0), ldda_, dwork_, dinfo_ + k),
                 fault::Point::kernel) &&
           (!log_det_ || check(launch_log_diagonal_sum(c_.panel_stream, kb, dev(k0, k0), ldda_, dlog_ + k),
                               fault::Point::kernel)) &&
           check(cudaEventRecord(diag_up_, c_.panel_stream), fault::Point::kernel);
  }

  // Diagonal block k: updated on the device, then on its way to the host.
  bool send_diagonal(lint k) {
    const lint k0 = k * nb_, kb = std::min(nb_, n_ - k0);
    return arrived(k) && update_diagonal(k) &&
           check(cudaEventRecord(diag_ready_, c_.compute_stream), fault::Point::kernel) &&
           check(cudaStreamWaitEvent(c_.panel_stream, diag_ready_, 0), fault::Point::copy) &&
           check(cudaMemcpy2DAsync(c_.panel.get(), kb * sizeof(T), dev(k0, k0), ldda_ * sizeof(T), kb * sizeof(T),
                                   kb, cudaMemcpyDeviceToHost, c_.panel_stream),
                 fault::Point::copy) &&
           check(cudaEventRecord(diag_down_, c_.panel_stream), fault::Point::copy);
  }

  // The CPU factors diagonal block k while the GPU runs gemm(k) and the
  // tail of trsm(k-1); then the rows of block k+1 are solved first, so that
  // diagonal block k+1 can leave while the rest of panel k is solved.
  void factor_cpu_panels() {
    T *block = static_cast<T *>(c_.panel.get());
    T *work = block + std::size_t(nb_) * nb_;
    if (!send_diagonal(0)) return;
    for (lint k = 0; k < np_; ++k) {
      const lint k0 = k * nb_, kb = std::min(nb_, n_ - k0), rest = n_ - k0 - kb;
      if (!update_rows(k, k0 + kb, rest) || !check(cudaEventSynchronize(diag_down_), fault::Point::sync)) return;
      if (cpu::potf2(upper_, kb, block, kb, work) != 0) {
        pivot_failed();  // panels before k are final; LAPACK finishes from there
        return;
      }
      if (log_det_)  // the block the CPU just factored, still in its cache
        for (lint i = 0; i < kb; ++i) host_log_ += std::log(double(std::real(block[i + std::size_t(i) * kb])));
      if (!check(cudaMemcpy2DAsync(dev(k0, k0), ldda_ * sizeof(T), block, kb * sizeof(T), kb * sizeof(T), kb,
                                   cudaMemcpyHostToDevice, c_.panel_stream),
                 fault::Point::copy) ||
          !check(cudaEventRecord(diag_up_, c_.panel_stream), fault::Point::copy) ||
          !check(cudaStreamWaitEvent(c_.compute_stream, diag_up_, 0), fault::Point::sync))
        return;
      const lint next_rows = std::min(nb_, rest);
      if (!solve_rows(k, k0 + kb, next_rows) || (k + 1 < np_ && !send_diagonal(k + 1)) ||
          !solve_rows(k, k0 + kb + next_rows, rest - next_rows) || !publish_final(k))
        return;
    }
  }

  Context &c_;
  const bool upper_;
  const lint n_;
  T *const a_;
  const lint lda_, nb_, np_, ldda_;
  const Panel mode_;
  const bool log_det_;
  double host_log_ = 0;      // cpu mode: the sum so far
  double *dlog_ = nullptr;   // gpu mode: per panel, on the device
  bool pinned_ = false;      // the caller's matrix in pinned memory: uploads go straight up
  T *dA_ = nullptr;
  DevicePotrf solver_;
  void *dwork_ = nullptr;
  int *dinfo_ = nullptr, *hinfo_ = nullptr;
  std::vector<cudaEvent_t> arrived_, final_;  // per panel: on the device / final
  std::vector<cudaEvent_t> phases_;           // HQR_VERBOSE=3
  cudaEvent_t diag_ready_ = nullptr, diag_down_ = nullptr, diag_up_ = nullptr;
  Progress uploaded_, finalized_;
  Clock::time_point start_;
  double upload_done_ = 0, factor_done_ = 0, last_final_ = 0;  // HQR_VERBOSE=2
  // halt_: every thread stops (a CUDA error, or a failed pivot).
  std::atomic<bool> gpu_failed_{false}, not_spd_{false}, halt_{false}, stop_upload_{false}, stop_download_{false};
  std::atomic<lint> stored_columns_{0};  // leading columns of L final in the caller's array
  lint partial_rows_ = 0, partial_cols_ = 0;  // see Result
};

}  // namespace

bool available() {
  // The setting first: HQR_DEVICE=none never starts CUDA.
  return config::device_mask() != 0 && context() != nullptr;
}

// Orders from which the whole device set serves a call when it has several
// GPUs (HQR_GPU_MIN_N, when set, decides instead): 4 H100s gained nothing
// at 16384 and 1.6x at 32768 (bench/results/potrf-node-NVIDIA-H100-80GB-HBM3-x4-2026-11-28.txt).
constexpr lint kNodeOrder = 24576;

// Whether the device-set schedule (potrf_node.cu) serves this call: several
// GPUs and a large enough order, or a matrix that one GPU's memory (or
// HQR_GPU_MEMORY) does not hold, which only that schedule can run out of
// core.
template <class T> bool over_set(const DeviceSet &set, lint n) {
  const long forced = config::gpu_min_n();
  if (set.count > 1 && (forced >= 0 || n >= kNodeOrder)) return true;
  const std::size_t ldda = (n + 31) / 32 * 32, need = sizeof(T) * ldda * std::size_t(n);
  const std::size_t cap = config::gpu_memory() ? config::gpu_memory() : set.member[0]->total_memory / 10 * 9;
  return need > cap;
}

template <class T> Result potrf(bool upper, lint n, T *a, lint lda, bool log_det) {
  const DeviceSet set = device_set();
  if (!set.count) return {false, 0, context_error(), 0};
  if (over_set<T>(set, n)) return potrf_node(set, upper, n, a, lda, log_det);
  Context *c = set.member[0];
  std::lock_guard<std::mutex> g(c->lock);
  if (!ok(cudaSetDevice(c->device))) return {false, 0, "cudaSetDevice failed", 0};
  const Panel mode = config::panel() == config::kPanelCpu ? Panel::cpu : Panel::gpu;
  const int nb_setting = config::nb();
  // Block sizes: the CPU factors 512 blocks in time; on the GPU 768 is best at
  // n = 8192 and 1024 from 16384 (H200, bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-22.txt).
  // HQR_NB (or HQR_PANEL=cpu) asks for the hybrid schedule at any order.
  if (nb_setting <= 0 && mode == Panel::gpu &&
      (n <= kOneTrip ? triangle_trip_fits<T>(*c, n, a, lda)
                     : pinned_trip_pays<T> && n <= kOneTripPinned && pinned_triangle(a, lda, n) &&
                           triangle_trip_fits<T>(*c, n, true))) {
    OneTripPotrf<T> op;
    op.log_det = log_det;
    unsigned long long bits = 0;
    Result r = one_trip(*c, op, upper, n, a, lda, &bits);
    if (log_det && r.ran && r.info == 0) {
      r.has_log_det = true;
      std::memcpy(&r.log_det, &bits, sizeof r.log_det);
    }
    return r;
  }
  lint nb = nb_setting > 0 ? nb_setting : mode == Panel::cpu ? 512 : n >= 16384 ? 1024 : 768;
  // Upper: a diagonal block must fit one staging slot (see chunks()), so
  // that a failed pivot is seen before any piece of its panel is stored.
  if (upper)
    while (std::size_t(nb) * nb * sizeof(T) > Context::kSlotBytes) nb /= 2;
  return HybridPotrf<T>(*c, upper, n, a, lda, std::min(nb, n), mode, log_det).run();
}

template Result potrf(bool, lint, float *, lint, bool);
template Result potrf(bool, lint, double *, lint, bool);
template Result potrf(bool, lint, std::complex<float> *, lint, bool);
template Result potrf(bool, lint, std::complex<double> *, lint, bool);

}  // namespace hqr::gpu
