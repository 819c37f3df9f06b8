// The GPU side of the QR updates, host memory in and out (src/host/qrupd.cpp
// decides when they run; src/cpu/qrupd.cpp has the CPU kernels):
//
//   delcols  only R's part that changes travels: rows J..min(M,N) of the
//            columns after the gap (with P subdiagonals), and with JOBQ = 'U'
//            Q's columns J..min(M,N). Rows above J only shift: the host moves
//            them. Blocks of nb reflectors of length P+1 are factored by one
//            kernel in shared memory (R, V and the compact-WY T at once) and
//            applied to the band's trailing columns (V^T*C, T^T*., C - V*.)
//            and to Q (Q*V, .*T, Q - .*V^T) by cuBLAS.
//   addrows  (JOBQ = 'N') R's upper trapezoid (min(M,N) rows) and the P new
//            rows travel; the dense QR of [R; U] on the device gives the
//            new R.
//   addcols, delrows, addrows with Q: the part of the factors the update
//            disturbs is one dense QR on the device whose reflectors
//            multiply Q's columns from the right as compact-WY blocks
//            (cuBLAS, block_reflector.cuh); see each function. Q travels
//            in whole and out by rows, except in addrows, where only the
//            columns that change do; in addcols and delrows the products
//            run one group of Q's rows ahead of the group leaving
//            (Update::stream_rows), so the downloads start after the
//            first group's products rather than all of them (H100,
//            bench/results/history/update-NVIDIA-H100-2026-11-25.txt: a few per
//            cent, near the run-to-run spread).
// The dense QRs are the hybrid geqrf's factorization on the device
// (geqrf_device: CholeskyQR2 panels), except in delrows, where cuSOLVER's
// geqrf runs while Q comes in (geqrf_device returns only when done).
//
// Atomic with respect to failures: the caller's arrays are written only
// after every device step and every download into pinned memory has
// succeeded, so a failing GPU (or HQR_FAULT) leaves them exactly as they
// came and the CPU path redoes the update. That needs the output to fit the
// context's pinned staging (Result.why says so when it does not). Q, too
// large for the staging (2 GiB at M = 16384), is the exception: it streams
// into the caller's array by rows once R is staged and the reflectors are
// on the host, and if that fails the CPU applies them to the rows left (a
// row of the new Q depends only on the same row of the old one). delcols'
// host steps are the other: while the device works they zero R below the
// new columns' diagonal (which no update reads) and shift the rows above J,
// and a failing GPU shifts those back before the CPU redoes the update.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cfloat>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuda/blas.cuh"
#include "cuda/block_reflector.cuh"
#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "cuda/qr_device.hpp"
#include "host/config.hpp"
#include "host/fault.hpp"
#include "host/next_lapack.hpp"

namespace hqr::gpu {
namespace {

using idx = std::ptrdiff_t;
using fault::Point;

// ---- kernels -------------------------------------------------------------------

constexpr int kThreads = 512;  // the panel kernel: 16 warps
constexpr int kMaxNb = 32;     // reflectors per block (see panel_qr)
// The panel's working copy lives in shared memory up to this size (beside
// the static T); larger panels (very large P) work in global memory.
constexpr std::size_t kPanelSmem = 160 * 1024;

// Machine constants in device code.
template <class T> struct Lim;
template <> struct Lim<float> {
  static __device__ float safmin() { return FLT_MIN / FLT_EPSILON; }
  static __device__ float huge() { return FLT_MAX; }
  static __device__ float eps() { return FLT_EPSILON; }
};
template <> struct Lim<double> {
  static __device__ double safmin() { return DBL_MIN / DBL_EPSILON; }
  static __device__ double huge() { return DBL_MAX; }
  static __device__ double eps() { return DBL_EPSILON; }
};

// ||x(t0:t1-1)||_2 by one warp (every lane gets it) without overflow or
// harmful underflow; NaN propagates.
template <class T> __device__ T warp_tail_norm(const T *x, idx t0, idx t1) {
  const int lane = threadIdx.x & 31;
  T amax = 0;
  bool nan = false;
  for (idx r = t0 + lane; r < t1; r += 32) {
    const T a = fabs(x[r]);
    nan |= a != a;
    amax = fmax(amax, a);
  }
  if (__any_sync(0xffffffffu, nan)) return T(NAN);
  amax = warp_max(amax);
  if (amax == 0 || isinf(amax)) return amax;
  const T inv = T(1) / amax;
  T ssq = 0;
  for (idx r = t0 + lane; r < t1; r += 32) {
    const T y = x[r] * inv;
    ssq += y * y;
  }
  return amax * sqrt(warp_sum(ssq));
}

// Leading dimension of the panel's working copy in shared memory: even, so
// that lanes walking the diagonal of V (the Gram products: lane k at
// element (i0 + k + r, i0 + k)) are ldw + 1 (odd) doubles apart and hit
// distinct banks.
__host__ __device__ inline int panel_ld(int h) { return (h + 1) & ~1; }

// Householder QR of one block of nr reflectors of delcols' band, in one
// thread block. The panel has h rows (a, lda); reflector i has head row i
// and tail rows i+1 .. min(i+p, h-1): v_i(r) = 1 at r = i, the stored tail
// below, zero elsewhere, so V is the panel's strictly lower part. On exit:
// R (zeros below the diagonal) in a; V, dense with its unit diagonal, in
// v (h-by-nr, ldv); the compact-WY T (upper, tau on the diagonal) in t.
// gw: global scratch (h-by-nr) when the panel is too large for shared memory.
// One block barrier per reflector, with a look-ahead of one: warp 0 applies
// reflector i to column i+1 and forms reflector i+1 from it (a tail of at
// most a few hundred elements needs no more than one warp, and warp-only
// reductions cost no barrier) while the other warps apply reflector i to
// the columns after, 8 lanes a column. T comes at the end: the Gram
// products a lane each, then xLARFT's recurrence on blocks of 16 and their
// merges.
// Measured reasons (H100, kernels alone, 1948 reflectors at P = 100;
// bench/results/history/update-NVIDIA-H100-80GB-HBM3-2026-11-26.txt):
// - 8 lanes a trailing column, Gram products a lane each: 4.3 ms against 8.2 with a warp reduction
// - blocks of 32 reflectors: 4.3 ms against 5.3 in blocks of 64
template <class T>
__global__ void __launch_bounds__(kThreads)
    panel_qr(T *a, idx lda, int h, int nr, int p, T *v, idx ldv, T *t, idx ldt, T *gw) {
  extern __shared__ unsigned char smem_raw[];
  // st: T in the upper triangle (tau on the diagonal); below it, the Gram
  // products G(j, i) = v_j^T v_i (j < i) stored at (i, j).
  __shared__ T st[kMaxNb * kMaxNb];
  __shared__ T sw[kMaxNb * kMaxNb / 4];  // T's merges: W, at most nr^2 / 4 entries
  const int ldw = gw ? h : panel_ld(h);
  T *w = gw ? gw : reinterpret_cast<T *>(smem_raw);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  for (int j = warp; j < nr; j += warps)
    for (int r = lane; r < h; r += 32) w[r + j * ldw] = a[r + j * lda];
  __syncthreads();

  auto tail1 = [&](int i) { return min(i + p + 1, h); };  // the tail is rows i+1 .. tail1(i)-1
  const T safmin = Lim<T>::safmin();
  // A sum of squares at least this large lost nothing that matters to
  // underflow (each square that underflowed is below the smallest normal,
  // at most h eps^2 of it).
  const T trusted = safmin / Lim<T>::eps();
  // Reflector i from column i, by one warp: LAPACK's xLARFG (a tiny beta
  // rescales the column first); tau goes to T's diagonal. |beta| in one
  // pass where the sums of squares are finite and not tiny, else by
  // xNRM2's scaled two passes and xLAPY2.
  auto form = [&](int i) {
    T *wi = w + i * ldw;
    const int t0 = i + 1, t1 = tail1(i);
    T alpha = wi[i], tau = 0, ssq = 0;
    for (int r = t0 + lane; r < t1; r += 32) ssq += wi[r] * wi[r];
    ssq = warp_sum(ssq);
    const T s2 = alpha * alpha + ssq;
    const bool fast = ssq >= trusted && s2 <= Lim<T>::huge();  // false for NaN
    T xnorm = fast ? T(1) : warp_tail_norm(wi, t0, t1);
    if (xnorm != 0) {
      T beta = -copysign(fast ? sqrt(s2) : lapy2(alpha, xnorm), alpha);
      int rescaled = 0;
      while (fabs(beta) < safmin && rescaled < 20) {
        const T rs = T(1) / safmin;
        __syncwarp();
        for (int r = t0 + lane; r < t1; r += 32) wi[r] *= rs;
        __syncwarp();
        alpha *= rs;
        ++rescaled;
        xnorm = warp_tail_norm(wi, t0, t1);
        beta = -copysign(lapy2(alpha, xnorm), alpha);
      }
      tau = (beta - alpha) / beta;
      const T scal = T(1) / (alpha - beta);
      __syncwarp();
      for (int r = t0 + lane; r < t1; r += 32) wi[r] *= scal;
      for (int k = 0; k < rescaled; ++k) beta *= safmin;
      if (lane == 0) wi[i] = beta;
    }
    if (lane == 0) st[i + i * kMaxNb] = tau;
  };
  // H_i from the left on column j by a group of g lanes (g divides 32;
  // gl = lane in group), every lane of the warp in the shuffles; on = the
  // group has a column. Every lane reads the head before lane 0 of its group
  // rewrites it: the shuffles do not order shared-memory accesses
  // (racecheck flags them), a warp barrier does.
  auto apply = [&](int i, int j, bool on, int g, int gl, T tau) {
    const T *wi = w + i * ldw;
    T *wj = w + (on ? j : i) * ldw;
    const int t0 = i + 1, t1 = tail1(i);
    T s = 0;
    if (on)
      for (int r = t0 + gl; r < t1; r += g) s += wi[r] * wj[r];
    for (int o = g / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    const T head = on ? wj[i] : T(0);
    __syncwarp();
    if (!on) return;
    const T sj = tau * (s + head);
    if (gl == 0) wj[i] = head - sj;
    for (int r = t0 + gl; r < t1; r += g) wj[r] -= sj * wi[r];
  };

  // Warp 0 carries the critical path: reflector i on column i+1 (the whole
  // warp), then reflector i+1. The other warps take columns i+2.. in groups
  // of 8 lanes, four columns a warp at once (a tail of about P rows).
  constexpr int kGroup = 8, kPerWarp = 32 / kGroup;
  if (warp == 0 && nr > 0) form(0);
  __syncthreads();
  for (int i = 0; i < nr; ++i) {
    const T tau = st[i + i * kMaxNb];
    if (warp == 0) {
      if (i + 1 < nr) {
        if (tau != 0) apply(i, i + 1, true, 32, lane, tau);
        __syncwarp();
        form(i + 1);
      }
    } else if (tau != 0) {
      const int g = lane / kGroup, gl = lane % kGroup;
      for (int jb = i + 2 + (warp - 1) * kPerWarp; jb < nr; jb += (warps - 1) * kPerWarp)
        apply(i, jb + g, jb + g < nr, kGroup, gl, tau);
    }
    __syncthreads();
  }

  // T as xLARFT. The Gram products G(i, k) = v_k^T v_i (k < i) =
  // v_k(i) + V(i+1:, k)^T V(i+1:, i) (v_i(i) = 1, v_i zero above i, v_k
  // zero below its tail): a warp per k and 32 consecutive i, a lane per
  // product, four partial sums in flight.
  const int chunks = (nr + 31) / 32;
  for (int task = warp; task < nr * chunks; task += warps) {
    const int k = task / chunks, i = (task % chunks) * 32 + lane, r1 = tail1(k);
    if (i <= k || i >= nr) continue;
    const T *wk = w + k * ldw, *wi = w + i * ldw;
    T g[4] = {i < r1 ? wk[i] : T(0), T(0), T(0), T(0)};
    int r = i + 1;
    for (; r + 3 < r1; r += 4)
#pragma unroll
      for (int q = 0; q < 4; ++q) g[q] += wk[r + q] * wi[r + q];
    for (; r < r1; ++r) g[0] += wk[r] * wi[r];
    st[i + k * kMaxNb] = (g[0] + g[1]) + (g[2] + g[3]);
  }
  __syncthreads();
  // Then T by blocks of kLeaf reflectors, xLARFT's recursive form: each
  // diagonal block by the recurrence T(r, i) = -tau_i sum_{k=r}^{i-1}
  // T(r, k) G(i, k) (a thread per row r; rows are independent), then
  // neighbouring blocks A, B merge: T_AB = -T_AA (V_A^T V_B) T_BB, through
  // W = (V_A^T V_B) T_BB in sw. A thread a row, not one warp for the whole
  // recurrence (105k cycles for a block of 64, H100,
  // bench/results/history/update-NVIDIA-H100-80GB-HBM3-2026-11-26.txt).
  constexpr int kLeaf = 16;
  if (int(threadIdx.x) < nr) {
    const int r = threadIdx.x, b1 = min((r / kLeaf + 1) * kLeaf, nr);
    for (int i = r + 1; i < b1; ++i) {
      T sum = 0;
      for (int k = r; k < i; ++k) sum += st[r + k * kMaxNb] * st[i + k * kMaxNb];
      st[r + i * kMaxNb] = -st[i + i * kMaxNb] * sum;
    }
  }
  __syncthreads();
  for (int half = kLeaf; half < nr; half *= 2) {
    // W(k, i) = sum_{l = B0..i} G(l, k) T(l, i), k in A, i in B, at
    // sw[offset of the pair + (k - A0) + (i - B0) * half].
    const int pairs = (nr + 2 * half - 1) / (2 * half);
    for (int e = threadIdx.x; e < pairs * half * half; e += blockDim.x) {
      const int q = e / (half * half), kk = e % half, ii = (e / half) % half;
      const int a0 = q * 2 * half, b0 = a0 + half, k = a0 + kk, i = b0 + ii;
      if (i >= nr) continue;
      T sum = 0;
      for (int l = b0; l <= i; ++l) sum += st[l + k * kMaxNb] * st[l + i * kMaxNb];
      sw[e] = sum;
    }
    __syncthreads();
    // T(r, i) = -sum_{k = r..A1-1} T(r, k) W(k, i), r in A, i in B.
    for (int e = threadIdx.x; e < pairs * half * half; e += blockDim.x) {
      const int q = e / (half * half), rr = e % half, ii = (e / half) % half;
      const int a0 = q * 2 * half, b0 = a0 + half, r = a0 + rr, i = b0 + ii;
      if (i >= nr) continue;
      T sum = 0;
      for (int k = r; k < b0; ++k) sum += st[r + k * kMaxNb] * sw[q * half * half + (k - a0) + ii * half];
      st[r + i * kMaxNb] = -sum;
    }
    __syncthreads();
  }

  for (int j = warp; j < nr; j += warps) {
    for (int r = lane; r < nr; r += 32) t[r + j * ldt] = r <= j ? st[r + j * kMaxNb] : T(0);
    for (int r = lane; r < h; r += 32) {
      const T x = w[r + j * ldw];
      a[r + j * lda] = r <= j ? x : T(0);
      v[r + j * ldv] = r == j ? T(1) : r > j ? x : T(0);
    }
  }
}

// a(i, c) = (r0 + i - j0 == c0 + c - k) over rows x cols: the identity
// block E of addrows' extended Q (rows j0.., columns k..), zeros beside it.
template <class T> __global__ void unit_cross(T *a, idx lda, idx rows, idx cols, idx j0, idx k, idx r0, idx c0) {
  for (idx c = blockIdx.y; c < cols; c += gridDim.y)
    for (idx i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += idx(gridDim.x) * blockDim.x)
      a[i + c * lda] = r0 + i - j0 == c0 + c - k ? T(1) : T(0);
}

// cuSOLVER's geqrf by type (delrows: its QRs run while Q comes in).
cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, float *a, int lda, int *lw) {
  return cusolverDnSgeqrf_bufferSize(h, m, n, a, lda, lw);
}
cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, double *a, int lda, int *lw) {
  return cusolverDnDgeqrf_bufferSize(h, m, n, a, lda, lw);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, float *a, int lda, float *tau, float *w, int lw, int *info) {
  return cusolverDnSgeqrf(h, m, n, a, lda, tau, w, lw, info);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, double *a, int lda, double *tau, double *w, int lw,
                       int *info) {
  return cusolverDnDgeqrf(h, m, n, a, lda, tau, w, lw, info);
}

// ---- moving data ------------------------------------------------------------------

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
    if (config::verbose_level() < 2) return;
    if (drain) cudaStreamSynchronize(c_.compute_stream);
    marks_.push_back({what, std::chrono::duration<double>(Clock::now() - start_).count()});
  }
  void print_marks(const char *routine) const {
    if (marks_.empty()) return;
    std::string line;
    char buf[64];
    for (const auto &m : marks_) {
      std::snprintf(buf, sizeof buf, ", %s %.4f", m.first, m.second);
      line += buf;
    }
    std::fprintf(stderr, "hqr: %s phases (s from start)%s\n", routine, line.c_str());
  }

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
  // Pinned host memory for the reflectors (HostReflectors), carved in order.
  bool reserve_host(std::size_t elems) {
    if (!c_.reflectors.reserve((elems + 256) * sizeof(T))) {
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
    T *base = static_cast<T *>(c_.staging_memory.get());
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

  // Staged output must leave the download slots free for stream_rows
  // (the staged pieces start at the upload slots, which are idle by then).
  static bool fits_beside_slots(std::size_t elems) {
    return elems * sizeof(T) <= std::size_t(Context::kSlots) * Context::kSlotBytes;
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
    const idx per = std::min({nrows, nb > 0 ? idx(nb) : kBlockRows, idx(half / row_bytes)});  // rows a block
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
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_ = Clock::now();
  std::vector<std::pair<const char *, double>> marks_;
  bool failed_ = false;
  const char *why_ = nullptr;
  T *mat_ = nullptr, *work_ = nullptr, *host_ = nullptr;
  std::size_t staged_ = 0;
  int uploads_ = 0;  // pieces uploaded so far (slot rotation)
  std::vector<Out> outs_;
  cudaEvent_t produced_[2] = {};  // stream_rows: the latest two groups' work done
};

// Launches the panel kernel: in shared memory where it fits.
template <class T> bool panel(Update<T> &u, T *a, idx lda, idx h, idx nr, idx p, T *v, idx ldv, T *t, idx ldt, T *gw) {
  static std::once_flag once;
  std::call_once(once, [] {
    cudaFuncSetAttribute(panel_qr<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kPanelSmem));
  });
  const std::size_t bytes = std::size_t(panel_ld(int(h))) * nr * sizeof(T);
  const bool shared = bytes <= kPanelSmem;
  panel_qr<T><<<1, kThreads, shared ? bytes : 0, u.c_.compute_stream>>>(a, lda, int(h), int(nr), int(p), v, ldv, t,
                                                                          ldt, shared ? nullptr : gw);
  return u.launched();
}


// The reflectors of a QR done on the device, copied to the host before any
// result reaches the caller: Q's columns col0..col0+order-1 are multiplied
// by them from the right. Only used when Q's rows could not all come back
// (Update::stream_rows): the CPU then applies them to the rows left. The
// copy (into pinned memory: pageable, it took longer than the QR) is queued
// on the compute stream; it has landed once the download stream, which
// waits for the compute stream, has brought R in (Update::land).
template <class T> struct HostReflectors {
  idx col0 = 0, order = 0, k = 0;
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
    lw = std::max<lint>(1, lint(query));
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

template <class T>
Result qrupd_delcols(bool wantq, lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_;
  const idx nn = n - p, cend = std::min(nn, m - 1), rend = std::min(n, m);
  if (j0 >= cend) return {false, 0, "nothing for the GPU to do", 0};
  Context *ctx = context();
  if (!ctx) return {false, 0, context_error(), 0};
  // The region: new columns j0..nn-1 (old j0+p..n-1), rows j0..rend-1; new
  // column c holds rows up to c+p on entry, up to c on exit.
  const idx hr = rend - j0, wc = nn - j0, nref = cend - j0;
  const idx nb = kMaxNb, ldv = std::min(nb + p, hr), ldd = (hr + 31) / 32 * 32;
  auto rows_in = [&](idx c) { return std::min(c - j0 + p + 1, hr); };   // by new column
  auto rows_out = [&](idx c) { return std::min(c - j0 + 1, hr); };
  const std::vector<Piece> up = pieces(j0, j0 + p, wc, sizeof(T), [&](idx c) { return rows_in(c - p); });
  const std::vector<Piece> down = pieces(j0, j0, wc, sizeof(T), rows_out);
  const std::vector<Piece> qpieces = wantq ? pieces(0, j0, hr, sizeof(T), [&](idx) { return m; }) : std::vector<Piece>{};
  return run_locked<T>(*ctx, [&](Update<T> &u) -> Result {
    if (!u.fits(u.staged_elems(down) + u.staged_elems(qpieces)))
      return {false, 0, "output larger than the GPU path's pinned staging", 0};
    const std::size_t qelems = wantq ? std::size_t(m) * hr : 0;
    if (!u.reserve(std::size_t(ldd) * wc + qelems,
                   std::size_t(ldv) * nb + std::size_t(nb) * nb + std::size_t(nb) * std::max(wc, wantq ? m : 0) +
                       (std::size_t(panel_ld(int(ldv))) * nb * sizeof(T) > kPanelSmem ? std::size_t(ldv) * nb : 0)))
      return {false, 0, u.why(), 0};
    T *dR = u.take_matrix(std::size_t(ldd) * wc), *dQ = wantq ? u.take_matrix(qelems) : nullptr;
    T *dV = u.take_work(std::size_t(ldv) * nb), *dT = u.take_work(std::size_t(nb) * nb);
    T *dY = u.take_work(std::size_t(nb) * std::max(wc, wantq ? m : 0)), *gw = u.take_work(std::size_t(ldv) * nb);
    Context &c = u.c_;
    // The upload leaves garbage below each column's band (R's strictly lower
    // part is never read): zeros there first.
    if (!u.upload(up, r, ldr, dR, ldd, j0, j0 + p) || (wantq && !u.upload(qpieces, q, ldq, dQ, m, 0, j0)) ||
        !u.check(cudaStreamSynchronize(c.upload_stream), Point::sync))
      return {false, 0, u.why(), 0};
    u.mark("uploaded");
    // The host's share runs on its own thread (driving the upload copy
    // threads) while this one queues the device's work, which takes about
    // 3 ms of launches at P = 100: rows below the diagonal of the new
    // columns become zeros
    // (rows no update reads: for an upper trapezoidal R they are zero
    // already, so they are read first), and rows 0..j0-1 of the columns
    // after the gap move left by p (row slices in parallel, each in
    // increasing column order so that a column is read before it is
    // overwritten). If the GPU then fails, the move is undone (the deleted
    // columns' rows stay lost: the CPU does not read them) and the CPU
    // redoes the update from the input. Measured reason: after the device's success
    // the move and the clearing added about 1 and 3 ms to delcols 16384 x 4096, P = 100
    // (H100, HQR_VERBOSE=2, bench/results/history/update-NVIDIA-H100-80GB-HBM3-2026-11-26.txt, item 2).
    const idx slices = std::min<idx>(c.upload_copies.threads(), std::max<idx>(1, j0 / 256));
    auto move_top = [&](bool back) {
      if (j0 > 0)
        c.upload_copies.run(int(slices), [&](int s) {
          const idx r0 = j0 * s / slices;
          const std::size_t bytes = std::size_t(j0 * (s + 1) / slices - r0) * sizeof(T);
          if (!back)
            for (idx col = j0; col < nn; ++col) std::memmove(r + r0 + col * ldr, r + r0 + (col + p) * ldr, bytes);
          else
            for (idx col = nn - 1; col >= j0; --col) std::memmove(r + r0 + (col + p) * ldr, r + r0 + col * ldr, bytes);
        });
    };
    std::thread share([&] {
      u.clear_below_diagonal(r, ldr, j0, nn, m);
      move_top(false);
    });
    // The device's work, then the results' way back, queued.
    auto queue = [&] {
      zero_below<T><<<grid_cols(hr, wc), 256, 0, c.compute_stream>>>(dR, ldd, hr, wc, p);
      if (!u.launched()) return false;
      for (idx k0 = 0; k0 < nref; k0 += nb) {
        const idx nr = std::min(nb, nref - k0), h = std::min(nr + p, hr - k0), nc = wc - k0 - nr;
        T *blk = dR + k0 + k0 * ldd;
        if (!panel(u, blk, ldd, h, nr, p, dV, ldv, dT, nb, gw)) return false;
        // The band's trailing columns <- (I - V T V**H)**H * them; with
        // JOBQ = 'U', Q(:, k0:k0+h-1) <- Q(:, ...) * (I - V T V**H).
        if (!apply_block_reflector(u, true, true, h, nc, nr, dV, ldv, dT, nb, blk + nr * ldd, ldd, dY, nb) ||
            (wantq && !apply_block_reflector(u, false, false, m, h, nr, dV, ldv, dT, nb, dQ + k0 * m, m, dY, m)))
          return false;
      }
      cudaEvent_t done = c.download_slots[0].dma_done;
      return u.check(cudaEventRecord(done, c.compute_stream), Point::kernel) &&
             u.check(cudaStreamWaitEvent(c.download_stream, done, 0), Point::sync) &&
             u.download(down, dR, ldd, j0, j0, r, ldr) && (!wantq || u.download(qpieces, dQ, m, 0, j0, q, ldq));
    };
    const bool queued = queue();
    u.mark("queued");
    share.join();
    u.mark("host's share done");
    if (!queued || !u.land()) {
      move_top(true);
      return {false, 0, u.why(), 0};
    }
    u.mark("downloaded");
    u.finish();
    u.mark("landed");
    u.print_marks("qrupd_delcols");
    return {true, 0, nullptr, 0};
  });
}

// addrows without Q on the device: the dense QR of Z = [R(0:k, :); U]
// ((k+P)-by-N, k = min(M,N)) gives the new R, for M < N too (its rows
// M..M+P-1 are Z's rows k..). Z's QR is the hybrid geqrf's on the device
// (geqrf_device: CholeskyQR2 panels), which ran faster than reflectors that
// touch only one row of R and the P new rows each ([R; U] as LAPACK's
// xTPQRT, 4096 of them in 28 ms at P = 512, N = 4096 on the H200: one
// barrier a reflector in a single thread block;
// bench/results/history/update-NVIDIA-H200-2026-11-25.txt).
// R's upper part and U come in, the new R's upper part goes back staged.
template <class T>
Result qrupd_addrows(lint m_, lint n_, lint p_, T *r, lint ldr_, T *uh, lint ldu_) {
  const idx m = m_, n = n_, p = p_, ldr = ldr_, ldu = ldu_;
  const idx k = std::min(m, n), kp = k + p, kz = std::min(kp, n), ldz = (kp + 31) / 32 * 32;
  Context *ctx = context();
  if (!ctx) return {false, 0, context_error(), 0};
  const std::vector<Piece> rin = pieces(0, 0, n, sizeof(T), [&](idx c) { return std::min(c + 1, k); });
  const std::vector<Piece> uin = pieces(0, 0, n, sizeof(T), [&](idx) { return p; });
  const std::vector<Piece> rout = pieces(0, 0, n, sizeof(T), [&](idx c) { return std::min(c + 1, kp); });
  return run_locked<T>(*ctx, [&](Update<T> &u) -> Result {
    if (!u.fits(u.staged_elems(rout))) return {false, 0, "output larger than the GPU path's pinned staging", 0};
    Context &c = u.c_;
    if (!u.reserve(std::size_t(ldz) * n, std::size_t(kz) + 64)) return {false, 0, u.why(), 0};
    T *dZ = u.take_matrix(std::size_t(ldz) * n), *dtau = u.take_work(std::size_t(kz) + 1);
    if ((k > 0 && !u.upload(rin, r, ldr, dZ, ldz, 0, 0)) || !u.upload(uin, uh, ldu, dZ, ldz, -k, 0) ||
        !u.check(cudaStreamSynchronize(c.upload_stream), Point::sync))
      return {false, 0, u.why(), 0};
    u.mark("uploaded");
    if (k > 0) {  // R's lower part was not uploaded (not referenced): zeros
      zero_below<T><<<grid_cols(k, n), 256, 0, c.compute_stream>>>(dZ, ldz, k, n, 0);
      if (!u.launched()) return {false, 0, u.why(), 0};
    }
    // Below the new R's diagonal, down to row m+p-1, the caller's R holds
    // what neither path reads (R's strictly lower part, then rows that were
    // not R's): the host clears it while the device factors (0.5 GB at M =
    // 16384, N = 4096, P = 512), so that the staged R goes back with
    // nothing left to clear after it (after it, 1.5-2 ms of the 25: H100,
    // bench/results/update-NVIDIA-H100-80GB-HBM3-2026-11-26b.txt, item 2). Zeros are
    // right there whatever comes next: the CPU path, should the device fail, writes the same zeros.
    typename Update<T>::Clearing clearing(u, r, ldr, 0, n, m + p);
    const bool factored = factor(u, kp, n, dZ, ldz, dtau);
    clearing.wait();
    if (!factored) return {false, 0, u.why(), 0};
    zero_below<T><<<grid_cols(kp, n), 256, 0, c.compute_stream>>>(dZ, ldz, kp, n, 0);
    u.mark("factored");
    cudaEvent_t done = c.download_slots[0].dma_done;
    if (!u.launched() || !u.check(cudaEventRecord(done, c.compute_stream), Point::kernel) ||
        !u.check(cudaStreamWaitEvent(c.download_stream, done, 0), Point::sync) ||
        !u.download(rout, dZ, ldz, 0, 0, r, ldr) || !u.land())
      return {false, 0, u.why(), 0};
    u.mark("downloaded");
    u.finish();
    u.mark("landed");
    u.print_marks("qrupd_addrows");
    return {true, 0, nullptr, 0};
  });
}

// addcols (full Q) on the device:
//   W = Q^T*U (gemm); the rows of W below N factored (a dense QR) and Q's
//   columns N..M-1 multiplied by those reflectors (RightBlocks); then the band, rows
//   J..min(M,N+P)-1 of [W R(:,J:N)] (old R's columns after the insertion,
//   already upper triangular there but P columns to the right), factored by a
//   dense QR and Q's columns J..min(M,N+P)-1 multiplied by its reflectors.
// The band's QR costs more operations than bottom-up Givens passes (about
// H^2*(N+P-J) for a band of H rows against P*H*(N+P-J)) but runs as one
// dense QR and blocked reflector products at level-3 rates; the whole of Q moving both
// ways dominates the time at the sizes where the GPU is chosen.
// What moves: Q (all of it in, for Q^T*U; its columns from J out), U in, R's
// columns from J (their upper part) both ways. R comes back staged (atomic);
// Q's rows then stream out, and if that fails the CPU finishes the rows left
// with the reflectors (fetched first), so the caller still gets the update.
template <class T>
Result qrupd_addcols(lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *uh, lint ldu_) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_, ldu = ldu_;
  const idx na = std::max<idx>(0, m - n), pa = std::min(p, na);  // rows below N; reflectors there
  const idx rb = std::min(m, n + p);                               // rows of the new R that can be nonzero
  const idx hb = std::max<idx>(0, rb - j0), cb = n + p - j0;       // the band: rows j0..rb-1, columns j0..n+p-1
  const idx kb = hb > 1 ? std::min(hb, cb) : 0;                    // its reflectors
  const idx qc0 = std::min(j0, m);                                 // Q's columns qc0..m-1 change
  const idx ldd = (rb + 31) / 32 * 32;
  Context *ctx = context();
  if (!ctx) return {false, 0, context_error(), 0};
  if (std::max(m, n + p) > idx(INT32_MAX / 2)) return {false, 0, "too large for cuSOLVER's 32-bit sizes", 0};
  // dR holds the new columns j0..n+p-1, rows 0..rb-1: W's first p, then the
  // old columns j0..n-1 (their rows up to the diagonal).
  const std::vector<Piece> rin = pieces(0, j0, n - j0, sizeof(T), [&](idx oc) { return std::min(oc + 1, rb); });
  const std::vector<Piece> qin = pieces(0, 0, m, sizeof(T), [&](idx) { return m; });
  const std::vector<Piece> uin = pieces(0, 0, p, sizeof(T), [&](idx) { return m; });
  const std::vector<Piece> rout = pieces(0, j0, cb, sizeof(T), [&](idx c) { return std::min(c + 1, rb); });
  return run_locked<T>(*ctx, [&](Update<T> &u) -> Result {
    if (!u.fits_beside_slots(u.staged_elems(rout))) return {false, 0, "R larger than the GPU path's pinned staging", 0};
    Context &c = u.c_;
    using RB = RightBlocks<T>;
    const std::size_t mm = std::size_t(m) * m, mp = std::size_t(m) * p, rr = std::size_t(ldd) * cb;
    const std::size_t vb = RB::elems(na, pa), vh = RB::elems(hb, kb), ss = RB::scratch(m);
    if (!u.reserve(mm + 2 * mp + rr, vb + vh + ss + std::size_t(p) + std::size_t(kb) + 192) ||
        !u.reserve_host(HostReflectors<T>::elems(na, pa) + HostReflectors<T>::elems(hb, kb)))
      return {false, 0, u.why(), 0};
    T *dQ = u.take_matrix(mm), *dU = u.take_matrix(mp), *dW = u.take_matrix(mp), *dR = u.take_matrix(rr);
    T *dtau1 = u.take_work(std::size_t(p) + 1), *dtaub = u.take_work(std::size_t(kb) + 1);
    T *dVb = u.take_work(vb), *dVh = u.take_work(vh), *dS = u.take_work(ss);
    if (!u.upload(qin, q, ldq, dQ, m, 0, 0) || !u.upload(uin, uh, ldu, dU, m, 0, 0) ||
        (n > j0 && !u.upload(rin, r, ldr, dR, ldd, 0, j0 - p)) ||
        !u.check(cudaStreamSynchronize(c.upload_stream), Point::sync))
      return {false, 0, u.why(), 0};
    u.mark("uploaded");
    typename Update<T>::Clearing clearing(u, r, ldr, j0, n + p, m);
    const T one(1), zero(0);
    if (n > j0) {  // old R's lower part was not uploaded (not referenced): zeros
      zero_below<T><<<grid_cols(rb, n - j0), 256, 0, c.compute_stream>>>(dR + p * ldd, ldd, rb, n - j0, j0);
      if (!u.launched()) return {false, 0, u.why(), 0};
    }
    if (!u.check(blas::gemm(c.blas, blas::op_c<T>(), CUBLAS_OP_N, m, p, m, one, dQ, m, dU, m, zero, dW, m),
                 Point::kernel))
      return {false, 0, u.why(), 0};
    // Q's columns are multiplied by the reflectors (below's, then band's)
    // row group by row group as they leave (stream_rows).
    HostReflectors<T> below, band;
    RB dbelow, dband;
    if (pa > 0) {  // W's rows below N: [R_w; 0]; Q(:, n:m) will take H
      below.col0 = n;
      below.order = na;
      below.k = pa;
      if (!factor(u, na, p, dW + n, m, dtau1) || !dbelow.form(u, na, pa, dW + n, m, dtau1, dVb, dS) ||
          !below.fetch(u, dW + n, m, dtau1))
        return {false, 0, u.why(), 0};
    }
    // W's rows 0..rb-1 become the new columns j0..j0+p-1 (zeros below R_w).
    if (!u.check(cudaMemcpy2DAsync(dR, ldd * sizeof(T), dW, m * sizeof(T), rb * sizeof(T), p,
                                   cudaMemcpyDeviceToDevice, c.compute_stream),
                 Point::copy))
      return {false, 0, u.why(), 0};
    zero_below<T><<<grid_cols(rb, p), 256, 0, c.compute_stream>>>(dR, ldd, rb, p, n);
    if (!u.launched()) return {false, 0, u.why(), 0};
    if (kb > 0) {  // the band's QR; Q(:, j0:rb) will take H
      band.col0 = j0;
      band.order = hb;
      band.k = kb;
      if (!factor(u, hb, cb, dR + j0, ldd, dtaub) || !dband.form(u, hb, kb, dR + j0, ldd, dtaub, dVh, dS) ||
          !band.fetch(u, dR + j0, ldd, dtaub))
        return {false, 0, u.why(), 0};
      zero_below<T><<<grid_cols(hb, cb), 256, 0, c.compute_stream>>>(dR + j0, ldd, hb, cb, 0);
      if (!u.launched()) return {false, 0, u.why(), 0};
    }
    cudaEvent_t done = c.download_slots[0].dma_done;
    if (!u.check(cudaEventRecord(done, c.compute_stream), Point::kernel) ||
        !u.check(cudaStreamWaitEvent(c.download_stream, done, 0), Point::sync) ||
        !u.download(rout, dR, ldd, 0, j0, r, ldr) || !u.land())
      return {false, 0, u.why(), 0};
    u.mark("factored");
    // R is staged: from here on the update completes. Q's rows are
    // multiplied and stream out; the rows that do not come back get the
    // reflectors on the CPU.
    const idx rows_done = u.stream_rows(dQ + qc0 * m, m, q + qc0 * ldq, ldq, m, m - qc0, false, [&](idx r0, idx r1) {
      return dbelow.apply(u, r1 - r0, dQ + r0 + n * m, m, dS) && dband.apply(u, r1 - r0, dQ + r0 + j0 * m, m, dS);
    });
    u.mark("Q streamed");
    const char *why = nullptr;
    if (rows_done < m) {
      below.apply(q + rows_done, ldq, m - rows_done);
      band.apply(q + rows_done, ldq, m - rows_done);
      why = "CUDA error: Q's last rows updated on the CPU";
    }
    clearing.wait();
    u.mark("cleared");
    u.finish();
    u.mark("landed");
    u.print_marks("qrupd_addcols");
    return {true, 0, why, lint(rows_done)};
  });
}

// delrows on the device. Q's rows j0..j0+p-1 (Q_d) must become [D 0]
// (D diagonal, +-1) under an orthogonal G from the right, with G^T*R upper
// triangular from row p on. Q's columns N..M-1 meet only R's zero rows: an
// LQ of Q_d(:, N:M) (a QR of its transpose) clears them. What is left,
// G on columns 0..K-1 (K = min(M, N+P)), comes from one dense QR of
//   Z = [Q_d(:, 0:K)^T  R(0:K, :)]      (K-by-(P+N)):
// G^T*Z upper trapezoidal makes Q_d*G = [S^T 0] and G^T*R's rows from p on
// upper trapezoidal: they are the new R. Q's new factor is (Q*G) without
// the deleted rows and its first p columns. All of Q moves both ways, R's
// upper part both ways; R staged, Q streamed by rows as for addcols.
// Q_d and R come first: G is found while the rest of Q comes in.
template <class T> Result qrupd_delrows(lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_;
  const idx na = std::max<idx>(0, m - n), pa = std::min(p, na);
  const idx kz = std::min(m, n + p), cz = p + n;  // Z's rows and columns; kz <= cz: kz reflectors
  const idx mo = m - p;                           // order of the new Q
  const idx ldz = (kz + 31) / 32 * 32;
  if (mo <= 0) return {false, 0, "nothing for the GPU to do", 0};
  Context *ctx = context();
  if (!ctx) return {false, 0, context_error(), 0};
  if (std::max(m, n + p) > idx(INT32_MAX / 2)) return {false, 0, "too large for cuSOLVER's 32-bit sizes", 0};
  const std::vector<Piece> qin = pieces(0, 0, m, sizeof(T), [&](idx) { return m; });
  const std::vector<Piece> qdin = pieces(j0, 0, m, sizeof(T), [&](idx) { return p; });
  const std::vector<Piece> rin = pieces(0, 0, n, sizeof(T), [&](idx c) { return std::min(c + 1, kz); });
  const std::vector<Piece> rout = pieces(0, 0, n, sizeof(T), [&](idx c) { return std::min(c + 1, kz - p); });
  return run_locked<T>(*ctx, [&](Update<T> &u) -> Result {
    if (!u.fits_beside_slots(u.staged_elems(rout))) return {false, 0, "R larger than the GPU path's pinned staging", 0};
    Context &c = u.c_;
    int lw1 = 0, lw3 = 0;
    T *none = nullptr;
    if ((pa > 0 && !u.check(geqrf_size(c.solver, int(na), int(p), none, int(na), &lw1), Point::kernel)) ||
        !u.check(geqrf_size(c.solver, int(kz), int(cz), none, int(ldz), &lw3), Point::kernel))
      return {false, 0, u.why(), 0};
    using RB = RightBlocks<T>;
    const std::size_t lw = std::size_t(std::max({lw1, lw3, 1}));
    const std::size_t mm = std::size_t(m) * m, zz = std::size_t(ldz) * cz, xx = std::size_t(na) * p;
    const std::size_t dd = std::size_t(p) * m, vb = RB::elems(na, pa), vz = RB::elems(kz, kz), ss = RB::scratch(m);
    if (!u.reserve(mm + zz, dd + xx + lw + vb + vz + ss + std::size_t(p) + std::size_t(kz) + 320) ||
        !u.reserve_host(HostReflectors<T>::elems(na, pa) + HostReflectors<T>::elems(kz, kz)))
      return {false, 0, u.why(), 0};
    T *dQ = u.take_matrix(mm), *dZ = u.take_matrix(zz);
    T *dQd = u.take_work(dd), *dX = u.take_work(xx + 1), *dwork = u.take_work(lw);
    T *dtau1 = u.take_work(std::size_t(p) + 1), *dtauz = u.take_work(std::size_t(kz) + 1);
    T *dVb = u.take_work(vb), *dVz = u.take_work(vz), *dS = u.take_work(ss);
    int *dinfo = reinterpret_cast<int *>(u.take_work(1));
    // G depends on Q only through the deleted rows Q_d: they come first (with
    // R), and the device finds G while the rest of Q comes in.
    if (!u.upload(qdin, q, ldq, dQd, p, j0, 0) || (n > 0 && !u.upload(rin, r, ldr, dZ, ldz, 0, -p)) ||
        !u.check(cudaStreamSynchronize(c.upload_stream), Point::sync))
      return {false, 0, u.why(), 0};
    if (n > 0) {  // R's lower part was not uploaded (not referenced): zeros
      zero_below<T><<<grid_cols(kz, n), 256, 0, c.compute_stream>>>(dZ + p * ldz, ldz, kz, n, 0);
      if (!u.launched()) return {false, 0, u.why(), 0};
    }
    // Q's rows are multiplied by G (below's reflectors, then band's) row
    // group by row group as they leave (stream_rows).
    HostReflectors<T> below, band;
    RB dbelow, dband;
    if (pa > 0) {  // X = Q_d(:, n:m)^T = H*[S; 0];  Q_d(:, n:m) <- Q_d(:, n:m) * H
      below.col0 = n;
      below.order = na;
      below.k = pa;
      if (!u.check(blas::geam(c.blas, blas::op_c<T>(), na, p, dQd + n * p, p, dX, na), Point::kernel) ||
          !u.check(geqrf(c.solver, int(na), int(p), dX, int(na), dtau1, dwork, int(lw), dinfo), Point::kernel) ||
          !dbelow.form(u, na, pa, dX, na, dtau1, dVb, dS) || !dbelow.apply(u, p, dQd + n * p, p, dS))
        return {false, 0, u.why(), 0};
    }
    band.col0 = 0;
    band.order = kz;
    band.k = kz;
    cudaEvent_t arrived = c.download_slots[1].dma_done;
    if (!u.check(blas::geam(c.blas, blas::op_c<T>(), kz, p, dQd, p, dZ, ldz), Point::kernel) ||
        !u.check(geqrf(c.solver, int(kz), int(cz), dZ, int(ldz), dtauz, dwork, int(lw), dinfo), Point::kernel) ||
        !dband.form(u, kz, kz, dZ, ldz, dtauz, dVz, dS) || !u.upload(qin, q, ldq, dQ, m, 0, 0) ||
        !u.check(cudaEventRecord(arrived, c.upload_stream), Point::copy) ||
        !u.check(cudaStreamWaitEvent(c.compute_stream, arrived, 0), Point::sync))
      return {false, 0, u.why(), 0};
    u.mark("uploaded");
    typename Update<T>::Clearing clearing(u, r, ldr, 0, n, mo);
    if ((pa > 0 && !below.fetch(u, dX, na, dtau1)) || !band.fetch(u, dZ, ldz, dtauz)) return {false, 0, u.why(), 0};
    zero_below<T><<<grid_cols(kz, cz), 256, 0, c.compute_stream>>>(dZ, ldz, kz, cz, 0);
    if (!u.launched()) return {false, 0, u.why(), 0};
    cudaEvent_t done = c.download_slots[0].dma_done;
    T *dRn = dZ + p + p * ldz;  // the new R: Z's rows p.., columns p..
    if (!u.check(cudaEventRecord(done, c.compute_stream), Point::kernel) ||
        !u.check(cudaStreamWaitEvent(c.download_stream, done, 0), Point::sync) ||
        (n > 0 && !u.download(rout, dRn, ldz, 0, 0, r, ldr)) || !u.land())
      return {false, 0, u.why(), 0};
    u.mark("factored");
    // R is staged. The new Q: rows 0..j0-1 and j0+p..m-1 of Q*G, columns
    // p..m-1, into the caller's rows 0..mo-1, columns 0..mo-1, in increasing
    // row order: each caller row written is one whose old contents are no
    // longer needed (the same row, a deleted one, or one already done).
    auto times_g = [&](idx r0) {  // rows r0.. of Q (those from r0 on of a stream_rows call) times G
      return [&, r0](idx a, idx b) {
        return dbelow.apply(u, b - a, dQ + r0 + a + n * m, m, dS) && dband.apply(u, b - a, dQ + r0 + a, m, dS);
      };
    };
    const idx done1 = u.stream_rows(dQ + p * m, m, q, ldq, j0, mo, false, times_g(0));
    const idx done2 =
        done1 == j0 ? u.stream_rows(dQ + j0 + p + p * m, m, q + j0, ldq, mo - j0, mo, false, times_g(j0 + p)) : 0;
    u.mark("Q streamed");
    const char *why = nullptr;
    if (done1 < j0 || done2 < mo - j0) {
      // The CPU finishes: the old rows left times G, moved into place
      // (columns left by p; rows after the gap up by p), increasing
      // addresses so that nothing is overwritten before it is read.
      auto finish_rows = [&](idx from, idx rows, idx shift) {
        if (rows <= 0) return;
        T *old = q + from + shift;
        below.apply(old, ldq, rows);
        band.apply(old, ldq, rows);
        for (idx col = 0; col < mo; ++col)
          std::memmove(q + from + col * ldq, old + (col + p) * ldq, std::size_t(rows) * sizeof(T));
      };
      finish_rows(done1, j0 - done1, 0);
      finish_rows(j0 + done2, mo - j0 - done2, p);
      why = "CUDA error: Q's last rows updated on the CPU";
    }
    clearing.wait();
    u.mark("cleared");
    u.finish();
    u.mark("landed");
    u.print_marks("qrupd_delrows");
    return {true, 0, why, lint(done1 + done2)};
  });
}

// Q's columns k..m-1 of addrows only move: to k+p..mp-1, with zero rows
// at j0..j0+p-1 (forward), or back (undo, when the device fails after the
// move). Column c+p is column c's destination and column c+2p's source, so
// the columns congruent mod p form chains that are independent of each
// other: each chain runs from its last column (forward) or its first
// (back), and min(p, threads) of them at once. Destinations are written
// with non-temporal stores: nothing reads them soon.
template <class T> void move_columns(CopyPool &pool, T *q, idx ldq, idx m, idx k, idx p, idx j0, bool forward) {
  if (m <= k || p <= 0) return;
  const idx len = (m - k + p - 1) / p;  // columns in the longest chain
  const idx parts = std::min<idx>(p, pool.threads());
  pool.run(int(parts), [&](int t) {
    for (idx chain = t; chain < p; chain += parts)
      for (idx i = 0; i < len; ++i) {
        const idx c = k + chain + (forward ? len - 1 - i : i) * p;
        if (c >= m) continue;
        T *lo = q + c * ldq, *hi = q + (c + p) * ldq;
        if (forward) {
          stream_copy(hi, lo, std::size_t(j0) * sizeof(T));
          std::fill(hi + j0, hi + j0 + p, T(0));
          stream_copy(hi + j0 + p, lo + j0, std::size_t(m - j0) * sizeof(T));
        } else {
          stream_copy(lo, hi, std::size_t(j0) * sizeof(T));
          stream_copy(lo + j0, hi + j0 + p, std::size_t(m - j0) * sizeof(T));
        }
      }
    store_fence();
  });
}

// addrows with Q (JOBQ = 'U') on the device. With the (M+P)-square
//   Qe = [Q(:, 0:k) E Q(:, k:M)]   (k = min(M,N); rows reordered so that
// the new rows J..J+P-1 are E's identity rows and zero elsewhere), the new
// matrix is Qe * [R(0:k, :); U; 0]: a dense QR of Z = [R(0:k, :); U]
// ((k+P)-by-N) gives the new R, and Qe's first k+P columns times Z's
// reflectors the new Q's. Q's other columns only move, which the host does
// in place while the device computes (undone if the device fails). Q's
// first k columns and U and R's upper part come in; R goes back staged,
// then the k+P columns' rows stream out from the last: a new row overwrites
// an old one whose own new row (P further down) is written already.
template <class T>
Result qrupd_addrows_q(lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *uh, lint ldu_) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_, ldu = ldu_;
  const idx k = std::min(m, n), kp = k + p, kz = std::min(kp, n), mp = m + p;
  const idx ldz = (kp + 31) / 32 * 32;
  if (n == 0 || m == 0) return {false, 0, "nothing for the GPU to do", 0};
  Context *ctx = context();
  if (!ctx) return {false, 0, context_error(), 0};
  if (std::max(mp, n) > idx(INT32_MAX / 2)) return {false, 0, "too large for cuSOLVER's 32-bit sizes", 0};
  auto all = [](idx rows) { return [rows](idx) { return rows; }; };
  // Q's first k columns, rows above and below J.
  const std::vector<Piece> q_t = pieces(0, 0, k, sizeof(T), all(j0)), q_b = pieces(j0, 0, k, sizeof(T), all(m - j0));
  const std::vector<Piece> rin = pieces(0, 0, n, sizeof(T), [&](idx c) { return std::min(c + 1, k); });
  const std::vector<Piece> uin = pieces(0, 0, n, sizeof(T), all(p));
  const std::vector<Piece> rout = pieces(0, 0, n, sizeof(T), [&](idx c) { return std::min(c + 1, kp); });
  return run_locked<T>(*ctx, [&](Update<T> &u) -> Result {
    if (!u.fits_beside_slots(u.staged_elems(rout))) return {false, 0, "R larger than the GPU path's pinned staging", 0};
    Context &c = u.c_;
    using RB = RightBlocks<T>;
    const std::size_t qq = std::size_t(mp) * kp, zz = std::size_t(ldz) * n, vz = RB::elems(kp, kz), ss = RB::scratch(mp);
    if (!u.reserve(qq + zz, vz + ss + std::size_t(kz) + 192) || !u.reserve_host(HostReflectors<T>::elems(kp, kz)))
      return {false, 0, u.why(), 0};
    T *dQ = u.take_matrix(qq), *dZ = u.take_matrix(zz);
    T *dtau = u.take_work(std::size_t(kz) + 1), *dVz = u.take_work(vz), *dS = u.take_work(ss);
    if (!u.upload(q_t, q, ldq, dQ, mp, 0, 0) || !u.upload(q_b, q, ldq, dQ, mp, -p, 0) ||
        !u.upload(rin, r, ldr, dZ, ldz, 0, 0) || !u.upload(uin, uh, ldu, dZ, ldz, -k, 0) ||
        !u.check(cudaStreamSynchronize(c.upload_stream), Point::sync))
      return {false, 0, u.why(), 0};
    u.mark("uploaded");
    // On the download copy threads, idle until Q streams out (the upload
    // copy threads move Q's columns meanwhile).
    typename Update<T>::Clearing clearing(u, r, ldr, 0, n, mp, &c.download_copies);
    // E: rows j0..j0+p-1 of Q's columns and columns k..k+p-1 of Qe; R's
    // rows below its diagonal (not uploaded) zero.
    unit_cross<T><<<grid_cols(p, k), 256, 0, c.compute_stream>>>(dQ + j0, mp, p, k, j0, k, j0, 0);
    unit_cross<T><<<grid_cols(mp, p), 256, 0, c.compute_stream>>>(dQ + k * mp, mp, mp, p, j0, k, 0, k);
    zero_below<T><<<grid_cols(k, n), 256, 0, c.compute_stream>>>(dZ, ldz, k, n, 0);
    // All of Q's k+p columns at once: the host's move below takes longer.
    RB dz;
    bool ran = u.launched() && factor(u, kp, n, dZ, ldz, dtau) && dz.form(u, kp, kz, dZ, ldz, dtau, dVz, dS) &&
               dz.apply(u, mp, dQ, mp, dS);
    // The device has all it reads of Q: the other columns move meanwhile.
    const bool moved = ran;
    if (moved) move_columns(c.upload_copies, q, ldq, m, k, p, j0, true);
    u.mark("moved");
    HostReflectors<T> band;
    band.col0 = 0;
    band.order = kp;
    band.k = kz;
    ran = ran && band.fetch(u, dZ, ldz, dtau);
    if (ran) {
      zero_below<T><<<grid_cols(kp, n), 256, 0, c.compute_stream>>>(dZ, ldz, kp, n, 0);
      cudaEvent_t done = c.download_slots[0].dma_done;
      ran = u.launched() && u.check(cudaEventRecord(done, c.compute_stream), Point::kernel) &&
            u.check(cudaStreamWaitEvent(c.download_stream, done, 0), Point::sync) &&
            u.download(rout, dZ, ldz, 0, 0, r, ldr) && u.land();
    }
    if (!ran) {
      if (moved) move_columns(c.upload_copies, q, ldq, m, k, p, j0, false);
      return {false, 0, u.why(), 0};
    }
    u.mark("factored");
    clearing.wait();
    u.mark("cleared");
    const idx tail = u.stream_rows(dQ, mp, q, ldq, mp, kp, true);
    u.mark("Q streamed");
    const char *why = nullptr;
    if (tail < mp) {
      // The CPU builds the rows left (0..mp-tail-1) of Qe's first k+p
      // columns, a chunk at a time from the last, applies Z's reflectors
      // and writes them: a chunk's sources (old rows up to its own last)
      // are read whole first.
      const idx left = mp - tail, chunk = 64;
      std::vector<T> x(std::size_t(chunk) * kp);
      for (idx b = left; b > 0; b -= chunk) {
        const idx a = std::max<idx>(0, b - chunk), rows = b - a;
        for (idx i = a; i < b; ++i) {
          const bool urow = i >= j0 && i < j0 + p;
          const idx src = i < j0 ? i : i - p;
          for (idx col = 0; col < kp; ++col)
            x[(i - a) + col * rows] =
                col >= k ? T(urow && col - k == i - j0 ? 1 : 0) : urow ? T(0) : q[src + col * ldq];
        }
        band.apply(x.data(), rows, rows);
        for (idx col = 0; col < kp; ++col)
          std::memcpy(q + a + col * ldq, x.data() + col * rows, std::size_t(rows) * sizeof(T));
      }
      why = "CUDA error: Q's first rows updated on the CPU";
    }
    u.finish();
    u.mark("landed");
    u.print_marks("qrupd_addrows_q");
    return {true, 0, why, lint(tail)};
  });
}

template Result qrupd_addrows_q(lint, lint, lint, lint, float *, lint, float *, lint, float *, lint);
template Result qrupd_addrows_q(lint, lint, lint, lint, double *, lint, double *, lint, double *, lint);

template Result qrupd_addcols(lint, lint, lint, lint, float *, lint, float *, lint, float *, lint);
template Result qrupd_addcols(lint, lint, lint, lint, double *, lint, double *, lint, double *, lint);
template Result qrupd_delrows(lint, lint, lint, lint, float *, lint, float *, lint);
template Result qrupd_delrows(lint, lint, lint, lint, double *, lint, double *, lint);

template Result qrupd_delcols(bool, lint, lint, lint, lint, float *, lint, float *, lint);
template Result qrupd_delcols(bool, lint, lint, lint, lint, double *, lint, double *, lint);
template Result qrupd_addrows(lint, lint, lint, float *, lint, float *, lint);
template Result qrupd_addrows(lint, lint, lint, double *, lint, double *, lint);

}  // namespace hqr::gpu
