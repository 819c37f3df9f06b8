// Applying and forming the Q of a QR factorization on the GPU, with the
// caller's arrays in pageable host memory: xGELS (both shapes, every trans),
// xORMQR/xUNMQR and xORGQR/xUNGQR.
//
// Q = H(1) ... H(k) in blocks of nb reflectors: Q_p = I - V T V**H, V the
// block's unit lower trapezoid (copied with its unit triangle written out,
// so that plain gemms do the work and A is never changed), T built on the
// device from V**H V and tau (herk + trsm, as the hybrid geqrf does). Each
// block reflector is applied with cuBLAS level 3 (xLARFB, block_reflector.cuh).
//
// xGELS keeps the hybrid geqrf's factor on the device (geqrf_hybrid.cu,
// keep mode: every panel's T, max |a_ij| measured on the way in), uploads B,
// applies Q**H, solves with R and downloads B: A comes back from the
// factorization as xGEQRF leaves it, B with no intermediate host round trip.
// With m < n the same schedule factors F = A**H: its block columns go up as
// A's block rows and come back into them, conjugate-transposed on the
// device (the hybrid's ConjTransposed form), which is xGELQF's L = R**H.
//
// xORMQR uploads C, then the reflectors block by block in the order they
// are applied (PanelRing: device slots for every block where they fit, two
// where they do not), each block's T built and applied while the host
// stages the next; C leaves by columns (left: its columns are independent)
// or by rows (right), so that a failure mid-download leaves whole lines
// final and the CPU finishes the others. Where C does not fit beside the
// slots, it goes in pieces of whole lines, each reading every block again
// (out of core). A is only read.
//
// xGEQRF out of core (a matrix whose in-core schedule does not fit the
// GPU's memory, or HQR_GPU_MEMORY): left-looking, in windows of w columns.
// Each window goes up once; the reflectors of the columns before it are
// read back from the caller's array (final there) panel by panel and
// applied to it (two panel slots, so that the next panel's upload overlaps
// the current one's update); then the in-core schedule factors the
// window's rows j.. in place on the device (geqrf_device), and the window
// comes down final, with its tau. The caller's array only ever receives
// final columns, left to right, so after a failure the CPU finishes from
// them as after the in-core schedule's.
//
// Over a device set of several GPUs (node.hpp): xORMQR shares C's lines
// among the members, each running the larfb schedule above on its range,
// the reflector panels read from A once by member 0 and copied from its
// slots to the others GPU to GPU (PanelFeed); xGELS factors A with the
// set's xGEQRF (geqrf_node.cu), then B goes through that xORMQR, and the
// solve with R runs on the host (m < n: the same on A**H formed in host
// memory, where one GPU cannot hold A**H and B; also out of core on one GPU); xORGQR forms
// a range of Q's columns on each member as one window of its out-of-core
// schedule (several ranges each, dealt out, where a member cannot hold
// one), the ranges stored right to left.
//
// xORGQR works in place as LAPACK's does: the reflector blocks arrive last
// first; block p updates columns p*nb+kb.. of the growing Q, then turns its
// own columns into Q's (E - V T V1**H, E = [0; I; 0]). Q leaves right to
// left: Q's column j needs only reflectors 1..j+1, which stay in columns
// 0..j of the caller's A until that column is stored, so that after a
// failure the CPU forms the leading columns from what is still there.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "cpu/blas.hpp"
#include "cuda/blas.cuh"
#include "cuda/block_reflector.cuh"
#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "cuda/handoff.hpp"
#include "cuda/node.hpp"
#include "cuda/pinned.hpp"
#include "cuda/qr_device.hpp"
#include "cuda/qr_kernels.cuh"
#include "host/config.hpp"
#include "host/fault.hpp"
#include "host/next_lapack.hpp"
#include "host/nonfinite.hpp"
#include "host/qr_dispatch.hpp"
#include "host/transpose.hpp"

namespace hqr::gpu {
namespace {

using fault::Point;

std::size_t round_up(std::size_t b) { return (b + 255) / 256 * 256; }

// The steps the three routines share, on the context's compute stream; any
// failure (or an injected fault) makes every later step a no-op returning
// false (DeviceSteps, block_reflector.cuh).
template <class T> class QrSteps : public DeviceSteps {
 public:
  explicit QrSteps(Context &c) : DeviceSteps(c) {}
  // Every stream drained, so that no queued step outlives the call (the next
  // one may reallocate the buffers); errors here were reported already.
  ~QrSteps() {
    for (cudaStream_t st : {c_.compute_stream, c_.upload_stream, c_.download_stream}) (void)cudaStreamSynchronize(st);
    if (ready_) cudaEventDestroy(ready_);
    if (failed_) (void)cudaGetLastError();
  }
  bool init() { return check(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming), Point::sync); }

  // host (m-by-n, leading dimension ldh) -> device, through the upload
  // slots, whole columns per slot (pinned memory: straight up by DMA); the
  // compute stream waits for it.
  bool put(const T *host, lint ldh, lint m, lint n, T *dev, lint ldd) {
    if (m <= 0 || n <= 0) return true;
    const bool pinned = caller_pinned(host, ldh, m, n);
    const lint per = pinned ? n : std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(m) * sizeof(T))));
    auto step = [this](auto status, Point p) { return check(status, p); };
    for (lint j = 0; j < n; j += per)
      if (!upload_block(c_, pinned, slot_, sizeof(T), m, std::min(per, n - j), host + std::size_t(j) * ldh, ldh,
                        dev + std::size_t(j) * ldd, ldd, c_.upload_stream, step))
        return false;
    return check(cudaEventRecord(ready_, c_.upload_stream), Point::copy) &&
           check(cudaStreamWaitEvent(c_.compute_stream, ready_, 0), Point::sync);
  }

  // device -> host (m-by-n) once the compute stream is done, in pieces of
  // whole columns (by_rows: whole rows), taken left to right (reverse: right
  // to left, or bottom to top). Returns how many lines (columns or rows)
  // were stored, counted from where it started: a leading (reverse:
  // trailing) set of them, the rest untouched.
  lint get(const T *dev, lint ldd, lint m, lint n, T *host, lint ldh, bool by_rows, bool reverse) {
    const lint lines = by_rows ? m : n, length = by_rows ? n : m;
    if (lines <= 0 || length <= 0) return lines;
    if (!check(cudaEventRecord(ready_, c_.compute_stream), Point::kernel) ||
        !check(cudaStreamWaitEvent(c_.download_stream, ready_, 0), Point::sync))
      return 0;
    const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(length) * sizeof(T))));
    struct Pending {
      lint l0, nl;
      StagingSlot *s;
    };
    std::deque<Pending> pending;
    lint stored = 0;
    bool storing = true;
    auto at = [&](lint l0, lint ld) { return by_rows ? std::size_t(l0) : std::size_t(l0) * ld; };
    auto drain_one = [&] {
      const Pending p = pending.front();
      pending.pop_front();
      storing = storing && check(cudaEventSynchronize(p.s->dma_done), Point::sync);
      if (!storing) return;
      const lint rows = by_rows ? p.nl : m, cols = by_rows ? n : p.nl;
      copy_block(c_.download_copies, sizeof(T), rows, cols, p.s->host, rows, host + at(p.l0, ldh), ldh);
      stored += p.nl;
    };
    for (lint i = 0; i < lines && !failed_; i += per) {
      const lint nl = std::min(per, lines - i), l0 = reverse ? lines - i - nl : i;
      if (pending.size() == std::size_t(Context::kSlots)) drain_one();
      StagingSlot &s = c_.download_slots[slot_++ % Context::kSlots];
      const lint rows = by_rows ? nl : m, cols = by_rows ? n : nl;
      if (!check(cudaMemcpy2DAsync(s.host, rows * sizeof(T), dev + at(l0, ldd), ldd * sizeof(T), rows * sizeof(T),
                                   cols, cudaMemcpyDeviceToHost, c_.download_stream),
                 Point::copy) ||
          !check(cudaEventRecord(s.dma_done, c_.download_stream), Point::copy))
        break;
      pending.push_back({l0, nl, &s});
    }
    while (!pending.empty()) drain_one();
    return stored;
  }

  // Another GPU's m-by-n block at src (leading dimension lds) -> dev, GPU
  // to GPU on the upload stream once `after` (an event of that GPU) has
  // happened; the compute stream waits for it, as for put.
  bool copy_from(const T *src, lint lds, lint m, lint n, T *dev, lint ldd, cudaEvent_t after) {
    if (m <= 0 || n <= 0) return true;
    return check(cudaStreamWaitEvent(c_.upload_stream, after, 0), Point::sync) &&
           check(cudaMemcpy2DAsync(dev, ldd * sizeof(T), src, lds * sizeof(T), m * sizeof(T), n, cudaMemcpyDefault,
                                   c_.upload_stream),
                 Point::copy) &&
           check(cudaEventRecord(ready_, c_.upload_stream), Point::copy) &&
           check(cudaStreamWaitEvent(c_.compute_stream, ready_, 0), Point::sync);
  }

  bool finish() { return check(cudaStreamSynchronize(c_.compute_stream), Point::sync); }

  // Whether an upload went straight from pinned caller memory (HQR_VERBOSE's note).
  bool pinned() const { return pinned_; }

 private:
  // Whether the m-by-n block at host (leading dimension ldh) lies in pinned memory.
  bool caller_pinned(const T *host, lint ldh, lint m, lint n) {
    const bool p = pinned_range(host, (std::size_t(n - 1) * ldh + m) * sizeof(T)).pinned;
    pinned_ = pinned_ || p;
    return p;
  }
  bool pinned_ = false;
  int slot_ = 0;
  cudaEvent_t ready_ = nullptr;
};

// Carves one reservation into 256-byte aligned pieces.
struct Carve {
  char *base;
  std::size_t off = 0;
  template <class T> T *take(std::size_t count) {
    T *p = reinterpret_cast<T *>(base + off);
    off += round_up(count * sizeof(T));
    return p;
  }
};

template <class T> std::size_t t_bytes(lint nb) { return round_up(sizeof(T) * std::size_t(nb) * nb); }

// Reflector panels read from the caller's array through a ring of device
// slots: the next panels upload into free slots while the compute stream
// builds V (unit lower, block_t) and T from the current one and applies
// them, so a sweep needs `slots` panels of memory (at least two), not all
// k reflectors; with as many slots as panels nothing ever waits. The ring
// also holds the sweep's workspace in the context's workspace buffer: V,
// T and G (nb by nb), W for larfb, every reflector's tau and a max |a_ij|
// word.
template <class T> class PanelRing {
 public:
  explicit PanelRing(QrSteps<T> &s) : s_(s) {}
  ~PanelRing() {
    for (cudaEvent_t e : read_)
      if (e) cudaEventDestroy(e);
  }
  // Panels of ldd by nb; W of w_elems elements; tau of ntau.
  bool reserve(lint ldd, lint nb, int slots, std::size_t w_elems, lint ntau) {
    const std::size_t panel = std::size_t(ldd) * nb;
    if (!s_.c_.workspace.reserve(round_up(sizeof(T) * panel * slots) + round_up(sizeof(T) * panel) +
                                 2 * t_bytes<T>(nb) + round_up(sizeof(T) * w_elems) +
                                 round_up(sizeof(T) * std::size_t(ntau)) + 256))
      return false;
    Carve work{static_cast<char *>(s_.c_.workspace.get())};
    base_ = work.take<T>(panel * slots);
    v = work.take<T>(panel);
    t = work.take<T>(std::size_t(nb) * nb);
    g = work.take<T>(std::size_t(nb) * nb);
    w = work.take<T>(w_elems);
    tau = work.take<T>(std::size_t(ntau));
    amax = work.take<unsigned long long>(1);
    stride_ = panel;
    ldv_ = ldd;
    nb_ = nb;
    read_.assign(std::size_t(std::max(slots, 1)), nullptr);
    for (cudaEvent_t &e : read_)
      if (!s_.check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), Point::sync)) return false;
    return true;
  }
  // Reflectors k0..k0+kb-1: their mk-by-kb panel at `a` (leading dimension
  // lda; its upper triangle is R's, not read) into v (leading dimension
  // ldd) and their T into t (nb), from tau + k0. With `from` the panel is
  // copied from another GPU's slot instead (PanelFeed); *slot_out: the
  // slot it went to, which holds it until the ring comes round again.
  bool load(const T *a, lint lda, lint mk, lint kb, lint k0, const T *from = nullptr, lint ldf = 0,
            cudaEvent_t from_ready = nullptr, const T **slot_out = nullptr) {
    const std::size_t n = read_.size(), i = std::size_t(uses_++ % long(n));
    T *slot = base_ + i * stride_;
    if (slot_out) *slot_out = slot;
    return (uses_ <= long(n) || s_.check(cudaStreamWaitEvent(s_.c_.upload_stream, read_[i], 0), Point::sync)) &&
           (from ? s_.copy_from(from, ldf, mk, kb, slot, ldv_, from_ready) : s_.put(a, lda, mk, kb, slot, ldv_)) &&
           block_t(s_, mk, kb, slot, ldv_, v, ldv_, tau + k0, t, nb_, g) &&
           s_.check(cudaEventRecord(read_[i], s_.c_.compute_stream), Point::kernel);
  }
  lint ldv() const { return ldv_; }

  T *v = nullptr, *t = nullptr, *g = nullptr, *w = nullptr, *tau = nullptr;
  unsigned long long *amax = nullptr;

 private:
  QrSteps<T> &s_;
  T *base_ = nullptr;
  std::size_t stride_ = 0;
  lint ldv_ = 0, nb_ = 0;
  std::vector<cudaEvent_t> read_;  // read_[i]: the compute stream is done with slot i
  long uses_ = 0;
};

}  // namespace

// ---- xGELS ------------------------------------------------------------------

// What both xGELS paths do first: small problems go in one trip
// (qr_one_trip.cu), which checks A for NaN or Inf on the device; for the
// hybrid, A is scanned on the host. True when *out is the call's answer.
template <class T>
bool gels_before_hybrid(Context &c, bool trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, T *tau,
                        GelsResult *out, const char **path) {
  if (gels_one_trip(c, trans, m, n, nrhs, a, lda, b, ldb, tau, out)) {
    if (path) *path = "gpu-one-trip";
    return true;
  }
  // The scan on the context's copy threads, awake in microseconds: on
  // threads started for it, it took 2.0-2.4 ms at 2048^2 (s, d, c alike;
  // one H100 host, 16 cores) of cgels' 14.3 with a pinned caller; cgels
  // 2048, cuSOLVER-on-pinned / hqr: 0.90-0.96 -> 1.07-1.10
  // (bench/results/history/gels-scan-NVIDIA-H100-80GB-HBM3-2026-12-06.txt).
  CopyPool &pool = c.upload_copies;
  if (any_nonfinite(m, n, a, lda, pool.threads(),
                    [&](int pieces, const std::function<void(int)> &fn) { pool.run(pieces, fn); })) {
    out->r.why = kNonFiniteInput;
    return true;
  }
  return false;
}

// B's part of xGELS on the device, after F = QR (p-by-q, p >= q, leading
// dimension ldf, T of block j at t + j*nb*nb): !solve_first: B := Q**H B,
// then B(1:q,:) := R**-1 B(1:q,:) unless info > 0; solve_first: unless
// info > 0 (B then untouched), B(1:q,:) := R**-H B(1:q,:), B(q+1:p,:) := 0,
// B := Q B. dB is ldf by nrhs, dV ldf by nb, dW nb by nrhs (leading
// dimension ldw). Returns the leading columns of B stored (all when B is
// left untouched).
template <class T>
lint gels_rhs(QrSteps<T> &s, bool solve_first, lint p, lint q, const T *f, lint ldf, const T *t, lint nb, lint info,
              T *dB, T *dV, T *dW, lint ldw, lint nrhs, T *b, lint ldb) {
  Context &c = s.c_;
  bool fine = true;
  if (!solve_first) {
    fine = s.put(b, ldb, p, nrhs, dB, ldf) &&
           apply_q_blocks(s, true, p, q, nrhs, f, ldf, t, nb, dB, ldf, dV, ldf, dW, ldw);
    if (fine && info == 0)
      fine = s.check(blas::trsm(c.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, q,
                                nrhs, T(1), f, ldf, dB, ldf),
                     Point::kernel);
  } else {
    if (info > 0) return nrhs;  // xTRTRS returns first: B as it came
    fine = s.put(b, ldb, q, nrhs, dB, ldf) &&
           s.check(blas::trsm(c.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, blas::op_c<T>(), CUBLAS_DIAG_NON_UNIT,
                              q, nrhs, T(1), f, ldf, dB, ldf),
                   Point::kernel) &&
           (p == q || s.check(cudaMemset2DAsync(dB + q, ldf * sizeof(T), 0, (p - q) * sizeof(T), nrhs,
                                                c.compute_stream),
                              Point::kernel)) &&
           apply_q_blocks(s, false, p, q, nrhs, f, ldf, t, nb, dB, ldf, dV, ldf, dW, ldw);
  }
  return fine ? s.get(dB, ldf, p, nrhs, b, ldb, false, false) : 0;
}


// The reflector panels of a set's xORMQR (ormqr_node), shared: member 0,
// the source, reads each panel from the caller's A once into a ring slot
// of its own that the call never reuses (where its part of C goes in one
// piece, its ring has a slot per panel), and the other members copy it
// from there GPU to GPU (NVLink where the topology has it) instead of
// reading A through their own staging: the host link and the staging carry
// A's reflectors once, not once per member. Where the source cannot hold
// every panel, or stops (a failure), the others read A as before.
template <class T> struct PanelFeed {
  explicit PanelFeed(lint npanels) : slot(std::size_t(npanels), nullptr), ready(std::size_t(npanels), nullptr) {}
  std::atomic<bool> stop{false};  // set once the source has queued all it will
  Progress decided;               // 1 once `sharing` is set
  bool sharing = false;
  Progress loaded;                 // panels queued on the source, in its order of loads
  std::vector<const T *> slot;     // panel p's slot on the source
  std::vector<cudaEvent_t> ready;  // panel p there (events of the source's GPU)
  lint ld = 0;                     // the slots' leading dimension
  int device = -1;                 // the source's GPU
  std::atomic<lint> copied{0};     // panels the others took from it
  // The source's word to the others, on every way out: whether it shares,
  // and that it queues no more panels.
  void close() {
    decided.publish(1);
    stop = true;
    loaded.wake();
  }
};

template <class T>
Result ormqr_larfb(Context &context, bool left, bool trans, lint m, lint n, lint k, const T *a, lint lda,
                   const T *tau, T *c, lint ldc, bool *pieces, PanelFeed<T> *feed = nullptr, bool source = false);

namespace {

// C := op(Q) C (left) or C op(Q) on the CPU (the next LAPACK), Q from k
// reflectors in A: what the GPUs could not finish.
template <class T>
void cpu_ormqr(bool left, bool conj, lint m, lint n, lint k, const T *a, lint lda, const T *tau, T *c, lint ldc) {
  if (m <= 0 || n <= 0) return;
  const char side = left ? 'L' : 'R', trans = conj ? (is_complex<T> ? 'C' : 'T') : 'N';
  const lint query = -1;
  lint info = 0;
  T w{};
  next::ormqr(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, &w, &query, &info);
  lint lw = std::max<lint>({1, left ? n : m, lint(std::real(w))});
  std::vector<T> work(static_cast<std::size_t>(lw));
  next::ormqr(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work.data(), &lw, &info);
}

// xTRTRS's check: the first exactly zero diagonal element of R (0: none).
template <class T> lint zero_diagonal(lint n, const T *a, lint lda) {
  for (lint i = 0; i < n; ++i)
    if (a[i + std::size_t(i) * lda] == T(0)) return i + 1;
  return 0;
}

// xGELS (m >= n) once A's factorization `r` (which ran) is final in the
// caller's array (out of core, or over the set): *out takes the outcome
// (INFO from xTRTRS's check of R, max |a_ij| = anrm), then unless A = 0
// (the caller sets B to zero) B := Q**H B and the solve with R; or
// ('T'/'C') the solve, B(n+1:m,:) := 0, then B := Q B. apply(conj) runs
// xORMQR's schedule on B from the caller's A (one GPU or the set; a Result
// as gpu::ormqr's); what it leaves of B the CPU completes, so the answer
// is whole (out->r.why says when the CPU helped). The triangular solve
// runs on the host (the next BLAS): R is no longer on a GPU.
template <class T, class Apply>
void gels_from_factor(GelsResult *out, const Result &r, double anrm, bool trans, lint m, lint n, lint nrhs, const T *a,
                      lint lda, const T *tau, T *b, lint ldb, Apply apply) {
  const lint info = zero_diagonal(n, a, lda);
  out->factored = true;
  out->r = {true, info, r.why, 0};
  out->r.devices = r.devices;
  out->b_columns = nrhs;
  out->anrm = anrm;
  if (anrm == 0) return;
  auto q = [&](bool conj) {
    const Result qr = apply(conj);
    out->r.devices |= qr.devices;
    if (qr.ran) return;
    cpu_ormqr(true, conj, m, nrhs - qr.resume, n, a, lda, tau, b + std::size_t(qr.resume) * ldb, ldb);
    out->r.why = "B's last columns on the CPU";
  };
  if (!trans) {
    q(true);
    if (info == 0) hqr::blas::trsm('L', 'U', 'N', 'N', n, nrhs, T(1), a, lda, b, ldb);
  } else {
    if (info > 0) return;  // xTRTRS returns first: B as it came
    hqr::blas::trsm('L', 'U', 'C', 'N', n, nrhs, T(1), a, lda, b, ldb);
    for (lint j = 0; j < nrhs; ++j) std::fill(b + n + std::size_t(j) * ldb, b + m + std::size_t(j) * ldb, T(0));
    q(false);
  }
}


// xGELS (m >= n) out of core: A factored by geqrf_out_of_core (max |a_ij|
// measured on the way), then B through ormqr's larfb schedule on the same
// GPU, the reflectors read from the caller's A (gels_from_factor).
template <class T>
GelsResult gels_out_of_core(Context &c, bool trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb,
                            T *tau, lint w, const char **path) {
  GelsResult out{{false, 0, nullptr, 0}, false, 0, 0};
  int windows = 0;
  unsigned long long bits = 0;
  const Result r = geqrf_out_of_core(c, m, n, a, lda, tau, w, &windows, &bits);
  if (path) *path = node_path(1, windows);
  if (!r.ran) {
    out.r = r;
    return out;
  }
  double anrm = 0;
  std::memcpy(&anrm, &bits, sizeof bits);
  gels_from_factor(&out, r, anrm, trans, m, n, nrhs, a, lda, tau, b, ldb, [&](bool conj) {
    bool pieces = false;
    return ormqr_larfb(c, true, conj, m, nrhs, n, a, lda, tau, b, ldb, &pieces);
  });
  return out;
}

// The host's scan of A before a schedule that reads A from the caller's
// array (over the set, or A**H copied), as the one GPU's hybrid scans it on
// the device: *anrm = max |a_ij| (xLANGE('M'), for xGELS's scaling).
// True where the scan settles the call in *out: a NaN or Inf (the CPU), or
// A = 0 (ran, no factorization; the caller sets B to zero, as LAPACK).
template <class T> bool gels_scan_settles(lint m, lint n, const T *a, lint lda, GelsResult *out, double *anrm) {
  *anrm = double(hqr::max_abs(m, n, a, lda));
  if (!(*anrm <= std::numeric_limits<double>::max())) {
    out->r.why = kNonFiniteInput;
    return true;
  }
  if (*anrm == 0) {
    out->r.ran = out->factored = true;
    return true;
  }
  return false;
}

// xGELS (m >= n) over the set: A scanned on the host (gels_scan_settles),
// factored by the set's xGEQRF (geqrf_set: in core or in windows). In core
// with trans 'N' and where the caller chose it (carry_b: A pageable, the
// members holding B beside A), B goes through that schedule as A's
// trailing columns and comes back as Q**H B (SetRhs), A's reflectors read
// from the caller's array once; else B goes through xORMQR's schedule over
// the set afterwards, its columns shared among the members. Either way
// gels_from_factor ends the call. The caller holds the set's lock.
template <class T>
GelsResult gels_node(const DeviceSet &set, bool trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb,
                     T *tau, lint w, bool carry_b, const char **path) {
  GelsResult out{{false, 0, nullptr, 0}, false, 0, 0};
  double anrm = 0;
  if (gels_scan_settles(m, n, a, lda, &out, &anrm)) {
    if (path && out.r.ran) *path = node_path(set.count, 1);
    return out;
  }
  thread_local char text[96];
  int windows = 1;
  if (carry_b && !trans && w == n) {
    SetRhs<T> rhs{b, ldb, nrhs};
    Result r = geqrf_node(set, m, n, a, lda, tau, &rhs);
    std::snprintf(text, sizeof text, "%s, B beside A", node_path(set.count, 1));
    if (path) *path = text;
    // Stopped before A was whole: B is as it came (its columns are stored
    // after A's), and the CPU resumes as after any factorization.
    if (!r.ran && r.resume < n) {
      out.r = r;
      return out;
    }
    if (!r.ran) r = {true, 0, nullptr, 0, 0, 0, r.devices};  // A is final; B's columns not stored take Q**H on the CPU
    gels_from_factor(&out, r, anrm, trans, m, n, nrhs, a, lda, tau, b, ldb, [&](bool) {
      return Result{rhs.stored == nrhs, 0, nullptr, rhs.stored};
    });
    return out;
  }
  const Result r = geqrf_set(set, m, n, a, lda, tau, w, &windows);
  std::snprintf(text, sizeof text, "%s + gpu apply", node_path(set.count, windows));
  if (path) *path = text;
  if (!r.ran) {
    out.r = r;
    return out;
  }
  gels_from_factor(&out, r, anrm, trans, m, n, nrhs, a, lda, tau, b, ldb,
                   [&](bool conj) { return ormqr_node(set, true, conj, m, nrhs, n, a, lda, tau, b, ldb); });
  return out;
}

// xGELS with m < n where one GPU cannot hold A**H (over the set, or out of
// core): the m >= n machinery on F = A**H, a host copy of A's size
// (conj_transpose). factor(f, ldf) factors F (n by m) as xGEQRF; B goes
// through gels_from_factor with the two cases' orders swapped (trans 'N',
// the minimum-norm solution: the solve with R**H = L first, then Q_F;
// 'T'/'C': Q_F**H first, then the solve), apply(f, ldf, conj) applying Q_F
// from F's reflectors; then F goes back into A as xGELQF stores it (L =
// R**H, the reflectors conjugated in A's rows, tau as it is), as gels_lq
// leaves it. A is only written once F's columns are final: where the
// factorization stops, its final columns become A's leading rows, the
// others still the input, and the CPU finishes as after gels_lq. A is
// scanned first (gels_scan_settles).
template <class T, class Factor, class Apply>
GelsResult gels_lq_by_copy(bool trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, T *tau,
                           Factor factor, Apply apply) {
  GelsResult out{{false, 0, nullptr, 0}, false, 0, 0};
  double anrm = 0;
  if (gels_scan_settles(m, n, a, lda, &out, &anrm)) return out;
  // Raw storage: conj_transpose writes every element, so none is
  // initialised first (new T[] would zero a complex copy of A's size).
  std::unique_ptr<char[]> storage(new (std::nothrow) char[sizeof(T) * std::size_t(n) * m]);
  if (!storage) {
    out.r.why = "host out of memory for A**H";
    return out;
  }
  T *f = reinterpret_cast<T *>(storage.get());
  conj_transpose(m, n, a, lda, f, n);
  const Result r = factor(f, n);
  const lint rows = r.ran ? m : std::min(r.resume, m);
  conj_transpose(n, rows, f, n, a, lda);
  if (!r.ran) {
    out.r = r;
    out.r.resume = rows;
    return out;
  }
  gels_from_factor(&out, r, anrm, !trans, n, m, nrhs, f, n, tau, b, ldb,
                   [&](bool conj) { return apply(f, n, conj); });
  return out;
}

// xGELS on one GPU in core: the hybrid geqrf leaves its factor on the
// device (qr_device.hpp) and B's part follows there (gels_rhs); A and B come
// back once. m >= n: the QR of A. m < n: the QR of F = A**H (n by m), A
// going up and the factor coming back into A's rows conjugate-transposed on
// the device, which is xGELQF's L = R**H and reflectors (tau as it is).
// Measured reason for m < n: cuSOLVER's geqrf on each panel of A**H copied
// up whole took dgels 16384x32768 1.106 s, against 0.446 for the tall
// 32768x16384 (H200, bench/results/qr-node-replicas-NVIDIA-H200-2026-12-02.txt).
template <class T>
GelsResult gels_hybrid(Context &c, bool trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, T *tau,
                       const char **path) {
  GelsResult out{{false, 0, nullptr, 0}, false, 0, 0};
  const bool lq = m < n;
  const lint p = std::max(m, n), q = std::min(m, n);  // the matrix factored is p by q
  // B (ldda by nrhs), V (ldda by nb) and W (nb by nrhs), set aside in the
  // factorization's workspace.
  const lint ldda = (p + 31) / 32 * 32, nbmax = std::min<lint>(1024, q);
  const std::size_t extra = round_up(sizeof(T) * std::size_t(ldda) * nrhs) +
                            round_up(sizeof(T) * std::size_t(ldda) * nbmax) +
                            round_up(sizeof(T) * std::size_t(nbmax) * nrhs);
  DeviceQR<T> f;
  const char *hybrid = "";
  const Result r = geqrf_on_device(c, p, q, a, lda, tau, extra, &f, &hybrid, lq);
  if (path) {  // "gpu-hybrid (gpu panels)" -> "gpu-hybrid geqrf (gpu panels) + gpu apply"
    thread_local char text[80];
    const char *panels = std::strchr(hybrid, '(');
    std::snprintf(text, sizeof text, "gpu-hybrid geqrf%s %s + gpu apply", lq ? " of A**H" : "", panels ? panels : "");
    *path = text;
  }
  if (!r.ran) {
    out.r = r;
    return out;
  }
  out.factored = true;
  // xTRTRS's check on R (or on L = R**H: the same diagonal, conjugated).
  const lint info = zero_diagonal(q, a, lda);
  out.r.info = info;
  out.anrm = std::numeric_limits<double>::quiet_NaN();  // unknown: the caller does not scale
  QrSteps<T> s(c);
  unsigned long long bits = 0;
  if (!s.init() || !s.check(cudaMemcpy(&bits, f.amax, sizeof bits, cudaMemcpyDeviceToHost), Point::copy)) {
    out.r.why = "CUDA error";
    return out;
  }
  std::memcpy(&out.anrm, &bits, sizeof bits);
  if (out.anrm == 0) {  // A = 0: xGELS sets B to zero without a factorization (the caller does)
    out.r.ran = true;
    return out;
  }
  Carve w{static_cast<char *>(f.extra)};
  T *dB = w.take<T>(std::size_t(ldda) * nrhs), *dV = w.take<T>(std::size_t(ldda) * nbmax);
  T *dW = w.take<T>(std::size_t(nbmax) * nrhs);
  // m < n, trans 'N' (minimum norm, A X = B): B(1:m) := L**-1 B(1:m),
  // B(m+1:n) := 0, B := Q**H B, i.e. with A**H = Q_F R: the solve with
  // R**H, then Q_F. m < n, trans 'T'/'C' (least squares, A**H X = B):
  // B := Q_F**H B, then the solve with R: m >= n's steps with the flag
  // inverted.
  out.b_columns = gels_rhs(s, lq ? !trans : trans, p, q, f.a, f.ldda, f.t, f.nb, info, dB, dV, dW, nbmax, nrhs, b, ldb);
  if (!s.failed()) s.finish();
  out.r.ran = !s.failed() && out.b_columns == nrhs;
  out.r.why = !out.r.ran ? "CUDA error" : r.why == kPinnedCaller || s.pinned() ? kPinnedCaller : nullptr;
  return out;
}

}  // namespace

template <class T>
GelsResult gels(bool trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, T *tau, const char **path) {
  GelsResult out{{false, 0, nullptr, 0}, false, 0, 0};
  const DeviceSet set = device_set();
  if (!set.count) {
    out.r.why = context_error();
    return out;
  }
  if (set.count > 1) {  // the whole set, where its xGEQRF serves (A and B beside it not fitting one GPU counts)
    SetLock lock(set);
    Context &first = *set.member[0];
    const bool one_fits = ok(cudaSetDevice(first.device)) && geqrf_window<T>(first, m, n + nrhs) == n + nrhs;
    // B beside A only for a pageable A: from pinned memory xORMQR's second
    // read of A is a DMA, and dgels 131072x4096 (2 members of one H100)
    // took 0.506 s with B beside A against 0.430 without, where from
    // pageable memory it took 0.435 against 0.532
    // (bench/results/gels-node-beside-NVIDIA-H100-80GB-HBM3-2026-12-05.txt).
    if (const lint w = geqrf_set_plan<T>(set, m, n, one_fits); w > 0)
      return gels_node(set, trans, m, n, nrhs, a, lda, b, ldb, tau, w,
                       w == n && !pinned_range(a, (std::size_t(n - 1) * lda + m) * sizeof(T)).pinned &&
                           geqrf_over_set<T>(set, m, n, one_fits, nrhs),
                       path);
  }
  Context *c = set.member[0];
  std::lock_guard<std::mutex> g(c->lock);
  if (!ok(cudaSetDevice(c->device))) {
    out.r.why = "cudaSetDevice failed";
    return out;
  }
  if (gels_before_hybrid(*c, trans, m, n, nrhs, a, lda, b, ldb, tau, &out, path)) return out;
  if (std::size_t(m) * sizeof(T) > Context::kSlotBytes) {
    out.r.why = "matrix column larger than staging";
    return out;
  }
  // Out of core where A and B (as columns beside A) do not fit.
  if (const lint w = geqrf_window<T>(*c, m, n + nrhs); w < n + nrhs)
    return gels_out_of_core(*c, trans, m, n, nrhs, a, lda, b, ldb, tau, std::min(w, n), path);
  return gels_hybrid(*c, trans, m, n, nrhs, a, lda, b, ldb, tau, path);
}

// ---- xGELS with m < n: the QR of A**H -----------------------------------------

template <class T>
GelsResult gels_lq(bool trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, T *tau, const char **path) {
  GelsResult out{{false, 0, nullptr, 0}, false, 0, 0};
  const DeviceSet set = device_set();
  if (!set.count) {
    out.r.why = context_error();
    return out;
  }
  thread_local char text[112];
  // A**H over the whole set, where its xGEQRF serves (as gels with m >= n)
  // and one GPU does not hold A**H and B (or HQR_GPU_MIN_N asks for the
  // GPUs): the set factors a host copy of A**H, whose two transposes cost
  // more than one GPU's whole call (dgels 16384x32768 on one H200: 0.61 s
  // on one GPU, 1.9 s with the copy over two members;
  // bench/results/qr-node-shared-NVIDIA-H200-2026-12-04.txt).
  if (set.count > 1) {
    SetLock lock(set);
    Context &first = *set.member[0];
    const bool one_fits = ok(cudaSetDevice(first.device)) && geqrf_window<T>(first, n, m + nrhs) == m + nrhs;
    if (const lint w = one_fits && config::gpu_min_n() < 0 ? 0 : geqrf_set_plan<T>(set, n, m, one_fits); w > 0) {
      int windows = 1;
      GelsResult o = gels_lq_by_copy(
          trans, m, n, nrhs, a, lda, b, ldb, tau,
          [&](T *f, lint ldf) { return geqrf_set(set, n, m, f, ldf, tau, w, &windows); },
          [&](const T *f, lint ldf, bool conj) { return ormqr_node(set, true, conj, n, nrhs, m, f, ldf, tau, b, ldb); });
      std::snprintf(text, sizeof text, "%s + gpu apply (A**H in host memory)", node_path(set.count, windows));
      if (path) *path = text;
      return o;
    }
  }
  Context *c = set.member[0];
  std::lock_guard<std::mutex> g(c->lock);
  if (!ok(cudaSetDevice(c->device))) {
    out.r.why = "cudaSetDevice failed";
    return out;
  }
  if (gels_before_hybrid(*c, trans, m, n, nrhs, a, lda, b, ldb, tau, &out, path)) return out;
  if (std::size_t(n) * sizeof(T) > Context::kSlotBytes) {
    out.r.why = "matrix row larger than staging";
    return out;
  }
  // Out of core where A**H and B (as columns beside it) do not fit.
  if (const lint w = geqrf_window<T>(*c, n, m + nrhs); w < m + nrhs) {
    int windows = 0;
    GelsResult o = gels_lq_by_copy(
        trans, m, n, nrhs, a, lda, b, ldb, tau,
        [&](T *f, lint ldf) { return geqrf_out_of_core(*c, n, m, f, ldf, tau, std::min(w, m), &windows); },
        [&](const T *f, lint ldf, bool conj) {
          bool pieces = false;
          return ormqr_larfb(*c, true, conj, n, nrhs, m, f, ldf, tau, b, ldb, &pieces);
        });
    std::snprintf(text, sizeof text, "%s (A**H in host memory)", node_path(1, windows));
    if (path) *path = text;
    return o;
  }
  return gels_hybrid(*c, trans, m, n, nrhs, a, lda, b, ldb, tau, path);
}

// ---- xORMQR / xUNMQR --------------------------------------------------------

template <class T>
Result ormqr(bool left, bool trans, lint m, lint n, lint k, const T *a, lint lda, const T *tau, T *c, lint ldc,
             const char **path) {
  const DeviceSet set = device_set();
  if (!set.count) return {false, 0, context_error(), 0};
  if (set.count > 1) {
    SetLock lock(set);
    if (ormqr_over_set(set, left, m, n, k, sizeof(T))) {
      Result r = ormqr_node(set, left, trans, m, n, k, a, lda, tau, c, ldc);
      *path = r.path;
      return r;
    }
  }
  Context *ctx = set.member[0];
  std::lock_guard<std::mutex> g(ctx->lock);
  if (!ok(cudaSetDevice(ctx->device))) return {false, 0, "cudaSetDevice failed", 0};
  *path = "gpu-one-trip";
  if (Result r; ormqr_one_trip(*ctx, left, trans, m, n, k, a, lda, tau, c, ldc, &r)) return r;
  bool pieces = false;
  const Result r = ormqr_larfb(*ctx, left, trans, m, n, k, a, lda, tau, c, ldc, &pieces);
  *path = pieces ? "gpu-larfb (out of core)" : "gpu-larfb";
  return r;
}

// ormqr's larfb schedule (the caller holds ctx.lock, its device current);
// *pieces: whether C went in several pieces (out of core).
template <class T>
Result ormqr_larfb(Context &context, bool left, bool trans, lint m, lint n, lint k, const T *a, lint lda,
                   const T *tau, T *c, lint ldc, bool *pieces, PanelFeed<T> *feed, bool source) {
  struct Close {  // feed->close() on every way out of the source
    PanelFeed<T> *f;
    ~Close() {
      if (f) f->close();
    }
  } close{feed && source ? feed : nullptr};
  Context *ctx = &context;
  const lint nq = left ? m : n, nb = apply_block(k), npanels = (k + nb - 1) / nb;
  // Pieces: C by columns (left) or rows (right), reflectors by columns.
  if (std::size_t(std::max(m, n)) * sizeof(T) > Context::kSlotBytes)
    return {false, 0, "matrix line larger than staging", 0};
  // C in pieces of whole lines (columns, left; rows, right) as many as the
  // GPU's memory holds beside the reflectors' panels: one piece where C
  // fits, else out of core (each piece reads every panel again).
  const lint lines = left ? n : m, lddq = (nq + 31) / 32 * 32;
  const double e = sizeof(T), fixed = e * (3.0 * lddq * nb + 2.0 * nb * nb + k) + 4096;
  const double per_line = e * ((left ? m + 31 : n) + nb);  // C's line and W's
  const std::size_t budget = schedule_budget(*ctx, fixed + per_line * lines);
  lint per = lines;
  if (budget > 0 && fixed + per_line * lines > double(budget))
    per = std::max<lint>(std::min<lint>(lines, 32), double(budget) > fixed ? lint((double(budget) - fixed) / per_line) : 0);
  per = std::min(per, lines);
  const lint ldc_d = left ? (m + 31) / 32 * 32 : (per + 31) / 32 * 32;  // the piece's leading dimension
  const lint wrows = left ? nb : per, wcols = left ? per : nb;          // W of larfb
  // A slot for every panel where all fit beside C (in core), else two.
  const std::size_t panel = sizeof(T) * std::size_t(lddq) * nb;
  const bool all_slots = per == lines && (budget == 0 || fixed + per_line * lines + double(panel) * npanels <= budget);
  const int slots = all_slots ? int(std::max<lint>(2, npanels)) : 2;
  QrSteps<T> s(*ctx);
  PanelRing<T> ring(s);
  if (fault::hit(Point::alloc) ||
      !ctx->matrix.reserve(round_up(sizeof(T) * std::size_t(ldc_d) * (left ? per : n))) ||
      !ring.reserve(lddq, nb, slots, std::size_t(wrows) * wcols, k))
    return {false, 0, "GPU out of memory", 0};
  T *dC = static_cast<T *>(ctx->matrix.get());
  bool fine = s.init() && s.put(tau, 1, 1, k, ring.tau, 1);
  // The source shares where its ring keeps every panel (one piece of C).
  if (close.f) {
    feed->sharing = fine && all_slots;
    for (lint p = 0; p < npanels && feed->sharing; ++p)
      feed->sharing = ok(cudaEventCreateWithFlags(&feed->ready[p], cudaEventDisableTiming));
    feed->ld = ring.ldv();
    feed->device = ctx->device;
    feed->decided.publish(1);
  }
  const bool taking = feed && !source && feed->decided.wait_past(0, feed->stop) && feed->sharing;
  // Q = H(1)...H(k): Q C and C Q**H take the blocks last first.
  const bool backward = left != trans;
  lint stored = 0;  // C's leading lines final
  for (lint l0 = 0; l0 < lines && fine; l0 += per) {
    const lint nl = std::min(per, lines - l0), pm = left ? m : nl, pn = left ? nl : n;
    T *piece = left ? c + std::size_t(l0) * ldc : c + l0;
    fine = s.put(piece, ldc, pm, pn, dC, ldc_d);
    for (lint i = 0; i < npanels && fine; ++i) {
      const lint p = backward ? npanels - 1 - i : i, k0 = p * nb, kb = std::min(nb, k - k0), mk = nq - k0;
      const T *panel_a = a + k0 + std::size_t(k0) * lda;
      if (close.f && feed->sharing) {  // the source: the panel's slot and its event for the others
        const T **slot = &feed->slot[std::size_t(p)];
        fine = ring.load(panel_a, lda, mk, kb, k0, nullptr, 0, nullptr, slot) &&
               s.check(cudaEventRecord(feed->ready[std::size_t(p)], ctx->upload_stream), Point::copy);
        if (fine) feed->loaded.publish(i + 1);
      } else if (taking && feed->loaded.wait_past(i, feed->stop)) {  // from the source's slot
        fine = ring.load(panel_a, lda, mk, kb, k0, feed->slot[std::size_t(p)], feed->ld, feed->ready[std::size_t(p)]);
        if (fine) ++feed->copied;
      } else {
        fine = ring.load(panel_a, lda, mk, kb, k0);
      }
      fine = fine &&
             (left ? apply_block_reflector(s, true, trans, mk, pn, kb, ring.v, lddq, ring.t, nb, dC + k0, ldc_d, ring.w,
                                           wrows)
                   : apply_block_reflector(s, false, trans, pm, mk, kb, ring.v, lddq, ring.t, nb,
                                           dC + std::size_t(k0) * ldc_d, ldc_d, ring.w, wrows));
    }
    if (!fine) break;
    const lint got = s.get(dC, ldc_d, pm, pn, piece, ldc, !left, false);
    stored += got;
    fine = got == nl && !s.failed();
  }
  if (!s.failed()) s.finish();
  *pieces = per < lines;
  if (!fine || s.failed()) return {false, 0, "CUDA error", stored};
  return {true, 0, s.pinned() ? kPinnedCaller : nullptr, 0};
}

// ---- xORMQR / xUNMQR over the set --------------------------------------------

// With several GPUs from kNodeQrOrder (xORMQR's flops, about 4mnk, as a
// square xGEQRF's, 4/3 N^3), or wherever the caller asks for the GPU
// (HQR_GPU_MIN_N); C needs two lines to share.
bool ormqr_over_set(const DeviceSet &set, bool left, lint m, lint n, lint k, std::size_t elem) {
  if (set.count < 2 || (left ? n : m) < 2 || std::size_t(std::max(m, n)) * elem > Context::kSlotBytes) return false;
  return config::gpu_min_n() >= 0 || std::cbrt(3.0 * double(m) * double(n) * double(k)) >= double(kNodeQrOrder);
}

// C's lines (columns, left; rows, right: each is transformed alone) in one
// contiguous range per member, each member running the one-GPU larfb
// schedule on its range (its own staging, copy threads and streams), all
// at once. Member 0 reads the reflectors from the caller's A and the
// others copy them from its slots GPU to GPU (PanelFeed), or each reads A
// where member 0 cannot keep every panel. A member that stops leaves its
// range's first r.resume lines final; the CPU applies Q to the rest of
// that range, so the call's answer is always whole.
template <class T>
Result ormqr_node(const DeviceSet &set, bool left, bool trans, lint m, lint n, lint k, const T *a, lint lda,
                  const T *tau, T *c, lint ldc) {
  const lint lines = left ? n : m;
  const int P = int(std::min<lint>(set.count, lines));
  struct Range {
    lint l0 = 0, nl = 0;
    Result r{false, 0, nullptr, 0};
    bool pieces = false;
  };
  std::vector<Range> part(static_cast<std::size_t>(P));
  for (int d = 0; d < P; ++d) part[d].l0 = lines * d / P, part[d].nl = lines * (d + 1) / P - part[d].l0;
  PanelFeed<T> feed((k + apply_block(k) - 1) / apply_block(k));
  auto run = [&](int d) {
    Range &p = part[d];
    Context &ctx = *set.member[d];
    if (!ok(cudaSetDevice(ctx.device))) {
      p.r = {false, 0, "cudaSetDevice failed", 0};
      if (d == 0) feed.close();  // no source: the others read A
      return;
    }
    p.r = left ? ormqr_larfb(ctx, true, trans, m, p.nl, k, a, lda, tau, c + std::size_t(p.l0) * ldc, ldc, &p.pieces,
                             &feed, d == 0)
               : ormqr_larfb(ctx, false, trans, p.nl, n, k, a, lda, tau, c + p.l0, ldc, &p.pieces, &feed, d == 0);
  };
  on_each_member(P, run);
  if (feed.device >= 0 && ok(cudaSetDevice(feed.device)))
    for (cudaEvent_t e : feed.ready)
      if (e) cudaEventDestroy(e);
  Result out{true, 0, nullptr, 0};
  bool pieces = false;
  for (int d = 0; d < P; ++d) {
    const Range &p = part[d];
    pieces = pieces || p.pieces;
    if (p.r.ran || p.r.resume > 0) out.devices |= std::uint64_t(1) << set.member[d]->device;
    if (p.r.ran) {
      if (p.r.why) out.why = p.r.why;  // a pinned caller
      continue;
    }
    const lint done = p.r.resume;
    if (left)
      cpu_ormqr(true, trans, m, p.nl - done, k, a, lda, tau, c + std::size_t(p.l0 + done) * ldc, ldc);
    else
      cpu_ormqr(false, trans, p.nl - done, n, k, a, lda, tau, c + p.l0 + done, ldc);
    out.ran = false;
    out.why = p.r.why;
    out.resume = lines;  // every line final: the CPU has finished the ranges
  }
  // The trace says how many panels went GPU to GPU (gpu-check counts them).
  thread_local char text[112];
  std::snprintf(text, sizeof text, "gpu-node (%d GPU%s, %s; %lld panels GPU to GPU)", P, P > 1 ? "s" : "",
                pieces ? "out of core: C in pieces" : "in core", static_cast<long long>(feed.copied.load()));
  out.path = text;
  return out;
}

// ---- xORGQR / xUNGQR --------------------------------------------------------

template <class T>
Result orgqr_out_of_core(Context &c, lint m, lint n, lint k, T *a, lint lda, const T *tau, lint w, int *windows);

template <class T> Result orgqr(lint m, lint n, lint k, T *a, lint lda, const T *tau, const char **path) {
  const DeviceSet set = device_set();
  if (!set.count) return {false, 0, context_error(), n};
  if (set.count > 1) {
    SetLock lock(set);
    if (const int windows = orgqr_set_windows<T>(set, m, n, k); windows > 0) {
      Result r = orgqr_node(set, m, n, k, a, lda, tau, windows);
      *path = r.path;
      return r;
    }
  }
  Context *ctx = set.member[0];
  std::lock_guard<std::mutex> g(ctx->lock);
  if (!ok(cudaSetDevice(ctx->device))) return {false, 0, "cudaSetDevice failed", n};
  *path = "gpu-one-trip";
  if (Result r; orgqr_one_trip(*ctx, m, n, k, a, lda, tau, &r)) {
    if (!r.ran) r.resume = n;  // nothing stored: every column holds the input
    return r;
  }
  *path = "gpu-larfb";
  if (std::size_t(m) * sizeof(T) > Context::kSlotBytes) return {false, 0, "matrix column larger than staging", n};
  const lint nb = apply_block(k), npanels = (k + nb - 1) / nb, ldd = (m + 31) / 32 * 32;
  {  // out of core where Q and the workspace do not fit what the GPU may plan with
    const double e = sizeof(T), fixed = e * (3.0 * ldd * nb + 2.0 * nb * nb + k) + 4096, per_column = e * (ldd + nb);
    const std::size_t budget = schedule_budget(*ctx, fixed + per_column * n);
    if (budget > 0 && fixed + per_column * n > double(budget)) {
      const lint w = std::min(n, std::max<lint>(std::min<lint>(n, nb),
                                                 double(budget) > fixed ? lint((double(budget) - fixed) / per_column) : 0));
      int windows = 0;
      const Result r = orgqr_out_of_core(*ctx, m, n, k, a, lda, tau, w, &windows);
      *path = node_path(1, windows);
      return r;
    }
  }
  if (fault::hit(Point::alloc) || !ctx->matrix.reserve(round_up(sizeof(T) * std::size_t(ldd) * n)))
    return {false, 0, "GPU out of memory", n};
  if (!ctx->workspace.reserve(round_up(sizeof(T) * std::size_t(ldd) * nb) + 3 * t_bytes<T>(nb) +
                              round_up(sizeof(T) * std::size_t(nb) * n) + round_up(sizeof(T) * std::max<lint>(k, 1))))
    return {false, 0, "GPU out of memory", n};
  Carve work{static_cast<char *>(ctx->workspace.get())};
  T *dA = static_cast<T *>(ctx->matrix.get());
  T *dV = work.take<T>(std::size_t(ldd) * nb), *dT = work.take<T>(std::size_t(nb) * nb);
  T *dG = work.take<T>(std::size_t(nb) * nb), *dE = work.take<T>(std::size_t(nb) * nb);
  T *dW = work.take<T>(std::size_t(nb) * n), *dtau = work.take<T>(std::max<lint>(k, 1));
  auto at = [&](lint i, lint j) { return dA + i + std::size_t(j) * ldd; };

  QrSteps<T> s(*ctx);
  bool fine = s.init() && s.put(tau, 1, 1, k, dtau, 1) && orgqr_start(s, m, n, k, dA, ldd);
  for (lint p = npanels - 1; p >= 0 && fine; --p) {
    const lint k0 = p * nb, kb = std::min(nb, k - k0);
    fine = s.put(a + k0 + std::size_t(k0) * lda, lda, m - k0, kb, at(k0, k0), ldd) &&
           orgqr_block(s, m, n, k0, kb, dA, ldd, dtau + k0, dV, ldd, dT, dG, dE, nb, dW);
  }
  const lint stored = fine ? s.get(dA, ldd, m, n, a, lda, false, true) : 0;
  if (!s.failed()) s.finish();
  if (s.failed() || stored != n) return {false, 0, "CUDA error", n - stored};
  return {true, 0, s.pinned() ? kPinnedCaller : nullptr, 0};
}

// ---- xORGQR out of core ------------------------------------------------------

// Q in windows of w columns, right to left: window j0..j1-1 starts as those
// columns of the identity and receives H(kk), ..., H(1) (kk = min(k, j1):
// Q's column j needs only reflectors 1..j+1), their panels read from the
// caller's array, where they stay until the window holding them is stored;
// then the window goes down, its last columns first. `ran` false: the
// trailing columns of A from r.resume on are final, the others the input.
namespace {

// Q's columns j0..j0+wj-1 in dA (leading dimension ldd): the identity's
// columns, then H(kk) ... H(1), kk = min(k, j0 + wj), their panels of nb
// read from the caller's A through the ring, whose tau is already on the
// device. Column j needs only reflectors 1..j+1 (the later ones leave e_j
// as it is), so a panel from reflector p0 on reaches the window's columns
// from p0 on, as in LAPACK's xORGQR: a window that holds panels does half
// the work of applying them to every column.
template <class T>
bool form_q_columns(QrSteps<T> &s, PanelRing<T> &ring, lint m, lint k, const T *a, lint lda, lint nb, T *dA, lint ldd,
                    lint j0, lint wj) {
  const lint kk = std::min(k, j0 + wj);
  set_identity<<<grid_for(int64_t(m) * wj), 256, 0, s.c_.compute_stream>>>(m, wj, j0, dv(dA), ldd);
  bool fine = s.launched();
  for (lint p0 = kk > 0 ? (kk - 1) / nb * nb : -1; p0 >= 0 && fine; p0 -= nb) {
    const lint kb = std::min(nb, kk - p0), mk = m - p0, c0 = std::max<lint>(0, p0 - j0);
    fine = ring.load(a + p0 + std::size_t(p0) * lda, lda, mk, kb, p0) &&
           apply_block_reflector(s, true, false, mk, wj - c0, kb, ring.v, ldd, ring.t, nb,
                                 dA + p0 + std::size_t(c0) * ldd, ldd, ring.w, nb);
  }
  return fine;
}

}  // namespace

template <class T>
Result orgqr_out_of_core(Context &c, lint m, lint n, lint k, T *a, lint lda, const T *tau, lint w, int *windows) {
  const lint nb = apply_block(k), ldd = (m + 31) / 32 * 32;
  *windows = int((n + w - 1) / w);
  QrSteps<T> s(c);
  PanelRing<T> ring(s);
  if (fault::hit(Point::alloc) || !c.matrix.reserve(round_up(sizeof(T) * std::size_t(ldd) * w)) ||
      !ring.reserve(ldd, nb, 2, std::size_t(nb) * w, std::max<lint>(k, 1)))
    return {false, 0, "GPU out of memory", n};
  T *dA = static_cast<T *>(c.matrix.get());
  bool fine = s.init() && s.put(tau, 1, 1, k, ring.tau, 1);
  lint stored = 0;  // trailing columns final in the caller's array
  for (lint j1 = n; j1 > 0 && fine;) {
    const lint j0 = std::max<lint>(0, j1 - w), wj = j1 - j0;
    fine = form_q_columns(s, ring, m, k, a, lda, nb, dA, ldd, j0, wj);
    if (!fine) break;
    const lint got = s.get(dA, ldd, m, wj, a + std::size_t(j0) * lda, lda, false, true);
    stored += got;
    fine = got == wj && !s.failed();
    j1 = j0;
  }
  if (!s.failed()) s.finish();
  if (!fine || s.failed()) return {false, 0, "CUDA error", n - stored};
  return {true, 0, s.pinned() ? kPinnedCaller : nullptr, 0};
}

// ---- xORGQR / xUNGQR over the set -------------------------------------------

namespace {


// Device memory of a member's range of w columns (as orgqr_out_of_core's
// window: the range, two reflector panels, W, T and tau).
template <class T> double orgqr_range_bytes(lint m, lint k, lint w) {
  const double e = sizeof(T), ldd = double((m + 31) / 32 * 32), nb = double(apply_block(k));
  return e * (ldd * w + 3.0 * ldd * nb + 2.0 * nb * nb + nb * w + double(k)) + 8192;
}


// Window i of Q, columns j0..j1-1, on member c, as one window of
// orgqr_out_of_core: the identity's columns take H(kk) ... H(1) (kk =
// min(k, j1)), the panels read from the caller's A, then leave right to
// left in the windows' turn. Returns the trailing columns of the window
// stored.
template <class T>
lint orgqr_range(Context &c, int i, RightToLeft &order, lint m, lint k, const T *a, lint lda, const T *tau, lint j0,
                 lint j1, T *out, bool *pinned) {
  const lint nb = apply_block(k), ldd = (m + 31) / 32 * 32, wj = j1 - j0, kk = std::min(k, j1);
  QrSteps<T> s(c);
  PanelRing<T> ring(s);
  bool fine = ok(cudaSetDevice(c.device)) && !fault::hit(Point::alloc) &&
              c.matrix.reserve(round_up(sizeof(T) * std::size_t(ldd) * wj)) &&
              ring.reserve(ldd, nb, 2, std::size_t(nb) * wj, std::max<lint>(k, 1));
  T *dA = static_cast<T *>(c.matrix.get());
  fine = fine && s.init() && s.put(tau, 1, 1, kk, ring.tau, 1) && form_q_columns(s, ring, m, k, a, lda, nb, dA, ldd, j0, wj);
  lint got = 0;
  if (fine && order.wait(i)) {
    got = s.get(dA, ldd, m, wj, out + std::size_t(j0) * lda, lda, false, true);
    fine = got == wj && !s.failed();
  }
  order.done(i, fine && got == wj);
  if (!s.failed()) s.finish();
  *pinned = *pinned || s.pinned();
  return got;
}

}  // namespace

// With several GPUs from kNodeQrOrder (xORGQR's flops as a square
// xGEQRF's), or wherever the caller asks for the GPU (HQR_GPU_MIN_N); Q
// needs a column per window. One window per member where each holds its
// range (in core); else the fewest windows, the set's size times a power of
// two, of which every member holds the widest (out of core): the
// windows' ranges keep equal work, so the narrowest ones are on the right.
template <class T> int orgqr_set_windows(const DeviceSet &set, lint m, lint n, lint k) {
  if (set.count < 2 || n < 2 || std::size_t(m) * sizeof(T) > Context::kSlotBytes) return 0;
  const double flops = 4.0 * m * n * k - 2.0 * (m + n) * k * k + 4.0 / 3 * k * k * k;  // real; complex 4x, alike for both
  if (config::gpu_min_n() < 0 && std::cbrt(0.75 * flops) < double(kNodeQrOrder)) return 0;
  const int P = int(std::min<lint>(set.count, n));
  double budget = std::numeric_limits<double>::max();
  for (int d = 0; d < P; ++d) budget = std::min(budget, double(plan_budget(*set.member[d], std::size_t(256) << 20)));
  for (lint windows = P; windows <= n; windows *= 2) {
    const std::vector<lint> r = q_column_ranges(m, n, k, int(windows));
    lint widest = 0;
    for (std::size_t i = 0; i + 1 < r.size(); ++i) widest = std::max(widest, r[i + 1] - r[i]);
    if (orgqr_range_bytes<T>(m, k, widest) <= budget) return int(windows);
  }
  return 0;
}

// Q's columns in `windows` ranges of about equal work (q_column_ranges),
// dealt out to the members, window i to member i mod P (the windows are P
// times a power of two, so each round right to left gives every member one),
// each member forming its windows from the identity right to left
// (orgqr_range), all members at once, the windows stored right to left
// (RightToLeft): after a failure the trailing columns are final and the
// others still hold their reflectors, as after the one-GPU schedule's,
// and the CPU forms the leading columns from them. With one window per
// member, each forms its whole range in core.
template <class T>
Result orgqr_node(const DeviceSet &set, lint m, lint n, lint k, T *a, lint lda, const T *tau, int windows) {
  const int P = int(std::min<lint>(set.count, n));
  const std::vector<lint> r = q_column_ranges(m, n, k, windows);
  RightToLeft order(windows);
  std::vector<lint> got(static_cast<std::size_t>(windows), 0);
  std::vector<char> pinned(static_cast<std::size_t>(P), 0);
  auto run = [&](int d) {
    bool p = false;
    for (int i = windows - P + d; i >= 0; i -= P) {
      const std::size_t w = std::size_t(i);
      got[w] = orgqr_range(*set.member[d], i, order, m, k, a, lda, tau, r[w], r[w + 1], a, &p);
      if (got[w] < r[w + 1] - r[w]) break;  // the windows to its left are not stored (RightToLeft)
    }
    pinned[std::size_t(d)] = p;
  };
  on_each_member(P, run);
  Result out{true, 0, nullptr, 0};
  out.path = node_path(P, windows > P ? windows : 1);
  lint resume = n;  // trailing columns final from here
  for (int i = windows - 1; i >= 0; --i) {
    const std::size_t w = std::size_t(i);
    if (got[w] > 0) out.devices |= std::uint64_t(1) << set.member[i % P]->device;
    resume = r[w + 1] - got[w];
    if (got[w] < r[w + 1] - r[w]) break;
  }
  if (resume > 0) return {false, 0, "CUDA error", resume, 0, 0, out.devices, out.path};
  if (std::find(pinned.begin(), pinned.end(), char(1)) != pinned.end()) out.why = kPinnedCaller;
  return out;
}

// ---- xGEQRF out of core ------------------------------------------------------

template <class T>
Result geqrf_out_of_core(Context &c, lint m, lint n, T *a, lint lda, T *tau, lint w, int *windows,
                         unsigned long long *amax) {
  const lint k = std::min(m, n), nb = apply_block(k), ldd = (m + 31) / 32 * 32;
  *windows = int((n + w - 1) / w);
  if (std::size_t(m) * sizeof(T) > Context::kSlotBytes) return {false, 0, "matrix column larger than staging", 0};
  QrSteps<T> s(c);
  PanelRing<T> ring(s);
  if (fault::hit(Point::alloc) || !c.matrix.reserve(round_up(sizeof(T) * std::size_t(ldd) * w)) ||
      !ring.reserve(ldd, nb, 2, std::size_t(nb) * w, k))
    return {false, 0, "GPU out of memory", 0};
  T *dA = static_cast<T *>(c.matrix.get());
  bool fine = s.init() &&
              (!amax || s.check(cudaMemsetAsync(ring.amax, 0, sizeof *ring.amax, c.compute_stream), Point::copy));
  const char *why = "CUDA error";
  lint stored = 0;  // leading columns final in the caller's arrays, with their tau
  for (lint j = 0; j < n && fine; j += w) {
    const lint wj = std::min(w, n - j), kk = std::min(j, k);
    fine = s.put(a + std::size_t(j) * lda, lda, m, wj, dA, ldd);
    if (fine && amax) {  // max |a_ij| of the input, for xGELS's scaling
      max_abs<<<grid_for(int64_t(m) * wj, 256, 1024), 256, 0, c.compute_stream>>>(m, wj, dv(dA), ldd, ring.amax);
      fine = s.launched();
    }
    // The earlier windows' reflectors, read back from the caller's final
    // columns panel by panel: window := Q(1:kk)**H window.
    for (lint p0 = 0; p0 < kk && fine; p0 += nb) {
      const lint kb = std::min(nb, kk - p0), mk = m - p0;
      fine = ring.load(a + p0 + std::size_t(p0) * lda, lda, mk, kb, p0) &&
             apply_block_reflector(s, true, true, mk, wj, kb, ring.v, ldd, ring.t, nb, dA + p0, ldd, ring.w, nb);
    }
    if (fine && j < k) {  // the window's own rows j.. in place, as the in-core schedule (its streams drained)
      const Result r = geqrf_device(c, m - j, wj, dA + j, ldd, ring.tau + j);
      fine = r.ran;
      if (!fine && r.why) why = r.why;
      fine = fine && s.check(cudaMemcpy(tau + j, ring.tau + j, sizeof(T) * std::size_t(std::min(wj, k - j)),
                                        cudaMemcpyDeviceToHost),
                             Point::copy);
    }
    if (fine) {
      const lint got = s.get(dA, ldd, m, wj, a + std::size_t(j) * lda, lda, false, false);
      stored += got;
      fine = got == wj && !s.failed();
    }
  }
  if (fine && amax) fine = s.check(cudaMemcpy(amax, ring.amax, sizeof *amax, cudaMemcpyDeviceToHost), Point::copy);
  if (!s.failed()) s.finish();
  if (!fine || s.failed()) return {false, 0, why, stored};
  return {true, 0, s.pinned() ? kPinnedCaller : nullptr, 0};
}

// ---- xGEQRF over the set, out of core ---------------------------------------

// xGEQRF over the set where the members' shares of A do not fit them:
// left-looking windows of w columns, each brought up to date with the
// reflectors before it by xORMQR over the set (the window's columns shared
// among the members, the reflectors read from the caller's array, final
// there), then its rows j.. factored by the set's in-core schedule. The
// window crosses the host link twice (the one-GPU windows once), for the
// work of every member. A window that stops is finished on the CPU (the
// rest of its update, then what its factorization left), so the columns
// before the next window are final and the ones after it the input: the
// CPU resumes from there as after the one-GPU schedule.
template <class T>
Result geqrf_node_out_of_core(const DeviceSet &set, lint m, lint n, T *a, lint lda, T *tau, lint w, int *windows) {
  *windows = int((n + w - 1) / w);
  Result out{true, 0, nullptr, 0};
  for (lint j0 = 0; j0 < n; j0 += w) {
    const lint wj = std::min(w, n - j0), k = std::min(j0, m);
    T *win = a + std::size_t(j0) * lda;
    if (k > 0) {
      const Result u = ormqr_node(set, true, true, m, wj, k, a, lda, tau, win, lda);
      out.devices |= u.devices;
      if (!u.ran) {
        cpu_ormqr(true, true, m, wj - u.resume, k, a, lda, tau, win + std::size_t(u.resume) * lda, lda);
        if (j0 < m) finish_geqrf(m - j0, wj, lint(0), win + j0, lda, tau + j0);
        return {false, 0, u.why, j0 + wj, 0, 0, out.devices};
      }
    }
    if (j0 >= m) continue;  // columns past the last reflector: updated, nothing below row m to factor
    const Result f = geqrf_node(set, m - j0, wj, win + j0, lda, tau + j0);
    out.devices |= f.devices;
    if (!f.ran) {
      finish_geqrf(m - j0, wj, f.resume, win + j0, lda, tau + j0);
      return {false, 0, f.why, j0 + wj, 0, 0, out.devices};
    }
    if (f.why == kPinnedCaller) out.why = kPinnedCaller;
  }
  return out;
}

template <class T> Result geqrf_set(const DeviceSet &set, lint m, lint n, T *a, lint lda, T *tau, lint w, int *windows) {
  if (w < n) return geqrf_node_out_of_core(set, m, n, a, lda, tau, w, windows);
  *windows = 1;
  return geqrf_node(set, m, n, a, lda, tau);
}

#define HQR_INSTANTIATE(T)                                                                     \
  template Result geqrf_out_of_core(Context &, lint, lint, T *, lint, T *, lint, int *,          \
                                    unsigned long long *);                                    \
  template GelsResult gels(bool, lint, lint, lint, T *, lint, T *, lint, T *, const char **);  \
  template GelsResult gels_lq(bool, lint, lint, lint, T *, lint, T *, lint, T *, const char **); \
  template Result ormqr(bool, bool, lint, lint, lint, const T *, lint, const T *, T *, lint, const char **); \
  template Result orgqr(lint, lint, lint, T *, lint, const T *, const char **);                  \
  template Result ormqr_node(const DeviceSet &, bool, bool, lint, lint, lint, const T *, lint, const T *, T *, lint); \
  template Result geqrf_set(const DeviceSet &, lint, lint, T *, lint, T *, lint, int *);                 \
  template int orgqr_set_windows<T>(const DeviceSet &, lint, lint, lint);                               \
  template Result orgqr_node(const DeviceSet &, lint, lint, lint, T *, lint, const T *, int);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
