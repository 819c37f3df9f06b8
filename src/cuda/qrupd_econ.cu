// The GPU side of xQRUPD_ADDCOLS_ECON (s, d, c, z; Q with orthonormal
// columns, conjugate transposes for c and z), host memory in and out: the
// CPU's blocked path (src/cpu/qrupd.cpp: CholeskyQR2 of U, one projection
// against Q, the Givens passes on R) with its passes over Q and U made on
// the device. On the host the tall Q is read twice and written once by
// cores that also rotate it (2.7x the host's memory bound at 1,000,000 x
// 200 on the H200 host); here it crosses the link once each way and the
// device's passes over it take milliseconds.
//   [Q U] go up once (m-by-n+p: U beside Q's n columns);
//   G1 = U^H*U comes back: R1 on the host (cpu::AddcolsEconHost);
//   U1 = U*R1^-1 in place; [W; G2] = [Q U1]^H*U1 comes back: the host forms
//   the new R, F, and the Givens passes' product M (k-by-k, k = n+p-j0);
//   Qn = (U1 - Q*W)*F in place of U1;
//   the new Q(:, j0:n+p-1) = [Q Qn](:, j0:n+p-1)*M, one group of rows ahead
//   of the group leaving (Update::stream_rows); for j0 = n there are no
//   passes and Qn is the new columns.
// One gemm with M (2*m*k^2 flops) replaces the passes' rotations: on the
// device the flops are free beside the transfers, and the rows come out in
// whole groups. Where R is wide (k in the thousands) the host's passes on
// R and M cost more than the rest of the call; there the device factors
// what they reduce, the k-by-k staircase of the new R (hqr's device
// geqrf, M its xORGQR): S comes back into the new R, M stays on the device
// and a copy comes back for finish_rows (staircase_on_device decides).
// Where CholeskyQR2 declines (U ill conditioned or too close to Q's range)
// block Gram-Schmidt takes its place (device_bcgs2; the CPU's where its
// second pass still cancels), Qn goes to Q's room, and the device applies
// M as above. Until R is written (or the CPU's Gram-Schmidt starts)
// nothing of the caller's changes but Q's room: where a step fails or
// memory is short, `ran` is false and the CPU runs the update. After it,
// the update completes: rows of Q that did not come back are updated by
// the CPU's own pass (finish_rows), from the caller's Q and U (or Qn),
// still the input in those rows.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "cpu/parallel.hpp"
#include "cpu/qrupd.hpp"
#include "cuda/blas.cuh"
#include "cuda/cusolver_q.cuh"
#include "cuda/qrupd_gpu.cuh"

namespace hqr::gpu {
namespace {

// C = A^H*B (A m-by-ca, B m-by-cb; C ca-by-cb, ld ca) for m in the
// millions and ca*cb small: one gemm of that shape leaves most of the GPU
// idle (a few output tiles, each a dot product of m terms), so the rows go
// in chunks of kChunk as one strided batch of partial products, summed by
// a product with ones(chunks). parts: ca*cb*chunks(m), ones: chunks(m)
// ones.
constexpr idx kChunk = 16384;
inline idx chunks(idx m) { return m / kChunk; }
template <class T>
bool gram(Update<T> &u, idx m, idx ca, idx cb, const T *a, idx lda, const T *b, idx ldb, T *c, T *parts,
          const T *ones) {
  cublasHandle_t h = u.c_.blas;
  const T one(1), zero(0);
  const idx nc = chunks(m), rest = m - nc * kChunk, cc = ca * cb;
  if (nc < 2)
    return u.check(blas::gemm(h, blas::op_c<T>(), CUBLAS_OP_N, ca, cb, m, one, a, lda, b, ldb, zero, c, ca),
                   Point::kernel);
  return u.check(blas::gemm_batched(h, blas::op_c<T>(), CUBLAS_OP_N, ca, cb, kChunk, one, a, lda, kChunk, b, ldb,
                                    kChunk, zero, parts, ca, cc, nc),
                 Point::kernel) &&
         u.check(blas::gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, cc, 1, nc, one, parts, cc, ones, nc, zero, c, cc),
                 Point::kernel) &&
         (rest == 0 || u.check(blas::gemm(h, blas::op_c<T>(), CUBLAS_OP_N, ca, cb, rest, one, a + nc * kChunk, lda,
                                          b + nc * kChunk, ldb, one, c, ca),
                               Point::kernel));
}

// The CPU's addcols_econ_bcgs2 (block classical Gram-Schmidt, two passes)
// on the device, Q (dQ, m-by-n) resident: W1 = Q^H*U, Y = U - Q*W1 =
// Qy*Ry1, W2 = Q^H*Qy, Z = Qy - Q*W2 = Qn*Ry2 (cuSOLVER's Householder QRs),
// Qn left in dU (which holds U on entry); W1, W2 (n-by-p, ld n), Ry1, Ry2
// (p-by-p, ld p, upper) come back to the host vectors. False where a step
// fails, with the reason in u.
template <class T>
bool device_bcgs2(Update<T> &u, idx m, idx n, idx p, const T *dQ, T *dU, T *dW1, T *dParts, const T *dOnes,
                  std::vector<T> &w1, std::vector<T> &w2, std::vector<T> &ry1, std::vector<T> &ry2) {
  // cuSOLVER's legacy QRs count sizes and workspace in int: past that,
  // false with no failure recorded, and the CPU's passes take U.
  if (double(m) * double(p) > double(INT32_MAX)) return false;
  Context &c = u.c_;
  int lq = 0, lo = 0;
  if (!u.check(geqrf_work(c.solver, int(m), int(p), dU, int(m), &lq), Point::kernel) ||
      !u.check(orgqr_work(c.solver, int(m), int(p), int(p), dU, int(m), dU, &lo), Point::kernel))
    return false;
  const std::size_t np_ = std::size_t(n) * p, lw = std::size_t(std::max({lq, lo, 1}));
  if (fault::hit(Point::alloc) || !c.inner_workspace.reserve((np_ + p + lw + 64) * sizeof(T))) {
    u.check(cudaErrorMemoryAllocation, Point::alloc);
    return false;
  }
  T *dW2 = static_cast<T *>(c.inner_workspace.get()), *dtau = dW2 + np_, *dwork = dtau + p;
  int *dinfo = reinterpret_cast<int *>(dwork + lw);
  const T one(1);
  const cudaStream_t st = c.compute_stream;
  auto project = [&](T *dW) {  // dW = Q^H*dU, dU -= Q*dW
    return n == 0 || (gram(u, m, n, p, dQ, m, dU, m, dW, dParts, dOnes) &&
                      u.check(blas::gemm(c.blas, CUBLAS_OP_N, CUBLAS_OP_N, m, p, n, T(-1), dQ, m, dW, n, one, dU, m),
                              Point::kernel));
  };
  auto thin_qr = [&](std::vector<T> &ry) {  // dU = its Q, ry = its R
    return u.check(geqrf(c.solver, int(m), int(p), dU, int(m), dtau, dwork, int(lw), dinfo), Point::kernel) &&
           u.check(cudaMemcpy2DAsync(ry.data(), p * sizeof(T), dU, m * sizeof(T), p * sizeof(T), p,
                                     cudaMemcpyDeviceToHost, st),
                   Point::copy) &&
           u.check(orgqr(c.solver, int(m), int(p), int(p), dU, int(m), dtau, dwork, int(lw), dinfo), Point::kernel);
  };
  auto fetch = [&](std::vector<T> &host, const T *dev) {
    return u.check(cudaMemcpyAsync(host.data(), dev, np_ * sizeof(T), cudaMemcpyDeviceToHost, st), Point::copy);
  };
  return project(dW1) && thin_qr(ry1) && project(dW2) && thin_qr(ry2) &&
         (n == 0 || (fetch(w1, dW1) && fetch(w2, dW2))) && u.check(cudaStreamSynchronize(st), Point::sync);
}

// Where R's passes run. On the host they are P*K^2 rotated elements (K =
// N+P-J+1) on R's old columns and on their product M, about 1.6 ns each
// on a core (M = 16384, N = 4096, P = 100 on the H200 host: 0.13 s of a
// 0.18 s call at J = 1 on 16 cores, 0.05 s at J = 2049); on the device
// what they reduce, the K-by-K staircase (lower bandwidth P), is factored
// by hqr's device geqrf and its Q (cuSOLVER's xORGQR) is M: 8/3 K^3 flops,
// the staircase up, S and M down (36 ms at K = 4196 on the H200).
// HQR_PANEL=cpu keeps them on the host; otherwise the device takes them
// where HQR_GPU_MIN_N forces the GPU (its tests take this step) or where
// its estimate is lower.
constexpr double kRotationSeconds = 1.6e-9, kStaircaseCall = 2e-3, kStaircaseLink = 40e9, kStaircaseRate = 8e12;
template <class T> bool staircase_on_device(idx n, idx p, idx j0) {
  const idx k = n + p - j0;
  if (j0 >= n || k > idx(INT32_MAX / 2)) return false;  // no passes; cuSOLVER's int sizes
  if (config::panel() == config::kPanelCpu) return false;
  if (config::gpu_min_n() >= 0) return true;
  const double cx = is_complex<T> ? 4 : 1, kk = double(k) * double(k);
  const int threads = cpu::pass_threads(config::cpu_threads(), 1, 0);
  const double host = cx * double(p) * kk * kRotationSeconds / threads;
  const double device =
      kStaircaseCall + 3 * sizeof(T) * kk / kStaircaseLink + cx * 8.0 / 3 * kk * double(k) / kStaircaseRate;
  return device < host;
}

// The staircase (host.staircase()) factored on the device as M*S (hqr's
// device geqrf: cuSOLVER's took 26 ms at k = 4196 against 15, H200): it
// goes up into dM (k-by-k; straight from the host's room where that is
// pinned, else through the staging), S comes back over it, M (cuSOLVER's
// xORGQR/xUNGQR) into host.product_room(). False where a step failed:
// the host's copy of the staircase may then hold S, and the update must
// start again.
template <class T>
bool factor_staircase(Update<T> &u, cpu::AddcolsEconHost<T> &host, bool pinned, idx k, idx np, T *dM, T *dTau,
                      T *dWork, int lw, int *dInfo) {
  Context &c = u.c_;
  T *s = host.staircase();
  const std::size_t row = std::size_t(k) * sizeof(T), lds = std::size_t(np) * sizeof(T);
  const bool up = pinned ? u.check(cudaMemcpy2DAsync(dM, row, s, lds, row, k, cudaMemcpyHostToDevice, c.compute_stream),
                                   Point::copy)
                         : u.upload(pieces(0, 0, k, sizeof(T), [&](idx) { return k; }), s, np, dM, k, 0, 0) &&
                               u.check(cudaStreamSynchronize(c.upload_stream), Point::sync);
  const bool ok =
      up && factor(u, k, k, dM, k, dTau) &&
      u.check(cudaMemcpy2DAsync(s, lds, dM, row, row, k, cudaMemcpyDeviceToHost, c.compute_stream), Point::copy) &&
      u.check(orgqr(c.solver, int(k), int(k), int(k), dM, int(k), dTau, dWork, lw, dInfo), Point::kernel) &&
      u.check(cudaMemcpyAsync(host.product_room(), dM, std::size_t(k) * row, cudaMemcpyDeviceToHost, c.compute_stream),
              Point::copy) &&
      u.check(cudaStreamSynchronize(c.compute_stream), Point::sync);
  if (ok) host.staircase_factored();
  return ok;
}

// Kahan's criterion on the second pass: every diagonal entry of Ry2 at
// least 1/2 in magnitude (else U's columns were in Q's range up to
// rounding, or dependent among themselves: the CPU's passes and
// column-by-column fallback take it).
template <class T> bool second_pass_kept(idx p, const std::vector<T> &ry2) {
  for (idx i = 0; i < p; ++i)
    if (!(std::abs(ry2[std::size_t(i + i * p)]) >= 0.5)) return false;
  return true;
}

}  // namespace

template <class T>
Result qrupd_addcols_econ(lint m_, lint n_, lint p_, lint j0_, T *q, lint ldq_, T *r, lint ldr_, T *uh, lint ldu_) {
  const idx m = m_, n = n_, p = p_, j0 = j0_, ldq = ldq_, ldr = ldr_, ldu = ldu_, np = n + p, k = np - j0;
  static constexpr char kDeclined[] =
      "U ill conditioned or close to Q's range: the CPU's block Gram-Schmidt, then the device's passes";
  static constexpr char kDeclinedDevice[] = "U ill conditioned or close to Q's range: block Gram-Schmidt";
  static constexpr char kStaircase[] = "R's staircase factored on the device";
  static constexpr char kDeclinedDeviceStaircase[] =
      "U ill conditioned or close to Q's range: block Gram-Schmidt; R's staircase factored on the device";
  Context *ctx = context();
  if (!ctx) return {false, 0, context_error(), 0};
  const std::vector<Piece> qin = pieces(0, 0, n, sizeof(T), [&](idx) { return m; });
  const std::vector<Piece> uin = pieces(0, 0, p, sizeof(T), [&](idx) { return m; });
  return run_locked<T>(*ctx, [&](Update<T> &u) -> Result {
    Context &c = u.c_;
    const bool rotate = j0 < n;  // else no passes: Qn is Q's new columns
    const bool staircase = staircase_on_device<T>(n, p, j0);
    const std::size_t mq = std::size_t(m) * np, mo = rotate ? std::size_t(m) * k : 0;
    const std::size_t gw = std::size_t(np) * p, pp = std::size_t(p) * p, kk = std::size_t(k) * k;
    const std::size_t nc = std::size_t(chunks(m)), parts = gw * nc;
    int lw = 0;  // the staircase's M: cuSOLVER's workspace (elements)
    if (staircase) {
      T *none = nullptr;
      if (!u.check(orgqr_work(c.solver, int(k), int(k), int(k), none, int(k), none, &lw), Point::kernel))
        return {false, 0, u.why(), 0};
      lw = std::max(lw, 1);
    }
    const std::size_t sw = staircase ? std::size_t(k) + std::size_t(lw) + 128 : 0;
    if (!u.reserve(mq + mo, gw + 2 * pp + kk + parts + nc + sw + 384)) return {false, 0, u.why(), 0};
    // The host steps' room (the new R, M: 280 MB at N = 4096, J = 1) in
    // the context's pinned buffer, which later calls reuse (fresh pages
    // cost as much as the steps), else on the heap.
    const std::size_t room = cpu::AddcolsEconHost<T>::room_elems(n_, p_, j0_);
    const bool pinned_room = u.reserve_host(pp + gw + room + 192, false);
    if (!pinned_room && !u.reserve_host(pp + gw + 128)) return {false, 0, u.why(), 0};
    std::unique_ptr<cpu::AddcolsEconHost<T>> host;
    try {
      host.reset(new cpu::AddcolsEconHost<T>(n_, p_, j0_, config::cpu_threads(),
                                             pinned_room ? u.take_host(room) : nullptr));
    } catch (const std::bad_alloc &) {
      return {false, 0, "out of host memory", 0};
    }
    T *dQ = u.take_matrix(mq), *dO = rotate ? u.take_matrix(mo) : nullptr;
    T *dU = dQ + std::size_t(n) * m;  // U, then U1, then Qn: Q's columns n..n+p-1
    T *dG = u.take_work(gw), *dR1 = u.take_work(pp), *dF = u.take_work(pp), *dM = u.take_work(kk);
    T *dParts = u.take_work(parts), *dOnes = u.take_work(nc);
    T *dTau = staircase ? u.take_work(std::size_t(k)) : nullptr, *dWork = staircase ? u.take_work(lw) : nullptr;
    int *dInfo = staircase ? reinterpret_cast<int *>(u.take_work(1)) : nullptr;
    // M: the host's passes' product up, or the staircase factored here.
    auto product = [&]() {
      if (!staircase)
        return u.check(cudaMemcpyAsync(dM, host->rotation(), kk * sizeof(T), cudaMemcpyHostToDevice, c.compute_stream),
                       Point::copy);
      if (!factor_staircase(u, *host, pinned_room, k, np, dM, dTau, dWork, lw, dInfo)) return false;
      u.mark("staircase factored");
      return true;
    };
    host->leave_staircase(staircase);
    T *hG1 = u.take_host(pp), *hG2 = u.take_host(gw);
    const T one(1), zero(0);
    const std::vector<T> ones(nc, one);
    if (!u.upload(uin, uh, ldu, dU, m, 0, 0) ||
        (nc > 0 && !u.check(cudaMemcpyAsync(dOnes, ones.data(), nc * sizeof(T), cudaMemcpyHostToDevice,
                                            c.compute_stream),
                            Point::copy)) ||
        !u.upload(qin, q, ldq, dQ, m, 0, 0) || !u.check(cudaStreamSynchronize(c.upload_stream), Point::sync))
      return {false, 0, u.why(), 0};
    u.mark("uploaded");
    // G1 = U^H*U (R1's Cholesky reads its upper triangle and the real
    // parts of its diagonal).
    if (!gram(u, m, p, p, dU, m, dU, m, dG, dParts, dOnes) ||
        !u.check(cudaMemcpyAsync(hG1, dG, pp * sizeof(T), cudaMemcpyDeviceToHost, c.compute_stream), Point::copy) ||
        !u.check(cudaStreamSynchronize(c.compute_stream), Point::sync))
      return {false, 0, u.why(), 0};
    std::copy(hG1, hG1 + pp, host->gram1());
    bool cholqr2 = host->factor_gram1();
    if (cholqr2) {
      // U1 = U*R1^-1 in place, then [W; G2] = [Q U1]^H*U1.
      if (!u.check(cudaMemcpyAsync(dR1, host->r1inv(), pp * sizeof(T), cudaMemcpyHostToDevice, c.compute_stream),
                   Point::copy) ||
          !u.check(blas::trmm(c.blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m,
                              p, one, dR1, p, dU, m, dU, m),
                   Point::kernel) ||
          !gram(u, m, np, p, dQ, m, dU, m, dG, dParts, dOnes) ||
          !u.check(cudaMemcpyAsync(hG2, dG, gw * sizeof(T), cudaMemcpyDeviceToHost, c.compute_stream), Point::copy) ||
          !u.check(cudaStreamSynchronize(c.compute_stream), Point::sync))
        return {false, 0, u.why(), 0};
      u.mark("projected");
      std::copy(hG2, hG2 + gw, host->gram2());
      cholqr2 = host->finish(r, ldr);
    }
    bool staged;              // Qn on the device (dU) and M beside it
    const char *why = nullptr;  // how the update went, where not as planned
    if (cholqr2) {
      // Qn = (U1 - Q*W)*F, W = dG's first n rows (what the host read); M up.
      if ((n > 0 && !u.check(blas::gemm(c.blas, CUBLAS_OP_N, CUBLAS_OP_N, m, p, n, T(-1), dQ, m, dG, np, one, dU, m),
                             Point::kernel)) ||
          !u.check(cudaMemcpyAsync(dF, host->f(), pp * sizeof(T), cudaMemcpyHostToDevice, c.compute_stream),
                   Point::copy) ||
          !u.check(blas::trmm(c.blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m,
                              p, one, dF, p, dU, m, dU, m),
                   Point::kernel) ||
          (rotate && !product()))
        return {false, 0, u.why(), 0};
      staged = true;
      if (staircase) why = kStaircase;
    } else {
      // CholeskyQR2 declined: U ill conditioned, or close to Q's range (a
      // mean shared by U's and A's columns suffices). Block Gram-Schmidt
      // instead (the CPU path's), its two passes on the device where Q
      // already is (U uploaded again: dU may hold U*R1^-1), Qn then copied
      // into Q's room so that the CPU can finish rows; where its second
      // pass still cancels (Kahan's criterion), the CPU's passes and
      // column-by-column fallback orthogonalise U into Q's room (U
      // destroyed) and Qn goes up. Either way the device applies the
      // Givens passes' product to Q's columns. On the CPU alone this case
      // took 1.2-1.4 s at M = 16384, N = 4096, P = 100 (H200 host,
      // bench/results/python-NVIDIA-H200-2026-12-04.txt).
      u.mark("declined");
      std::vector<T> w1, w2, ry1, ry2;
      bool on_device = false;
      try {
        w1.resize(std::size_t(n) * p), w2.resize(std::size_t(n) * p), ry1.resize(pp), ry2.resize(pp);
        on_device = u.upload(uin, uh, ldu, dU, m, 0, 0) &&
                    u.check(cudaStreamSynchronize(c.upload_stream), Point::sync) &&
                    device_bcgs2(u, m, n, p, dQ, dU, dG, dParts, dOnes, w1, w2, ry1, ry2) && second_pass_kept(p, ry2);
      } catch (const std::bad_alloc &) {
        on_device = false;
      }
      if (!u.why() && on_device) on_device = u.stream_rows(dU, m, q + n * ldq, ldq, m, p) == m;
      if (u.why()) return {false, 0, u.why(), 0};  // a step failed: of the caller's arrays only Q's room changed
      if (on_device) {
        u.mark("block Gram-Schmidt on the device");
        host->take_block(w1.data(), w2.data(), ry1.data(), ry2.data(), r, ldr_);
        u.mark("orthogonalised on the device");
        // Nothing of the caller's but Q's room has changed yet.
        if (rotate && !product()) return {false, 0, u.why(), 0};
        staged = true;
      } else {
        // The CPU's Gram-Schmidt destroys U: from here the update completes,
        // so the host makes the passes (a failed staircase would leave
        // neither R nor M).
        host->leave_staircase(false);
        host->orthogonalize(m_, q, ldq_, uh, ldu_, r, ldr_);
        u.mark("orthogonalised on the CPU");
        const std::vector<Piece> qnin = pieces(0, 0, p, sizeof(T), [&](idx) { return m; });
        staged = !rotate || (u.upload(qnin, q + n * ldq, ldq, dU, m, 0, 0) &&
                             u.check(cudaStreamSynchronize(c.upload_stream), Point::sync) &&
                             u.check(cudaMemcpyAsync(dM, host->rotation(), kk * sizeof(T), cudaMemcpyHostToDevice,
                                                     c.compute_stream),
                                     Point::copy));
      }
      why = !on_device ? kDeclined : staircase ? kDeclinedDeviceStaircase : kDeclinedDevice;
    }
    // From here the update completes: R is final, Q's rows follow.
    host->copy_r(r, ldr_);
    u.mark("R copied out");
    idx rows_done = 0;  // none where Qn or M did not reach the device
    if (staged && rotate)
      rows_done = u.stream_rows(dO, m, q + j0 * ldq, ldq, m, k, false, [&](idx r0, idx r1) {
        return u.check(blas::gemm(c.blas, CUBLAS_OP_N, CUBLAS_OP_N, r1 - r0, k, k, one, dQ + r0 + j0 * m, m, dM, k,
                                  zero, dO + r0, m),
                       Point::kernel);
      });
    else if (staged && cholqr2)
      rows_done = u.stream_rows(dU, m, q + n * ldq, ldq, m, p, false, [](idx, idx) { return true; });
    else if (staged)
      rows_done = m;  // Qn, Q's new columns, already in place
    u.mark("Q streamed");
    if (rows_done < m) {
      host->finish_rows(m - rows_done, q + rows_done, ldq, uh + rows_done, ldu);
      why = "CUDA error: Q's last rows updated on the CPU";
    }
    return u.done("qrupd_addcols_econ", why, lint(rows_done));
  });
}

#define HQR_INSTANTIATE(T) \
  template Result qrupd_addcols_econ(lint, lint, lint, lint, T *, lint, T *, lint, T *, lint);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
