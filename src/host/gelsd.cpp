// xGELSD: the minimum-norm solution of min ||B - A X|| through the SVD of A
// (LAPACK's divide and conquer), rank-deficient A allowed; what numpy's
// lstsq and SciPy's lstsq (lapack_driver 'gelsd', its default) call.
// Contract (LAPACK 3.11.0):
//   m >= 0 (arg 1); n >= 0 (2); nrhs >= 0 (3); lda >= max(1,m) (5);
//   ldb >= max(1,m,n) (7); unless LWORK = -1: LWORK at least LAPACK's
//   minimum (12). XERBLA gets 'DGELSD' etc.
// On exit B(1:n,:) holds X; S the singular values of A, largest first;
// RANK the effective rank (singular values above RCOND * S(1), RCOND < 0:
// machine precision); WORK(1), IWORK(1) (and RWORK(1), complex) the sizes
// LAPACK returns; INFO > 0: the SVD did not converge. A is destroyed.
//
// hqr's part is LAPACK's own first step for a tall A ("path 1a",
// m >= MNTHR = 1.6 n): A = QR and B := Q**H B, then the n-by-n problem on
// R. hqr runs those two through its xGEQRF and xORMQR (on the GPU where
// their dispatch sends them; they are most of the flops when m >> n) and
// hands R and B(1:n,:) to the next LAPACK's xGELSD, which returns S, RANK,
// X and INFO for R, those of A. Rows n+1:m of B keep Q**H B's tail, as in
// LAPACK (their sum of squares is the residual when RANK = n; numpy reads
// it). Every other call goes to the next LAPACK unchanged: queries, illegal
// arguments (its XERBLA), shapes below MNTHR, and data LAPACK would scale
// first (max |a_ij| or max |b_ij| outside [SMLNUM, BIGNUM], A = 0, NaN, Inf),
// so that its handling of those stays LAPACK's exactly. hqr's steps use
// workspace of their own: any LWORK LAPACK accepts serves them, and a
// failed allocation sends the call, untouched, to the next LAPACK.
#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <vector>

#include "dispatch.hpp"
#include "flops.hpp"
#include "next_lapack.hpp"
#include "nonfinite.hpp"
#include "trace.hpp"

namespace hqr {

template <class T>
void geqrf(const lint *m, const lint *n, T *a, const lint *lda, T *tau, T *work, const lint *lwork,
           lint *info);  // geqrf.cpp
template <class T>
void ormqr(const char *side, const char *trans, const lint *m, const lint *n, const lint *k, const T *a,
           const lint *lda, const T *tau, T *c, const lint *ldc, T *work, const lint *lwork, lint *info);  // ormqr.cpp

namespace {

template <class T> using Real = typename Prec<T>::real;

// The next LAPACK's xGELSD (complex ones take RWORK; real ones do not).
template <class T>
void next_gelsd(const lint *m, const lint *n, const lint *nrhs, T *a, const lint *lda, T *b, const lint *ldb,
                Real<T> *s, const Real<T> *rcond, lint *rank, T *work, const lint *lwork, Real<T> *rwork, lint *iwork,
                lint *info) {
  if constexpr (is_complex<T>) {
    using F = void(const lint *, const lint *, const lint *, T *, const lint *, T *, const lint *, Real<T> *,
                   const Real<T> *, lint *, T *, const lint *, Real<T> *, lint *, lint *);
    static F *const f = next::fn<F, T>("gelsd");
    f(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info);
  } else {
    using F = void(const lint *, const lint *, const lint *, T *, const lint *, T *, const lint *, Real<T> *,
                   const Real<T> *, lint *, T *, const lint *, lint *, lint *);
    static F *const f = next::fn<F, T>("gelsd");
    f(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info);
  }
}

// ILAENV(9, 'xGELSD'): the size of the divide and conquer's leaves (25 in
// LAPACK); 25 where the next library does not export ILAENV.
lint smlsiz() {
  using F = lint(const lint *, const char *, const char *, const lint *, const lint *, const lint *, const lint *,
                 std::size_t, std::size_t);
  static const lint v = [] {
    auto *f = reinterpret_cast<F *>(next_symbol("ilaenv_"));
    const lint ispec = 9, zero = 0;
    const lint r = f ? f(&ispec, "DGELSD", " ", &zero, &zero, &zero, &zero, 6, 1) : 25;
    return r > 0 ? r : 25;
  }();
  return v;
}

// LAPACK's minimum LWORK for m >= MNTHR (MM = n in its formulas):
// real 3n + WLALSD, complex max(2n + n, 2n + n nrhs).
template <class T> lint min_lwork(lint n, lint nrhs) {
  if constexpr (is_complex<T>) {
    return std::max(3 * n, 2 * n + n * nrhs);
  } else {
    const lint sml = smlsiz();
    const lint nlvl = std::max<lint>(lint(std::log(double(n) / double(sml + 1)) / std::log(2.0)) + 1, 0);
    const lint wlalsd = 9 * n + 2 * n * sml + 8 * n * nlvl + n * nrhs + (sml + 1) * (sml + 1);
    return 3 * n + wlalsd;
  }
}

// Whether LAPACK's xGELSD would leave A and B unscaled (and A is not zero):
// SMLNUM <= max|a_ij| <= BIGNUM, and max|b_ij| = 0 or in the same range.
// False for a NaN or Inf anywhere, and *nonfinite true.
template <class T>
bool unscaled(lint m, lint n, lint nrhs, const T *a, lint lda, const T *b, lint ldb, bool *nonfinite) {
  using R = Real<T>;
  const R smlnum = small_number<T>(), bignum = R(1) / smlnum;
  const R anrm = max_abs(m, n, a, lda);
  *nonfinite = !std::isfinite(anrm);
  if (!(anrm >= smlnum && anrm <= bignum)) return false;
  const R bnrm = max_abs(m, nrhs, b, ldb);
  *nonfinite = !std::isfinite(bnrm);
  return bnrm == 0 || (bnrm >= smlnum && bnrm <= bignum);
}

}  // namespace

template <class T>
void gelsd(const lint *m, const lint *n, const lint *nrhs, T *a, const lint *lda, T *b, const lint *ldb, Real<T> *s,
           const Real<T> *rcond, lint *rank, T *work, const lint *lwork, Real<T> *rwork, lint *iwork, lint *info) {
  const lint M = *m, N = *n, NR = *nrhs;
  const bool legal = M >= 0 && N >= 0 && NR >= 0 && *lda >= max1(M) && *ldb >= max1(std::max(M, N)) &&
                     *lwork != -1 && *lwork >= min_lwork<T>(N, NR);
  // LAPACK's MNTHR = ILAENV(6, 'xGELSD') = INT(MIN(M,N) * 1.6E0).
  const lint mnthr = lint(float(std::min(M, N)) * 1.6f);
  if (!legal || N == 0 || M < N || M < mnthr) {
    next_gelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info);
    return;
  }
  Trace trace(routine_name<T>("GELSD"), flops::geqrf<T>(M, N) + flops::ormqr<T>(true, M, NR, N));
  trace.args("m=%ld n=%ld nrhs=%ld lda=%ld ldb=%ld lwork=%ld", long(M), long(N), long(NR), long(*lda), long(*ldb),
             long(*lwork));
  if (bool nonfinite = false; !unscaled(M, N, NR, a, *lda, b, *ldb, &nonfinite)) {
    trace.path("cpu", "A or B as LAPACK scales it, zero, NaN or Inf");
    const CpuOnly plain_lapack(nonfinite);  // its xGEQRF and xORMQR on the CPU too
    next_gelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info);
    return;
  }

  // The sizes: LAPACK's for the caller's WORK(1), IWORK(1), RWORK(1); the
  // next LAPACK's for the n-by-n problem; hqr's geqrf and ormqr's.
  const lint query = -1;
  lint qinfo = 0, qrank = 0, iw_caller = 0, iw_inner = 0;
  T w_caller{}, w_inner{}, w_qr{}, w_apply{}, unused{};
  Real<T> rw_caller{}, rw_inner{};
  next_gelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, &qrank, &w_caller, &query, &rw_caller, &iw_caller, &qinfo);
  next_gelsd(n, n, nrhs, a, lda, b, ldb, s, rcond, &qrank, &w_inner, &query, &rw_inner, &iw_inner, &qinfo);
  std::vector<T> tau, wk;
  std::vector<Real<T>> rwk;
  std::vector<lint> iwk;
  const char ct = is_complex<T> ? 'C' : 'T';
  try {
    geqrf(m, n, a, lda, &unused, &w_qr, &query, &qinfo);
    if (NR > 0) ormqr("L", &ct, m, nrhs, n, a, lda, &unused, b, ldb, &w_apply, &query, &qinfo);
    const lint lw = std::max({lint(std::real(w_inner)), lint(std::real(w_qr)), lint(std::real(w_apply)),
                              min_lwork<T>(N, NR), N, NR, lint(1)});
    tau.resize(std::size_t(N));
    wk.resize(std::size_t(lw));
    iwk.resize(std::size_t(std::max<lint>(iw_inner, 1)));
    if constexpr (is_complex<T>) rwk.resize(std::size_t(std::max<lint>(lint(rw_inner), 1)));
  } catch (const std::bad_alloc &) {
    trace.path("cpu", "no memory for hqr's workspace");
    next_gelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info);
    return;
  }
  const lint lw = lint(wk.size());

  // A = QR, B := Q**H B (hqr's; the path of the QR names this call's).
  {
    const Trace::Direct own;
    geqrf(m, n, a, lda, tau.data(), wk.data(), &lw, &qinfo);
    trace.path(Trace::last_nested_path(), "the QR; R's SVD on the CPU");
    if (NR > 0) ormqr("L", &ct, m, nrhs, n, a, lda, tau.data(), b, ldb, wk.data(), &lw, &qinfo);
  }
  for (lint j = 0; j + 1 < N; ++j)  // zero below R (xLASET)
    std::fill(a + j + 1 + std::size_t(j) * *lda, a + N + std::size_t(j) * *lda, T(0));

  // The n-by-n problem on R, whose singular values are A's.
  next_gelsd(n, n, nrhs, a, lda, b, ldb, s, rcond, rank, wk.data(), &lw, is_complex<T> ? rwk.data() : nullptr,
             iwk.data(), info);
  work[0] = w_caller;
  iwork[0] = iw_caller;
  if constexpr (is_complex<T>) rwork[0] = rw_caller;
}

}  // namespace hqr

extern "C" {
void sgelsd_(const lapack_int *m, const lapack_int *n, const lapack_int *nrhs, float *a, const lapack_int *lda,
             float *b, const lapack_int *ldb, float *s, const float *rcond, lapack_int *rank, float *work,
             const lapack_int *lwork, lapack_int *iwork, lapack_int *info) {
  hqr::gelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, static_cast<float *>(nullptr), iwork, info);
}
void dgelsd_(const lapack_int *m, const lapack_int *n, const lapack_int *nrhs, double *a, const lapack_int *lda,
             double *b, const lapack_int *ldb, double *s, const double *rcond, lapack_int *rank, double *work,
             const lapack_int *lwork, lapack_int *iwork, lapack_int *info) {
  hqr::gelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, static_cast<double *>(nullptr), iwork, info);
}
void cgelsd_(const lapack_int *m, const lapack_int *n, const lapack_int *nrhs, lapack_complex_float *a,
             const lapack_int *lda, lapack_complex_float *b, const lapack_int *ldb, float *s, const float *rcond,
             lapack_int *rank, lapack_complex_float *work, const lapack_int *lwork, float *rwork, lapack_int *iwork,
             lapack_int *info) {
  hqr::gelsd(m, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, s, rcond, rank, hqr::cx(work), lwork, rwork, iwork, info);
}
void zgelsd_(const lapack_int *m, const lapack_int *n, const lapack_int *nrhs, lapack_complex_double *a,
             const lapack_int *lda, lapack_complex_double *b, const lapack_int *ldb, double *s, const double *rcond,
             lapack_int *rank, lapack_complex_double *work, const lapack_int *lwork, double *rwork,
             lapack_int *iwork, lapack_int *info) {
  hqr::gelsd(m, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, s, rcond, rank, hqr::cx(work), lwork, rwork, iwork, info);
}
}
