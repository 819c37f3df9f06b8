// xGEQRF, xORGQR/xUNGQR, xORMQR/xUNMQR, xGELS: LAPACK's QR test ratios
// (DQRT01/02/03, DQRT16/17 and a DQRT14-style row-space check) on square,
// tall, wide, odd and empty shapes with lda > m; LWORK = -1 queries (WORK(1)
// at least LAPACK's minimum, and the call with it works), the minimum LWORK,
// and too small a LWORK reported through XERBLA. The *_blocks tests take
// sizes over several blocks (of 48 and the default), the GPU paths' when
// HQR_GPU_MIN_N=0; gels_rank_deficient compares INFO with the reference
// LAPACK, gels_scaled xGELS's scaling of tiny and huge data. The hard_*
// tests give xGEQRF and xGELS entries near overflow and underflow,
// duplicate and zero columns, graded columns and zero matrices, and with a
// GPU and HQR_GPU_MIN_N=0 check that each call stayed on the GPU path.
#include <initializer_list>
#include <random>

#include "cuda/handoff.hpp"
#include "host/lapack_reflectors.hpp"
#include "testing.hpp"

using namespace testing;

namespace {

struct Shape {
  lint m, n;
};
// square, tall (m = 64n for small n), wide, n = 1, m = 1, m = 0, n = 0, odd
constexpr Shape kShapes[] = {{0, 0},   {0, 7},   {7, 0},   {1, 1},     {2, 2},   {31, 31}, {64, 64},
                             {257, 257}, {500, 500}, {64, 1}, {192, 3}, {512, 8}, {37, 1},  {1, 37},
                             {17, 45}, {64, 257}, {33, 17}, {101, 77}, {3, 192}};
constexpr lint kPads[] = {0, 3};

// LAPACK 3.11's minimum LWORK (geqrf: 1 when min(M,N) = 0, else N).
lint geqrf_min_lwork(lint m, lint n) { return std::min(m, n) == 0 ? 1 : std::max<lint>(1, n); }
lint orgqr_min_lwork(lint, lint n) { return std::max<lint>(1, n); }
lint ormqr_min_lwork(char side, lint m, lint n) { return std::max<lint>(1, side == 'L' ? n : m); }
lint gels_min_lwork(lint m, lint n, lint nrhs) {
  const lint mn = std::min(m, n);
  return std::max<lint>(1, mn + std::max(mn, nrhs));
}

// Work array of `lwork` entries followed by guard entries that must survive.
template <class T> struct Work {
  static constexpr lint kGuard = 8;
  std::vector<T> v;
  lint lwork;
  explicit Work(lint lw) : v(size_t(std::max<lint>(lw, 1) + kGuard)), lwork(lw) {
    for (auto &x : v) x = random_value<T>();
    guard.assign(v.end() - kGuard, v.end());
  }
  T *ptr() { return v.data(); }
  bool guard_intact() const { return std::memcmp(guard.data(), &v[v.size() - kGuard], kGuard * sizeof(T)) == 0; }
  std::vector<T> guard;
};

template <class T> lint geqrf_query(lint m, lint n, lint lda) {
  Matrix<T> dummy(std::max<lint>(m, 1), std::max<lint>(n, 1), lda);
  std::vector<T> tau(size_t(std::max<lint>(1, std::min(m, n))));
  T w[2] = {T(-7), T(-7)};
  assert_info(geqrf<T>(m, n, dummy.ptr(), lda, tau.data(), w, -1), 0, context("geqrf query m=%ld n=%ld", long(m), long(n)));
  return work_size(w[0]);
}

// geqrf of `a` (in place) with the queried LWORK; returns tau (k entries).
template <class T> std::vector<T> factor(Matrix<T> &a, const std::string &ctx) {
  const lint m = a.m, n = a.n, k = std::min(m, n);
  const lint lw = geqrf_query<T>(m, n, a.ld);
  if (lw < geqrf_min_lwork(m, n))
    fail_msg("%s: geqrf LWORK query gave %ld, below LAPACK's minimum %ld", ctx.c_str(), long(lw),
             long(geqrf_min_lwork(m, n)));
  Work<T> work(lw);
  std::vector<T> tau(size_t(k) + 4);
  for (auto &t : tau) t = random_value<T>();
  const std::vector<T> tau0 = tau;
  assert_info(geqrf<T>(m, n, a.ptr(), a.ld, tau.data(), work.ptr(), lw), 0, ctx);
  if (!work.guard_intact()) fail_msg("%s: geqrf wrote past WORK(LWORK)", ctx.c_str());
  for (size_t i = size_t(k); i < tau.size(); ++i)
    if (std::memcmp(&tau[i], &tau0[i], sizeof(T)) != 0) fail_msg("%s: geqrf wrote TAU(%zu) > min(m,n)", ctx.c_str(), i + 1);
  tau.resize(size_t(k));
  return tau;
}

// Explicit Q (m x ncols, ldq = m + 1) from the first k reflectors of `qr`.
template <class T>
Matrix<T> form_q(const Matrix<T> &qr, const std::vector<T> &tau, lint ncols, lint k, const std::string &ctx) {
  const lint m = qr.m;
  Matrix<T> q = random_matrix<T>(m, ncols, m + 1);
  for (lint j = 0; j < std::min(k, ncols); ++j)
    for (lint i = 0; i < m; ++i) q(i, j) = qr(i, j);
  T w[2];
  assert_info(orgqr<T>(m, ncols, k, q.ptr(), q.ld, tau.data(), w, -1), 0, ctx + " (orgqr query)");
  const lint lw = work_size(w[0]);
  if (lw < orgqr_min_lwork(m, ncols))
    fail_msg("%s: orgqr LWORK query gave %ld, below LAPACK's minimum %ld", ctx.c_str(), long(lw),
             long(orgqr_min_lwork(m, ncols)));
  Work<T> work(lw);
  const Matrix<T> q0 = q;
  assert_info(orgqr<T>(m, ncols, k, q.ptr(), q.ld, tau.data(), work.ptr(), lw), 0, ctx + " (orgqr)");
  if (!work.guard_intact()) fail_msg("%s: orgqr wrote past WORK(LWORK)", ctx.c_str());
  lint bi, bj;
  if (!unchanged_where(q0, q, [](lint, lint) { return false; }, &bi, &bj))
    fail_msg("%s: orgqr changed padding Q(%ld,%ld)", ctx.c_str(), long(bi), long(bj));
  return q;
}

// ||I - Q^H Q||_1 / (max(1,m) eps)
template <class T> double orthogonality(const Matrix<T> &q) {
  Matrix<T> w = identity<T>(q.n);
  subtract_product(w, q, 'C', q, 'N');
  return norm_one(w) / (double(std::max<lint>(1, q.m)) * eps<T>());
}

// LAPACK's convention for the compact form: real tau in {0} or [1, 2];
// complex tau with 1 <= Re(tau) <= 2 and |tau - 1| <= 1 (or 0); the
// diagonal of R real for complex types.
template <class T> void assert_lapack_reflectors(const Matrix<T> &qr, const std::vector<T> &tau, const std::string &ctx) {
  const double slack = 64 * eps<T>();
  for (size_t i = 0; i < tau.size(); ++i) {
    const std::complex<double> t(tau[i]);
    const bool zero = t == 0.0;
    const bool ok = zero || (t.real() >= 1 - slack && t.real() <= 2 + slack && std::abs(t - 1.0) <= 1 + slack);
    if (!ok) fail_msg("%s: TAU(%zu) = (%g, %g) outside LAPACK's range", ctx.c_str(), i + 1, t.real(), t.imag());
    // The last row's reflector (m <= n) has nothing below the diagonal:
    // xLARFG of order 1 leaves tau = 0 where alpha is real, so always in
    // real arithmetic.
    if (!is_complex_v<T> && lint(i) == qr.m - 1 && !zero)
      fail_msg("%s: TAU(%zu) = %g, LAPACK's is 0 (no entries below the diagonal)", ctx.c_str(), i + 1, t.real());
    if (is_complex_v<T> && std::imag(qr(lint(i), lint(i))) != 0)
      fail_msg("%s: R(%zu,%zu) is not real (LAPACK's R has a real diagonal)", ctx.c_str(), i + 1, i + 1);
  }
}

// ---- geqrf + orgqr ----------------------------------------------------------

// One geqrf of a fresh random m-by-n matrix (leading dimension lda); with
// on_gpu, it must end on a GPU path where the tests force that.
// DQRT01: ||R - Q^H A||_1 / (max(1,m) ||A||_1 eps), ||I - Q^H Q||_1 / (max(1,m) eps)
// with the full m-by-m Q; DQRT02 with the economical m-by-n Q when m >= n.
template <class T> void geqrf_case(lint m, lint n, lint lda, const std::string &ctx, bool on_gpu = false) {
  const lint k = std::min(m, n);
  const Matrix<T> a0 = random_matrix<T>(m, n, lda);
  Matrix<T> a = a0;
  const GpuPathCheck path;
  std::vector<T> tau = factor(a, ctx);
  if (on_gpu) path.expect(k, lint(1) << 30, ctx.c_str());
  lint bi, bj;
  if (!unchanged_where(a0, a, [](lint, lint) { return false; }, &bi, &bj))
    fail_msg("%s: padding A(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
  assert_lapack_reflectors(a, tau, ctx);
  if (m == 0) return;

  Matrix<T> q = form_q(a, tau, m, k, ctx);
  Matrix<T> r = upper_trapezoid(block(a, m, n));
  subtract_product(r, q, 'C', block(a0, m, n), 'N');
  if (n > 0) assert_ratio(norm_one(r) / (double(m) * norm_one(block(a0, m, n)) * eps<T>()), ctx + " R - Q^H A");
  assert_ratio(orthogonality(block(q, m, m)), ctx + " I - Q^H Q");

  if (m >= n && n > 0) {  // economical Q1 (m x n): A - Q1 R1
    Matrix<T> q1 = form_q(a, tau, n, n, ctx + " economical");
    Matrix<T> d = block(a0, m, n);
    subtract_product(d, block(q1, m, n), 'N', upper_trapezoid(block(a, n, n)), 'N');
    assert_ratio(norm_one(d) / (double(m) * norm_one(block(a0, m, n)) * eps<T>()), ctx + " A - Q1 R1");
    assert_ratio(orthogonality(block(q1, m, n)), ctx + " I - Q1^H Q1");
  }
}
template <class T> void geqrf_residual(void **) {
  for (const Shape &s : kShapes)
    for (lint pad : kPads) {
      const lint lda = std::max<lint>(1, s.m) + pad;
      geqrf_case<T>(s.m, s.n, lda,
                    context("%cgeqrf m=%ld n=%ld lda=%ld", prefix<T>(), long(s.m), long(s.n), long(lda)));
    }
}

// The same shape and buffers call after call: on the GPU the small trip's
// work is captured as a CUDA graph at the second call and replayed after
// (src/cuda/one_trip.cuh); each call factors a fresh matrix.
template <class T> void geqrf_repeated(void **) {
  for (const Shape &s : {Shape{256, 256}, Shape{300, 200}, Shape{200, 300}})
    for (int call = 0; call < 4; ++call)
      geqrf_case<T>(s.m, s.n, s.m + call % 2,
                    context("%cgeqrf m=%ld n=%ld call %d", prefix<T>(), long(s.m), long(s.n), call + 1), true);
}

// geqrf with exactly LAPACK's minimum LWORK (the unblocked path).
template <class T> void geqrf_minimum_lwork(void **) {
  for (const Shape &s : {Shape{64, 64}, Shape{300, 40}, Shape{40, 300}, Shape{129, 1}}) {
    const lint m = s.m, n = s.n, lda = m + 2, lw = geqrf_min_lwork(m, n);
    const std::string ctx = context("%cgeqrf m=%ld n=%ld lwork=%ld", prefix<T>(), long(m), long(n), long(lw));
    const Matrix<T> a0 = random_matrix<T>(m, n, lda);
    Matrix<T> a = a0;
    std::vector<T> tau(size_t(std::min(m, n)));
    Work<T> work(lw);
    assert_info(geqrf<T>(m, n, a.ptr(), lda, tau.data(), work.ptr(), lw), 0, ctx);
    if (!work.guard_intact()) fail_msg("%s: wrote past WORK(LWORK)", ctx.c_str());
    Matrix<T> q = form_q(a, tau, m, std::min(m, n), ctx);
    Matrix<T> r = upper_trapezoid(block(a, m, n));
    subtract_product(r, q, 'C', block(a0, m, n), 'N');
    assert_ratio(norm_one(r) / (double(m) * norm_one(block(a0, m, n)) * eps<T>()), ctx);
  }
}

// ---- geqrf at sizes that span several panels ---------------------------------

// With HQR_GPU_MIN_N=0 these run the hybrid GPU path (blocks of HQR_NB, 256
// by default, and of 48 here through hqr_set_nb): sizes that are not
// multiples of the block, square, tall (m = 64n), wide, n = 1, lda > m. On a
// machine without a GPU they check the CPU path.
// DQRT02's ratios, and R against the reference LAPACK's (|R|, as the signs
// of R's rows are LAPACK's convention but could flip where a column is
// nearly dependent), both ratios printed beside the reference's with
// HQR_TEST_VERBOSE.
template <class T> void geqrf_panels(void **) {
  struct Case {
    lint m, n, pad;
    int nb;  // 0: the library's default
    bool minimal_lwork;
    bool near_dependent = false;  // every 7th column nearly equals the one before
  };
  constexpr Case kCases[] = {{700, 650, 3, 0, false},       {1100, 300, 0, 0, false}, {300, 900, 5, 0, false},
                             {1984, 31, 1, 0, false},       {600, 1, 2, 0, false},    {257, 257, 0, 48, false},
                             {333, 100, 7, 48, true},       {100, 333, 1, 48, false}, {3200, 50, 0, 48, false},
                             {97, 97, 2, 48, true},         {1100, 300, 0, 0, false, true},
                             {900, 400, 2, 48, false, true},
                             // Through the GPU's small geqrf in panels of 8 columns in complex
                             // double (16 in the other types).
                             {1000, 520, 1, 0, false}};
  for (const Case &cs : kCases) {
    const lint m = cs.m, n = cs.n, k = std::min(m, n), lda = m + cs.pad;
    const std::string ctx =
        context("%cgeqrf m=%ld n=%ld lda=%ld nb=%d%s%s", prefix<T>(), long(m), long(n), long(lda), cs.nb,
                cs.minimal_lwork ? " minimum lwork" : "", cs.near_dependent ? " near-dependent columns" : "");
    hqr_set_nb(cs.nb);
    Matrix<T> a0 = random_matrix<T>(m, n, lda);
    // Panels with condition numbers near 1/sqrt(eps) and beyond, where the
    // GPU path's CholeskyQR2 panel must hand over to Householder QR.
    if (cs.near_dependent)
      for (lint j = 6; j < n; j += 7)
        for (lint i = 0; i < m; ++i) a0(i, j) = a0(i, j - 1) + T(1e-2 * std::sqrt(eps<T>())) * random_value<T>();
    Matrix<T> a = a0;
    std::vector<T> tau;
    if (cs.minimal_lwork) {
      tau.assign(size_t(k), T(0));
      Work<T> work(geqrf_min_lwork(m, n));
      assert_info(geqrf<T>(m, n, a.ptr(), lda, tau.data(), work.ptr(), work.lwork), 0, ctx);
      if (!work.guard_intact()) fail_msg("%s: wrote past WORK(LWORK)", ctx.c_str());
    } else {
      tau = factor(a, ctx);
    }
    hqr_set_nb(0);
    lint bi, bj;
    if (!unchanged_where(a0, a, [](lint, lint) { return false; }, &bi, &bj))
      fail_msg("%s: padding A(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
    assert_lapack_reflectors(a, tau, ctx);

    Matrix<T> ref = a0;
    std::vector<T> ref_tau(static_cast<size_t>(k));
    std::vector<T> ref_work(size_t(64 * std::max<lint>(n, 1)));
    assert_info(geqrf<T>(m, n, ref.ptr(), lda, ref_tau.data(), ref_work.data(), lint(ref_work.size()), Lib::ref), 0,
                ctx + " (reference)");
    const double anorm = norm_one(block(a0, m, n));
    double rdiff = 0;
    Matrix<T> d(m, n);
    for (lint j = 0; j < n; ++j)
      for (lint i = 0; i < m; ++i) d(i, j) = T(i <= j ? std::abs(a(i, j)) - std::abs(ref(i, j)) : 0);
    rdiff = norm_one(d) / (double(m) * anorm * eps<T>());
    // Past a column that nearly depends on the one before, R's rows depend
    // on rounding (its reflector's direction carries a relative error of
    // about eps/1e-2 sqrt(eps)), so there only the residuals below count.
    if (!cs.near_dependent) assert_ratio(rdiff, ctx + " |R| - |R_ref|");

    // DQRT02's economical form, Q1 = the first k columns of Q (m-by-k):
    // R1 = Q1^H A for the first k rows of R, and Q1's orthogonality, which
    // keeps the tall cases cheap on the CPU.
    double ratio[2][2];  // [hqr, reference][R1 - Q1^H A, I - Q1^H Q1]
    for (int which = 0; which < 2; ++which) {
      const Matrix<T> &f = which == 0 ? a : ref;
      const std::vector<T> &t = which == 0 ? tau : ref_tau;
      Matrix<T> q = block(form_q(f, t, k, k, ctx), m, k);
      Matrix<T> r = upper_trapezoid(block(f, k, n));
      subtract_product(r, q, 'C', block(a0, m, n), 'N');
      ratio[which][0] = norm_one(r) / (double(m) * anorm * eps<T>());
      ratio[which][1] = orthogonality(q);
    }
    if (std::getenv("HQR_TEST_VERBOSE"))
      print_message("%s: reference LAPACK's ratios %.3g %.3g\n", ctx.c_str(), ratio[1][0], ratio[1][1]);
    assert_ratio(ratio[0][0], ctx + " R - Q^H A");
    assert_ratio(ratio[0][1], ctx + " I - Q^H Q");
  }
}

// The hybrid geqrf's schedule (geqrf_hybrid.cu, factor): step p brings
// block column p+1 up to date with reflectors 0..p before panel p+1, then
// block column p+2, then every other column that has arrived by then; the
// last step takes the rest. With random arrival orders, every column must
// get each reflector before it exactly once, in order, and panel p+1's
// column must be up to date when the panel starts. (The GPU run depends on upload timing; this
// covers every order on the CPU.)
void catch_up_schedule(void **) {
  std::mt19937_64 g(std::random_device{}());
  for (int trial = 0; trial < 2000; ++trial) {
    const lint nblocks = lint(1 + g() % 24), npanels = lint(1 + g() % nblocks);
    std::vector<lint> applied(size_t(nblocks), 0);
    std::vector<std::vector<lint>> got(static_cast<size_t>(nblocks));  // reflectors each column received, in order
    lint have = 1;
    auto arrive = [&](lint at_least) { have = std::min(nblocks, std::max(at_least, have + lint(g() % 3))); };
    auto catch_up = [&](lint j0, lint j1, lint p) {
      return hqr::gpu::catch_up_plan(applied, j0, j1, p, [&](lint q, lint j) {
        for (lint c = j; c < j1; ++c) got[size_t(c)].push_back(q);
        return true;
      });
    };
    for (lint p = 0; p < npanels; ++p) {
      const bool ahead = p + 1 < npanels;
      if (ahead) {
        arrive(p + 2);
        catch_up(p + 1, p + 2, p);
        if (got[size_t(p + 1)].size() != size_t(p + 1))
          fail_msg("trial %d: panel %ld starts after %zu reflectors", trial, long(p + 1), got[size_t(p + 1)].size());
      } else {
        have = nblocks;
      }
      arrive(have);
      const lint j0 = p + 1 + ahead;
      if (have > j0) {  // the next panel's block column first, on its own
        catch_up(j0, j0 + 1, p);
        catch_up(j0 + 1, have, p);
      }
    }
    for (lint j = 0; j < nblocks; ++j) {
      const lint want = std::min(j, npanels);
      bool in_order = got[size_t(j)].size() == size_t(want);
      for (lint q = 0; in_order && q < want; ++q) in_order = got[size_t(j)][size_t(q)] == q;
      if (!in_order)
        fail_msg("trial %d (%ld blocks, %ld panels): column %ld got %zu reflectors, not 0..%ld in order", trial,
                 long(nblocks), long(npanels), long(j), got[size_t(j)].size(), long(want - 1));
    }
  }
}

// ---- ormqr / unmqr ----------------------------------------------------------

// DQRT03: every side/trans against the explicit Q:
// ||op(Q) C - ormqr(C)||_1 / (max(1,m) ||C||_1 eps), with the queried and
// with the minimum LWORK; A and TAU are left unchanged.
template <class T> void ormqr_vs_explicit_q(void **) {
  const char tc = trans_h<T>();
  for (const Shape &s : kShapes) {
    const lint m = s.m, n = s.n, k = std::min(m, n), lda = std::max<lint>(1, m) + 2;
    if (m == 0) continue;
    const std::string base = context("%c%s m=%ld k=%ld", prefix<T>(), mqr_base<T>(), long(m), long(k));
    Matrix<T> a = random_matrix<T>(m, n, lda);
    std::vector<T> tau = factor(a, base + " (geqrf)");
    const Matrix<T> q = block(form_q(a, tau, m, k, base), m, m);
    for (char side : {'L', 'R'})
      for (char trans : {'N', tc})
        for (lint nc : {1, 7})
          for (int minimal = 0; minimal < 2; ++minimal) {
            const lint cm = side == 'L' ? m : nc, cn = side == 'L' ? nc : m, ldc = cm + 3;
            const std::string ctx = base + context(" side=%c trans=%c C %ldx%ld ldc=%ld%s", side, trans, long(cm),
                                                   long(cn), long(ldc), minimal ? " minimum lwork" : "");
            const Matrix<T> c0 = random_matrix<T>(cm, cn, ldc);
            Matrix<T> c = c0;
            const Matrix<T> a_before = a;
            const std::vector<T> tau_before = tau;
            T w[2];
            assert_info(ormqr<T>(side, trans, cm, cn, k, a.ptr(), lda, tau.data(), c.ptr(), ldc, w, -1), 0,
                        ctx + " (query)");
            const lint lmin = ormqr_min_lwork(side, cm, cn);
            if (work_size(w[0]) < lmin)
              fail_msg("%s: LWORK query gave %ld, below LAPACK's minimum %ld", ctx.c_str(), long(work_size(w[0])),
                       long(lmin));
            const lint lw = minimal ? lmin : work_size(w[0]);
            Work<T> work(lw);
            assert_info(ormqr<T>(side, trans, cm, cn, k, a.ptr(), lda, tau.data(), c.ptr(), ldc, work.ptr(), lw), 0,
                        ctx);
            if (!work.guard_intact()) fail_msg("%s: wrote past WORK(LWORK)", ctx.c_str());
            if (!same_bytes(a, a_before) || !same_bytes(tau, tau_before))
              fail_msg("%s: A or TAU (input only) changed", ctx.c_str());
            lint bi, bj;
            if (!unchanged_where(c0, c, [](lint, lint) { return false; }, &bi, &bj))
              fail_msg("%s: padding C(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
            const Matrix<T> cc = block(c0, cm, cn);
            Matrix<T> want = side == 'L' ? product(q, trans == 'N' ? 'N' : 'C', cc, 'N')
                                         : product(cc, 'N', q, trans == 'N' ? 'N' : 'C');
            Matrix<T> got = block(c, cm, cn);
            for (lint j = 0; j < cn; ++j)
              for (lint i = 0; i < cm; ++i) got(i, j) -= want(i, j);
            assert_ratio(norm_one(got) / (double(m) * norm_one(cc) * eps<T>()), ctx);
          }
  }
}

// Quick returns: M, N or K = 0 leave C unchanged.
template <class T> void ormqr_quick_return(void **) {
  const lint m = 6;
  Matrix<T> a = random_matrix<T>(m, m);
  std::vector<T> tau = factor(a, "geqrf");
  Matrix<T> c = random_matrix<T>(m, 4);
  const Matrix<T> c0 = c;
  T w[8];
  assert_info(ormqr<T>('L', 'N', m, 4, 0, a.ptr(), m, tau.data(), c.ptr(), m, w, 8), 0, "k=0");
  assert_info(ormqr<T>('L', 'N', m, 0, 3, a.ptr(), m, tau.data(), c.ptr(), m, w, 8), 0, "n=0");
  assert_info(ormqr<T>('R', trans_h<T>(), 0, m, 3, a.ptr(), m, tau.data(), c.ptr(), 1, w, 8), 0, "m=0");
  assert_true(same_bytes(c, c0));
}

// ---- gels -------------------------------------------------------------------

struct GelsCase {
  lint m, n;
};
// 31 x 31 and 300 x 200 go through the one trip's small geqrf, which forms
// Q**H B as its trailing update (qr_one_trip.cu's GelsOp); 1100 x 300
// through its device geqrf, whose T's apply Q in two blocks (both ways:
// trans 'N' and 'C'); 300 x 1100 through the wide path (the CPU's xGELQF
// once read past A here: gels_at_mapping_end).
constexpr GelsCase kGels[] = {{0, 0},   {0, 5},   {5, 0},    {1, 1},    {7, 1},   {1, 7},    {31, 31},
                              {45, 17}, {17, 45}, {64, 31},  {31, 64},  {257, 64}, {64, 257}, {192, 3},
                              {3, 192}, {500, 60}, {300, 200}, {1100, 300}, {300, 1100}};

// Orthonormal basis (p x q, p >= q) of the column space of `m` (p x q),
// from the reference LAPACK's QR: independent of the routines under test.
template <class T> Matrix<T> column_basis(const Matrix<T> &mat) {
  const lint p = mat.m, q = mat.n;
  Matrix<T> a = mat;
  std::vector<T> tau(size_t(std::max<lint>(q, 1)));
  std::vector<T> work(size_t(64 * std::max<lint>(p, 1)));
  const lint lw = lint(work.size());
  assert_info(geqrf<T>(p, q, a.ptr(), a.ld, tau.data(), work.data(), lw, Lib::ref), 0, "reference geqrf");
  assert_info(orgqr<T>(p, q, q, a.ptr(), a.ld, tau.data(), work.data(), lw, Lib::ref), 0, "reference orgqr");
  return a;
}

// op(A) for the tests' products: trans 'N' -> 'N', 'T'/'C' -> 'C'.
char op_of(char trans) { return trans == 'N' ? 'N' : 'C'; }

// One gels call with the queried (or minimum) LWORK; checks padding, WORK
// guard, and returns B. at_end: A lies at the end of a mapping
// (AtMappingEnd), so a read past it faults.
template <class T>
Matrix<T> run_gels(char trans, const Matrix<T> &a0, const Matrix<T> &b0, bool minimal, const std::string &ctx,
                   bool at_end = false) {
  const lint m = a0.m, n = a0.n, nrhs = b0.n;
  Matrix<T> a = a0, b = b0;
  T w[2] = {T(-3), T(-3)};
  assert_info(gels<T>(trans, m, n, nrhs, a.ptr(), a.ld, b.ptr(), b.ld, w, -1), 0, ctx + " (query)");
  const lint lmin = gels_min_lwork(m, n, nrhs);
  if (work_size(w[0]) < lmin)
    fail_msg("%s: LWORK query gave %ld, below LAPACK's minimum %ld", ctx.c_str(), long(work_size(w[0])), long(lmin));
  const lint lw = minimal ? lmin : work_size(w[0]);
  Work<T> work(lw);
  if (at_end) {
    AtMappingEnd<T> end(a0);
    assert_info(gels<T>(trans, m, n, nrhs, end.ptr(), a.ld, b.ptr(), b.ld, work.ptr(), lw), 0, ctx);
    a = end.read(a0);
  } else {
    assert_info(gels<T>(trans, m, n, nrhs, a.ptr(), a.ld, b.ptr(), b.ld, work.ptr(), lw), 0, ctx);
  }
  if (!work.guard_intact()) fail_msg("%s: wrote past WORK(LWORK)", ctx.c_str());
  lint bi, bj;
  if (!unchanged_where(a0, a, [](lint, lint) { return false; }, &bi, &bj))
    fail_msg("%s: padding A(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
  if (!unchanged_where(b0, b, [](lint, lint) { return false; }, &bi, &bj))
    fail_msg("%s: padding B(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
  return b;
}

// trans N and T/C, m >= n and m < n, nrhs in {1, 3}:
//  DQRT16  ||B - op(A) X||_1 / (max(m,n) ||A||_1 ||X||_1 eps), consistent B;
//  DQRT17  ||op(A)^H (B - op(A) X)||_1 / (max(m,n,nrhs) ||A||_1 ||B||_1 eps),
//          least squares with random B; the 2-norm of each residual equals
//          that of B(q+1:p, j) as gels returns it;
//  DQRT14-style (minimum norm): X lies in the row space of op(A):
//          ||X - P X||_1 / (max(m,n) ||X||_1 eps), P the projector onto it.
// DQRT17 for least squares (p > q) with B (p rows used) and gels's output
// `out` (X in rows 1..q, the residual's components in q+1..p), op(A) = am
// (op): ||op(A)^H R||_1 / (max(m,n,nrhs) ||A||_1 ||B||_1 eps) with R = B -
// op(A) X, and the 2-norm of each column of R equals that of out(q+1:p, j).
template <class T>
void assert_dqrt17(const Matrix<T> &am, char op, const Matrix<T> &b, const Matrix<T> &out, lint p, lint q, lint nrhs,
                   const std::string &ctx) {
  const lint m = am.m, n = am.n;
  Matrix<T> r = block(b, p, nrhs);
  subtract_product(r, am, op, block(out, q, nrhs), 'N');
  Matrix<T> ar = product(am, op == 'N' ? 'C' : 'N', r, 'N');
  assert_ratio(norm_one(ar) / (double(std::max({m, n, nrhs})) * norm_one(am) * norm_one(block(b, p, nrhs)) * eps<T>()),
               ctx + " DQRT17");
  for (lint j = 0; j < nrhs; ++j) {
    double rn = 0, tn = 0, bn = 0;
    for (lint i = 0; i < p; ++i) rn += std::norm(std::complex<double>(r(i, j)));
    for (lint i = q; i < p; ++i) tn += std::norm(std::complex<double>(out(i, j)));
    for (lint i = 0; i < p; ++i) bn += std::norm(std::complex<double>(b(i, j)));
    assert_ratio(std::abs(std::sqrt(rn) - std::sqrt(tn)) / (double(p) * std::sqrt(bn) * eps<T>()),
                 ctx + context(" residual norm in B(q+1:p, %ld)", long(j + 1)));
  }
}

// One gels case of gels_residual; with on_gpu, its solve must end on a GPU
// path where the tests force that; with at_end, A lies at the end of a
// mapping (and lda = m).
template <class T>
void gels_case(lint m, lint n, char trans, lint nrhs, int minimal, bool on_gpu = false, bool at_end = false) {
  const lint lda = std::max<lint>(1, m) + (at_end ? 0 : 2), ldb = std::max<lint>({1, m, n}) + 3;
  const lint p = trans == 'N' ? m : n, q = trans == 'N' ? n : m;  // op(A) is p x q
  const std::string ctx = context("%cgels trans=%c m=%ld n=%ld nrhs=%ld lda=%ld ldb=%ld%s%s", prefix<T>(), trans,
                                  long(m), long(n), long(nrhs), long(lda), long(ldb),
                                  minimal ? " minimum lwork" : "", at_end ? " A at a mapping's end" : "");
  const Matrix<T> a0 = random_matrix<T>(m, n, lda);
  const Matrix<T> am = block(a0, m, n);
  const double anorm = norm_one(am);
  const char op = op_of(trans);

  if (std::min({m, n}) == 0) {  // LAPACK zeroes B(1:max(m,n), 1:nrhs)
    Matrix<T> b = run_gels(trans, a0, random_matrix<T>(std::max(m, n), nrhs, ldb), minimal, ctx);
    for (lint j = 0; j < nrhs; ++j)
      for (lint i = 0; i < std::max(m, n); ++i)
        if (b(i, j) != T(0)) fail_msg("%s: B(%ld,%ld) not zeroed", ctx.c_str(), long(i + 1), long(j + 1));
    return;
  }

  // Consistent right-hand side: B = op(A) X0 (any B when p <= q).
  Matrix<T> b0 = random_matrix<T>(std::max(m, n), nrhs, ldb);
  if (p > q) {
    Matrix<T> bx = product(am, op, random_matrix<T>(q, nrhs), 'N');
    for (lint j = 0; j < nrhs; ++j)
      for (lint i = 0; i < p; ++i) b0(i, j) = bx(i, j);
  }
  const GpuPathCheck path;
  Matrix<T> x = block(run_gels(trans, a0, b0, minimal, ctx, at_end), q, nrhs);
  if (on_gpu) path.expect(q, lint(1) << 30, ctx.c_str());
  Matrix<T> r = block(b0, p, nrhs);
  subtract_product(r, am, op, x, 'N');
  assert_ratio(norm_one(r) / (double(std::max(m, n)) * anorm * norm_one(x) * eps<T>()), ctx + " DQRT16");

  if (p < q) {  // minimum norm: X in range(op(A)^H)
    Matrix<T> basis = column_basis(op == 'N' ? product(am, 'C', identity<T>(m), 'N') : am);
    Matrix<T> d = x;
    Matrix<T> coef = product(basis, 'C', x, 'N');
    subtract_product(d, basis, 'N', coef, 'N');
    assert_ratio(norm_one(d) / (double(std::max(m, n)) * norm_one(x) * eps<T>()), ctx + " row space");
  }
  if (p > q) {  // least squares with an inconsistent right-hand side
    const Matrix<T> b1 = random_matrix<T>(std::max(m, n), nrhs, ldb);
    assert_dqrt17(am, op, b1, run_gels(trans, a0, b1, minimal, ctx + " (inconsistent)", at_end), p, q, nrhs, ctx);
  }
}
template <class T> void gels_residual(void **) {
  for (const GelsCase &g : kGels)
    for (char trans : {'N', trans_h<T>()})
      for (lint nrhs : {1, 3})
        for (int minimal = 0; minimal < 2; ++minimal) gels_case<T>(g.m, g.n, trans, nrhs, minimal);
}

// A at the end of a mapping: wide shapes in c and z read past A's last
// column in the next LAPACK's xGELQF (OpenBLAS 0.3.21's kernels; hqr runs it
// on a padded copy, next::on_padded_copy), and on the CPU path they faulted.
template <class T> void gels_at_mapping_end(void **) {
  for (const GelsCase &g : {GelsCase{17, 45}, GelsCase{64, 257}, GelsCase{300, 1100}, GelsCase{257, 64}})
    for (char trans : {'N', trans_h<T>()}) gels_case<T>(g.m, g.n, trans, 3, 0, false, true);
}

// The same shape call after call, as geqrf_repeated: the small trip's work
// replays as a graph from the second call on the GPU.
template <class T> void gels_repeated(void **) {
  for (const GelsCase &g : {GelsCase{256, 256}, GelsCase{300, 200}, GelsCase{200, 300}})
    for (char trans : {'N', trans_h<T>()})
      for (int call = 0; call < 4; ++call) gels_case<T>(g.m, g.n, trans, 1, 0, true);
}

// ---- ormqr, orgqr and gels over several blocks ----------------------------------

// With HQR_GPU_MIN_N=0 these run the GPU paths (src/cuda/qr_apply.cu) with
// blocks of 48 (hqr_set_nb) and the default, so that sizes that are not
// multiples of the block, several blocks, lda > m and ldc > m are covered;
// on a machine without a GPU they check the CPU path. Q is formed by the
// reference LAPACK, independent of the routines under test.

// Reflectors of a random m-by-k matrix (the reference's geqrf, lda = m + pad).
template <class T> Matrix<T> reference_qr(lint m, lint k, lint pad, std::vector<T> &tau, Matrix<T> *a0 = nullptr) {
  Matrix<T> a = random_matrix<T>(m, k, m + pad);
  if (a0) *a0 = a;
  tau.assign(size_t(std::max<lint>(k, 1)), T(0));
  std::vector<T> work(size_t(64 * std::max<lint>(k, 1)));
  assert_info(geqrf<T>(m, k, a.ptr(), a.ld, tau.data(), work.data(), lint(work.size()), Lib::ref), 0,
              "reference geqrf");
  tau.resize(size_t(k));
  return a;
}
// The full m-by-m Q of k reflectors, by the reference LAPACK.
template <class T> Matrix<T> reference_q(const Matrix<T> &qr, const std::vector<T> &tau, lint k) {
  const lint m = qr.m;
  Matrix<T> q(m, m);
  for (lint j = 0; j < k; ++j)
    for (lint i = 0; i < m; ++i) q(i, j) = qr(i, j);
  std::vector<T> work(size_t(64 * std::max<lint>(m, 1)));
  assert_info(orgqr<T>(m, m, k, q.ptr(), q.ld, tau.data(), work.data(), lint(work.size()), Lib::ref), 0,
              "reference orgqr");
  return q;
}

// DQRT03 over several blocks: every side/trans, ldc > m, the minimum LWORK
// for some; A and TAU unchanged (byte for byte, padding too).
template <class T> void ormqr_blocks(void **) {
  struct Case {
    lint nq, k, nc;
    int nb;
  };
  // nb 0 on the GPU: k = 256 and 600 take the one trip's blocks of up to
  // 512, whose T is inverted by inverse_upper (600: a second block of 88).
  constexpr Case kCases[] = {{300, 130, 5, 48}, {97, 97, 33, 48}, {200, 1, 3, 48}, {520, 300, 1, 0},
                             {150, 60, 150, 0}, {300, 256, 2, 0},  {700, 600, 3, 0}};
  const char tc = trans_h<T>();
  for (const Case &cs : kCases) {
    std::vector<T> tau;
    const Matrix<T> a = reference_qr<T>(cs.nq, cs.k, 3, tau);
    const Matrix<T> q = reference_q(a, tau, cs.k);
    for (char side : {'L', 'R'})
      for (char trans : {'N', tc}) {
        const lint cm = side == 'L' ? cs.nq : cs.nc, cn = side == 'L' ? cs.nc : cs.nq, ldc = cm + 2;
        const bool minimal = (cs.nq + side + trans) % 2 == 0;
        const std::string ctx = context("%c%s side=%c trans=%c m=%ld n=%ld k=%ld ldc=%ld nb=%d%s", prefix<T>(),
                                        mqr_base<T>(), side, trans, long(cm), long(cn), long(cs.k), long(ldc), cs.nb,
                                        minimal ? " minimum lwork" : "");
        const Matrix<T> c0 = random_matrix<T>(cm, cn, ldc);
        Matrix<T> c = c0, a1 = a;
        const std::vector<T> tau1 = tau;
        T w[2];
        assert_info(ormqr<T>(side, trans, cm, cn, cs.k, a1.ptr(), a1.ld, tau1.data(), c.ptr(), ldc, w, -1), 0,
                    ctx + " (query)");
        const lint lw = minimal ? ormqr_min_lwork(side, cm, cn) : work_size(w[0]);
        Work<T> work(lw);
        hqr_set_nb(cs.nb);
        assert_info(ormqr<T>(side, trans, cm, cn, cs.k, a1.ptr(), a1.ld, tau1.data(), c.ptr(), ldc, work.ptr(), lw), 0,
                    ctx);
        hqr_set_nb(0);
        if (!work.guard_intact()) fail_msg("%s: wrote past WORK(LWORK)", ctx.c_str());
        if (!same_bytes(a1, a) || !same_bytes(tau1, tau)) fail_msg("%s: A or TAU changed", ctx.c_str());
        lint bi, bj;
        if (!unchanged_where(c0, c, [](lint, lint) { return false; }, &bi, &bj))
          fail_msg("%s: padding C(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
        const Matrix<T> cc = block(c0, cm, cn);
        const char op = trans == 'N' ? 'N' : 'C';
        Matrix<T> want = side == 'L' ? product(q, op, cc, 'N') : product(cc, 'N', q, op);
        Matrix<T> got = block(c, cm, cn);
        for (lint j = 0; j < cn; ++j)
          for (lint i = 0; i < cm; ++i) got(i, j) -= want(i, j);
        assert_ratio(norm_one(got) / (double(cs.nq) * norm_one(cc) * eps<T>()), ctx);
      }
  }
}

// orgqr over several blocks: ||I - Q^H Q|| / (m eps), ||A - Q R|| / (m ||A|| eps)
// (n = k), Q against the reference's for k < n, padding of A unchanged.
template <class T> void orgqr_blocks(void **) {
  struct Case {
    lint m, n, k;
    int nb;
  };
  constexpr Case kCases[] = {{300, 130, 130, 48}, {97, 97, 97, 48},  {260, 200, 101, 48}, {150, 40, 0, 48},
                             {520, 300, 300, 0},  {310, 250, 120, 0}, {64, 1, 1, 48},     {300, 256, 256, 0},
                             {700, 640, 600, 0}};
  for (const Case &cs : kCases) {
    const lint m = cs.m, n = cs.n, k = cs.k;
    const std::string ctx = context("%c%s m=%ld n=%ld k=%ld nb=%d", prefix<T>(), gqr_base<T>(), long(m), long(n),
                                    long(k), cs.nb);
    std::vector<T> tau;
    Matrix<T> a0;
    const Matrix<T> f = reference_qr<T>(m, std::max<lint>(k, 1), 2, tau, &a0);
    tau.resize(size_t(k));
    Matrix<T> q = random_matrix<T>(m, n, m + 2);  // columns k.. random: orgqr must not read them
    for (lint j = 0; j < k; ++j)
      for (lint i = 0; i < m; ++i) q(i, j) = f(i, j);
    const Matrix<T> q0 = q;
    T w[2];
    assert_info(orgqr<T>(m, n, k, q.ptr(), q.ld, tau.data(), w, -1), 0, ctx + " (query)");
    Work<T> work(work_size(w[0]));
    hqr_set_nb(cs.nb);
    assert_info(orgqr<T>(m, n, k, q.ptr(), q.ld, tau.data(), work.ptr(), work.lwork), 0, ctx);
    hqr_set_nb(0);
    if (!work.guard_intact()) fail_msg("%s: wrote past WORK(LWORK)", ctx.c_str());
    lint bi, bj;
    if (!unchanged_where(q0, q, [](lint, lint) { return false; }, &bi, &bj))
      fail_msg("%s: padding A(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
    const Matrix<T> qq = block(q, m, n);
    assert_ratio(orthogonality(qq), ctx + " I - Q^H Q");
    const Matrix<T> full = reference_q(f, tau, k);
    Matrix<T> d = block(full, m, n);
    for (lint j = 0; j < n; ++j)
      for (lint i = 0; i < m; ++i) d(i, j) -= qq(i, j);
    assert_ratio(norm_one(d) / (double(m) * eps<T>()), ctx + " Q - Q_ref");
    if (k == n && n > 0) {  // A - Q R with R from the factorization
      Matrix<T> r = block(a0, m, n);
      subtract_product(r, qq, 'N', upper_trapezoid(block(f, n, n)), 'N');
      assert_ratio(norm_one(r) / (double(m) * norm_one(block(a0, m, n)) * eps<T>()), ctx + " A - Q R");
    }
  }
}

// The reference LAPACK's xGELQF (hqr does not export it).
template <class T> lint reference_gelqf(lint m, lint n, T *a, lint lda, T *tau, T *work, lint lwork) {
  using F = void(const lint *, const lint *, lapack_t<T> *, const lint *, lapack_t<T> *, lapack_t<T> *, const lint *,
                 lint *);
  const std::string name = std::string(1, prefix<T>()) + "gelqf_";
  lint info = -999;
  Routine<F *>{reinterpret_cast<F *>(reference_symbol(name.c_str())), true}(&m, &n, lp(a), &lda, lp(tau), lp(work),
                                                                            &lwork, &info);
  return info;
}

// gels over several blocks, trans N and T/C, nrhs 1 and > 1, ldb > max(m,n):
// DQRT16 with a consistent B, DQRT17 and the residual norm in B(n+1:m) with
// a random one; A as the reference's geqrf (m < n: gelqf) leaves it (|R|,
// |L|). Two tests, m >= n (gels_blocks) and m < n (gels_blocks_wide), so
// that a filter can aim HQR_FAULT's counted steps at the wide shapes' path.
struct GelsBlockCase {
  lint m, n, nrhs;
  int nb;
};
template <class T> void gels_block_cases(std::initializer_list<GelsBlockCase> cases);
template <class T> void gels_blocks(void **) {
  // 333x100x150 at nb 48: B wider than a block column, so over a set a
  // member holds A's narrower last block column and one of B's after it.
  gels_block_cases<T>({{333, 100, 1, 48}, {333, 100, 4, 48}, {97, 97, 2, 48}, {600, 1, 1, 48}, {700, 300, 1, 0},
                       {401, 130, 3, 0}, {333, 100, 150, 48}});
}
template <class T> void gels_blocks_wide(void **) {
  gels_block_cases<T>({{150, 260, 2, 48}, {130, 401, 3, 0}, {100, 333, 4, 48}, {1, 600, 1, 48}});
}
template <class T> void gels_block_cases(std::initializer_list<GelsBlockCase> cases) {
  for (const GelsBlockCase &cs : cases)
    for (char trans : {'N', trans_h<T>()}) {
      const lint m = cs.m, n = cs.n, nrhs = cs.nrhs, lda = m + 1, ldb = std::max(m, n) + 5;
      const lint p = trans == 'N' ? m : n, q = trans == 'N' ? n : m;
      const char op = op_of(trans);
      const std::string ctx = context("%cgels trans=%c m=%ld n=%ld nrhs=%ld nb=%d", prefix<T>(), trans, long(m),
                                      long(n), long(nrhs), cs.nb);
      const Matrix<T> a0 = random_matrix<T>(m, n, lda);
      const Matrix<T> am = block(a0, m, n);
      const double anorm = norm_one(am);
      for (int consistent = 0; consistent < 2; ++consistent) {
        Matrix<T> b0 = random_matrix<T>(std::max(m, n), nrhs, ldb);
        if (consistent && p > q) {
          Matrix<T> bx = product(am, op, random_matrix<T>(q, nrhs), 'N');
          for (lint j = 0; j < nrhs; ++j)
            for (lint i = 0; i < p; ++i) b0(i, j) = bx(i, j);
        }
        Matrix<T> a = a0, b = b0;
        hqr_set_nb(cs.nb);
        const Matrix<T> out = [&] {
          T w[2];
          assert_info(gels<T>(trans, m, n, nrhs, a.ptr(), lda, b.ptr(), ldb, w, -1), 0, ctx + " (query)");
          Work<T> work(work_size(w[0]));
          assert_info(gels<T>(trans, m, n, nrhs, a.ptr(), lda, b.ptr(), ldb, work.ptr(), work.lwork), 0, ctx);
          if (!work.guard_intact()) fail_msg("%s: wrote past WORK(LWORK)", ctx.c_str());
          return b;
        }();
        hqr_set_nb(0);
        lint bi, bj;
        if (!unchanged_where(a0, a, [](lint, lint) { return false; }, &bi, &bj) ||
            !unchanged_where(b0, out, [](lint, lint) { return false; }, &bi, &bj))
          fail_msg("%s: padding (%ld,%ld) of A or B was changed", ctx.c_str(), long(bi), long(bj));
        if (consistent) {
          const Matrix<T> x = block(out, q, nrhs);
          Matrix<T> r = block(b0, p, nrhs);
          subtract_product(r, am, op, x, 'N');
          assert_ratio(norm_one(r) / (double(std::max(m, n)) * anorm * norm_one(x) * eps<T>()), ctx + " DQRT16");
        } else if (p > q) {
          assert_dqrt17(am, op, b0, out, p, q, nrhs, ctx);
        }
        if (m >= n && !consistent) {  // A holds xGEQRF's R: |R| as the reference's
          Matrix<T> ref = a0;
          std::vector<T> tau(static_cast<size_t>(n)), work(static_cast<size_t>(64 * n));
          assert_info(geqrf<T>(m, n, ref.ptr(), lda, tau.data(), work.data(), lint(work.size()), Lib::ref), 0,
                      ctx + " (reference geqrf)");
          Matrix<T> d(n, n);
          for (lint j = 0; j < n; ++j)
            for (lint i = 0; i < n; ++i) d(i, j) = T(i <= j ? std::abs(a(i, j)) - std::abs(ref(i, j)) : 0);
          assert_ratio(norm_one(d) / (double(m) * anorm * eps<T>()), ctx + " |R| - |R_ref|");
        }
        if (m < n && !consistent) {  // A holds xGELQF's L: |L| as the reference's
          Matrix<T> ref = a0;
          std::vector<T> tau(static_cast<size_t>(m)), work(static_cast<size_t>(64 * m));
          assert_info(reference_gelqf<T>(m, n, ref.ptr(), lda, tau.data(), work.data(), lint(work.size())), 0,
                      ctx + " (reference gelqf)");
          Matrix<T> d(m, m);
          for (lint j = 0; j < m; ++j)
            for (lint i = 0; i < m; ++i) d(i, j) = T(i >= j ? std::abs(a(i, j)) - std::abs(ref(i, j)) : 0);
          assert_ratio(norm_one(d) / (double(n) * anorm * eps<T>()), ctx + " |L| - |L_ref|");
        }
      }
    }
}

// A rank-deficient A (m >= n: column j exactly zero, so R(j,j) = 0 exactly;
// m < n: row j, so L(j,j) = 0): INFO = j as the reference LAPACK's. Where
// xGELS applies Q first (m >= n 'N', m < n 'T'/'C') B is left as that
// product (its column norms those of the input; equal to the reference's up
// to the signs of Q's rows); where it solves first, B is left as it came.
// An all-zero A gives INFO = 0 and B(1:max(m,n),:) = 0. Over several blocks
// too.
template <class T> void gels_rank_deficient(void **) {
  struct Case {
    lint m, n, zero, nrhs;  // zero: the zero column (row for m < n), 0: all of A
    int nb;
  };
  constexpr Case kCases[] = {{40, 10, 4, 2, 0},  {333, 100, 77, 1, 48}, {200, 120, 1, 3, 48}, {120, 120, 120, 1, 48},
                             {50, 20, 0, 2, 0},  {300, 100, 0, 1, 48},  {10, 40, 4, 2, 0},    {100, 333, 77, 1, 48},
                             {60, 150, 60, 2, 48}, {30, 90, 0, 1, 48}};
  for (const Case &cs : kCases)
    for (char trans : {'N', trans_h<T>()}) {
      const lint m = cs.m, n = cs.n, nrhs = cs.nrhs, lda = m + 2, p = std::max(m, n), ldb = p + 3;
      const bool solve_first = (m >= n) == (trans != 'N');
      const std::string ctx = context("%cgels trans=%c m=%ld n=%ld zero %s %ld nrhs=%ld nb=%d", prefix<T>(), trans,
                                      long(m), long(n), m >= n ? "column" : "row", long(cs.zero), long(nrhs), cs.nb);
      Matrix<T> a0 = random_matrix<T>(m, n, lda);
      for (lint j = 0; j < n; ++j)
        for (lint i = 0; i < m; ++i)
          if (cs.zero == 0 || (m >= n ? j : i) == cs.zero - 1) a0(i, j) = T(0);
      const Matrix<T> b0 = random_matrix<T>(p, nrhs, ldb);
      Matrix<T> a = a0, b = b0, ra = a0, rb = b0;
      std::vector<T> work(size_t(64 * (p + nrhs)));
      hqr_set_nb(cs.nb);
      const lint info = gels<T>(trans, m, n, nrhs, a.ptr(), lda, b.ptr(), ldb, work.data(), lint(work.size()));
      hqr_set_nb(0);
      const lint ref =
          gels<T>(trans, m, n, nrhs, ra.ptr(), lda, rb.ptr(), ldb, work.data(), lint(work.size()), Lib::ref);
      assert_info(info, ref, ctx);
      assert_info(info, cs.zero, ctx + " (the zero line)");
      if (solve_first && cs.zero != 0) {
        if (!same_bytes(b, b0) || !same_bytes(rb, b0)) fail_msg("%s: B changed (LAPACK leaves it)", ctx.c_str());
        continue;
      }
      const lint rows = trans == 'N' ? m : n;  // B's rows that Q acts on
      for (lint j = 0; j < nrhs; ++j) {
        double bn = 0, gn = 0, rn = 0;
        for (lint i = 0; i < (cs.zero == 0 ? p : rows); ++i) {
          bn += std::norm(std::complex<double>(b0(i, j)));
          gn += std::norm(std::complex<double>(b(i, j)));
          rn += std::norm(std::complex<double>(rb(i, j)));
        }
        if (cs.zero == 0) {
          if (gn != 0 || rn != 0) fail_msg("%s: B not zeroed (hqr %g, reference %g)", ctx.c_str(), gn, rn);
          continue;
        }
        assert_ratio(std::abs(std::sqrt(gn) - std::sqrt(bn)) / (double(p) * std::sqrt(bn) * eps<T>()),
                     ctx + " ||Q b|| = ||b||");
        double d = 0;  // |Q b| against the reference's, elementwise
        for (lint i = 0; i < rows; ++i)
          d = std::max(d, std::abs(double(std::abs(b(i, j))) - double(std::abs(rb(i, j)))));
        assert_ratio(d / (double(p) * std::sqrt(bn) * eps<T>()), ctx + " |Q b| - |Q b|_ref");
      }
    }
}

// max |a_ij| and max |b_ij| below LAPACK's SMLNUM or above BIGNUM: xGELS
// scales A (and leaves R of the scaled A) and B (trans 'N': its residual
// rows stay scaled); hqr leaves what the reference leaves.
template <class T> void gels_scaled(void **) {
  using R = real_t<T>;
  const R smlnum = std::numeric_limits<R>::min() / std::numeric_limits<R>::epsilon();
  const lint nrhs = 2;
  for (R scale : {R(smlnum / 64), R(1) / smlnum * 8})
    for (char trans : {'N', trans_h<T>()})
      for (lint wide = 0; wide < 2; ++wide) {
        const lint m = wide ? 60 : 150, n = wide ? 150 : 60, lda = m, ldb = std::max(m, n);
        const int nb = trans == 'N' ? 0 : 48;
        const std::string ctx = context("%cgels trans=%c m=%ld n=%ld max|a_ij| ~ %g nb=%d", prefix<T>(), trans, long(m),
                                        long(n), double(scale), nb);
        Matrix<T> a0 = random_matrix<T>(m, n, lda), b0 = random_matrix<T>(ldb, nrhs, ldb);
        for (auto &x : a0.data) x *= scale;
        for (auto &x : b0.data) x *= scale;
        Matrix<T> a = a0, b = b0, ra = a0, rb = b0;
        std::vector<T> work(size_t(64 * (n + nrhs)));
        hqr_set_nb(nb);
        assert_info(gels<T>(trans, m, n, nrhs, a.ptr(), lda, b.ptr(), ldb, work.data(), lint(work.size())), 0, ctx);
        hqr_set_nb(0);
        assert_info(
            gels<T>(trans, m, n, nrhs, ra.ptr(), lda, rb.ptr(), ldb, work.data(), lint(work.size()), Lib::ref), 0,
            ctx + " (reference)");
        // R (L) and B relative to the reference's largest entries (|.|: signs are a convention).
        double dr = 0, nr = 0, db = 0, nbm = 0;
        for (lint j = 0; j < std::min(m, n); ++j)
          for (lint i = wide ? j : 0; i <= (wide ? m - 1 : j); ++i) {
            dr = std::max(dr, std::abs(double(std::abs(a(i, j))) - double(std::abs(ra(i, j)))));
            nr = std::max(nr, double(std::abs(ra(i, j))));
          }
        for (lint j = 0; j < nrhs; ++j)
          for (lint i = 0; i < ldb; ++i) {
            db = std::max(db, std::abs(double(std::abs(b(i, j))) - double(std::abs(rb(i, j)))));
            nbm = std::max(nbm, double(std::abs(rb(i, j))));
          }
        if (!(nr > 0) || !(nbm > 0)) fail_msg("%s: the reference's R or B is zero", ctx.c_str());
        assert_ratio(dr / (nr * double(m) * eps<T>()), ctx + " |R| - |R_ref|");
        assert_ratio(db / (nbm * double(m) * eps<T>() * 1e3), ctx + " |B| - |B_ref|");
      }
}

// geqrf of tiny and huge data, unscaled (xGEQRF does not scale): xLARFG's
// norms must neither under- nor overflow, and where beta falls below
// SAFMIN it rescales. |R| against the reference's, relative to its largest
// entry, and tau's real parts in [1, 2] where tau is not zero.
template <class T> void geqrf_scaled(void **) {
  using R = real_t<T>;
  const R smlnum = std::numeric_limits<R>::min() / std::numeric_limits<R>::epsilon();
  for (R scale : {R(smlnum / 64), R(std::numeric_limits<R>::min() * 4), R(1) / smlnum * 8})
    for (const Shape &sh : {Shape{150, 60}, Shape{60, 150}, Shape{97, 97}}) {
      const lint m = sh.m, n = sh.n, k = std::min(m, n);
      const std::string ctx =
          context("%cgeqrf m=%ld n=%ld max|a_ij| ~ %g", prefix<T>(), long(m), long(n), double(scale));
      Matrix<T> a0 = random_matrix<T>(m, n, m);
      for (auto &x : a0.data) x *= scale;
      Matrix<T> a = a0, ra = a0;
      std::vector<T> tau(static_cast<size_t>(k)), rtau(static_cast<size_t>(k)), work(static_cast<size_t>(64 * n));
      assert_info(geqrf<T>(m, n, a.ptr(), m, tau.data(), work.data(), lint(work.size())), 0, ctx);
      assert_info(geqrf<T>(m, n, ra.ptr(), m, rtau.data(), work.data(), lint(work.size()), Lib::ref), 0,
                  ctx + " (reference)");
      double dr = 0, nr = 0;
      for (lint j = 0; j < n; ++j)
        for (lint i = 0; i <= std::min(j, m - 1); ++i) {
          dr = std::max(dr, std::abs(double(std::abs(a(i, j))) - double(std::abs(ra(i, j)))));
          nr = std::max(nr, double(std::abs(ra(i, j))));
        }
      if (!(nr > 0)) fail_msg("%s: the reference's R is zero", ctx.c_str());
      assert_ratio(dr / (nr * double(m) * eps<T>()), ctx + " |R| - |R_ref|");
      for (lint j = 0; j < k; ++j)
        if (tau[size_t(j)] != T(0) && !(std::real(tau[size_t(j)]) >= 1 && std::real(tau[size_t(j)]) <= 2))
          fail_msg("%s: tau(%ld) = %g outside [1, 2]", ctx.c_str(), long(j + 1), double(std::real(tau[size_t(j)])));
    }
}

// ---- hard inputs: xGEQRF and xGELS on the GPU path to the end ----------------

// Entries near overflow or underflow, duplicate columns with a zero column,
// graded columns, and an all-zero matrix. On a GPU the hybrid geqrf's
// CholeskyQR2 panels rightly reject such panels and hand them to cuSOLVER's
// geqrf on the device; that fallback used to fail for any panel shape but
// the first one's (cuSOLVER's workspace was sized for it), and the CPU
// finished the call (path=cpu-resumed (CUDA error)), which the answers alone
// do not show. So with a GPU serving and HQR_GPU_MIN_N=0 each call must
// also count as one GPU path to the end (hqr_path_calls('g') one more, 'r'
// and 'c' none; not under HQR_FAULT). Without a GPU these check the CPU
// path's answers (and that no call counts as a GPU one). 1000x520 and
// 3001x301 take the hybrid geqrf on the GPU, 700x700 the one trip; with a
// GPU (or HQR_TEST_LARGE=1) also 24000x2400 in double, where the bug
// showed, and 12000x1200 in the other types.
enum class Hard { huge, tiny, rank_deficient, graded, zero };

// Duplicate columns (column j = column j-1 for odd j), but this odd one is
// zero: R(z,z) = 0 exactly, TAU(z+1) = 0 and the column stays zero.
lint zero_column(lint n) { return (n / 2) | 1; }

// Entry scale of the huge and tiny cases: 1e200 and 1e-200 in double, 1e19
// and 1e-19 in single, where the Gram matrix A^H A over- and underflows.
template <class T> real_t<T> hard_scale(Hard h) {
  constexpr bool single = std::is_same_v<real_t<T>, float>;
  if (h == Hard::huge) return real_t<T>(single ? 1e19 : 1e200);
  if (h == Hard::tiny) return real_t<T>(single ? 1e-19 : 1e-200);
  return real_t<T>(1);
}
// Graded columns: column j scaled by 10^(-g j/(n-1)), g = 15 in double, 6 in single.
template <class T> double grade() { return std::is_same_v<real_t<T>, float> ? 6 : 15; }

template <class T> std::string hard_name(Hard h, lint n) {
  switch (h) {
    case Hard::huge: return context("entries ~ %g", double(hard_scale<T>(h)));
    case Hard::tiny: return context("entries ~ %g", double(hard_scale<T>(h)));
    case Hard::rank_deficient: return context("duplicate columns, column %ld zero", long(zero_column(n)));
    case Hard::graded: return context("column j scaled by 10^(-%g j/(n-1))", grade<T>());
    case Hard::zero: return "zero matrix";
  }
  return "";
}

// U(-1,1) (both parts for complex types), the imaginary part never zero.
template <class T> T hard_value() {
  for (;;) {
    const T x = random_value<T>();
    if (!is_complex_v<T> || std::imag(x) != 0) return x;
  }
}

// The m-by-n matrix of case h (padding rows: unscaled random values).
template <class T> Matrix<T> hard_matrix(Hard h, lint m, lint n, lint lda) {
  Matrix<T> a(m, n, lda);
  for (auto &x : a.data) x = hard_value<T>();
  const lint z = zero_column(n);
  for (lint j = 0; j < n; ++j) {
    const real_t<T> s = h == Hard::graded
                            ? real_t<T>(std::pow(10.0, -grade<T>() * double(j) / double(std::max<lint>(n - 1, 1))))
                            : hard_scale<T>(h);
    for (lint i = 0; i < m; ++i) {
      if (h == Hard::zero || (h == Hard::rank_deficient && j == z))
        a(i, j) = T(0);
      else if (h == Hard::rank_deficient && j % 2 == 1)
        a(i, j) = a(i, j - 1);
      else
        a(i, j) *= s;
    }
  }
  return a;
}

// Every size goes to a GPU: one serves calls and HQR_GPU_MIN_N=0. Not
// under HQR_FAULT, where the CPU rightly takes over.
bool gpu_forced() {
  const char *v = std::getenv("HQR_GPU_MIN_N"), *f = std::getenv("HQR_FAULT");
  char *end = nullptr;
  if (!v || !*v || std::strtol(v, &end, 10) != 0 || *end != '\0' || (f && *f)) return false;
  return hqr_device_count() > 0;
}

struct PathCounts {
  long c, g, r;
};
PathCounts path_counts() { return {hqr_path_calls('c'), hqr_path_calls('g'), hqr_path_calls('r')}; }

// The one call since `before` ran a GPU path to the end, where every size
// goes to a GPU: 'g' one more, and neither 'r' nor 'c' more (a CPU call may
// count more than once: the system LAPACK's own calls of geqrf and ormqr
// come back through hqr's exports, and one that went to the GPU would count
// as 'g'). Where no GPU serves, no call counts as a GPU one.
void assert_gpu_path(const PathCounts &before, const std::string &ctx) {
  const long c = hqr_path_calls('c') - before.c, g = hqr_path_calls('g') - before.g,
             r = hqr_path_calls('r') - before.r;
  if (gpu_forced()) {
    if (g != 1 || r != 0 || c != 0)
      fail_msg("%s: %ld calls ran a GPU path to the end, %ld were finished by the CPU and %ld ran on the CPU; "
               "expected 1, 0 and 0 (a GPU serves and HQR_GPU_MIN_N=0; HQR_VERBOSE=1 shows the paths)",
               ctx.c_str(), g, r, c);
  } else if (hqr_device_count() == 0 && (g != 0 || r != 0)) {
    fail_msg("%s: no GPU serves calls, yet the path counters grew ('g' by %ld, 'r' by %ld)", ctx.c_str(), g, r);
  }
}

bool hard_large() {
  const char *v = std::getenv("HQR_TEST_LARGE");
  return hqr_device_count() > 0 || (v && *v && std::strcmp(v, "0") != 0);
}
struct HardShape {
  lint m, n, pad;
};
template <class T> std::vector<HardShape> hard_shapes() {
  std::vector<HardShape> s = {{1000, 520, 1}, {3001, 301, 0}, {700, 700, 2}};
  if (hard_large()) s.push_back(std::is_same_v<T, double> ? HardShape{24000, 2400, 0} : HardShape{12000, 1200, 0});
  return s;
}

// num / den, where both come from norms: 0 when both are 0 (the zero matrix).
double ratio_of(double num, double den) { return den > 0 ? num / den : num == 0 ? 0 : HUGE_VAL; }

template <class T> double max_abs(const Matrix<T> &a) {
  double r = 0;
  for (lint j = 0; j < a.n; ++j)
    for (lint i = 0; i < a.m; ++i) r = std::max(r, double(std::abs(a(i, j))));
  return r;
}
// 2^-e with max * 2^-e in [0.5, 1): a matrix multiplied by it is the same
// matrix exactly, scaled so that products and squares of its entries
// neither over- nor underflow (ratios of scaled norms equal the originals').
template <class T> real_t<T> pow2_scale(double max) {
  if (!(max > 0) || !std::isfinite(max)) return real_t<T>(1);
  int e = 0;
  std::frexp(max, &e);
  return std::ldexp(real_t<T>(1), -e);
}
// s times the leading m-by-n block, tightly packed.
template <class T> Matrix<T> scaled(const Matrix<T> &a, real_t<T> s) {
  Matrix<T> b = block(a, a.m, a.n);
  for (auto &x : b.data) x *= s;
  return b;
}
// 2-norm of s * a(i0:i1, j), accumulated in double.
template <class T> double column_norm(const Matrix<T> &a, lint j, lint i0, lint i1, double s) {
  double t = 0;
  for (lint i = i0; i < i1; ++i) t += std::norm(std::complex<double>(a(i, j)) * s);
  return std::sqrt(t);
}

// ||a_j||_1 of every column, accumulated in double.
template <class T> std::vector<double> column_norms_one(const Matrix<T> &a) {
  std::vector<double> s(size_t(a.n), 0.0);
  for (lint j = 0; j < a.n; ++j)
    for (lint i = 0; i < a.m; ++i) s[size_t(j)] += std::abs(std::complex<double>(a(i, j)));
  return s;
}

// Entries of column j (rows i0..i1-1) that are not exactly zero.
template <class T> void assert_zero_column(const Matrix<T> &a, lint j, lint i0, lint i1, const std::string &ctx) {
  for (lint i = i0; i < i1; ++i)
    if (a(i, j) != T(0))
      fail_msg("%s: A(%ld,%ld) = %g after the call, LAPACK's is exactly 0", ctx.c_str(), long(i + 1), long(j + 1),
               double(std::abs(a(i, j))));
}

// xGEQRF: DQRT02's ratios with the economical Q (xORGQR/xUNGQR, m x n):
// ||A - Q1 R|| / (m ||A|| eps) and ||I - Q1^H Q1|| / (m eps), relative and
// so independent of the scale (no entry is squared: Q1 R's products are
// bounded by ||A||), tau in LAPACK's range, padding unchanged. The zero
// matrix: tau all 0 and A all 0 (as LAPACK leaves them); the zero column:
// tau 0 there and the column still zero.
template <class T> void hard_geqrf(Hard h) {
  for (const HardShape &s : hard_shapes<T>()) {
    const lint m = s.m, n = s.n, lda = m + s.pad;
    const std::string ctx = context("%cgeqrf m=%ld n=%ld lda=%ld, %s", prefix<T>(), long(m), long(n), long(lda),
                                    hard_name<T>(h, n).c_str());
    const Matrix<T> a0 = hard_matrix<T>(h, m, n, lda);
    Matrix<T> a = a0;
    const PathCounts before = path_counts();
    const std::vector<T> tau = factor(a, ctx);  // the LWORK query does not count as a call
    assert_gpu_path(before, ctx);
    lint bi, bj;
    if (!unchanged_where(a0, a, [](lint, lint) { return false; }, &bi, &bj))
      fail_msg("%s: padding A(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
    assert_lapack_reflectors(a, tau, ctx);
    if (h == Hard::zero || h == Hard::rank_deficient)
      for (lint j = h == Hard::zero ? 0 : zero_column(n); j < (h == Hard::zero ? n : zero_column(n) + 1); ++j) {
        if (tau[size_t(j)] != T(0))
          fail_msg("%s: TAU(%ld) = %g for a zero column, LAPACK's is 0", ctx.c_str(), long(j + 1),
                   double(std::abs(tau[size_t(j)])));
        assert_zero_column(a, j, 0, m, ctx);
      }

    const Matrix<T> q = form_q(a, tau, n, n, ctx);  // m x n, ld m + 1
    const Matrix<T> r = upper_trapezoid(block(a, n, n));
    Matrix<T> d = a0;
    gemm<T>('N', 'N', m, n, n, T(-1), q.data.data(), q.ld, r.data.data(), r.ld, T(1), d.ptr(), d.ld);
    assert_ratio(ratio_of(norm_one(d), double(m) * norm_one(a0) * eps<T>()), ctx + " A - Q1 R");
    assert_ratio(orthogonality(q), ctx + " I - Q1^H Q1");
    // Householder QR's backward error is small column by column too
    // (Higham, Theorem 19.4), which the ratio above does not see where the
    // columns are graded.
    const std::vector<double> dn = column_norms_one(d), an = column_norms_one(a0);
    double worst = 0;
    for (lint j = 0; j < n; ++j)
      worst = std::max(worst, ratio_of(dn[size_t(j)], double(m) * an[size_t(j)] * eps<T>()));
    assert_ratio(worst, ctx + " max_j ||a_j - Q1 r_j|| / ||a_j||");
  }
}

// xGELS, trans 'N', m >= n, three right-hand sides: the first consistent
// (A x0), the others random at A's scale. Full rank: INFO = 0; m > n:
// DQRT16 for the first, DQRT17 for all, and each residual's 2-norm equal to
// that of B(n+1:m, j) as xGELS leaves it (A and the residual scaled by
// powers of two before A^H r and the 2-norms, which would over- or
// underflow at these scales); m = n: DQRT16 for all. Duplicate columns
// with a zero column: INFO = i > 0 with R(i,i) the first exact zero on R's
// diagonal (the zero column's, unless rounding left one earlier), and
// B(1:m, j) = Q^H b_j keeping b_j's norm. The zero matrix: INFO = 0 and
// B(1:m,:) = 0.
template <class T> void hard_gels(Hard h) {
  const lint nrhs = 3;
  for (const HardShape &s : hard_shapes<T>()) {
    const lint m = s.m, n = s.n, lda = m + s.pad, ldb = m + 2;
    const std::string ctx = context("%cgels trans=N m=%ld n=%ld nrhs=%ld lda=%ld ldb=%ld, %s", prefix<T>(), long(m),
                                    long(n), long(nrhs), long(lda), long(ldb), hard_name<T>(h, n).c_str());
    const Matrix<T> a0 = hard_matrix<T>(h, m, n, lda);
    Matrix<T> b0(m, nrhs, ldb);
    for (auto &x : b0.data) x = hard_value<T>() * hard_scale<T>(h);
    const Matrix<T> x0 = random_matrix<T>(n, 1);
    gemm<T>('N', 'N', m, 1, n, T(1), a0.data.data(), a0.ld, x0.data.data(), x0.ld, T(0), b0.ptr(), b0.ld);

    Matrix<T> a = a0, b = b0;
    T w[2] = {T(-3), T(-3)};
    assert_info(gels<T>('N', m, n, nrhs, a.ptr(), lda, b.ptr(), ldb, w, -1), 0, ctx + " (query)");
    Work<T> work(std::max(work_size(w[0]), gels_min_lwork(m, n, nrhs)));
    const PathCounts before = path_counts();
    const lint info = gels<T>('N', m, n, nrhs, a.ptr(), lda, b.ptr(), ldb, work.ptr(), work.lwork);
    assert_gpu_path(before, ctx);
    if (!work.guard_intact()) fail_msg("%s: wrote past WORK(LWORK)", ctx.c_str());
    lint bi, bj;
    if (!unchanged_where(a0, a, [](lint, lint) { return false; }, &bi, &bj) ||
        !unchanged_where(b0, b, [](lint, lint) { return false; }, &bi, &bj))
      fail_msg("%s: padding (%ld,%ld) of A or B was changed", ctx.c_str(), long(bi), long(bj));

    if (h == Hard::zero) {
      assert_info(info, 0, ctx);
      for (lint j = 0; j < nrhs; ++j) assert_zero_column(b, j, 0, m, ctx + " (B)");
      for (lint j = 0; j < n; ++j) assert_zero_column(a, j, 0, m, ctx);
      continue;
    }
    const double sb = pow2_scale<T>(max_abs(b0));
    if (h == Hard::rank_deficient) {
      const lint z = zero_column(n);
      if (info < 1 || info > z + 1 || a(info - 1, info - 1) != T(0))
        fail_msg("%s: INFO %ld, expected the first exact zero on R's diagonal (R(%ld,%ld) at the latest)", ctx.c_str(),
                 long(info), long(z + 1), long(z + 1));
      for (lint i = 0; i + 1 < info; ++i)
        if (a(i, i) == T(0))
          fail_msg("%s: INFO %ld, but R(%ld,%ld) = 0 before", ctx.c_str(), long(info), long(i + 1), long(i + 1));
      assert_zero_column(a, z, 0, m, ctx);
      for (lint j = 0; j < nrhs; ++j) {
        const double bn = column_norm(b0, j, 0, m, sb), gn = column_norm(b, j, 0, m, sb);
        assert_ratio(std::abs(gn - bn) / (double(m) * bn * eps<T>()),
                     ctx + context(" ||Q^H b|| = ||b||, column %ld", long(j + 1)));
      }
      continue;
    }
    assert_info(info, 0, ctx);
    const Matrix<T> x = block(b, n, nrhs);
    Matrix<T> r = block(b0, m, nrhs);  // B - A X
    gemm<T>('N', 'N', m, nrhs, n, T(-1), a0.data.data(), a0.ld, x.data.data(), x.ld, T(1), r.ptr(), r.ld);
    // DQRT16 for the consistent columns, and its column-by-column form
    // ||r|| / (max(m,n) (|| |A| |x| || + ||b||) eps), which Householder QR's
    // backward error also satisfies and which graded columns need: there
    // ||A|| ||x|| is far larger.
    const std::vector<double> an = column_norms_one(a0);
    for (lint j = 0; j < (m == n ? nrhs : 1); ++j) {
      const double rn = norm_one(block(r, m, 1, 0, j));
      assert_ratio(ratio_of(rn, double(std::max(m, n)) * norm_one(a0) * norm_one(block(x, n, 1, 0, j)) * eps<T>()),
                   ctx + context(" DQRT16, column %ld", long(j + 1)));
      double ax = 0;
      for (lint l = 0; l < n; ++l) ax += an[size_t(l)] * std::abs(x(l, j));
      assert_ratio(ratio_of(rn, double(std::max(m, n)) * (ax + norm_one(block(b0, m, 1, 0, j))) * eps<T>()),
                   ctx + context(" ||r|| / (|| |A| |x| || + ||b||), column %ld", long(j + 1)));
    }
    // A square A: every column is consistent, and r's size is set by A's
    // condition number; DQRT17 and the residual's norm are for m > n.
    if (m == n) continue;
    const real_t<T> sa = pow2_scale<T>(max_abs(a0));
    const Matrix<T> as = scaled(a0, sa), rs = scaled(r, real_t<T>(sb)),
                    bs = scaled(block(b0, m, nrhs), real_t<T>(sb));
    assert_ratio(ratio_of(norm_one(product(as, 'C', rs, 'N')),
                          double(std::max({m, n, nrhs})) * norm_one(as) * norm_one(bs) * eps<T>()),
                 ctx + " DQRT17");
    for (lint j = 0; j < nrhs; ++j) {
      const double rn = column_norm(r, j, 0, m, sb), tn = column_norm(b, j, n, m, sb),
                   bn = column_norm(b0, j, 0, m, sb);
      assert_ratio(std::abs(rn - tn) / (double(m) * bn * eps<T>()),
                   ctx + context(" residual norm in B(n+1:m, %ld)", long(j + 1)));
    }
  }
}

#define HARD_TESTS(kind)                                                           \
  template <class T> void hard_geqrf_##kind(void **) { hard_geqrf<T>(Hard::kind); } \
  template <class T> void hard_gels_##kind(void **) { hard_gels<T>(Hard::kind); }
HARD_TESTS(huge)
HARD_TESTS(tiny)
HARD_TESTS(rank_deficient)
HARD_TESTS(graded)
HARD_TESTS(zero)
#undef HARD_TESTS

// ---- LWORK too small --------------------------------------------------------

// One below LAPACK's minimum (and 0, and -2): XERBLA once with the routine's
// name and LWORK's position, INFO = -position, the arrays unchanged; the
// reference LAPACK agrees.
template <class T> void lwork_too_small(void **) {
  const lint m = 9, n = 6, nrhs = 2, ld = 11;
  Matrix<T> a = random_matrix<T>(m, n, ld), b = random_matrix<T>(ld, nrhs, ld);
  Matrix<T> qa = random_matrix<T>(m, m, ld);
  std::vector<T> tau(static_cast<size_t>(m));
  for (auto &t : tau) t = random_value<T>();
  const Matrix<T> a0 = a, b0 = b, qa0 = qa;
  const std::vector<T> tau0 = tau;
  std::vector<T> work(64);
  auto unchanged = [&](const char *what) {
    if (!same_bytes(a, a0) || !same_bytes(b, b0) || !same_bytes(qa, qa0) || !same_bytes(tau, tau0))
      fail_msg("%s: an array changed on an argument error", what);
  };
  for (Lib lib : {Lib::hqr, Lib::ref}) {
    const char *who = lib == Lib::hqr ? "hqr" : "reference LAPACK";
    for (lint bad : {lint(-2), lint(0), lint(1)}) {
      const std::string c = context("%s lwork=%ld", who, long(bad));
      xerbla_reset();
      // geqrf: LWORK >= max(1, N), argument 7
      lint lw = bad == 1 ? geqrf_min_lwork(m, n) - 1 : bad;
      assert_info(geqrf<T>(m, n, a.ptr(), ld, tau.data(), work.data(), lw, lib), -7, c + " geqrf");
      assert_xerbla(xerbla_name<T>("geqrf").c_str(), 7);
      // orgqr: LWORK >= max(1, N), argument 8
      lw = bad == 1 ? orgqr_min_lwork(m, m) - 1 : bad;
      assert_info(orgqr<T>(m, m, n, qa.ptr(), ld, tau.data(), work.data(), lw, lib), -8, c + " orgqr");
      assert_xerbla(xerbla_name<T>(gqr_base<T>()).c_str(), 8);
      // ormqr: LWORK >= max(1, N) (side L) or max(1, M) (side R), argument 12
      for (char side : {'L', 'R'}) {
        const lint cm = side == 'L' ? m : nrhs + 3, cn = side == 'L' ? nrhs + 3 : m;
        Matrix<T> cmat = random_matrix<T>(cm, cn, ld);
        const Matrix<T> c0 = cmat;
        lw = bad == 1 ? ormqr_min_lwork(side, cm, cn) - 1 : bad;
        assert_info(ormqr<T>(side, 'N', cm, cn, n, a.ptr(), ld, tau.data(), cmat.ptr(), ld, work.data(), lw, lib),
                    -12, c + context(" ormqr side=%c", side));
        assert_xerbla(xerbla_name<T>(mqr_base<T>()).c_str(), 12);
        if (!same_bytes(cmat, c0)) fail_msg("%s: ormqr changed C on an argument error", c.c_str());
      }
      // gels: LWORK >= max(1, MN + max(MN, NRHS)), argument 10
      for (char trans : {'N', trans_h<T>()}) {
        lw = bad == 1 ? gels_min_lwork(m, n, nrhs) - 1 : bad;
        assert_info(gels<T>(trans, m, n, nrhs, a.ptr(), ld, b.ptr(), ld, work.data(), lw, lib), -10,
                    c + context(" gels trans=%c", trans));
        assert_xerbla(xerbla_name<T>("gels").c_str(), 10);
      }
      unchanged(c.c_str());
    }
  }
}

// hqr's rewrite of a reflector with nothing to eliminate into LAPACK's
// (host/lapack_reflectors.hpp; cuSOLVER's geqrf, the GPU paths' fallback
// panel, may take tau = 2 there): LAPACK's own QR of a matrix whose column 0
// is alpha alone (complex alpha in c/z: LAPACK's tau is not 0 there) and
// whose column 7 is zero, with both reflectors changed into another
// unitary H (row i of R scaled with it), must come back as LAPACK's.
template <class T> void zero_reflectors_as_lapack(void **) {
  using namespace testing;
  const lint m = 50, n = 20;
  Matrix<T> a = random_matrix<T>(m, n, m + 2);
  for (lint i = 1; i < m; ++i) a(i, 0) = T(0);
  for (lint i = 0; i < m; ++i) a(i, 7) = T(0);
  std::vector<T> tau(n), work(std::size_t(64) * n);
  assert_int_equal(geqrf<T>(m, n, a.ptr(), a.ld, tau.data(), work.data(), lint(work.size()), Lib::ref), 0);
  const Matrix<T> ref = a;
  const std::vector<T> ref_tau = tau;
  T other;  // 1 - conj(other) has modulus 1
  if constexpr (is_complex_v<T>)
    other = T(real_t<T>(1 - std::cos(0.7)), real_t<T>(std::sin(0.7)));
  else
    other = T(2);
  for (lint c : {lint(0), lint(7)}) {
    const T f = (T(1) - cj(other)) / (T(1) - cj(tau[c]));
    for (lint j = c; j < n; ++j) a(c, j) *= f;
    tau[c] = other;
  }
  hqr::lapack_zero_reflectors(m, n, a.ptr(), a.ld, tau.data());
  const double tol = 8 * eps<T>();
  for (lint j = 0; j < n; ++j) {
    if (std::abs(tau[j] - ref_tau[j]) > tol) fail_msg("tau(%ld) differs from LAPACK's", long(j + 1));
    for (lint i = 0; i < m; ++i)
      if (std::abs(a(i, j) - ref(i, j)) > tol * (1 + std::abs(ref(i, j))))
        fail_msg("A(%ld,%ld) differs from LAPACK's", long(i + 1), long(j + 1));
  }
}

}  // namespace

#define ALL_TYPES(test)                                                                                  \
  cmocka_unit_test(test<float>), cmocka_unit_test(test<double>), cmocka_unit_test(test<std::complex<float>>), \
      cmocka_unit_test(test<std::complex<double>>)

int main() {
  const struct CMUnitTest tests[] = {
      ALL_TYPES(geqrf_residual), ALL_TYPES(geqrf_repeated), ALL_TYPES(geqrf_minimum_lwork), ALL_TYPES(geqrf_panels),
      ALL_TYPES(ormqr_vs_explicit_q), ALL_TYPES(ormqr_quick_return), ALL_TYPES(gels_residual), ALL_TYPES(gels_repeated),
      ALL_TYPES(gels_at_mapping_end),
      ALL_TYPES(lwork_too_small), ALL_TYPES(ormqr_blocks), ALL_TYPES(orgqr_blocks), ALL_TYPES(gels_blocks),
      ALL_TYPES(gels_blocks_wide), ALL_TYPES(gels_rank_deficient), ALL_TYPES(gels_scaled), ALL_TYPES(geqrf_scaled),
      cmocka_unit_test(catch_up_schedule),
      // Hard inputs ("hard_*": not matched by the GPU machine's 'geqrf*' and
      // '*_blocks*' fault runs, where the CPU is meant to take over).
      ALL_TYPES(hard_geqrf_huge),    ALL_TYPES(hard_geqrf_tiny),     ALL_TYPES(hard_geqrf_rank_deficient),
      ALL_TYPES(hard_geqrf_graded),  ALL_TYPES(hard_geqrf_zero),     ALL_TYPES(hard_gels_huge),
      ALL_TYPES(hard_gels_tiny),     ALL_TYPES(hard_gels_rank_deficient), ALL_TYPES(hard_gels_graded),
      ALL_TYPES(hard_gels_zero),     ALL_TYPES(zero_reflectors_as_lapack),
  };
  // HQR_TEST_FILTER (a cmocka pattern, e.g. "geqrf*") runs a subset: the GPU
  // machine's fault and sanitizer runs.
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
