// xTRTRI, xLAUUM and xPOTRI over a device set (every GPU of the node, or
// those HQR_DEVICE names), host memory in and out, in core.
//
// Algorithm: the result by independent blocks of nb lines. With L the
// lower triangle as stored ('L') or U**H ('U'), and T22 = A(i0:n, i0:n)
// the trailing triangle from block i's first line i0:
//   potri  block column i of inv(A)'s lower triangle = L22**-H (L22**-1 E)
//   lauum  block column i of L**H L                  = L22**H L(i0:n, i)
//   trtri  'L': block column i of inv(L)             = L22**-1 E
//          'U': block column i of inv(U)             = U11**-1 E, U11 the
//               leading triangle up to block i's last line
// (E: the identity's columns of block i; every product is one or two
// cuBLAS trsm or trmm over the trailing, or leading, triangle). These are
// LAPACK's own quantities, only computed block by block: inv(A) restricted
// to lines i0.. is the inverse of A22, whose factor is L22, and the same
// for L**H L and inv(L). For 'U' (lauum, potri) the block column of the
// lower view is conjugate-transposed on the device into block row i of the
// upper triangle. The flops are those of xTRTRI plus xLAUUM; nothing waits
// for another block, so the blocks spread over the members with no
// communication beyond the input.
//
// Data: every member holds the whole triangle (an n by n square). Each
// block column of the input is uploaded once, by the member it is assigned
// to, through that member's pinned staging, and sent from there to every
// other member GPU to GPU (NVLink where the topology has it): each byte of
// the caller's triangle crosses the host link once each way.
//
// Blocks are assigned in the order they are stored, each to the member
// with the least work so far (a block's work is the square of its triangle's
// order), and each member computes its blocks in that order into a ring of
// two result buffers, which its download thread drains through its pinned
// staging while the next block computes; the host's stores run on every
// member's copy threads (run_on_set, node.hpp). Stores into the caller's array go
// block by block in one order, pieces of whole lines in order inside a
// block, so that the array always holds `resume` final lines and the input
// elsewhere (gpu.hpp): trtri 'U', lauum and potri leading lines, trtri 'L'
// trailing columns. A block is stored only after its whole input (and so
// every line its result overwrites) has been uploaded.
//
// Measured on 4 H100s (bench/results/inverse-node-NVIDIA-H100-80GB-HBM3-x4-
// 2026-11-28.txt), dpotri L 32768: 0.354 s on 4 GPUs, 0.620 on 2, where
// hqr's one-GPU schedule takes 0.553; 49152: 0.94 against 1.74. The work
// per GPU runs at about half of what its gemms allow: the solves' steps
// are 512 wide, each after the last (a deeper design, several blocks per
// solve, is open).
#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "cuda/blas.cuh"
#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "cuda/handoff.hpp"
#include "cuda/node.hpp"
#include "cuda/qr_kernels.cuh"
#include "host/config.hpp"
#include "host/fault.hpp"

namespace hqr::gpu {
namespace {

// b (rows by w) := the lower trapezoid of x (rows by w), or with `conj_t`
// of x**H (x w by rows): zeros above the diagonal, where the caller's other
// triangle lies.
template <class S>
__global__ void lower_trapezoid(int64_t rows, int64_t w, bool conj_t, const S *x, int64_t ldx, S *b, int64_t ldb) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < rows * w; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % rows, j = e / rows;
    b[i + j * ldb] = i < j ? dev_zero(S()) : conj_t ? cj(x[j + i * ldx]) : x[i + j * ldx];
  }
}

// The diagonal of a Hermitian result is real (LAPACK's xHERK leaves it so;
// the products here leave rounding in its imaginary part).
template <class S> __global__ void real_diagonal(int64_t w, S *y, int64_t ldy) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < w; i += int64_t(gridDim.x) * blockDim.x)
    y[i + i * ldy].y = 0;
}

template <class T> class NodeInverse {
 public:
  NodeInverse(const DeviceSet &set, InverseOp op, bool upper, bool unit, lint n, T *a, lint lda, lint nb)
      : set_(set), P_(set.count), op_(op), upper_(upper), unit_(unit && op == InverseOp::trtri), n_(n), a_(a),
        lda_(lda), nb_(nb), np_((n + nb - 1) / nb), ldd_(round32(n)),
        leading_(op == InverseOp::trtri && upper), rows_out_(upper && op != InverseOp::trtri) {}

  Result run() {
    if (std::size_t(n_) * sizeof(T) > Context::kSlotBytes) return {false, 0, "matrix column larger than staging", 0};
    members_.reset(new Member[P_]);
    plan();
    for (int d = 0; d < P_; ++d)
      if (!setup(d)) return finish({false, 0, failed_ ? "CUDA error" : "GPU out of memory", 0});
    std::vector<std::thread> threads;
    for (int d = 0; d < P_; ++d)
      for (int role = 0; role < 3; ++role)
        threads.emplace_back([this, d, role] {
          if (!check(cudaSetDevice(members_[d].c->device), fault::Point::sync)) return;
          if (role == 0) upload(d);
          if (role == 1) compute(d);
          if (role == 2) download(d);
        });
    for (std::thread &t : threads) t.join();
    for (int d = 0; d < P_; ++d) {
      const Context &c = *members_[d].c;
      cudaSetDevice(c.device);
      for (cudaStream_t s : {c.compute_stream, c.panel_stream, c.upload_stream, c.download_stream})
        check(cudaStreamSynchronize(s), fault::Point::sync);
    }
    if (failed_) return finish({false, 0, "CUDA error", stored_lines_});
    return finish({true, 0, nullptr, 0});
  }

 private:
  static lint round32(lint x) { return (x + 31) / 32 * 32; }
  struct Member {
    Context *c = nullptr;
    T *dA = nullptr;                 // the triangle, n by n, leading dimension ldd_
    T *y[2] = {}, *z[2] = {};        // the ring: a block's result and its scratch
    T *dinv = nullptr;               // inverses of the stored diagonal blocks, nb by nb each
    std::vector<char> inverted;      // per block: its inverse is queued
    std::vector<lint> own;           // blocks in store order
    std::vector<char> waited;        // per block: the compute stream already waits for it
    cudaEvent_t full[2] = {}, free[2] = {};
    Progress computed, drained;      // own blocks whose `full` / `free` is recorded
  };

  // Block i: first line i0, width kb; the lines of the triangle its result
  // depends on and fills: trailing (i0..n-1) or leading (0..i0+kb-1).
  lint i0(lint i) const { return i * nb_; }
  lint kb(lint i) const { return std::min(nb_, n_ - i * nb_); }
  lint span(lint i) const { return leading_ ? i0(i) + kb(i) : n_ - i0(i); }
  // Block i in store order: trtri 'L' stores its trailing columns first.
  lint block_at(lint s) const { return op_ == InverseOp::trtri && !upper_ ? np_ - 1 - s : s; }
  // The input's block column i as uploaded: rows i0..n-1 ('L') or 0..i0+kb-1 ('U').
  lint in_row0(lint i) const { return upper_ ? 0 : i0(i); }
  lint in_rows(lint i) const { return upper_ ? i0(i) + kb(i) : n_ - i0(i); }
  T *host(lint i, lint j) const { return a_ + i + std::size_t(j) * lda_; }
  T *dev(const Member &m, lint i, lint j) const { return m.dA + i + std::size_t(j) * ldd_; }

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
    turn_.wake();
    for (lint i = 0; i < np_ && arrived_; ++i) arrived_[i].wake();
    for (int d = 0; d < P_ && members_; ++d) {
      members_[d].computed.wake();
      members_[d].drained.wake();
    }
  }

  // Each block, in store order, to the member with the least work so far.
  void plan() {
    owner_.assign(np_, 0);
    std::vector<double> work(P_, 0);
    for (lint s = 0; s < np_; ++s) {
      const lint i = block_at(s);
      const int d = int(std::min_element(work.begin(), work.end()) - work.begin());
      owner_[i] = d;
      members_[d].own.push_back(i);
      work[d] += double(span(i)) * span(i) * kb(i);
    }
    arrived_.reset(new Progress[np_]);
    up_.assign(np_, nullptr);
    sent_.assign(np_, nullptr);
  }

  // Per member: the square, the ring, events. The memory check comes first
  // on every member, so that nothing moves unless all of them hold it.
  bool setup(int d) {
    Member &m = members_[d];
    m.c = set_.member[d];
    if (!check(cudaSetDevice(m.c->device), fault::Point::sync)) return false;
    // A ring buffer holds a block column of the lower view (ldd_ by nb) or
    // a block row (round32(nb) by n).
    const std::size_t square = sizeof(T) * std::size_t(ldd_) * n_, block = sizeof(T) * std::size_t(ldd_) * round32(nb_);
    const std::size_t inverses = sizeof(T) * std::size_t(np_) * nb_ * nb_;
    if (const std::size_t cap = config::gpu_memory(); cap && square + 4 * block + inverses > cap) return false;
    if (fault::hit(fault::Point::alloc) || !m.c->matrix.reserve(square) ||
        !m.c->workspace.reserve(4 * block + inverses)) {
      (void)cudaGetLastError();
      return false;
    }
    m.dA = static_cast<T *>(m.c->matrix.get());
    T *w = static_cast<T *>(m.c->workspace.get());
    for (int s = 0; s < 2; ++s) {
      m.y[s] = w + (2 * s) * std::size_t(ldd_) * round32(nb_);
      m.z[s] = w + (2 * s + 1) * std::size_t(ldd_) * round32(nb_);
    }
    m.dinv = w + 4 * std::size_t(ldd_) * round32(nb_);
    m.waited.assign(np_, 0);
    m.inverted.assign(np_, 0);
    for (lint i : m.own)
      if (!ok(cudaEventCreateWithFlags(&up_[i], cudaEventDisableTiming)) ||
          !ok(cudaEventCreateWithFlags(&sent_[i], cudaEventDisableTiming)))
        return false;
    for (cudaEvent_t *e : {&m.full[0], &m.full[1], &m.free[0], &m.free[1]})
      if (!ok(cudaEventCreateWithFlags(e, cudaEventDisableTiming))) return false;
    return true;
  }

  Result finish(Result r) {
    for (int d = 0; d < P_; ++d) {
      const Member &m = members_[d];
      if (!m.c) continue;
      cudaSetDevice(m.c->device);
      for (lint i : m.own)
        for (cudaEvent_t e : {up_[i], sent_[i]})
          if (e) cudaEventDestroy(e);
      for (cudaEvent_t e : {m.full[0], m.full[1], m.free[0], m.free[1]})
        if (e) cudaEventDestroy(e);
      if (!m.own.empty()) r.devices |= std::uint64_t(1) << m.c->device;
    }
    if (!r.ran) (void)cudaGetLastError();
    return r;
  }

  // ---- moving data -----------------------------------------------------------

  // Member d's blocks of the input, in its compute order: caller -> pinned
  // slots -> its square, then from there to every other member's square.
  void upload(int d) {
    Member &m = members_[d];
    int slot = 0;
    for (lint i : m.own) {
      const lint r0 = in_row0(i), r = in_rows(i), c0 = i0(i), w = kb(i);
      const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(r) * sizeof(T))));
      for (lint j = 0; j < w; j += per) {
        if (halt_) return;
        const lint cw = std::min(per, w - j);
        StagingSlot &s = m.c->upload_slots[slot++ % Context::kSlots];
        if (!check(cudaEventSynchronize(s.dma_done), fault::Point::sync)) return;
        copy_block(m.c->upload_copies, sizeof(T), r, cw, host(r0, c0 + j), lda_, s.host, r);
        if (!check(cudaMemcpy2DAsync(dev(m, r0, c0 + j), ldd_ * sizeof(T), s.host, r * sizeof(T), r * sizeof(T), cw,
                                     cudaMemcpyHostToDevice, m.c->upload_stream),
                   fault::Point::copy) ||
            !check(cudaEventRecord(s.dma_done, m.c->upload_stream), fault::Point::copy))
          return;
      }
      // The sends run on the panel stream, so that the next block's upload
      // is not queued behind them.
      cudaStream_t ps = m.c->panel_stream;
      if (!check(cudaEventRecord(up_[i], m.c->upload_stream), fault::Point::copy) ||
          !check(cudaStreamWaitEvent(ps, up_[i], 0), fault::Point::sync))
        return;
      for (int e = 0; e < P_; ++e) {
        if (e == d) continue;
        Member &o = members_[e];
        cudaMemcpy3DPeerParms p = {};
        p.srcPtr = make_cudaPitchedPtr(dev(m, r0, c0), ldd_ * sizeof(T), r * sizeof(T), w);
        p.srcDevice = m.c->device;
        p.dstPtr = make_cudaPitchedPtr(dev(o, r0, c0), ldd_ * sizeof(T), r * sizeof(T), w);
        p.dstDevice = o.c->device;
        p.extent = make_cudaExtent(r * sizeof(T), w, 1);
        if (!check(cudaMemcpy3DPeerAsync(&p, ps), fault::Point::copy)) return;
      }
      if (!check(cudaEventRecord(sent_[i], ps), fault::Point::copy)) return;
      arrived_[i].publish(1);
    }
  }

  // Member d's results, block by block in store order: device -> pinned
  // slots -> caller, when the block's turn comes.
  void download(int d) {
    Member &m = members_[d];
    int slot = 0;
    cudaStream_t st = m.c->download_stream;
    for (std::size_t c = 0; c < m.own.size(); ++c) {
      const lint i = m.own[c];
      const int ring = int(c % 2);
      if (!m.computed.wait_past(lint(c), halt_) || !check(cudaStreamWaitEvent(st, m.full[ring], 0), fault::Point::sync))
        return;
      // Pieces of whole lines: rows of the block row ('U' lauum, potri),
      // else columns, trtri 'L' from its last column.
      const T *out = rows_out_ ? m.z[ring] : m.y[ring];
      const lint ldo = rows_out_ ? round32(kb(i)) : ldd_;
      const lint lines = kb(i), len = span(i);
      const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(len) * sizeof(T))));
      struct Piece {
        lint l0, lw;
        StagingSlot *s;
      };
      std::deque<Piece> pending;
      bool turn = false;
      auto drain_one = [&] {
        const Piece p = pending.front();
        pending.pop_front();
        if (!check(cudaEventSynchronize(p.s->dma_done), fault::Point::sync)) return false;
        if (!turn && !(turn = turn_.wait(store_index(i), failed_))) return false;
        store(i, p.l0, p.lw, static_cast<const T *>(p.s->host));
        return true;
      };
      const bool backward = op_ == InverseOp::trtri && !upper_;
      for (lint k = 0; k < lines; k += per) {
        if (pending.size() == std::size_t(Context::kSlots) && !drain_one()) return;
        const lint lw = std::min(per, lines - k), l0 = backward ? lines - k - lw : k;
        StagingSlot &s = m.c->download_slots[slot++ % Context::kSlots];
        const bool queued =
            rows_out_ ? check(cudaMemcpy2DAsync(s.host, lw * sizeof(T), out + l0, ldo * sizeof(T), lw * sizeof(T),
                                                len, cudaMemcpyDeviceToHost, st),
                              fault::Point::copy)
                      : check(cudaMemcpy2DAsync(s.host, len * sizeof(T), out + std::size_t(l0) * ldo, ldo * sizeof(T),
                                                len * sizeof(T), lw, cudaMemcpyDeviceToHost, st),
                              fault::Point::copy);
        if (!queued || !check(cudaEventRecord(s.dma_done, st), fault::Point::copy)) return;
        pending.push_back({l0, lw, &s});
      }
      if (!check(cudaEventRecord(m.free[ring], st), fault::Point::copy)) return;
      m.drained.publish(lint(c) + 1);
      while (!pending.empty())
        if (!drain_one()) return;
      turn_.done(store_index(i));
    }
  }
  lint store_index(lint i) const { return op_ == InverseOp::trtri && !upper_ ? np_ - 1 - i : i; }

  // Lines l0..l0+lw-1 of block i's result, staged, into the caller's
  // array: only the referenced triangle (without the diagonal for a unit
  // triangle). Staged columns are span(i) long; staged rows ('U' lauum,
  // potri) are lw wide by span(i) columns.
  void store(lint i, lint l0, lint lw, const T *staged) {
    const lint b0 = i0(i), len = span(i), skip = unit_ ? 1 : 0;
    const lint pieces = std::max<lint>(1, std::min<lint>(rows_out_ ? len / 64 + 1 : lw, set_copy_threads(set_)));
    run_on_set(set_, int(pieces), [&](int p) {
      if (rows_out_) {  // rows b0+l0.. of columns b0..n-1: row r from its diagonal on
        const lint per = (len + pieces - 1) / pieces;
        for (lint c = p * per; c < std::min(len, (p + 1) * per); ++c) {
          const lint hi = std::min(lw, c - l0 + 1);  // rows l0+k with k < hi are on or above the diagonal
          if (hi > 0) stream_copy(host(b0 + l0, b0 + c), staged + std::size_t(c) * lw, hi * sizeof(T));
        }
      } else {
        const lint per = (lw + pieces - 1) / pieces;
        for (lint jj = p * per; jj < std::min(lw, (p + 1) * per); ++jj) {
          const lint col = l0 + jj;  // of the block
          const T *src = staged + std::size_t(jj) * len;
          if (leading_)  // trtri 'U': rows 0..b0+col of column b0+col
            stream_copy(host(0, b0 + col), src, (b0 + col + 1 - skip) * sizeof(T));
          else  // rows b0+col.. of column b0+col
            stream_copy(host(b0 + col + skip, b0 + col), src + col + skip, (len - col - skip) * sizeof(T));
        }
      }
      store_fence();
    });
    // Lines final so far, in the order Result::resume counts them.
    if (op_ == InverseOp::trtri && !upper_)
      stored_lines_ = n_ - (b0 + l0);
    else
      stored_lines_ = b0 + l0 + lw;
  }

  // ---- computing -------------------------------------------------------------

  // Every block of the input that block i reads is on member d
  // (stream-ordered on its compute stream): its own uploaded, the others'
  // received (events of their owners' devices).
  bool inputs_here(int d, lint i) {
    Member &m = members_[d];
    const lint first = leading_ ? 0 : i, last = leading_ ? i : np_ - 1;
    for (lint k = first; k <= last; ++k) {
      if (m.waited[k]) continue;
      if (!arrived_[k].wait_past(0, halt_) ||
          !check(cudaStreamWaitEvent(m.c->compute_stream, owner_[k] == d ? up_[k] : sent_[k], 0), fault::Point::sync))
        return false;
      m.waited[k] = 1;
    }
    return true;
  }

  // The inverse of each stored diagonal block k in [k0, k1] not yet
  // inverted, into m.dinv (trsm against I; unit for a unit triangle).
  bool invert_diagonal(Member &m, lint k0, lint k1) {
    const cublasFillMode_t fill = upper_ ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    const cublasDiagType_t diag = unit_ ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    for (lint k = k0; k <= k1; ++k) {
      if (m.inverted[k]) continue;
      T *x = inverse(m, k);
      set_identity<<<grid_for(kb(k) * kb(k)), 256, 0, m.c->compute_stream>>>(kb(k), kb(k), 0, dv(x), nb_);
      if (!launched() || !check(blas::trsm(m.c->blas, CUBLAS_SIDE_LEFT, fill, CUBLAS_OP_N, diag, kb(k), kb(k), T(1),
                                           dev(m, i0(k), i0(k)), ldd_, x, nb_),
                                fault::Point::kernel))
        return false;
      m.inverted[k] = 1;
    }
    return true;
  }
  T *inverse(const Member &m, lint k) const { return m.dinv + std::size_t(k) * nb_ * nb_; }

  // y (w columns, rows from line i0(first) to i0(first) + len) := L**-1 y
  // (`forward`) or L**-H y, L the lower view of the stored triangle on
  // blocks first.. first + count - 1, by blocks: each block of y times its
  // diagonal block's inverse (trmm), then a gemm takes it out of the
  // blocks after it (forward) or before it. Measured against cuBLAS's trsm
  // over the whole triangle: dpotri L 32768 on 4 H100s 0.362 s against
  // 0.387 (bench/results/inverse-node-NVIDIA-H100-80GB-HBM3-x4-2026-11-28.txt).
  bool solve(Member &m, bool forward, lint first, lint count, T *y, lint w) {
    const cublasHandle_t h = m.c->blas;
    const cublasFillMode_t fill = upper_ ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    const cublasDiagType_t diag = unit_ ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    const cublasOperation_t to_l = upper_ ? blas::op_c<T>() : CUBLAS_OP_N;  // op(stored) = L
    const cublasOperation_t to_lh = upper_ ? CUBLAS_OP_N : blas::op_c<T>();  // op(stored) = L**H
    const lint base = i0(first), len = i0(first + count - 1) + kb(first + count - 1) - base;
    auto at = [&](lint r, lint c) { return dev(m, base + r, base + c); };
    for (lint step = 0; step < count; ++step) {
      const lint k = forward ? first + step : first + count - 1 - step, r0 = i0(k) - base, b = kb(k);
      if (!check(blas::trmm(h, CUBLAS_SIDE_LEFT, fill, forward ? to_l : to_lh, diag, b, w, T(1), inverse(m, k), nb_,
                            y + r0, ldd_, y + r0, ldd_),
                 fault::Point::kernel))
        return false;
      // forward: rows after the block -= L(after, k) y_k; else rows before -= L(k, before)**H y_k
      const lint rows = forward ? len - r0 - b : r0;
      if (rows == 0) continue;
      const T *l = forward ? (upper_ ? at(r0, r0 + b) : at(r0 + b, r0)) : (upper_ ? at(0, r0) : at(r0, 0));
      const cublasOperation_t op = forward ? to_l : to_lh;
      if (!check(blas::gemm(h, op, CUBLAS_OP_N, rows, w, b, T(-1), l, ldd_, y + r0, ldd_, T(1),
                            forward ? y + r0 + b : y, ldd_),
                 fault::Point::kernel))
        return false;
    }
    return true;
  }

  // Block i's result into y (columns of the lower view) and, for block
  // rows, its conjugate transpose into z.
  bool compute_block(Member &m, lint i, T *y, T *z) {
    const cudaStream_t s = m.c->compute_stream;
    const cublasHandle_t h = m.c->blas;
    const lint b0 = i0(i), w = kb(i), len = span(i);
    const cublasFillMode_t fill = upper_ ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    if (op_ == InverseOp::lauum) {  // z = L(i0:n, i), y = L22**H z
      lower_trapezoid<<<grid_for(len * w), 256, 0, s>>>(len, w, upper_, dv(dev(m, b0, b0)), ldd_, dv(z), ldd_);
      if (!launched() || !check(blas::trmm(h, CUBLAS_SIDE_LEFT, fill, upper_ ? CUBLAS_OP_N : blas::op_c<T>(),
                                           CUBLAS_DIAG_NON_UNIT, len, w, T(1), dev(m, b0, b0), ldd_, z, ldd_, y, ldd_),
                                fault::Point::kernel))
        return false;
    } else {
      const lint first = leading_ ? 0 : i, count = leading_ ? i + 1 : np_ - i;
      set_identity<<<grid_for(len * w), 256, 0, s>>>(len, w, leading_ ? b0 : 0, dv(y), ldd_);
      if (!launched() || !invert_diagonal(m, first, first + count - 1)) return false;
      if (op_ == InverseOp::trtri) {  // inv(L22) E, or inv(U11) E = L11**-H E with L = U**H
        if (!solve(m, !leading_, first, count, y, w)) return false;
      } else if (!solve(m, true, first, count, y, w) || !solve(m, false, first, count, y, w)) {  // L22**-H L22**-1 E
        return false;
      }
    }
    if constexpr (is_complex<T>) {
      if (op_ != InverseOp::trtri) {
        real_diagonal<<<grid_for(w), 256, 0, s>>>(w, dv(y), ldd_);
        if (!launched()) return false;
      }
    }
    return !rows_out_ || check(blas::geam(h, blas::op_c<T>(), w, len, y, ldd_, z, round32(w)), fault::Point::kernel);
  }

  void compute(int d) {
    Member &m = members_[d];
    const cudaStream_t s = m.c->compute_stream;
    for (std::size_t c = 0; c < m.own.size() && !halt_; ++c) {
      const lint i = m.own[c];
      const int ring = int(c % 2);
      if (!inputs_here(d, i)) return;
      // The ring slot's previous block has left the device.
      if (c >= 2 && (!m.drained.wait_past(lint(c) - 2, halt_) ||
                     !check(cudaStreamWaitEvent(s, m.free[ring], 0), fault::Point::sync)))
        return;
      if (!compute_block(m, i, m.y[ring], m.z[ring]) || !check(cudaEventRecord(m.full[ring], s), fault::Point::kernel))
        return;
      m.computed.publish(lint(c) + 1);
    }
  }

  const DeviceSet &set_;
  const int P_;
  const InverseOp op_;
  const bool upper_, unit_;
  const lint n_;
  T *const a_;
  const lint lda_, nb_, np_, ldd_;
  const bool leading_;   // trtri 'U': block i reads the leading triangle
  const bool rows_out_;  // 'U' lauum and potri: results are block rows
  std::unique_ptr<Member[]> members_;
  std::vector<int> owner_;
  std::unique_ptr<Progress[]> arrived_;  // per block: uploaded and sent everywhere (events recorded)
  std::vector<cudaEvent_t> up_, sent_;    // per block, on its owner: on the owner; on every member
  StoreTurn turn_;
  std::atomic<bool> failed_{false}, halt_{false};
  std::atomic<lint> stored_lines_{0};
};

}  // namespace

template <class T>
Result inverse_node(const DeviceSet &set, InverseOp op, bool upper, bool unit, lint n, T *a, lint lda) {
  SetLock g(set);
  const int nb_setting = config::nb();
  const lint nb = std::min<lint>(n, nb_setting > 0 ? nb_setting : 512);
  Result r = NodeInverse<T>(set, op, upper, unit, n, a, lda, nb).run();
  r.path = node_path(set.count, 1);
  return r;
}

#define HQR_INSTANTIATE(T) \
  template Result inverse_node(const DeviceSet &, InverseOp, bool, bool, lint, T *, lint);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
