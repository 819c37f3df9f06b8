// xGELS: least squares (m >= n) or minimum-norm (m < n) solution of
// op(A)*X = B for a full-rank m x n A, through its QR (or LQ) factorization;
// op = A for trans 'N', A**T for 'T' (real) and A**H for 'C' (complex).
// Contract (LAPACK 3.11.0):
//   trans 'N'/'T' for real, 'N'/'C' for complex (arg 1); m >= 0 (2); n >= 0 (3);
//   nrhs >= 0 (4); lda >= max(1,m) (6); ldb >= max(1,m,n) (8);
//   unless LWORK = -1: LWORK >= max(1, mn + max(mn,nrhs)), mn = min(m,n) (10).
// XERBLA gets LAPACK's 6-character name, 'DGELS ' (blank-padded).
// LWORK = -1: a query; the optimal LWORK is returned in WORK(1) (from the
// next LAPACK), nothing else is touched. An LWORK too small (arg 10) still
// returns the optimal LWORK in WORK(1) before XERBLA, as LAPACK does.
// min(m,n,nrhs) = 0: quick return, B(1:max(m,n),1:nrhs) is set to zero.
// On exit A holds the factorization, B the solution (and for m >= n with
// trans 'N', rows n+1:m the residual information), WORK(1) the optimal LWORK.
// info > 0: the info-th diagonal element of the triangular factor is exactly
// zero, A does not have full rank and no solution is computed (B then holds
// Q**H B, as LAPACK leaves it).
//
// Large problems run on the GPU (src/cuda/qr_apply.cu); small ones (min(m,n)
// up to 1024) go there in one trip, A and B up once and back once
// (src/cuda/qr_one_trip.cu). m >= n: the hybrid
// geqrf keeps its factor on the device, Q**H B and the triangular solve
// (trans 'N'; for 'T'/'C' the solve with R**H, then Q) follow there, and A
// and B come back once. m < n: A**H is factored on the device (transposed
// on its way in and out), which gives xGELQF's L = R**H and reflectors.
// The GPU path keeps its own workspace, so any legal LWORK serves it (tau
// lives in WORK(1:mn), as in LAPACK). xGELS's scaling of A and B (xLASCL
// where max |a_ij| or max |b_ij| lies outside [SMLNUM, BIGNUM]) is emulated
// on the results: R (L) scaled as LAPACK leaves it, the residual rows of B
// too. If the GPU stops mid-call, the CPU finishes from the columns (LQ:
// rows) of the factorization it stored.
#include <algorithm>
#include <cstring>
#include <cmath>
#include <limits>
#include <vector>

#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "flops.hpp"
#include "lapack_reflectors.hpp"
#include "next_lapack.hpp"
#include "nonfinite.hpp"
#include "qr_dispatch.hpp"
#include "trace.hpp"

namespace hqr {

namespace {

template <class T> using Real = typename Prec<T>::real;

// LAPACK's xLASCL: A := A * (cto / cfrom) without over- or underflow.
template <class T>
void lascl(char type, Real<T> cfrom, Real<T> cto, lint m, lint n, T *a, lint lda) {
  using F = void(const char *, const lint *, const lint *, const Real<T> *, const Real<T> *, const lint *, const lint *,
                 T *, const lint *, lint *, std::size_t);
  static F *const f = next::fn<F, T>("lascl");
  const lint zero = 0;
  lint info = 0;
  if (m > 0 && n > 0) f(&type, &zero, &zero, &cfrom, &cto, &m, &n, a, &lda, &info, 1);
}

// LAPACK's xTRTRS('U', op, 'N') on the next LAPACK: INFO > 0 at the first
// exactly zero diagonal element (B untouched then).
template <class T> lint trtrs_upper(char op, lint n, lint nrhs, const T *a, lint lda, T *b, lint ldb) {
  using F = void(const char *, const char *, const char *, const lint *, const lint *, const T *, const lint *, T *,
                 const lint *, lint *, std::size_t, std::size_t, std::size_t);
  static F *const f = next::fn<F, T>("trtrs");
  lint info = 0;
  f("U", &op, "N", &n, &nrhs, a, &lda, b, &ldb, &info, 1, 1, 1);
  return info;
}

// B := op(Q) B with the next LAPACK's xORMQR ('L'), Q from n reflectors of order m.
template <class T> void apply_q(char op, lint m, lint n, lint nrhs, const T *a, lint lda, const T *tau, T *b, lint ldb) {
  const lint query = -1;
  lint info = 0;
  T w{};
  next::ormqr("L", &op, &m, &nrhs, &n, a, &lda, tau, b, &ldb, &w, &query, &info);
  lint lw = std::max<lint>({1, nrhs, lint(std::real(w))});
  std::vector<T> work(static_cast<std::size_t>(lw));
  next::ormqr("L", &op, &m, &nrhs, &n, a, &lda, tau, b, &ldb, work.data(), &lw, &info);
}

// B := op(Q) B with the next LAPACK's xORMLQ ('L'), Q of order n from the
// m reflectors in A's rows (xGELQF's).
template <class T> void apply_lq(char op, lint m, lint n, lint nrhs, const T *a, lint lda, const T *tau, T *b, lint ldb) {
  using F = void(const char *, const char *, const lint *, const lint *, const lint *, const T *, const lint *,
                 const T *, T *, const lint *, T *, const lint *, lint *, std::size_t, std::size_t);
  static F *const f = next::fn<F, T>(is_complex<T> ? "unmlq" : "ormlq");
  const lint query = -1;
  lint info = 0;
  T w{};
  f("L", &op, &n, &nrhs, &m, a, &lda, tau, b, &ldb, &w, &query, &info, 1, 1);
  lint lw = std::max<lint>({1, nrhs, lint(std::real(w))});
  std::vector<T> work(static_cast<std::size_t>(lw));
  f("L", &op, &n, &nrhs, &m, a, &lda, tau, b, &ldb, work.data(), &lw, &info, 1, 1);
}

// LAPACK's xTRTRS('L', op, 'N') on the next LAPACK.
template <class T> lint trtrs_lower(char op, lint n, lint nrhs, const T *a, lint lda, T *b, lint ldb) {
  using F = void(const char *, const char *, const char *, const lint *, const lint *, const T *, const lint *, T *,
                 const lint *, lint *, std::size_t, std::size_t, std::size_t);
  static F *const f = next::fn<F, T>("trtrs");
  lint info = 0;
  f("L", &op, "N", &n, &nrhs, a, &lda, b, &ldb, &info, 1, 1, 1);
  return info;
}

// The first r rows of A hold the LQ factorization (with tau), the rest the
// input: apply the stored reflectors to the other rows from the right and
// factor what remains right of column r (finish_geqrf, transposed).
// (On a padded copy of A in c and z: xUNMLQ 'R' and xGELQF read past A's
// last column, next::on_padded_copy.)
template <class T> void finish_gelqf(lint m, lint n, lint r, T *caller_a, lint lda, T *tau) {
  if (m <= r) return;
  next::on_padded_copy(m, n, caller_a, lda, [&](T *a) {
    using Mlq = void(const char *, const char *, const lint *, const lint *, const lint *, const T *, const lint *,
                     const T *, T *, const lint *, T *, const lint *, lint *, std::size_t, std::size_t);
    using Lqf = void(const lint *, const lint *, T *, const lint *, T *, T *, const lint *, lint *);
    static Mlq *const ormlq = next::fn<Mlq, T>(is_complex<T> ? "unmlq" : "ormlq");
    static Lqf *const gelqf = next::fn<Lqf, T>("gelqf");
    const lint k = std::min(m, n), kr = std::min(r, k), mr = m - r;
    const lint query = -1;
    lint info = 0;
    T *c = a + r;
    if (kr > 0) {
      const char trans = is_complex<T> ? 'C' : 'T';
      T w{};
      ormlq("R", &trans, &mr, &n, &kr, a, &lda, tau, c, &lda, &w, &query, &info, 1, 1);
      lint lw = std::max<lint>({1, mr, lint(std::real(w))});
      std::vector<T> work(static_cast<std::size_t>(lw));
      ormlq("R", &trans, &mr, &n, &kr, a, &lda, tau, c, &lda, work.data(), &lw, &info, 1, 1);
    }
    if (r < k) {
      const lint nr = n - r;
      T w{};
      gelqf(&mr, &nr, c + std::size_t(r) * lda, &lda, tau + r, &w, &query, &info);
      lint lw = std::max<lint>({1, mr, lint(std::real(w))});
      std::vector<T> work(static_cast<std::size_t>(lw));
      gelqf(&mr, &nr, c + std::size_t(r) * lda, &lda, tau + r, work.data(), &lw, &info);
    }
  });
}

// xGELS's steps after the factorization, on columns of B (as LAPACK 3.11
// without its scaling). m >= n, trans 'N': B := Q**H B, then
// B(1:n,:) := R**-1 B(1:n,:) unless R has a zero diagonal (returned);
// trans 'T'/'C': B(1:n,:) := R**-H B(1:n,:) (B untouched if R has a zero
// diagonal), B(n+1:m,:) := 0, B := Q B. m < n (LQ), trans 'N':
// B(1:m,:) := L**-1 B(1:m,:) (B untouched if L has a zero diagonal),
// B(m+1:n,:) := 0, B := Q**H B; trans 'T'/'C': B := Q B, then
// B(1:m,:) := L**-H B(1:m,:) unless L has a zero diagonal.
template <class T>
lint solve_tail(bool trans, lint m, lint n, lint nrhs, const T *a, lint lda, const T *tau, T *b, lint ldb) {
  if (nrhs <= 0) return 0;
  const char ct = is_complex<T> ? 'C' : 'T';
  if (m >= n && !trans) {
    apply_q(ct, m, n, nrhs, a, lda, tau, b, ldb);
    return trtrs_upper('N', n, nrhs, a, lda, b, ldb);
  }
  if (m < n && trans) {
    apply_lq('N', m, n, nrhs, a, lda, tau, b, ldb);
    return trtrs_lower(ct, m, nrhs, a, lda, b, ldb);
  }
  const lint q = std::min(m, n), p = std::max(m, n);
  const lint info = m >= n ? trtrs_upper(ct, n, nrhs, a, lda, b, ldb) : trtrs_lower('N', m, nrhs, a, lda, b, ldb);
  if (info > 0) return info;
  for (lint j = 0; j < nrhs; ++j) std::fill(b + q + std::size_t(j) * ldb, b + p + std::size_t(j) * ldb, T(0));
  if (m >= n)
    apply_q('N', m, n, nrhs, a, lda, tau, b, ldb);
  else
    apply_lq(ct, m, n, nrhs, a, lda, tau, b, ldb);
  return 0;
}

// WORK(1) on exit: the next LAPACK's optimal LWORK.
template <class T>
T optimal_gels_lwork(const char *trans, const lint *m, const lint *n, const lint *nrhs, T *a, const lint *lda, T *b,
                     const lint *ldb) {
  const lint query = -1;
  lint info = 0;
  T w{};
  next::gels(trans, m, n, nrhs, a, lda, b, ldb, &w, &query, &info);
  return w;
}

// The GPU path (with the CPU finishing whatever the GPU could not); false:
// nothing was changed and the CPU runs the call.
// bnrm: LAPACK's max |b_ij| over B's first BROW rows, taken before B changes.
// *nonfinite: set where the GPU found a NaN or Inf in A.
template <class T>
bool gels_gpu(bool trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, Real<T> bnrm, T *work,
              lint *info, Trace &trace, bool *nonfinite) {
  const bool lq = m < n;
  const lint p = std::max(m, n), q = std::min(m, n);
  const Real<T> smlnum = small_number<T>(), bignum = Real<T>(1) / smlnum;
  T *tau = work;                                               // WORK(1:mn), as LAPACK's xGELS
  const char *path = "gpu";
  const gpu::GelsResult g = lq ? gpu::gels_lq(trans, m, n, nrhs, a, lda, b, ldb, tau, &path)
                               : gpu::gels(trans, m, n, nrhs, a, lda, b, ldb, tau, &path);
  trace.devices(g.r.devices);  // 0: the set's first GPU, where a GPU path ran
  if (!g.factored) {
    if (g.r.resume <= 0) {
      trace.path("cpu", g.r.why);
      *nonfinite = g.r.why && std::strcmp(g.r.why, gpu::kNonFiniteInput) == 0;
      return false;
    }
    trace.path("cpu-resumed", g.r.why);  // from the GPU's final columns (rows, LQ) of the factorization
    if (lq) {
      finish_gelqf(m, n, g.r.resume, a, lda, tau);
    } else {
      finish_geqrf(m, n, g.r.resume, a, lda, tau);
      lapack_zero_reflectors(m, n, a, lda, tau);
    }
    *info = solve_tail(trans, m, n, nrhs, a, lda, tau, b, ldb);
    return true;
  }
  const Real<T> anrm = Real<T>(g.anrm);
  if (anrm == 0) {  // LAPACK: B(1:max(m,n),:) = 0, A as it came (all zero)
    trace.path(g.r.ran ? path : "cpu-resumed", g.r.why);
    for (lint j = 0; j < nrhs; ++j) std::fill(b + std::size_t(j) * ldb, b + std::size_t(j) * ldb + p, T(0));
    *info = 0;
    return true;
  }
  *info = g.r.info;
  // R's row i scaled with its reflector leaves a solution as it is; where
  // none was computed (info > 0, Q**H B for 'N') B's row i scales too.
  // (Only B's columns the GPU finished: the CPU's come from the input.)
  if (!lq) lapack_zero_reflectors(m, n, a, lda, tau, b, ldb, *info > 0 && !trans ? (g.r.ran ? nrhs : g.b_columns) : 0);
  if (g.r.ran) {
    trace.path(path, g.r.why);  // why: "pinned caller" or none
  } else {
    trace.path("cpu-resumed", g.r.why);  // B's trailing columns on the CPU
    const lint c = g.b_columns;
    solve_tail(trans, m, n, nrhs - c, a, lda, tau, b + std::size_t(c) * ldb, ldb);
  }
  // xGELS's scaling, as it leaves A and B: the triangle (R, or L for m < n)
  // of the scaled A; B scaled where LAPACK does not scale it back. Where Q
  // is applied first (m >= n 'N', m < n 'T'/'C'), the rows past the
  // solution (all of them when no solution was computed); where the solve
  // comes first, rows 1..min(m,n) when no solution was computed.
  if (anrm < smlnum || anrm > bignum) lascl(lq ? 'L' : 'U', anrm, anrm < smlnum ? smlnum : bignum, q, q, a, lda);
  if (bnrm > 0 && (bnrm < smlnum || bnrm > bignum)) {
    const Real<T> cto = bnrm < smlnum ? smlnum : bignum;
    const lint r0 = *info > 0 ? 0 : q;
    if (lq == trans)  // Q first
      lascl('G', bnrm, cto, p - r0, nrhs, b + r0, ldb);
    else if (*info > 0)
      lascl('G', bnrm, cto, q, nrhs, b, ldb);
  }
  return true;
}

}  // namespace

template <class T>
void gels(const char *trans, const lint *m, const lint *n, const lint *nrhs, T *a, const lint *lda, T *b,
          const lint *ldb, T *work, const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>("GELS ");  // as LAPACK passes it to XERBLA
  const bool query = *lwork == -1;
  const lint mn = *m < *n ? *m : *n;
  const lint mx = *m > *n ? *m : *n;
  *info = 0;
  if (!lsame(trans, 'N') && !lsame(trans, is_complex<T> ? 'C' : 'T'))
    *info = -1;
  else if (*m < 0)
    *info = -2;
  else if (*n < 0)
    *info = -3;
  else if (*nrhs < 0)
    *info = -4;
  else if (*lda < max1(*m))
    *info = -6;
  else if (*ldb < max1(mx))
    *info = -8;
  else if (*lwork < max1(mn + (mn > *nrhs ? mn : *nrhs)) && !query)
    *info = -10;
  if (*info != 0) {
    if (*info == -10) {  // LAPACK stores the optimal LWORK before reporting
      const lint q = -1;
      lint qinfo = 0;
      T opt{};
      next::gels(trans, m, n, nrhs, a, lda, b, ldb, &opt, &q, &qinfo);
      work[0] = opt;
    }
    report_illegal(name, -*info);
    return;
  }
  if (query || mn == 0 || *nrhs == 0) {  // the next LAPACK sets WORK(1) (and clears B)
    next::gels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info);
    return;
  }

  Trace trace(routine_name<T>("GELS"), flops::gels<T>(*m, *n, *nrhs));
  trace.args("trans=%c m=%ld n=%ld nrhs=%ld lda=%ld ldb=%ld lwork=%ld", *trans, long(*m), long(*n), long(*nrhs),
             long(*lda), long(*ldb), long(*lwork));
  // The hybrid geqrf's crossover, at the order of the square QR with the
  // flops of this one.
  const Decision d = choose_path(Routine::geqrf, Prec<T>::letter, qr_equivalent_order(*m, *n), qr_probe<T>, a,
                                 span_bytes<T>(*m, *n, *lda));
  bool nonfinite = false;
  if (d.path == Path::gpu) {
    // A NaN or Inf stays on the CPU: xGELS scales an A or B holding an Inf
    // by zero (xLASCL from Inf), which the GPU path's emulation of the
    // scaling cannot reproduce after the fact (INFO differed on the H200).
    // B is checked here, A by the GPU path (on the device in the one trip).
    const bool tr = !lsame(trans, 'N');
    const Real<T> bnrm = max_abs(tr ? *n : *m, *nrhs, b, *ldb);  // NaN or Inf if B holds one
    if (!std::isfinite(bnrm)) {
      trace.path("cpu", gpu::kNonFiniteInput);
      nonfinite = true;
    } else if (gels_gpu(tr, *m, *n, *nrhs, a, *lda, b, *ldb, bnrm, work, info, trace, &nonfinite)) {
      work[0] = optimal_gels_lwork(trans, m, n, nrhs, a, lda, b, ldb);
      return;
    }
  } else {
    trace.path("cpu", d.why);
  }
  const CpuOnly plain_lapack(nonfinite);  // its xGEQRF and xORMQR on the CPU too
  if (*m >= *n) return next::gels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info);
  // Its xGELQF reads past A's last column in c and z (on_padded_copy).
  next::on_padded_copy(*m, *n, a, *lda, [&](T *c) { next::gels(trans, m, n, nrhs, c, lda, b, ldb, work, lwork, info); });
}

}  // namespace hqr

extern "C" {
void sgels_(const char *trans, const lapack_int *m, const lapack_int *n, const lapack_int *nrhs, float *a,
            const lapack_int *lda, float *b, const lapack_int *ldb, float *work, const lapack_int *lwork,
            lapack_int *info, size_t) {
  hqr::gels(trans, m, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(work), lwork, info);
}
void dgels_(const char *trans, const lapack_int *m, const lapack_int *n, const lapack_int *nrhs, double *a,
            const lapack_int *lda, double *b, const lapack_int *ldb, double *work, const lapack_int *lwork,
            lapack_int *info, size_t) {
  hqr::gels(trans, m, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(work), lwork, info);
}
void cgels_(const char *trans, const lapack_int *m, const lapack_int *n, const lapack_int *nrhs,
            lapack_complex_float *a, const lapack_int *lda, lapack_complex_float *b, const lapack_int *ldb,
            lapack_complex_float *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::gels(trans, m, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(work), lwork, info);
}
void zgels_(const char *trans, const lapack_int *m, const lapack_int *n, const lapack_int *nrhs,
            lapack_complex_double *a, const lapack_int *lda, lapack_complex_double *b, const lapack_int *ldb,
            lapack_complex_double *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::gels(trans, m, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(work), lwork, info);
}
}
