// Shared by test_qrupd.cpp and test_qrupd_econ.cpp: hqr's QR
// updates called from templates over s, d, c, z, the factorization to start
// from (the reference LAPACK's xGEQRF and xORGQR/xUNGQR), the updated
// matrix formed explicitly, and the checks on products (never on factors):
//   ||Q*R - Ã||_1 / (||Ã||_1 * max(M,N) * eps) < 30,
//   ||Q^H*Q - I||_1 / (M * eps) < 30,  R strictly lower exactly zero,
// with JOBQ = 'N' ||R^H*R - Ã^H*Ã||_1 / (||Ã||_F^2 * max(M,N) * eps) < 30,
// the products in double precision (complex double for c, z); the path a
// call took, from its HQR_VERBOSE line (call_on_path).
#pragma once

#include <unistd.h>

#include <functional>
#include <string>

#include "testing.hpp"

namespace qrupd_testing {

using testing::lint;
using testing::lp;
using testing::Matrix;
using testing::pick;

// ---- the path a call took ---------------------------------------------------------

// hqr's stderr while f runs with HQR_VERBOSE on (f must not fail: CMocka
// would report into the capture).
inline std::string trace_of(const std::function<void()> &f) {
  std::fflush(stderr);
  FILE *tmp = std::tmpfile();
  assert_non_null(tmp);
  const int saved = dup(2);
  dup2(fileno(tmp), 2);
  hqr_set_verbose(1);
  f();
  hqr_set_verbose(0);
  dup2(saved, 2);
  close(saved);
  std::string out;
  std::rewind(tmp);
  for (int c; (c = std::fgetc(tmp)) != EOF;) out += char(c);
  std::fclose(tmp);
  // Under HQR_VERBOSE (fault-injection runs) the line also goes to the log,
  // so that the fallbacks can be counted there.
  if (std::getenv("HQR_VERBOSE")) std::fputs(out.c_str(), stderr);
  return out;
}

// Every size on the GPU (HQR_GPU_MIN_N=0 with a device): the updates that
// have a GPU path must take it.
// Not under HQR_FAULT, where the CPU rightly takes over.
inline bool gpu_forced() {
  const char *v = std::getenv("HQR_GPU_MIN_N"), *f = std::getenv("HQR_FAULT");
  return v && std::atol(v) == 0 && !(f && *f) && hqr_device() >= 0;
}

// Runs call(); when `path` is given, asserts the HQR_VERBOSE line names it.
// "cpu-update" also accepts "gpu-update" (which one runs is the cost
// model's choice); "gpu-update" is required only when gpu_forced().
inline lint call_on_path(const std::function<lint()> &call, const char *path, const char *ctx) {
  if (!path) return call();
  lint info = -99;
  const std::string line = trace_of([&] { info = call(); });
  const std::string want = std::string("path=") + path + " ";
  // With HQR_GPU_MIN_N set the GPU may take what the CPU would refactor.
  const bool gpu_ok = want == "path=cpu-update " || want == "path=gpu-update " ||
                      (want == "path=cpu-refactor " && std::getenv("HQR_GPU_MIN_N"));
  const bool found = line.find(want) != std::string::npos || (gpu_ok && line.find("path=gpu-update ") != std::string::npos) ||
                     (want == "path=gpu-update " && !gpu_forced() &&
                      (line.find("path=cpu-update ") != std::string::npos ||
                       line.find("path=cpu-refactor ") != std::string::npos));
  if (!found) fail_msg("%s: expected path=%s, HQR_VERBOSE said: %s", ctx, path, line.c_str());
  return info;
}

// ---- hqr's routines ------------------------------------------------------------

template <class T>
lint addcols(lint m, lint n, lint p, lint j, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu, T *w, lint lw) {
  lint info = -99;
  pick<T>(sqrupd_addcols_, dqrupd_addcols_, cqrupd_addcols_, zqrupd_addcols_)(
      &m, &n, &p, &j, lp(q), &ldq, lp(r), &ldr, lp(u), &ldu, lp(w), &lw, &info);
  return info;
}
template <class T>
lint delcols(char jobq, lint m, lint n, lint p, lint j, T *q, lint ldq, T *r, lint ldr, T *w, lint lw) {
  lint info = -99;
  pick<T>(sqrupd_delcols_, dqrupd_delcols_, cqrupd_delcols_, zqrupd_delcols_)(&jobq, &m, &n, &p, &j, lp(q), &ldq,
                                                                              lp(r), &ldr, lp(w), &lw, &info, 1);
  return info;
}
template <class T>
lint addrows(char jobq, lint m, lint n, lint p, lint j, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu, T *w,
             lint lw) {
  lint info = -99;
  pick<T>(sqrupd_addrows_, dqrupd_addrows_, cqrupd_addrows_, zqrupd_addrows_)(
      &jobq, &m, &n, &p, &j, lp(q), &ldq, lp(r), &ldr, lp(u), &ldu, lp(w), &lw, &info, 1);
  return info;
}
template <class T> lint delrows(lint m, lint n, lint p, lint j, T *q, lint ldq, T *r, lint ldr, T *w, lint lw) {
  lint info = -99;
  pick<T>(sqrupd_delrows_, dqrupd_delrows_, cqrupd_delrows_, zqrupd_delrows_)(&m, &n, &p, &j, lp(q), &ldq, lp(r),
                                                                              &ldr, lp(w), &lw, &info);
  return info;
}

// The economy form.
template <class T>
lint addcols_econ(lint m, lint n, lint p, lint j, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu, T *w, lint lw) {
  lint info = -99;
  pick<T>(sqrupd_addcols_econ_, dqrupd_addcols_econ_, cqrupd_addcols_econ_, zqrupd_addcols_econ_)(
      &m, &n, &p, &j, lp(q), &ldq, lp(r), &ldr, lp(u), &ldu, lp(w), &lw, &info);
  return info;
}
template <class T>
lint delcols_econ(char jobq, lint m, lint n, lint p, lint j, T *q, lint ldq, T *r, lint ldr, T *w, lint lw) {
  lint info = -99;
  pick<T>(sqrupd_delcols_econ_, dqrupd_delcols_econ_, cqrupd_delcols_econ_, zqrupd_delcols_econ_)(
      &jobq, &m, &n, &p, &j, lp(q), &ldq, lp(r), &ldr, lp(w), &lw, &info, 1);
  return info;
}
template <class T>
lint addrows_econ(char jobq, lint m, lint n, lint p, lint j, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu, T *w,
                  lint lw) {
  lint info = -99;
  pick<T>(sqrupd_addrows_econ_, dqrupd_addrows_econ_, cqrupd_addrows_econ_, zqrupd_addrows_econ_)(
      &jobq, &m, &n, &p, &j, lp(q), &ldq, lp(r), &ldr, lp(u), &ldu, lp(w), &lw, &info, 1);
  return info;
}

// The documented minimum LWORK of each routine (ABI.md section 5).
inline lint lwmin_addcols(lint m, lint n, lint p) { return p == 0 ? 1 : 2 * p + 2 * std::max<lint>(1, std::min(m, n)); }
inline lint lwmin_delcols(lint, lint, lint p) { return p == 0 ? 1 : p + 2; }
inline lint lwmin_addrows(bool wantq, lint m, lint n, lint p) {
  return p == 0 ? 1 : 2 + std::max<lint>(1, n) + (wantq ? m + p : 0);
}
inline lint lwmin_delrows(lint m, lint, lint p) { return p == 0 ? 1 : 2 * std::max<lint>(1, m); }
inline lint lwmin_addcols_econ(lint, lint n, lint p) {
  return p == 0 ? 1 : std::max<lint>(std::max<lint>(1, n * p) + p * p + 64 * p, 2 * std::max<lint>(1, n));
}
inline lint lwmin_delcols_econ(lint, lint, lint p) { return p == 0 ? 1 : p + 2; }
inline lint lwork_addrows_econ(bool wantq, lint, lint n, lint p) {
  const lint n1 = std::max<lint>(1, n), nb = std::max<lint>(1, std::min<lint>(32, n));
  return p == 0 || n == 0 ? 1 : n1 + 2 * nb * n1 + (wantq ? n1 * n1 + p * n1 : 0);
}

// ---- the factorization to start from (reference LAPACK) -------------------------

template <class T> Matrix<T> random_storage(lint ld, lint cols) {
  Matrix<T> a(ld, std::max<lint>(cols, 1), ld);
  for (auto &x : a.data) x = testing::random_value<T>();
  return a;
}

// Q (ldq-by-qcols storage, random outside the factor) with `qn` columns of
// the QR of a (qn = m: full Q; qn = n: economy), R (ldr-by-rcols) with its
// min(m,n) (full) or n (economy) rows; the strictly lower part of R zero.
template <class T> struct Factors {
  Matrix<T> q, r;
};
template <class T> Factors<T> factor(const Matrix<T> &a, lint qn, lint ldq, lint qcols, lint ldr, lint rcols) {
  Factors<T> f;
  f.q = random_storage<T>(std::max<lint>(1, ldq), qcols);
  f.r = random_storage<T>(std::max<lint>(1, ldr), rcols);
  lint m = a.m, n = a.n, k = std::min(m, n);
  const lint rrows = qn == m ? m : n;
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < rrows; ++i) f.r(i, j) = T(0);
  if (m == 0) return f;
  Matrix<T> w = a;
  std::vector<T> tau(std::max<lint>(1, k)), work(size_t(64) * std::max<lint>({1, m, n}));
  lint lwork = lint(work.size()), info = 0, lda = w.ld;
  if (n > 0) testing::geqrf<T>(m, n, w.ptr(), lda, tau.data(), work.data(), lwork, testing::Lib::ref);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i <= std::min(j, m - 1); ++i) f.r(i, j) = w(i, j);
  for (lint j = 0; j < k; ++j)
    for (lint i = 0; i < m; ++i) f.q(i, j) = w(i, j);
  if (qn > 0) info = testing::orgqr<T>(m, qn, k, f.q.ptr(), f.q.ld, tau.data(), work.data(), lwork, testing::Lib::ref);
  assert_int_equal(info, 0);
  return f;
}

// ---- the updated matrix, explicitly ---------------------------------------------

template <class T> Matrix<T> insert_cols(const Matrix<T> &a, const Matrix<T> &u, lint j0) {
  Matrix<T> b(a.m, a.n + u.n);
  for (lint j = 0; j < b.n; ++j)
    for (lint i = 0; i < a.m; ++i) b(i, j) = j < j0 ? a(i, j) : j < j0 + u.n ? u(i, j - j0) : a(i, j - u.n);
  return b;
}
template <class T> Matrix<T> remove_cols(const Matrix<T> &a, lint p, lint j0) {
  Matrix<T> b(a.m, a.n - p);
  for (lint j = 0; j < b.n; ++j)
    for (lint i = 0; i < a.m; ++i) b(i, j) = a(i, j < j0 ? j : j + p);
  return b;
}
template <class T> Matrix<T> insert_rows(const Matrix<T> &a, const Matrix<T> &u, lint j0) {
  Matrix<T> b(a.m + u.m, a.n);
  for (lint j = 0; j < b.n; ++j)
    for (lint i = 0; i < b.m; ++i) b(i, j) = i < j0 ? a(i, j) : i < j0 + u.m ? u(i - j0, j) : a(i - u.m, j);
  return b;
}
template <class T> Matrix<T> remove_rows(const Matrix<T> &a, lint p, lint j0) {
  Matrix<T> b(a.m - p, a.n);
  for (lint j = 0; j < b.n; ++j)
    for (lint i = 0; i < b.m; ++i) b(i, j) = a(i < j0 ? i : i + p, j);
  return b;
}

// ---- checks -------------------------------------------------------------------------

template <class T> using wide_t = std::conditional_t<testing::is_complex_v<T>, std::complex<double>, double>;

// The leading m-by-n block of a in double (complex double) precision.
template <class T> Matrix<wide_t<T>> widen(const Matrix<T> &a, lint m, lint n) {
  Matrix<wide_t<T>> d(m, n);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i) d(i, j) = wide_t<T>(a(i, j));
  return d;
}

// R(0:m-1, from:n-1) strictly lower part exactly zero.
template <class T> void assert_upper(const Matrix<T> &r, lint m, lint n, const char *ctx, lint from = 0) {
  for (lint j = from; j < n; ++j)
    for (lint i = j + 1; i < m; ++i)
      if (r(i, j) != T(0)) fail_msg("%s: R(%d,%d) = %g below the diagonal", ctx, int(i + 1), int(j + 1), double(std::abs(r(i, j))));
}

inline void assert_ratio_ok(double ratio, const char *what, const char *ctx) {
  if (std::getenv("HQR_TEST_RATIOS")) std::fprintf(stderr, "%s: %s %.3g\n", ctx, what, ratio);
  if (!(ratio < testing::kThreshold)) fail_msg("%s: %s ratio %.3g >= %.0f", ctx, what, ratio, testing::kThreshold);
}

// Q (at.m-by-k) times R (k-by-at.n, its upper trapezoid) against Ã, and
// Q^H*Q = I (k-by-k, scaled by M*eps); R's strictly lower part zero in
// columns from.. (k = at.m for the full form, at.n for the economy form).
template <class T>
void check_qr(const Matrix<T> &q, const Matrix<T> &r, lint k, const Matrix<T> &at, const char *ctx, lint from = 0) {
  using W = wide_t<T>;
  const lint m = at.m, n = at.n;
  const double eps = testing::eps<T>();
  assert_upper(r, k, n, ctx, from);
  if (m == 0) return;
  const Matrix<W> qd = widen(q, m, k);
  if (n > 0 && k > 0) {
    Matrix<W> d = widen(at, m, n);
    testing::subtract_product(d, qd, 'N', testing::upper_trapezoid(widen(r, k, n)), 'N');
    const double anorm = std::max(testing::norm_one(at), std::numeric_limits<double>::min());
    assert_ratio_ok(testing::norm_one(d) / (anorm * std::max(m, n) * eps), "|QR-A|", ctx);
  }
  if (k == 0) return;
  Matrix<W> o = testing::identity<W>(k);
  testing::subtract_product(o, qd, 'C', qd, 'N');
  assert_ratio_ok(testing::norm_one(o) / (m * eps), "|Q'Q-I|", ctx);
}

// JOBQ = 'N': R^H*R (R k-by-n) against Ã^H*Ã.
template <class T> void check_r(const Matrix<T> &r, lint k, const Matrix<T> &at, const char *ctx, lint from = 0) {
  using W = wide_t<T>;
  const lint m = at.m, n = at.n;
  assert_upper(r, k, n, ctx, from);
  if (m == 0 || n == 0) return;
  const Matrix<W> ad = widen(at, m, n), rd = testing::upper_trapezoid(widen(r, k, n));
  Matrix<W> d = testing::product(ad, 'C', ad, 'N');
  testing::subtract_product(d, rd, 'C', rd, 'N');
  const double fro = testing::norm_fro(ad);
  const double ratio = testing::norm_one(d) /
                       (std::max(fro * fro, std::numeric_limits<double>::min()) * std::max(m, n) * testing::eps<T>());
  assert_ratio_ok(ratio, "|R'R-A'A|", ctx);
}

// Entries `from`.. of columns 0..cols-1 of a equal to those of b (padding
// and storage past the factors: never written).
template <class T> void assert_rows_kept(const Matrix<T> &a, const Matrix<T> &b, lint from, lint cols, const char *ctx) {
  for (lint j = 0; j < cols; ++j)
    for (lint i = from; i < a.ld; ++i)
      if (std::memcmp(&a(i, j), &b(i, j), sizeof(T)) != 0) fail_msg("%s: (%d,%d) changed", ctx, int(i + 1), int(j + 1));
}

// Garbage in R's strictly lower part of columns from..n-1 (documented as not
// referenced).
template <class T> void scribble_lower(Matrix<T> &r, lint m, lint n, lint from) {
  for (lint j = from; j < n; ++j)
    for (lint i = j + 1; i < m; ++i) r(i, j) = T(1000) + testing::random_value<T>();
}

// The workspace a test gives: the documented minimum (direct kernels, one
// pass at a time), halfway to the optimum (direct kernels, batched), or the
// optimum (blocked, or refactor).
enum class Lw { min, mid, opt };
inline const char *lw_name(Lw lw) { return lw == Lw::min ? "min" : lw == Lw::mid ? "mid" : "opt"; }

// A LWORK = -1 query (it must set WORK(1) only and report nothing), then a
// workspace of the size lw names.
template <class T> std::vector<T> workspace(const std::function<lint(lint, T *)> &call, Lw lw, lint lwmin) {
  T q[2] = {T(-1), T(-7)};
  testing::xerbla_reset();
  assert_int_equal(call(-1, q), 0);
  assert_int_equal(testing::xerbla_log().calls, 0);
  assert_true(std::imag(q[0]) == 0 && q[1] == T(-7));
  const lint lwopt = testing::work_size(q[0]);
  assert_true(lwopt >= lwmin);
  return std::vector<T>(size_t(lw == Lw::opt ? lwopt : lw == Lw::mid ? lwmin + (lwopt - lwmin) / 2 : lwmin));
}

template <class T> const char *xname(const char *base) {
  static thread_local char buf[40];
  std::snprintf(buf, sizeof buf, "%s", testing::xerbla_name<T>(base).c_str());
  return buf;
}

// Storage for the illegal-argument checks: nothing may be written.
template <class T> struct Arena {
  Matrix<T> q = random_storage<T>(12, 12), r = random_storage<T>(12, 12), u = random_storage<T>(12, 12);
  std::vector<T> w = std::vector<T>(400, T(5));
  void assert_same(const Arena &o) const {
    assert_true(testing::same_bytes(q.data, o.q.data));
    assert_true(testing::same_bytes(r.data, o.r.data));
    assert_true(testing::same_bytes(u.data, o.u.data));
    assert_true(testing::same_bytes(w, o.w));
  }
};

// call() with illegal arguments: INFO = -pos, XERBLA called once with the
// routine's name and pos, nothing written.
template <class T> void expect_illegal(Arena<T> &a, const char *name, lint pos, const std::function<lint()> &call) {
  const Arena<T> before = a;
  testing::xerbla_reset();
  const lint info = call();
  if (info != -pos) fail_msg("%s: INFO %d, expected %d", name, int(info), int(-pos));
  assert_xerbla(name, pos);
  a.assert_same(before);
}

}  // namespace qrupd_testing
