// xGEQRF on the device for small matrices (the QR one trip, qr_one_trip.cu):
// each panel of b columns is factored by one thread block holding it in
// shared memory (panel_qr: xGEQR2 and xLARFT in one launch), and the rest
// of the matrix is updated by two gemms a panel, beside the next panel
// (geqrf_small's two lanes).
//
// A column costs one barrier: warp c owns column c of the panel, forms
// v_j**H c and its update itself, and the owner of column j+1 forms the
// next reflector's scalars straight after its own update. T is formed by
// all warps (warp t row t), z = V T four columns a thread.
//
// Measured reasons (H200, ncu at 1.5 GHz):
// - cuSOLVER's geqrf is bound by its column steps, 3.7 us a column at 512^2
//   (bench/results/history/qr-tuning-NVIDIA-H200-2026-11-27c.txt)
// - a column in shared memory, not registers: v7 (registers by rows) 512-row panel 209-225 us against 166
//   (bench/results/history/qr-tuning-NVIDIA-H200-2026-11-27c.txt, items 5-6)
// - column steps, not a blocked panel: z 256-row panel 173 against 198 us
//   (bench/results/history/qr-tuning-NVIDIA-H200-2026-11-27d.txt, item 1)
// - T by all warps and z four columns a thread: z 256-row panel 173 -> 155 us
//   (bench/results/history/qr-tuning-NVIDIA-H200-2026-11-27d.txt, item 2)
#pragma once

#include <type_traits>

#include "cuda/blas.cuh"
#include "cuda/cholqr.cuh"
#include "cuda/context.hpp"
#include "cuda/qr_kernels.cuh"

namespace hqr::gpu {
namespace {

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
// With `update`, the panel first takes the previous panel's block
// reflector (pv and pz, its V and Z, leading dimension mk + B), which
// reaches the B rows above it too: geqrf_small's gemms then update the
// columns past this panel while it is factored, so that the panels follow
// one another with no gemm between them.
//
// Warp c owns column c. The critical path is one warp a column: the owner
// of column j+1 updates it by reflector j, forms reflector j+1's scalars
// and scales its x; the other warps' loops test nothing per element past
// the first 32 rows.
template <class S, int B>
__global__ void __launch_bounds__(32 * B, 1)
    panel_qr(int mk, int kb, bool update, const S *pv, const S *pz, S *a, int64_t lda, S *tau, S *v, int64_t ldv, S *z,
             int64_t ldz) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int up = update ? B : 0, ld = mk + up;  // rows above the panel; the leading dimension of sa
  S *sa = reinterpret_cast<S *>(smem);  // the rows above (if any), then the panel
  S *sp = sa + up;                      // the panel
  S *st = sa + int64_t(ld) * B;         // T, B by B
  S *ss = st + B * B;                   // ss[c + j B] = v_j**H v_c, c < j
  S *stau = ss + B * B, *sbeta = stau + B, *sf = sbeta + B;
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const S one = dev_one(S()), zero = dev_zero(S());
  auto ssq_of = [](S x) { return re(x) * re(x) + im(x) * im(x); };
  if (w < kb)
    for (int i = lane; i < ld; i += 32) sa[i + w * ld] = a[i - up + w * lda];
  if (up) {
    // C := C - V (Z**H C), C the ld-by-kb sa, on the block's FP64 units.
    // W = Z**H C goes to ss (free until the column steps) in 4-by-4
    // tiles, a warp a tile, a lane every 32nd row, so that each Z(i, r)
    // and C(i, c) loaded serves four products; then a thread forms G
    // columns of a row of C - V W, its row of V loaded at once. Z and V
    // come from L2: a thread an entry of W, or a warp a row of it, or V's
    // row a few entries at a time, left those loads' latency to pace the
    // update, which then cost more than the gemms it spared.
    constexpr int TR = 4, TC = 4, G = 4;
    __syncthreads();
    const int ntr = B / TR, ntc = (kb + TC - 1) / TC;
    for (int t = w; t < ntr * ntc; t += B) {
      const int r0 = t % ntr * TR, c0 = t / ntr * TC;
      S acc[TR][TC];  // -W(r0 + r, c0 + c) so far
#pragma unroll
      for (int r = 0; r < TR; ++r)
#pragma unroll
        for (int c = 0; c < TC; ++c) acc[r][c] = zero;
#pragma unroll 4
      for (int i = lane; i < ld; i += 32) {
        S zr[TR], cc[TC];
#pragma unroll
        for (int r = 0; r < TR; ++r) zr[r] = cj(pz[i + int64_t(r0 + r) * ld]);
#pragma unroll
        for (int c = 0; c < TC; ++c) cc[c] = c0 + c < kb ? sa[i + (c0 + c) * ld] : zero;
#pragma unroll
        for (int r = 0; r < TR; ++r)
#pragma unroll
          for (int c = 0; c < TC; ++c) acc[r][c] = fms(acc[r][c], zr[r], cc[c]);
      }
#pragma unroll
      for (int r = 0; r < TR; ++r)
#pragma unroll
        for (int c = 0; c < TC; ++c) {
          const S x = warp_sum(acc[r][c]);
          if (lane == 0 && c0 + c < kb) ss[r0 + r + (c0 + c) * B] = neg(x);
        }
    }
    __syncthreads();
    const int ngc = (kb + G - 1) / G;
    for (int e = threadIdx.x; e < ld * ngc; e += 32 * B) {
      const int i = e % ld, c0 = e / ld * G;
      S x[G];
#pragma unroll
      for (int q = 0; q < G; ++q) x[q] = c0 + q < kb ? sa[i + (c0 + q) * ld] : zero;
#pragma unroll
      for (int r = 0; r < B; ++r) {
        const S vir = pv[i + int64_t(r) * ld];
#pragma unroll
        for (int q = 0; q < G; ++q) x[q] = fms(x[q], vir, ss[r + min(c0 + q, B - 1) * B]);
      }
#pragma unroll
      for (int q = 0; q < G; ++q)
        if (c0 + q < kb) sa[i + (c0 + q) * ld] = x[q];
    }
    __syncthreads();
  }
  // Reflector c from column c (col) by the warp that owns the column, ssq
  // its lanes' parts of the sum of |x_i|**2 below row c: the scalars, then
  // x scaled into v's entries.
  auto reflector = [&](int c, S *col, double ssq) {
    warp_larfg(mk, c, col, warp_sum(ssq), stau + c, sbeta + c, sf + c);
    __syncwarp();
    const S f = sf[c];
    for (int i = c + 1 + lane; i < mk; i += 32) col[i] = mul(col[i], f);
  };
  if (w == 0) {
    __syncwarp();
    double ssq = 0;
    for (int i = 1 + lane; i < mk; i += 32) ssq += ssq_of(sp[i]);
    reflector(0, sp, ssq);
  }
  __syncthreads();
  // Step j: every other column c gets s = v_j**H c. The later ones are
  // updated, c -= conj(tau_j) v_j s (H_j**H c), the earlier ones keep s
  // for T.
  for (int j = 0; j < kb; ++j) {
    if (w < kb && w != j) {
      S *cw = sp + int64_t(w) * ld;
      const S *xj = sp + int64_t(j) * ld;
      // Reflector j's entry in row i: rows above j (all in the first 32,
      // as j < B) are zero, row j is its unit.
      auto vj = [&](int i) { return i > j ? xj[i] : i == j ? one : zero; };
      S acc = lane < mk ? fms(zero, cj(vj(lane)), cw[lane]) : zero;  // -s
#pragma unroll 4
      for (int i = lane + 32; i < mk; i += 32) acc = fms(acc, cj(xj[i]), cw[i]);
      const S s = neg(warp_sum(acc));
      // c -= v_j g; with_ssq (std::true_type) also sums |c_i|**2 over the
      // rows below j+1, the next reflector's (a type, so that the other
      // warps' loops carry no sum).
      auto update = [&](S g, auto with_ssq) {
        double ssq = 0;
        if (lane < mk) {
          const S x = fms(cw[lane], vj(lane), g);
          cw[lane] = x;
          if constexpr (decltype(with_ssq)::value) ssq = lane > j + 1 ? ssq_of(x) : 0.;
        }
#pragma unroll 4
        for (int i = lane + 32; i < mk; i += 32) {
          const S x = fms(cw[i], xj[i], g);
          cw[i] = x;
          if constexpr (decltype(with_ssq)::value) ssq += ssq_of(x);
        }
        return ssq;
      };
      if (w > j) {  // update; the owner of column j+1 then forms reflector j+1 from it
        const S g = mul(cj(stau[j]), s);
        if (w == j + 1) {
          const double ssq = update(g, std::true_type());
          __syncwarp();
          reflector(j + 1, cw, ssq);
        } else {
          update(g, std::false_type());
        }
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
  for (int e = threadIdx.x; e < ld * kb; e += 32 * B) {
    const int i = e % ld - up, c = e / ld;
    const S x = sp[i + c * ld];
    a[i + c * lda] = i == c ? sbeta[c] : x;
    if (i >= 0) v[i + c * ldv] = i < c ? zero : i == c ? one : x;
  }
  constexpr int G = 4;
  for (int e = threadIdx.x; e < mk * ((kb + G - 1) / G); e += 32 * B) {
    const int i = e % mk, c0 = e / mk * G, kmax = min(i, min(c0 + G, kb) - 1);
    S acc[G];  // -(V T)(i, c0 + q)
#pragma unroll
    for (int q = 0; q < G; ++q) acc[q] = zero;
    for (int k = 0; k <= kmax; ++k) {
      const S vik = k < i ? sp[i + k * ld] : one;
#pragma unroll
      for (int q = 0; q < G; ++q) acc[q] = fms(acc[q], vik, st[k + (c0 + q) * B]);
    }
#pragma unroll
    for (int q = 0; q < G; ++q)
      if (c0 + q < kb) z[i + (c0 + q) * ldz] = neg(acc[q]);
  }
  if (threadIdx.x < kb) tau[threadIdx.x] = stau[threadIdx.x];
}

// The panel width for an m-row matrix: 16 columns, or 8 where 16 do not
// fit the device's shared memory (`smem` bytes a block), 0 if neither
// does. A panel's column steps move about b**2 mk elements through shared
// memory, and with the gemms in geqrf_small's other lane more panels cost
// little: panels of 16 beat 32 at every order measured (H200, ms host to
// host, median of 9, 32 / 16: s 512^2 1.37-1.43 / 1.22-1.27, d 256^2
// 0.64-0.69 / 0.59-0.65, c 256^2 0.74-0.77 / 0.64-0.78, d 768^2 2.87-2.95
// / 2.41-2.54), and 8 lose to 16 (z 256^2 0.98-1.27 / 0.88-0.96, d 512^2
// 1.61-2.30 / 1.37-1.44).
template <class T> int panel_qr_width(int64_t m, std::size_t smem) {
  using S = typename Dev<T>::type;
  for (int b : {16, 8})
    if (panel_qr_smem<S>(m, b) <= smem) return b;
  return 0;
}
// Device workspace of geqrf_small, in elements: two V and two Z (m by b),
// W (b by n).
inline std::size_t geqrf_small_work(int64_t m, int64_t n, int b) { return std::size_t(b) * (4 * m + n); }

// panel_qr<B> on an mk-row panel, after the previous panel's reflectors
// (pv, pz) where `update`; `first` lets the kernel have the shared memory
// of the call's first (tallest) panel.
template <class T, int B>
cudaError_t launch_panel_qr(cudaStream_t s, bool first, int64_t mk, int64_t kb, bool update, const T *pv, const T *pz,
                            T *a, int64_t lda, T *tau, T *v, T *z) {
  using S = typename Dev<T>::type;
  const std::size_t bytes = panel_qr_smem<S>(mk + (update ? B : 0), B);
  if (first) {
    const cudaError_t e = cudaFuncSetAttribute(panel_qr<S, B>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
    if (e != cudaSuccess) return e;
  }
  panel_qr<S, B><<<1, 32 * B, bytes, s>>>(int(mk), int(kb), update, dv(pv), dv(pz), dv(a), lda, dv(tau), dv(v), mk,
                                          dv(z), mk);
  return cudaGetLastError();
}

// LAPACK's xGEQRF of the first k columns of the m-by-n a (leading
// dimension lda, on the device; k <= min(m, n)) in panels of b columns
// (panel_qr_width), tau into tau; the columns past k take the reflectors
// as the trailing update does (Q**H C, as xORMQR would give it: xGELS's
// right-hand sides beside A). work holds geqrf_small_work(m, n, b)
// elements. check(status) records a failure.
//
// Panels from where a column holds 6 KiB or less go in two lanes: the
// panels one after the other on the panel stream, each taking the
// previous one's reflectors itself (panel_qr's `update`), and the two
// gemms of each panel's reflectors on the columns past the next panel on
// the compute stream, while that panel is factored. A panel waits only
// for the gemms of the panel two before it; V and Z alternate between two
// buffers. Taller panels keep one lane: there the in-kernel update (the
// panel's rows times b**2 on one SM) costs more than the gemms it spares.
// Measured reasons (H200, ms host to host, one lane / two;
// bench/results/history/qr-tuning-NVIDIA-H200-2026-11-27e.txt):
// - two lanes for short panels: d 512^2 1.51-1.61 / 1.41, z 256^2 1.00-1.02 / 0.91-0.96
// - one lane for tall ones: z 768^2 3.98-4.02 / 4.07-4.17 all in two lanes
template <class T, class Check>
bool geqrf_small(Context &c, int64_t m, int64_t n, int64_t k, T *a, int64_t lda, T *tau, int b, T *work,
                 Check &&check) {
  auto in_lanes = [&](int64_t k0) { return (m - k0) * int64_t(sizeof(T)) <= 6144; };
  const cudaStream_t us = c.compute_stream;
  const cudaEvent_t panel_done = c.small_qr_events[2], *updated = c.small_qr_events;
  T *w = work + 4 * std::size_t(m) * b;
  auto vz = [&](int64_t p) { return work + (p % 2) * 2 * std::size_t(m) * b; };  // V, then Z at + m b
  bool fine = true;
  int64_t first_lane = -1;  // the first panel in two lanes
  for (int64_t k0 = 0, p = 0; fine && k0 < k; k0 += b, ++p) {
    const int64_t kb = std::min<int64_t>(b, k - k0), mk = m - k0;
    const bool lanes = in_lanes(k0);
    // Columns the next panel updates itself.
    const int64_t next = k0 + kb < k && in_lanes(k0 + kb) ? std::min<int64_t>(b, k - k0 - kb) : 0;
    const cudaStream_t ps = lanes ? c.panel_stream : us;
    T *pan = a + k0 + k0 * lda, *v = vz(p), *z = v + std::size_t(m) * b;
    const T *pv = vz(p + 1), *pz = pv + std::size_t(m) * b;  // panel p - 1's
    if (lanes && first_lane < 0) {  // after all the compute stream holds
      first_lane = p;
      fine = check(cudaEventRecord(updated[p % 2], us)) && check(cudaStreamWaitEvent(ps, updated[p % 2], 0));
    } else if (lanes && p >= first_lane + 2) {  // after the gemms of panel p - 2
      fine = check(cudaStreamWaitEvent(ps, updated[p % 2], 0));
    }
    const bool first = p == 0, update = lanes && p > 0;
    fine = fine &&
           check(b == 16 ? launch_panel_qr<T, 16>(ps, first, mk, kb, update, pv, pz, pan, lda, tau + k0, v, z)
                         : launch_panel_qr<T, 8>(ps, first, mk, kb, update, pv, pz, pan, lda, tau + k0, v, z)) &&
           (!lanes || check(cudaEventRecord(panel_done, ps)));
    const int64_t nc = n - k0 - kb - next;
    if (fine && nc > 0) {
      T *cc = pan + (kb + next) * lda;
      fine = (!lanes || check(cudaStreamWaitEvent(us, panel_done, 0))) &&
             check(blas::gemm(c.blas, blas::op_c<T>(), CUBLAS_OP_N, kb, nc, mk, T(1), z, mk, cc, lda, T(0), w, b)) &&
             check(blas::gemm(c.blas, CUBLAS_OP_N, CUBLAS_OP_N, mk, nc, kb, T(-1), v, mk, w, b, T(1), cc, lda)) &&
             (!lanes || check(cudaEventRecord(updated[p % 2], us)));
    }
  }
  if (first_lane < 0) return fine;
  // The compute stream carries on once the last panel is done; after a
  // failure nothing of this call may still run on the panel stream.
  fine = fine && check(cudaEventRecord(panel_done, c.panel_stream)) &&
         check(cudaStreamWaitEvent(us, panel_done, 0));
  if (!fine) cudaStreamSynchronize(c.panel_stream);
  return fine;
}

}  // namespace
}  // namespace hqr::gpu
