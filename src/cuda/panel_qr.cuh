// xGEQRF on the device for small matrices (the QR one trip, qr_one_trip.cu):
// each panel of b columns is factored by one thread block holding it in
// shared memory (panel_qr: xGEQR2 and xLARFT in one launch), and the rest
// of the matrix is updated by two gemms a panel.
//
// Why: cuSOLVER's geqrf is bound by its column steps at these orders (H200,
// d, on the device: 256^2 0.68 ms, 512^2 1.67 ms; its geqr2 kernel 3.7 us
// a column), and hqr's CholeskyQR2 panels by a score of small launches a
// panel. Here a column costs one barrier: warp c owns column c of the
// panel, forms v_j**H c and its update itself, and the owner of column j+1
// forms the next reflector's scalars straight after its own update. What
// bounds it (ncu, H200, at the profiler's 1.5 GHz): a 512-by-32 panel takes
// 166-168 us in double, of which each column step's loads and stores of
// the pivot and of every column (2560 warp accesses of two wavefronts at
// 512 rows) are the most; a 64-row panel still takes 60-80 us, about 2 us
// a column of barrier, reductions and xLARFG's serial chain. Cutting the
// instructions by a third sped single precision up by a tenth and double
// not at all; the panel held in registers (a warp a block of rows, a lane
// a column, four barriers a column) was slower at every order, and so was
// a blocked panel (the columns right of each 4 or 8 taking those
// reflectors at once: 198 against 173 us for a 256-row panel in complex
// double). T formed by all warps instead of one lane a row, and z four
// columns a thread, took 12-18 us off each panel (ncu)
// (bench/results/qr-tuning-NVIDIA-H200-2026-11-27c.txt and -27d.txt).
#pragma once

#include <cfloat>

#include "cuda/blas.cuh"
#include "cuda/cholqr.cuh"
#include "cuda/qr_kernels.cuh"

namespace hqr::gpu {
namespace {

__device__ inline float neg(float x) { return -x; }
__device__ inline double neg(double x) { return -x; }
__device__ inline cuFloatComplex neg(cuFloatComplex x) { return make_cuFloatComplex(-x.x, -x.y); }
__device__ inline cuDoubleComplex neg(cuDoubleComplex x) { return make_cuDoubleComplex(-x.x, -x.y); }
__device__ inline float complex_of(float, double r, double) { return float(r); }
__device__ inline double complex_of(double, double r, double) { return r; }
__device__ inline cuFloatComplex complex_of(cuFloatComplex, double r, double i) {
  return make_cuFloatComplex(float(r), float(i));
}
__device__ inline cuDoubleComplex complex_of(cuDoubleComplex, double r, double i) { return make_cuDoubleComplex(r, i); }

// xLARFG's scalars by one warp for column j of a panel in shared memory
// (col, rows j..mk-1): alpha = col[j], x = col[j+1..], ssq the warp's sum
// of |x_i|**2. tau, beta and f, the factor that turns x into v's entries
// below its unit, go to *tau, *beta and *f; the caller scales x (panel_qr).
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

// Shared memory of panel_qr for an mk-row panel of up to B columns: the
// panel, T, the products v_j**H v_c, tau, beta and f.
template <class S> constexpr std::size_t panel_qr_smem(int64_t mk, int b) {
  return (std::size_t(mk) * b + 2 * std::size_t(b) * b + 3 * std::size_t(b)) * sizeof(S);
}

// LAPACK's xGEQR2 and xLARFT (forward, columnwise) of the mk-by-kb panel a
// (kb <= B <= mk), one block of 32 B threads: a gets R and the
// reflectors, tau the kb scalars, v (leading dimension ldv) the reflectors
// with their unit upper triangle written out, and z = V T, so that
// C := H**H C = C - V (Z**H C) takes two gemms.
//
// Warp c owns column c. The critical path is one warp a column: the owner
// of column j+1 updates it by reflector j, forms reflector j+1's scalars
// and scales its x; the other warps' loops test nothing per element past
// the first 32 rows.
template <class S, int B>
__global__ void __launch_bounds__(32 * B)
    panel_qr(int mk, int kb, S *a, int64_t lda, S *tau, S *v, int64_t ldv, S *z, int64_t ldz) {
  extern __shared__ __align__(16) unsigned char smem[];
  S *sa = reinterpret_cast<S *>(smem);  // the panel, leading dimension mk
  S *st = sa + int64_t(mk) * B;        // T, B by B
  S *ss = st + B * B;                  // ss[c + j B] = v_j**H v_c, c < j
  S *stau = ss + B * B, *sbeta = stau + B, *sf = sbeta + B;
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const S one = dev_one(S()), zero = dev_zero(S());
  auto ssq_of = [](S x) { return re(x) * re(x) + im(x) * im(x); };
  if (w < kb)
    for (int i = lane; i < mk; i += 32) sa[i + w * mk] = a[i + w * lda];
  if (w == 0) {
    __syncwarp();
    double ssq = 0;
    for (int i = 1 + lane; i < mk; i += 32) ssq += ssq_of(sa[i]);
    warp_larfg(mk, 0, sa, warp_sum(ssq), stau, sbeta, sf);
    __syncwarp();
    for (int i = 1 + lane; i < mk; i += 32) sa[i] = mul(sa[i], sf[0]);
  }
  __syncthreads();
  // Step j: every other column c gets s = v_j**H c. The later ones are
  // updated, c -= conj(tau_j) v_j s (H_j**H c), the earlier ones keep s
  // for T.
  for (int j = 0; j < kb; ++j) {
    if (w < kb && w != j) {
      S *cw = sa + int64_t(w) * mk;
      const S *xj = sa + int64_t(j) * mk;
      // Reflector j's entry in row i: rows above j (all in the first 32,
      // as j < B) are zero, row j is its unit.
      auto vj = [&](int i) { return i > j ? xj[i] : i == j ? one : zero; };
      S acc = lane < mk ? fms(zero, cj(vj(lane)), cw[lane]) : zero;  // -s
#pragma unroll 4
      for (int i = lane + 32; i < mk; i += 32) acc = fms(acc, cj(xj[i]), cw[i]);
      const S s = neg(warp_sum(acc));
      if (w == j + 1) {  // update, then reflector j+1 from the updated column
        const S g = mul(cj(stau[j]), s);
        double ssq = 0;  // over rows below j+1
        if (lane < mk) {
          const S x = fms(cw[lane], vj(lane), g);
          cw[lane] = x;
          ssq = lane > j + 1 ? ssq_of(x) : 0.;
        }
#pragma unroll 4
        for (int i = lane + 32; i < mk; i += 32) {
          const S x = fms(cw[i], xj[i], g);
          cw[i] = x;
          ssq += ssq_of(x);
        }
        __syncwarp();
        warp_larfg(mk, j + 1, cw, warp_sum(ssq), stau + j + 1, sbeta + j + 1, sf + j + 1);
        __syncwarp();
        const S f = sf[j + 1];
        for (int i = j + 2 + lane; i < mk; i += 32) cw[i] = mul(cw[i], f);
      } else if (w > j) {
        const S g = mul(cj(stau[j]), s);
        if (lane < mk) cw[lane] = fms(cw[lane], vj(lane), g);
#pragma unroll 4
        for (int i = lane + 32; i < mk; i += 32) cw[i] = fms(cw[i], xj[i], g);
      } else if (lane == 0) {
        ss[w + j * B] = s;
      }
    }
    __syncthreads();
  }
  // T: warp t forms row t, lane j its entry T(t, j) = -tau_j
  // sum_{k=t}^{j-1} T(t, k) conj(v_j**H v_k). Each T(t, k), once final,
  // goes from lane k to the lanes right of it, which add its term: a chain
  // of kb - t shuffles, where one lane a row would chain its whole sum.
  if (w < kb) {
    const int t = w, j = lane;
    S acc = zero, x = zero;  // acc: -sum so far
    for (int k = t; k < kb; ++k) {
      const S tk = shfl(k == t ? stau[t] : mul(stau[j < kb ? j : 0], acc), k);
      if (j == k) x = tk;
      if (j > k && j < kb) acc = fms(acc, tk, cj(ss[k + j * B]));
    }
    if (j < kb) st[t + j * B] = x;
  }
  __syncthreads();
  // The outputs: a and v a thread an element; z = V T, whose (i, c)
  // entry is sum_{k <= min(i, c)} V(i, k) T(k, c), a thread a row and
  // four columns, so that each V(i, k) is read once for the four (T's
  // zeros below its diagonal make the sums run to the group's last
  // column).
  for (int e = threadIdx.x; e < mk * kb; e += 32 * B) {
    const int i = e % mk, c = e / mk;
    const S x = sa[i + c * mk];
    a[i + c * lda] = i == c ? sbeta[c] : x;
    v[i + c * ldv] = i < c ? zero : i == c ? one : x;
  }
  constexpr int G = 4;
  for (int e = threadIdx.x; e < mk * ((kb + G - 1) / G); e += 32 * B) {
    const int i = e % mk, c0 = e / mk * G, kmax = min(i, min(c0 + G, kb) - 1);
    S acc[G];  // -(V T)(i, c0 + q)
#pragma unroll
    for (int q = 0; q < G; ++q) acc[q] = zero;
    for (int k = 0; k <= kmax; ++k) {
      const S vik = k < i ? sa[i + k * mk] : one;
#pragma unroll
      for (int q = 0; q < G; ++q) acc[q] = fms(acc[q], vik, st[k + (c0 + q) * B]);
    }
#pragma unroll
    for (int q = 0; q < G; ++q)
      if (c0 + q < kb) z[i + (c0 + q) * ldz] = neg(acc[q]);
  }
  if (threadIdx.x < kb) tau[threadIdx.x] = stau[threadIdx.x];
}

// The panel width for an m-row matrix: the widest of 32, 16 and 8 columns
// whose panel fits the device's shared memory (`smem` bytes a block), 0 if
// none does; at most 16 where a column holds 4 KiB or more. A panel's
// column steps move about b**2 mk elements through shared memory, so at
// those heights, where that traffic sets the pace, halving b pays for
// twice the panels (H200: d 768^2 2.86-2.89 ms in panels of 32, 2.55 in
// panels of 16; d 256^2 and s 512^2 slower in 16).
template <class T> int panel_qr_width(int64_t m, std::size_t smem) {
  using S = typename Dev<T>::type;
  for (int b : {32, 16, 8})
    if (panel_qr_smem<S>(m, b) <= smem && (b < 32 || m * int64_t(sizeof(S)) < 4096)) return b;
  return 0;
}
// Device workspace of geqrf_small, in elements: V and Z (m by b), W (b by n).
inline std::size_t geqrf_small_work(int64_t m, int64_t n, int b) { return std::size_t(b) * (2 * m + n); }

// panel_qr<B> on an mk-row panel; `first` lets the kernel have the shared
// memory of the call's first (tallest) panel.
template <class T, int B>
cudaError_t launch_panel_qr(cudaStream_t s, bool first, int64_t mk, int64_t kb, T *a, int64_t lda, T *tau, T *v, T *z) {
  using S = typename Dev<T>::type;
  const std::size_t bytes = panel_qr_smem<S>(mk, B);
  if (first) {
    const cudaError_t e = cudaFuncSetAttribute(panel_qr<S, B>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
    if (e != cudaSuccess) return e;
  }
  panel_qr<S, B><<<1, 32 * B, bytes, s>>>(int(mk), int(kb), dv(a), lda, dv(tau), dv(v), mk, dv(z), mk);
  return cudaGetLastError();
}

// LAPACK's xGEQRF of the m-by-n a (leading dimension lda, on the device)
// in panels of b columns (panel_qr_width), tau into tau, on h's stream s;
// work holds geqrf_small_work(m, n, b) elements. check(status) records a
// failure.
template <class T, class Check>
bool geqrf_small(cublasHandle_t h, cudaStream_t s, int64_t m, int64_t n, T *a, int64_t lda, T *tau, int b, T *work,
                 Check &&check) {
  const int64_t k = std::min(m, n);
  T *v = work, *z = work + std::size_t(m) * b, *w = z + std::size_t(m) * b;
  for (int64_t k0 = 0; k0 < k; k0 += b) {
    const int64_t kb = std::min<int64_t>(b, k - k0), mk = m - k0, nc = n - k0 - kb;
    T *p = a + k0 + k0 * lda;
    const bool first = k0 == 0;
    const cudaError_t e = b == 32   ? launch_panel_qr<T, 32>(s, first, mk, kb, p, lda, tau + k0, v, z)
                          : b == 16 ? launch_panel_qr<T, 16>(s, first, mk, kb, p, lda, tau + k0, v, z)
                                    : launch_panel_qr<T, 8>(s, first, mk, kb, p, lda, tau + k0, v, z);
    if (!check(e)) return false;
    if (nc > 0) {
      T *c = p + kb * lda;
      if (!check(blas::gemm(h, blas::op_c<T>(), CUBLAS_OP_N, kb, nc, mk, T(1), z, mk, c, lda, T(0), w, b)) ||
          !check(blas::gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, mk, nc, kb, T(-1), v, mk, w, b, T(1), c, lda)))
        return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace hqr::gpu
