// Small QR problems in one trip (one_trip.cuh): xGEQRF, xORMQR/xUNMQR,
// xORGQR/xUNGQR and xGELS with their arrays uploaded whole, the work done
// on the device by hqr's kernels and blocks (panel_qr.cuh,
// block_reflector.cuh), cuSOLVER (geqrf, ormqr/unmqr and orgqr/ungqr where
// hqr's lose) and cuBLAS, the results downloaded whole.
//
// Why: below about 2048 the hybrid paths' per-block staging, events and
// T factors cost more than the device work: hybrid dgeqrf 512^2 2.9 ms host to host against
// cuSOLVER's 1.8 pinned (H200, bench/results/history/qr-tuning-NVIDIA-H200-H100-2026-11-26.txt).
//
// xGELS with m < n factors A**H (transposed on the device) as the hybrid
// path does, which gives xGELQF's L = R**H and reflectors.
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cuda/blas.cuh"
#include "cuda/block_reflector.cuh"
#include "cuda/context.hpp"
#include "cuda/cusolver_q.cuh"
#include "cuda/gpu.hpp"
#include "cuda/one_trip.cuh"
#include "cuda/panel_qr.cuh"
#include "cuda/qr_device.hpp"
#include "cuda/qr_kernels.cuh"

namespace hqr::gpu {
namespace {

// Which QR of an m-by-n matrix in one trip: hqr's small geqrf (panel_qr.cuh)
// for small, near-square shapes, where per-column launches bound cuSOLVER's
// geqrf and hqr's CholeskyQR2 panels alike, hqr's device geqrf
// (geqrf_device: CholeskyQR2 panels) elsewhere; cuSOLVER's geqrf where the
// small geqrf does not fit (rows past kPanelQrRows, or shared memory that
// holds no panel). Measured reasons (H200, d, ms host to host):
// - small shapes leave geqrf_device: 512^2 2.6 against cuSOLVER's 1.9, 4096x512 2.6 against 4.5
//   (bench/results/history/qr-tuning-NVIDIA-H200-H100-2026-11-26.txt)
// - small geqrf against cuSOLVER's: 512^2 1.75-1.84 / 1.96-2.13, 1536x768 5.1 / 4.7 (16-column panels)
//   (bench/results/history/qr-tuning-NVIDIA-H200-2026-11-27c.txt)
bool small_geqrf(lint m, lint n) {
  const lint lo = std::min(m, n), hi = std::max(m, n);
  return lo <= 768 && hi <= 2 * lo;
}
constexpr lint kPanelQrRows = 1024;
// Whether a QR of an m-by-n matrix goes in one trip at all: up to a
// smaller dimension of 1024 and `mib` MiB, where it beats the hybrid;
// xGEQRF: 32 MiB for wide shapes, 16 for tall ones, whose hybrid hides its
// transfers behind the panels; xGELS: 32 MiB. Measured reasons (d, ms, one trip / hybrid;
// bench/results/history/qr-tuning-NVIDIA-H200-H100-2026-11-26.txt):
// - H200: 16384x128 1.4 / 2.3, 1536^2 6.7 / 6.3 (past 1024 the hybrid wins)
// - H100, 32 MiB: dgeqrf 4096x1024 5.5 / 5.1 (tall: the hybrid wins), dgels 4096x1024 6.2 / 8.0
template <class T> bool one_trip_qr(lint m, lint n, std::size_t mib) {
  return std::min(m, n) <= 1024 && std::size_t(m) * std::size_t(n) * sizeof(T) <= (mib << 20);
}

// The packed lower trapezoid p of an m-by-k block (k <= m) into the first k
// of n columns of a (leading dimension m): the reflectors in the layout
// cuSOLVER reads, zeros above them and in the columns past k.
template <class S> __global__ void unpack_reflectors(int64_t m, int64_t k, int64_t n, const S *p, S *a) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < m * n; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % m, j = e / m;
    a[e] = j < k && i >= j ? p[packed_at(false, m, j) + i - j] : dev_zero(S());
  }
}

// V of reflectors k0..k0+kb-1 (mk = m - k0 rows, leading dimension ldv)
// straight from p, the packed lower trapezoid of the m-by-k reflectors
// (Layout::lower): their entries below the diagonal, ones on it, zeros
// above, as block_t's unit_lower_copy makes them from unpacked ones.
template <class S>
__global__ void packed_unit_lower(int64_t m, int64_t k0, int64_t mk, int64_t kb, const S *p, S *v, int64_t ldv) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < mk * kb; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % mk, c = e / mk;
    v[i + c * ldv] = i > c ? p[packed_at(false, m, k0 + c) + i - c] : i == c ? dev_one(S()) : dev_zero(S());
  }
}

// The QR of the m-by-n f (leading dimension ldf) on the device, tau into
// dtau: geqrf_small (panel_qr.cuh; panels of `width` columns), cuSOLVER's
// geqrf, or hqr's device geqrf (geqrf_device: its own scratch,
// synchronous; its panels' T's in `kept` after run). `extra` columns right
// of f (same leading dimension), set before init, take Q**H inside
// geqrf_small's trailing updates where it runs (applied()); elsewhere they
// are left alone.
template <class T> struct Factor {
  lint m, n, ldf, extra = 0;
  bool own = !small_geqrf(m, n);
  int width = 0;
  cusolverDnParams_t params = nullptr;
  std::size_t device_bytes = 0, host_bytes = 0;
  std::vector<char> host;
  DeviceQR<T> kept;
  Factor(lint m_, lint n_, lint ldf_) : m(m_), n(n_), ldf(ldf_) {}
  Factor(const Factor &) = delete;
  Factor &operator=(const Factor &) = delete;
  ~Factor() {
    if (params) cusolverDnDestroyParams(params);
  }
  bool init(Context &c, T *f, T *dtau) {
    const cudaDataType t = blas::data_type<T>();
    if (own) return true;
    if (m <= kPanelQrRows) width = panel_qr_width<T>(m, c.block_shared_memory);
    if (width) {
      device_bytes = geqrf_small_work(m, n + extra, width) * sizeof(T);
      return true;
    }
    if (!ok(cusolverDnCreateParams(&params)) ||
        !ok(cusolverDnXgeqrf_bufferSize(c.solver, params, m, n, t, f, ldf, t, dtau, t, &device_bytes, &host_bytes)))
      return false;
    host.resize(host_bytes);
    return true;
  }
  bool run(Context &c, T *f, T *dtau, void *work, int *dinfo) {
    if (own) return geqrf_device(c, m, n, f, ldf, dtau, &kept).ran;
    if (width)
      return geqrf_small(c, m, n + extra, std::min(m, n), f, ldf, dtau, width, static_cast<T *>(work),
                         [](auto status) { return ok(status); });
    const cudaDataType t = blas::data_type<T>();
    return ok(cusolverDnXgeqrf(c.solver, params, m, n, t, f, ldf, t, dtau, t, work, device_bytes,
                               host.empty() ? nullptr : host.data(), host_bytes, dinfo));
  }
  bool applied() const { return width > 0 && extra > 0; }  // the extra columns hold Q**H C after run
};

std::size_t round_up(std::size_t b) { return (b + 255) / 256 * 256; }

// Ops for one_trip (one_trip.cuh): what travels, where it lies on the
// device, and the work.
template <class T> struct GeqrfOp {
  const char *name = "geqrf";
  const char *why(int) const { return "geqrf failed on the device"; }
  lint m, n;
  Travel<T> in, out;
  int64_t in_at = 0, out_at = 0, device_size;
  unsigned long long value = 0;
  Factor<T> f;
  GeqrfOp(lint m_, lint n_, T *a, lint lda, T *tau)
      : m(m_), n(n_), in{{a, lda, m_, n_}}, out{{a, lda, m_, n_}, {tau, 1, std::min(m_, n_), 1}},
        device_size(out.size()), f(m_, n_, m_) {}
  T *tau(T *d) const { return d + out.start(1); }
  bool init(Context &c, T *d, std::size_t *work_bytes) {
    *work_bytes = 0;
    if (!f.init(c, d, tau(d))) return false;
    *work_bytes = f.device_bytes;
    return true;
  }
  bool run(Context &c, T *d, void *work, Report *report) {
    return ok(cudaMemsetAsync(&report->info, 0, sizeof(int), c.compute_stream)) &&
           f.run(c, d, tau(d), work, &report->info);
  }
  // The small geqrf's launches depend on m and n alone (one_trip.cuh replays
  // them as a graph); the device geqrf waits for the device.
  bool graph_key(std::array<std::uintptr_t, 3> *k) const {
    *k = {std::uintptr_t(m), std::uintptr_t(n), 0};
    return f.width > 0;
  }
};

// The reflectors (A's lower trapezoid, what xORMQR and xORGQR read of A)
// travel packed, about half of A for a square Q; on the device they are
// unpacked to the layout cuSOLVER reads, at the buffer's start.
template <class T> bool unpack(Context &c, T *d, int64_t in_at, lint m, lint k, lint n) {
  unpack_reflectors<<<grid_for(int64_t(m) * n), 256, 0, c.compute_stream>>>(m, k, n, dv(d + in_at), dv(d));
  return ok(cudaGetLastError());
}

// hqr's blocks in the one trip (block_reflector.cuh): the block size, and
// the scratch carved from the op's work: V (vrows by nb), T, G and E (nb by
// nb), W and W2 (wsize each). Blocks of up to 512: T's inverse then takes
// cholqr.cuh's inverse_upper where the block is 32 times a power of two.
inline lint one_trip_block(lint k) { return std::max<lint>(1, std::min<lint>(k, 512)); }
template <class T> struct BlockScratch {
  lint nb;
  std::size_t vsize, wsize;
  std::size_t size(int i) const {
    const std::size_t b2 = std::size_t(nb) * nb, c[6] = {vsize, b2, b2, b2, wsize, wsize};
    return c[i];
  }
  std::size_t bytes() const {
    std::size_t b = 0;
    for (int i = 0; i < 6; ++i) b += round_up(size(i) * sizeof(T));
    return b;
  }
  void carve(void *work, T *p[6]) const {
    char *at = static_cast<char *>(work);
    for (int i = 0; i < 6; ++i) {
      p[i] = reinterpret_cast<T *>(at);
      at += round_up(size(i) * sizeof(T));
    }
  }
};

// xORMQR/xUNMQR: hqr's blocks (block_reflector.cuh) up to k = 1024,
// cuSOLVER's ormqr/unmqr above. The reflectors are unpacked at the
// buffer's start for cuSOLVER only: each of hqr's blocks takes its V
// straight from the packed ones (packed_unit_lower). Measured reason
// (H100, ms, cuSOLVER's / hqr's): 1024 1.30-1.34 / 0.94-1.01
// (bench/results/history/qr-tuning-NVIDIA-H100-2026-11-27.txt).
constexpr lint kOwnQ = 1024;
template <class T> struct OrmqrOp {
  const char *name = "ormqr";
  bool left, trans;
  lint m, n, k, nq;
  bool own = k <= kOwnQ;
  Travel<T> in, out;  // A is only read: it travels up, never back
  int64_t in_at, out_at, device_size;
  unsigned long long value = 0;
  int lwork = 0;
  BlockScratch<T> blocks{one_trip_block(k), std::size_t(nq) * one_trip_block(k),
                         std::size_t(one_trip_block(k)) * (left ? n : m)};
  OrmqrOp(bool l, bool t, lint m_, lint n_, lint k_, const T *a, lint lda, const T *tau, T *c, lint ldc)
      : left(l), trans(t), m(m_), n(n_), k(k_), nq(l ? m_ : n_),
        in{{const_cast<T *>(a), lda, nq, k_, Layout::lower}, {const_cast<T *>(tau), 1, k_, 1}, {c, ldc, m_, n_}},
        out{{c, ldc, m_, n_}}, in_at(own ? 0 : int64_t(nq) * k_), out_at(in_at + in.start(2)),
        device_size(in_at + in.size()) {}
  const char *why(int) const { return "ormqr failed on the device"; }
  cublasSideMode_t side() const { return left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }
  cublasOperation_t op() const { return trans ? blas::op_c<T>() : CUBLAS_OP_N; }
  T *tau(T *d) const { return d + in_at + in.start(1); }
  bool init(Context &c, T *d, std::size_t *work_bytes) {
    if (own) {
      *work_bytes = blocks.bytes();
      return true;
    }
    const bool fine = ok(
        ormqr_work(c.solver, side(), op(), int(m), int(n), int(k), d, int(nq), tau(d), d + out_at, int(m), &lwork));
    *work_bytes = std::size_t(lwork) * sizeof(T);
    return fine;
  }
  bool run(Context &c, T *d, void *work, Report *report) {
    if (!own)
      return unpack(c, d, in_at, nq, k, k) && ok(ormqr(c.solver, side(), op(), int(m), int(n), int(k), d, int(nq),
                                                       tau(d), d + out_at, int(m), work, lwork, &report->info));
    DeviceSteps s(c);
    if (!ok(cudaMemsetAsync(&report->info, 0, sizeof(int), c.compute_stream))) return false;
    T *p[6];
    blocks.carve(work, p);
    // Q = H(1)...H(k): Q C and C Q**H take the blocks last first (as the hybrid's, qr_apply.cu).
    const lint nb = blocks.nb, npanels = (k + nb - 1) / nb, ldw = left ? nb : m;
    T *dc = d + out_at;
    for (lint i = 0; i < npanels; ++i) {
      const lint b = left != trans ? npanels - 1 - i : i, k0 = b * nb, kb = std::min(nb, k - k0), mk = nq - k0;
      packed_unit_lower<<<grid_for(int64_t(mk) * kb), 256, 0, c.compute_stream>>>(nq, k0, mk, kb, dv(d + in_at),
                                                                               dv(p[0]), nq);
      if (!s.launched() || !t_of_v(s, mk, kb, p[0], nq, tau(d) + k0, p[1], nb, p[2]) ||
          !(left ? apply_block_reflector(s, true, trans, mk, n, kb, p[0], nq, p[1], nb, dc + k0, m, p[4], ldw, p[5])
                 : apply_block_reflector(s, false, trans, m, mk, kb, p[0], nq, p[1], nb, dc + std::size_t(k0) * m, m,
                                         p[4], ldw, p[5])))
        return false;
    }
    return true;
  }
};

// xORGQR/xUNGQR: hqr's blocks up to k = 1024, cuSOLVER's orgqr/ungqr
// above. Measured reasons (H100, ms, cuSOLVER's / hqr's):
// - k = 1024 1.36-1.37 / 0.79-0.95 (bench/results/history/qr-tuning-NVIDIA-H100-2026-11-27.txt)
// - from 1536 even, at 3072 the blocks lose (bench/results/history/qr-tuning-NVIDIA-H200-H100-2026-11-26.txt, item 9)
template <class T> struct OrgqrOp {
  const char *name = "orgqr";
  lint m, n, k;
  bool own = k <= kOwnQ;
  BlockScratch<T> blocks{one_trip_block(k), std::size_t(m) * one_trip_block(k), std::size_t(one_trip_block(k)) * n};
  Travel<T> in, out;
  int64_t in_at, out_at = 0, device_size;
  unsigned long long value = 0;
  int lwork = 0;
  OrgqrOp(lint m_, lint n_, lint k_, T *a, lint lda, const T *tau)
      : m(m_), n(n_), k(k_), in{{a, lda, m_, k_, Layout::lower}, {const_cast<T *>(tau), 1, k_, 1}},
        out{{a, lda, m_, n_}}, in_at(int64_t(m_) * n_), device_size(in_at + in.size()) {}
  const char *why(int) const { return "orgqr failed on the device"; }
  T *tau(T *d) const { return d + in_at + in.start(1); }
  bool init(Context &c, T *d, std::size_t *work_bytes) {
    if (own) {
      *work_bytes = blocks.bytes();
      return true;
    }
    const bool fine = ok(orgqr_work(c.solver, int(m), int(n), int(k), d, int(m), tau(d), &lwork));
    *work_bytes = std::size_t(lwork) * sizeof(T);
    return fine;
  }
  bool run(Context &c, T *d, void *work, Report *report) {
    if (!unpack(c, d, in_at, m, k, n)) return false;
    if (!own) return ok(orgqr(c.solver, int(m), int(n), int(k), d, int(m), tau(d), work, lwork, &report->info));
    DeviceSteps s(c);
    if (!ok(cudaMemsetAsync(&report->info, 0, sizeof(int), c.compute_stream)) || !orgqr_start(s, m, n, k, d, m))
      return false;
    T *p[6];
    blocks.carve(work, p);
    const lint nb = blocks.nb;
    for (lint b = (k + nb - 1) / nb - 1; b >= 0; --b)
      if (!orgqr_block(s, m, n, b * nb, std::min(nb, k - b * nb), d, m, tau(d) + b * nb, p[0], m, p[1], p[2], p[3],
                       nb, p[4], p[5]))
        return false;
    return true;
  }
};

// xGELS's verdict, one block: report->info = kNonFinite if max |a_ij|
// (report->value) is NaN or Inf, else the first i (from 1) with f(i-1, i-1)
// exactly zero (xTRTRS's check), else the solver's info.
constexpr int kNonFinite = -1000;
template <class S> __global__ void gels_verdict(int64_t q, const S *f, int64_t ldf, const int *solver, Report *report) {
  const int first = first_zero_diagonal(q, f, ldf);
  if (threadIdx.x == 0)
    report->info = !isfinite(__longlong_as_double(static_cast<long long>(report->value))) ? kNonFinite
                   : first ? first : *solver;
}

// On a singular triangle (info > 0) B goes back to what it held before the
// solve: xTRTRS leaves B untouched and xGELS returns there.
template <class S> __global__ void restore_if_singular(const Report *report, int64_t size, const S *saved, S *b) {
  if (report->info <= 0) return;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < size; e += int64_t(gridDim.x) * blockDim.x)
    b[e] = saved[e];
}

// xGELS: m >= n factors A = QR in place; m < n factors F = A**H (n by m)
// in the scratch and gives A = F**H back. On the p-by-q F (p = max(m,n)):
// Q first (m >= n 'N', m < n 'T'/'C'): B := Q_F**H B, B(1:q) := R**-1 B(1:q);
// else B(1:q) := R**-H B(1:q), B(q+1:p) := 0, B := Q_F B. The report's
// value is max |a_ij| of the input, for the caller's emulation of xGELS's
// scaling. Nothing is stored where A holds a NaN or an Inf (LAPACK's
// scaling of those cannot be emulated after the fact; gels.cpp): the CPU
// then runs the call. Where R has a zero on its diagonal (xTRTRS's check)
// the results are LAPACK's INFO > 0 state: A factored, B as it was before
// the solve (Q**H B where Q comes first, else the input).
// m >= n 'N': B lies right of A on the device with A's leading dimension,
// so where the small geqrf factors A it also forms Q**H B as its trailing
// update (Factor's extra columns) and cuSOLVER's xORMQR is not called
// (H200, d 256^2 nrhs 1 pinned: geqrf 0.64 ms, the whole op 0.90 with
// xORMQR, against 0.84 for cuSOLVER's geqrf, ormqr and trsm). Where hqr's
// device geqrf factors F, Q is applied block by block with the T's it
// leaves (apply_kept), not by cuSOLVER's xORMQR, which forms every T again
// (H100, c 1024^2 nrhs 1: xORMQR 0.55-0.62 ms of the op's 4.7).
template <class T> struct GelsOp {
  const char *name = "gels";
  bool trans, lq;
  lint m, n, nrhs, p, q;
  Travel<T> in, out;
  int64_t in_at = 0, out_at = 0, device_size;
  unsigned long long value = 0;
  Factor<T> f;
  int lwork = 0;  // cuSOLVER's xORMQR's workspace (elements) ...
  lint qnb = 0;   // ... or, where the device geqrf factors, its block size (V and W in the work)
  GelsOp(bool t, lint m_, lint n_, lint nrhs_, T *a, lint lda, T *b, lint ldb, T *tau)
      : trans(t), lq(m_ < n_), m(m_), n(n_), nrhs(nrhs_), p(std::max(m_, n_)), q(std::min(m_, n_)),
        in{{a, lda, m_, n_}, {b, ldb, p, nrhs_}}, out{{a, lda, m_, n_}, {b, ldb, p, nrhs_}, {tau, 1, q, 1}},
        device_size(out.size() + (lq ? int64_t(n_) * m_ : 0)), f(p, q, p) {
    if (!lq && !trans) f.extra = nrhs;  // B at column n of A's layout: out.start(1) = m n
  }
  const char *why(int info) const { return info == kNonFinite ? kNonFiniteInput : "gels failed on the device"; }
  bool keeps(int info) const { return info > 0; }
  // With the small geqrf, the launches depend on the shape and trans alone
  // (one_trip.cuh replays them as a graph).
  bool graph_key(std::array<std::uintptr_t, 3> *k) const {
    *k = {std::uintptr_t(m), std::uintptr_t(n), std::uintptr_t(nrhs) << 1 | std::uintptr_t(trans)};
    return f.width > 0;
  }
  T *factor(T *d) const { return lq ? d + out.size() : d; }  // F: A itself, or A**H after everything
  T *rhs(T *d) const { return d + out.start(1); }
  T *tau(T *d) const { return d + out.start(2); }
  bool q_first() const { return lq == trans; }
  std::size_t q_at() const { return round_up(f.device_bytes); }
  std::size_t v_bytes() const { return round_up(std::size_t(p) * qnb * sizeof(T)); }
  std::size_t q_bytes() const {
    return qnb ? v_bytes() + std::size_t(qnb) * nrhs * sizeof(T) : std::size_t(lwork) * sizeof(T);
  }
  std::size_t saved_at() const { return q_at() + round_up(q_bytes()) + 256; }
  bool init(Context &c, T *d, std::size_t *work_bytes) {
    if (!f.init(c, factor(d), tau(d))) return false;
    if (f.own)
      qnb = geqrf_device_block(q);
    else if (!ok(ormqr_work(c.solver, CUBLAS_SIDE_LEFT, q_first() ? blas::op_c<T>() : CUBLAS_OP_N, int(p), int(nrhs),
                            int(q), factor(d), int(p), tau(d), rhs(d), int(p), &lwork)))
      return false;
    *work_bytes = saved_at() + std::size_t(p) * nrhs * sizeof(T);  // ... solver info, B before the solve
    return true;
  }
  bool run(Context &c, T *d, void *work, Report *report) {
    cudaStream_t st = c.compute_stream;
    T *fa = factor(d), *b = rhs(d);
    void *qwork = static_cast<char *>(work) + q_at();
    int *solver_info = reinterpret_cast<int *>(static_cast<char *>(qwork) + round_up(q_bytes()));
    auto apply_q = [&](bool conj) {
      if (qnb) return apply_kept(c, conj, fa, b, qwork);
      return ok(ormqr(c.solver, CUBLAS_SIDE_LEFT, conj ? blas::op_c<T>() : CUBLAS_OP_N, int(p), int(nrhs), int(q), fa,
                      int(p), tau(d), b, int(p), qwork, lwork, solver_info));
    };
    auto solve = [&](bool conj) {
      return ok(blas::trsm(c.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, conj ? blas::op_c<T>() : CUBLAS_OP_N,
                           CUBLAS_DIAG_NON_UNIT, q, nrhs, T(1), fa, p, b, p));
    };
    bool fine = ok(cudaMemsetAsync(report, 0, sizeof(Report), st)) && ok(cudaMemsetAsync(solver_info, 0, sizeof(int), st));
    if (fine) {
      max_abs<<<grid_for(int64_t(m) * n), 256, 0, st>>>(m, n, dv(d), m, &report->value);
      fine = ok(cudaGetLastError()) && (!lq || ok(blas::geam(c.blas, blas::op_c<T>(), n, m, d, m, fa, n)));
    }
    T *saved = reinterpret_cast<T *>(static_cast<char *>(work) + saved_at());
    auto save = [&] { return ok(cudaMemcpyAsync(saved, b, std::size_t(p) * nrhs * sizeof(T), cudaMemcpyDeviceToDevice, st)); };
    fine = fine && f.run(c, fa, tau(d), work, solver_info);
    if (q_first())
      fine = fine && (f.applied() || apply_q(true)) && save() && solve(false);
    else
      fine = fine && save() && solve(true) &&
             (p == q || ok(cudaMemset2DAsync(b + q, p * sizeof(T), 0, (p - q) * sizeof(T), nrhs, st))) &&
             apply_q(false);
    if (!fine) return false;
    gels_verdict<<<1, 256, 0, st>>>(q, dv(fa), p, solver_info, report);
    restore_if_singular<<<grid_for(p * nrhs), 256, 0, st>>>(report, p * nrhs, dv(saved), dv(b));
    return ok(cudaGetLastError()) && (!lq || ok(blas::geam(c.blas, blas::op_c<T>(), m, n, fa, n, d, m)));
  }
  // The p-by-nrhs b := Q_F**H b (conj: blocks first to last) or Q_F b (last
  // to first) from the device geqrf's T's (f.kept), each block's V copied
  // with its unit triangle into the work's V.
  bool apply_kept(Context &c, bool conj, const T *fa, T *b, void *work) const {
    if (q == 0) return true;
    if (f.kept.nb != qnb) return false;  // not the T's planned for
    DeviceSteps s(c);
    T *v = static_cast<T *>(work), *w = reinterpret_cast<T *>(static_cast<char *>(work) + v_bytes());
    return apply_q_blocks(s, conj, p, q, nrhs, fa, p, f.kept.t, qnb, b, p, v, p, w, qnb);
  }
};

// Whether the one trip serves: where `rule` says so and it fits the
// staging. HQR_NB (a block size for the hybrids) keeps the hybrids at every
// size, so that their tests cover them.
template <class T, class Op> bool wanted(const Context &c, const Op &op, bool rule) {
  return rule && config::nb() <= 0 && one_trip_fits<T>(c, op.in.size(), op.out.size());
}

}  // namespace

template <class T> bool geqrf_one_trip(Context &c, lint m, lint n, T *a, lint lda, T *tau, Result *r) {
  GeqrfOp<T> op(m, n, a, lda, tau);
  if (!wanted<T>(c, op, one_trip_qr<T>(m, n, m < n ? 32 : 16))) return false;
  *r = one_trip<T>(c, op);
  return true;
}

template <class T>
bool ormqr_one_trip(Context &c, bool left, bool trans, lint m, lint n, lint k, const T *a, lint lda, const T *tau,
                    T *cc, lint ldc, Result *r) {
  OrmqrOp<T> op(left, trans, m, n, k, a, lda, tau, cc, ldc);
  if (!wanted<T>(c, op, true)) return false;
  *r = one_trip<T>(c, op);
  return true;
}

template <class T> bool orgqr_one_trip(Context &c, lint m, lint n, lint k, T *a, lint lda, const T *tau, Result *r) {
  OrgqrOp<T> op(m, n, k, a, lda, tau);
  if (!wanted<T>(c, op, k > 0)) return false;  // k = 0 (Q = I's columns) stays with the hybrid
  *r = one_trip<T>(c, op);
  return true;
}

template <class T>
bool gels_one_trip(Context &c, bool trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, T *tau,
                   GelsResult *g) {
  GelsOp<T> op(trans, m, n, nrhs, a, lda, b, ldb, tau);
  if (!wanted<T>(c, op, one_trip_qr<T>(m, n, 32))) return false;
  g->r = one_trip<T>(c, op);
  g->factored = g->r.ran;
  g->b_columns = g->r.ran ? nrhs : 0;
  std::memcpy(&g->anrm, &op.value, sizeof g->anrm);
  return true;
}

#define HQR_INSTANTIATE(T)                                                                                        \
  template bool geqrf_one_trip(Context &, lint, lint, T *, lint, T *, Result *);                                 \
  template bool ormqr_one_trip(Context &, bool, bool, lint, lint, lint, const T *, lint, const T *, T *, lint,   \
                               Result *);                                                                         \
  template bool orgqr_one_trip(Context &, lint, lint, lint, T *, lint, const T *, Result *);                     \
  template bool gels_one_trip(Context &, bool, lint, lint, lint, T *, lint, T *, lint, T *, GelsResult *);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
