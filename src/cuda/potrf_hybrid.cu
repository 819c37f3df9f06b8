// Hybrid Cholesky with the caller's matrix in pageable host memory.
//
// Left-looking by block columns, so that the work of panel k needs only
// panels 0..k: panels stream in while earlier ones compute, and each panel
// streams out as soon as it is final.
//
//   upload thread:   caller -> pinned slot (host threads) -> device, panel by panel
//   compute stream:  herk(diag k) ; gemm(below diag k) ; trsm
//   CPU:             potf2(diag k) while the GPU runs gemm(k)  (look-ahead)
//   download thread: device -> pinned slot -> caller, only the referenced triangle
//
// The device always factors the lower triangle: for uplo = 'U' the host
// threads that stage the data conjugate-transpose it on the way (A = U**H*U
// is A**H = L*L**H with L = U**H), so one GPU schedule serves both. Only the
// triangle LAPACK references moves; the other triangle is never written.
//
// If the GPU fails mid-call, the columns of L already stored in the caller's
// array are final and the rest still hold the input: Result::resume tells the
// host side to finish from there on the CPU.
#include <algorithm>
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
#include "cuda/gpu.hpp"
#include "host/config.hpp"

namespace hqr::gpu {
namespace {

// A rectangle of the matrix: rows r0..r0+m-1, columns c0..c0+n-1.
struct Rect {
  lint r0, c0, m, n;
};

// Panel k of L: block column k, diagonal block included.
Rect panel_rect(lint n, lint nb, lint k) {
  const lint k0 = k * nb;
  return Rect{k0, k0, n - k0, std::min(nb, n - k0)};
}

// Splits a panel into pieces of whole columns that fit one staging slot.
std::vector<Rect> chunks(const Rect &r, std::size_t elem) {
  const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(r.m) * elem)));
  std::vector<Rect> out;
  for (lint j = 0; j < r.n; j += per) out.push_back({r.r0, r.c0 + j, r.m, std::min(per, r.n - j)});
  return out;
}

// Counts panels handed from one thread to another.
class Progress {
 public:
  void publish(lint k) {
    {
      std::lock_guard<std::mutex> g(m_);
      done_ = k;
    }
    cv_.notify_all();
  }
  // Waits until more than k panels are published or `stop` is set; returns
  // false when stopped first.
  bool wait_past(lint k, const std::atomic<bool> &stop) {
    std::unique_lock<std::mutex> g(m_);
    cv_.wait(g, [&] { return done_ > k || stop.load(); });
    return done_ > k;
  }
  void wake() { cv_.notify_all(); }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  lint done_ = 0;
};

template <class T> class HybridPotrf {
 public:
  HybridPotrf(Context &c, bool upper, lint n, T *a, lint lda, lint nb)
      : c_(c), upper_(upper), n_(n), a_(a), lda_(lda), nb_(nb), np_((n + nb - 1) / nb),
        ldda_((n + 31) / 32 * 32) {}

  Result run() {
    if (!c_.matrix.reserve(sizeof(T) * std::size_t(ldda_) * n_) ||
        !c_.panel.reserve(2 * sizeof(T) * std::size_t(nb_) * nb_))
      return {false, 0, "GPU out of memory", 0};
    if (std::size_t(n_) * sizeof(T) > Context::kSlotBytes) return {false, 0, "matrix column larger than staging", 0};
    dA_ = static_cast<T *>(c_.matrix.get());
    arrived_.resize(np_);
    final_.resize(np_);
    for (auto *v : {&arrived_, &final_})
      for (auto &e : *v)
        if (!ok(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return finish({false, 0, "CUDA event", 0});
    if (!ok(cudaEventCreateWithFlags(&diag_ready_, cudaEventDisableTiming)) ||
        !ok(cudaEventCreateWithFlags(&diag_down_, cudaEventDisableTiming)) ||
        !ok(cudaEventCreateWithFlags(&diag_up_, cudaEventDisableTiming)))
      return finish({false, 0, "CUDA event", 0});

    std::thread uploader([this] { upload(); });
    std::thread downloader([this] { download(); });
    const lint info = factor();
    stop_upload_ = true;
    uploaded_.wake();
    uploader.join();
    downloader.join();
    for (cudaStream_t s : {c_.compute_stream, c_.panel_stream, c_.upload_stream, c_.download_stream})
      if (!ok(cudaStreamSynchronize(s))) gpu_failed_ = true;
    if (gpu_failed_) return finish({false, 0, "CUDA error", stored_columns_.load()});
    return finish({true, info, nullptr, 0});
  }

 private:
  Result finish(Result r) {
    for (auto *v : {&arrived_, &final_})
      for (auto &e : *v)
        if (e) cudaEventDestroy(e);
    for (cudaEvent_t e : {diag_ready_, diag_down_, diag_up_})
      if (e) cudaEventDestroy(e);
    if (!r.ran) (void)cudaGetLastError();
    return r;
  }

  T *dev(lint i, lint j) const { return dA_ + i + std::size_t(j) * ldda_; }
  T *host(lint i, lint j) const { return a_ + i + std::size_t(j) * lda_; }

  template <class S> bool check(S status) {
    if (!ok(status)) gpu_failed_ = true;
    return !gpu_failed_;
  }

  // Caller -> pinned slot -> device, panel by panel, in factorization order.
  void upload() {
    int slot = 0;
    for (lint k = 0; k < np_ && !stop_upload_ && !gpu_failed_; ++k) {
      for (const Rect &r : chunks(panel_rect(n_, nb_, k), sizeof(T))) {
        StagingSlot &s = c_.upload_slots[slot++ % Context::kSlots];
        if (!check(cudaEventSynchronize(s.dma_done))) break;
        stage(r, static_cast<T *>(s.host));
        if (!check(cudaMemcpy2DAsync(dev(r.r0, r.c0), ldda_ * sizeof(T), s.host, r.m * sizeof(T), r.m * sizeof(T),
                                     r.n, cudaMemcpyHostToDevice, c_.upload_stream)) ||
            !check(cudaEventRecord(s.dma_done, c_.upload_stream)))
          break;
      }
      if (!check(cudaEventRecord(arrived_[k], c_.upload_stream))) break;
      uploaded_.publish(k + 1);
    }
    uploaded_.wake();
  }

  // Caller -> pinned: chunk r of L, packed with leading dimension r.m.
  void stage(const Rect &r, T *staged) {
    if (!upper_) {
      copy_block(c_.upload_copies, sizeof(T), r.m, r.n, host(r.r0, r.c0), lda_, staged, r.m);
      return;
    }
    for_pieces(c_.upload_copies, r.m, [&](lint i0, lint i1) {
      // Rows i0..i1 of the chunk are columns of the caller's upper triangle:
      // read each contiguously, scatter conjugated into the chunk's rows.
      for (lint i = i0; i < i1; ++i) {
        const T *src = host(r.c0, r.r0 + i);
        for (lint jj = 0; jj < r.n; ++jj) staged[i + std::size_t(jj) * r.m] = conj_(src[jj]);
      }
    });
  }

  // Pinned -> caller: chunk r of L, only the elements of the referenced
  // triangle (the diagonal block's other half stays untouched).
  void store(const Rect &r, const T *staged) {
    for_pieces(c_.download_copies, upper_ ? r.m : r.n, [&](lint p0, lint p1) {
      if (!upper_) {
        for (lint jj = p0; jj < p1; ++jj) {
          const lint j = r.c0 + jj, lo = std::max(r.r0, j);
          std::memcpy(host(lo, j), staged + (lo - r.r0) + std::size_t(jj) * r.m, (r.r0 + r.m - lo) * sizeof(T));
        }
        return;
      }
      for (lint i = p0; i < p1; ++i) {  // row i of the chunk = column r.r0+i of A
        const lint row = r.r0 + i;
        T *dst = host(r.c0, row);
        for (lint jj = 0; jj < r.n && r.c0 + jj <= row; ++jj) dst[jj] = conj_(staged[i + std::size_t(jj) * r.m]);
      }
    });
    stored_columns_.store(r.c0 + r.n);
  }

  // Splits 0..count into a few ranges run at once on `pool`.
  template <class F> static void for_pieces(CopyPool &pool, lint count, F &&f) {
    const lint pieces = std::max<lint>(1, std::min<lint>(count, pool.threads() * 2));
    const lint per = (count + pieces - 1) / pieces;
    pool.run(int(pieces), [&](int p) { f(std::min(count, p * per), std::min(count, (p + 1) * per)); });
  }

  static T conj_(T x) {
    if constexpr (is_complex<T>)
      return std::conj(x);
    else
      return x;
  }

  // Device -> pinned slot -> caller, each panel once it is final; DMAs run
  // up to kSlots chunks ahead of the host copies.
  void download() {
    struct Pending {
      Rect r;
      StagingSlot *s;
    };
    std::deque<Pending> pending;
    int slot = 0;
    auto drain_one = [&] {
      Pending p = pending.front();
      pending.pop_front();
      if (check(cudaEventSynchronize(p.s->dma_done))) store(p.r, static_cast<const T *>(p.s->host));
    };
    for (lint k = 0; k < np_; ++k) {
      if (!finalized_.wait_past(k, stop_download_) || gpu_failed_) break;
      if (!check(cudaStreamWaitEvent(c_.download_stream, final_[k], 0))) break;
      for (const Rect &r : chunks(panel_rect(n_, nb_, k), sizeof(T))) {
        if (pending.size() == std::size_t(Context::kSlots)) drain_one();
        StagingSlot &s = c_.download_slots[slot++ % Context::kSlots];
        if (!check(cudaMemcpy2DAsync(s.host, r.m * sizeof(T), dev(r.r0, r.c0), ldda_ * sizeof(T), r.m * sizeof(T),
                                     r.n, cudaMemcpyDeviceToHost, c_.download_stream)) ||
            !check(cudaEventRecord(s.dma_done, c_.download_stream)))
          break;
        pending.push_back({r, &s});
      }
    }
    while (!pending.empty() && !gpu_failed_) drain_one();
  }

  // The left-looking loop. Returns INFO; panels 0..k are published as final
  // (k = the panel where a minor failed, or all of them).
  lint factor() {
    using R = typename Prec<T>::real;
    cublasHandle_t h = c_.blas;
    const cublasOperation_t C = blas::op_c<T>();
    const auto fill = CUBLAS_FILL_MODE_LOWER;
    T *panel = static_cast<T *>(c_.panel.get());
    T *work = panel + std::size_t(nb_) * nb_;
    const T one(1), minus_one(-1);
    lint info = 0;
    for (lint k = 0; k < np_; ++k) {
      const lint k0 = k * nb_, kb = std::min(nb_, n_ - k0), rest = n_ - k0 - kb;
      if (!uploaded_.wait_past(k, gpu_failed_) || !check(cudaStreamWaitEvent(c_.compute_stream, arrived_[k], 0)))
        break;
      T *akk = dev(k0, k0);
      // Diagonal block: A(k,k) -= L(k,0:k) L(k,0:k)**H, then to the CPU.
      if (k0 > 0) {
        if (!check(blas::herk(h, fill, CUBLAS_OP_N, kb, k0, R(-1), dev(k0, 0), ldda_, R(1), akk, ldda_))) break;
      }
      if (!check(cudaEventRecord(diag_ready_, c_.compute_stream)) ||
          !check(cudaStreamWaitEvent(c_.panel_stream, diag_ready_, 0)) ||
          !check(cudaMemcpy2DAsync(panel, kb * sizeof(T), akk, ldda_ * sizeof(T), kb * sizeof(T), kb,
                                   cudaMemcpyDeviceToHost, c_.panel_stream)) ||
          !check(cudaEventRecord(diag_down_, c_.panel_stream)))
        break;
      // Look-ahead: the GPU updates the rest of the panel while the CPU
      // factors the diagonal block.
      if (k0 > 0 && rest > 0) {
        if (!check(blas::gemm(h, CUBLAS_OP_N, C, rest, kb, k0, minus_one, dev(k0 + kb, 0), ldda_, dev(k0, 0), ldda_,
                              one, dev(k0 + kb, k0), ldda_)))
          break;
      }
      if (!check(cudaEventSynchronize(diag_down_))) break;
      const lint local = cpu::potf2(false, kb, panel, kb, work);
      if (!check(cudaMemcpy2DAsync(akk, ldda_ * sizeof(T), panel, kb * sizeof(T), kb * sizeof(T), kb,
                                   cudaMemcpyHostToDevice, c_.panel_stream)) ||
          !check(cudaEventRecord(diag_up_, c_.panel_stream)) ||
          !check(cudaStreamWaitEvent(c_.compute_stream, diag_up_, 0)))
        break;
      if (local != 0) {
        // LAPACK stops at the failing minor: the panel is written back as
        // it stands (factored columns, then the non-positive pivot).
        info = k0 + local;
      } else if (rest > 0) {
        if (!check(blas::trsm(h, CUBLAS_SIDE_RIGHT, fill, C, CUBLAS_DIAG_NON_UNIT, rest, kb, one, akk, ldda_,
                              dev(k0 + kb, k0), ldda_)))
          break;
      }
      if (!check(cudaEventRecord(final_[k], c_.compute_stream))) break;
      finalized_.publish(k + 1);
      if (info != 0) break;
    }
    stop_download_ = true;
    finalized_.wake();
    return info;
  }

  Context &c_;
  const bool upper_;
  const lint n_;
  T *const a_;
  const lint lda_, nb_, np_, ldda_;
  T *dA_ = nullptr;
  std::vector<cudaEvent_t> arrived_, final_;  // per panel: on the device / final
  cudaEvent_t diag_ready_ = nullptr, diag_down_ = nullptr, diag_up_ = nullptr;
  Progress uploaded_, finalized_;
  std::atomic<bool> gpu_failed_{false}, stop_upload_{false}, stop_download_{false};
  std::atomic<lint> stored_columns_{0};  // leading columns of L final in the caller's array
};

}  // namespace

bool available() {
  static const bool present = [] {
    int count = 0;
    const bool found = ok(cudaGetDeviceCount(&count)) && count > 0;
    (void)cudaGetLastError();
    return found;
  }();
  return present && config::device_request() != config::kDeviceNone && context() != nullptr;
}

template <class T> Result potrf(bool upper, lint n, T *a, lint lda) {
  Context *c = context();
  if (!c) return {false, 0, context_error(), 0};
  std::lock_guard<std::mutex> g(c->lock);
  if (!ok(cudaSetDevice(c->device))) return {false, 0, "cudaSetDevice failed", 0};
  const int nb_setting = config::nb();
  const lint nb = nb_setting > 0 ? nb_setting : 512;
  return HybridPotrf<T>(*c, upper, n, a, lda, std::min(nb, n)).run();
}

template Result potrf(bool, lint, float *, lint);
template Result potrf(bool, lint, double *, lint);
template Result potrf(bool, lint, std::complex<float> *, lint);
template Result potrf(bool, lint, std::complex<double> *, lint);

}  // namespace hqr::gpu
