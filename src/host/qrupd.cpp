// xQRUPD_ADDCOLS, xQRUPD_DELCOLS, xQRUPD_ADDROWS, xQRUPD_DELROWS (s, d, c, z):
// the full QR factorization A = Q*R after columns or rows of A are added or
// deleted. The ABI is fixed (shared/SPEC.md, "QR-updating ABI"); ABI.md
// section 5 documents each routine as a LAPACK header does. This file checks
// the arguments, answers LWORK queries, and chooses between updating the
// factors and refactoring the updated matrix (src/cpu/qrupd.cpp has both).
//
// Checks in argument order, the first illegal one reported through XERBLA
// ('DQRUPD_ADDCOLS', ...) with INFO = -position and nothing written; then the
// LWORK = -1 query (only WORK(1) is set); then the quick return (P = 0, and
// M = 0 where nothing is left to factor). INFO > 0 is never returned.
//
// Update or refactor: by operation counts (leading terms, below; both
// paths run at about the same rate, level-3 BLAS throughout). Refactoring
// (the updated matrix formed from Q and R, its Householder QR, and the full
// Q generated from the reflectors) wins where most of the result is new:
// many columns added to a narrow A, many rows deleted, rows added to a
// near-empty A with JOBQ = 'U'. Deleting columns, and adding rows with
// JOBQ = 'N', always update: their reflectors touch at most P+1 rows, never
// more work than a QR from scratch. A LWORK query returns the workspace of
// the path chosen; with less (but at least the minimum) the update runs.
// HQR_VERBOSE says path=cpu-update or path=cpu-refactor.
//
// The GPU (src/cuda/qrupd_cols.cu, qrupd_rows.cu) takes deleting columns
// and adding rows without Q: there only R's band or trapezoid travels, and the update is
// many short reflectors, slow on the CPU. It runs where its estimated time
// (transfers, launches, flops, at rates fitted to bench/results/update-*)
// beats the CPU's, or from HQR_GPU_MIN_N on when that
// is set; a GPU that fails leaves the arrays as they came and the CPU runs.
// HQR_VERBOSE then says path=gpu-update, or why the CPU ran. Adding columns
// and deleting rows (full Q) run on the GPU as dense QRs of the band the
// update disturbs (qrupd_cols.cu, qrupd_rows.cu), all of Q in and its
// changed columns out, where that beats the CPU's estimate (update or refactor, whichever it
// would run); adding rows with Q likewise (a dense QR of [R; U]).
//
// c and z (Q unitary, conjugate transposes where s and d transpose): one
// template with the real routines, on the CPU and on the GPU alike: the
// same checks, the same update-or-refactor choice and the same cost model,
// its operation counts times four (a complex multiply-add is four real
// ones, as LAPACK counts them) and its bytes sizeof(T) an element.
#include <algorithm>
#include <cmath>
#include <limits>

#include "config.hpp"
#include "cpu/qrupd.hpp"
#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "lwork.hpp"
#include "trace.hpp"
#include "update_gpu.hpp"

namespace hqr {
namespace {

// ---- cost model: operation counts (multiplications + additions) ------------

// A Householder QR of m-by-n and the m-by-m Q of its k reflectors (LAPACK's
// counts for xGEQRF and xORGQR); the rows-by-n product of `rows` rows of an
// old Q with the upper trapezoid of an m-by-n R.
double geqrf_flops(double m, double n) {
  return m >= n ? 2 * m * n * n - 2 * n * n * n / 3 : 2 * n * m * m - 2 * m * m * m / 3;
}
double orgqr_flops(double m, double k) { return 4 * m * m * k - 4 * m * k * k + 4 * k * k * k / 3; }
double form_flops(double rows, double m, double n) {
  const double k = std::min(m, n);
  return 2 * rows * (k * n - k * k / 2);
}
// Refactoring the updated mu-by-nu matrix, formed from `rows` rows of the
// old m-by-n factors.
double refactor_flops(double mu, double nu, double rows, double m, double n) {
  return form_flops(rows, m, n) + geqrf_flops(mu, nu) + orgqr_flops(mu, std::min(mu, nu));
}

// The updates: Q^H*U, the Householder QR below row N applied to Q, P Givens
// passes over the trailing columns and Q.
double addcols_flops(double m, double n, double p, double j0) {
  const double below = std::max(0.0, m - n), na = std::min(p, below), tail = n - j0;
  return 2 * m * m * p + geqrf_flops(below, p) + 4 * m * na * (below - na / 2) + p * tail * (6 * m + 3 * tail);
}
// Reflectors of length P+1 on the band, applied to R's trailing columns and Q.
double delcols_flops(bool wantq, double m, double n, double p, double j0) {
  const double cols = std::max(0.0, std::min(n - p, m - 1) - j0);
  return 2 * (p + 1) * cols * (n - p - j0) + (wantq ? 4 * (p + 1) * m * cols : 0.0);
}
// min(M,N) reflectors on one row of R and the P new rows, applied to R and
// Q; for M < N the QR of the rest of U, applied to Q's last P columns.
double addrows_flops(bool wantq, double m, double n, double p) {
  const double k = std::min(m, n), wide = std::max(0.0, n - m), kw = std::min(p, wide);
  return 4 * p * (n * k - k * k / 2) + geqrf_flops(p, wide) +
         (wantq ? 4 * (m + p) * p * k + 4 * (m + p) * kw * (p - kw / 2) : 0.0);
}
// P Givens passes over Q's columns and R's rows.
double delrows_flops(double m, double n, double p) { return p * (6 * m * m + 3 * m * n); }

// The counts above in real operations for T: four a complex one.
template <class T> constexpr double kOps = is_complex<T> ? 4.0 : 1.0;

char jobq_char(const char *jobq) { return lsame(jobq, 'U') ? 'U' : 'N'; }

// The path of one call: refactor when the model prefers it and LWORK allows.
struct Plan {
  bool refactor;
  long lwopt;  // for the query: the preferred path's workspace
};
Plan plan(double update, double refactor, long lwmin, long update_lwopt, long refactor_lwork, const lint *lwork) {
  const bool prefer = refactor < update;
  const long lwopt = std::max(lwmin, prefer ? refactor_lwork : update_lwopt);
  return {prefer && *lwork >= refactor_lwork, lwopt};
}

const char *path_name(bool refactor) { return refactor ? "cpu-refactor" : "cpu-update"; }

// ---- GPU or CPU ------------------------------------------------------------------

// Rates fitted to bench/results/update-NVIDIA-H200-2026-11-22.txt (16
// host cores): the CPU's direct reflector kernels (one core) and its
// blocked level-3 updates (all cores); the GPU's host<->device rate through
// the pinned staging, its update rate, the fixed cost of a call and of each
// block of reflectors. Both paths also make R's rows below the update
// exactly zero (the ABI's promise): the CPU path writes them on one core,
// the GPU path checks them on all the copy threads.
constexpr double kCpuDirect = 4e9, kCpuBlocked = 60e9, kCpuZero = 5e9;
constexpr double kLink = 10e9, kGpuRate = 2e12, kGpuCall = 5e-4, kGpuBlock = 4e-5, kGpuZero = 30e9;

// addcols and delrows with Q run on the device as dense QRs (then the
// reflectors applied to Q as compact-WY blocks) after all of Q has come
// in; Q's result goes back. FP64 at about kGpuDense, the
// rate of those steps in bench/results/update-NVIDIA-H200-2026-11-25.txt.
constexpr double kGpuDense = 18e12, kGpuSolverCall = 2e-4;

double cpu_time(double flops, double rate, double zero_bytes) { return flops / rate + zero_bytes / kCpuZero; }
double gpu_dense_time(double bytes, double flops, int solver_calls) {
  return kGpuCall + bytes / kLink + flops / kGpuDense + solver_calls * kGpuSolverCall;
}
// Right-side ormqr: an m-by-n block times k reflectors of order n.
double ormqr_right_flops(double m, double n, double k) { return 4 * m * n * k - 2 * m * k * k; }

// The device's work and traffic for addcols (qrupd_cols.cu): Q^H*U, the QR
// below row N applied to Q, the band's QR (rows J..min(M,N+P)) applied to Q.
template <class T> double addcols_gpu_time(double m, double n, double p, double j0) {
  constexpr double elem = sizeof(T);
  const double na = std::max(0.0, m - n), pa = std::min(p, na), rb = std::min(m, n + p);
  const double hb = std::max(0.0, rb - j0), cb = n + p - j0, kb = hb > 1 ? std::min(hb, cb) : 0.0;
  const double flops = 2 * m * m * p + (pa > 0 ? geqrf_flops(na, p) + ormqr_right_flops(m, na, pa) : 0.0) +
                       (kb > 0 ? geqrf_flops(hb, cb) + ormqr_right_flops(m, hb, kb) : 0.0);
  const double bytes = elem * (m * m + m * p + 2 * cb * rb + m * (m - std::min(j0, m)) + na * pa + hb * kb);
  return gpu_dense_time(bytes, kOps<T> * flops, 4);
}
// addrows with Q: the dense QR of Z = [R(0:k, :); U] (k = min(M,N)) and
// its reflectors applied to the first k+P columns of the grown Q; Q's
// other columns move on the host (min(P, 16) chains at once, kHostMove
// each) while the device computes.
constexpr double kHostMove = 4e9;
template <class T> double addrows_q_gpu_time(double m, double n, double p) {
  constexpr double elem = sizeof(T);
  const double k = std::min(m, n), kp = k + p, kz = std::min(kp, n), mp = m + p;
  const double flops = geqrf_flops(kp, n) + ormqr_right_flops(mp, kp, kz);
  const double bytes = elem * (m * k + mp * kp + p * n + (k * n - k * k / 2) + kp * n + kp * kz);
  const double move = elem * m * (m - k) / (kHostMove * std::min(p, 16.0));
  return gpu_dense_time(bytes, 0, 2) + std::max(move, kOps<T> * flops / kGpuDense);
}
// delrows: the LQ of the deleted rows' part right of N, the dense QR of
// Z = [Q_d(:, 0:K)^H R(0:K, :)] (K = min(M, N+P)), both applied to Q.
template <class T> double delrows_gpu_time(double m, double n, double p) {
  constexpr double elem = sizeof(T);
  const double na = std::max(0.0, m - n), pa = std::min(p, na), kz = std::min(m, n + p), mo = m - p;
  const double flops = (pa > 0 ? geqrf_flops(na, p) + ormqr_right_flops(m, na, pa) : 0.0) + geqrf_flops(kz, p + n) +
                       ormqr_right_flops(m, kz, kz);
  const double bytes = elem * (m * m + mo * mo + 2 * kz * n + na * pa + kz * kz);
  return gpu_dense_time(bytes, kOps<T> * flops, 4);
}
// The GPU's time: bytes both ways, blocks of 32-64 reflectors, flops.
double gpu_time(double bytes, double reflectors, double flops, double zero_bytes) {
  return kGpuCall + bytes / kLink + reflectors / 32 * kGpuBlock + flops / kGpuRate + zero_bytes / kGpuZero;
}

}  // namespace

template <class T>
void qrupd_addcols(const lint *m, const lint *n, const lint *p, const lint *j, T *q, const lint *ldq, T *r,
                   const lint *ldr, T *u, const lint *ldu, T *work, const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>("QRUPD_ADDCOLS");
  *info = 0;
  if (*m < 0)
    *info = -1;
  else if (*n < 0)
    *info = -2;
  else if (*p < 0)
    *info = -3;
  else if (*j < 1 || *j > *n + 1)
    *info = -4;
  else if (*ldq < max1(*m))
    *info = -6;
  else if (*ldr < max1(*m))
    *info = -8;
  else if (*ldu < max1(*m))
    *info = -10;
  const long lwmin = *info == 0 && *p > 0 ? cpu::qrupd_addcols_lwmin(*m, *n, *p) : 1;
  check_lwork(lwork, lwmin, 12, info);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  Plan pl{false, 1};
  double flops = 0;
  if (*p > 0 && *m > 0) {
    const double update = kOps<T> * addcols_flops(*m, *n, *p, *j - 1);
    const double refactor = kOps<T> * refactor_flops(*m, *n + *p, *m, *m, *n);
    pl = plan(update, refactor, lwmin, cpu::qrupd_addcols_lwopt(*m, *n, *p),
              cpu::qrupd_refactor_lwork(*m, *n + *p, *m, *n), lwork);
    flops = pl.refactor ? refactor : update;
  }
  work[0] = lwork_value<T>(pl.lwopt);
  if (*lwork == -1 || *p == 0 || *m == 0) return;

  Trace trace(name, flops);
  trace.args("m=%ld n=%ld p=%ld j=%ld", long(*m), long(*n), long(*p), long(*j));
  const double rate = pl.refactor || *lwork >= cpu::qrupd_addcols_lwopt(*m, *n, *p) ? kCpuBlocked : kCpuDirect;
  GpuChoice g =
      gpu_choice(std::max(*m, *n + *p), cpu_time(flops, rate, 0), addcols_gpu_time<T>(*m, *n, *p, *j - 1));
  if (ran_on_gpu<T>(g, trace, work, pl.lwopt,
                    [&] { return gpu::qrupd_addcols(*m, *n, *p, *j - 1, q, *ldq, r, *ldr, u, *ldu); }))
    return;
  trace.path(path_name(pl.refactor), g.why);
  if (pl.refactor)
    cpu::qrupd_addcols_refactor(*m, *n, *p, *j - 1, q, *ldq, r, *ldr, u, *ldu, work);
  else
    cpu::qrupd_addcols(*m, *n, *p, *j - 1, q, *ldq, r, *ldr, u, *ldu, work, *lwork);
  work[0] = lwork_value<T>(pl.lwopt);
}

template <class T>
void qrupd_delcols(const char *jobq, const lint *m, const lint *n, const lint *p, const lint *j, T *q,
                   const lint *ldq, T *r, const lint *ldr, T *work, const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>("QRUPD_DELCOLS");
  const bool wantq = lsame(jobq, 'U');
  *info = 0;
  if (!wantq && !lsame(jobq, 'N'))
    *info = -1;
  else if (*m < 0)
    *info = -2;
  else if (*n < 0)
    *info = -3;
  else if (*p < 0 || *p > *n)
    *info = -4;
  else if (*j < 1 || *j > *n - *p + 1)
    *info = -5;
  else if (*ldq < (wantq ? max1(*m) : 1))
    *info = -7;
  else if (*ldr < max1(*m))
    *info = -9;
  const long lwmin = *info == 0 && *p > 0 ? cpu::qrupd_delcols_lwmin(*m, *n, *p) : 1;
  check_lwork(lwork, lwmin, 11, info);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  const long lwopt = *p > 0 ? std::max(lwmin, cpu::qrupd_delcols_lwopt(wantq, *m, *n, *p, *j - 1)) : 1;
  work[0] = lwork_value<T>(lwopt);
  if (*lwork == -1 || *p == 0 || *m == 0) return;

  const double flops = kOps<T> * delcols_flops(wantq, *m, *n, *p, *j - 1);
  Trace trace(name, flops);
  trace.args("jobq=%c m=%ld n=%ld p=%ld j=%ld", jobq_char(jobq), long(*m), long(*n), long(*p), long(*j));
  // The band (rows J.., P subdiagonals) both ways, and Q's columns J..min(M,N).
  const double j0 = *j - 1, rend = std::min(*m, *n), hr = rend - j0, wc = double(*n) - *p - j0;
  const bool work_left = j0 < std::min<double>(double(*n) - *p, double(*m) - 1);
  GpuChoice g{false, "nothing to annihilate"};
  if (work_left) {
    const double bytes = sizeof(T) * (wc * (hr + *p) + (wantq ? 2.0 * *m * hr : 0.0));
    const bool blocked = *lwork >= cpu::qrupd_delcols_lwopt(wantq, *m, *n, *p, *j - 1);
    const double zero = sizeof(T) * wc * std::max(0.0, double(*m) - rend);
    g = gpu_choice(std::max(*m, *n), cpu_time(flops, wantq && blocked ? kCpuBlocked : kCpuDirect, zero),
                   gpu_time(bytes, std::min(hr, wc), flops, zero));
  }
  if (ran_on_gpu<T>(g, trace, work, lwopt,
                    [&] { return gpu::qrupd_delcols(wantq, *m, *n, *p, *j - 1, q, *ldq, r, *ldr); }))
    return;
  trace.path(path_name(false), g.why);
  cpu::qrupd_delcols(wantq, *m, *n, *p, *j - 1, q, *ldq, r, *ldr, work, *lwork);
  work[0] = lwork_value<T>(lwopt);
}

template <class T>
void qrupd_addrows(const char *jobq, const lint *m, const lint *n, const lint *p, const lint *j, T *q,
                   const lint *ldq, T *r, const lint *ldr, T *u, const lint *ldu, T *work, const lint *lwork,
                   lint *info) {
  const RoutineName name = routine_name<T>("QRUPD_ADDROWS");
  const bool wantq = lsame(jobq, 'U');
  *info = 0;
  if (!wantq && !lsame(jobq, 'N'))
    *info = -1;
  else if (*m < 0)
    *info = -2;
  else if (*n < 0)
    *info = -3;
  else if (*p < 0)
    *info = -4;
  else if (*j < 1 || *j > *m + 1)
    *info = -5;
  else if (*ldq < (wantq ? max1(*m + *p) : 1))
    *info = -7;
  else if (*ldr < max1(*m + *p))
    *info = -9;
  else if (*ldu < max1(*p))
    *info = -11;
  const long lwmin = *info == 0 && *p > 0 ? cpu::qrupd_addrows_lwmin(wantq, *m, *n, *p) : 1;
  check_lwork(lwork, lwmin, 13, info);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  Plan pl{false, 1};
  double flops = 0;
  if (*p > 0) {
    const double update = kOps<T> * addrows_flops(wantq, *m, *n, *p);
    // Without Q only R is wanted: the update never costs more.
    const double refactor = wantq ? kOps<T> * refactor_flops(*m + *p, *n, *m, *m, *n) : update;
    pl = plan(update, refactor, lwmin, cpu::qrupd_addrows_lwopt(wantq, *m, *n, *p),
              wantq ? cpu::qrupd_refactor_lwork(*m + *p, *n, *m, *n) : 1, lwork);
    flops = pl.refactor ? refactor : update;
  }
  work[0] = lwork_value<T>(pl.lwopt);
  if (*lwork == -1 || *p == 0) return;

  Trace trace(name, flops);
  trace.args("jobq=%c m=%ld n=%ld p=%ld j=%ld", jobq_char(jobq), long(*m), long(*n), long(*p), long(*j));
  GpuChoice g{false, "nothing left"};
  if (wantq && *m > 0 && *n > 0) {
    const double rate = pl.refactor || *lwork >= cpu::qrupd_addrows_lwopt(wantq, *m, *n, *p) ? kCpuBlocked : kCpuDirect;
    g = gpu_choice(std::max(*m + *p, *n), cpu_time(flops, rate, 0), addrows_q_gpu_time<T>(*m, *n, *p));
    if (ran_on_gpu<T>(g, trace, work, pl.lwopt,
                      [&] { return gpu::qrupd_addrows_q(*m, *n, *p, *j - 1, q, *ldq, r, *ldr, u, *ldu); }))
      return;
  } else if (!wantq && !pl.refactor && *n > 0) {  // the device: the dense QR of [R(0:k, :); U]
    const double k = std::min(*m, *n), kp = k + *p;
    const double bytes = sizeof(T) * ((k * *n - k * k / 2) + double(*p) * *n + (kp * *n - kp * kp / 2));
    const double zero = sizeof(T) * double(*n) * std::max(0.0, double(*m) + *p - k);
    g = gpu_choice(std::max(*m + *p, *n), cpu_time(flops, kCpuBlocked, zero),
                   gpu_dense_time(bytes, kOps<T> * geqrf_flops(kp, *n), 1) + zero / kGpuZero);
  }
  if (ran_on_gpu<T>(g, trace, work, pl.lwopt, [&] { return gpu::qrupd_addrows(*m, *n, *p, r, *ldr, u, *ldu); })) return;
  trace.path(path_name(pl.refactor), g.why);
  if (pl.refactor)
    cpu::qrupd_addrows_refactor(*m, *n, *p, *j - 1, q, *ldq, r, *ldr, u, *ldu, work);
  else
    cpu::qrupd_addrows(wantq, *m, *n, *p, *j - 1, q, *ldq, r, *ldr, u, *ldu, work, *lwork);
  work[0] = lwork_value<T>(pl.lwopt);
}

template <class T>
void qrupd_delrows(const lint *m, const lint *n, const lint *p, const lint *j, T *q, const lint *ldq, T *r,
                   const lint *ldr, T *work, const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>("QRUPD_DELROWS");
  *info = 0;
  if (*m < 0)
    *info = -1;
  else if (*n < 0)
    *info = -2;
  else if (*p < 0 || *p > *m)
    *info = -3;
  else if (*j < 1 || *j > *m - *p + 1)
    *info = -4;
  else if (*ldq < max1(*m))
    *info = -6;
  else if (*ldr < max1(*m))
    *info = -8;
  const long lwmin = *info == 0 && *p > 0 ? cpu::qrupd_delrows_lwmin(*m, *n, *p) : 1;
  check_lwork(lwork, lwmin, 10, info);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  Plan pl{false, 1};
  double flops = 0;
  if (*p > 0) {
    const double update = kOps<T> * delrows_flops(*m, *n, *p);
    const double refactor = kOps<T> * refactor_flops(*m - *p, *n, *m - *p, *m, *n);
    pl = plan(update, refactor, lwmin, cpu::qrupd_delrows_lwopt(*m, *n, *p),
              cpu::qrupd_refactor_lwork(*m - *p, *n, *m, *n), lwork);
    flops = pl.refactor ? refactor : update;
  }
  work[0] = lwork_value<T>(pl.lwopt);
  if (*lwork == -1 || *p == 0) return;

  Trace trace(name, flops);
  trace.args("m=%ld n=%ld p=%ld j=%ld", long(*m), long(*n), long(*p), long(*j));
  GpuChoice g{false, "nothing left"};
  if (*m > *p) {
    const double rate = pl.refactor || *lwork >= cpu::qrupd_delrows_lwopt(*m, *n, *p) ? kCpuBlocked : kCpuDirect;
    g = gpu_choice(std::max(*m, *n), cpu_time(flops, rate, 0), delrows_gpu_time<T>(*m, *n, *p));
  }
  if (ran_on_gpu<T>(g, trace, work, pl.lwopt, [&] { return gpu::qrupd_delrows(*m, *n, *p, *j - 1, q, *ldq, r, *ldr); }))
    return;
  trace.path(path_name(pl.refactor), g.why);
  if (pl.refactor)
    cpu::qrupd_delrows_refactor(*m, *n, *p, *j - 1, q, *ldq, r, *ldr, work);
  else
    cpu::qrupd_delrows(*m, *n, *p, *j - 1, q, *ldq, r, *ldr, work, *lwork);
  work[0] = lwork_value<T>(pl.lwopt);
}

}  // namespace hqr

extern "C" {
void sqrupd_addcols_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j, float *q,
                     const lapack_int *ldq, float *r, const lapack_int *ldr, float *u, const lapack_int *ldu,
                     float *work, const lapack_int *lwork, lapack_int *info) {
  hqr::qrupd_addcols(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info);
}
void dqrupd_addcols_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j, double *q,
                     const lapack_int *ldq, double *r, const lapack_int *ldr, double *u, const lapack_int *ldu,
                     double *work, const lapack_int *lwork, lapack_int *info) {
  hqr::qrupd_addcols(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info);
}
void sqrupd_delcols_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                     const lapack_int *j, float *q, const lapack_int *ldq, float *r, const lapack_int *ldr,
                     float *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::qrupd_delcols(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info);
}
void dqrupd_delcols_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                     const lapack_int *j, double *q, const lapack_int *ldq, double *r, const lapack_int *ldr,
                     double *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::qrupd_delcols(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info);
}
void sqrupd_addrows_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                     const lapack_int *j, float *q, const lapack_int *ldq, float *r, const lapack_int *ldr, float *u,
                     const lapack_int *ldu, float *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::qrupd_addrows(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info);
}
void dqrupd_addrows_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                     const lapack_int *j, double *q, const lapack_int *ldq, double *r, const lapack_int *ldr,
                     double *u, const lapack_int *ldu, double *work, const lapack_int *lwork, lapack_int *info,
                     size_t) {
  hqr::qrupd_addrows(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info);
}
void sqrupd_delrows_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j, float *q,
                     const lapack_int *ldq, float *r, const lapack_int *ldr, float *work, const lapack_int *lwork,
                     lapack_int *info) {
  hqr::qrupd_delrows(m, n, p, j, q, ldq, r, ldr, work, lwork, info);
}
void dqrupd_delrows_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j, double *q,
                     const lapack_int *ldq, double *r, const lapack_int *ldr, double *work, const lapack_int *lwork,
                     lapack_int *info) {
  hqr::qrupd_delrows(m, n, p, j, q, ldq, r, ldr, work, lwork, info);
}
void cqrupd_addcols_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j,
                     lapack_complex_float *q, const lapack_int *ldq, lapack_complex_float *r, const lapack_int *ldr,
                     lapack_complex_float *u, const lapack_int *ldu, lapack_complex_float *work,
                     const lapack_int *lwork, lapack_int *info) {
  hqr::qrupd_addcols(m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(u), ldu, hqr::cx(work), lwork, info);
}
void zqrupd_addcols_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j,
                     lapack_complex_double *q, const lapack_int *ldq, lapack_complex_double *r, const lapack_int *ldr,
                     lapack_complex_double *u, const lapack_int *ldu, lapack_complex_double *work,
                     const lapack_int *lwork, lapack_int *info) {
  hqr::qrupd_addcols(m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(u), ldu, hqr::cx(work), lwork, info);
}
void cqrupd_delcols_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                     const lapack_int *j, lapack_complex_float *q, const lapack_int *ldq, lapack_complex_float *r,
                     const lapack_int *ldr, lapack_complex_float *work, const lapack_int *lwork, lapack_int *info,
                     size_t) {
  hqr::qrupd_delcols(jobq, m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(work), lwork, info);
}
void zqrupd_delcols_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                     const lapack_int *j, lapack_complex_double *q, const lapack_int *ldq, lapack_complex_double *r,
                     const lapack_int *ldr, lapack_complex_double *work, const lapack_int *lwork, lapack_int *info,
                     size_t) {
  hqr::qrupd_delcols(jobq, m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(work), lwork, info);
}
void cqrupd_addrows_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                     const lapack_int *j, lapack_complex_float *q, const lapack_int *ldq, lapack_complex_float *r,
                     const lapack_int *ldr, lapack_complex_float *u, const lapack_int *ldu, lapack_complex_float *work,
                     const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::qrupd_addrows(jobq, m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(u), ldu, hqr::cx(work), lwork, info);
}
void zqrupd_addrows_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                     const lapack_int *j, lapack_complex_double *q, const lapack_int *ldq, lapack_complex_double *r,
                     const lapack_int *ldr, lapack_complex_double *u, const lapack_int *ldu,
                     lapack_complex_double *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::qrupd_addrows(jobq, m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(u), ldu, hqr::cx(work), lwork, info);
}
void cqrupd_delrows_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j,
                     lapack_complex_float *q, const lapack_int *ldq, lapack_complex_float *r, const lapack_int *ldr,
                     lapack_complex_float *work, const lapack_int *lwork, lapack_int *info) {
  hqr::qrupd_delrows(m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(work), lwork, info);
}
void zqrupd_delrows_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j,
                     lapack_complex_double *q, const lapack_int *ldq, lapack_complex_double *r, const lapack_int *ldr,
                     lapack_complex_double *work, const lapack_int *lwork, lapack_int *info) {
  hqr::qrupd_delrows(m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(work), lwork, info);
}
}
