// Hybrid triangular inverse (xTRTRI), triangle times its conjugate transpose
// (xLAUUM) and their composition, the inverse from a Cholesky factor
// (xPOTRI), with the caller's matrix in pageable host memory. After Macindoe
// (UCL, 2013): the CPU works on the diagonal blocks while the GPU runs the
// big products, and the GPU multiplies out of place into workspace (every
// output element independent) instead of running trmm/trsm in place.
//
// The device always holds an upper triangle. For uplo = 'L' the host threads
// that stage the data conjugate-transpose it on the way: inv(L)**H =
// inv(L**H) and L**H*L = U*U**H with U = L**H, so one schedule serves both.
// Device column j is the caller's column j ('U') or row j ('L').
//
// Step k works on block column k, columns j0..j1-1 (nb wide), of the
// device's upper triangle; W is an n-by-nb workspace:
//   inverse (trtri):  W = inv(U11) * U12                   trmm (left)
//                     U22 = inv(U22)                       CPU, copied in
//                     U12 = -W * inv(U22)                  trmm (right)
//   product (lauum):  W = A12 * U22**H                     trmm (right)
//                     W += A13 * A23**H                    gemm
//                     A22 = U22*U22**H + A23 * A23**H      CPU, copied in; herk
//                     A12 = W                              copy
// (1 = rows 0..j0, 2 = block k, 3 = columns j1..n). Both phases run k = 0, 1,
// ...: inverse step k reads device columns 0..j1 and finishes block column
// k; product step k reads rows 0..j1 of columns j0..n and finishes block
// column k. So trtri and potri upload by block columns, lauum by block rows
// (rows j0..j1 of columns j0..n), and every block column goes back to the
// caller as soon as it is final.
//
// The CPU's share of step k depends only on diagonal block k of the input:
// inv(U22) (trtri), U22*U22**H (lauum), or both, the product of inv(U22)
// (potri). So CPU workers compute all of them from the caller's array from
// the start, in parallel with the transfers and the GPU, and upload them to
// device workspace for the steps to copy into place.
//
//   upload thread:    caller -> pinned slot (host copy pool) -> device
//   CPU workers:      diagonal blocks -> pinned -> device workspace
//   calling thread:   queues the steps on the compute stream
//   download thread:  device -> pinned slot -> caller, referenced triangle only
//
// If the GPU fails mid-call, Result::resume counts the leading device
// columns whose final values are in the caller's array; the rest still
// holds the input, so the CPU can finish from there. potri downloads inv(U)
// during its inverse phase, then the product over it: whenever it stops,
// the caller's array holds inv(U) then U, or the result then inv(U), and
// either can be finished (gpu.hpp).
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu/lauu2.hpp"
#include "cpu/trti2.hpp"
#include "cuda/blas.cuh"
#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "host/config.hpp"
#include "host/fault.hpp"

namespace hqr::gpu {
namespace {

using fault::Point;

// Block size when HQR_NB is unset: the CPU inverts and multiplies nb-by-nb
// diagonal blocks (2 nb**3/3 flops each for potri), which must keep ahead of
// the GPU's steps. Provisional until measured on the H200.
constexpr lint kDefaultNb = 256;
// CPU threads for the diagonal blocks (each with its own pinned block pair).
constexpr int kDiagWorkers = 4;

enum class Op { trtri, lauum, potri };
enum Phase { kInverse = 0, kProduct = 1 };  // trtri's steps, lauum's steps

// A rectangle of the device's matrix: rows r0..r0+m-1, columns c0..c0+n-1.
struct Rect {
  lint r0, c0, m, n;
};

// Splits a rectangle into pieces of whole columns that fit one staging slot.
std::vector<Rect> chunks(const Rect &r, std::size_t elem) {
  const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(r.m) * elem)));
  std::vector<Rect> out;
  for (lint j = 0; j < r.n; j += per) out.push_back({r.r0, r.c0 + j, r.m, std::min(per, r.n - j)});
  return out;
}

// Splits 0..count into a few ranges run at once on `pool`.
template <class F> void for_pieces(CopyPool &pool, lint count, F &&f) {
  const lint pieces = std::max<lint>(1, std::min<lint>(count, pool.threads() * 2));
  const lint per = (count + pieces - 1) / pieces;
  pool.run(int(pieces), [&](int p) { f(std::min(count, p * per), std::min(count, (p + 1) * per)); });
}

template <class T> T conj_(T x) {
  if constexpr (is_complex<T>)
    return std::conj(x);
  else
    return x;
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

template <class T> class HybridInverse {
 public:
  HybridInverse(Context &c, Op op, bool upper, bool unit, lint n, T *a, lint lda, lint nb)
      : c_(c), op_(op), upper_(upper), unit_(unit), n_(n), a_(a), lda_(lda), nb_(nb), np_((n + nb - 1) / nb),
        ldda_((n + 31) / 32 * 32) {}

  Result run() {
    const std::size_t sz = sizeof(T), block = std::size_t(nb_) * nb_;
    if (std::size_t(n_) * sz > Context::kSlotBytes) return {false, 0, "matrix column larger than staging", 0};
    const std::size_t diagonals = block * np_;
    if (fault::hit(Point::alloc) || !c_.matrix.reserve(sz * ldda_ * n_) ||
        !c_.workspace.reserve(sz * (std::size_t(ldda_) * nb_ + diagonals * (has(kInverse) + has(kProduct)))) ||
        !c_.panel.reserve(sz * 2 * block * kDiagWorkers))
      return {false, 0, "GPU out of memory", 0};
    dA_ = static_cast<T *>(c_.matrix.get());
    dW_ = static_cast<T *>(c_.workspace.get());
    dInv_ = dW_ + std::size_t(ldda_) * nb_;
    dLau_ = dInv_ + (has(kInverse) ? diagonals : 0);
    diag_done_.assign(np_, 0);
    if (!events(arrived_) || !events(diag_up_) || (has(kInverse) && !events(done_[kInverse])) ||
        (has(kProduct) && !events(done_[kProduct])) || (op_ == Op::potri && !events(saved_)))
      return finish({false, 0, "CUDA event", 0});

    std::vector<std::thread> threads;
    threads.reserve(2 + kDiagWorkers);
    try {
      threads.emplace_back([this] { upload(); });
      threads.emplace_back([this] { download(); });
      for (int w = 0; w < std::min<lint>(kDiagWorkers, np_); ++w)
        threads.emplace_back([this, w] { diagonals_on_cpu(w); });
      compute();
    } catch (...) {  // a thread could not start: nothing may escape to the C caller
      board_.fail();
    }
    for (std::thread &t : threads) t.join();
    for (cudaStream_t s : {c_.compute_stream, c_.panel_stream, c_.upload_stream, c_.download_stream})
      check(Point::sync, cudaStreamSynchronize(s));
    if (board_.failed()) return finish({false, 0, "CUDA error", resume()});
    return finish({true, 0, nullptr, 0});
  }

 private:
  bool has(Phase p) const { return op_ == Op::potri || (p == kInverse) == (op_ == Op::trtri); }

  bool events(std::vector<cudaEvent_t> &v) {
    v.assign(np_, nullptr);
    for (cudaEvent_t &e : v)
      if (!ok(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return false;
    return true;
  }

  Result finish(Result r) {
    for (auto *v : {&arrived_, &diag_up_, &done_[kInverse], &done_[kProduct], &saved_})
      for (cudaEvent_t e : *v)
        if (e) cudaEventDestroy(e);
    if (!r.ran) (void)cudaGetLastError();
    return r;
  }

  // Leading device columns final in the caller's array (gpu.hpp).
  lint resume() const {
    if (op_ == Op::trtri) return stored_[kInverse];
    if (op_ == Op::lauum) return stored_[kProduct];
    return stored_[kInverse] + stored_[kProduct];
  }

  T *dev(lint i, lint j) const { return dA_ + i + std::size_t(j) * ldda_; }
  T *host(lint i, lint j) const { return a_ + i + std::size_t(j) * lda_; }
  // Diagonal block k from the CPU, nb-by-nb slots with leading dimension nb.
  T *inv_block(lint k) const { return dInv_ + std::size_t(k) * nb_ * nb_; }
  T *lau_block(lint k) const { return dLau_ + std::size_t(k) * nb_ * nb_; }
  lint first(lint k) const { return k * nb_; }
  lint width(lint k) const { return std::min(nb_, n_ - k * nb_); }

  // Block column k: rows 0..j1 of columns j0..j1. Block row k: rows j0..j1
  // of columns j0..n.
  Rect block_column(lint k) const { return {0, first(k), first(k) + width(k), width(k)}; }
  Rect block_row(lint k) const { return {first(k), first(k), width(k), n_ - first(k)}; }

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

  // Caller -> pinned slot -> device, step by step: the block columns for
  // trtri and potri, the block rows for lauum.
  void upload() {
    if (!on_device()) return;
    int slot = 0;
    for (lint k = 0; k < np_; ++k) {
      for (const Rect &r : chunks(op_ == Op::lauum ? block_row(k) : block_column(k), sizeof(T))) {
        StagingSlot &s = c_.upload_slots[slot++ % Context::kSlots];
        if (!check(Point::sync, cudaEventSynchronize(s.dma_done))) return;
        stage(r, static_cast<T *>(s.host));
        if (!check(Point::copy, cudaMemcpy2DAsync(dev(r.r0, r.c0), ldda_ * sizeof(T), s.host, r.m * sizeof(T),
                                                  r.m * sizeof(T), r.n, cudaMemcpyHostToDevice, c_.upload_stream)) ||
            !check(Point::sync, cudaEventRecord(s.dma_done, c_.upload_stream)))
          return;
      }
      if (!check(Point::sync, cudaEventRecord(arrived_[k], c_.upload_stream))) return;
      board_.post([&] { uploaded_ = k + 1; });
    }
  }

  // Caller -> pinned: rectangle r of the device's matrix, packed with
  // leading dimension r.m. Whole rectangles move, so the diagonal block's
  // other half carries whatever the caller's other triangle holds; the
  // device never reads it and it never comes back.
  void stage(const Rect &r, T *staged) {
    if (upper_) {
      copy_block(c_.upload_copies, sizeof(T), r.m, r.n, host(r.r0, r.c0), lda_, staged, r.m);
      return;
    }
    for_pieces(c_.upload_copies, r.m, [&](lint i0, lint i1) {
      // Row i of the rectangle is the caller's column r.r0+i, rows
      // r.c0..: read contiguously, scatter conjugated into the row.
      for (lint i = i0; i < i1; ++i) {
        const T *src = host(r.c0, r.r0 + i);
        for (lint jj = 0; jj < r.n; ++jj) staged[i + std::size_t(jj) * r.m] = conj_(src[jj]);
      }
    });
  }

  // ---- download -------------------------------------------------------------

  // Device -> pinned slot -> caller, each block column once final: for
  // potri the inverse phase's, then the product phase's. DMAs run up to
  // kSlots chunks ahead of the host copies.
  void download() {
    if (!on_device()) return;
    struct Pending {
      Phase p;
      Rect r;
      StagingSlot *s;
    };
    std::deque<Pending> pending;
    int slot = 0;
    auto drain_one = [&] {
      const Pending q = pending.front();
      pending.pop_front();
      if (check(Point::sync, cudaEventSynchronize(q.s->dma_done))) store(q.p, q.r, static_cast<const T *>(q.s->host));
    };
    for (Phase p : {kInverse, kProduct}) {
      if (!has(p)) continue;
      for (lint k = 0; k < np_; ++k) {
        if (!board_.wait([&] { return final_[p] > k; }) ||
            !check(Point::sync, cudaStreamWaitEvent(c_.download_stream, done_[p][k], 0)))
          return;
        for (const Rect &r : chunks(block_column(k), sizeof(T))) {
          if (pending.size() == std::size_t(Context::kSlots)) drain_one();
          StagingSlot &s = c_.download_slots[slot++ % Context::kSlots];
          if (!check(Point::copy, cudaMemcpy2DAsync(s.host, r.m * sizeof(T), dev(r.r0, r.c0), ldda_ * sizeof(T),
                                                    r.m * sizeof(T), r.n, cudaMemcpyDeviceToHost,
                                                    c_.download_stream)) ||
              !check(Point::sync, cudaEventRecord(s.dma_done, c_.download_stream)))
            return;
          pending.push_back({p, r, &s});
        }
        // potri: the product phase may overwrite block column k on the
        // device once its inverse is on the way out.
        if (p == kInverse && op_ == Op::potri) {
          if (!check(Point::sync, cudaEventRecord(saved_[k], c_.download_stream))) return;
          board_.post([&] { saved_count_ = k + 1; });
        }
      }
    }
    while (!pending.empty() && !board_.failed()) drain_one();
  }

  // Pinned -> caller: block column chunk r of phase p, only the elements of
  // the referenced triangle (without the diagonal for a unit trtri).
  void store(Phase p, const Rect &r, const T *staged) {
    const lint skip = p == kInverse && unit_ ? 1 : 0;  // device (i,j) is stored when i <= j - skip
    if (upper_) {
      for_pieces(c_.download_copies, r.n, [&](lint j0, lint j1) {
        for (lint jj = j0; jj < j1; ++jj) {
          const lint j = r.c0 + jj, end = std::min(r.r0 + r.m, j + 1 - skip);
          if (end > r.r0) std::memcpy(host(r.r0, j), staged + std::size_t(jj) * r.m, (end - r.r0) * sizeof(T));
        }
      });
    } else {
      for_pieces(c_.download_copies, r.m, [&](lint i0, lint i1) {
        for (lint i = i0; i < i1; ++i) {  // row r.r0+i of the chunk = the caller's column r.r0+i
          const lint row = r.r0 + i;
          T *dst = host(r.c0, row);
          for (lint jj = std::max<lint>(0, row + skip - r.c0); jj < r.n; ++jj)
            dst[jj] = conj_(staged[i + std::size_t(jj) * r.m]);
        }
      });
    }
    stored_[p] = r.c0 + r.n;
  }

  // ---- diagonal blocks on the CPU -------------------------------------------

  // Worker w: diagonal blocks w, w + kDiagWorkers, ... from the caller's
  // array (which nothing writes before the block's step has used them) to
  // the device workspace.
  void diagonals_on_cpu(int w) {
    if (!on_device()) return;
    const std::size_t block = std::size_t(nb_) * nb_;
    T *inv = static_cast<T *>(c_.panel.get()) + 2 * block * w, *lau = inv + block;
    cudaEvent_t uploaded = nullptr;  // the last upload from this worker's blocks
    for (lint k = w; k < np_ && !board_.failed(); k += kDiagWorkers) {
      const lint j0 = first(k), jb = width(k);
      if (uploaded && !check(Point::sync, cudaEventSynchronize(uploaded))) return;
      if (has(kInverse)) {
        load_diagonal(j0, jb, inv);
        cpu::trti2<T>(true, unit_, jb, inv, jb, nullptr);
        if (!check(Point::copy, cudaMemcpy2DAsync(inv_block(k), nb_ * sizeof(T), inv, jb * sizeof(T), jb * sizeof(T),
                                                  jb, cudaMemcpyHostToDevice, c_.panel_stream)))
          return;
      }
      if (has(kProduct)) {
        if (op_ == Op::potri)
          std::memcpy(lau, inv, sizeof(T) * jb * jb);
        else
          load_diagonal(j0, jb, lau);
        cpu::lauu2<T>(true, jb, lau, jb, nullptr);
        if (!check(Point::copy, cudaMemcpy2DAsync(lau_block(k), nb_ * sizeof(T), lau, jb * sizeof(T), jb * sizeof(T),
                                                  jb, cudaMemcpyHostToDevice, c_.panel_stream)))
          return;
      }
      if (!check(Point::sync, cudaEventRecord(diag_up_[k], c_.panel_stream))) return;
      uploaded = diag_up_[k];
      board_.post([&] { diag_done_[k] = 1; });
    }
  }

  // The caller's diagonal block at j0 as the device's upper triangle, into
  // `d` (leading dimension jb); a unit diagonal is not read (ones go in).
  void load_diagonal(lint j0, lint jb, T *d) const {
    for (lint j = 0; j < jb; ++j)
      for (lint i = 0; i <= j; ++i) {
        T &x = d[i + std::size_t(j) * jb];
        if (i == j && unit_)
          x = T(1);
        else
          x = upper_ ? *host(j0 + i, j0 + j) : conj_(*host(j0 + j, j0 + i));
      }
  }

  // ---- the steps ------------------------------------------------------------

  void compute() {
    for (Phase p : {kInverse, kProduct}) {
      if (!has(p)) continue;
      for (lint k = 0; k < np_; ++k)
        if (!(p == kInverse ? inverse_step(k) : product_step(k))) return board_.fail();
    }
  }

  // The compute stream waits for step k's upload.
  bool arrived(lint k) {
    return board_.wait([&] { return uploaded_ > k; }) &&
           check(Point::sync, cudaStreamWaitEvent(c_.compute_stream, arrived_[k], 0));
  }
  // ... for diagonal block k from the CPU.
  bool diagonal_ready(lint k) {
    return board_.wait([&] { return diag_done_[k] != 0; }) &&
           check(Point::sync, cudaStreamWaitEvent(c_.compute_stream, diag_up_[k], 0));
  }
  // ... for potri's inverse of block column k to be on its way out.
  bool saved(lint k) {
    return board_.wait([&] { return saved_count_ > k; }) &&
           check(Point::sync, cudaStreamWaitEvent(c_.compute_stream, saved_[k], 0));
  }
  // Block column k of phase p is final once the stream gets here.
  bool done(Phase p, lint k) {
    if (!check(Point::sync, cudaEventRecord(done_[p][k], c_.compute_stream))) return false;
    board_.post([&] { final_[p] = k + 1; });
    return true;
  }
  bool copy_on_device(T *dst, const T *src, lint ld_src, lint m, lint n) {
    return check(Point::copy, cudaMemcpy2DAsync(dst, ldda_ * sizeof(T), src, ld_src * sizeof(T), m * sizeof(T), n,
                                                cudaMemcpyDeviceToDevice, c_.compute_stream));
  }

  // U12 = -inv(U11) * U12 * inv(U22); U22 = inv(U22).
  bool inverse_step(lint k) {
    const lint j0 = first(k), jb = width(k);
    const auto upper = CUBLAS_FILL_MODE_UPPER;
    const auto diag = unit_ ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    if (!arrived(k)) return false;
    if (j0 > 0 && !check(Point::kernel, blas::trmm(c_.blas, CUBLAS_SIDE_LEFT, upper, CUBLAS_OP_N, diag, j0, jb, T(1),
                                                   dev(0, 0), ldda_, dev(0, j0), ldda_, dW_, ldda_)))
      return false;
    if (!diagonal_ready(k) || !copy_on_device(dev(j0, j0), inv_block(k), nb_, jb, jb)) return false;
    if (j0 > 0 && !check(Point::kernel, blas::trmm(c_.blas, CUBLAS_SIDE_RIGHT, upper, CUBLAS_OP_N, diag, j0, jb,
                                                   T(-1), dev(j0, j0), ldda_, dW_, ldda_, dev(0, j0), ldda_)))
      return false;
    return done(kInverse, k);
  }

  // A12 = A12 * U22**H + A13 * A23**H; A22 = U22*U22**H + A23 * A23**H.
  bool product_step(lint k) {
    using R = typename Prec<T>::real;
    const lint j0 = first(k), jb = width(k), j1 = j0 + jb, rest = n_ - j1;
    const auto upper = CUBLAS_FILL_MODE_UPPER;
    const cublasOperation_t C = blas::op_c<T>();
    if (op_ == Op::lauum && !arrived(k)) return false;
    if (j0 > 0) {
      if (!check(Point::kernel, blas::trmm(c_.blas, CUBLAS_SIDE_RIGHT, upper, C, CUBLAS_DIAG_NON_UNIT, j0, jb, T(1),
                                           dev(j0, j0), ldda_, dev(0, j0), ldda_, dW_, ldda_)))
        return false;
      if (rest > 0 && !check(Point::kernel, blas::gemm(c_.blas, CUBLAS_OP_N, C, j0, jb, rest, T(1), dev(0, j1), ldda_,
                                                       dev(j0, j1), ldda_, T(1), dW_, ldda_)))
        return false;
    }
    // From here on block column k changes.
    if (op_ == Op::potri && !saved(k)) return false;
    if (!diagonal_ready(k) || !copy_on_device(dev(j0, j0), lau_block(k), nb_, jb, jb)) return false;
    if (rest > 0 && !check(Point::kernel, blas::herk(c_.blas, upper, CUBLAS_OP_N, jb, rest, R(1), dev(j0, j1), ldda_,
                                                     R(1), dev(j0, j0), ldda_)))
      return false;
    if (j0 > 0 && !copy_on_device(dev(0, j0), dW_, ldda_, j0, jb)) return false;
    return done(kProduct, k);
  }

  Context &c_;
  const Op op_;
  const bool upper_, unit_;
  const lint n_;
  T *const a_;
  const lint lda_, nb_, np_, ldda_;
  T *dA_ = nullptr, *dW_ = nullptr, *dInv_ = nullptr, *dLau_ = nullptr;

  std::vector<cudaEvent_t> arrived_;   // per step: its upload is on the device
  std::vector<cudaEvent_t> diag_up_;   // per block: its diagonal results are in workspace
  std::vector<cudaEvent_t> done_[2];   // per phase and block column: final on the device
  std::vector<cudaEvent_t> saved_;     // potri, per block column: inverse copied out

  Board board_;  // guards the counters below
  lint uploaded_ = 0, final_[2] = {0, 0}, saved_count_ = 0;
  std::vector<char> diag_done_;
  lint stored_[2] = {0, 0};  // per phase: leading device columns final in the caller's array (download thread)
};

template <class T> Result run(Op op, bool upper, bool unit, lint n, T *a, lint lda) {
  Context *c = context();
  if (!c) return {false, 0, context_error(), 0};
  std::lock_guard<std::mutex> g(c->lock);
  if (!ok(cudaSetDevice(c->device))) return {false, 0, "cudaSetDevice failed", 0};
  const int nb_setting = config::nb();
  const lint nb = nb_setting > 0 ? nb_setting : kDefaultNb;
  return HybridInverse<T>(*c, op, upper, unit, n, a, lda, std::min(nb, n)).run();
}

}  // namespace

template <class T> Result trtri(bool upper, bool unit, lint n, T *a, lint lda) {
  return run(Op::trtri, upper, unit, n, a, lda);
}
template <class T> Result lauum(bool upper, lint n, T *a, lint lda) { return run(Op::lauum, upper, false, n, a, lda); }
template <class T> Result potri(bool upper, lint n, T *a, lint lda) { return run(Op::potri, upper, false, n, a, lda); }

#define HQR_INSTANTIATE(T)                                 \
  template Result trtri(bool, bool, lint, T *, lint);      \
  template Result lauum(bool, lint, T *, lint);            \
  template Result potri(bool, lint, T *, lint);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
