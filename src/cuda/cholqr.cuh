// Device kernels of the geqrf panel by CholeskyQR2 and Householder
// reconstruction (geqrf_hybrid.cu, start_cholqr and finish_cholqr): the check that
// CholeskyQR2 may be trusted, the LU with on-the-fly signs of Q's top block,
// the steps that turn it into LAPACK's V, T, tau and R, and a helper of
// its small steps (the diagonal blocks of a triangular inverse).
//
// Ballard, Demmel, Grigori, Jacquelin, Knight, Nguyen, "Reconstructing
// Householder vectors from Tall-Skinny QR" (JPDC 2015): for Q (m by b) with
// orthonormal columns, Q - [S; 0] = L U (no pivoting; S = diag(+-1), each
// sign opposite to the pivot it is subtracted from, so |u_kk| >= 1) gives
// Q = (I - L T L**H) [I; 0] S with T = -U S L1**-H, L1 the top b by b of L.
// So A = Q R = (I - L T L**H) [S R; 0]: V = L, T and tau = diag(T) are
// LAPACK's (tau in [1, 2], as xLARFG makes them), R's rows take the signs S.
#pragma once

#include "cuda/qr_kernels.cuh"

namespace hqr::gpu {
namespace {

__device__ inline double re(float x) { return x; }
__device__ inline double re(double x) { return x; }
__device__ inline double re(cuFloatComplex x) { return x.x; }
__device__ inline double re(cuDoubleComplex x) { return x.x; }
__device__ inline double im(float) { return 0; }
__device__ inline double im(double) { return 0; }
__device__ inline double im(cuFloatComplex x) { return x.y; }
__device__ inline double im(cuDoubleComplex x) { return x.y; }
__device__ inline float mul(float a, float b) { return a * b; }
__device__ inline double mul(double a, double b) { return a * b; }
__device__ inline cuFloatComplex mul(cuFloatComplex a, cuFloatComplex b) { return cuCmulf(a, b); }
__device__ inline cuDoubleComplex mul(cuDoubleComplex a, cuDoubleComplex b) { return cuCmul(a, b); }
__device__ inline float sub(float a, float b) { return a - b; }
__device__ inline double sub(double a, double b) { return a - b; }
__device__ inline cuFloatComplex sub(cuFloatComplex a, cuFloatComplex b) { return cuCsubf(a, b); }
__device__ inline cuDoubleComplex sub(cuDoubleComplex a, cuDoubleComplex b) { return cuCsub(a, b); }
__device__ inline float quo(float a, float b) { return a / b; }
__device__ inline double quo(double a, double b) { return a / b; }
__device__ inline cuFloatComplex quo(cuFloatComplex a, cuFloatComplex b) { return cuCdivf(a, b); }
__device__ inline cuDoubleComplex quo(cuDoubleComplex a, cuDoubleComplex b) { return cuCdiv(a, b); }
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
// multiple of 32; geqrf_hybrid.cu's inverse_upper has the rest): block l
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
    const S d = quo(dev_one(S()), su[j][j]);
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
__global__ void cholqr_verdict(const int *info, const double *sumsq, double tol, const unsigned long long *pivot,
                               double pivot_max, int *ok) {
  *ok = info[0] == 0 && info[1] == 0 && *sumsq <= tol * tol && __longlong_as_double(*pivot) < pivot_max;
  __threadfence_system();  // ok is in pinned host memory
}

// One block column (columns kb..kb+w-1, w <= 32) of the LU with signs of
// the b-by-b a, in place: every block factors the diagonal block in shared
// memory (u_kk = a_kk - s_k with s_k = -sign(re a_kk), sign[k] = s_k,
// *pivot = max(*pivot, |a_kk|) as a non-negative double's bits, for
// columns kb + k < checked);
// block 0 stores it, blocks 1..nblk turn the rows below into L (rows times
// U**-1), the rest turn the columns to the right into U's rows (L**-1
// times the columns). The trailing update is a gemm after this kernel.
// One warp per block.
template <class S>
__global__ void signed_lu_columns(int b, int kb, int w, S *a, int64_t lda, double *sign, unsigned long long *pivot,
                                  int checked) {
  __shared__ S d[32][33];
  const int lane = threadIdx.x;
  S *diag = a + kb + kb * lda;
  for (int j = 0; j < w; ++j)
    if (lane < w) d[lane][j] = diag[lane + j * lda];
  __syncwarp();
  for (int k = 0; k < w; ++k) {
    const double s = re(d[k][k]) >= 0 ? -1.0 : 1.0;
    __syncwarp();
    if (blockIdx.x == 0 && lane == k) {
      sign[kb + k] = s;
      if (kb + k < checked)
        atomicMax(pivot, static_cast<unsigned long long>(__double_as_longlong(dev_abs(d[k][k]))));
    }
    if (lane == k) d[k][k] = sub(d[k][k], real_one(S(), s));
    __syncwarp();
    if (lane > k && lane < w) d[lane][k] = quo(d[lane][k], d[k][k]);
    __syncwarp();
    if (lane > k && lane < w)
      for (int i = k + 1; i < w; ++i) d[i][lane] = sub(d[i][lane], mul(d[i][k], d[k][lane]));
    __syncwarp();
  }
  const int nblk = (b - kb - w + 31) / 32;
  if (blockIdx.x == 0) {
    for (int j = 0; j < w; ++j)
      if (lane < w) diag[lane + j * lda] = d[lane][j];
    return;
  }
  S x[32];
  if (int(blockIdx.x) <= nblk) {  // rows below: x := x U**-1, a row per lane
    const int i = kb + w + 32 * (blockIdx.x - 1) + lane;
    if (i >= b) return;
    S *row = a + i + kb * lda;
#pragma unroll
    for (int j = 0; j < 32; ++j)
      if (j < w) x[j] = row[j * lda];
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      if (j >= w) break;
      S acc = x[j];
#pragma unroll
      for (int k = 0; k < j; ++k) acc = sub(acc, mul(x[k], d[k][j]));
      x[j] = quo(acc, d[j][j]);
      row[j * lda] = x[j];
    }
    return;
  }
  // columns to the right: x := L**-1 x (L unit lower), a column per lane
  const int j = kb + w + 32 * (blockIdx.x - 1 - nblk) + lane;
  if (j >= b) return;
  S *col = a + kb + j * lda;
#pragma unroll
  for (int i = 0; i < 32; ++i)
    if (i < w) x[i] = col[i];
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    if (i >= w) break;
    S acc = x[i];
#pragma unroll
    for (int k = 0; k < i; ++k) acc = sub(acc, mul(d[i][k], x[k]));
    x[i] = acc;
    col[i] = acc;
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
