// cQRUPD_* and zQRUPD_* (the full-Q updates, Q unitary): the updated
// factors checked on products (qrupd_testing.hpp) against the explicitly
// updated matrix, with random complex data (nonzero imaginary parts
// everywhere) fresh every run: J at both ends and inside, P = 0, P = 1,
// M = N+P, M < N, shapes past the block sizes, the minimum and the queried
// LWORK (direct and blocked kernels), the refactoring path, padding that
// must survive, every illegal argument in order, and 200 alternating
// updates without drift. The GPU paths (gpu_paths_c, gpu_paths_z) at shapes
// that take every branch of their kernels: with HQR_GPU_MIN_N=0 on a GPU
// each call must run there (HQR_VERBOSE: path=gpu-update), elsewhere on
// the CPU.
#include "qrupd_testing.hpp"

namespace {

using namespace qrupd_testing;
using testing::lint;
using testing::Matrix;

// ---- one update of a random matrix --------------------------------------------

template <class T> void run_addcols(lint m, lint n, lint p, lint j, lint pad, bool opt, const char *path = nullptr) {
  char ctx[96];
  std::snprintf(ctx, sizeof ctx, "%s m=%d n=%d p=%d j=%d pad=%d lw=%s", xname<T>("QRUPD_ADDCOLS"), int(m), int(n),
                int(p), int(j), int(pad), opt ? "opt" : "min");
  Matrix<T> a = testing::random_matrix<T>(m, n), u0 = testing::random_matrix<T>(m, p);
  Factors<T> f = factor(a, m, m + pad, m, m + pad, n + p + 1);
  Matrix<T> u = random_storage<T>(std::max<lint>(1, m + pad), p);
  for (lint c = 0; c < p; ++c)
    for (lint i = 0; i < m; ++i) u(i, c) = u0(i, c);
  scribble_lower(f.r, m, n, 0);
  const Factors<T> f0 = f;
  auto call = [&](lint lwork, T *w) {
    return addcols<T>(m, n, p, j, f.q.ptr(), f.q.ld, f.r.ptr(), f.r.ld, u.ptr(), u.ld, w, lwork);
  };
  std::vector<T> w = workspace<T>(call, opt, lwmin_addcols(m, n, p));
  assert_int_equal(call_on_path([&] { return call(lint(w.size()), w.data()); }, path, ctx), 0);
  check_qr(f.q, f.r, m, insert_cols(a, u0, j - 1), ctx, j - 1);
  assert_rows_kept(f.q, f0.q, m, m, ctx);
  assert_rows_kept(f.r, f0.r, m, n + p + 1, ctx);
  for (lint i = 0; i < f.r.ld; ++i)  // the column after the new R
    assert_true(std::memcmp(&f.r(i, n + p), &f0.r(i, n + p), sizeof(T)) == 0);
}

// scale: A's entries times this (squares that underflow or overflow).
template <class T>
void run_delcols(char jobq, lint m, lint n, lint p, lint j, lint pad, bool opt, const char *path = nullptr,
                 double scale = 1) {
  char ctx[128];
  std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=%d n=%d p=%d j=%d pad=%d lw=%s scale=%g", xname<T>("QRUPD_DELCOLS"),
                jobq, int(m), int(n), int(p), int(j), int(pad), opt ? "opt" : "min", scale);
  const bool wantq = jobq == 'U';
  Matrix<T> a = testing::random_matrix<T>(m, n);
  for (T &x : a.data) x *= testing::real_t<T>(scale);
  Factors<T> f = factor(a, m, m + pad, m, m + pad, n);
  scribble_lower(f.r, m, n, 0);
  const Factors<T> f0 = f;
  T sentinel[2] = {T(7), T(7)};
  T *q = wantq ? f.q.ptr() : sentinel;
  const lint ldq = wantq ? f.q.ld : 1;
  auto call = [&](lint lwork, T *w) { return delcols<T>(jobq, m, n, p, j, q, ldq, f.r.ptr(), f.r.ld, w, lwork); };
  std::vector<T> w = workspace<T>(call, opt, lwmin_delcols(m, n, p));
  assert_int_equal(call_on_path([&] { return call(lint(w.size()), w.data()); }, path, ctx), 0);
  const Matrix<T> at = remove_cols(a, p, j - 1);
  if (wantq) {
    check_qr(f.q, f.r, m, at, ctx, j - 1);
  } else {
    check_r(f.r, m, at, ctx, j - 1);
    assert_true(sentinel[0] == T(7) && sentinel[1] == T(7));
  }
  for (lint c = 0; c < j - 1; ++c)  // columns left of J are not touched at all
    for (lint i = 0; i < f.r.ld; ++i) assert_true(std::memcmp(&f.r(i, c), &f0.r(i, c), sizeof(T)) == 0);
  assert_rows_kept(f.q, f0.q, wantq ? m : 0, m, ctx);
  assert_rows_kept(f.r, f0.r, m, n, ctx);
}

template <class T>
void run_addrows(char jobq, lint m, lint n, lint p, lint j, lint pad, bool opt, const char *path = nullptr) {
  char ctx[96];
  std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=%d n=%d p=%d j=%d pad=%d lw=%s", xname<T>("QRUPD_ADDROWS"), jobq,
                int(m), int(n), int(p), int(j), int(pad), opt ? "opt" : "min");
  const bool wantq = jobq == 'U';
  Matrix<T> a = testing::random_matrix<T>(m, n), u0 = testing::random_matrix<T>(p, n);
  Factors<T> f = factor(a, m, m + p + pad, m + p, m + p + pad, n);
  Matrix<T> u = random_storage<T>(std::max<lint>(1, p + pad), n);
  for (lint c = 0; c < n; ++c)
    for (lint i = 0; i < p; ++i) u(i, c) = u0(i, c);
  scribble_lower(f.r, m, n, 0);
  const Factors<T> f0 = f;
  T sentinel[2] = {T(7), T(7)};
  T *q = wantq ? f.q.ptr() : sentinel;
  const lint ldq = wantq ? f.q.ld : 1;
  auto call = [&](lint lwork, T *w) {
    return addrows<T>(jobq, m, n, p, j, q, ldq, f.r.ptr(), f.r.ld, u.ptr(), u.ld, w, lwork);
  };
  std::vector<T> w = workspace<T>(call, opt, lwmin_addrows(wantq, m, n, p));
  assert_int_equal(call_on_path([&] { return call(lint(w.size()), w.data()); }, path, ctx), 0);
  const Matrix<T> at = insert_rows(a, u0, j - 1);
  if (wantq) {
    check_qr(f.q, f.r, m + p, at, ctx);
  } else {
    check_r(f.r, m + p, at, ctx);
    assert_true(sentinel[0] == T(7) && sentinel[1] == T(7));
  }
  assert_rows_kept(f.q, f0.q, wantq ? m + p : 0, m + p, ctx);
  assert_rows_kept(f.r, f0.r, m + p, n, ctx);
}

template <class T> void run_delrows(lint m, lint n, lint p, lint j, lint pad, bool opt, const char *path = nullptr) {
  char ctx[96];
  std::snprintf(ctx, sizeof ctx, "%s m=%d n=%d p=%d j=%d pad=%d lw=%s", xname<T>("QRUPD_DELROWS"), int(m), int(n),
                int(p), int(j), int(pad), opt ? "opt" : "min");
  Matrix<T> a = testing::random_matrix<T>(m, n);
  Factors<T> f = factor(a, m, m + pad, m, m + pad, n);
  scribble_lower(f.r, m, n, 0);
  const Factors<T> f0 = f;
  auto call = [&](lint lwork, T *w) { return delrows<T>(m, n, p, j, f.q.ptr(), f.q.ld, f.r.ptr(), f.r.ld, w, lwork); };
  std::vector<T> w = workspace<T>(call, opt, lwmin_delrows(m, n, p));
  assert_int_equal(call_on_path([&] { return call(lint(w.size()), w.data()); }, path, ctx), 0);
  check_qr(f.q, f.r, m - p, remove_rows(a, p, j - 1), ctx);
  assert_rows_kept(f.q, f0.q, m, m, ctx);
  assert_rows_kept(f.r, f0.r, m, n, ctx);
}

// ---- shapes ----------------------------------------------------------------------

struct Shape {
  lint m, n, p, j;
};
// J = 1, inside, N+1 (M+1 for rows); P = 1, several, all; M = N+P; M < N;
// vectors; shapes past 32 reflectors and 64 rotation passes (blocks,
// windows); the refactoring side of the cost model (narrow A, many new
// columns; many deleted rows; rows added to an almost empty A).
const Shape kAddcols[] = {
    {8, 5, 1, 1},   {8, 5, 1, 3},   {8, 5, 1, 6},    {8, 5, 3, 1},    {8, 5, 3, 3},     {8, 5, 3, 6},
    {8, 5, 3, 4},   {6, 5, 4, 3},   {4, 6, 3, 7},    {4, 6, 2, 3},    {1, 1, 1, 2},     {5, 1, 1, 1},
    {7, 0, 3, 1},   {6, 3, 9, 2},   {80, 20, 40, 5}, {50, 45, 40, 46}, {40, 2, 30, 2},  {140, 70, 70, 71},
};
const Shape kDelcols[] = {
    {8, 5, 1, 1}, {8, 5, 1, 5}, {8, 5, 2, 2}, {8, 5, 5, 1}, {4, 7, 3, 3}, {4, 7, 7, 1},
    {1, 5, 2, 2}, {5, 1, 1, 1}, {6, 6, 2, 5}, {60, 50, 10, 5}, {100, 90, 40, 2},
};
const Shape kAddrows[] = {
    {6, 4, 1, 1},   {6, 4, 1, 7},    {6, 4, 3, 3},     {6, 4, 3, 1},    {3, 6, 2, 2},    {3, 6, 5, 1},
    {0, 4, 3, 1},   {1, 1, 1, 2},    {5, 1, 2, 3},     {4, 0, 2, 2},    {50, 40, 10, 20}, {40, 50, 6, 41},
    {2, 30, 40, 2}, {80, 70, 40, 1},
};
const Shape kDelrows[] = {
    {8, 5, 1, 1},  {8, 5, 1, 8},     {8, 5, 3, 3},      {8, 5, 8, 1},    {4, 6, 2, 2}, {5, 1, 2, 4},
    {2, 5, 1, 2},  {60, 20, 40, 10}, {50, 50, 5, 46},   {6, 0, 2, 3},    {140, 70, 70, 30},
};

template <class T> void addcols_shapes() {
  for (const Shape &s : kAddcols)
    for (lint pad : {0, 2})
      for (bool opt : {false, true}) run_addcols<T>(s.m, s.n, s.p, s.j, pad, opt);
}
template <class T> void delcols_shapes() {
  for (const Shape &s : kDelcols)
    for (char jobq : {'U', 'N'})
      for (bool opt : {false, true}) run_delcols<T>(jobq, s.m, s.n, s.p, s.j, opt ? 0 : 2, opt);
}
template <class T> void addrows_shapes() {
  for (const Shape &s : kAddrows)
    for (char jobq : {'U', 'N'})
      for (bool opt : {false, true}) run_addrows<T>(jobq, s.m, s.n, s.p, s.j, opt ? 0 : 2, opt);
}
template <class T> void delrows_shapes() {
  for (const Shape &s : kDelrows)
    for (lint pad : {0, 3})
      for (bool opt : {false, true}) run_delrows<T>(s.m, s.n, s.p, s.j, pad, opt);
}
using C = std::complex<float>;
using Z = std::complex<double>;
void addcols_c(void **) { addcols_shapes<C>(); }
void addcols_z(void **) { addcols_shapes<Z>(); }
void delcols_c(void **) { delcols_shapes<C>(); }
void delcols_z(void **) { delcols_shapes<Z>(); }
void addrows_c(void **) { addrows_shapes<C>(); }
void addrows_z(void **) { addrows_shapes<Z>(); }
void delrows_c(void **) { delrows_shapes<C>(); }
void delrows_z(void **) { delrows_shapes<Z>(); }

// ---- HQR_VERBOSE: the path taken -----------------------------------------------------
// Both sides of the update-or-refactor choice, the same as for s and d
// (test_qrupd.cpp's paths); under HQR_GPU_MIN_N the GPU may take either.

template <class T> void paths() {
  run_addcols<T>(40, 30, 3, 5, 0, true, "cpu-update");
  run_addcols<T>(40, 2, 30, 2, 0, true, "cpu-refactor");
  run_addcols<T>(40, 2, 30, 2, 0, false, "cpu-update");
  run_delrows<T>(60, 20, 2, 5, 0, true, "cpu-update");
  run_delrows<T>(60, 20, 40, 5, 0, true, "cpu-refactor");
  run_delrows<T>(60, 20, 40, 5, 0, false, "cpu-update");
  run_addrows<T>('U', 40, 30, 2, 3, 0, true, "cpu-update");
  run_addrows<T>('U', 2, 30, 40, 2, 0, true, "cpu-refactor");
  run_addrows<T>('N', 2, 30, 40, 2, 0, true, "cpu-update");
  run_delcols<T>('U', 40, 39, 38, 1, 0, true, "cpu-update");
}
void paths_c(void **) { paths<C>(); }
void paths_z(void **) { paths<Z>(); }

// ---- the GPU paths ------------------------------------------------------------------
// Every GPU update (deleting columns, adding rows with and without Q,
// adding columns and deleting rows) at shapes that take each branch: delcols'
// band kernel (band_qr, blocks of 32 reflectors) over several blocks, with
// P = 1, P past the block size, and P = 640, where the panel works in
// global memory (complex: past 320 rows in z, 640 in c), sums of squares
// below its one-pass range and (c) past overflow; J at 1, inside and at
// the end (N+1 or M+1); M < N; odd orders; padded leading dimensions
// (LDQ, LDR, LDU > M). With HQR_GPU_MIN_N=0 on a GPU each must run there;
// under HQR_FAULT the CPU takes over and the results must still hold.
template <class T> void gpu_paths() {
  const bool opt = true, min = false;
  run_delcols<T>('N', 300, 260, 40, 20, 2, opt, "gpu-update");
  run_delcols<T>('U', 300, 260, 40, 20, 0, min, "gpu-update");
  run_delcols<T>('U', 200, 240, 30, 50, 3, opt, "gpu-update");
  run_delcols<T>('U', 257, 201, 1, 1, 1, opt, "gpu-update");
  run_delcols<T>('N', 131, 129, 33, 90, 0, opt, "gpu-update");
  run_delcols<T>('N', 700, 680, 640, 5, 0, opt, "gpu-update");
  run_delcols<T>('U', 400, 380, 330, 3, 1, opt, "gpu-update");
  const double tiny = std::is_same_v<T, C> ? 1e-21 : 1e-150;
  run_delcols<T>('U', 300, 260, 40, 20, 0, opt, "gpu-update", tiny);
  run_delcols<T>('U', 300, 260, 40, 20, 0, opt, "gpu-update", 1 / tiny);
  run_addrows<T>('N', 260, 200, 90, 7, 1, opt, "gpu-update");
  run_addrows<T>('N', 100, 230, 70, 101, 0, min, "gpu-update");
  run_addrows<T>('N', 0, 50, 30, 1, 2, opt, "gpu-update");
  run_addrows<T>('N', 151, 97, 1, 77, 0, opt, "gpu-update");
  run_addcols<T>(301, 200, 70, 1, 3, opt, "gpu-update");
  run_addcols<T>(301, 200, 70, 201, 0, min, "gpu-update");
  run_addcols<T>(257, 180, 1, 91, 2, opt, "gpu-update");
  run_addcols<T>(150, 100, 120, 50, 1, opt, "gpu-update");
  run_addcols<T>(90, 121, 40, 31, 0, opt, "gpu-update");
  run_addcols<T>(90, 121, 40, 100, 1, opt, "gpu-update");
  run_addrows<T>('U', 260, 200, 90, 1, 1, opt, "gpu-update");
  run_addrows<T>('U', 260, 200, 1, 261, 0, min, "gpu-update");
  run_addrows<T>('U', 100, 230, 70, 51, 2, opt, "gpu-update");
  run_addrows<T>('U', 150, 60, 200, 75, 0, opt, "gpu-update");
  run_delrows<T>(301, 200, 70, 1, 3, opt, "gpu-update");
  run_delrows<T>(301, 200, 1, 301, 0, min, "gpu-update");
  run_delrows<T>(257, 120, 100, 80, 2, opt, "gpu-update");
  run_delrows<T>(151, 200, 30, 61, 1, opt, "gpu-update");
  run_delrows<T>(200, 151, 190, 5, 0, opt, "gpu-update");
}
void gpu_paths_c(void **) { gpu_paths<C>(); }
void gpu_paths_z(void **) { gpu_paths<Z>(); }

// ---- P = 0: nothing changes -----------------------------------------------------------

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
  assert_int_equal(addcols<T>(0, 0, 0, 1, q.ptr(), 1, r.ptr(), 1, u.ptr(), 1, w, 1), 0);
  assert_int_equal(testing::xerbla_log().calls, 0);
  assert_true(testing::same_bytes(q.data, q0.data));
  assert_true(testing::same_bytes(r.data, r0.data));
  assert_true(testing::same_bytes(u.data, u0.data));
}
void quick_return_c(void **) { quick_returns<C>(); }
void quick_return_z(void **) { quick_returns<Z>(); }

// ---- illegal arguments, in LAPACK's order ------------------------------------------

template <class T> void errors() {
  Arena<T> a;
  {
    const char *name = xname<T>("QRUPD_ADDCOLS");
    auto go = [&](lint m, lint n, lint p, lint j, lint ldq, lint ldr, lint ldu, lint lw) {
      return [=, &a]() {
        return addcols<T>(m, n, p, j, a.q.ptr(), ldq, a.r.ptr(), ldr, a.u.ptr(), ldu, a.w.data(), lw);
      };
    };
    const lint lw = lwmin_addcols(5, 4, 2);
    expect_illegal(a, name, 1, go(-1, 4, 2, 2, 5, 5, 5, lw));
    expect_illegal(a, name, 2, go(5, -1, 2, 2, 5, 5, 5, lw));
    expect_illegal(a, name, 3, go(5, 4, -1, 2, 5, 5, 5, lw));
    expect_illegal(a, name, 4, go(5, 4, 2, 0, 5, 5, 5, lw));
    expect_illegal(a, name, 4, go(5, 4, 2, 6, 5, 5, 5, lw));
    expect_illegal(a, name, 6, go(5, 4, 2, 2, 4, 5, 5, lw));
    expect_illegal(a, name, 8, go(5, 4, 2, 2, 5, 4, 5, lw));
    expect_illegal(a, name, 10, go(5, 4, 2, 2, 5, 5, 4, lw));
    expect_illegal(a, name, 12, go(5, 4, 2, 2, 5, 5, 5, lw - 1));
    expect_illegal(a, name, 1, go(-1, -1, -1, 0, 0, 0, 0, 0));  // the first one wins
  }
  {
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
    expect_illegal(a, name, 5, go('U', 5, 4, 2, 4, 5, 5, lw));
    expect_illegal(a, name, 7, go('U', 5, 4, 2, 2, 4, 5, lw));
    expect_illegal(a, name, 9, go('N', 5, 4, 2, 2, 1, 4, lw));
    expect_illegal(a, name, 11, go('N', 5, 4, 2, 2, 1, 5, lw - 1));
  }
  {
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
    expect_illegal(a, name, 9, go('N', 5, 4, 2, 2, 1, 6, 2, lw));
    expect_illegal(a, name, 11, go('U', 5, 4, 2, 2, 7, 7, 1, lw));
    expect_illegal(a, name, 13, go('U', 5, 4, 2, 2, 7, 7, 2, lw - 1));
  }
  {
    const char *name = xname<T>("QRUPD_DELROWS");
    auto go = [&](lint m, lint n, lint p, lint j, lint ldq, lint ldr, lint lw) {
      return [=, &a]() { return delrows<T>(m, n, p, j, a.q.ptr(), ldq, a.r.ptr(), ldr, a.w.data(), lw); };
    };
    const lint lw = lwmin_delrows(5, 4, 2);
    expect_illegal(a, name, 1, go(-1, 4, 2, 2, 5, 5, lw));
    expect_illegal(a, name, 2, go(5, -1, 2, 2, 5, 5, lw));
    expect_illegal(a, name, 3, go(5, 4, 6, 1, 5, 5, lw));
    expect_illegal(a, name, 4, go(5, 4, 2, 5, 5, 5, lw));
    expect_illegal(a, name, 6, go(5, 4, 2, 2, 4, 5, lw));
    expect_illegal(a, name, 8, go(5, 4, 2, 2, 5, 4, lw));
    expect_illegal(a, name, 10, go(5, 4, 2, 2, 5, 5, lw - 1));
  }
}
void errors_c(void **) { errors<C>(); }
void errors_z(void **) { errors<Z>(); }

// ---- drift: 200 alternating updates on one factorization ------------------------------

template <class T> void drift() {
  const lint cap = 64;  // rows and columns of room
  auto pick = [](lint lo, lint hi) { return lo + lint(testing::rng()() % uint64_t(hi - lo + 1)); };
  lint m = 30, n = 20;
  Matrix<T> a = testing::random_matrix<T>(m, n);
  Factors<T> f = factor(a, m, cap, cap, cap, cap);
  std::vector<T> w(size_t(cap) * cap * 8);
  for (int step = 0; step < 200; ++step) {
    const int op = step % 4;
    const bool small = step / 4 % 2 == 1;  // minimum LWORK every other round
    char ctx[80];
    std::snprintf(ctx, sizeof ctx, "drift %c step %d op %d m=%d n=%d", testing::prefix<T>(), step, op, int(m), int(n));
    if (op == 0 && n + 1 <= 40) {
      const lint p = pick(1, std::min<lint>(4, 40 - n)), j = pick(1, n + 1);
      Matrix<T> u = testing::random_matrix<T>(m, p, cap);
      a = insert_cols(a, u, j - 1);
      const lint lw = small ? lwmin_addcols(m, n, p) : lint(w.size());
      assert_int_equal(addcols<T>(m, n, p, j, f.q.ptr(), cap, f.r.ptr(), cap, u.ptr(), cap, w.data(), lw), 0);
      n += p;
    } else if (op == 1 && n > 8) {
      const lint p = pick(1, 4), j = pick(1, n - p + 1);
      a = remove_cols(a, p, j - 1);
      const lint lw = small ? lwmin_delcols(m, n, p) : lint(w.size());
      assert_int_equal(delcols<T>('U', m, n, p, j, f.q.ptr(), cap, f.r.ptr(), cap, w.data(), lw), 0);
      n -= p;
    } else if (op == 2 && m + 1 <= 50) {
      const lint p = pick(1, std::min<lint>(4, 50 - m)), j = pick(1, m + 1);
      Matrix<T> u = testing::random_matrix<T>(p, n, cap);
      a = insert_rows(a, u, j - 1);
      const lint lw = small ? lwmin_addrows(true, m, n, p) : lint(w.size());
      assert_int_equal(addrows<T>('U', m, n, p, j, f.q.ptr(), cap, f.r.ptr(), cap, u.ptr(), cap, w.data(), lw), 0);
      m += p;
    } else if (op == 3 && m > 10) {
      const lint p = pick(1, 4), j = pick(1, m - p + 1);
      a = remove_rows(a, p, j - 1);
      const lint lw = small ? lwmin_delrows(m, n, p) : lint(w.size());
      assert_int_equal(delrows<T>(m, n, p, j, f.q.ptr(), cap, f.r.ptr(), cap, w.data(), lw), 0);
      m -= p;
    }
    if (step % 50 == 49) check_qr(f.q, f.r, m, a, ctx);
  }
}
void drift_c(void **) { drift<C>(); }
void drift_z(void **) { drift<Z>(); }

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(addcols_c),      cmocka_unit_test(addcols_z),      cmocka_unit_test(delcols_c),
      cmocka_unit_test(delcols_z),      cmocka_unit_test(addrows_c),      cmocka_unit_test(addrows_z),
      cmocka_unit_test(delrows_c),      cmocka_unit_test(delrows_z),      cmocka_unit_test(paths_c),
      cmocka_unit_test(paths_z),        cmocka_unit_test(gpu_paths_c),    cmocka_unit_test(gpu_paths_z),
      cmocka_unit_test(quick_return_c), cmocka_unit_test(quick_return_z),
      cmocka_unit_test(errors_c),       cmocka_unit_test(errors_z),       cmocka_unit_test(drift_c),
      cmocka_unit_test(drift_z),
  };
  // HQR_TEST_FILTER=gpu_paths* runs a subset (compute-sanitizer, fault runs).
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);
  if (const char *f = std::getenv("HQR_TEST_SKIP")) cmocka_set_skip_filter(f);  // test/valgrind.sh
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
