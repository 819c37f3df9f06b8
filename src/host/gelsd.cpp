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
// their dispatch sends them; they are most of the flops when m >> n). The
// n-by-n problem on R, whose S, RANK, X and INFO are A's, starts as
// LAPACK's next steps do, with xGEBRD: on the GPU (gpu::gebrd) from order
// bidiagonal_min_n (or HQR_GPU_MIN_N) on, else the next LAPACK's. The rest,
// O(n^2 nrhs), runs on the CPU: where R has full rank by a margin, S by the
// next LAPACK's xBDSQR and X by a triangular solve with R
// (solve_full_rank), else LAPACK's xORMBR with Q, xLALSD, xORMBR with P.
// With NRHS = 0, or where the GPU fails (R is then untouched), the next
// LAPACK's xGELSD solves it whole. Rows n+1:m of B keep Q**H B's tail, as in
// LAPACK (their sum of squares is the residual when RANK = n; numpy reads
// it). Every other call goes to the next LAPACK unchanged: queries, illegal
// arguments (its XERBLA), shapes below MNTHR, and data LAPACK would scale
// first (max |a_ij| or max |b_ij| outside [SMLNUM, BIGNUM], A = 0, NaN, Inf),
// so that its handling of those stays LAPACK's exactly. hqr's steps use
// workspace of their own: any LWORK LAPACK accepts serves them, and a
// failed allocation sends the call, untouched, to the next LAPACK.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "config.hpp"
#include "cpu/blas.hpp"
#include "cuda/gpu.hpp"
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
    if (*lwork == -1) return f(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info);
    // Its xGEBRD reads past A's last column (next::on_padded_copy).
    next::on_padded_copy(*m, *n, a, *lda, [&](T *c) {
      f(m, n, nrhs, c, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info);
    });
  } else {
    using F = void(const lint *, const lint *, const lint *, T *, const lint *, T *, const lint *, Real<T> *,
                   const Real<T> *, lint *, T *, const lint *, lint *, lint *);
    static F *const f = next::fn<F, T>("gelsd");
    f(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info);
  }
}

// The CPU's xGEBRD is bound by the host's memory (half its flops are
// matrix-vector products over the trailing matrix), cuSOLVER's by its
// launches at small orders (about 60 us a column at n = 256): the GPU's
// bidiagonal form wins from these orders on. Whole xGELSD at m = 2n with
// the GPU's bidiagonal form against OpenBLAS's, H200 host (16 cores;
// bench/results/gelsd-NVIDIA-H200-2026-12-04.txt), at n = 256/384/512/1024:
// s 0.65/-/0.86/1.32-1.39x, d 0.93/-/0.98-1.11/1.51-1.68x,
// c -/0.83/1.40/1.55x, z 1.02-1.14/1.40/1.22-1.43/1.87-2.08x.
template <class T> constexpr lint bidiagonal_min_n() {
  if constexpr (std::is_same_v<T, float>) return 768;
  if constexpr (std::is_same_v<T, double>) return 640;
  if constexpr (std::is_same_v<T, std::complex<float>>) return 512;
  return 256;
}

// The next LAPACK's xORMBR/xUNMBR and xLALSD (complex xLALSD takes RWORK),
// or nullptr where it does not export them (xLALSD is an auxiliary routine).
template <class T>
using OrmbrFn = void(const char *, const char *, const char *, const lint *, const lint *, const lint *, const T *,
                     const lint *, const T *, T *, const lint *, T *, const lint *, lint *, std::size_t, std::size_t,
                     std::size_t);
template <class T> OrmbrFn<T> *next_ormbr() {
  static OrmbrFn<T> *const f = next::fn_or_null<OrmbrFn<T>, T>(is_complex<T> ? "unmbr" : "ormbr");
  return f;
}
template <class T>
using LalsdFn = std::conditional_t<
    is_complex<T>,
    void(const char *, const lint *, const lint *, const lint *, Real<T> *, Real<T> *, T *, const lint *,
         const Real<T> *, lint *, T *, Real<T> *, lint *, lint *, std::size_t),
    void(const char *, const lint *, const lint *, const lint *, Real<T> *, Real<T> *, T *, const lint *,
         const Real<T> *, lint *, T *, lint *, lint *, std::size_t)>;
template <class T> LalsdFn<T> *next_lalsd() {
  static LalsdFn<T> *const f = next::fn_or_null<LalsdFn<T>, T>("lalsd");
  return f;
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

// The next LAPACK's xBDSQR of the real type (no singular vectors here: its
// dqds, xLASQ1), or nullptr.
template <class T>
using BdsqrFn = void(const char *, const lint *, const lint *, const lint *, const lint *, Real<T> *, Real<T> *,
                     Real<T> *, const lint *, Real<T> *, const lint *, Real<T> *, const lint *, Real<T> *, lint *,
                     std::size_t);
template <class T> BdsqrFn<T> *next_bdsqr() {
  static BdsqrFn<T> *const f = next::fn_or_null<BdsqrFn<T>, Real<T>>("bdsqr");
  return f;
}

// The full-rank case of the n-by-n problem, given R's bidiagonal form
// (d in s, e): a full-rank least-squares problem has one solution, X =
// R^-1 (Q**H B)(1:n,:), whatever the route, so a triangular solve with R
// (n^2 nrhs flops) takes the place of xORMBR, xLALSD and xORMBR, and xBDSQR
// without vectors (dqds) gives S: 0.07 s on one core at n = 2048 against
// 0.18-0.20 s for the three (bench/results/gelsd-*.txt's steps). The rank
// is decided as xLALSD decides it: singular values above RCND*S(1), RCND =
// RCOND, or EPS where RCOND <= 0 or >= 1; the shortcut is taken only where
// S(n) clears that by more than the two routes' rounding of it (n*EPS*S(1))
// and twice the threshold, so its RANK is xLALSD's. False (s, e and B as
// they came) where it does not clear it, xBDSQR does not converge or X is
// not finite: the caller then runs LAPACK's route.
template <class T>
bool solve_full_rank(lint n, lint nrhs, const T *r, lint ldr, T *b, lint ldb, Real<T> *s, const Real<T> *e,
                     Real<T> rcond, lint *rank) {
  using R = Real<T>;
  auto *bdsqr = next_bdsqr<T>();
  if (!bdsqr) return false;
  std::vector<R> sv, ev, rw;
  std::vector<T> b0;
  try {
    sv.assign(s, s + n);
    ev.assign(e, e + n);
    rw.resize(std::size_t(4 * n));
    b0.resize(std::size_t(n) * std::size_t(nrhs));
  } catch (const std::bad_alloc &) {
    return false;
  }
  const lint zero = 0, one = 1;
  lint info = 0;
  bdsqr("U", &n, &zero, &zero, &zero, sv.data(), ev.data(), nullptr, &one, nullptr, &one, nullptr, &one, rw.data(),
        &info, 1);
  const R eps = std::numeric_limits<R>::epsilon() / 2;  // LAPACK's xLAMCH('Epsilon')
  const R rcnd = rcond <= 0 || rcond >= 1 ? eps : rcond;
  if (info != 0 || !(sv[std::size_t(n - 1)] > (2 * rcnd + R(n) * eps) * sv[0])) return false;
  for (lint j = 0; j < nrhs; ++j) std::copy(b + j * ldb, b + j * ldb + n, b0.begin() + j * n);
  blas::trsm('L', 'U', 'N', 'N', n, nrhs, T(1), r, ldr, b, ldb);
  if (any_nonfinite(n, nrhs, b, ldb)) {
    for (lint j = 0; j < nrhs; ++j) std::copy(b0.begin() + j * n, b0.begin() + (j + 1) * n, b + j * ldb);
    return false;
  }
  std::copy(sv.begin(), sv.end(), s);
  *rank = n;
  return true;
}

// The next LAPACK's xGEBRD (D and E real for c and z too).
template <class T>
void next_gebrd(lint n, T *a, lint lda, Real<T> *d, Real<T> *e, T *tauq, T *taup, T *work, lint lwork, lint *info) {
  using F = void(const lint *, const lint *, T *, const lint *, Real<T> *, Real<T> *, T *, T *, T *, const lint *,
                 lint *);
  static F *const f = next::fn<F, T>("gebrd");
  f(&n, &n, a, &lda, d, e, tauq, taup, work, &lwork, info);
}

// The n-by-n problem on R (its strictly lower part zero) as LAPACK's
// xGELSD solves it after its QR: xGEBRD into a copy V of R (gpu::gebrd on
// the GPU from bidiagonal_min_n or HQR_GPU_MIN_N on, else the next
// LAPACK's; R stays as it came until that has succeeded), then
// solve_full_rank, or LAPACK's xORMBR('Q', 'L', 'C'), xLALSD('U') with
// RCOND (S gets the singular values, RANK, X in B(1:n,:), INFO > 0: xLALSD
// did not converge), xORMBR('P', 'L', 'N'). WORK, RWORK and IWORK are sized
// for the next LAPACK's xGELSD of the n-by-n problem, which covers each of
// these. *on_gpu says where the bidiagonal form was made. False where it
// did not start or the GPU failed (`why` says which; `failed` true for the
// latter), A and B untouched: the next LAPACK's xGELSD then solves it.
template <class T>
bool solve_bidiagonal(lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, Real<T> *s, const Real<T> *rcond, lint *rank,
                      T *work, lint lwork, Real<T> *rwork, lint *iwork, lint *info, const char **why, bool *failed,
                      bool *on_gpu, Phases &phases) {
  *failed = false;
  if (nrhs == 0) {  // LAPACK's xLALSD answers -4 (xGELSD passes NRHS on): left to the next xGELSD
    *why = "the QR; R's SVD by the next xGELSD (NRHS = 0)";
    return false;
  }
  auto *ormbr = next_ormbr<T>();
  auto *lalsd = next_lalsd<T>();
  if (!ormbr || !lalsd) {
    *why = "the QR; R's SVD by the next xGELSD (the next LAPACK exports no xLALSD)";
    return false;
  }
  const Decision d =
      choose_fixed_path(long(n), long(bidiagonal_min_n<T>()), cpu_seconds(flops::gebrd<T>(n, n), Prec<T>::letter));
  *on_gpu = d.path == Path::gpu;
  // V: the reduction, all n-by-n of it written by gpu::gebrd or copied
  // from R, so not initialised here (0.017 s at n = 2048), and a spare
  // column of zeros: OpenBLAS 0.3.21's zgemv_n reads past the end of its
  // matrix (test_gelsd's note), and its xORMBR reads V.
  std::unique_ptr<T[]> v(new (std::nothrow) T[std::size_t(n) * std::size_t(n + 1)]);
  std::vector<T> tauq, taup;
  std::vector<Real<T>> e;
  try {
    if (!v) throw std::bad_alloc();
    std::fill(v.get() + std::size_t(n) * std::size_t(n), v.get() + std::size_t(n) * std::size_t(n + 1), T(0));
    tauq.resize(std::size_t(n));
    taup.resize(std::size_t(n));
    e.resize(std::size_t(n));
  } catch (const std::bad_alloc &) {
    *why = "the QR; R's SVD by the next xGELSD (no memory for the bidiagonal form)";
    return false;
  }
  phases.mark("allocated");
  if (*on_gpu) {
    const gpu::Result r = gpu::gebrd(n, a, lda, v.get(), n, s, e.data(), tauq.data(), taup.data());
    if (!r.ran) {
      *why = r.why;
      *failed = true;
      return false;
    }
  } else {
    for (lint j = 0; j < n; ++j) std::copy(a + j * lda, a + j * lda + n, v.get() + j * n);
    next_gebrd(n, v.get(), n, s, e.data(), tauq.data(), taup.data(), work, lwork, info);
  }
  phases.mark("bidiagonal");
  if (solve_full_rank(n, nrhs, a, lda, b, ldb, s, e.data(), *rcond, rank)) {
    phases.mark("full rank: S, R X = B");
    *info = 0;
    *why = *on_gpu ? "the QR; R's bidiagonal form on the GPU, full rank: S by xBDSQR, X by R's triangular solve"
                   : "the QR; R's bidiagonal form on the CPU, full rank: S by xBDSQR, X by R's triangular solve";
    return true;
  }
  phases.mark("S (rank below n or near it)");
  const char ct = is_complex<T> ? 'C' : 'T';
  ormbr("Q", "L", &ct, &n, &nrhs, &n, v.get(), &n, tauq.data(), b, &ldb, work, &lwork, info, 1, 1, 1);
  phases.mark("Q**H B");
  const lint sml = smlsiz();
  if constexpr (is_complex<T>)
    lalsd("U", &sml, &n, &nrhs, s, e.data(), b, &ldb, rcond, rank, work, rwork, iwork, info, 1);
  else
    lalsd("U", &sml, &n, &nrhs, s, e.data(), b, &ldb, rcond, rank, work, iwork, info, 1);
  phases.mark("xLALSD");
  if (*info == 0) ormbr("P", "L", "N", &n, &nrhs, &n, v.get(), &n, taup.data(), b, &ldb, work, &lwork, info, 1, 1, 1);
  phases.mark("P X");
  *why = *on_gpu ? "the QR; R's bidiagonal form on the GPU, its SVD by xLALSD"
                 : "the QR; R's bidiagonal form on the CPU, its SVD by xLALSD";
  return true;
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
  Trace trace(routine_name<T>("GELSD"),
              flops::geqrf<T>(M, N) + flops::ormqr<T>(true, M, NR, N) + flops::gebrd<T>(N, N));
  trace.args("m=%ld n=%ld nrhs=%ld lda=%ld ldb=%ld lwork=%ld", long(M), long(N), long(NR), long(*lda), long(*ldb),
             long(*lwork));
  const std::string routine = std::string(1, Prec<T>::letter) + "gelsd";
  Phases phases(routine.c_str());
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
  phases.mark("checked");

  // A = QR, B := Q**H B (hqr's; the path of the QR names this call's).
  const char *qr_path;
  {
    const Trace::Direct own;
    geqrf(m, n, a, lda, tau.data(), wk.data(), &lw, &qinfo);
    qr_path = Trace::last_nested_path();
    if (NR > 0) ormqr("L", &ct, m, nrhs, n, a, lda, tau.data(), b, ldb, wk.data(), &lw, &qinfo);
  }
  for (lint j = 0; j + 1 < N; ++j)  // zero below R (xLASET)
    std::fill(a + j + 1 + std::size_t(j) * *lda, a + N + std::size_t(j) * *lda, T(0));
  phases.mark("QR");

  // The n-by-n problem on R, whose singular values are A's. The call's
  // path: the QR's, "gpu-bidiagonal" where only the bidiagonal form ran on
  // the GPU, "cpu-resumed" where the GPU failed in it.
  const char *why = nullptr;
  bool failed = false;
  Real<T> *rw = is_complex<T> ? rwk.data() : nullptr;
  bool on_gpu = false;
  if (solve_bidiagonal(N, NR, a, *lda, b, *ldb, s, rcond, rank, wk.data(), lw, rw, iwk.data(), info, &why, &failed,
                       &on_gpu, phases)) {
    const bool qr_named = !on_gpu || std::strncmp(qr_path, "gpu", 3) == 0 || std::strcmp(qr_path, "cpu-resumed") == 0;
    trace.path(qr_named ? qr_path : "gpu-bidiagonal", why);
  } else {
    trace.path(failed ? "cpu-resumed" : qr_path, why);
    next_gelsd(n, n, nrhs, a, lda, b, ldb, s, rcond, rank, wk.data(), &lw, rw, iwk.data(), info);
    phases.mark("R's SVD");
  }
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
