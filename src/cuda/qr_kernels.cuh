// Device kernels and helpers that the QR paths share (geqrf_hybrid.cu,
// qr_apply.cu, qr_one_trip.cu, qrupd_cols.cu, qrupd_rows.cu;
// inverse_hybrid.cu through one_trip.cuh): warp sums and maxima, xLAPY2
// and xLAPY3, one warp's xLARFG (a column's Householder reflector), the
// first zero on a diagonal, the unit-triangle copy of a panel's
// reflectors, the setup of the larft T from V**H V, the identity where a
// reflector's tau is zero, max |a_ij| (LAPACK's xLANGE 'M') and identity
// blocks; and the triangle mirror that the upper Cholesky factors of
// geqrf's panels and of potrf's diagonal blocks use (with the NaN pivot
// test that potrf's INFO needs). In an unnamed namespace: each translation
// unit gets its own copy, as the kernels are small.
#pragma once

#include <cuComplex.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <complex>
#include <cstdint>

namespace hqr::gpu {
namespace {

// The device spelling of an element type, for hqr's own kernels.
template <class T> struct Dev { using type = T; };
template <> struct Dev<std::complex<float>> { using type = cuFloatComplex; };
template <> struct Dev<std::complex<double>> { using type = cuDoubleComplex; };
template <class T> typename Dev<T>::type *dv(T *p) { return reinterpret_cast<typename Dev<T>::type *>(p); }
template <class T> const typename Dev<T>::type *dv(const T *p) {
  return reinterpret_cast<const typename Dev<T>::type *>(p);
}

__device__ inline float dev_one(float) { return 1.f; }
__device__ inline double dev_one(double) { return 1.; }
__device__ inline cuFloatComplex dev_one(cuFloatComplex) { return make_cuFloatComplex(1.f, 0.f); }
__device__ inline cuDoubleComplex dev_one(cuDoubleComplex) { return make_cuDoubleComplex(1., 0.); }
__device__ inline float dev_zero(float) { return 0.f; }
__device__ inline double dev_zero(double) { return 0.; }
__device__ inline cuFloatComplex dev_zero(cuFloatComplex) { return make_cuFloatComplex(0.f, 0.f); }
__device__ inline cuDoubleComplex dev_zero(cuDoubleComplex) { return make_cuDoubleComplex(0., 0.); }
__device__ inline bool is_zero(float x) { return x == 0.f; }
__device__ inline bool is_zero(double x) { return x == 0.; }
__device__ inline bool is_zero(cuFloatComplex x) { return x.x == 0.f && x.y == 0.f; }
__device__ inline bool is_zero(cuDoubleComplex x) { return x.x == 0. && x.y == 0.; }
// A NaN real part (a Cholesky pivot: LAPACK's xPOTRF stops at one).
__device__ inline bool nan_real(float x) { return isnan(x); }
__device__ inline bool nan_real(double x) { return isnan(x); }
__device__ inline bool nan_real(cuFloatComplex x) { return isnan(x.x); }
__device__ inline bool nan_real(cuDoubleComplex x) { return isnan(x.x); }
__device__ inline float dev_inv(float x) { return 1.f / x; }
__device__ inline double dev_inv(double x) { return 1. / x; }
__device__ inline cuFloatComplex dev_inv(cuFloatComplex x) { return cuCdivf(make_cuFloatComplex(1.f, 0.f), x); }
__device__ inline cuDoubleComplex dev_inv(cuDoubleComplex x) { return cuCdiv(make_cuDoubleComplex(1., 0.), x); }
__device__ inline double dev_abs(float x) { return fabs(double(x)); }
__device__ inline double dev_abs(double x) { return fabs(x); }
__device__ inline double dev_abs(cuFloatComplex x) { return hypot(double(x.x), double(x.y)); }
__device__ inline double dev_abs(cuDoubleComplex x) { return hypot(x.x, x.y); }
__device__ inline double re(float x) { return x; }
__device__ inline double re(double x) { return x; }
__device__ inline double re(cuFloatComplex x) { return x.x; }
__device__ inline double re(cuDoubleComplex x) { return x.x; }
__device__ inline double im(float) { return 0; }
__device__ inline double im(double) { return 0; }
__device__ inline double im(cuFloatComplex x) { return x.y; }
__device__ inline double im(cuDoubleComplex x) { return x.y; }

__device__ inline float cj(float x) { return x; }
__device__ inline double cj(double x) { return x; }
__device__ inline cuFloatComplex cj(cuFloatComplex x) { return cuConjf(x); }
__device__ inline cuDoubleComplex cj(cuDoubleComplex x) { return cuConj(x); }

// Sums and maxima over a warp, every lane getting the result; a NaN
// anywhere makes the maximum NaN.
__device__ inline float warp_sum(float x) {
  for (int o = 16; o > 0; o /= 2) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}
__device__ inline double warp_sum(double x) {
  for (int o = 16; o > 0; o /= 2) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}
__device__ inline cuFloatComplex warp_sum(cuFloatComplex x) { return make_cuFloatComplex(warp_sum(x.x), warp_sum(x.y)); }
__device__ inline cuDoubleComplex warp_sum(cuDoubleComplex x) {
  return make_cuDoubleComplex(warp_sum(x.x), warp_sum(x.y));
}
template <class R> __device__ inline R warp_max(R x) {
  for (int o = 16; o > 0; o /= 2) {
    const R y = __shfl_xor_sync(0xffffffffu, x, o);
    if (y > x || y != y) x = y;
  }
  return x;
}

// LAPACK's xLAPY2 and xLAPY3: sqrt(x**2 + y**2) and sqrt(x**2 + y**2 +
// z**2) without needless overflow. xLAPY2 returns a NaN argument, as
// LAPACK's does; in xLAPY3 a NaN gives NaN through the quotients.
template <class R> __device__ inline R lapy2(R x, R y) {
  if (x != x) return x;
  if (y != y) return y;
  const R a = fabs(x), b = fabs(y), w = fmax(a, b), z = fmin(a, b);
  if (z == 0 || isinf(w)) return w;
  const R q = z / w;
  return w * sqrt(R(1) + q * q);
}
__device__ inline double lapy3(double x, double y, double z) {
  const double w = fmax(fabs(x), fmax(fabs(y), fabs(z)));
  if (w == 0 || isinf(w)) return fabs(x) + fabs(y) + fabs(z);
  return w * sqrt((x / w) * (x / w) + (y / w) * (y / w) + (z / w) * (z / w));
}

__device__ inline float complex_of(float, double r, double) { return float(r); }
__device__ inline double complex_of(double, double r, double) { return r; }
__device__ inline cuFloatComplex complex_of(cuFloatComplex, double r, double i) {
  return make_cuFloatComplex(float(r), float(i));
}
__device__ inline cuDoubleComplex complex_of(cuDoubleComplex, double r, double i) { return make_cuDoubleComplex(r, i); }

// xLARFG's scalars by one warp for column j of a panel (col, rows
// j..mk-1): alpha = col[j], x = col[j+1..], ssq the warp's sum of
// |x_i|**2. tau, beta and f, the factor that turns x into v's entries
// below its unit, go to *tau, *beta and *f from lane 0; the caller scales
// x and stores beta (panel_qr.cuh's panel_qr, qrupd_cols.cu's band_qr).
// Arithmetic in double for every element type, so that single-precision
// data never needs xLARFG's rescaling, which is kept for double. Where
// alpha and x are far from under- and overflow, beta takes one square root
// and tau and f one division each: on the kernel's critical path, double
// division and square roots are sequences of dependent instructions.
template <class S> __device__ void warp_larfg(int mk, int j, const S *col, double ssq, S *tau, S *beta, S *f) {
  const int lane = threadIdx.x & 31;
  double alphr = re(col[j]), alphi = im(col[j]);
  const double a2 = alphr * alphr + alphi * alphi;
  S t = dev_zero(S()), b = col[j];
  double fr = 1, fi = 0;
  if (ssq >= 1e-280 && ssq <= 1e280 && (a2 == 0 || (a2 >= 1e-280 && a2 <= 1e280))) {
    const double be = -copysign(sqrt(a2 + ssq), alphr), rb = 1 / be;
    t = complex_of(S(), (be - alphr) * rb, -alphi * rb);
    const double dr = alphr - be, di = alphi, rd = 1 / (dr * dr + di * di);  // |dr| >= |beta|
    fr = dr * rd, fi = -di * rd;
    b = complex_of(S(), be, 0);
  } else {
    double xnorm = 0, amax = 0;  // xNRM2 with its scaling
    for (int i = j + 1 + lane; i < mk; i += 32) {
      const double a = dev_abs(col[i]);
      if (a > amax || a != a) amax = a;
    }
    amax = warp_max(amax);
    xnorm = amax;
    if (amax > 0 && amax <= DBL_MAX) {
      double s = 0;
      for (int i = j + 1 + lane; i < mk; i += 32) {
        const double r = re(col[i]) / amax, q = im(col[i]) / amax;
        s += r * r + q * q;
      }
      xnorm = amax * sqrt(warp_sum(s));
    }
    if (!(xnorm == 0 && alphi == 0)) {
      const double safmin = DBL_MIN / (DBL_EPSILON / 2), rsafmn = 1 / safmin;
      double be = -copysign(lapy3(alphr, alphi, xnorm), alphr), scale = 1;
      int knt = 0;
      if (fabs(be) < safmin) {  // beta may be inaccurate: scale x and alpha up, up to 20 times
        do {
          ++knt;
          scale *= rsafmn;
          be *= rsafmn;
          alphr *= rsafmn;
          alphi *= rsafmn;
        } while (fabs(be) < safmin && knt < 20);
        be = -copysign(lapy3(alphr, alphi, xnorm * scale), alphr);
      }
      t = complex_of(S(), (be - alphr) / be, -alphi / be);
      // f = scale / (alpha - beta), the division as Smith's.
      const double dr = alphr - be, di = alphi;
      if (fabs(dr) >= fabs(di)) {
        const double r = di / dr, den = dr + di * r;
        fr = 1 / den, fi = -r / den;
      } else {
        const double r = dr / di, den = di + dr * r;
        fr = r / den, fi = -1 / den;
      }
      fr *= scale, fi *= scale;
      for (int k = 0; k < knt; ++k) be *= safmin;
      b = complex_of(S(), be, 0);
    }
  }
  if (lane == 0) *tau = t, *beta = b, *f = complex_of(S(), fr, fi);
}

// The first i (from 1) with d(i-1, i-1) exactly zero, 0 if none (the
// singularity checks of xTRTRI and xTRTRS), by the whole block, every
// thread getting it.
template <class S> __device__ int first_zero_diagonal(int64_t n, const S *d, int64_t ldd) {
  __shared__ unsigned long long first;
  if (threadIdx.x == 0) first = n;
  __syncthreads();
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
    if (is_zero(d[i + i * ldd])) atomicMin(&first, static_cast<unsigned long long>(i));
  __syncthreads();
  return first < static_cast<unsigned long long>(n) ? int(first + 1) : 0;
}

// The conjugate of one strict triangle of a (b by b) into the other, and
// zeros where it came from: to_upper, a lower L becomes the upper L**H;
// otherwise an upper U becomes the lower U**H. Upper Cholesky factors go
// through cuSOLVER's lower potrf this way, its faster one (at b = 512 on
// the H200: 0.21 ms against 0.38; bench/results/history/qr-NVIDIA-H200-2026-11-25b.txt).
// Each pair (i, j), i < j, belongs to one
// thread.
template <class S> __global__ void mirror_triangle(int b, S *a, int lda, bool to_upper) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < int64_t(b) * b;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % b, j = e / b;
    if (i >= j) continue;
    S *up = a + i + j * lda, *lo = a + j + i * lda;
    if (to_upper) {
      *up = cj(*lo);
      *lo = dev_zero(S());
    } else {
      *lo = cj(*up);
      *up = dev_zero(S());
    }
  }
}

// v = the m-by-n unit lower trapezoid of a: a's entries below the
// diagonal, ones on it, zeros above.
template <class S> __global__ void unit_lower_copy(int64_t m, int64_t n, const S *a, int64_t lda, S *v, int64_t ldv) {
  const int64_t total = m * n;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % m, j = e / m;
    v[i + j * ldv] = i > j ? a[i + j * lda] : i == j ? dev_one(S()) : dev_zero(S());
  }
}

// From G = V**H V (upper triangle) and tau: u = diag(1/tau) + strictly
// upper G, in place, and t = I unless t is null (a trsm against I needs
// it, inverse_upper writes all of t), ready for t = u**-1 (the larft T). A
// reflector with tau = 0 is the identity: its row and column of u are
// zeroed (1 on the diagonal) so that it drops out; fix_zero_tau then zeroes
// T's diagonal there, as LAPACK's xLARFT leaves it.
template <class S> __global__ void t_inverse_setup(int k, S *u, int ldu, const S *tau, S *t, int ldt) {
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < k * k; e += gridDim.x * blockDim.x) {
    const int i = e % k, j = e / k;
    if (t) t[i + j * ldt] = i == j ? dev_one(S()) : dev_zero(S());
    if (i > j) continue;
    if (i == j)
      u[i + j * ldu] = is_zero(tau[i]) ? dev_one(S()) : dev_inv(tau[i]);
    else if (is_zero(tau[i]) || is_zero(tau[j]))
      u[i + j * ldu] = dev_zero(S());
  }
}
template <class S> __global__ void fix_zero_tau(int k, const S *tau, S *t, int ldt) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < k; i += gridDim.x * blockDim.x)
    if (is_zero(tau[i])) t[i + i * ldt] = dev_zero(S());
}

// *amax = max(*amax, max |a_ij|) over an m-by-n block, as the bits of a
// non-negative double (their order as integers is the order of the values;
// NaN, made positive by the absolute value, sorts above infinity, so a NaN
// anywhere gives NaN as LAPACK 3.11's xLANGE does).
template <class S>
__global__ void max_abs(int64_t m, int64_t n, const S *a, int64_t lda, unsigned long long *amax) {
  const int64_t total = m * n;
  double best = 0;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const double x = dev_abs(a[e % m + (e / m) * lda]);
    if (best == best && !(x <= best)) best = x;  // a NaN, once found, stays
  }
  __shared__ unsigned long long block_best;
  if (threadIdx.x == 0) block_best = 0;
  __syncthreads();
  atomicMax(&block_best, static_cast<unsigned long long>(__double_as_longlong(best)));
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(amax, block_best);
}

// a(i, j) = (i == j + d) ? 1 : 0 on an m-by-n block: the identity shifted
// down by d rows (the columns of [0; I; 0] that xORGQR starts from).
template <class S> __global__ void set_identity(int64_t m, int64_t n, int64_t d, S *a, int64_t lda) {
  const int64_t total = m * n;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % m, j = e / m;
    a[i + j * lda] = i == j + d ? dev_one(S()) : dev_zero(S());
  }
}

// a(r, c) = 0 for r > c + shift, r < rows, c < cols: a strictly lower
// triangle (shift 0) or what lies below a band of `shift` subdiagonals.
// Columns run over gridDim.y (at most 65535) in strides: grid_cols.
template <class S> __global__ void zero_below(S *a, int64_t lda, int64_t rows, int64_t cols, int64_t shift) {
  for (int64_t c = blockIdx.y; c < cols; c += gridDim.y)
    for (int64_t r = c + shift + 1 + blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
         r += int64_t(gridDim.x) * blockDim.x)
      a[r + c * lda] = dev_zero(S());
}
inline dim3 grid_cols(int64_t rows, int64_t cols) {
  return dim3(unsigned(std::min<int64_t>(64, std::max<int64_t>(1, (rows + 255) / 256))),
              unsigned(std::min<int64_t>(65535, std::max<int64_t>(1, cols))));
}

// a(i, i) += 1 for i < n.
__device__ inline void add_one(float &x) { x += 1.f; }
__device__ inline void add_one(double &x) { x += 1.; }
__device__ inline void add_one(cuFloatComplex &x) { x.x += 1.f; }
__device__ inline void add_one(cuDoubleComplex &x) { x.x += 1.; }
template <class S> __global__ void add_identity(int64_t n, S *a, int64_t lda) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    add_one(a[i + i * lda]);
}

// Blocks for a grid-stride kernel over `count` elements.
inline int grid_for(int64_t count, int threads = 256, int cap = 4096) {
  const int64_t b = (count + threads - 1) / threads;
  return int(b < 1 ? 1 : b > cap ? cap : b);
}

}  // namespace
}  // namespace hqr::gpu
