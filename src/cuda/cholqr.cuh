// Device kernels of the geqrf panel by CholeskyQR2 and Householder
// reconstruction (geqrf_hybrid.cu, start_cholqr and finish_cholqr): the check that
// CholeskyQR2 may be trusted, the LU with on-the-fly signs of Q's top block,
// the steps that turn it into LAPACK's V, T, tau and R, and a helper of
// its small steps (the diagonal blocks of a triangular inverse); and the
// arithmetic by element type that hqr's kernels write once for s, d, c, z
// (mul, add, sub, neg, fms, shfl, shfl_xor on the device types).
//
// Ballard, Demmel, Grigori, Jacquelin, Knight, Nguyen, "Reconstructing
// Householder vectors from Tall-Skinny QR" (JPDC 2015): for Q (m by b) with
// orthonormal columns, Q - [S; 0] = L U (no pivoting; S = diag(+-1), each
// sign opposite to the pivot it is subtracted from, so |u_kk| >= 1) gives
// Q = (I - L T L**H) [I; 0] S with T = -U S L1**-H, L1 the top b by b of L.
// So A = Q R = (I - L T L**H) [S R; 0]: V = L, T and tau = diag(T) are
// LAPACK's (tau in [1, 2], as xLARFG makes them), R's rows take the signs S.
#pragma once

#include "cuda/blas.cuh"
#include "cuda/qr_kernels.cuh"

namespace hqr::gpu {
namespace {

__device__ inline float mul(float a, float b) { return a * b; }
__device__ inline double mul(double a, double b) { return a * b; }
__device__ inline cuFloatComplex mul(cuFloatComplex a, cuFloatComplex b) { return cuCmulf(a, b); }
__device__ inline cuDoubleComplex mul(cuDoubleComplex a, cuDoubleComplex b) { return cuCmul(a, b); }
__device__ inline float add(float a, float b) { return a + b; }
__device__ inline double add(double a, double b) { return a + b; }
__device__ inline cuFloatComplex add(cuFloatComplex a, cuFloatComplex b) { return cuCaddf(a, b); }
__device__ inline cuDoubleComplex add(cuDoubleComplex a, cuDoubleComplex b) { return cuCadd(a, b); }
__device__ inline float sub(float a, float b) { return a - b; }
__device__ inline double sub(double a, double b) { return a - b; }
__device__ inline cuFloatComplex sub(cuFloatComplex a, cuFloatComplex b) { return cuCsubf(a, b); }
__device__ inline cuDoubleComplex sub(cuDoubleComplex a, cuDoubleComplex b) { return cuCsub(a, b); }
__device__ inline float neg(float x) { return -x; }
__device__ inline double neg(double x) { return -x; }
__device__ inline cuFloatComplex neg(cuFloatComplex x) { return make_cuFloatComplex(-x.x, -x.y); }
__device__ inline cuDoubleComplex neg(cuDoubleComplex x) { return make_cuDoubleComplex(-x.x, -x.y); }
// s * a for a real s.
__device__ inline float scaled(double s, float a) { return float(s) * a; }
__device__ inline double scaled(double s, double a) { return s * a; }
__device__ inline cuFloatComplex scaled(double s, cuFloatComplex a) {
  return make_cuFloatComplex(float(s) * a.x, float(s) * a.y);
}
__device__ inline cuDoubleComplex scaled(double s, cuDoubleComplex a) { return make_cuDoubleComplex(s * a.x, s * a.y); }
__device__ inline float real_one(float, double s) { return float(s); }
__device__ inline double real_one(double, double s) { return s; }
__device__ inline cuFloatComplex real_one(cuFloatComplex, double s) { return make_cuFloatComplex(float(s), 0.f); }
__device__ inline cuDoubleComplex real_one(cuDoubleComplex, double s) { return make_cuDoubleComplex(s, 0.); }

// The first step of x = u**-1 for an upper triangular u (b by b, b a
// multiple of 32; inverse_upper below has the rest): block l
// inverts u's diagonal block l (32 by 32) into x, with zeros below the
// diagonal down to row b. One warp; lane i owns row i of the inverse,
//   x_ii = 1/u_ii,  x_ij = -(sum_{k=i}^{j-1} x_ik u_kj) / u_jj  (i < j),
// from X U = I, so no lane waits for another.
template <class S> __global__ void invert_diagonal_blocks(int b, const S *u, int ldu, S *x, int ldx) {
  __shared__ S su[32][33], sx[32][33];
  const int i = threadIdx.x, o = 32 * blockIdx.x;
  for (int j = 0; j < 32; ++j) su[i][j] = u[(o + i) + int64_t(o + j) * ldu];
  __syncwarp();
  for (int j = 0; j < 32; ++j) {
    const S d = dev_inv(su[j][j]);
    S acc = dev_zero(S());  // -(sum_k x_ik u_kj)
    for (int k = i; k < j; ++k) acc = sub(acc, mul(sx[i][k], su[k][j]));
    sx[i][j] = i < j ? mul(acc, d) : i == j ? d : dev_zero(S());
  }
  for (int j = 0; j < 32; ++j) {
    S *col = x + int64_t(o + j) * ldx;
    col[o + i] = sx[i][j];
    for (int r = o + 32 + i; r < b; r += 32) col[r] = dev_zero(S());
  }
}

// x = u**-1 for an upper triangular b-by-b u, b 32 times a power of two
// (inverse_upper_fits): the 32-by-32 diagonal blocks are inverted by one
// kernel and then merged in pairs, level by level, [X11 X12; 0 X22] with
// X12 = -X11 (U12 X22), two batched gemms a level. The products U12 X22 go
// to `scratch` (b*b/4 elements) or, where it is null, to x's lower-left
// b/2-by-b/2 block, which no merge reads, and x's strictly lower triangle
// is cleared at the end. check(status) records a failure (a cuBLAS or CUDA
// status).
inline bool inverse_upper_fits(int64_t b) { return b >= 32 && b % 32 == 0 && ((b / 32) & (b / 32 - 1)) == 0; }
template <class T, class Check>
bool inverse_upper(cublasHandle_t h, cudaStream_t s, const T *u, int64_t ldu, T *x, int64_t ldx, int64_t b, T *scratch,
                   Check &&check) {
  invert_diagonal_blocks<<<int(b / 32), 32, 0, s>>>(int(b), dv(u), int(ldu), dv(x), int(ldx));
  if (!check(cudaGetLastError())) return false;
  for (int64_t w = 32; w < b; w *= 2) {  // pairs of w-by-w inverses into 2w-by-2w ones
    const int64_t pairs = b / (2 * w), su = 2 * w * (ldu + 1), sx = 2 * w * (ldx + 1);
    T *p = scratch ? scratch : x + b / 2;  // U12 X22, a w-by-w block a pair
    const int64_t ldp = scratch ? w : ldx, sp = scratch ? w * w : w;
    if (!check(blas::gemm_batched(h, CUBLAS_OP_N, CUBLAS_OP_N, w, w, w, T(1), u + w * ldu, ldu, su, x + w + w * ldx,
                                  ldx, sx, T(0), p, ldp, sp, pairs)) ||
        !check(blas::gemm_batched(h, CUBLAS_OP_N, CUBLAS_OP_N, w, w, w, T(-1), x, ldx, sx, p, ldp, sp, T(0),
                                  x + w * ldx, ldx, sx, pairs)))
      return false;
  }
  if (scratch || b == 32) return true;
  zero_below<<<grid_cols(b, b), 256, 0, s>>>(dv(x), ldx, b, b, 0);
  return check(cudaGetLastError());
}

// *sumsq += ||G - I||_F**2 over a Hermitian b-by-b G of which the upper
// triangle is stored (*sumsq zeroed before).
template <class S> __global__ void gram_deviation(int b, const S *g, int ldg, double *sumsq) {
  double sum = 0;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < int64_t(b) * b;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int i = int(e % b), j = int(e / b);
    if (i > j) continue;
    const double x = dev_abs(i == j ? sub(g[i + int64_t(j) * ldg], dev_one(S())) : g[i + int64_t(j) * ldg]);
    sum += (i == j ? 1 : 2) * x * x;
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
  if (threadIdx.x % 32 == 0) atomicAdd(sumsq, sum);
}

// *ok = 1 where both Cholesky factorizations succeeded, the second Gram
// matrix was within tol of I in the Frobenius norm and no pivot of the
// signed LU (before its sign) reached pivot_max in modulus (a NaN fails),
// else 0.
// hzero[j] = 1 where column j (m entries) is exactly zero, else 0; one
// block a column, written into pinned host memory (as the verdict).
template <class S> __global__ void zero_columns(int64_t m, const S *a, int64_t lda, int *hzero) {
  __shared__ int nonzero;
  if (threadIdx.x == 0) nonzero = 0;
  __syncthreads();
  const S *col = a + blockIdx.x * lda;
  int mine = 0;
  for (int64_t i = threadIdx.x; i < m; i += blockDim.x) mine |= !is_zero(col[i]);
  if (mine) nonzero = 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    hzero[blockIdx.x] = !nonzero;
    __threadfence_system();
  }
}

__global__ void cholqr_verdict(const int *info, const double *sumsq, double tol, const unsigned long long *pivot,
                               double pivot_max, int *ok) {
  *ok = info[0] == 0 && info[1] == 0 && *sumsq <= tol * tol && __longlong_as_double(*pivot) < pivot_max;
  __threadfence_system();  // ok is in pinned host memory
}

__device__ inline float shfl(float x, int lane) { return __shfl_sync(0xffffffffu, x, lane); }
__device__ inline double shfl(double x, int lane) { return __shfl_sync(0xffffffffu, x, lane); }
__device__ inline cuFloatComplex shfl(cuFloatComplex x, int lane) {
  return make_cuFloatComplex(__shfl_sync(0xffffffffu, x.x, lane), __shfl_sync(0xffffffffu, x.y, lane));
}
__device__ inline cuDoubleComplex shfl(cuDoubleComplex x, int lane) {
  return make_cuDoubleComplex(__shfl_sync(0xffffffffu, x.x, lane), __shfl_sync(0xffffffffu, x.y, lane));
}
// The value of the lane whose index differs by the bits of `mask` (a
// butterfly step of a reduction over a group of lanes).
__device__ inline float shfl_xor(float x, int mask) { return __shfl_xor_sync(0xffffffffu, x, mask); }
__device__ inline double shfl_xor(double x, int mask) { return __shfl_xor_sync(0xffffffffu, x, mask); }
__device__ inline cuFloatComplex shfl_xor(cuFloatComplex x, int mask) {
  return make_cuFloatComplex(__shfl_xor_sync(0xffffffffu, x.x, mask), __shfl_xor_sync(0xffffffffu, x.y, mask));
}
__device__ inline cuDoubleComplex shfl_xor(cuDoubleComplex x, int mask) {
  return make_cuDoubleComplex(__shfl_xor_sync(0xffffffffu, x.x, mask), __shfl_xor_sync(0xffffffffu, x.y, mask));
}

// acc - a b in fused multiply-adds (four for complex types, where
// sub(acc, mul(a, b)) takes six operations).
__device__ inline float fms(float acc, float a, float b) { return fmaf(-a, b, acc); }
__device__ inline double fms(double acc, double a, double b) { return fma(-a, b, acc); }
__device__ inline cuFloatComplex fms(cuFloatComplex acc, cuFloatComplex a, cuFloatComplex b) {
  return make_cuFloatComplex(fmaf(-a.x, b.x, fmaf(a.y, b.y, acc.x)), fmaf(-a.x, b.y, fmaf(-a.y, b.x, acc.y)));
}
__device__ inline cuDoubleComplex fms(cuDoubleComplex acc, cuDoubleComplex a, cuDoubleComplex b) {
  return make_cuDoubleComplex(fma(-a.x, b.x, fma(a.y, b.y, acc.x)), fma(-a.x, b.y, fma(-a.y, b.x, acc.y)));
}

// signed_lu_step's tiles: 32 x 32 in shared memory, padded so that a warp
// reading down a column or along a row meets no bank conflicts.
template <class S> using Tile = S[32][33];
constexpr int kLuThreads = 128;

// Tiles t[i] = a(r0[i].., c0[i]..), i < n, zeros outside the b-by-b
// matrix; eight elements a thread, lanes down the columns. Every load is
// issued before the first store, so that they overlap.
template <class S, int N>
__device__ inline void load_tiles(Tile<S> *const (&t)[N], const int (&r0)[N], const int (&c0)[N], int n, const S *a,
                                  int64_t lda, int b) {
  S v[N][8];
#pragma unroll
  for (int k = 0; k < N; ++k)
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int e = threadIdx.x + kLuThreads * i, r = r0[k] + (e & 31), c = c0[k] + (e >> 5);
      v[k][i] = k < n && r < b && c < b ? a[r + int64_t(c) * lda] : dev_zero(S());
    }
#pragma unroll
  for (int k = 0; k < N; ++k)
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int e = threadIdx.x + kLuThreads * i;
      if (k < n) (*t[k])[e & 31][e >> 5] = v[k][i];
    }
}
template <class S> __device__ inline void store_tile(const Tile<S> &t, S *a, int64_t lda, int rows, int cols) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int e = threadIdx.x + kLuThreads * i, r = e & 31, c = e >> 5;
    if (r < rows && c < cols) a[r + int64_t(c) * lda] = t[r][c];
  }
}

// x -= l u for 32 x 32 tiles: a thread's eight elements of one row.
template <class S> __device__ inline void tile_update(Tile<S> &x, const Tile<S> &l, const Tile<S> &u) {
  const int r = threadIdx.x & 31, c0 = 8 * (threadIdx.x >> 5);
  S acc[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) acc[j] = x[r][c0 + j];
#pragma unroll 8
  for (int m = 0; m < 32; ++m) {
    const S lm = l[r][m];
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[j] = fms(acc[j], lm, u[m][c0 + j]);
  }
#pragma unroll
  for (int j = 0; j < 8; ++j) x[r][c0 + j] = acc[j];
}

// Shared memory of signed_lu_step: five tiles and 32 reciprocals.
template <class S> constexpr std::size_t signed_lu_smem() { return 5 * sizeof(Tile<S>) + 32 * sizeof(S); }

// One step (columns kb..kb+w-1, w <= 32) of the LU with signs of the
// b-by-b a, in place, with the previous step's trailing update (rank 32,
// columns kp = kb - 32..) folded in: one launch a step, not a kernel and a
// gemm. Measured reason: 512 columns 0.27 ms idle against 0.52 in two launches a step
// (H100, bench/results/history/qr-tuning-NVIDIA-H200-H100-2026-11-27.txt, item 2).
//   u_kk = a_kk - s_k with s_k = -sign(re a_kk), sign[k] = s_k, and
//   *pivot = max(*pivot, |a_kk|) as a non-negative double's bits, for
//   columns kb + k < checked.
// Blocks of four warps: 0 the diagonal block; 1..nt the row tiles below it,
// which become L (rows times U**-1); nt+1..2nt the column tiles to its
// right, which become U's rows (L**-1 times the columns); then, from the
// second step, the nt x nt tiles of the trailing matrix (rows and columns
// from kb + 32), which take the previous step's update only. Every panel
// block brings the diagonal block up to date and factors it itself (one
// warp, a row a lane): one that stored it would race with another still
// reading it. So block 0 keeps it in slot (32 x 32, ld 32) and stores the
// previous step's from there, as no block of this step reads that one; the
// last step, a single block, stores its own. Every tile a block needs is
// loaded at its start, so that their loads overlap.
template <class S>
__global__ void __launch_bounds__(kLuThreads)
    signed_lu_step(int b, int kb, S *a, int64_t lda, S *slot, double *sign, unsigned long long *pivot, int checked) {
  extern __shared__ __align__(16) unsigned char lu_smem[];
  Tile<S> *tile = reinterpret_cast<Tile<S> *>(lu_smem);
  Tile<S> &d = tile[0], &u = tile[1], &ld = tile[2], &x = tile[3], &p = tile[4];
  S *rinv = reinterpret_cast<S *>(tile + 5);
  const int tid = threadIdx.x, lane = tid & 31, w = min(32, b - kb), kp = kb - 32, nt = (b - kb - w + 31) / 32;
  const int blk = int(blockIdx.x);
  if (blk > 2 * nt) {  // a trailing tile: X -= L(rows, kp..) U(kp.., cols)
    const int t = blk - 1 - 2 * nt, r0 = kb + 32 + 32 * (t % nt), c0 = kb + 32 + 32 * (t / nt);
    Tile<S> *const to[3] = {&x, &p, &u};
    const int rows[3] = {r0, r0, kp}, cols[3] = {c0, kp, c0};
    load_tiles(to, rows, cols, 3, a, lda, b);
    __syncthreads();
    tile_update(x, p, u);
    __syncthreads();
    store_tile(x, a + r0 + int64_t(c0) * lda, lda, b - r0, b - c0);
    return;
  }
  // The panel: the diagonal block, and a row tile (rows r0.., columns kb..)
  // or a column tile (rows kb.., columns c0..) with their parts of the
  // previous step (p: L(r0.., kp..) or U(kp.., c0..)).
  const bool row_tile = blk >= 1 && blk <= nt, col_tile = blk > nt;
  const int r0 = kb + 32 * blk, c0 = kb + 32 * (blk - nt);
  if (blk == 0) {  // d, and from the second step u and ld
    Tile<S> *const to[3] = {&d, &u, &ld};
    const int rows[3] = {kb, kp, kb}, cols[3] = {kb, kb, kp};
    load_tiles(to, rows, cols, kb > 0 ? 3 : 1, a, lda, b);
  } else {  // d and x, and from the second step u, ld and p
    Tile<S> *const to[5] = {&d, &x, &u, &ld, &p};
    const int rows[5] = {kb, row_tile ? r0 : kb, kp, kb, row_tile ? r0 : kp};
    const int cols[5] = {kb, row_tile ? kb : c0, kb, kp, row_tile ? kp : c0};
    load_tiles(to, rows, cols, kb > 0 ? 5 : 2, a, lda, b);
  }
  if (kb > 0) {
    if (blk == 0)  // the previous step's diagonal block, from the slot
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int e = tid + kLuThreads * i;
        a[(kp + (e & 31)) + int64_t(kp + (e >> 5)) * lda] = slot[e];
      }
    __syncthreads();
    tile_update(d, ld, u);
    if (row_tile) tile_update(x, p, u);
    if (col_tile) tile_update(x, ld, p);
  }
  __syncthreads();
  // Factor the diagonal block in one warp: lane r keeps row r,
  // l_rk = a_rk / u_kk, then a_rj -= l_rk u_kj. Rows and columns past w are
  // zero and stay so.
  if (tid < 32) {
    S e[32];
#pragma unroll
    for (int j = 0; j < 32; ++j) e[j] = d[lane][j];
#pragma unroll
    for (int k = 0; k < 32; ++k) {
      if (k >= w) break;
      const S akk = shfl(e[k], k);
      const double s = re(akk) >= 0 ? -1.0 : 1.0;
      const S ukk = sub(akk, real_one(S(), s));
      const S inv = dev_inv(ukk);  // |u_kk| >= 1
      if (lane == k) {
        e[k] = ukk;
        rinv[k] = inv;
        if (blk == 0) {
          sign[kb + k] = s;
          if (kb + k < checked) atomicMax(pivot, static_cast<unsigned long long>(__double_as_longlong(dev_abs(akk))));
        }
      }
      if (lane > k) e[k] = mul(e[k], inv);
#pragma unroll
      for (int j = k + 1; j < 32; ++j) {
        const S ukj = shfl(e[j], k);
        if (lane > k) e[j] = fms(e[j], e[k], ukj);
      }
    }
#pragma unroll
    for (int j = 0; j < 32; ++j) d[lane][j] = e[j];
    __syncwarp();
    if (row_tile) {  // x := x U**-1, a row a lane
      S y[32];
#pragma unroll
      for (int j = 0; j < 32; ++j) y[j] = x[lane][j];
#pragma unroll
      for (int m = 0; m < 32; ++m) {
        y[m] = mul(y[m], rinv[m]);
#pragma unroll
        for (int j = m + 1; j < 32; ++j) y[j] = fms(y[j], y[m], d[m][j]);
      }
#pragma unroll
      for (int j = 0; j < 32; ++j) x[lane][j] = y[j];
    }
    if (col_tile) {  // x := L**-1 x (L unit lower), a column a lane
      S y[32];
#pragma unroll
      for (int i = 0; i < 32; ++i) y[i] = x[i][lane];
#pragma unroll
      for (int m = 0; m < 32; ++m)
#pragma unroll
        for (int i = m + 1; i < 32; ++i) y[i] = fms(y[i], d[i][m], y[m]);
#pragma unroll
      for (int i = 0; i < 32; ++i) x[i][lane] = y[i];
    }
  }
  __syncthreads();
  if (blk == 0) {
    if (nt > 0)
      store_tile(d, slot, 32, 32, 32);
    else
      store_tile(d, a + kb + int64_t(kb) * lda, lda, w, w);
  } else if (row_tile) {
    store_tile(x, a + r0 + int64_t(kb) * lda, lda, b - r0, 32);
  } else {
    store_tile(x, a + kb + int64_t(c0) * lda, lda, 32, b - c0);
  }
}

// t = -U S on the upper triangle (U in u's upper triangle), zero below:
// the right-hand side of T L1**H = -U S.
template <class S> __global__ void t_from_u(int b, const S *u, int64_t ldu, const double *sign, S *t, int ldt) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < int64_t(b) * b;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int i = int(e % b), j = int(e / b);
    t[i + int64_t(j) * ldt] = i <= j ? scaled(-sign[j], u[i + j * ldu]) : dev_zero(S());
  }
}

// The top b-by-b block of the panel: a gets S R above and on the diagonal
// (R in r's upper triangle) and L1 (l's strictly lower triangle) below it;
// v's top block becomes V's unit lower triangle; tau = diag(t).
template <class S>
__global__ void reconstructed_top(int b, const S *r, int ldr, const double *sign, const S *t, int ldt, const S *l,
                                  int64_t ldl, S *v, int64_t ldv, S *a, int64_t lda, S *tau) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < int64_t(b) * b;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int i = int(e % b), j = int(e / b);
    if (i <= j) {
      a[i + j * lda] = scaled(sign[i], r[i + int64_t(j) * ldr]);
      v[i + j * ldv] = i == j ? dev_one(S()) : dev_zero(S());
      if (i == j) tau[i] = t[i + int64_t(i) * ldt];
    } else {
      a[i + j * lda] = v[i + j * ldv] = l[i + j * ldl];
    }
  }
}

// A square panel's last column has no rows below its diagonal. There
// LAPACK's xLARFG gives tau = 0 (H = I) where its alpha is real, and the
// reconstruction tau = 2 (H = -1 on that row): then T's last column is
// zeroed and the last sign flipped, so that R's last row keeps LAPACK's
// sign. Where alpha is not real (complex), xLARFG's tau = 1 - s q (s the
// sign, q the pivot before it) is the reconstruction's, and T stays.
// t's diagonal holds tau; Im(tau) = -s Im(q). One block.
template <class S> __global__ void drop_last_reflector(int b, S *t, int ldt, double *sign) {
  const bool drop = im(t[(b - 1) + int64_t(b - 1) * ldt]) == 0;
  __syncthreads();
  if (!drop) return;
  for (int i = threadIdx.x; i < b; i += blockDim.x) t[i + int64_t(b - 1) * ldt] = dev_zero(S());
  if (threadIdx.x == 0) sign[b - 1] = -sign[b - 1];
}

}  // namespace
}  // namespace hqr::gpu
