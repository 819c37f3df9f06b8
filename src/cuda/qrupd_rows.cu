// The GPU side of xQRUPD_ADDROWS (with and without Q) and xQRUPD_DELROWS,
// s, d, c and z (Q unitary for c and z: conjugate transposes where s and d
// transpose), host memory in and out; the contracts are gpu.hpp's, the
// machinery they share with the column updates qrupd_gpu.cuh's.
//
//   addrows    (JOBQ = 'N') R's upper trapezoid (min(M,N) rows) and the P
//              new rows travel; the dense QR of [R; U] on the device gives
//              the new R.
//   addrows_q  (JOBQ = 'U') the same QR; its reflectors multiply the first
//              min(M,N)+P columns of Q extended by the identity rows of the
//              new rows (only those columns travel); Q's other columns only
//              move, on the host, while the device works.
//   delrows    one dense QR of [Q_d^H R] (Q_d: the deleted rows of Q) gives
//              the unitary G that turns Q_d into [D 0] and R into the
//              new R; Q's rows are multiplied by G as they leave.
// The dense QRs are the hybrid geqrf's factorization on the device
// (factor: CholeskyQR2 panels), except in delrows, where cuSOLVER's geqrf
// runs while Q comes in (geqrf_device returns only when done). Q's
// products run one group of rows ahead of the group leaving
// (Update::stream_rows), as in addcols.
#include <algorithm>
#include <cstring>
#include <vector>

#include "cuda/blas.cuh"
#include "cuda/cusolver_q.cuh"
#include "cuda/qr_kernels.cuh"
#include "cuda/qrupd_gpu.cuh"

namespace hqr::gpu {
namespace {

// a(i, c) = (r0 + i - j0 == c0 + c - k) over rows x cols: the identity
// block E of addrows' extended Q (rows j0.., columns k..), zeros beside it.
template <class S> __global__ void unit_cross(S *a, idx lda, idx rows, idx cols, idx j0, idx k, idx r0, idx c0) {
  for (idx c = blockIdx.y; c < cols; c += gridDim.y)
    for (idx i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += idx(gridDim.x) * blockDim.x)
      a[i + c * lda] = r0 + i - j0 == c0 + c - k ? dev_one(S()) : dev_zero(S());
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

}  // namespace

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
      zero_below<<<grid_cols(k, n), 256, 0, c.compute_stream>>>(dv(dZ), ldz, k, n, 0);
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
    zero_below<<<grid_cols(kp, n), 256, 0, c.compute_stream>>>(dv(dZ), ldz, kp, n, 0);
    u.mark("factored");
    cudaEvent_t done = c.download_slots[0].dma_done;
    if (!u.launched() || !u.check(cudaEventRecord(done, c.compute_stream), Point::kernel) ||
        !u.check(cudaStreamWaitEvent(c.download_stream, done, 0), Point::sync) ||
        !u.download(rout, dZ, ldz, 0, 0, r, ldr) || !u.land())
      return {false, 0, u.why(), 0};
    u.mark("downloaded");
    return u.done("qrupd_addrows");
  });
}

// delrows on the device. Q's rows j0..j0+p-1 (Q_d) must become [D 0]
// (D diagonal, |d_ii| = 1) under a unitary G from the right, with G^H*R upper
// triangular from row p on. Q's columns N..M-1 meet only R's zero rows: an
// LQ of Q_d(:, N:M) (a QR of its conjugate transpose) clears them. What is
// left, G on columns 0..K-1 (K = min(M, N+P)), comes from one dense QR of
//   Z = [Q_d(:, 0:K)^H  R(0:K, :)]      (K-by-(P+N)):
// G^H*Z upper trapezoidal makes Q_d*G = [S^H 0] and G^H*R's rows from p on
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
    const std::size_t rstaged = u.staged_elems(rout);
    Context &c = u.c_;
    int lw1 = 0, lw3 = 0;
    T *none = nullptr;
    if ((pa > 0 && !u.check(geqrf_work(c.solver, int(na), int(p), none, int(na), &lw1), Point::kernel)) ||
        !u.check(geqrf_work(c.solver, int(kz), int(cz), none, int(ldz), &lw3), Point::kernel))
      return {false, 0, u.why(), 0};
    using RB = RightBlocks<T>;
    const std::size_t lw = std::size_t(std::max({lw1, lw3, 1}));
    const std::size_t mm = std::size_t(m) * m, zz = std::size_t(ldz) * cz, xx = std::size_t(na) * p;
    const std::size_t dd = std::size_t(p) * m, vb = RB::elems(na, pa), vz = RB::elems(kz, kz), ss = RB::scratch(m);
    if (!u.reserve(mm + zz, dd + xx + lw + vb + vz + ss + std::size_t(p) + std::size_t(kz) + 320) ||
        !u.reserve_host(HostReflectors<T>::elems(na, pa) + HostReflectors<T>::elems(kz, kz) + u.host_r_elems(rstaged)))
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
      zero_below<<<grid_cols(kz, n), 256, 0, c.compute_stream>>>(dv(dZ + p * ldz), ldz, kz, n, 0);
      if (!u.launched()) return {false, 0, u.why(), 0};
    }
    // Q's rows are multiplied by G (below's reflectors, then band's) row
    // group by row group as they leave (stream_rows).
    HostReflectors<T> below{n, na, pa}, band{0, kz, kz};
    RB dbelow, dband;
    if (pa > 0) {  // X = Q_d(:, n:m)^H = H*[S; 0];  Q_d(:, n:m) <- Q_d(:, n:m) * H
      if (!u.check(blas::geam(c.blas, blas::op_c<T>(), na, p, dQd + n * p, p, dX, na), Point::kernel) ||
          !u.check(geqrf(c.solver, int(na), int(p), dX, int(na), dtau1, dwork, int(lw), dinfo), Point::kernel) ||
          !dbelow.form(u, na, pa, dX, na, dtau1, dVb, dS) || !dbelow.apply(u, p, dQd + n * p, p, dS))
        return {false, 0, u.why(), 0};
    }
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
    zero_below<<<grid_cols(kz, cz), 256, 0, c.compute_stream>>>(dv(dZ), ldz, kz, cz, 0);
    if (!u.launched()) return {false, 0, u.why(), 0};
    cudaEvent_t done = c.download_slots[0].dma_done;
    T *dRn = dZ + p + p * ldz;  // the new R: Z's rows p.., columns p..
    u.stage_r(rstaged);
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
    return u.done("qrupd_delrows", why, lint(done1 + done2));
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
    const std::size_t rstaged = u.staged_elems(rout);
    Context &c = u.c_;
    using RB = RightBlocks<T>;
    const std::size_t qq = std::size_t(mp) * kp, zz = std::size_t(ldz) * n, vz = RB::elems(kp, kz), ss = RB::scratch(mp);
    if (!u.reserve(qq + zz, vz + ss + std::size_t(kz) + 192) ||
        !u.reserve_host(HostReflectors<T>::elems(kp, kz) + u.host_r_elems(rstaged)))
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
    unit_cross<<<grid_cols(p, k), 256, 0, c.compute_stream>>>(dv(dQ + j0), mp, p, k, j0, k, j0, 0);
    unit_cross<<<grid_cols(mp, p), 256, 0, c.compute_stream>>>(dv(dQ + k * mp), mp, mp, p, j0, k, 0, k);
    zero_below<<<grid_cols(k, n), 256, 0, c.compute_stream>>>(dv(dZ), ldz, k, n, 0);
    // All of Q's k+p columns at once: the host's move below takes longer.
    RB dz;
    bool ran = u.launched() && factor(u, kp, n, dZ, ldz, dtau) && dz.form(u, kp, kz, dZ, ldz, dtau, dVz, dS) &&
               dz.apply(u, mp, dQ, mp, dS);
    // The device has all it reads of Q: the other columns move meanwhile.
    const bool moved = ran;
    if (moved) move_columns(c.upload_copies, q, ldq, m, k, p, j0, true);
    u.mark("moved");
    HostReflectors<T> band{0, kp, kz};
    ran = ran && band.fetch(u, dZ, ldz, dtau);
    if (ran) {
      u.stage_r(rstaged);
      zero_below<<<grid_cols(kp, n), 256, 0, c.compute_stream>>>(dv(dZ), ldz, kp, n, 0);
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
    return u.done("qrupd_addrows_q", why, lint(tail));
  });
}

#define HQR_INSTANTIATE(T)                                                                    \
  template Result qrupd_addrows_q(lint, lint, lint, lint, T *, lint, T *, lint, T *, lint); \
  template Result qrupd_delrows(lint, lint, lint, lint, T *, lint, T *, lint);              \
  template Result qrupd_addrows(lint, lint, lint, T *, lint, T *, lint);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
