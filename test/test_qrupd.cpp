// xQRUPD_ADDCOLS / DELCOLS / ADDROWS / DELROWS, the full-Q form (s, d, c, z;
// Q unitary for c and z): the updated factors are checked on products
// against the explicitly updated matrix Ã (qrupd_testing.hpp),
//   ||Q*R - Ã||_1 / (||Ã||_1 * max(M,N) * eps) < 30,
//   ||Q^H*Q - I||_1 / (M * eps) < 30,  R strictly lower exactly zero,
// and with JOBQ = 'N' ||R^H*R - Ã^H*Ã||_1 / (||Ã||_F^2 * max(M,N) * eps) < 30
// (products in double or complex double precision), on random data fresh
// every run (complex: nonzero imaginary parts everywhere). Every shape the
// ABI allows (J at both ends, P up to all, M < N, vectors, padding in every
// leading dimension) with the minimum, an intermediate and the optimal LWORK
// (direct, batched and blocked kernels), shapes past every block size, both
// sides of the update/refactor choice (checked on the HQR_VERBOSE line),
// quick returns, every illegal argument, and drift over 200 mixed updates.
// The GPU paths (gpu_paths_*) at shapes that take every branch of their
// kernels: with HQR_GPU_MIN_N=0 on a GPU each call must run there
// (path=gpu-update), elsewhere on the CPU.
#include <functional>

#include "qrupd_testing.hpp"

namespace {

using namespace qrupd_testing;
using testing::lint;
using testing::Matrix;

// ---- a check only these tests make ---------------------------------------------

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

// ---- one update of a random matrix ----------------------------------------

template <class T> void run_addcols(lint m, lint n, lint p, lint j, lint pad, Lw lw, const char *path = nullptr) {
  char ctx[96];
  std::snprintf(ctx, sizeof ctx, "%s m=%d n=%d p=%d j=%d pad=%d lw=%s", xname<T>("QRUPD_ADDCOLS"), int(m), int(n),
                int(p), int(j), int(pad), lw_name(lw));
  Matrix<T> a = testing::random_matrix<T>(m, n);
  Matrix<T> u0 = testing::random_matrix<T>(m, p);
  Factors<T> f = factor(a, a.m, m + pad, m, m + pad, n + p + 1);
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
  check_qr(f.q, f.r, m, insert_cols(a, u0, j - 1), ctx, j - 1);
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
                jobq, int(m), int(n), int(p), int(j), int(pad), lw_name(lw), scale);
  const bool wantq = jobq == 'U';
  Matrix<T> a = testing::random_matrix<T>(m, n);
  for (T &x : a.data) x *= testing::real_t<T>(scale);
  Factors<T> f = factor(a, a.m, m + pad, m, m + pad, n);
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
    check_qr(f.q, f.r, at.m, at, ctx, j - 1);
  else {
    check_r(f.r, at.m, at, ctx, j - 1);
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
  std::snprintf(ctx, sizeof ctx, "%s jobq=%c m=%d n=%d p=%d j=%d pad=%d lw=%s", xname<T>("QRUPD_ADDROWS"), jobq,
                int(m), int(n), int(p), int(j), int(pad), lw_name(lw));
  const bool wantq = jobq == 'U';
  Matrix<T> a = testing::random_matrix<T>(m, n);
  Matrix<T> u0 = testing::random_matrix<T>(p, n);
  Factors<T> f = factor(a, a.m, m + p + pad, m + p, m + p + pad, n);
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
    check_qr(f.q, f.r, at.m, at, ctx);
  else {
    check_r(f.r, at.m, at, ctx);
    assert_true(sentinel[0] == T(7) && sentinel[1] == T(7));
  }
  assert_rows_kept(f.q, f0.q, wantq ? m + p : 0, m + p, ctx);
  assert_rows_kept(f.r, f0.r, m + p, n, ctx);
  assert_rows_kept(u, us, p, n, ctx);
}

template <class T> void run_delrows(lint m, lint n, lint p, lint j, lint pad, Lw lw, const char *path = nullptr) {
  char ctx[96];
  std::snprintf(ctx, sizeof ctx, "%s m=%d n=%d p=%d j=%d pad=%d lw=%s", xname<T>("QRUPD_DELROWS"), int(m), int(n),
                int(p), int(j), int(pad), lw_name(lw));
  Matrix<T> a = testing::random_matrix<T>(m, n);
  Factors<T> f = factor(a, a.m, m + pad, m, m + pad, n);
  const Factors<T> f0 = f;
  scribble_lower(f.r, m, n, 0);
  auto call = [&](lint lwork, T *w) { return delrows<T>(m, n, p, j, f.q.ptr(), f.q.ld, f.r.ptr(), f.r.ld, w, lwork); };
  std::vector<T> w = workspace<T>(call, lw, lwmin_delrows(m, n, p));
  assert_int_equal(call_on_path([&] { return call(lint(w.size()), w.data()); }, path, ctx), 0);
  check_qr(f.q, f.r, m - p, remove_rows(a, p, j - 1), ctx);
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
const std::vector<Shape> kAddcols = {
    {8, 5, 1, 1},     {8, 5, 1, 6},      {8, 5, 1, 3},     {8, 5, 3, 1},    {8, 5, 3, 6},     {8, 5, 3, 3},
    {10, 4, 6, 2},    {6, 5, 4, 3},      {4, 6, 2, 3},     {4, 6, 3, 7},    {4, 6, 3, 1},     {1, 1, 1, 1},
    {1, 1, 1, 2},     {1, 5, 2, 3},      {5, 1, 1, 1},     {5, 1, 1, 2},    {7, 0, 3, 1},     {6, 3, 9, 2},
    {60, 20, 5, 10},  {80, 20, 40, 5},   {50, 45, 40, 46}, {40, 60, 35, 1}, {2, 1, 1, 1},     {3, 2, 1, 2},
    {300, 200, 70, 1}, {300, 200, 70, 201}, {120, 100, 40, 50}, {200, 10, 120, 5},
};
const std::vector<Shape> kDelcols = {
    {8, 5, 1, 1},    {8, 5, 1, 5},     {8, 5, 2, 2},      {8, 5, 5, 1},     {8, 5, 3, 3},   {4, 7, 2, 1},
    {4, 7, 3, 3},    {4, 7, 7, 1},     {1, 5, 2, 2},      {5, 1, 1, 1},     {1, 1, 1, 1},   {50, 45, 3, 2},
    {60, 50, 10, 5}, {70, 60, 1, 1},   {6, 6, 2, 5},      {3, 3, 1, 2},     {300, 250, 70, 20}, {100, 150, 60, 30},
    {200, 150, 140, 3},
};
const std::vector<Shape> kAddrows = {
    {6, 4, 1, 1},    {6, 4, 1, 7},    {6, 4, 3, 3},     {6, 4, 3, 1},    {6, 4, 3, 7},     {3, 6, 2, 2},
    {3, 6, 5, 1},    {0, 4, 3, 1},    {1, 1, 1, 1},     {1, 1, 1, 2},    {1, 5, 1, 1},     {5, 1, 2, 3},
    {4, 0, 2, 2},    {50, 40, 10, 20}, {40, 50, 6, 41}, {45, 40, 40, 1}, {0, 1, 1, 1},     {2, 7, 9, 3},
    {30, 100, 40, 5}, {200, 150, 70, 100}, {0, 50, 60, 1}, {3, 50, 60, 2},
};
const std::vector<Shape> kDelrows = {
    {8, 5, 1, 1},      {8, 5, 1, 8},       {8, 5, 3, 3},     {8, 5, 8, 1},   {8, 5, 3, 6},   {4, 6, 2, 2},
    {5, 1, 2, 4},      {1, 1, 1, 1},       {1, 5, 1, 1},     {2, 5, 1, 2},   {60, 20, 40, 10}, {50, 50, 5, 46},
    {40, 60, 3, 1},    {6, 0, 2, 3},       {600, 300, 70, 100}, {300, 200, 30, 271}, {300, 200, 250, 20},
};

// c and z: a shorter list through the same templates, with every edge: J =
// 1, inside, N+1 (M+1 for rows); P = 1, several, all; M = N+P; M < N;
// vectors; shapes past 32 reflectors and 64 rotation passes (blocks,
// windows); the refactoring side of the cost model (narrow A, many new
// columns; many deleted rows; rows added to an almost empty A).
const std::vector<Shape> kAddcolsComplex = {
    {8, 5, 1, 1},   {8, 5, 1, 3},   {8, 5, 1, 6},    {8, 5, 3, 1},    {8, 5, 3, 3},     {8, 5, 3, 6},
    {8, 5, 3, 4},   {6, 5, 4, 3},   {4, 6, 3, 7},    {4, 6, 2, 3},    {1, 1, 1, 2},     {5, 1, 1, 1},
    {7, 0, 3, 1},   {6, 3, 9, 2},   {80, 20, 40, 5}, {50, 45, 40, 46}, {40, 2, 30, 2},  {140, 70, 70, 71},
};
const std::vector<Shape> kDelcolsComplex = {
    {8, 5, 1, 1}, {8, 5, 1, 5}, {8, 5, 2, 2}, {8, 5, 5, 1}, {4, 7, 3, 3}, {4, 7, 7, 1},
    {1, 5, 2, 2}, {5, 1, 1, 1}, {6, 6, 2, 5}, {60, 50, 10, 5}, {100, 90, 40, 2},
};
const std::vector<Shape> kAddrowsComplex = {
    {6, 4, 1, 1},   {6, 4, 1, 7},    {6, 4, 3, 3},     {6, 4, 3, 1},    {3, 6, 2, 2},    {3, 6, 5, 1},
    {0, 4, 3, 1},   {1, 1, 1, 2},    {5, 1, 2, 3},     {4, 0, 2, 2},    {50, 40, 10, 20}, {40, 50, 6, 41},
    {2, 30, 40, 2}, {80, 70, 40, 1},
};
const std::vector<Shape> kDelrowsComplex = {
    {8, 5, 1, 1},  {8, 5, 1, 8},     {8, 5, 3, 3},      {8, 5, 8, 1},    {4, 6, 2, 2}, {5, 1, 2, 4},
    {2, 5, 1, 2},  {60, 20, 40, 10}, {50, 50, 5, 46},   {6, 0, 2, 3},    {140, 70, 70, 30},
};

// The list for T, and the workspaces: c and z skip the halfway LWORK (its
// kernels are the real ones' templates), which keeps valgrind's run short.
template <class T> const std::vector<Shape> &pick_list(const std::vector<Shape> &real, const std::vector<Shape> &cplx) {
  return testing::is_complex_v<T> ? cplx : real;
}
template <class T> std::vector<Lw> lws() {
  if (testing::is_complex_v<T>) return {Lw::min, Lw::opt};
  return {Lw::min, Lw::mid, Lw::opt};
}

template <class T> void addcols_shapes() {
  for (const Shape &s : pick_list<T>(kAddcols, kAddcolsComplex))
    for (lint pad : {0, 3})
      for (Lw lw : lws<T>()) run_addcols<T>(s.m, s.n, s.p, s.j, pad, lw);
}
template <class T> void delcols_shapes() {
  for (const Shape &s : pick_list<T>(kDelcols, kDelcolsComplex))
    for (char jobq : {'U', 'N'})
      for (lint pad : {0, 2})
        for (Lw lw : lws<T>()) run_delcols<T>(jobq, s.m, s.n, s.p, s.j, pad, lw);
}
template <class T> void addrows_shapes() {
  for (const Shape &s : pick_list<T>(kAddrows, kAddrowsComplex))
    for (char jobq : {'U', 'N'})
      for (lint pad : {0, 2})
        for (Lw lw : lws<T>()) run_addrows<T>(jobq, s.m, s.n, s.p, s.j, pad, lw);
}
template <class T> void delrows_shapes() {
  for (const Shape &s : pick_list<T>(kDelrows, kDelrowsComplex))
    for (lint pad : {0, 3})
      for (Lw lw : lws<T>()) run_delrows<T>(s.m, s.n, s.p, s.j, pad, lw);
}

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

// Every GPU update (deleting columns, adding rows with and without Q, adding
// columns and deleting rows) at shapes that take each branch: delcols' band
// kernel (band_qr, blocks of 32 reflectors) over several blocks, with P = 1,
// P past the block size, and P = 640, where the panel works in global memory
// (double; complex: past 320 rows in z, 640 in c), sums of squares below its
// one-pass range and past overflow (single precision); J at 1, inside and at
// the end (N+1 or M+1); M < N; odd orders; padded leading dimensions (LDQ,
// LDR, LDU > M). With HQR_GPU_MIN_N=0 on a GPU each must run there
// ("gpu-update"); under HQR_FAULT the CPU takes over and the results must
// still hold. Small enough for CPU CI.
template <class T> void gpu_paths() {
  run_delcols<T>('N', 300, 260, 40, 20, 2, Lw::opt, "gpu-update");
  run_delcols<T>('U', 300, 260, 40, 20, 0, Lw::min, "gpu-update");
  run_delcols<T>('U', 200, 240, 30, 50, 3, Lw::opt, "gpu-update");
  run_delcols<T>('U', 257, 201, 1, 1, 1, Lw::opt, "gpu-update");
  run_delcols<T>('N', 131, 129, 33, 90, 0, Lw::opt, "gpu-update");
  run_delcols<T>('N', 700, 680, 640, 5, 0, Lw::opt, "gpu-update");
  run_delcols<T>('U', 400, 380, 330, 3, 1, Lw::opt, "gpu-update");
  // Sums of squares below the kernel's one-pass range (every precision)
  // or past overflow (single): its scaled slow path. Double stays within
  // range (1e+-150) because valgrind computes x87 code, such as OpenBLAS's
  // nrm2 kernels, in 64 bits instead of 80: at 1e-160 this case failed
  // under valgrind only (|QR-A| ratio 1.9e9; natively it passes).
  const double tiny = std::is_same_v<testing::real_t<T>, float> ? 1e-21 : 1e-150;
  run_delcols<T>('U', 300, 260, 40, 20, 0, Lw::opt, "gpu-update", tiny);
  run_delcols<T>('U', 300, 260, 40, 20, 0, Lw::opt, "gpu-update", 1 / tiny);
  run_addrows<T>('N', 260, 200, 90, 7, 1, Lw::opt, "gpu-update");
  run_addrows<T>('N', 100, 230, 70, 101, 0, Lw::min, "gpu-update");
  run_addrows<T>('N', 0, 50, 30, 1, 2, Lw::opt, "gpu-update");
  run_addrows<T>('N', 151, 97, 1, 77, 0, Lw::opt, "gpu-update");
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

// ---- illegal arguments: XERBLA with name and position, nothing written ----------

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
  expect_illegal(a, name, 1, go(-1, -1, -1, 0, 0, 0, 0, 0));  // the first one wins
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
template <class T> void errors() {
  errors_addcols<T>();
  errors_delcols<T>();
  errors_addrows<T>();
  errors_delrows<T>();
}

// ---- drift: 200 random updates on one factorization ----------------------------

template <class T> void drift() {
  const lint cap = 64;  // rows and columns of room
  auto pick = [](lint lo, lint hi) { return lo + lint(testing::rng()() % uint64_t(hi - lo + 1)); };
  lint m = 30, n = 20;
  Matrix<T> a = testing::random_matrix<T>(m, n);
  Factors<T> f0 = factor(a, a.m, cap, cap, cap, cap);
  Matrix<T> q = f0.q, r = f0.r;
  std::vector<T> w(size_t(cap) * cap * 8);
  for (int step = 0; step < 200; ++step) {
    const int op = step % 4;
    // Every other round of four with the minimum LWORK (direct kernels),
    // else with room for the blocked ones and refactoring.
    const bool small = step / 4 % 2 == 1;
    char ctx[80];
    std::snprintf(ctx, sizeof ctx, "drift %c step %d op %d m=%d n=%d lw=%s", testing::prefix<T>(), step, op,
                  int(m), int(n), small ? "min" : "big");
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
    if (step % 50 == 49) check_qr(q, r, a.m, a, ctx);
  }
}

}  // namespace

// Each group in each precision is a test of its own, named group_s .. group_z
// (HQR_TEST_FILTER=gpu_paths_z and the like: scripts/gpu-check.sh,
// test/valgrind.sh).
template <void (*F)()> void entry(void **) { F(); }
#define QRUPD_GROUP(name, fn)                                                                           \
  CMUnitTest{name "_s", entry<fn<float>>, nullptr, nullptr, nullptr},                                  \
      CMUnitTest{name "_d", entry<fn<double>>, nullptr, nullptr, nullptr},                             \
      CMUnitTest{name "_c", entry<fn<std::complex<float>>>, nullptr, nullptr, nullptr},                \
      CMUnitTest{name "_z", entry<fn<std::complex<double>>>, nullptr, nullptr, nullptr}

int main() {
  const struct CMUnitTest tests[] = {
      QRUPD_GROUP("addcols", addcols_shapes), QRUPD_GROUP("delcols", delcols_shapes),
      QRUPD_GROUP("addrows", addrows_shapes), QRUPD_GROUP("delrows", delrows_shapes),
      QRUPD_GROUP("quick_return", quick_returns), QRUPD_GROUP("errors", errors),
      QRUPD_GROUP("paths", paths),         QRUPD_GROUP("gpu_paths", gpu_paths),
      QRUPD_GROUP("drift", drift),
  };
  return testing::run_group(tests);  // HQR_TEST_FILTER, HQR_TEST_SKIP
}
