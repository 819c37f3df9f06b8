// The economy QR updates' passes over Q's rows (see qrupd_econ_passes.hpp).
#include "cpu/qrupd_econ_passes.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>

#include "cpu/parallel.hpp"
#include "cpu/tile.hpp"

namespace hqr::cpu {
namespace {

using idx = std::ptrdiff_t;
using tile::mul;
constexpr idx kTile = kTileRows;

// Everything inlined into the per-instruction-set clones (run_block_*): a
// kernel left out of line is compiled for the baseline (SSE2) only. So no
// 64-byte vector crosses a call, and GCC's note that passing one changes
// the ABI without AVX-512 does not apply.
#define HQR_INLINE __attribute__((always_inline)) inline
#pragma GCC diagnostic ignored "-Wpsabi"

// ---- 64 bytes of T as one value ----------------------------------------------------
// A GCC vector for real T (one register where the CPU has 512-bit ones),
// so that the kernels keep their accumulators and carried columns in
// registers: as arrays of T they, and every product, went through the
// stack, and the rotations ran at less than half the speed (740 against
// 330 ns per row of 2000 rotations on the 2-core Xeon). Complex T: an
// array with elementwise arithmetic (tile::mul: no __muldc3).
template <class T> struct CVec {
  T e[64 / sizeof(T)];
};
template <class T, bool = is_complex<T>> struct VecOf {
  typedef T type __attribute__((vector_size(64), aligned(sizeof(T))));
};
template <class T> struct VecOf<T, true> {
  using type = CVec<T>;
};
template <class T> using Vec = typename VecOf<T>::type;
template <class T> constexpr idx kLanes = idx(64 / sizeof(T));
// Vectors per kTile rows.
template <class T> constexpr idx kTileVecs = kTile / kLanes<T>;

template <class T> HQR_INLINE Vec<T> load(const T *p) {
  Vec<T> v;
  __builtin_memcpy(static_cast<void *>(&v), p, 64);
  return v;
}
template <class T> HQR_INLINE void store(T *p, const Vec<T> &v) {
  __builtin_memcpy(static_cast<void *>(p), &v, 64);
}

template <class T> HQR_INLINE CVec<T> operator+(CVec<T> a, const CVec<T> &b) {
  for (idx i = 0; i < kLanes<T>; ++i) a.e[i] += b.e[i];
  return a;
}
template <class T> HQR_INLINE CVec<T> operator-(CVec<T> a, const CVec<T> &b) {
  for (idx i = 0; i < kLanes<T>; ++i) a.e[i] -= b.e[i];
  return a;
}
template <class T> HQR_INLINE CVec<T> &operator+=(CVec<T> &a, const CVec<T> &b) { return a = a + b; }
template <class T> HQR_INLINE CVec<T> &operator-=(CVec<T> &a, const CVec<T> &b) { return a = a - b; }
template <class T> HQR_INLINE CVec<T> operator*(CVec<T> a, const T &s) {
  for (idx i = 0; i < kLanes<T>; ++i) a.e[i] = mul(a.e[i], s);
  return a;
}
template <class T> HQR_INLINE CVec<T> operator*(typename Prec<T>::real s, CVec<T> a) {
  for (idx i = 0; i < kLanes<T>; ++i) a.e[i] *= s;
  return a;
}
template <class T> HQR_INLINE CVec<T> operator*(CVec<T> a, const CVec<T> &b) {
  for (idx i = 0; i < kLanes<T>; ++i) a.e[i] = mul(a.e[i], b.e[i]);
  return a;
}
// The sum of a's lanes.
template <class T> HQR_INLINE T lane_sum(const Vec<T> &a) {
  T s = 0;
  for (idx i = 0; i < kLanes<T>; ++i) {
    if constexpr (is_complex<T>)
      s += a.e[i];
    else
      s += a[i];
  }
  return s;
}
template <class T> HQR_INLINE Vec<T> conj_vec(Vec<T> a) {
  if constexpr (is_complex<T>)
    for (idx i = 0; i < kLanes<T>; ++i) a.e[i] = std::conj(a.e[i]);
  return a;
}

// ---- the work on one block in a thread's scratch ------------------------------
// The block holds `rows` rows (a multiple of kTile, zeros past the matrix's
// last row) of some columns, column c at buf + c*ld.

// x(:, 0:p-1) <- x * tri (tri p-by-p upper triangular, ld p), in place:
// column c from columns 0..c, the last first.
template <class T> HQR_INLINE void tri_right(idx rows, T *x, idx ld, idx p, const T *tri) {
  constexpr idx NV = kTileVecs<T>, VL = kLanes<T>;
  for (idx s = 0; s < rows; s += kTile)
    for (idx c = p - 1; c >= 0; --c) {
      Vec<T> acc[NV] = {};
      for (idx k = 0; k <= c; ++k) {
        const T t = tri[k + c * p];
        const T *xk = x + s + k * ld;
#pragma GCC unroll 16
        for (idx v = 0; v < NV; ++v) acc[v] += load(xk + v * VL) * t;
      }
      T *xc = x + s + c * ld;
#pragma GCC unroll 16
      for (idx v = 0; v < NV; ++v) store(xc + v * VL, acc[v]);
    }
}

// Columns k0..k0+KB-1 of a against c0..c0+CB-1 of b over the block's
// tiles, added to sums(k*p + c) += sum_i conj(a(i, k)) * b(i, c): lane by
// lane over the tiles, the lanes summed once per block.
template <class T, idx KB, idx CB>
HQR_INLINE void gram_kc(idx rows, const T *a, const T *b, idx ld, T *sums, idx p, idx k0, idx c0) {
  constexpr idx NV = kTileVecs<T>, VL = kLanes<T>;
  Vec<T> acc[KB][CB][NV] = {};
  for (idx s = 0; s < rows; s += kTile) {
    Vec<T> av[KB][NV], bv[CB][NV];
#pragma GCC unroll 16
    for (idx kb = 0; kb < KB; ++kb)
#pragma GCC unroll 16
      for (idx v = 0; v < NV; ++v) av[kb][v] = conj_vec<T>(load(a + s + (k0 + kb) * ld + v * VL));
#pragma GCC unroll 16
    for (idx cb = 0; cb < CB; ++cb)
#pragma GCC unroll 16
      for (idx v = 0; v < NV; ++v) bv[cb][v] = load(b + s + (c0 + cb) * ld + v * VL);
#pragma GCC unroll 16
    for (idx kb = 0; kb < KB; ++kb)
#pragma GCC unroll 16
      for (idx cb = 0; cb < CB; ++cb)
#pragma GCC unroll 16
        for (idx v = 0; v < NV; ++v) acc[kb][cb][v] += av[kb][v] * bv[cb][v];
  }
#pragma GCC unroll 16
  for (idx kb = 0; kb < KB; ++kb)
#pragma GCC unroll 16
    for (idx cb = 0; cb < CB; ++cb) {
      Vec<T> t = acc[kb][cb][0];
#pragma GCC unroll 16
      for (idx v = 1; v < NV; ++v) t += acc[kb][cb][v];
      sums[(k0 + kb) * p + c0 + cb] += lane_sum<T>(t);
    }
}
// All ka columns of a against the p of b, in 2-by-4 register blocks (the
// last columns of b in 2-by-2 and 2-by-1 ones).
template <class T> HQR_INLINE void gram(idx rows, const T *a, idx ka, const T *b, idx p, idx ld, T *sums) {
  idx k = 0;
  for (; k + 2 <= ka; k += 2) {
    idx c = 0;
    for (; c + 4 <= p; c += 4) gram_kc<T, 2, 4>(rows, a, b, ld, sums, p, k, c);
    for (; c + 2 <= p; c += 2) gram_kc<T, 2, 2>(rows, a, b, ld, sums, p, k, c);
    for (; c < p; ++c) gram_kc<T, 2, 1>(rows, a, b, ld, sums, p, k, c);
  }
  for (; k < ka; ++k) {
    idx c = 0;
    for (; c + 4 <= p; c += 4) gram_kc<T, 1, 4>(rows, a, b, ld, sums, p, k, c);
    for (; c < p; ++c) gram_kc<T, 1, 1>(rows, a, b, ld, sums, p, k, c);
  }
}

// y(:, c0:c0+CB-1) <- y - a(:, 0:n-1) * w(:, c0:...) (w n-by-p, ld ldw) for
// one tile: each column of a loaded once for CB columns of y.
template <class T, idx CB>
HQR_INLINE void subtract_tile(const T *a, idx n, T *y, idx ld, const T *w, idx ldw, idx c0) {
  constexpr idx NV = kTileVecs<T>, VL = kLanes<T>;
  Vec<T> acc[CB][NV];
#pragma GCC unroll 16
  for (idx cb = 0; cb < CB; ++cb)
#pragma GCC unroll 16
    for (idx v = 0; v < NV; ++v) acc[cb][v] = load(y + (c0 + cb) * ld + v * VL);
  for (idx k = 0; k < n; ++k) {
    Vec<T> av[NV];
#pragma GCC unroll 16
    for (idx v = 0; v < NV; ++v) av[v] = load(a + k * ld + v * VL);
#pragma GCC unroll 16
    for (idx cb = 0; cb < CB; ++cb) {
      const T wk = w[k + (c0 + cb) * ldw];
#pragma GCC unroll 16
      for (idx v = 0; v < NV; ++v) acc[cb][v] -= av[v] * wk;
    }
  }
#pragma GCC unroll 16
  for (idx cb = 0; cb < CB; ++cb)
#pragma GCC unroll 16
    for (idx v = 0; v < NV; ++v) store(y + (c0 + cb) * ld + v * VL, acc[cb][v]);
}
template <class T>
HQR_INLINE void subtract_product(idx rows, const T *a, idx n, T *y, idx p, idx ld, const T *w, idx ldw) {
  for (idx s = 0; s < rows; s += kTile) {
    idx c = 0;
    for (; c + 8 <= p; c += 8) subtract_tile<T, 8>(a + s, n, y + s, ld, w, ldw, c);
    for (; c + 4 <= p; c += 4) subtract_tile<T, 4>(a + s, n, y + s, ld, w, ldw, c);
    for (; c + 2 <= p; c += 2) subtract_tile<T, 2>(a + s, n, y + s, ld, w, ldw, c);
    for (; c < p; ++c) subtract_tile<T, 1>(a + s, n, y + s, ld, w, ldw, c);
  }
}

// The passes on Rows rows of the block's columns (block column 0 is
// column c0 of Q): a pass runs down its chain of rotations carrying the
// column it moves up, so each rotation loads one column and stores one.
template <class T, idx Rows> HQR_INLINE void rotate_rows(T *x, idx ld, idx c0, const Passes<T> &ps) {
  constexpr idx NV = Rows / kLanes<T>, VL = kLanes<T>;
  for (idx t = 0; t < ps.nt; ++t) {
    const idx hi = ps.hi[t], lo = ps.lo[t];
    if (hi <= lo) continue;
    Vec<T> y[NV];
    const T *xh = x + (hi - c0) * ld;
#pragma GCC unroll 16
    for (idx v = 0; v < NV; ++v) y[v] = load(xh + v * VL);
    for (idx k = hi; k > lo; --k) {
      const typename Prec<T>::real c = std::real(ps.c(t, k));
      const T sn = ps.s(t, k), snc = conj_of(sn);
      const T *a = x + (k - 1 - c0) * ld;
      T *b = x + (k - c0) * ld;
#pragma GCC unroll 16
      for (idx v = 0; v < NV; ++v) {
        const Vec<T> av = load(a + v * VL), yv = y[v];
        store(b + v * VL, c * yv - av * sn);
        y[v] = c * av + yv * snc;
      }
    }
    T *xl = x + (lo - c0) * ld;
#pragma GCC unroll 16
    for (idx v = 0; v < NV; ++v) store(xl + v * VL, y[v]);
  }
}
// Four tiles at a time for real types (the carried column is a chain of
// dependent operations: 16 rows kept too few of them in flight), one for
// complex ones.
template <class T> HQR_INLINE void rotate(idx rows, T *x, idx ld, idx c0, const Passes<T> &ps) {
  constexpr idx kWide = is_complex<T> ? kTile : 4 * kTile;
  idx s = 0;
  for (; s + kWide <= rows; s += kWide) rotate_rows<T, kWide>(x + s, ld, c0, ps);
  for (; s < rows; s += kTile) rotate_rows<T, kTile>(x + s, ld, c0, ps);
}

// The staircase h on Rows rows of the block's columns: x <- x*H_0*...*H_{nr-1}.
template <class T, idx Rows> HQR_INLINE void reflect_rows(T *x, idx ld, const Staircase<T> &h) {
  constexpr idx NV = Rows / kLanes<T>, VL = kLanes<T>;
  for (idx i = 0; i < h.nr; ++i) {
    const T tau = h.tau[i];
    if (tau == T(0)) continue;
    const idx len = std::min(h.L, h.lim - i);
    const T *v = h.v + i * h.ldv;
    T *xi = x + i * ld;
    Vec<T> w[NV];
#pragma GCC unroll 16
    for (idx e = 0; e < NV; ++e) w[e] = load(xi + e * VL);
    for (idx k = 1; k < len; ++k) {
      const T vk = v[k];
#pragma GCC unroll 16
      for (idx e = 0; e < NV; ++e) w[e] += load(xi + k * ld + e * VL) * vk;
    }
#pragma GCC unroll 16
    for (idx e = 0; e < NV; ++e) w[e] = w[e] * tau;
    for (idx k = 0; k < len; ++k) {
      const T vk = conj_of(v[k]);
#pragma GCC unroll 16
      for (idx e = 0; e < NV; ++e) store(xi + k * ld + e * VL, load(xi + k * ld + e * VL) - w[e] * vk);
    }
  }
}
template <class T> HQR_INLINE void reflect(idx rows, T *x, idx ld, const Staircase<T> &h) {
  constexpr idx kWide = is_complex<T> ? kTile : 4 * kTile;
  idx s = 0;
  for (; s + kWide <= rows; s += kWide) reflect_rows<T, kWide>(x + s, ld, h);
  for (; s < rows; s += kTile) reflect_rows<T, kTile>(x + s, ld, h);
}

// What a pass does to one block. gram: tri (if any) on the p columns at
// u_col, then the partial sums of [block]^H * those columns. rotate: Qn =
// (U*tri - block(:, 0:u_col-1)*w)*f formed in the p columns at u_col (U
// there; when w is given), then the passes.
// reflect: the staircase.
template <class T> struct BlockJob {
  enum Kind { kGram, kRotate, kReflect } kind;
  idx rows;
  T *buf;
  idx ld, cols, u_col, p;
  const T *tri;  // gram, rotate
  T *sums;       // gram
  const T *w;    // rotate
  idx ldw;
  const T *f;
  idx c0;  // rotate: Q's column at block column 0
  const Passes<T> *ps;
  const Staircase<T> *h;
};

template <class T> HQR_INLINE void run_block(const BlockJob<T> &j) {
  T *u = j.buf + j.u_col * j.ld;
  switch (j.kind) {
    case BlockJob<T>::kGram:
      if (j.tri) tri_right(j.rows, u, j.ld, j.p, j.tri);
      gram(j.rows, j.buf, j.cols, u, j.p, j.ld, j.sums);
      break;
    case BlockJob<T>::kRotate:
      if (j.w) {
        tri_right(j.rows, u, j.ld, j.p, j.tri);
        subtract_product(j.rows, j.buf, j.u_col, u, j.p, j.ld, j.w, j.ldw);
        tri_right(j.rows, u, j.ld, j.p, j.f);
      }
      rotate(j.rows, j.buf, j.ld, j.c0, *j.ps);
      break;
    case BlockJob<T>::kReflect:
      reflect(j.rows, j.buf, j.ld, *j.h);
      break;
  }
}

// One clone per instruction set; the loader picks the best the CPU has.
#define HQR_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
HQR_CLONES void run_block_s(const BlockJob<float> &j) { run_block(j); }
HQR_CLONES void run_block_d(const BlockJob<double> &j) { run_block(j); }
HQR_CLONES void run_block_c(const BlockJob<std::complex<float>> &j) { run_block(j); }
HQR_CLONES void run_block_z(const BlockJob<std::complex<double>> &j) { run_block(j); }
#undef HQR_CLONES
#undef HQR_INLINE
void run(const BlockJob<float> &j) { run_block_s(j); }
void run(const BlockJob<double> &j) { run_block_d(j); }
void run(const BlockJob<std::complex<float>> &j) { run_block_c(j); }
void run(const BlockJob<std::complex<double>> &j) { run_block_z(j); }

// ---- copies between Q and a block ----------------------------------------------

// buf(0:rows, 0:cols) <- a(0:rows, 0:cols), zeros down to `padded` rows.
template <class T> void pack(idx rows, idx padded, idx cols, const T *a, idx lda, T *buf, idx ld) {
  for (idx c = 0; c < cols; ++c) {
    std::copy(a + c * lda, a + c * lda + rows, buf + c * ld);
    std::fill(buf + c * ld + rows, buf + c * ld + padded, T(0));
  }
}
template <class T> void unpack(idx rows, idx cols, const T *buf, idx ld, T *a, idx lda) {
  for (idx c = 0; c < cols; ++c) std::copy(buf + c * ld, buf + c * ld + rows, a + c * lda);
}

// A pass's rows come in chunks of whole blocks, kChunksPerThread per
// thread, that the threads take in turn from a shared counter. With a
// fixed range each, a thread that the system held up (the CUDA runtime's
// threads, the hypervisor) set the pass's time: on the H100 host's 16
// cores DELCOLS_ECON (M = 1e6, N = 200, P = 10) took 0.049-0.052 s on 16
// threads and 0.036-0.038 s on 12; with the chunks, 0.032-0.035 s on 16
// (bench/results/history/econ-chunks-NVIDIA-H100-80GB-HBM3-2026-12-07.txt).
constexpr idx kChunksPerThread = 8;
// Rows per chunk for at most `chunks` chunks of whole blocks.
inline idx chunk_rows(idx m, idx chunks) {
  const idx per = (m + chunks - 1) / chunks;
  return std::max<idx>(1, (per + kBlockRows - 1) / kBlockRows) * kBlockRows;
}

// body(t, c, b0, rows, padded) for every block of every chunk c (rows
// c*rows_per ..) on `threads` threads, t the one that runs it.
template <class F> void for_blocks(idx m, int threads, idx rows_per, F &&body) {
  parallel_take((m + rows_per - 1) / rows_per, threads, [&](int t, idx c) {
    for (idx b0 = c * rows_per, end = std::min(m, b0 + rows_per); b0 < end; b0 += kBlockRows) {
      const idx rows = std::min(kBlockRows, end - b0);
      body(t, c, b0, rows, (rows + kTile - 1) / kTile * kTile);
    }
  });
}

}  // namespace

// ---- scratch ---------------------------------------------------------------------

template <class T>
RowScratch<T>::RowScratch(int threads, idx cols, idx sums, T *own, idx ld)
    : threads_(std::max(1, threads)), cols_(std::max<idx>(1, cols)), ld_(ld), stride_(0), own_(own), extra_(nullptr) {
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(own);  // on a cache line
  own_ = reinterpret_cast<T *>((at + 63) / 64 * 64);
  if (threads_ == 1) return;
  stride_ = (row_scratch_size(cols, sums, ld) + 7) / 8 * 8;  // 64-byte aligned blocks
  void *mem = ::operator new[](sizeof(T) * std::size_t(threads_ - 1) * std::size_t(stride_), std::align_val_t(64),
                               std::nothrow);
  extra_ = static_cast<T *>(mem);
  if (!extra_) threads_ = 1;
}
template <class T> RowScratch<T>::~RowScratch() {
  if (extra_) ::operator delete[](extra_, std::align_val_t(64));
}

// ---- the passes ----------------------------------------------------------------------

template <class T>
void econ_gram(idx m, idx n, idx p, const T *q, idx ldq, const T *u, idx ldu, const T *tri, T *out,
               const RowScratch<T> &scratch) {
  const idx ka = n + p, nsums = ka * p, ld = kBlockLd;
  // Each chunk's sums apart, added in the chunks' order: the result does
  // not depend on which thread took which chunk. Up to one chunk per
  // thread they live in the scratch (chunk c's in thread c's); more are
  // allocated, and only where they stay small beside the rows they sum
  // (chunks*p <= m/16: not for a wide U on few rows, whose sums would cost
  // as much as the pass), else, or without room for them, one per thread.
  const int threads = scratch.threads();
  idx want = threads;
  if (threads > 1 && kChunksPerThread * threads * p * 16 <= m) want = kChunksPerThread * threads;
  idx rows_per = chunk_rows(m, want), chunks = (m + rows_per - 1) / rows_per;
  std::unique_ptr<T[]> more(chunks > threads ? new (std::nothrow) T[std::size_t(chunks) * std::size_t(nsums)]
                                              : nullptr);
  if (chunks > threads && !more) rows_per = chunk_rows(m, threads), chunks = (m + rows_per - 1) / rows_per;
  auto sums = [&](idx c) { return more ? more.get() + c * nsums : scratch.sums(int(c)); };
  for (idx c = 0; c < chunks; ++c) std::fill(sums(c), sums(c) + nsums, T(0));
  for_blocks(m, threads, rows_per, [&](int t, idx c, idx b0, idx rows, idx padded) {
    T *buf = scratch.block(t);
    pack(rows, padded, n, q + b0, ldq, buf, ld);
    pack(rows, padded, p, u + b0, ldu, buf + n * ld, ld);
    BlockJob<T> j{};
    j.kind = BlockJob<T>::kGram;
    j.rows = padded, j.buf = buf, j.ld = ld, j.cols = ka, j.u_col = n, j.p = p, j.tri = tri;
    j.sums = sums(c);
    run(j);
  });
  for (idx k = 0; k < ka; ++k)
    for (idx c = 0; c < p; ++c) {
      T s = 0;
      for (idx h = 0; h < chunks; ++h) s += sums(h)[k * p + c];
      out[k + c * ka] = s;
    }
}

template <class T>
void econ_rotate(idx m, idx n, idx p, idx j0, T *q, idx ldq, const T *u, idx ldu, const T *tri, const T *w, idx ldw,
                 const T *f, const Passes<T> &ps, const RowScratch<T> &scratch) {
  const idx c0 = u ? 0 : j0, ld = kBlockLd;
  const int threads = scratch.threads();
  for_blocks(m, threads, chunk_rows(m, kChunksPerThread * threads), [&](int t, idx, idx b0, idx rows, idx padded) {
    T *buf = scratch.block(t);
    if (u) {
      pack(rows, padded, n, q + b0, ldq, buf, ld);
      pack(rows, padded, p, u + b0, ldu, buf + n * ld, ld);
    } else {
      pack(rows, padded, n + p - c0, q + b0 + c0 * ldq, ldq, buf, ld);
    }
    BlockJob<T> j{};
    j.kind = BlockJob<T>::kRotate;
    j.rows = padded, j.buf = buf, j.ld = ld, j.cols = n + p - c0, j.u_col = n - c0, j.p = p;
    j.w = u ? w : nullptr, j.ldw = ldw, j.tri = tri, j.f = f, j.c0 = c0, j.ps = &ps;
    run(j);
    unpack(rows, n + p - j0, buf + (j0 - c0) * ld, ld, q + b0 + j0 * ldq, ldq);
  });
}

template <class T>
void econ_reflect(idx m, idx ncols, idx nkeep, T *q, idx ldq, const Staircase<T> &h, const RowScratch<T> &scratch) {
  const idx ld = kBlockLd;
  const int threads = scratch.threads();
  for_blocks(m, threads, chunk_rows(m, kChunksPerThread * threads), [&](int t, idx, idx b0, idx rows, idx padded) {
    T *buf = scratch.block(t);
    pack(rows, padded, ncols, q + b0, ldq, buf, ld);
    BlockJob<T> j{};
    j.kind = BlockJob<T>::kReflect;
    j.rows = padded, j.buf = buf, j.ld = ld, j.cols = ncols, j.h = &h;
    run(j);
    unpack(rows, nkeep, buf, ld, q + b0, ldq);
  });
}

namespace {
// Lanes per block of a staircase: one of rotate's slabs.
template <class T> constexpr idx kStairLanes = is_complex<T> ? kTile : 4 * kTile;
// Rotations per thread of a staircase: below it, fewer threads.
constexpr double kStairGrain = 1 << 20;

// The driver of econ_rotate_r and econ_rotation_product: fill(l0, nb, buf,
// ld, cols) puts lanes l0..l0+nb-1's entries j0..j0+cols-1 in buf (lane i
// of the block at buf[c*ld + i], zeros in lanes nb..), drain takes them
// back. ncols: entries j0..j0+ncols-1 exist.
template <class T, class Fill, class Drain>
void staircase(idx nl, idx j0, idx ncols, const Passes<T> &ps, int threads, T *own, Fill &&fill, Drain &&drain) {
  constexpr idx L = kStairLanes<T>;
  if (nl <= 0 || ps.nt <= 0) return;
  const idx nblocks = (nl + L - 1) / L;
  const double rotations = 0.5 * double(nl) * double(nl) * double(ps.nt);
  const RowScratch<T> scratch(int(std::min<idx>(nblocks, pass_threads(threads, rotations, kStairGrain))), ncols, 0,
                              own, L);
  threads = scratch.threads();
  // Each block's passes stop where its tallest lane's do; without room
  // for those bounds, at the passes' own (the same result, more work).
  std::unique_ptr<idx[]> clipped(new (std::nothrow) idx[std::size_t(threads) * std::size_t(ps.nt)]);
  parallel_take(nblocks, threads, [&](int t, idx b) {
    T *buf = scratch.block(t);
    idx *hi = clipped ? clipped.get() + std::size_t(t) * std::size_t(ps.nt) : nullptr;
    const idx l0 = (nblocks - 1 - b) * L, nb = std::min(L, nl - l0), last = l0 + nb - 1;
    const idx cols = std::min(ncols, last + ps.nt + 1);  // entries j0 .. j0+last+nt
    Passes<T> mine_ps = ps;
    if (hi) {
      for (idx k = 0; k < ps.nt; ++k) hi[k] = std::min(ps.hi[k], j0 + last + k + 1);
      mine_ps.hi = hi;
    }
    fill(l0, nb, buf, L, cols);
    BlockJob<T> j{};
    j.kind = BlockJob<T>::kRotate;
    j.rows = L, j.buf = buf, j.ld = L, j.cols = cols, j.c0 = j0, j.ps = &mine_ps;
    run(j);
    drain(l0, nb, buf, L, cols);
  });
}
}  // namespace

template <class T>
void econ_rotate_r(idx n, idx p, idx j0, T *r, idx ldr, const Passes<T> &ps, int threads, T *own) {
  const T *rc = r + (j0 + p) * ldr + j0;  // lane 0's entry j0
  staircase<T>(
      n - j0, j0, n + p - j0, ps, threads, own,
      [&](idx l0, idx nb, T *buf, idx ld, idx cols) {
        std::fill(buf, buf + ld * cols, T(0));
        for (idx i = 0; i < nb; ++i)
          for (idx c = 0; c < cols; ++c) buf[c * ld + i] = conj_of(rc[(l0 + i) * ldr + c]);
      },
      [&](idx l0, idx nb, const T *buf, idx ld, idx cols) {
        for (idx i = 0; i < nb; ++i)
          for (idx c = 0; c < cols; ++c) r[(j0 + p + l0 + i) * ldr + j0 + c] = conj_of(buf[c * ld + i]);
      });
}

template <class T>
void econ_rotation_product(idx n, idx p, idx j0, T *mprod, const Passes<T> &ps, int threads, T *own) {
  const idx k = n + p - j0;
  staircase<T>(
      k, j0, k, ps, threads, own,
      [&](idx l0, idx nb, T *buf, idx ld, idx cols) {
        std::fill(buf, buf + ld * cols, T(0));
        for (idx i = 0; i < nb && l0 + i < cols; ++i) buf[(l0 + i) * ld + i] = T(1);
      },
      [&](idx l0, idx nb, const T *buf, idx ld, idx cols) {
        for (idx c = 0; c < k; ++c)
          for (idx i = 0; i < nb; ++i) mprod[l0 + i + c * k] = c < cols ? buf[c * ld + i] : T(0);
      });
}

#define HQR_INSTANTIATE(T)                                                                                   \
  template void econ_rotate_r<T>(idx, idx, idx, T *, idx, const Passes<T> &, int, T *);                      \
  template void econ_rotation_product<T>(idx, idx, idx, T *, const Passes<T> &, int, T *);                   \
  template class RowScratch<T>;                                                                              \
  template void econ_gram<T>(idx, idx, idx, const T *, idx, const T *, idx, const T *, T *,                  \
                             const RowScratch<T> &);                                                          \
  template void econ_rotate<T>(idx, idx, idx, idx, T *, idx, const T *, idx, const T *, const T *, idx,       \
                               const T *,                                                                       \
                               const Passes<T> &, const RowScratch<T> &);                                     \
  template void econ_reflect<T>(idx, idx, idx, T *, idx, const Staircase<T> &, const RowScratch<T> &);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::cpu
