// xQRUPD_ADDCOLS_ECON, xQRUPD_DELCOLS_ECON, xQRUPD_ADDROWS_ECON (s, d, c, z):
// the economy factors (Q M-by-N with orthonormal columns, R N-by-N) checked
// on products (qrupd_testing.hpp) against the explicitly updated matrix,
// with fresh random data every run (complex with nonzero imaginary parts):
// J at 1, inside and at the end, P = 0 and 1, M = N+P, shapes past the block
// sizes, the minimum and the queried LWORK, new columns nearly in Q's range
// and nearly dependent on each other (Q^H*Q = I still at the eps level),
// exactly degenerate ones (zero, copies, twins, Q = identity columns with U
// in their span; rank-deficient A for deleting columns and adding rows),
// the blocked passes over Q on several threads with ragged row ranges,
// storage past the factors never written, every illegal argument in order
// (M < N+P for ADDCOLS_ECON among them), LWORK = -1, and 200 alternating
// updates without drift. With HQR_GPU_MIN_N=0 on a GPU machine, adding
// columns to tall Q must end on the GPU path (kAddcolsGpu and nearly
// dependent columns, gpu_paths_*; the other shapes may decline to the CPU,
// and every answer is checked the same way).
#include "qrupd_testing.hpp"

namespace {

using namespace qrupd_testing;
using testing::lint;
using testing::Matrix;
using R = double;

// How the new columns relate to A: random, nearly in A's range (A*C plus
// noise of relative size 1e3*eps), in it up to rounding, or (P >= 2) the
// last nearly a copy of the first.
enum class Dep { none, near, exact, self };
const char *dep_name(Dep d) {
  return d == Dep::none ? "random" : d == Dep::near ? "near" : d == Dep::exact ? "in-range" : "self";
}

template <class T> Matrix<T> new_columns(const Matrix<T> &a, lint p, Dep dep) {
  Matrix<T> u = testing::random_matrix<T>(a.m, p);
  if (dep == Dep::none || a.n == 0) return u;
  const double delta = dep == Dep::exact ? 0.0 : 1e3 * testing::eps<T>();
  if (dep == Dep::self) {
    for (lint i = 0; i < a.m; ++i) u(i, p - 1) = u(i, 0) + T(delta) * testing::random_value<T>();
    return u;
  }
  const Matrix<T> c = testing::random_matrix<T>(a.n, p);
  Matrix<T> ac = testing::product(a, 'N', c, 'N');
  for (lint j = 0; j < p; ++j)
    for (lint i = 0; i < a.m; ++i) u(i, j) = ac(i, j) + T(delta) * u(i, j);
  return u;
}

// ---- one update of a random matrix --------------------------------------------

// ADDCOLS_ECON on the factors of a with the columns u0 inserted before j;
// returns R (n+p)-by-(n+p) in its storage.
// With gpu_path, the call must end on the GPU (testing::GpuPathCheck: with
// HQR_GPU_MIN_N=0 and a GPU).
template <class T>
Matrix<T> addcols_of(const Matrix<T> &a, const Matrix<T> &u0, lint j, lint pad, bool opt, const char *ctx,
                     bool gpu_path = false) {
  const lint m = a.m, n = a.n, p = u0.n;
  // Q m-by-n in (m+pad)-by-(n+p+1) storage, R n-by-n in (n+p+pad)-by-(n+p+1).
  Factors<T> f = factor(a, n, m + pad, n + p + 1, n + p + pad, n + p + 1);
  Matrix<T> u = random_storage<T>(std::max<lint>(1, m + pad), p);
  for (lint c = 0; c < p; ++c)
    for (lint i = 0; i < m; ++i) u(i, c) = u0(i, c);
  scribble_lower(f.r, n, n, 0);
  const Factors<T> f0 = f;
  auto call = [&](lint lwork, T *w) {
    return addcols_econ<T>(m, n, p, j, f.q.ptr(), f.q.ld, f.r.ptr(), f.r.ld, u.ptr(), u.ld, w, lwork);
  };
  std::vector<T> w = workspace<T>(call, opt ? Lw::opt : Lw::min, lwmin_addcols_econ(m, n, p));
  const testing::GpuPathCheck path;
  assert_int_equal(call(lint(w.size()), w.data()), 0);
  if (gpu_path) path.expect(m, m, ctx);
  check_qr(f.q, f.r, n + p, insert_cols(a, u0, j - 1), ctx);
  assert_rows_kept(f.q, f0.q, m, n + p + 1, ctx);
  assert_rows_kept(f.r, f0.r, n + p, n + p + 1, ctx);
  for (lint i = 0; i < f.q.ld; ++i) assert_true(std::memcmp(&f.q(i, n + p), &f0.q(i, n + p), sizeof(T)) == 0);
  for (lint i = 0; i < f.r.ld; ++i) assert_true(std::memcmp(&f.r(i, n + p), &f0.r(i, n + p), sizeof(T)) == 0);
  return f.r;
}

template <class T>
void run_addcols(lint m, lint n, lint p, lint j, lint pad, bool opt, Dep dep = Dep::none, bool gpu_path = false) {
  char ctx[128];
  std::snprintf(ctx, sizeof ctx, "%s m=%d n=%d p=%d j=%d pad=%d lw=%s u=%s", xname<T>("QRUPD_ADDCOLS_ECON"), int(m),
                int(n), int(p), int(j), int(pad), opt ? "opt" : "min", dep_name(dep));
  const Matrix<T> a = testing::random_matrix<T>(m, n), u0 = new_columns(a, p, dep);
  addcols_of(a, u0, j, pad, opt, ctx, gpu_path);
}

template <class T>
void delcols_of(const Matrix<T> &a, char jobq, lint p, lint j, lint pad, bool opt, const char *ctx) {
  const lint m = a.m, n = a.n;
  const bool wantq = jobq == 'U';
  Factors<T> f = factor(a, n, m + pad, n, n + pad, n);
  scribble_lower(f.r, n, n, 0);
  const Factors<T> f0 = f;
  T sentinel[2] = {T(7), T(7)};
  T *q = wantq ? f.q.ptr() : sentinel;
  const lint ldq = wantq ? f.q.ld : 1;
  auto call = [&](lint lwork, T *w) { return delcols_econ<T>(jobq, m, n, p, j, q, ldq, f.r.ptr(), f.r.ld, w, lwork); };
  std::vector<T> w = workspace<T>(call, opt ? Lw::opt : Lw::min, lwmin_delcols_econ(m, n, p));
  assert_int_equal(call(lint(w.size()), w.data()), 0);
  const Matrix<T> at = remove_cols(a, p, j - 1);
  if (wantq) {
    check_qr(f.q, f.r, n - p, at, ctx, j - 1);
  } else {
    check_r(f.r, n - p, at, ctx, j - 1);
    assert_true(sentinel[0] == T(7) && sentinel[1] == T(7));
  }
  for (lint c = 0; c < j - 1; ++c)  // columns left of J are not touched
    for (lint i = 0; i < f.r.ld; ++i) assert_true(std::memcmp(&f.r(i, c), &f0.r(i, c), sizeof(T)) == 0);
  assert_rows_kept(f.q, f0.q, wantq ? m : 0, n, ctx);
  assert_rows_kept(f.r, f0.r, n, n, ctx);
}

template <class T> void run_delcols(char jobq, lint m, lint n, lint p, lint j, lint pad, bool opt) {
  char ctx[128];
  std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=%d n=%d p=%d j=%d pad=%d lw=%s", xname<T>("QRUPD_DELCOLS_ECON"), jobq,
                int(m), int(n), int(p), int(j), int(pad), opt ? "opt" : "min");
  delcols_of(testing::random_matrix<T>(m, n), jobq, p, j, pad, opt, ctx);
}

template <class T>
void addrows_of(const Matrix<T> &a, const Matrix<T> &u0, char jobq, lint j, lint pad, const char *ctx) {
  const lint m = a.m, n = a.n, p = u0.m;
  const bool wantq = jobq == 'U';
  Factors<T> f = factor(a, n, m + p + pad, n + 1, n + pad, n);
  Matrix<T> u = random_storage<T>(std::max<lint>(1, p + pad), n);
  for (lint c = 0; c < n; ++c)
    for (lint i = 0; i < p; ++i) u(i, c) = u0(i, c);
  scribble_lower(f.r, n, n, 0);
  const Factors<T> f0 = f;
  T sentinel[2] = {T(7), T(7)};
  T *q = wantq ? f.q.ptr() : sentinel;
  const lint ldq = wantq ? f.q.ld : 1;
  auto call = [&](lint lwork, T *w) {
    return addrows_econ<T>(jobq, m, n, p, j, q, ldq, f.r.ptr(), f.r.ld, u.ptr(), u.ld, w, lwork);
  };
  std::vector<T> w = workspace<T>(call, Lw::opt, lwork_addrows_econ(wantq, m, n, p));
  assert_int_equal(lint(w.size()), lwork_addrows_econ(wantq, m, n, p));
  assert_int_equal(call(lint(w.size()), w.data()), 0);
  const Matrix<T> at = insert_rows(a, u0, j - 1);
  if (wantq) {
    check_qr(f.q, f.r, n, at, ctx);
  } else {
    check_r(f.r, n, at, ctx);
    assert_true(sentinel[0] == T(7) && sentinel[1] == T(7));
  }
  assert_rows_kept(f.q, f0.q, wantq ? m + p : 0, n + 1, ctx);
  for (lint i = 0; i < f.q.ld; ++i) assert_true(std::memcmp(&f.q(i, n), &f0.q(i, n), sizeof(T)) == 0);
  assert_rows_kept(f.r, f0.r, n, n, ctx);
}

template <class T> void run_addrows(char jobq, lint m, lint n, lint p, lint j, lint pad) {
  char ctx[128];
  std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=%d n=%d p=%d j=%d pad=%d", xname<T>("QRUPD_ADDROWS_ECON"), jobq,
                int(m), int(n), int(p), int(j), int(pad));
  addrows_of(testing::random_matrix<T>(m, n), testing::random_matrix<T>(p, n), jobq, j, pad, ctx);
}

// ---- shapes ----------------------------------------------------------------------

struct Shape {
  lint m, n, p, j;
};
struct Shape0 {
  lint m, n;
};
// J = 1, inside, N+1; P = 1, several; M = N+P; N = 0; 70 new columns (past
// 64 rotation passes); M past the 4096 rows of Q that one copy holds.
const Shape kAddcols[] = {
    {10, 5, 1, 1},  {10, 5, 1, 3},  {10, 5, 1, 6},  {10, 5, 3, 1},  {10, 5, 3, 3},  {10, 5, 3, 6},
    {8, 5, 3, 2},   {8, 5, 3, 6},   {6, 0, 3, 1},   {5, 0, 5, 1},   {1, 0, 1, 1},   {2, 1, 1, 1},
    {60, 30, 10, 15}, {200, 40, 70, 1}, {110, 40, 70, 41}, {150, 100, 5, 50}, {4200, 8, 3, 4},
};
// J = 1, inside, N-P+1; P = 1, all; N = M; more than 32 reflectors; M
// past 4096 rows.
const Shape kDelcols[] = {
    {10, 6, 1, 1}, {10, 6, 1, 6}, {10, 6, 2, 3}, {10, 6, 6, 1}, {10, 6, 3, 4}, {6, 6, 2, 2},
    {6, 6, 1, 6},  {1, 1, 1, 1},  {90, 80, 3, 2}, {90, 80, 40, 10}, {70, 70, 1, 1}, {4200, 10, 2, 3},
};
// J = 1, inside, M+1; P = 1, several, more than N; N = M; N = 0; blocks.
const Shape kAddrows[] = {
    {8, 5, 1, 1}, {8, 5, 1, 9}, {8, 5, 3, 4},   {8, 5, 3, 1},   {8, 5, 3, 9},   {5, 5, 2, 3},
    {5, 5, 7, 6}, {1, 1, 1, 1}, {0, 0, 2, 1},   {6, 0, 2, 3},   {90, 70, 40, 31}, {80, 40, 1, 81},
};

// Tall Q, random U: the GPU path's CholeskyQR2 never declines there, so
// with HQR_GPU_MIN_N=0 each call must end on the GPU (J = 1, inside, N+1;
// N = 0; P past 64; odd M; R's old columns, and on a GPU the rotations'
// product, in several blocks of lanes on two threads: N-J = 398, which
// test/valgrind.sh leaves to the ASan run with the rest of these).
const Shape kAddcolsGpu[] = {
    {3001, 40, 10, 1}, {3001, 40, 10, 17}, {3001, 40, 10, 41}, {2000, 0, 5, 1},
    {4200, 8, 3, 4},   {5003, 100, 70, 50}, {2500, 60, 1, 61}, {4001, 400, 30, 2},
};
template <class T> void addcols_shapes() {
  for (const Shape &s : kAddcols)
    for (bool opt : {false, true}) run_addcols<T>(s.m, s.n, s.p, s.j, opt ? 0 : 2, opt);
}
// Tests of their own (gpu_paths_*), so that test/valgrind.sh can leave these
// orders to the ASan run: they took most of its time under valgrind.
template <class T> void addcols_gpu_shapes() {
  for (const Shape &s : kAddcolsGpu)
    for (bool opt : {false, true}) run_addcols<T>(s.m, s.n, s.p, s.j, opt ? 0 : 3, opt, Dep::none, true);
  // New columns nearly in Q's range, in it, nearly copies of each other:
  // CholeskyQR2 declines, the CPU's block Gram-Schmidt orthogonalises them
  // and the device still applies the passes to Q (J inside and at N+1).
  for (Dep dep : {Dep::near, Dep::exact, Dep::self})
    for (lint j : {17, 41}) run_addcols<T>(3001, 40, 10, j, 0, true, dep, true);
}
template <class T> void delcols_shapes() {
  for (const Shape &s : kDelcols)
    for (char jobq : {'U', 'N'})
      for (bool opt : {false, true}) run_delcols<T>(jobq, s.m, s.n, s.p, s.j, opt ? 0 : 3, opt);
}
template <class T> void addrows_shapes() {
  for (const Shape &s : kAddrows)
    for (char jobq : {'U', 'N'})
      for (lint pad : {0, 2}) run_addrows<T>(jobq, s.m, s.n, s.p, s.j, pad);
}
// New columns nearly in Q's range, in it up to rounding, nearly copies of
// each other: Q^H*Q = I at the eps level all the same (reorthogonalized).
template <class T> void dependent() {
  for (Dep dep : {Dep::near, Dep::exact, Dep::self})
    for (bool opt : {false, true}) {
      run_addcols<T>(40, 20, 1, 7, 0, opt, dep == Dep::self ? Dep::near : dep);
      run_addcols<T>(40, 20, 5, 1, 1, opt, dep);
      run_addcols<T>(25, 20, 5, 21, 0, opt, dep);  // M = N+P
      run_addcols<T>(200, 30, 8, 12, 0, opt, dep);
    }
}

// Exactly degenerate columns (a residual against Q of exactly zero left
// Q's new column inside Q's range before the column-by-column fallback):
// a copy of a column of A, a zero column, two equal new columns, a column
// of A doubled, mixed in one block; Q = columns of the identity with new
// columns that are combinations of them (U - Q*Q^H*U exactly zero), at M =
// N+P too; deleting columns from and adding rows to rank-deficient A.
// Fresh random data everywhere else.
template <class T> Matrix<T> cols_of(lint m, std::initializer_list<std::function<T(lint)>> cols) {
  Matrix<T> u(m, lint(cols.size()));
  lint c = 0;
  for (const auto &f : cols) {
    for (lint i = 0; i < m; ++i) u(i, c) = f(i);
    ++c;
  }
  return u;
}
// Columns idx of the identity (m rows), each scaled by a random value.
template <class T> Matrix<T> unit_columns(lint m, std::initializer_list<lint> idx) {
  Matrix<T> a(m, lint(idx.size()));
  lint c = 0;
  for (lint k : idx) a(k, c++) = testing::random_value<T>();
  return a;
}

template <class T> void degenerate_addcols(bool opt) {
  char ctx[160];
  auto name = [&](const char *what, lint m, lint n, lint p, lint j) {
    std::snprintf(ctx, sizeof ctx, "%s m=%d n=%d p=%d j=%d lw=%s u=%s", xname<T>("QRUPD_ADDCOLS_ECON"), int(m), int(n),
                  int(p), int(j), opt ? "opt" : "min", what);
    return ctx;
  };
  const auto zero = [](lint) { return T(0); };
  for (const Shape0 &s : {Shape0{12, 6}, Shape0{8, 6}, Shape0{300, 40}}) {
    const lint m = s.m, n = s.n;
    const Matrix<T> a = testing::random_matrix<T>(m, n), x = testing::random_matrix<T>(m, 1);
    const auto acol = [&](lint c) { return [&a, c](lint i) { return a(i, c); }; };
    const auto xcol = [&x](lint i) { return x(i, 0); };
    const auto two_a = [&a](lint i) { return T(2) * a(i, 1); };
    for (lint j : {lint(1), n / 2, n + 1}) {
      addcols_of(a, cols_of<T>(m, {acol(2)}), j, 0, opt, name("copy of A(:,3)", m, n, 1, j));
      addcols_of(a, cols_of<T>(m, {zero}), j, 1, opt, name("zero", m, n, 1, j));
      addcols_of(a, cols_of<T>(m, {xcol, xcol}), j, 0, opt, name("twins", m, n, 2, j));
      addcols_of(a, cols_of<T>(m, {zero, acol(n - 1)}), j, 0, opt, name("zero, copy", m, n, 2, j));
    }
    if (m - n >= 4)
      for (lint j : {lint(1), lint(3), n + 1}) {
        addcols_of(a, cols_of<T>(m, {acol(0), zero, xcol, xcol}), j, 2, opt, name("copy, zero, twins", m, n, 4, j));
        addcols_of(a, cols_of<T>(m, {xcol, two_a, zero, xcol}), j, 0, opt, name("x, 2A(:,2), zero, x", m, n, 4, j));
      }
  }
  // N = 0: nothing to be orthogonal to; a zero column and twins.
  {
    const Matrix<T> a(5, 0), x = testing::random_matrix<T>(5, 1);
    const auto xcol = [&x](lint i) { return x(i, 0); };
    addcols_of(a, cols_of<T>(5, {zero, xcol, xcol}), 1, 0, opt, name("zero, twins", 5, 0, 3, 1));
  }
  // Q = columns of the identity: U - Q*Q^H*U exactly zero; R's new diagonal
  // entry exactly zero when appended.
  for (lint m : {4, 5, 9}) {
    const lint n = 3;
    const Matrix<T> a = unit_columns<T>(m, {0, 1, 2});
    for (lint j = 1; j <= n + 1; ++j) {
      const Matrix<T> u = unit_columns<T>(m, {0});
      const Matrix<T> r = addcols_of(a, u, j, 0, opt, name("e1 with Q = I(:,1:3)", m, n, 1, j));
      if (j == n + 1 && r(n, n) != T(0)) fail_msg("%s: R(%d,%d) = %g, not 0", ctx, int(n + 1), int(n + 1), double(std::abs(r(n, n))));
    }
    if (m >= 5) {
      Matrix<T> u = unit_columns<T>(m, {0, 1});  // [c1*e1, c2*e2 + c3*e3]
      u(2, 1) = testing::random_value<T>();
      for (lint j : {1, 2, 4}) addcols_of(a, u, j, 0, opt, name("in span(e1,e2,e3) x2", m, n, 2, j));
    }
    if (m >= 6) {
      Matrix<T> u = unit_columns<T>(m, {1, 1, 3});  // dependent on Q, twins in range, one new direction
      for (lint j : {1, 3, 4}) addcols_of(a, u, j, 0, opt, name("e2, e2, e4", m, n, 3, j));
      Matrix<T> v = unit_columns<T>(m, {3, 3, 0});  // twins outside Q's range, then one in it
      v(0, 1) = T(0);
      for (lint j : {1, 4}) addcols_of(a, v, j, 0, opt, name("e4, e4, e1", m, n, 3, j));
    }
  }
}

// Rank-deficient A (a zero column, two equal columns): R has zero diagonal
// entries; deleting columns and adding rows (zero rows among them) keep Q
// orthonormal.
template <class T> void degenerate_rows_cols() {
  char ctx[160];
  for (const Shape0 &s : {Shape0{12, 6}, Shape0{6, 6}, Shape0{90, 40}}) {
    const lint m = s.m, n = s.n;
    Matrix<T> a = testing::random_matrix<T>(m, n);
    for (lint i = 0; i < m; ++i) {
      a(i, 1) = T(0);
      a(i, n - 1) = a(i, 2);
    }
    for (char jobq : {'U', 'N'})
      for (lint j : {lint(1), lint(2), n - 1}) {
        std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=%d n=%d p=1 j=%d A rank-deficient", xname<T>("QRUPD_DELCOLS_ECON"),
                      jobq, int(m), int(n), int(j));
        delcols_of(a, jobq, 1, j, 0, true, ctx);
        std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=%d n=%d p=2 j=%d A rank-deficient lw=min",
                      xname<T>("QRUPD_DELCOLS_ECON"), jobq, int(m), int(n), int(j));
        delcols_of(a, jobq, 2, j, 1, false, ctx);
        for (lint p : {1, 3}) {
          Matrix<T> u = testing::random_matrix<T>(p, n);
          for (lint c = 0; c < n; ++c) u(0, c) = T(0);  // a zero row
          for (lint c = 0; c < n && p == 3; ++c) u(2, c) = a(0, c);  // a copy of A's first row
          for (lint c = 0; c < n; ++c) u(p - 1, c) = c == 1 ? T(0) : u(p - 1, c);
          std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=%d n=%d p=%d j=%d A rank-deficient, zero row",
                        xname<T>("QRUPD_ADDROWS_ECON"), jobq, int(m), int(n), int(p), int(j));
          addrows_of(a, u, jobq, j, 1, ctx);
        }
      }
  }
  // All-zero rows added to A = columns of the identity.
  const Matrix<T> a = unit_columns<T>(5, {0, 1, 2});
  for (char jobq : {'U', 'N'}) {
    std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=5 n=3 p=2 j=3 zero rows, Q = I(:,1:3)", xname<T>("QRUPD_ADDROWS_ECON"), jobq);
    addrows_of(a, Matrix<T>(2, 3), jobq, 3, 0, ctx);
  }
}

// Subnormal entries (a reflector's or a projection's vector whose largest
// entry is subnormal, which has no finite reciprocal): A = [a e1, b e1 + s
// e2, c e3, ...] with s subnormal, so that R(2,2) = |s|; deleting A's
// first column reflects [R(1,2); R(2,2)], adding the row s*[1 ... 1] and
// the column s*e_{n+1} reflect and project vectors of subnormal entries.
template <class T> void subnormal() {
  using R = testing::real_t<T>;
  const R s = std::numeric_limits<R>::denorm_min() * R(1 << 12);
  char ctx[160];
  for (lint m : {4, 9}) {
    const lint n = 3;
    Matrix<T> a = unit_columns<T>(m, {0, 1, 2});
    a(0, 1) = testing::random_value<T>();
    a(1, 1) = T(s);
    for (char jobq : {'U', 'N'}) {
      std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=%d n=3 p=1 j=1 R(2,2) subnormal", xname<T>("QRUPD_DELCOLS_ECON"),
                    jobq, int(m));
      delcols_of(a, jobq, 1, 1, 0, true, ctx);
      Matrix<T> u(1, n);
      for (lint c = 0; c < n; ++c) u(0, c) = T(s);
      std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=%d n=3 p=1 j=2 row subnormal", xname<T>("QRUPD_ADDROWS_ECON"), jobq,
                    int(m));
      addrows_of(a, u, jobq, 2, 0, ctx);
    }
    for (bool opt : {false, true})
      for (lint j : {1, 4}) {
        std::snprintf(ctx, sizeof ctx, "%s m=%d n=3 p=1 j=%d lw=%s u=s*e4, R(2,2) subnormal",
                      xname<T>("QRUPD_ADDCOLS_ECON"), int(m), int(j), opt ? "opt" : "min");
        Matrix<T> u(m, 1);
        u(3, 0) = T(s);
        addcols_of(a, u, j, 0, opt, ctx);
      }
  }
}

template <class T> void degenerate() {
  for (bool opt : {false, true}) degenerate_addcols<T>(opt);
  degenerate_rows_cols<T>();
  subnormal<T>();
}

// The same call twice on the same data (and threads) gives the same bits,
// though the threads take the passes' chunks of rows in whatever order they
// come to them: the Gram pass adds each chunk's sums in the chunks' order.
template <class T> void same_twice(lint m, lint n, lint p, lint j) {
  const Matrix<T> a = testing::random_matrix<T>(m, n), u0 = testing::random_matrix<T>(m, p);
  const Factors<T> f0 = factor(a, n, m, n + p, n + p, n + p);
  Factors<T> f[2] = {f0, f0};
  for (Factors<T> &g : f) {
    Matrix<T> u = u0;
    auto call = [&](lint lwork, T *w) {
      return addcols_econ<T>(m, n, p, j, g.q.ptr(), g.q.ld, g.r.ptr(), g.r.ld, u.ptr(), u.ld, w, lwork);
    };
    std::vector<T> w = workspace<T>(call, Lw::opt, lwmin_addcols_econ(m, n, p));
    assert_int_equal(call(lint(w.size()), w.data()), 0);
  }
  assert_true(std::memcmp(f[0].q.ptr(), f[1].q.ptr(), sizeof(T) * f[0].q.data.size()) == 0);
  assert_true(std::memcmp(f[0].r.ptr(), f[1].r.ptr(), sizeof(T) * f[0].r.data.size()) == 0);
}

// The blocked path's passes over Q's rows (src/cpu/qrupd_econ_passes.cpp)
// on 3 threads and on 2 (hqr_set_cpu_threads; a thread needs 65536
// elements of Q; the small shapes above run on one): M = 6007 (no multiple
// of the 256-row blocks or 16-row tiles, nor are the threads' ranges), P
// past the register blocks (13 = 8+4+1) and past a tile (17, 40), M = N+P,
// J at 1, inside and at the end; new columns near Q's range (the block
// Gram-Schmidt, then the rotation pass alone) and nearly dependent (the
// same); rows inserted at 1, inside and at the end (the rows' shift by
// columns). Real and complex: s and c run the same code as d and z.
template <class T> void passes() {
  hqr_set_cpu_threads(3);
  for (const Shape &s : {Shape{6007, 24, 13, 1}, Shape{6007, 30, 17, 31}, Shape{300, 283, 17, 1},
                         Shape{6007, 3, 40, 2}})
    run_addcols<T>(s.m, s.n, s.p, s.j, 0, true);
  run_addcols<T>(6007, 24, 13, 5, 0, true, Dep::near);
  run_addcols<T>(6007, 24, 13, 25, 0, true, Dep::self);
  for (const Shape &s : {Shape{6007, 80, 13, 1}, Shape{6007, 80, 13, 20}, Shape{6007, 40, 40, 1}})
    run_delcols<T>('U', s.m, s.n, s.p, s.j, 0, true);
  for (const Shape &s : {Shape{6007, 40, 7, 1}, Shape{6007, 80, 300, 3001}, Shape{6007, 24, 40, 6008}})
    run_addrows<T>('U', s.m, s.n, s.p, s.j, 0);
  hqr_set_cpu_threads(2);
  run_addcols<T>(6007, 24, 13, 12, 0, true);
  run_delcols<T>('U', 6007, 80, 13, 20, 0, true);
  run_addrows<T>('U', 6007, 80, 300, 3001, 0);
  hqr_set_cpu_threads(3);
  same_twice<T>(6007, 24, 13, 5);  // 24 chunks, their sums allocated
  same_twice<T>(6007, 3, 40, 2);   // P large beside M: one chunk per thread, sums in the scratch
  hqr_set_cpu_threads(0);
}

using C = std::complex<float>;
using Z = std::complex<double>;
void addcols_s(void **) { addcols_shapes<float>(); }
void addcols_d(void **) { addcols_shapes<double>(); }
void addcols_c(void **) { addcols_shapes<C>(); }
void addcols_z(void **) { addcols_shapes<Z>(); }
void gpu_paths_s(void **) { addcols_gpu_shapes<float>(); }
void gpu_paths_d(void **) { addcols_gpu_shapes<double>(); }
void gpu_paths_c(void **) { addcols_gpu_shapes<C>(); }
void gpu_paths_z(void **) { addcols_gpu_shapes<Z>(); }
void dependent_s(void **) { dependent<float>(); }
void dependent_d(void **) { dependent<double>(); }
void dependent_c(void **) { dependent<C>(); }
void dependent_z(void **) { dependent<Z>(); }
void degenerate_s(void **) { degenerate<float>(); }
void degenerate_d(void **) { degenerate<double>(); }
void degenerate_c(void **) { degenerate<C>(); }
void degenerate_z(void **) { degenerate<Z>(); }
void delcols_s(void **) { delcols_shapes<float>(); }
void delcols_d(void **) { delcols_shapes<double>(); }
void delcols_c(void **) { delcols_shapes<C>(); }
void delcols_z(void **) { delcols_shapes<Z>(); }
void passes_d(void **) { passes<double>(); }
void passes_z(void **) { passes<Z>(); }
void addrows_s(void **) { addrows_shapes<float>(); }
void addrows_d(void **) { addrows_shapes<double>(); }
void addrows_c(void **) { addrows_shapes<C>(); }
void addrows_z(void **) { addrows_shapes<Z>(); }

// ---- P = 0 (and N = 0 for adding rows): nothing changes ---------------------------

template <class T> void quick_returns() {
  const lint m = 6, n = 4, ld = 8;
  Matrix<T> q = random_storage<T>(ld, m + 2), r = random_storage<T>(ld, n + 2), u = random_storage<T>(ld, n);
  const Matrix<T> q0 = q, r0 = r, u0 = u;
  T w[2];
  testing::xerbla_reset();
  assert_int_equal(addcols_econ<T>(m, n, 0, 3, q.ptr(), ld, r.ptr(), ld, u.ptr(), ld, w, 1), 0);
  assert_int_equal(addcols_econ<T>(0, 0, 0, 1, q.ptr(), 1, r.ptr(), 1, u.ptr(), 1, w, 1), 0);
  assert_int_equal(delcols_econ<T>('U', m, n, 0, 5, q.ptr(), ld, r.ptr(), ld, w, 1), 0);
  assert_int_equal(delcols_econ<T>('N', m, n, 0, 1, q.ptr(), 1, r.ptr(), ld, w, 1), 0);
  assert_int_equal(addrows_econ<T>('U', m, n, 0, 7, q.ptr(), ld, r.ptr(), ld, u.ptr(), 1, w, 1), 0);
  assert_int_equal(addrows_econ<T>('N', m, 0, 3, 2, q.ptr(), 1, r.ptr(), 1, u.ptr(), 3, w, 1), 0);
  assert_int_equal(testing::xerbla_log().calls, 0);
  assert_true(testing::same_bytes(q.data, q0.data));
  assert_true(testing::same_bytes(r.data, r0.data));
  assert_true(testing::same_bytes(u.data, u0.data));
}
void quick_return_s(void **) { quick_returns<float>(); }
void quick_return_d(void **) { quick_returns<double>(); }
void quick_return_c(void **) { quick_returns<C>(); }
void quick_return_z(void **) { quick_returns<Z>(); }

// ---- illegal arguments, in LAPACK's order -------------------------------------------

template <class T> void errors() {
  Arena<T> a;
  {
    const char *name = xname<T>("QRUPD_ADDCOLS_ECON");
    auto go = [&](lint m, lint n, lint p, lint j, lint ldq, lint ldr, lint ldu, lint lw) {
      return [=, &a]() {
        return addcols_econ<T>(m, n, p, j, a.q.ptr(), ldq, a.r.ptr(), ldr, a.u.ptr(), ldu, a.w.data(), lw);
      };
    };
    const lint lw = lwmin_addcols_econ(8, 4, 2);
    expect_illegal(a, name, 1, go(-1, 4, 2, 2, 8, 6, 8, lw));
    expect_illegal(a, name, 2, go(8, -1, 2, 2, 8, 6, 8, lw));
    expect_illegal(a, name, 2, go(3, 4, 0, 2, 8, 6, 8, lw));   // N > M
    expect_illegal(a, name, 3, go(8, 4, -1, 2, 8, 6, 8, lw));
    expect_illegal(a, name, 3, go(5, 4, 2, 2, 8, 6, 8, lw));   // M < N+P
    expect_illegal(a, name, 4, go(8, 4, 2, 0, 8, 6, 8, lw));
    expect_illegal(a, name, 4, go(8, 4, 2, 6, 8, 6, 8, lw));
    expect_illegal(a, name, 6, go(8, 4, 2, 2, 7, 6, 8, lw));
    expect_illegal(a, name, 8, go(8, 4, 2, 2, 8, 5, 8, lw));   // LDR < N+P
    expect_illegal(a, name, 10, go(8, 4, 2, 2, 8, 6, 7, lw));
    expect_illegal(a, name, 12, go(8, 4, 2, 2, 8, 6, 8, lw - 1));
    expect_illegal(a, name, 1, go(-1, -1, -1, 0, 0, 0, 0, 0));  // the first one wins
  }
  {
    const char *name = xname<T>("QRUPD_DELCOLS_ECON");
    auto go = [&](char jobq, lint m, lint n, lint p, lint j, lint ldq, lint ldr, lint lw) {
      return [=, &a]() { return delcols_econ<T>(jobq, m, n, p, j, a.q.ptr(), ldq, a.r.ptr(), ldr, a.w.data(), lw); };
    };
    const lint lw = lwmin_delcols_econ(8, 4, 2);
    expect_illegal(a, name, 1, go('X', 8, 4, 2, 2, 8, 4, lw));
    expect_illegal(a, name, 2, go('U', -1, 4, 2, 2, 8, 4, lw));
    expect_illegal(a, name, 3, go('U', 8, -1, 2, 2, 8, 4, lw));
    expect_illegal(a, name, 3, go('U', 3, 4, 2, 2, 8, 4, lw));  // N > M
    expect_illegal(a, name, 4, go('U', 8, 4, -1, 2, 8, 4, lw));
    expect_illegal(a, name, 4, go('U', 8, 4, 5, 1, 8, 4, lw));
    expect_illegal(a, name, 5, go('U', 8, 4, 2, 0, 8, 4, lw));
    expect_illegal(a, name, 5, go('U', 8, 4, 2, 4, 8, 4, lw));
    expect_illegal(a, name, 7, go('U', 8, 4, 2, 2, 7, 4, lw));
    expect_illegal(a, name, 9, go('N', 8, 4, 2, 2, 1, 3, lw));
    expect_illegal(a, name, 11, go('N', 8, 4, 2, 2, 1, 4, lw - 1));
  }
  {
    const char *name = xname<T>("QRUPD_ADDROWS_ECON");
    auto go = [&](char jobq, lint m, lint n, lint p, lint j, lint ldq, lint ldr, lint ldu, lint lw) {
      return [=, &a]() {
        return addrows_econ<T>(jobq, m, n, p, j, a.q.ptr(), ldq, a.r.ptr(), ldr, a.u.ptr(), ldu, a.w.data(), lw);
      };
    };
    const lint lw = lwork_addrows_econ(true, 5, 4, 2);
    expect_illegal(a, name, 1, go('Y', 5, 4, 2, 2, 7, 4, 2, lw));
    expect_illegal(a, name, 2, go('U', -1, 4, 2, 2, 7, 4, 2, lw));
    expect_illegal(a, name, 3, go('U', 5, -1, 2, 2, 7, 4, 2, lw));
    expect_illegal(a, name, 3, go('U', 3, 4, 2, 2, 7, 4, 2, lw));  // N > M
    expect_illegal(a, name, 4, go('U', 5, 4, -1, 2, 7, 4, 2, lw));
    expect_illegal(a, name, 5, go('U', 5, 4, 2, 0, 7, 4, 2, lw));
    expect_illegal(a, name, 5, go('U', 5, 4, 2, 7, 7, 4, 2, lw));
    expect_illegal(a, name, 7, go('U', 5, 4, 2, 2, 6, 4, 2, lw));
    expect_illegal(a, name, 9, go('N', 5, 4, 2, 2, 1, 3, 2, lw));
    expect_illegal(a, name, 11, go('U', 5, 4, 2, 2, 7, 4, 1, lw));
    expect_illegal(a, name, 13, go('U', 5, 4, 2, 2, 7, 4, 2, lw - 1));
    expect_illegal(a, name, 13, go('N', 5, 4, 2, 2, 1, 4, 2, lwork_addrows_econ(false, 5, 4, 2) - 1));
  }
}
void errors_s(void **) { errors<float>(); }
void errors_d(void **) { errors<double>(); }
void errors_c(void **) { errors<C>(); }
void errors_z(void **) { errors<Z>(); }

// ---- drift: 200 alternating updates of one economy factorization --------------------
// Columns enter and leave, observations stream in; the minimum LWORK every
// other round; the products checked every 50 steps.

template <class T> void drift() {
  const lint capm = 160, capn = 40;
  auto pick = [](lint lo, lint hi) { return lo + lint(testing::rng()() % uint64_t(hi - lo + 1)); };
  lint m = 60, n = 20;
  Matrix<T> a = testing::random_matrix<T>(m, n);
  Factors<T> f = factor(a, n, capm, capn, capn, capn);
  std::vector<T> w(size_t(capm) * capn * 4 + 100000);
  for (int step = 0; step < 200; ++step) {
    const int op = step % 3;
    const bool small = step / 3 % 2 == 1;
    char ctx[80];
    std::snprintf(ctx, sizeof ctx, "econ drift %c step %d op %d m=%d n=%d", testing::prefix<T>(), step, op, int(m),
                  int(n));
    if (op == 0 && n + 1 <= capn - 4) {
      const lint p = pick(1, 4), j = pick(1, n + 1);
      Matrix<T> u = testing::random_matrix<T>(m, p, capm);
      a = insert_cols(a, u, j - 1);
      const lint lw = small ? lwmin_addcols_econ(m, n, p) : lint(w.size());
      assert_int_equal(addcols_econ<T>(m, n, p, j, f.q.ptr(), capm, f.r.ptr(), capn, u.ptr(), capm, w.data(), lw), 0);
      n += p;
    } else if (op == 1 && n > 8) {
      const lint p = pick(1, 4), j = pick(1, n - p + 1);
      a = remove_cols(a, p, j - 1);
      const lint lw = small ? lwmin_delcols_econ(m, n, p) : lint(w.size());
      assert_int_equal(delcols_econ<T>('U', m, n, p, j, f.q.ptr(), capm, f.r.ptr(), capn, w.data(), lw), 0);
      n -= p;
    } else if (op == 2 && m + 4 <= capm) {
      const lint p = pick(1, 4), j = pick(1, m + 1);
      Matrix<T> u = testing::random_matrix<T>(p, n, capn);
      a = insert_rows(a, u, j - 1);
      assert_int_equal(addrows_econ<T>('U', m, n, p, j, f.q.ptr(), capm, f.r.ptr(), capn, u.ptr(), capn, w.data(),
                                       lint(w.size())),
                       0);
      m += p;
    }
    if (step % 50 == 49) check_qr(f.q, f.r, n, a, ctx);
  }
}
void drift_d(void **) { drift<double>(); }
void drift_z(void **) { drift<Z>(); }

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(addcols_s),      cmocka_unit_test(addcols_d),      cmocka_unit_test(addcols_c),
      cmocka_unit_test(addcols_z),      cmocka_unit_test(dependent_s),    cmocka_unit_test(dependent_d),
      cmocka_unit_test(dependent_c),    cmocka_unit_test(dependent_z),    cmocka_unit_test(degenerate_s),
      cmocka_unit_test(degenerate_d),   cmocka_unit_test(degenerate_c),   cmocka_unit_test(degenerate_z),
      cmocka_unit_test(delcols_s),
      cmocka_unit_test(delcols_d),      cmocka_unit_test(delcols_c),      cmocka_unit_test(delcols_z),
      cmocka_unit_test(addrows_s),      cmocka_unit_test(addrows_d),      cmocka_unit_test(addrows_c),
      cmocka_unit_test(addrows_z),      cmocka_unit_test(passes_d),       cmocka_unit_test(passes_z),
      cmocka_unit_test(quick_return_s), cmocka_unit_test(quick_return_d),
      cmocka_unit_test(quick_return_c), cmocka_unit_test(quick_return_z), cmocka_unit_test(errors_s),
      cmocka_unit_test(errors_d),       cmocka_unit_test(errors_c),       cmocka_unit_test(errors_z),
      cmocka_unit_test(drift_d),        cmocka_unit_test(drift_z),        cmocka_unit_test(gpu_paths_s),
      cmocka_unit_test(gpu_paths_d),    cmocka_unit_test(gpu_paths_c),    cmocka_unit_test(gpu_paths_z),
  };
  return testing::run_group(tests);  // HQR_TEST_SKIP: test/valgrind.sh leaves out two groups
}
