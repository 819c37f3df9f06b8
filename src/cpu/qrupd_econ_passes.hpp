// The economy QR updates' passes over Q's rows (src/cpu/qrupd.cpp's
// *_econ): Q is M-by-N with M in the millions, far past the caches, so
// each pass reads (and writes) Q once, with every thread. The threads take
// chunks of rows in turn (a few per thread, so that one held up does not
// hold up the pass) and work through each in blocks of kBlockRows rows:
// the block's columns are copied to the thread's scratch (long
// contiguous reads), everything the update does to those rows happens
// there, in register tiles of kTileRows rows, and the changed columns are
// copied back. One template for s, d, c, z; the real and complex kernels
// are compiled once per instruction set (target_clones) like potf2's.
//
// Rotations and reflectors follow qrupd.cpp's conventions (see there):
// a rotation (c, s) on columns (k-1, k) of Q from the right is
//   a <- c*a + conj(s)*b,   b <- c*b - s*a,
// a reflector H = I - tau*v*v^H with v(0) = 1 stored, Q <- Q*H.
#pragma once

#include <cstddef>

#include "host/common.hpp"

namespace hqr::cpu {

// Rows per block in a thread's scratch, and per register tile. A block's
// columns are kBlockLd apart: not a power of two, so that a tile's columns
// spread over the cache's sets (2 KiB apart, 210 columns fell into 4 of
// L1's 64 sets: the rotations ran at a tenth of their speed).
constexpr std::ptrdiff_t kBlockRows = 256, kTileRows = 16, kBlockLd = kBlockRows + 8;

// A group of nt passes of rotations on adjacent columns, applied in order:
// pass t rotates (k-1, k) for k = hi[t] down to lo[t]+1, with the cosine
// and sine at cs[t*ld + k-lo[t]-1], sn[...].
template <class T> struct Passes {
  std::ptrdiff_t nt;
  const std::ptrdiff_t *lo, *hi;
  const T *cs, *sn;
  std::ptrdiff_t ld;
  T c(std::ptrdiff_t t, std::ptrdiff_t k) const { return cs[t * ld + k - lo[t] - 1]; }
  T s(std::ptrdiff_t t, std::ptrdiff_t k) const { return sn[t * ld + k - lo[t] - 1]; }
};

// A staircase of nr reflectors on columns: reflector i acts on columns
// i .. i+len_i-1 with len_i = min(L, lim - i); v_i (v_i[0] = 1) at
// v + i*ldv, tau_i at tau[i].
template <class T> struct Staircase {
  std::ptrdiff_t nr, L, lim;
  const T *v;
  std::ptrdiff_t ldv;
  const T *tau;
};

// One thread's scratch: a block of kBlockRows rows of `cols` columns and,
// for econ_gram, `sums` partial sums.
// (64 bytes more: the block starts on a cache line.)
// ld: a block's leading dimension (its rows and padding).
inline std::ptrdiff_t row_scratch_size(std::ptrdiff_t cols, std::ptrdiff_t sums, std::ptrdiff_t ld = kBlockLd) {
  return ld * (cols > 1 ? cols : 1) + sums + 16;
}

// Scratch for the threads of a pass with `cols` columns per block and
// `sums` partial sums: thread 0's at `own` (row_scratch_size elements of
// the caller's WORK), the others' allocated without throwing;
// where that fails, thread 0 runs the pass alone.
template <class T> class RowScratch {
 public:
  RowScratch(int threads, std::ptrdiff_t cols, std::ptrdiff_t sums, T *own, std::ptrdiff_t ld = kBlockLd);
  ~RowScratch();
  RowScratch(const RowScratch &) = delete;
  RowScratch &operator=(const RowScratch &) = delete;
  int threads() const { return threads_; }
  T *block(int t) const { return t == 0 ? own_ : extra_ + std::size_t(t - 1) * std::size_t(stride_); }
  T *sums(int t) const { return block(t) + ld_ * cols_; }

 private:
  int threads_;
  std::ptrdiff_t cols_, ld_, stride_;
  T *own_, *extra_;
};

// out ((n+p)-by-p, ld n+p) = [Q U']^H * U' over rows 0..m-1, where U' is
// U*tri (tri p-by-p upper triangular, ld p; formed in the scratch, u is
// only read), or U itself when tri is null. n may be 0 (U'^H*U').
// Scratch: RowScratch(threads, n+p, (n+p)*p, ...).
template <class T>
void econ_gram(std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t p, const T *q, std::ptrdiff_t ldq, const T *u,
               std::ptrdiff_t ldu, const T *tri, T *out, const RowScratch<T> &scratch);

// Q(:, j0:n+p-1) <- [Q Qn](:, j0:n+p-1) * G^H, G the passes (acting on
// columns j0 ..). Qn is (U*tri - Q*W)*F (U m-by-p; tri and F p-by-p upper
// triangular with ld p; W n-by-p with ld ldw; U*tri as econ_gram forms
// it, to the bit) where u is given, else Q(:, n:n+p-1) as it stands. Scratch: RowScratch(threads, n+p, 0, ...).
template <class T>
void econ_rotate(std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t p, std::ptrdiff_t j0, T *q, std::ptrdiff_t ldq,
                 const T *u, std::ptrdiff_t ldu, const T *tri, const T *w, std::ptrdiff_t ldw, const T *f,
                 const Passes<T> &ps, const RowScratch<T> &scratch);

// Q(:, 0:ncols-1) <- Q(:, 0:ncols-1) * H_0 * ... * H_{nr-1} (q points at
// the staircase's first column); only columns 0 .. nkeep-1 are written
// back. Scratch: RowScratch(threads, ncols, 0, ...).
template <class T>
void econ_reflect(std::ptrdiff_t m, std::ptrdiff_t ncols, std::ptrdiff_t nkeep, T *q, std::ptrdiff_t ldq,
                  const Staircase<T> &h, const RowScratch<T> &scratch);

// The staircases of adding columns: lanes 0..nl-1, lane l a vector whose
// entries j0.. the passes ps rotate (pass t on entries lo[t]..hi[t]) and
// whose entries past j0+l+t are zero before pass t, so that its rotations
// stop at j0+l+t+1 (past that they would rotate zeros into zeros). Lanes
// go through rotate's kernel 64 (complex: 16) at a time, the tallest
// first, on up to `threads` threads; thread 0's block of lanes in `own`
// (row_scratch_size(n+p, 0) elements), the others' allocated without
// throwing (else thread 0 alone).
//
// R's old columns after the inserted block (n+p-by-n+p, ldr), lane l its
// column j0+p+l: G*x from the left is conj(conj(x)^T*G^H), so each lane
// holds a column's rows j0.., conjugated.
template <class T>
void econ_rotate_r(std::ptrdiff_t n, std::ptrdiff_t p, std::ptrdiff_t j0, T *r, std::ptrdiff_t ldr,
                   const Passes<T> &ps, int threads, T *own);
// The passes' product M = [0 I]*G^H's columns j0.. (k-by-k, ld k, k =
// n+p-j0): lane i is row i of M, e_{j0+i} before the passes.
template <class T>
void econ_rotation_product(std::ptrdiff_t n, std::ptrdiff_t p, std::ptrdiff_t j0, T *mprod, const Passes<T> &ps,
                           int threads, T *own);

}  // namespace hqr::cpu
