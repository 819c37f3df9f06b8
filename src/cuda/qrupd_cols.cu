// The GPU side of xQRUPD_DELCOLS and xQRUPD_ADDCOLS (full Q), s, d, c and z
// (Q unitary for c and z: conjugate transposes where s and d transpose),
// host memory in and out; the contracts are gpu.hpp's, the machinery they
// share with the row updates qrupd_gpu.cuh's.
//
//   delcols  only R's part that changes travels: rows J..min(M,N) of the
//            columns after the gap (with P subdiagonals), and with JOBQ = 'U'
//            Q's columns J..min(M,N). Rows above J only shift: the host moves
//            them while the device works. Blocks of nb reflectors of length
//            P+1 are factored by one kernel in shared memory (band_qr: R, V
//            and the compact-WY T at once) and applied to the band's
//            trailing columns (V^H*C, T^H*., C - V*.) and to Q (Q*V, .*T,
//            Q - .*V^H) by cuBLAS.
//   addcols  W = Q^H*U; W's rows below N and then the band that the new
//            columns disturb are dense QRs on the device (factor), whose
//            reflectors multiply Q's columns from the right as compact-WY
//            blocks (RightBlocks), one group of Q's rows ahead of the group
//            leaving (Update::stream_rows): the downloads start after the
//            first group's products rather than all of them (H100,
//            bench/results/history/update-NVIDIA-H100-2026-11-25.txt: a few
//            per cent, near the run-to-run spread).
// delcols' host steps are the exception to qrupd_gpu.cuh's atomicity:
// while the device works they zero R below the new columns' diagonal
// (which no update reads) and shift the rows above J, and a failing GPU
// shifts those back before the CPU redoes the update.
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "cuda/blas.cuh"
#include "cuda/qr_kernels.cuh"
#include "cuda/qrupd_gpu.cuh"

namespace hqr::gpu {
namespace {

constexpr int kThreads = 512;  // band_qr: 16 warps
constexpr int kMaxNb = 32;     // reflectors per block (see band_qr)
// The panel's working copy lives in shared memory up to this size (beside
// the static T); larger panels (very large P) work in global memory.
constexpr std::size_t kPanelSmem = 160 * 1024;

// Leading dimension of the panel's working copy in shared memory: even, so
// that lanes walking the diagonal of V (the Gram products: lane k at
// element (i0 + k + r, i0 + k)) are ldw + 1 (odd) doubles apart and hit
// distinct banks.
__host__ __device__ inline int panel_ld(int h) { return (h + 1) & ~1; }

// Householder QR of one block of nr reflectors of delcols' band, in one
// thread block, for every element type S (the device spelling: float,
// double, cuFloatComplex, cuDoubleComplex). The panel has h rows (a, lda);
// reflector i has head row i and tail rows i+1 .. min(i+p, h-1): v_i(r) = 1
// at r = i, the stored tail below, zero elsewhere, so V is the panel's
// strictly lower part. LAPACK's xGEQR2 and xLARFT (forward, columnwise):
// H_i = I - tau_i v_i v_i**H with beta real (xLARFG), applied as H_i**H
// from the left (c -= conj(tau_i) v_i (v_i**H c)); T from the products
// v_k**H v_i. On exit: R (zeros below the diagonal) in a; V, dense with its
// unit diagonal, in v (h-by-nr, ldv); the compact-WY T (upper, tau on the
// diagonal) in t. gw: global scratch (h-by-nr) when the panel is too large
// for shared memory.
// One block barrier per reflector, with a look-ahead of one: warp 0 applies
// reflector i to column i+1 and forms reflector i+1 from it (a tail of at
// most a few hundred elements needs no more than one warp, and warp-only
// reductions cost no barrier) while the other warps apply reflector i to
// the columns after, 8 lanes a column. T comes at the end: the Gram
// products a lane each, then xLARFT's recurrence on blocks of 16 and their
// merges. Sums are kept negated where that spares an operation (fms is
// acc - a*b in fused multiply-adds).
// Measured reasons (H100, kernels alone, 1948 reflectors at P = 100;
// bench/results/history/update-NVIDIA-H100-80GB-HBM3-2026-11-26.txt):
// - 8 lanes a trailing column, Gram products a lane each: 4.3 ms against 8.2 with a warp reduction
// - blocks of 32 reflectors: 4.3 ms against 5.3 in blocks of 64
template <class S>
__global__ void __launch_bounds__(kThreads)
    band_qr(S *a, idx lda, int h, int nr, int p, S *v, idx ldv, S *t, idx ldt, S *gw) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  // st: T in the upper triangle (tau on the diagonal); below it, the Gram
  // products G(i, k) = v_k**H v_i (k < i) stored at (i, k).
  __shared__ S st[kMaxNb * kMaxNb];
  __shared__ S sw[kMaxNb * kMaxNb / 4];  // T's merges: W, at most nr^2 / 4 entries
  __shared__ S sbf[2];                   // beta and f of the reflector being formed
  const S zero = dev_zero(S()), one = dev_one(S());
  const int ldw = gw ? h : panel_ld(h);
  S *w = gw ? gw : reinterpret_cast<S *>(smem_raw);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  for (int j = warp; j < nr; j += warps)
    for (int r = lane; r < h; r += 32) w[r + j * ldw] = a[r + j * lda];
  __syncthreads();

  auto tail1 = [&](int i) { return min(i + p + 1, h); };  // the tail is rows i+1 .. tail1(i)-1
  // Reflector i from column i, by one warp (warp_larfg: LAPACK's xLARFG,
  // in double): tau goes to T's diagonal, beta to the column's head, and
  // the tail becomes v_i's.
  auto form = [&](int i) {
    S *wi = w + i * ldw;
    const int t1 = tail1(i);
    double ssq = 0;
    for (int r = i + 1 + lane; r < t1; r += 32) {
      const double xr = re(wi[r]), xi = im(wi[r]);
      ssq += xr * xr + xi * xi;
    }
    warp_larfg(t1, i, wi, warp_sum(ssq), st + i + i * kMaxNb, sbf, sbf + 1);
    __syncwarp();
    const S f = sbf[1];
    for (int r = i + 1 + lane; r < t1; r += 32) wi[r] = mul(wi[r], f);
    if (lane == 0) wi[i] = sbf[0];
  };
  // H_i**H from the left on column j by a group of g lanes (g divides 32;
  // gl = lane in group), every lane of the warp in the shuffles; on = the
  // group has a column; ctau = conj(tau_i). Every lane reads the head before
  // lane 0 of its group rewrites it: the shuffles do not order shared-memory
  // accesses (racecheck flags them), a warp barrier does.
  auto apply = [&](int i, int j, bool on, int g, int gl, S ctau) {
    const S *wi = w + i * ldw;
    S *wj = w + (on ? j : i) * ldw;
    const int t0 = i + 1, t1 = tail1(i);
    S s = zero;  // -(v_i**H c) over the tail
    if (on)
      for (int r = t0 + gl; r < t1; r += g) s = fms(s, cj(wi[r]), wj[r]);
    for (int o = g / 2; o > 0; o >>= 1) s = add(s, shfl_xor(s, o));
    const S head = on ? wj[i] : zero;
    __syncwarp();
    if (!on) return;
    const S sj = mul(ctau, sub(head, s));  // conj(tau_i) v_i**H c
    if (gl == 0) wj[i] = sub(head, sj);
    for (int r = t0 + gl; r < t1; r += g) wj[r] = fms(wj[r], sj, wi[r]);
  };

  // Warp 0 carries the critical path: reflector i on column i+1 (the whole
  // warp), then reflector i+1. The other warps take columns i+2.. in groups
  // of 8 lanes, four columns a warp at once (a tail of about P rows).
  constexpr int kGroup = 8, kPerWarp = 32 / kGroup;
  if (warp == 0 && nr > 0) form(0);
  __syncthreads();
  for (int i = 0; i < nr; ++i) {
    const S tau = st[i + i * kMaxNb], ctau = cj(tau);
    if (warp == 0) {
      if (i + 1 < nr) {
        if (!is_zero(tau)) apply(i, i + 1, true, 32, lane, ctau);
        __syncwarp();
        form(i + 1);
      }
    } else if (!is_zero(tau)) {
      const int g = lane / kGroup, gl = lane % kGroup;
      for (int jb = i + 2 + (warp - 1) * kPerWarp; jb < nr; jb += (warps - 1) * kPerWarp)
        apply(i, jb + g, jb + g < nr, kGroup, gl, ctau);
    }
    __syncthreads();
  }

  // T as xLARFT. The Gram products G(i, k) = v_k**H v_i (k < i) =
  // conj(v_k(i)) + V(i+1:, k)**H V(i+1:, i) (v_i(i) = 1, v_i zero above i,
  // v_k zero below its tail): a warp per k and 32 consecutive i, a lane per
  // product, four partial sums (negated) in flight.
  const int chunks = (nr + 31) / 32;
  for (int task = warp; task < nr * chunks; task += warps) {
    const int k = task / chunks, i = (task % chunks) * 32 + lane, r1 = tail1(k);
    if (i <= k || i >= nr) continue;
    const S *wk = w + k * ldw, *wi = w + i * ldw;
    S g[4] = {i < r1 ? neg(cj(wk[i])) : zero, zero, zero, zero};
    int r = i + 1;
    for (; r + 3 < r1; r += 4)
#pragma unroll
      for (int q = 0; q < 4; ++q) g[q] = fms(g[q], cj(wk[r + q]), wi[r + q]);
    for (; r < r1; ++r) g[0] = fms(g[0], cj(wk[r]), wi[r]);
    st[i + k * kMaxNb] = neg(add(add(g[0], g[1]), add(g[2], g[3])));
  }
  __syncthreads();
  // Then T by blocks of kLeaf reflectors, xLARFT's recursive form: each
  // diagonal block by the recurrence T(r, i) = -tau_i sum_{k=r}^{i-1} T(r, k) G(i, k)
  // (a thread per row r; rows are independent), then neighbouring blocks
  // A, B merge: T_AB = -T_AA (V_A**H V_B) T_BB, through W = (V_A**H V_B) T_BB
  // in sw. A thread a row, not one warp for the whole recurrence
  // (105k cycles for a block of 64, H100,
  // bench/results/history/update-NVIDIA-H100-80GB-HBM3-2026-11-26.txt).
  constexpr int kLeaf = 16;
  if (int(threadIdx.x) < nr) {
    const int r = threadIdx.x, b1 = min((r / kLeaf + 1) * kLeaf, nr);
    for (int i = r + 1; i < b1; ++i) {
      S sum = zero;  // -sum
      for (int k = r; k < i; ++k) sum = fms(sum, st[r + k * kMaxNb], st[i + k * kMaxNb]);
      st[r + i * kMaxNb] = mul(st[i + i * kMaxNb], sum);
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
      S sum = zero;
      for (int l = b0; l <= i; ++l) sum = fms(sum, st[l + k * kMaxNb], st[l + i * kMaxNb]);
      sw[e] = neg(sum);
    }
    __syncthreads();
    // T(r, i) = -sum_{k = r..A1-1} T(r, k) W(k, i), r in A, i in B.
    for (int e = threadIdx.x; e < pairs * half * half; e += blockDim.x) {
      const int q = e / (half * half), rr = e % half, ii = (e / half) % half;
      const int a0 = q * 2 * half, b0 = a0 + half, r = a0 + rr, i = b0 + ii;
      if (i >= nr) continue;
      S sum = zero;
      for (int k = r; k < b0; ++k) sum = fms(sum, st[r + k * kMaxNb], sw[q * half * half + (k - a0) + ii * half]);
      st[r + i * kMaxNb] = sum;
    }
    __syncthreads();
  }

  for (int j = warp; j < nr; j += warps) {
    for (int r = lane; r < nr; r += 32) t[r + j * ldt] = r <= j ? st[r + j * kMaxNb] : zero;
    for (int r = lane; r < h; r += 32) {
      const S x = w[r + j * ldw];
      a[r + j * lda] = r <= j ? x : zero;
      v[r + j * ldv] = r == j ? one : r > j ? x : zero;
    }
  }
}

// Launches band_qr: in shared memory where it fits.
template <class T>
bool launch_band_qr(Update<T> &u, T *a, idx lda, idx h, idx nr, idx p, T *v, idx ldv, T *t, idx ldt, T *gw) {
  using S = typename Dev<T>::type;
  static std::once_flag once;
  std::call_once(once, [] {
    cudaFuncSetAttribute(band_qr<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kPanelSmem));
  });
  const std::size_t bytes = std::size_t(panel_ld(int(h))) * nr * sizeof(T);
  const bool shared = bytes <= kPanelSmem;
  band_qr<S><<<1, kThreads, shared ? bytes : 0, u.c_.compute_stream>>>(dv(a), lda, int(h), int(nr), int(p), dv(v),
                                                                         ldv, dv(t), ldt, shared ? nullptr : dv(gw));
  return u.launched();
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
      zero_below<<<grid_cols(hr, wc), 256, 0, c.compute_stream>>>(dv(dR), ldd, hr, wc, p);
      if (!u.launched()) return false;
      for (idx k0 = 0; k0 < nref; k0 += nb) {
        const idx nr = std::min(nb, nref - k0), h = std::min(nr + p, hr - k0), nc = wc - k0 - nr;
        T *blk = dR + k0 + k0 * ldd;
        if (!launch_band_qr(u, blk, ldd, h, nr, p, dV, ldv, dT, nb, gw)) return false;
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
    return u.done("qrupd_delcols");
  });
}

// addcols (full Q) on the device:
//   W = Q^H*U (gemm); the rows of W below N factored (a dense QR) and Q's
//   columns N..M-1 multiplied by those reflectors (RightBlocks); then the band, rows
//   J..min(M,N+P)-1 of [W R(:,J:N)] (old R's columns after the insertion,
//   already upper triangular there but P columns to the right), factored by a
//   dense QR and Q's columns J..min(M,N+P)-1 multiplied by its reflectors.
// The band's QR costs more operations than bottom-up Givens passes (about
// H^2*(N+P-J) for a band of H rows against P*H*(N+P-J)) but runs as one
// dense QR and blocked reflector products at level-3 rates; the whole of Q moving both
// ways dominates the time at the sizes where the GPU is chosen.
// What moves: Q (all of it in, for Q^H*U; its columns from J out), U in, R's
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
    const std::size_t rstaged = u.staged_elems(rout);
    Context &c = u.c_;
    using RB = RightBlocks<T>;
    const std::size_t mm = std::size_t(m) * m, mp = std::size_t(m) * p, rr = std::size_t(ldd) * cb;
    const std::size_t vb = RB::elems(na, pa), vh = RB::elems(hb, kb), ss = RB::scratch(m);
    if (!u.reserve(mm + 2 * mp + rr, vb + vh + ss + std::size_t(p) + std::size_t(kb) + 192) ||
        !u.reserve_host(HostReflectors<T>::elems(na, pa) + HostReflectors<T>::elems(hb, kb) + u.host_r_elems(rstaged)))
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
      zero_below<<<grid_cols(rb, n - j0), 256, 0, c.compute_stream>>>(dv(dR + p * ldd), ldd, rb, n - j0, j0);
      if (!u.launched()) return {false, 0, u.why(), 0};
    }
    if (!u.check(blas::gemm(c.blas, blas::op_c<T>(), CUBLAS_OP_N, m, p, m, one, dQ, m, dU, m, zero, dW, m),
                 Point::kernel))
      return {false, 0, u.why(), 0};
    // Q's columns are multiplied by the reflectors (below's, then band's)
    // row group by row group as they leave (stream_rows).
    HostReflectors<T> below{n, na, pa}, band{j0, hb, kb};
    RB dbelow, dband;
    if (pa > 0) {  // W's rows below N: [R_w; 0]; Q(:, n:m) will take H
      if (!factor(u, na, p, dW + n, m, dtau1) || !dbelow.form(u, na, pa, dW + n, m, dtau1, dVb, dS) ||
          !below.fetch(u, dW + n, m, dtau1))
        return {false, 0, u.why(), 0};
    }
    // W's rows 0..rb-1 become the new columns j0..j0+p-1 (zeros below R_w).
    if (!u.check(cudaMemcpy2DAsync(dR, ldd * sizeof(T), dW, m * sizeof(T), rb * sizeof(T), p,
                                   cudaMemcpyDeviceToDevice, c.compute_stream),
                 Point::copy))
      return {false, 0, u.why(), 0};
    zero_below<<<grid_cols(rb, p), 256, 0, c.compute_stream>>>(dv(dR), ldd, rb, p, n);
    if (!u.launched()) return {false, 0, u.why(), 0};
    if (kb > 0) {  // the band's QR; Q(:, j0:rb) will take H
      if (!factor(u, hb, cb, dR + j0, ldd, dtaub) || !dband.form(u, hb, kb, dR + j0, ldd, dtaub, dVh, dS) ||
          !band.fetch(u, dR + j0, ldd, dtaub))
        return {false, 0, u.why(), 0};
      zero_below<<<grid_cols(hb, cb), 256, 0, c.compute_stream>>>(dv(dR + j0), ldd, hb, cb, 0);
      if (!u.launched()) return {false, 0, u.why(), 0};
    }
    cudaEvent_t done = c.download_slots[0].dma_done;
    u.stage_r(rstaged);
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
    return u.done("qrupd_addcols", why, lint(rows_done));
  });
}

#define HQR_INSTANTIATE(T)                                                                  \
  template Result qrupd_addcols(lint, lint, lint, lint, T *, lint, T *, lint, T *, lint); \
  template Result qrupd_delcols(bool, lint, lint, lint, lint, T *, lint, T *, lint);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
