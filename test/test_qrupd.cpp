// xQRUPD_ADDCOLS / DELCOLS / ADDROWS / DELROWS (s, d): the updated factors
// are checked on products against the explicitly updated matrix Ã,
//   ||Q*R - Ã||_1 / (||Ã||_1 * max(M,N) * eps) < 30,
//   ||Q^T*Q - I||_1 / (M * eps) < 30,  R strictly lower exactly zero,
// and with JOBQ = 'N' ||R^T*R - Ã^T*Ã||_1 / (||Ã||_F^2 * max(M,N) * eps) < 30
// (products in double precision). Every shape the ABI allows (J at both
// ends, P up to all, M < N, vectors, padding in every leading dimension)
// with the minimum, an intermediate and the optimal LWORK (direct, batched
// and blocked kernels), shapes past every block size, both sides of the
// update/refactor choice (checked on the HQR_VERBOSE line), quick returns,
// every illegal argument, and drift over 200 mixed updates.
#include <functional>

#include "qrupd_testing.hpp"

namespace {

using qrupd_testing::call_on_path;
using testing::lint;
using testing::Matrix;

// ---- calling hqr -------------------------------------------------------------

template <class T>
lint addcols(lint m, lint n, lint p, lint j, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu, T *w, lint lw) {
  lint info = -99;
  if constexpr (std::is_same_v<T, float>)
    sqrupd_addcols_(&m, &n, &p, &j, q, &ldq, r, &ldr, u, &ldu, w, &lw, &info);
  else
    dqrupd_addcols_(&m, &n, &p, &j, q, &ldq, r, &ldr, u, &ldu, w, &lw, &info);
  return info;
}
template <class T>
lint delcols(char jobq, lint m, lint n, lint p, lint j, T *q, lint ldq, T *r, lint ldr, T *w, lint lw) {
  lint info = -99;
  if constexpr (std::is_same_v<T, float>)
    sqrupd_delcols_(&jobq, &m, &n, &p, &j, q, &ldq, r, &ldr, w, &lw, &info, 1);
  else
    dqrupd_delcols_(&jobq, &m, &n, &p, &j, q, &ldq, r, &ldr, w, &lw, &info, 1);
  return info;
}
template <class T>
lint addrows(char jobq, lint m, lint n, lint p, lint j, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu, T *w,
             lint lw) {
  lint info = -99;
  if constexpr (std::is_same_v<T, float>)
    sqrupd_addrows_(&jobq, &m, &n, &p, &j, q, &ldq, r, &ldr, u, &ldu, w, &lw, &info, 1);
  else
    dqrupd_addrows_(&jobq, &m, &n, &p, &j, q, &ldq, r, &ldr, u, &ldu, w, &lw, &info, 1);
  return info;
}
template <class T> lint delrows(lint m, lint n, lint p, lint j, T *q, lint ldq, T *r, lint ldr, T *w, lint lw) {
  lint info = -99;
  if constexpr (std::is_same_v<T, float>)
    sqrupd_delrows_(&m, &n, &p, &j, q, &ldq, r, &ldr, w, &lw, &info);
  else
    dqrupd_delrows_(&m, &n, &p, &j, q, &ldq, r, &ldr, w, &lw, &info);
  return info;
}

// The documented minimum LWORK of each routine (src/host/qrupd.cpp).
lint lwmin_addcols(lint m, lint n, lint p) { return p == 0 ? 1 : 2 * p + 2 * std::max<lint>(1, std::min(m, n)); }
lint lwmin_delcols(lint, lint, lint p) { return p == 0 ? 1 : p + 2; }
lint lwmin_addrows(bool wantq, lint m, lint n, lint p) {
  return p == 0 ? 1 : 2 + std::max<lint>(1, n) + (wantq ? m + p : 0);
}
lint lwmin_delrows(lint m, lint, lint p) { return p == 0 ? 1 : 2 * std::max<lint>(1, m); }

template <class T> const char *xname(const char *base) {
  static thread_local char buf[32];
  std::snprintf(buf, sizeof buf, "%c%s", std::is_same_v<T, float> ? 'S' : 'D', base);
  return buf;
}

// ---- the factorization to start from (reference LAPACK) ----------------------

template <class T> struct Lapack {
  using geqrf_t = void(const lint *, const lint *, T *, const lint *, T *, T *, const lint *, lint *);
  using orgqr_t = void(const lint *, const lint *, const lint *, T *, const lint *, const T *, T *, const lint *,
                       lint *);
  static geqrf_t *geqrf() {
    return reinterpret_cast<geqrf_t *>(testing::reference_symbol(std::is_same_v<T, float> ? "sgeqrf_" : "dgeqrf_"));
  }
  static orgqr_t *orgqr() {
    return reinterpret_cast<orgqr_t *>(testing::reference_symbol(std::is_same_v<T, float> ? "sorgqr_" : "dorgqr_"));
  }
};

// Storage with room: `q` is ldq-by-qcols, `r` ldr-by-rcols, everything
// outside the factors random (padding that must survive).
template <class T> struct Factors {
  lint m = 0, n = 0;
  Matrix<T> q, r;
};

template <class T> Matrix<T> random_storage(lint ld, lint cols) {
  Matrix<T> a(ld, std::max<lint>(cols, 1), ld);
  for (auto &x : a.data) x = testing::random_value<T>();
  return a;
}

template <class T> Factors<T> factor(const Matrix<T> &a, lint ldq, lint qcols, lint ldr, lint rcols) {
  Factors<T> f;
  f.m = a.m;
  f.n = a.n;
  f.q = random_storage<T>(std::max<lint>(1, ldq), qcols);
  f.r = random_storage<T>(std::max<lint>(1, ldr), rcols);
  const lint m = a.m, n = a.n, k = std::min(m, n);
  if (m == 0) return f;
  Matrix<T> w = a;
  std::vector<T> tau(std::max<lint>(1, k)), work(size_t(64) * std::max<lint>({1, m, n}));
  lint lwork = lint(work.size()), info = 0, lda = w.ld;
  if (n > 0) Lapack<T>::geqrf()(&m, &n, w.ptr(), &lda, tau.data(), work.data(), &lwork, &info);
  assert_int_equal(info, 0);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i) f.r(i, j) = i <= j ? w(i, j) : T(0);
  for (lint j = 0; j < k; ++j)
    for (lint i = 0; i < m; ++i) f.q(i, j) = w(i, j);
  lint ld = f.q.ld;
  Lapack<T>::orgqr()(&m, &m, &k, f.q.ptr(), &ld, tau.data(), work.data(), &lwork, &info);
  assert_int_equal(info, 0);
  return f;
}

// ---- checks ---------------------------------------------------------------------

// The leading m-by-n block of a in double precision (the residuals'
// products run in double through the BLAS, so large shapes stay cheap).
template <class T> Matrix<double> widen(const Matrix<T> &a, lint m, lint n) {
  Matrix<double> d(m, n);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i) d(i, j) = double(a(i, j));
  return d;
}

// R(0:m-1, from:n-1) strictly lower part exactly zero.
template <class T> void assert_upper(const Matrix<T> &r, lint m, lint n, const char *ctx, lint from = 0) {
  for (lint j = from; j < n; ++j)
    for (lint i = j + 1; i < m; ++i)
      if (r(i, j) != T(0)) fail_msg("%s: R(%d,%d) = %g below the diagonal", ctx, i + 1, j + 1, double(r(i, j)));
}

template <class T> void assert_ratio_ok(double ratio, const char *what, const char *ctx) {
  if (std::getenv("HQR_TEST_RATIOS")) std::fprintf(stderr, "%s: %s %.3g\n", ctx, what, ratio);
  if (!(ratio < testing::kThreshold)) fail_msg("%s: %s ratio %.3g >= %.0f", ctx, what, ratio, testing::kThreshold);
}

// Q (m-by-m), R (m-by-n, its upper trapezoid) against Ã; R's strictly lower
// part must be zero in columns from.. (the others are checked by callers).
template <class T>
void check_qr(const Matrix<T> &q, const Matrix<T> &r, const Matrix<T> &at, const char *ctx, lint from = 0) {
  const lint m = at.m, n = at.n;
  const double eps = testing::eps<T>();
  assert_upper(r, m, n, ctx, from);
  if (m == 0) return;
  const Matrix<double> qd = widen(q, m, m);
  if (n > 0) {
    Matrix<double> d = widen(at, m, n);
    testing::subtract_product(d, qd, 'N', testing::upper_trapezoid(widen(r, m, n)), 'N');
    const double anorm = std::max(testing::norm_one(at), std::numeric_limits<double>::min());
    assert_ratio_ok<T>(testing::norm_one(d) / (anorm * std::max(m, n) * eps), "|QR-A|", ctx);
  }
  Matrix<double> o = testing::identity<double>(m);
  testing::subtract_product(o, qd, 'C', qd, 'N');
  assert_ratio_ok<T>(testing::norm_one(o) / (m * eps), "|Q'Q-I|", ctx);
}

// JOBQ = 'N': R^T*R against Ã^T*Ã.
template <class T> void check_r(const Matrix<T> &r, const Matrix<T> &at, const char *ctx, lint from = 0) {
  const lint m = at.m, n = at.n;
  assert_upper(r, m, n, ctx, from);
  if (m == 0 || n == 0) return;
  const Matrix<double> ad = widen(at, m, n), rd = testing::upper_trapezoid(widen(r, m, n));
  Matrix<double> d = testing::product(ad, 'C', ad, 'N');
  testing::subtract_product(d, rd, 'C', rd, 'N');
  const double fro = testing::norm_fro(ad);
  const double ratio =
      testing::norm_one(d) / (std::max(fro * fro, std::numeric_limits<double>::min()) * std::max(m, n) * testing::eps<T>());
  assert_ratio_ok<T>(ratio, "|R'R-A'A|", ctx);
}

// Columns 0..cols-1 of R below the diagonal, which a column update does not
// reference: left as they were (update) or all zero (refactoring).
template <class T> void assert_lower_kept_or_zero(const Matrix<T> &r, const Matrix<T> &r0, lint m, lint cols, const char *ctx) {
  bool kept = true, zero = true;
  for (lint j = 0; j < cols; ++j)
    for (lint i = j + 1; i < m; ++i) {
      kept = kept && std::memcmp(&r(i, j), &r0(i, j), sizeof(T)) == 0;
      zero = zero && r(i, j) == T(0);
    }
  if (!kept && !zero) fail_msg("%s: R's lower part left of J neither kept nor zeroed", ctx);
}

// Rows `from`.. of columns 0..cols-1 of a equal to those of b (padding).
template <class T> void assert_rows_kept(const Matrix<T> &a, const Matrix<T> &b, lint from, lint cols, const char *ctx) {
  for (lint j = 0; j < cols; ++j)
    for (lint i = from; i < a.ld; ++i)
      if (std::memcmp(&a(i, j), &b(i, j), sizeof(T)) != 0) fail_msg("%s: padding (%d,%d) changed", ctx, i + 1, j + 1);
}

// Garbage in R's strictly lower part of columns from..n-1, which the
// routines document as not referenced.
template <class T> void scribble_lower(Matrix<T> &r, lint m, lint n, lint from) {
  for (lint j = from; j < n; ++j)
    for (lint i = j + 1; i < m; ++i) r(i, j) = T(1000) + testing::random_value<T>();
}

// ---- explicit updates ---------------------------------------------------------

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

// The documented minimum (direct kernels, one pass at a time), halfway to
// the optimum (direct kernels, batched), the optimum (blocked, or refactor).
enum class Lw { min, mid, opt };
const char *lw_name(Lw lw) { return lw == Lw::min ? "min" : lw == Lw::mid ? "mid" : "opt"; }

template <class T> std::vector<T> workspace(std::function<lint(lint, T *)> call, Lw lw, lint lwmin) {
  // A query first (it must not touch anything but WORK(1)).
  T q = T(-1);
  testing::xerbla_reset();
  const lint info = call(-1, &q);
  assert_int_equal(info, 0);
  assert_int_equal(testing::xerbla_log().calls, 0);
  const lint lwopt = lint(q);
  assert_true(lwopt >= lwmin);
  return std::vector<T>(size_t(lw == Lw::opt ? lwopt : lw == Lw::mid ? lwmin + (lwopt - lwmin) / 2 : lwmin));
}

// ---- one update of a random matrix ----------------------------------------

template <class T> void run_addcols(lint m, lint n, lint p, lint j, lint pad, Lw lw, const char *path = nullptr) {
  char ctx[96];
  std::snprintf(ctx, sizeof ctx, "%s m=%d n=%d p=%d j=%d pad=%d lw=%s", xname<T>("QRUPD_ADDCOLS"), m, n, p, j, pad,
                lw_name(lw));
  Matrix<T> a = testing::random_matrix<T>(m, n);
  Matrix<T> u0 = testing::random_matrix<T>(m, p);
  Factors<T> f = factor(a, m + pad, m, m + pad, n + p + 1);
  Matrix<T> u = random_storage<T>(std::max<lint>(1, m + pad), p);
  for (lint c = 0; c < p; ++c)
    for (lint i = 0; i < m; ++i) u(i, c) = u0(i, c);
  scribble_lower(f.r, m, n, 0);
  const Factors<T> f0 = f;
  const Matrix<T> us = u;
  auto call = [&](lint lwork, T *w) {
    return addcols<T>(m, n, p, j, f.q.ptr(), f.q.ld, f.r.ptr(), f.r.ld, u.ptr(), u.ld, w, lwork);
  };
  std::vector<T> w = workspace<T>(call, lw, lwmin_addcols(m, n, p));
  assert_true(testing::same_bytes(f.q.data, f0.q.data) && testing::same_bytes(f.r.data, f0.r.data));
  assert_int_equal(call_on_path([&] { return call(lint(w.size()), w.data()); }, path, ctx), 0);
  check_qr(f.q, f.r, insert_cols(a, u0, j - 1), ctx, j - 1);
  assert_lower_kept_or_zero(f.r, f0.r, m, j - 1, ctx);
  assert_rows_kept(f.q, f0.q, m, m, ctx);
  assert_rows_kept(f.r, f0.r, m, n + p + 1, ctx);
  assert_rows_kept(u, us, m, p, ctx);
  for (lint i = 0; i < f.r.ld; ++i)  // the column after the new R
    assert_true(std::memcmp(&f.r(i, n + p), &f0.r(i, n + p), sizeof(T)) == 0);
}

// scale: A's entries times this (squares that underflow or overflow).
template <class T>
void run_delcols(char jobq, lint m, lint n, lint p, lint j, lint pad, Lw lw, const char *path = nullptr,
                 double scale = 1) {
  char ctx[128];
  std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=%d n=%d p=%d j=%d pad=%d lw=%s scale=%g", xname<T>("QRUPD_DELCOLS"),
                jobq, m, n, p, j, pad, lw_name(lw), scale);
  const bool wantq = jobq == 'U';
  Matrix<T> a = testing::random_matrix<T>(m, n);
  for (T &x : a.data) x *= T(scale);
  Factors<T> f = factor(a, m + pad, m, m + pad, n);
  scribble_lower(f.r, m, n, 0);
  const Factors<T> f0 = f;
  T sentinel[2] = {T(7), T(7)};
  T *q = wantq ? f.q.ptr() : sentinel;
  const lint ldq = wantq ? f.q.ld : 1;
  auto call = [&](lint lwork, T *w) { return delcols<T>(jobq, m, n, p, j, q, ldq, f.r.ptr(), f.r.ld, w, lwork); };
  std::vector<T> w = workspace<T>(call, lw, lwmin_delcols(m, n, p));
  assert_int_equal(call_on_path([&] { return call(lint(w.size()), w.data()); }, path, ctx), 0);
  const Matrix<T> at = remove_cols(a, p, j - 1);
  if (wantq)
    check_qr(f.q, f.r, at, ctx, j - 1);
  else {
    check_r(f.r, at, ctx, j - 1);
    assert_true(sentinel[0] == T(7) && sentinel[1] == T(7));
  }
  for (lint c = 0; c < j - 1; ++c)  // columns left of J are not touched at all
    for (lint i = 0; i < f.r.ld; ++i) assert_true(std::memcmp(&f.r(i, c), &f0.r(i, c), sizeof(T)) == 0);
  assert_rows_kept(f.q, f0.q, wantq ? m : 0, m, ctx);
  assert_rows_kept(f.r, f0.r, m, n, ctx);
}

template <class T>
void run_addrows(char jobq, lint m, lint n, lint p, lint j, lint pad, Lw lw, const char *path = nullptr) {
  char ctx[96];
  std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=%d n=%d p=%d j=%d pad=%d lw=%s", xname<T>("QRUPD_ADDROWS"), jobq, m, n,
                p, j, pad, lw_name(lw));
  const bool wantq = jobq == 'U';
  Matrix<T> a = testing::random_matrix<T>(m, n);
  Matrix<T> u0 = testing::random_matrix<T>(p, n);
  Factors<T> f = factor(a, m + p + pad, m + p, m + p + pad, n);
  Matrix<T> u = random_storage<T>(std::max<lint>(1, p + pad), n);
  for (lint c = 0; c < n; ++c)
    for (lint i = 0; i < p; ++i) u(i, c) = u0(i, c);
  const Factors<T> f0 = f;
  const Matrix<T> us = u;
  scribble_lower(f.r, m, n, 0);
  T sentinel[2] = {T(7), T(7)};
  T *q = wantq ? f.q.ptr() : sentinel;
  const lint ldq = wantq ? f.q.ld : 1;
  auto call = [&](lint lwork, T *w) {
    return addrows<T>(jobq, m, n, p, j, q, ldq, f.r.ptr(), f.r.ld, u.ptr(), u.ld, w, lwork);
  };
  std::vector<T> w = workspace<T>(call, lw, lwmin_addrows(wantq, m, n, p));
  assert_int_equal(call_on_path([&] { return call(lint(w.size()), w.data()); }, path, ctx), 0);
  const Matrix<T> at = insert_rows(a, u0, j - 1);
  if (wantq)
    check_qr(f.q, f.r, at, ctx);
  else {
    check_r(f.r, at, ctx);
    assert_true(sentinel[0] == T(7) && sentinel[1] == T(7));
  }
  assert_rows_kept(f.q, f0.q, wantq ? m + p : 0, m + p, ctx);
  assert_rows_kept(f.r, f0.r, m + p, n, ctx);
  assert_rows_kept(u, us, p, n, ctx);
}

template <class T> void run_delrows(lint m, lint n, lint p, lint j, lint pad, Lw lw, const char *path = nullptr) {
  char ctx[96];
  std::snprintf(ctx, sizeof ctx, "%s m=%d n=%d p=%d j=%d pad=%d lw=%s", xname<T>("QRUPD_DELROWS"), m, n, p, j, pad,
                lw_name(lw));
  Matrix<T> a = testing::random_matrix<T>(m, n);
  Factors<T> f = factor(a, m + pad, m, m + pad, n);
  const Factors<T> f0 = f;
  scribble_lower(f.r, m, n, 0);
  auto call = [&](lint lwork, T *w) { return delrows<T>(m, n, p, j, f.q.ptr(), f.q.ld, f.r.ptr(), f.r.ld, w, lwork); };
  std::vector<T> w = workspace<T>(call, lw, lwmin_delrows(m, n, p));
  assert_int_equal(call_on_path([&] { return call(lint(w.size()), w.data()); }, path, ctx), 0);
  check_qr(f.q, f.r, remove_rows(a, p, j - 1), ctx);
  assert_rows_kept(f.q, f0.q, m, m, ctx);
  assert_rows_kept(f.r, f0.r, m, n, ctx);
}

// ---- shapes ---------------------------------------------------------------------

struct Shape {
  lint m, n, p, j;
};

// J at both ends and in the middle, P = 1, several, all; M < N; vectors;
// shapes past the block sizes (32 reflectors, 64 rotation passes, windows
// of as many rotations) so that several blocks, groups and windows run;
// shapes on both sides of the update/refactor choice.
const Shape kAddcols[] = {
    {8, 5, 1, 1},     {8, 5, 1, 6},      {8, 5, 1, 3},     {8, 5, 3, 1},    {8, 5, 3, 6},     {8, 5, 3, 3},
    {10, 4, 6, 2},    {6, 5, 4, 3},      {4, 6, 2, 3},     {4, 6, 3, 7},    {4, 6, 3, 1},     {1, 1, 1, 1},
    {1, 1, 1, 2},     {1, 5, 2, 3},      {5, 1, 1, 1},     {5, 1, 1, 2},    {7, 0, 3, 1},     {6, 3, 9, 2},
    {60, 20, 5, 10},  {80, 20, 40, 5},   {50, 45, 40, 46}, {40, 60, 35, 1}, {2, 1, 1, 1},     {3, 2, 1, 2},
    {300, 200, 70, 1}, {300, 200, 70, 201}, {120, 100, 40, 50}, {200, 10, 120, 5},
};
const Shape kDelcols[] = {
    {8, 5, 1, 1},    {8, 5, 1, 5},     {8, 5, 2, 2},      {8, 5, 5, 1},     {8, 5, 3, 3},   {4, 7, 2, 1},
    {4, 7, 3, 3},    {4, 7, 7, 1},     {1, 5, 2, 2},      {5, 1, 1, 1},     {1, 1, 1, 1},   {50, 45, 3, 2},
    {60, 50, 10, 5}, {70, 60, 1, 1},   {6, 6, 2, 5},      {3, 3, 1, 2},     {300, 250, 70, 20}, {100, 150, 60, 30},
    {200, 150, 140, 3},
};
const Shape kAddrows[] = {
    {6, 4, 1, 1},    {6, 4, 1, 7},    {6, 4, 3, 3},     {6, 4, 3, 1},    {6, 4, 3, 7},     {3, 6, 2, 2},
    {3, 6, 5, 1},    {0, 4, 3, 1},    {1, 1, 1, 1},     {1, 1, 1, 2},    {1, 5, 1, 1},     {5, 1, 2, 3},
    {4, 0, 2, 2},    {50, 40, 10, 20}, {40, 50, 6, 41}, {45, 40, 40, 1}, {0, 1, 1, 1},     {2, 7, 9, 3},
    {30, 100, 40, 5}, {200, 150, 70, 100}, {0, 50, 60, 1}, {3, 50, 60, 2},
};
const Shape kDelrows[] = {
    {8, 5, 1, 1},      {8, 5, 1, 8},       {8, 5, 3, 3},     {8, 5, 8, 1},   {8, 5, 3, 6},   {4, 6, 2, 2},
    {5, 1, 2, 4},      {1, 1, 1, 1},       {1, 5, 1, 1},     {2, 5, 1, 2},   {60, 20, 40, 10}, {50, 50, 5, 46},
    {40, 60, 3, 1},    {6, 0, 2, 3},       {600, 300, 70, 100}, {300, 200, 30, 271}, {300, 200, 250, 20},
};

constexpr Lw kLws[] = {Lw::min, Lw::mid, Lw::opt};

template <class T> void addcols_shapes() {
  for (const Shape &s : kAddcols)
    for (lint pad : {0, 3})
      for (Lw lw : kLws) run_addcols<T>(s.m, s.n, s.p, s.j, pad, lw);
}
template <class T> void delcols_shapes() {
  for (const Shape &s : kDelcols)
    for (char jobq : {'U', 'N'})
      for (lint pad : {0, 2})
        for (Lw lw : kLws) run_delcols<T>(jobq, s.m, s.n, s.p, s.j, pad, lw);
}
template <class T> void addrows_shapes() {
  for (const Shape &s : kAddrows)
    for (char jobq : {'U', 'N'})
      for (lint pad : {0, 2})
        for (Lw lw : kLws) run_addrows<T>(jobq, s.m, s.n, s.p, s.j, pad, lw);
}
template <class T> void delrows_shapes() {
  for (const Shape &s : kDelrows)
    for (lint pad : {0, 3})
      for (Lw lw : kLws) run_delrows<T>(s.m, s.n, s.p, s.j, pad, lw);
}

void addcols_float(void **) { addcols_shapes<float>(); }
void addcols_double(void **) { addcols_shapes<double>(); }
void delcols_float(void **) { delcols_shapes<float>(); }
void delcols_double(void **) { delcols_shapes<double>(); }
void addrows_float(void **) { addrows_shapes<float>(); }
void addrows_double(void **) { addrows_shapes<double>(); }
void delrows_float(void **) { delrows_shapes<float>(); }
void delrows_double(void **) { delrows_shapes<double>(); }

// ---- update or refactor: both sides of the cost model -------------------------
// Refactoring wins where most of the result is new; it needs more than the
// minimum LWORK, and is never chosen without Q or for deleted columns.

template <class T> void paths() {
  run_addcols<T>(40, 30, 3, 5, 0, Lw::opt, "cpu-update");
  run_addcols<T>(40, 2, 30, 2, 0, Lw::opt, "cpu-refactor");
  run_addcols<T>(40, 2, 30, 2, 0, Lw::min, "cpu-update");
  run_delrows<T>(60, 20, 2, 5, 0, Lw::opt, "cpu-update");
  run_delrows<T>(60, 20, 40, 5, 0, Lw::opt, "cpu-refactor");
  run_delrows<T>(60, 20, 40, 5, 0, Lw::min, "cpu-update");
  run_addrows<T>('U', 40, 30, 2, 3, 0, Lw::opt, "cpu-update");
  run_addrows<T>('U', 2, 30, 40, 2, 0, Lw::opt, "cpu-refactor");
  run_addrows<T>('U', 2, 30, 40, 2, 0, Lw::mid, "cpu-update");
  run_addrows<T>('N', 2, 30, 40, 2, 0, Lw::opt, "cpu-update");
  run_delcols<T>('U', 40, 39, 38, 1, 0, Lw::opt, "cpu-update");
}

// The GPU paths (deleting columns, adding rows with and without Q, adding
// columns and deleting rows with Q) at shapes past
// their block size (32 reflectors in delcols), with reflectors
// long enough that the block works in global memory (double, P = 640), M < N,
// and padded leading dimensions; with HQR_GPU_MIN_N=0 on a GPU they must run
// there ("gpu-update"), elsewhere on the CPU. Small enough for CPU CI.
template <class T> void gpu_paths() {
  run_delcols<T>('N', 300, 260, 40, 20, 2, Lw::opt, "gpu-update");
  run_delcols<T>('U', 300, 260, 40, 20, 0, Lw::min, "gpu-update");
  run_delcols<T>('U', 200, 240, 30, 50, 3, Lw::opt, "gpu-update");
  run_delcols<T>('N', 700, 680, 640, 5, 0, Lw::opt, "gpu-update");
  // Sums of squares below the kernel's one-pass range (float and double)
  // or past overflow (float): its scaled slow path. Double stays within
  // range (1e+-150) because valgrind computes x87 code, such as OpenBLAS's
  // nrm2 kernels, in 64 bits instead of 80: at 1e-160 this case failed
  // under valgrind only (|QR-A| ratio 1.9e9; natively it passes).
  const double tiny = std::is_same_v<T, float> ? 1e-21 : 1e-150;
  run_delcols<T>('U', 300, 260, 40, 20, 0, Lw::opt, "gpu-update", tiny);
  run_delcols<T>('U', 300, 260, 40, 20, 0, Lw::opt, "gpu-update", 1 / tiny);
  run_addrows<T>('N', 260, 200, 90, 7, 1, Lw::opt, "gpu-update");
  run_addrows<T>('N', 100, 230, 70, 101, 0, Lw::min, "gpu-update");
  run_addrows<T>('N', 0, 50, 30, 1, 2, Lw::opt, "gpu-update");
  // Adding columns (full Q): J at both ends and inside, P = 1 and large,
  // rows below N+P or not (M < N+P, M < N, J past M), padding.
  run_addcols<T>(301, 200, 70, 1, 3, Lw::opt, "gpu-update");
  run_addcols<T>(301, 200, 70, 201, 0, Lw::min, "gpu-update");
  run_addcols<T>(257, 180, 1, 91, 2, Lw::opt, "gpu-update");
  run_addcols<T>(150, 100, 120, 50, 1, Lw::opt, "gpu-update");
  run_addcols<T>(90, 121, 40, 31, 0, Lw::opt, "gpu-update");
  run_addcols<T>(90, 121, 40, 100, 1, Lw::opt, "gpu-update");
  // Adding rows with Q: J at both ends and inside, P = 1 and large, M < N.
  run_addrows<T>('U', 260, 200, 90, 1, 1, Lw::opt, "gpu-update");
  run_addrows<T>('U', 260, 200, 1, 261, 0, Lw::min, "gpu-update");
  run_addrows<T>('U', 100, 230, 70, 51, 2, Lw::opt, "gpu-update");
  run_addrows<T>('U', 150, 60, 200, 75, 0, Lw::opt, "gpu-update");
  // Deleting rows: J at both ends and inside, P = 1 and large, M < N.
  run_delrows<T>(301, 200, 70, 1, 3, Lw::opt, "gpu-update");
  run_delrows<T>(301, 200, 1, 301, 0, Lw::min, "gpu-update");
  run_delrows<T>(257, 120, 100, 80, 2, Lw::opt, "gpu-update");
  run_delrows<T>(151, 200, 30, 61, 1, Lw::opt, "gpu-update");
  run_delrows<T>(200, 151, 190, 5, 0, Lw::opt, "gpu-update");
}
void gpu_paths_float(void **) { gpu_paths<float>(); }
void gpu_paths_double(void **) { gpu_paths<double>(); }
void paths_float(void **) { paths<float>(); }
void paths_double(void **) { paths<double>(); }

// ---- P = 0: nothing changes, not even R's lower part ---------------------------

template <class T> void quick_returns() {
  const lint m = 6, n = 4, ld = 8;
  Matrix<T> q = random_storage<T>(ld, m + 2), r = random_storage<T>(ld, n + 2), u = random_storage<T>(ld, n);
  const Matrix<T> q0 = q, r0 = r, u0 = u;
  T w[2];
  testing::xerbla_reset();
  assert_int_equal(addcols<T>(m, n, 0, 3, q.ptr(), ld, r.ptr(), ld, u.ptr(), ld, w, 1), 0);
  assert_int_equal(delcols<T>('U', m, n, 0, 5, q.ptr(), ld, r.ptr(), ld, w, 1), 0);
  assert_int_equal(delcols<T>('N', m, n, 0, 1, q.ptr(), 1, r.ptr(), ld, w, 1), 0);
  assert_int_equal(addrows<T>('U', m, n, 0, 7, q.ptr(), ld, r.ptr(), ld, u.ptr(), 1, w, 1), 0);
  assert_int_equal(addrows<T>('N', m, n, 0, 1, q.ptr(), 1, r.ptr(), ld, u.ptr(), 1, w, 1), 0);
  assert_int_equal(delrows<T>(m, n, 0, 7, q.ptr(), ld, r.ptr(), ld, w, 1), 0);
  assert_int_equal(delrows<T>(0, 0, 0, 1, q.ptr(), 1, r.ptr(), 1, w, 1), 0);
  assert_int_equal(addcols<T>(0, 0, 0, 1, q.ptr(), 1, r.ptr(), 1, u.ptr(), 1, w, 1), 0);
  assert_int_equal(testing::xerbla_log().calls, 0);
  assert_true(testing::same_bytes(q.data, q0.data));
  assert_true(testing::same_bytes(r.data, r0.data));
  assert_true(testing::same_bytes(u.data, u0.data));
}
void quick_return_float(void **) { quick_returns<float>(); }
void quick_return_double(void **) { quick_returns<double>(); }

// ---- illegal arguments: XERBLA with name and position, nothing written ----------

template <class T> struct Arena {
  Matrix<T> q = random_storage<T>(12, 12), r = random_storage<T>(12, 12), u = random_storage<T>(12, 12);
  std::vector<T> w = std::vector<T>(400, T(5));
  Arena snapshot() const { return *this; }
  void assert_same(const Arena &o) const {
    assert_true(testing::same_bytes(q.data, o.q.data));
    assert_true(testing::same_bytes(r.data, o.r.data));
    assert_true(testing::same_bytes(u.data, o.u.data));
    assert_true(testing::same_bytes(w, o.w));
  }
};

template <class T> void expect_illegal(Arena<T> &a, const char *name, lint pos, const std::function<lint()> &call) {
  const Arena<T> before = a;
  testing::xerbla_reset();
  const lint info = call();
  if (info != -pos) fail_msg("%s: info %d, expected %d", name, info, -pos);
  assert_xerbla(name, pos);
  a.assert_same(before);
}

template <class T> void errors_addcols() {
  Arena<T> a;
  const char *name = xname<T>("QRUPD_ADDCOLS");
  auto go = [&](lint m, lint n, lint p, lint j, lint ldq, lint ldr, lint ldu, lint lw) {
    return [=, &a]() { return addcols<T>(m, n, p, j, a.q.ptr(), ldq, a.r.ptr(), ldr, a.u.ptr(), ldu, a.w.data(), lw); };
  };
  const lint lw = lwmin_addcols(5, 3, 2);
  expect_illegal(a, name, 1, go(-1, 3, 2, 2, 5, 5, 5, lw));
  expect_illegal(a, name, 2, go(5, -1, 2, 2, 5, 5, 5, lw));
  expect_illegal(a, name, 3, go(5, 3, -1, 2, 5, 5, 5, lw));
  expect_illegal(a, name, 4, go(5, 3, 2, 0, 5, 5, 5, lw));
  expect_illegal(a, name, 4, go(5, 3, 2, 5, 5, 5, 5, lw));
  expect_illegal(a, name, 6, go(5, 3, 2, 2, 4, 5, 5, lw));
  expect_illegal(a, name, 6, go(0, 3, 2, 2, 0, 1, 1, 1));
  expect_illegal(a, name, 8, go(5, 3, 2, 2, 5, 4, 5, lw));
  expect_illegal(a, name, 10, go(5, 3, 2, 2, 5, 5, 4, lw));
  expect_illegal(a, name, 12, go(5, 3, 2, 2, 5, 5, 5, lw - 1));
  expect_illegal(a, name, 12, go(5, 3, 2, 2, 5, 5, 5, 0));
}
template <class T> void errors_delcols() {
  Arena<T> a;
  const char *name = xname<T>("QRUPD_DELCOLS");
  auto go = [&](char jobq, lint m, lint n, lint p, lint j, lint ldq, lint ldr, lint lw) {
    return [=, &a]() { return delcols<T>(jobq, m, n, p, j, a.q.ptr(), ldq, a.r.ptr(), ldr, a.w.data(), lw); };
  };
  const lint lw = lwmin_delcols(5, 4, 2);
  expect_illegal(a, name, 1, go('X', 5, 4, 2, 2, 5, 5, lw));
  expect_illegal(a, name, 2, go('U', -1, 4, 2, 2, 5, 5, lw));
  expect_illegal(a, name, 3, go('U', 5, -1, 2, 2, 5, 5, lw));
  expect_illegal(a, name, 4, go('U', 5, 4, -1, 2, 5, 5, lw));
  expect_illegal(a, name, 4, go('U', 5, 4, 5, 1, 5, 5, lw));
  expect_illegal(a, name, 5, go('U', 5, 4, 2, 0, 5, 5, lw));
  expect_illegal(a, name, 5, go('N', 5, 4, 2, 4, 1, 5, lw));
  expect_illegal(a, name, 7, go('U', 5, 4, 2, 2, 4, 5, lw));
  expect_illegal(a, name, 7, go('N', 5, 4, 2, 2, 0, 5, lw));
  expect_illegal(a, name, 9, go('N', 5, 4, 2, 2, 1, 4, lw));
  expect_illegal(a, name, 11, go('U', 5, 4, 2, 2, 5, 5, lw - 1));
}
template <class T> void errors_addrows() {
  Arena<T> a;
  const char *name = xname<T>("QRUPD_ADDROWS");
  auto go = [&](char jobq, lint m, lint n, lint p, lint j, lint ldq, lint ldr, lint ldu, lint lw) {
    return [=, &a]() {
      return addrows<T>(jobq, m, n, p, j, a.q.ptr(), ldq, a.r.ptr(), ldr, a.u.ptr(), ldu, a.w.data(), lw);
    };
  };
  const lint lw = lwmin_addrows(true, 5, 4, 2);
  expect_illegal(a, name, 1, go('Y', 5, 4, 2, 2, 7, 7, 2, lw));
  expect_illegal(a, name, 2, go('U', -1, 4, 2, 2, 7, 7, 2, lw));
  expect_illegal(a, name, 3, go('U', 5, -1, 2, 2, 7, 7, 2, lw));
  expect_illegal(a, name, 4, go('U', 5, 4, -1, 2, 7, 7, 2, lw));
  expect_illegal(a, name, 5, go('U', 5, 4, 2, 0, 7, 7, 2, lw));
  expect_illegal(a, name, 5, go('U', 5, 4, 2, 7, 7, 7, 2, lw));
  expect_illegal(a, name, 7, go('U', 5, 4, 2, 2, 6, 7, 2, lw));
  expect_illegal(a, name, 7, go('N', 5, 4, 2, 2, 0, 7, 2, lw));
  expect_illegal(a, name, 9, go('N', 5, 4, 2, 2, 1, 6, 2, lw));
  expect_illegal(a, name, 11, go('U', 5, 4, 2, 2, 7, 7, 1, lw));
  expect_illegal(a, name, 13, go('U', 5, 4, 2, 2, 7, 7, 2, lw - 1));
  expect_illegal(a, name, 13, go('N', 5, 4, 2, 2, 1, 7, 2, lwmin_addrows(false, 5, 4, 2) - 1));
}
template <class T> void errors_delrows() {
  Arena<T> a;
  const char *name = xname<T>("QRUPD_DELROWS");
  auto go = [&](lint m, lint n, lint p, lint j, lint ldq, lint ldr, lint lw) {
    return [=, &a]() { return delrows<T>(m, n, p, j, a.q.ptr(), ldq, a.r.ptr(), ldr, a.w.data(), lw); };
  };
  const lint lw = lwmin_delrows(5, 4, 2);
  expect_illegal(a, name, 1, go(-1, 4, 2, 2, 5, 5, lw));
  expect_illegal(a, name, 2, go(5, -1, 2, 2, 5, 5, lw));
  expect_illegal(a, name, 3, go(5, 4, -1, 2, 5, 5, lw));
  expect_illegal(a, name, 3, go(5, 4, 6, 1, 5, 5, lw));
  expect_illegal(a, name, 4, go(5, 4, 2, 0, 5, 5, lw));
  expect_illegal(a, name, 4, go(5, 4, 2, 5, 5, 5, lw));
  expect_illegal(a, name, 6, go(5, 4, 2, 2, 4, 5, lw));
  expect_illegal(a, name, 8, go(5, 4, 2, 2, 5, 4, lw));
  expect_illegal(a, name, 10, go(5, 4, 2, 2, 5, 5, lw - 1));
}
void errors_float(void **) {
  errors_addcols<float>();
  errors_delcols<float>();
  errors_addrows<float>();
  errors_delrows<float>();
}
void errors_double(void **) {
  errors_addcols<double>();
  errors_delcols<double>();
  errors_addrows<double>();
  errors_delrows<double>();
}

// ---- drift: 200 random updates on one factorization ----------------------------

template <class T> void drift() {
  const lint cap = 64;  // rows and columns of room
  auto pick = [](lint lo, lint hi) { return lo + lint(testing::rng()() % uint64_t(hi - lo + 1)); };
  lint m = 30, n = 20;
  Matrix<T> a = testing::random_matrix<T>(m, n);
  Factors<T> f0 = factor(a, cap, cap, cap, cap);
  Matrix<T> q = f0.q, r = f0.r;
  std::vector<T> w(size_t(cap) * cap * 8);
  for (int step = 0; step < 200; ++step) {
    const int op = step % 4;
    // Every other round of four with the minimum LWORK (direct kernels),
    // else with room for the blocked ones and refactoring.
    const bool small = step / 4 % 2 == 1;
    char ctx[80];
    std::snprintf(ctx, sizeof ctx, "drift %c step %d op %d m=%d n=%d lw=%s", std::is_same_v<T, float> ? 's' : 'd', step,
                  op, m, n, small ? "min" : "big");
    if (op == 0 && n + 1 <= 40) {  // add columns
      const lint p = pick(1, std::min<lint>(4, 40 - n)), j = pick(1, n + 1);
      Matrix<T> u = testing::random_matrix<T>(m, p, cap);
      a = insert_cols(a, u, j - 1);
      const lint lw = small ? lwmin_addcols(m, n, p) : lint(w.size());
      assert_int_equal(addcols<T>(m, n, p, j, q.ptr(), cap, r.ptr(), cap, u.ptr(), cap, w.data(), lw), 0);
      n += p;
    } else if (op == 1 && n > 8) {  // delete columns
      const lint p = pick(1, 4), j = pick(1, n - p + 1);
      a = remove_cols(a, p, j - 1);
      const lint lw = small ? lwmin_delcols(m, n, p) : lint(w.size());
      assert_int_equal(delcols<T>('u', m, n, p, j, q.ptr(), cap, r.ptr(), cap, w.data(), lw), 0);
      n -= p;
    } else if (op == 2 && m + 1 <= 50) {  // add rows
      const lint p = pick(1, std::min<lint>(4, 50 - m)), j = pick(1, m + 1);
      Matrix<T> u = testing::random_matrix<T>(p, n, cap);
      a = insert_rows(a, u, j - 1);
      const lint lw = small ? lwmin_addrows(true, m, n, p) : lint(w.size());
      assert_int_equal(addrows<T>('u', m, n, p, j, q.ptr(), cap, r.ptr(), cap, u.ptr(), cap, w.data(), lw), 0);
      m += p;
    } else if (op == 3 && m > 10) {  // delete rows
      const lint p = pick(1, 4), j = pick(1, m - p + 1);
      a = remove_rows(a, p, j - 1);
      const lint lw = small ? lwmin_delrows(m, n, p) : lint(w.size());
      assert_int_equal(delrows<T>(m, n, p, j, q.ptr(), cap, r.ptr(), cap, w.data(), lw), 0);
      m -= p;
    }
    if (step % 50 == 49) check_qr(q, r, a, ctx);
  }
}
void drift_float(void **) { drift<float>(); }
void drift_double(void **) { drift<double>(); }

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(addcols_float),      cmocka_unit_test(addcols_double),
      cmocka_unit_test(delcols_float),      cmocka_unit_test(delcols_double),
      cmocka_unit_test(addrows_float),      cmocka_unit_test(addrows_double),
      cmocka_unit_test(delrows_float),      cmocka_unit_test(delrows_double),
      cmocka_unit_test(quick_return_float), cmocka_unit_test(quick_return_double),
      cmocka_unit_test(errors_float),       cmocka_unit_test(errors_double),
      cmocka_unit_test(paths_float),        cmocka_unit_test(paths_double),
      cmocka_unit_test(gpu_paths_float),    cmocka_unit_test(gpu_paths_double),
      cmocka_unit_test(drift_float),        cmocka_unit_test(drift_double),
  };
  // HQR_TEST_FILTER=gpu_paths* runs a subset (compute-sanitizer, fault runs).
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);
  if (const char *f = std::getenv("HQR_TEST_SKIP")) cmocka_set_skip_filter(f);  // test/valgrind.sh
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
