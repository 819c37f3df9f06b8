// xQRUPD_ADDCOLS_ECON, xQRUPD_DELCOLS_ECON, xQRUPD_ADDROWS_ECON (s, d, c,
// z): the economy QR factorization A = Q*R (Q M-by-N with orthonormal
// columns, R N-by-N upper triangular, M >= N) after columns or rows of A
// are added or deleted; the tall least-squares case, where the full M-by-M
// Q of xQRUPD_* would not fit. ABI.md section 5.7 documents each routine
// as a LAPACK header does; this file checks the arguments in their order
// (the first illegal one reported through XERBLA, 'DQRUPD_ADDCOLS_ECON',
// ..., with INFO = -position and nothing written), answers LWORK = -1
// queries (only WORK(1) is set), makes the quick returns (P = 0; N = 0 for
// adding rows) and runs the CPU kernels of src/cpu/qrupd.cpp. INFO > 0 is
// never returned. Deleting rows needs the full Q (xQRUPD_DELROWS).
//
// Adding columns runs on the GPU where its cost model says so (or from
// HQR_GPU_MIN_N on): src/cuda/qrupd_econ.cu makes the CPU's blocked path's
// passes over Q and U on the device, where the tall Q crosses the host
// link once each way instead of being read twice and written once by the
// cores while they rotate it (bench/results/update-econ-*.txt). Where its
// CholeskyQR2 declines (U ill conditioned or close to Q's range) the CPU's
// block Gram-Schmidt orthogonalises U and the device still rotates Q;
// where R is wide, the device also factors what the host's Givens passes on
// R would reduce (its staircase) instead of the host making them;
// where the GPU fails before R is written, the CPU runs the whole update. Deleting
// columns and adding rows stay on the CPU: the first is within 1.3x of
// the host's bound there, and the second's GPU estimate (Q both ways) is
// no better than its CPU time. HQR_VERBOSE says path=gpu-update or
// path=cpu-update and why.
#include <algorithm>

#include "config.hpp"
#include "cpu/qrupd.hpp"
#include "lwork.hpp"
#include "trace.hpp"
#include "update_gpu.hpp"

namespace hqr {
namespace {

char jobq_char(const char *jobq) { return lsame(jobq, 'U') ? 'U' : 'N'; }

// Operation counts (leading terms) for HQR_VERBOSE's GFLOP/s.
double addcols_econ_flops(double m, double n, double p, double j0) {
  const double tail = n - j0;
  return 8 * m * n * p + 8 * m * p * p + p * tail * (6 * m + 3 * tail);
}
// The economy addcols' times for the choice: the CPU's blocked path at
// the rate of bench/results/history/update-econ-NVIDIA-H200-2026-12-02.txt (16
// cores: 180 GFLOP/s at J = 1, 160 at J = N+1); the GPU's, Q and U up and
// Q's columns J.. down through the staging at 40 GB/s (54.6 measured on
// the H200 host, less the copies' start), a call's fixed cost, and the
// flops at a level-3 rate.
constexpr double kCpuEconRate = 160e9, kEconLink = 40e9, kEconCall = 1e-3, kEconGpuRate = 10e12;
template <class T> double addcols_econ_cpu_time(double m, double n, double p, double j0) {
  return (is_complex<T> ? 4.0 : 1.0) * addcols_econ_flops(m, n, p, j0) / kCpuEconRate;
}
template <class T> double addcols_econ_gpu_time(double m, double n, double p, double j0) {
  const double bytes = sizeof(T) * m * (2 * (n + p) - j0);
  const double flops = (is_complex<T> ? 4.0 : 1.0) * (4 * m * (n + p) * p + 2 * m * (n + p - j0) * (n + p - j0));
  return kEconCall + bytes / kEconLink + flops / kEconGpuRate;
}
double delcols_econ_flops(bool wantq, double m, double n, double p, double j0) {
  const double cols = std::max(0.0, std::min(n - p, n - 1) - j0);
  return 2 * (p + 1) * cols * (n - p - j0) + (wantq ? 4 * (p + 1) * m * cols : 0.0);
}
double addrows_econ_flops(bool wantq, double m, double n, double p) {
  return 2 * p * n * n + (wantq ? 2 * p * n * n + m * n * n : 0.0);
}

}  // namespace

template <class T>
void qrupd_addcols_econ(const lint *m, const lint *n, const lint *p, const lint *j, T *q, const lint *ldq, T *r,
                        const lint *ldr, T *u, const lint *ldu, T *work, const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>("QRUPD_ADDCOLS_ECON");
  *info = 0;
  if (*m < 0)
    *info = -1;
  else if (*n < 0 || *n > *m)
    *info = -2;
  else if (*p < 0 || *p > *m - *n)
    *info = -3;
  else if (*j < 1 || *j > *n + 1)
    *info = -4;
  else if (*ldq < max1(*m))
    *info = -6;
  else if (*ldr < max1(*n + *p))
    *info = -8;
  else if (*ldu < max1(*m))
    *info = -10;
  const bool work_to_do = *info == 0 && *p > 0;
  const long lwmin = work_to_do ? cpu::qrupd_addcols_econ_lwmin(*m, *n, *p) : 1;
  check_lwork(lwork, lwmin, 12, info);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  const long lwopt = work_to_do ? std::max(lwmin, cpu::qrupd_addcols_econ_lwopt(*m, *n, *p)) : 1;
  work[0] = lwork_value<T>(lwopt);
  if (*lwork == -1 || *p == 0) return;

  Trace trace(name, addcols_econ_flops(*m, *n, *p, *j - 1));
  trace.args("m=%ld n=%ld p=%ld j=%ld", long(*m), long(*n), long(*p), long(*j));
  GpuChoice g = gpu_choice(*m, addcols_econ_cpu_time<T>(*m, *n, *p, *j - 1), addcols_econ_gpu_time<T>(*m, *n, *p, *j - 1));
  if (ran_on_gpu<T>(g, trace, work, lwopt,
                    [&] { return gpu::qrupd_addcols_econ(*m, *n, *p, *j - 1, q, *ldq, r, *ldr, u, *ldu); }))
    return;
  trace.path("cpu-update", g.why);
  cpu::qrupd_addcols_econ(*m, *n, *p, *j - 1, q, *ldq, r, *ldr, u, *ldu, work, *lwork, config::cpu_threads());
  work[0] = lwork_value<T>(lwopt);
}

template <class T>
void qrupd_delcols_econ(const char *jobq, const lint *m, const lint *n, const lint *p, const lint *j, T *q,
                        const lint *ldq, T *r, const lint *ldr, T *work, const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>("QRUPD_DELCOLS_ECON");
  const bool wantq = lsame(jobq, 'U');
  *info = 0;
  if (!wantq && !lsame(jobq, 'N'))
    *info = -1;
  else if (*m < 0)
    *info = -2;
  else if (*n < 0 || *n > *m)
    *info = -3;
  else if (*p < 0 || *p > *n)
    *info = -4;
  else if (*j < 1 || *j > *n - *p + 1)
    *info = -5;
  else if (*ldq < (wantq ? max1(*m) : 1))
    *info = -7;
  else if (*ldr < max1(*n))
    *info = -9;
  const bool work_to_do = *info == 0 && *p > 0;
  const long lwmin = work_to_do ? long(*p) + 2 : 1;
  check_lwork(lwork, lwmin, 11, info);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  const long lwopt = work_to_do ? std::max(lwmin, cpu::qrupd_delcols_econ_lwopt(wantq, *m, *n, *p, *j - 1)) : 1;
  work[0] = lwork_value<T>(lwopt);
  if (*lwork == -1 || *p == 0) return;

  Trace trace(name, delcols_econ_flops(wantq, *m, *n, *p, *j - 1));
  trace.args("jobq=%c m=%ld n=%ld p=%ld j=%ld", jobq_char(jobq), long(*m), long(*n), long(*p), long(*j));
  trace.path("cpu-update", "the economy form deletes columns on the CPU only");
  cpu::qrupd_delcols_econ(wantq, *m, *n, *p, *j - 1, q, *ldq, r, *ldr, work, *lwork, config::cpu_threads());
  work[0] = lwork_value<T>(lwopt);
}

template <class T>
void qrupd_addrows_econ(const char *jobq, const lint *m, const lint *n, const lint *p, const lint *j, T *q,
                        const lint *ldq, T *r, const lint *ldr, T *u, const lint *ldu, T *work, const lint *lwork,
                        lint *info) {
  const RoutineName name = routine_name<T>("QRUPD_ADDROWS_ECON");
  const bool wantq = lsame(jobq, 'U');
  *info = 0;
  if (!wantq && !lsame(jobq, 'N'))
    *info = -1;
  else if (*m < 0)
    *info = -2;
  else if (*n < 0 || *n > *m)
    *info = -3;
  else if (*p < 0)
    *info = -4;
  else if (*j < 1 || *j > *m + 1)
    *info = -5;
  else if (*ldq < (wantq ? max1(*m + *p) : 1))
    *info = -7;
  else if (*ldr < max1(*n))
    *info = -9;
  else if (*ldu < max1(*p))
    *info = -11;
  const bool work_to_do = *info == 0 && *p > 0 && *n > 0;
  const long lwmin = work_to_do ? cpu::qrupd_addrows_econ_lwork(wantq, *m, *n, *p) : 1;
  check_lwork(lwork, lwmin, 13, info);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  work[0] = lwork_value<T>(lwmin);
  if (*lwork == -1 || !work_to_do) return;

  Trace trace(name, addrows_econ_flops(wantq, *m, *n, *p));
  trace.args("jobq=%c m=%ld n=%ld p=%ld j=%ld", jobq_char(jobq), long(*m), long(*n), long(*p), long(*j));
  trace.path("cpu-update", "the economy form adds rows on the CPU only");
  cpu::qrupd_addrows_econ(wantq, *m, *n, *p, *j - 1, q, *ldq, r, *ldr, u, *ldu, work, config::cpu_threads());
  work[0] = lwork_value<T>(lwmin);
}

}  // namespace hqr

extern "C" {
void sqrupd_addcols_econ_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j,
                          float *q, const lapack_int *ldq, float *r, const lapack_int *ldr, float *u,
                          const lapack_int *ldu, float *work, const lapack_int *lwork, lapack_int *info) {
  hqr::qrupd_addcols_econ(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info);
}
void dqrupd_addcols_econ_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j,
                          double *q, const lapack_int *ldq, double *r, const lapack_int *ldr, double *u,
                          const lapack_int *ldu, double *work, const lapack_int *lwork, lapack_int *info) {
  hqr::qrupd_addcols_econ(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info);
}
void cqrupd_addcols_econ_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j,
                          lapack_complex_float *q, const lapack_int *ldq, lapack_complex_float *r,
                          const lapack_int *ldr, lapack_complex_float *u, const lapack_int *ldu,
                          lapack_complex_float *work, const lapack_int *lwork, lapack_int *info) {
  hqr::qrupd_addcols_econ(m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(u), ldu, hqr::cx(work), lwork, info);
}
void zqrupd_addcols_econ_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j,
                          lapack_complex_double *q, const lapack_int *ldq, lapack_complex_double *r,
                          const lapack_int *ldr, lapack_complex_double *u, const lapack_int *ldu,
                          lapack_complex_double *work, const lapack_int *lwork, lapack_int *info) {
  hqr::qrupd_addcols_econ(m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(u), ldu, hqr::cx(work), lwork, info);
}

void sqrupd_delcols_econ_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                          const lapack_int *j, float *q, const lapack_int *ldq, float *r, const lapack_int *ldr,
                          float *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::qrupd_delcols_econ(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info);
}
void dqrupd_delcols_econ_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                          const lapack_int *j, double *q, const lapack_int *ldq, double *r, const lapack_int *ldr,
                          double *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::qrupd_delcols_econ(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info);
}
void cqrupd_delcols_econ_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                          const lapack_int *j, lapack_complex_float *q, const lapack_int *ldq,
                          lapack_complex_float *r, const lapack_int *ldr, lapack_complex_float *work,
                          const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::qrupd_delcols_econ(jobq, m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(work), lwork, info);
}
void zqrupd_delcols_econ_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                          const lapack_int *j, lapack_complex_double *q, const lapack_int *ldq,
                          lapack_complex_double *r, const lapack_int *ldr, lapack_complex_double *work,
                          const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::qrupd_delcols_econ(jobq, m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(work), lwork, info);
}

void sqrupd_addrows_econ_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                          const lapack_int *j, float *q, const lapack_int *ldq, float *r, const lapack_int *ldr,
                          float *u, const lapack_int *ldu, float *work, const lapack_int *lwork, lapack_int *info,
                          size_t) {
  hqr::qrupd_addrows_econ(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info);
}
void dqrupd_addrows_econ_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                          const lapack_int *j, double *q, const lapack_int *ldq, double *r, const lapack_int *ldr,
                          double *u, const lapack_int *ldu, double *work, const lapack_int *lwork,
                          lapack_int *info, size_t) {
  hqr::qrupd_addrows_econ(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info);
}
void cqrupd_addrows_econ_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                          const lapack_int *j, lapack_complex_float *q, const lapack_int *ldq,
                          lapack_complex_float *r, const lapack_int *ldr, lapack_complex_float *u,
                          const lapack_int *ldu, lapack_complex_float *work, const lapack_int *lwork,
                          lapack_int *info, size_t) {
  hqr::qrupd_addrows_econ(jobq, m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(u), ldu, hqr::cx(work), lwork,
                          info);
}
void zqrupd_addrows_econ_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                          const lapack_int *j, lapack_complex_double *q, const lapack_int *ldq,
                          lapack_complex_double *r, const lapack_int *ldr, lapack_complex_double *u,
                          const lapack_int *ldu, lapack_complex_double *work, const lapack_int *lwork,
                          lapack_int *info, size_t) {
  hqr::qrupd_addrows_econ(jobq, m, n, p, j, hqr::cx(q), ldq, hqr::cx(r), ldr, hqr::cx(u), ldu, hqr::cx(work), lwork,
                          info);
}
}
