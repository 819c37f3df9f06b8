// xGELSD against the reference LAPACK's: tall shapes on hqr's path (A = QR
// and Q**H B through hqr's xGEQRF/xORMQR; R's bidiagonal form, on the GPU
// from gelsd.cpp's orders or with HQR_GPU_MIN_N, else on the CPU; then S by
// xBDSQR and X by a triangular solve with R where R has full rank by a
// margin, else the next LAPACK's xORMBR/xLALSD) and
// the shapes hqr forwards (below LAPACK's MNTHR = 1.6 n, wide, empty).
// Checked: INFO and RANK as the reference's; S within max(m,n) eps of it;
// X near the reference's (within cond^2 max(m,n) eps) and, as LAPACK's
// xQRT17, ||A**H (B - A X)|| / (max(m,n,nrhs) ||A|| ||B|| eps); for full
// rank, B's rows n+1:m carry the residual's norm (numpy's lstsq reads it);
// WORK(1)/IWORK(1)/RWORK(1) on exit as the query returned; B's padding
// untouched. Rank-deficient A (rank n/2, RCOND between the two groups of
// singular values); data LAPACK scales (1e-300, 1e300), A = 0 and NaN
// (forwarded: results as LAPACK's); the smallest LWORK the reference
// accepts, and one less (-12, A and B untouched); illegal arguments. With a
// GPU and HQR_GPU_MIN_N=0, each tall call must end on a GPU path (the QR's
// and, with NRHS >= 1, the bidiagonal form's: where that fails, the call's
// path is cpu-resumed).
#include "testing.hpp"

using namespace testing;

namespace {

template <class T> using R = real_t<T>;

template <class T>
lint gelsd(lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, R<T> *s, R<T> rcond, lint *rank, T *work,
           lint lwork, R<T> *rwork, lint *iwork, Lib lib = Lib::hqr) {
  lint info = -999;
  if constexpr (std::is_same_v<T, float>)
    resolve<T>(sgelsd_, lib, "gelsd")(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, &info);
  else if constexpr (std::is_same_v<T, double>)
    resolve<T>(dgelsd_, lib, "gelsd")(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, &info);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    resolve<T>(cgelsd_, lib, "gelsd")(&m, &n, &nrhs, lp(a), &lda, lp(b), &ldb, s, &rcond, rank, lp(work), &lwork,
                                      rwork, iwork, &info);
  else
    resolve<T>(zgelsd_, lib, "gelsd")(&m, &n, &nrhs, lp(a), &lda, lp(b), &ldb, s, &rcond, rank, lp(work), &lwork,
                                      rwork, iwork, &info);
  return info;
}

// Whether hqr takes the call (LAPACK's path 1a), not the next LAPACK.
bool hqr_path(lint m, lint n) { return n > 0 && m >= n && m >= lint(float(n) * 1.6f); }

template <class T> struct Out {
  Matrix<T> a, b;
  std::vector<R<T>> s;
  lint rank = -1, info = -999, iwork0 = -1;
  T work0{};
  R<T> rwork0{};
  lint query_work = 0, query_iwork = 0;
  R<T> query_rwork{};
};

// One call with LWORK `lwork` (0: the size the query returned), IWORK and
// RWORK as the query sizes them. B is max(m,n)-by-nrhs with ldb. hqr's
// call gets A and B at the end of a mapping (AtMappingEnd): OpenBLAS
// 0.3.21's complex gemv 'N' and dot kernels, which xGELSD's
// bidiagonalization calls, read past A's last column, and hqr must keep
// its reads inside (next::on_padded_copy). The reference's call gets a
// spare column after each instead (testing.hpp).
template <class T>
Out<T> run(const Matrix<T> &a0, const Matrix<T> &b0, R<T> rcond, lint lwork, Lib lib, const std::string &ctx) {
  Out<T> o{with_spare_column(a0), with_spare_column(b0),
           std::vector<R<T>>(size_t(std::max<lint>(1, std::min(a0.m, a0.n))), R<T>(-1))};
  const lint m = a0.m, n = a0.n, nrhs = b0.n;
  T w[2] = {T(-7), T(-7)};
  lint iw[2] = {-7, -7};
  R<T> rw[2] = {-7, -7};
  assert_info(gelsd<T>(m, n, nrhs, o.a.ptr(), o.a.ld, o.b.ptr(), o.b.ld, o.s.data(), rcond, &o.rank, w, -1, rw, iw, lib),
              0, ctx + " (query)");
  o.query_work = work_size(w[0]);
  o.query_iwork = iw[0];
  o.query_rwork = rw[0];
  std::vector<T> work(size_t(std::max<lint>({1, lwork, o.query_work})));
  std::vector<lint> iwork(size_t(std::max<lint>(1, iw[0])));
  std::vector<R<T>> rwork(size_t(std::max<lint>(1, lint(rw[0]))));
  const lint lw = lwork > 0 ? lwork : o.query_work;
  if (lib == Lib::hqr) {
    AtMappingEnd<T> a(a0), b(b0);
    o.info = gelsd<T>(m, n, nrhs, a.ptr(), o.a.ld, b.ptr(), o.b.ld, o.s.data(), rcond, &o.rank, work.data(), lw,
                      rwork.data(), iwork.data(), lib);
    o.a = with_spare_column(a.read(a0));
    o.b = with_spare_column(b.read(b0));
  } else {
    o.info = gelsd<T>(m, n, nrhs, o.a.ptr(), o.a.ld, o.b.ptr(), o.b.ld, o.s.data(), rcond, &o.rank, work.data(), lw,
                      rwork.data(), iwork.data(), lib);
  }
  o.work0 = work[0];
  o.iwork0 = iwork[0];
  o.rwork0 = rwork[0];
  return o;
}

template <class T> Matrix<T> rows(const Matrix<T> &b, lint i0, lint m) { return block(b, m, b.n, i0, 0); }

// What compare() checks beyond INFO, RANK, S and X: that the call ended on
// a GPU path (with a GPU and HQR_GPU_MIN_N=0, on hqr's shapes), and the
// residual checks (not for data near under- or overflow, whose products
// do, nor where LAPACK scales B: it leaves rows n+1:m scaled).
struct Checks {
  bool gpu = true, residuals = true;
};

// hqr's call against the reference's on the same A and B.
template <class T>
void compare(const Matrix<T> &a0, const Matrix<T> &b0, R<T> rcond, const std::string &ctx, Checks c = {}) {
  const lint m = a0.m, n = a0.n, nrhs = b0.n, p = std::max(m, n), q = std::min(m, n);
  const GpuPathCheck path;
  const Out<T> h = run(a0, b0, rcond, 0, Lib::hqr, ctx);
  if (hqr_path(m, n) && c.gpu) path.expect(m, lint(1) << 24, ctx.c_str());  // one GPU serves the QR: no per-GPU check
  const Out<T> r = run(a0, b0, rcond, 0, Lib::ref, ctx + " (reference)");
  assert_info(h.info, r.info, ctx);
  if (h.rank != r.rank) fail_msg("%s: RANK %ld, reference %ld", ctx.c_str(), long(h.rank), long(r.rank));
  if (work_size(h.work0) != h.query_work || h.iwork0 != h.query_iwork ||
      (is_complex_v<T> && h.rwork0 != h.query_rwork))
    fail_msg("%s: WORK(1)/IWORK(1)/RWORK(1) on exit %ld/%ld/%g, the query said %ld/%ld/%g", ctx.c_str(),
             long(work_size(h.work0)), long(h.iwork0), double(h.rwork0), long(h.query_work), long(h.query_iwork),
             double(h.query_rwork));
  for (lint j = 0; j < nrhs; ++j)  // B's padding rows
    for (lint i = p; i < b0.ld; ++i)
      if (std::memcmp(&h.b(i, j), &b0(i, j), sizeof(T)) != 0) fail_msg("%s: B's padding changed", ctx.c_str());
  // NRHS = 0: LAPACK's xGELSD passes it to xLALSD, which requires NRHS >= 1
  // and returns INFO = -4 (XERBLA 'xLALSD'), so INFO is -4 and S holds the
  // bidiagonal form's diagonal, not singular values: it depends on each
  // QR's rounding (sgelsd 301x37 on the H200: 34-94 max(m,n) eps s1 from
  // the reference's) and is not compared.
  if (q == 0 || r.info < 0) return;
  const double e = eps<T>(), s1 = double(r.s[0]);
  double ds = 0;
  for (lint i = 0; i < q; ++i) ds = std::max(ds, std::abs(double(h.s[size_t(i)]) - double(r.s[size_t(i)])));
  assert_ratio(s1 > 0 ? ds / (s1 * double(p) * e) : ds, ctx + " S");
  if (nrhs == 0) return;
  // X: near the reference's, with the conditioning of the rank's singular values.
  const double kappa = s1 / double(r.s[size_t(r.rank - 1)]);
  const Matrix<T> x = rows(h.b, 0, n);
  Matrix<T> xr = rows(r.b, 0, n), dx = x;
  double big = 0;  // X and the difference in units of max |x_ij| (no underflow in the norms)
  for (const T &v : xr.data) big = std::max(big, double(std::abs(v)));
  const R<T> unit = big > 0 ? R<T>(1 / big) : R<T>(1);
  for (lint j = 0; j < nrhs; ++j)
    for (lint i = 0; i < n; ++i) {
      dx(i, j) = (dx(i, j) - xr(i, j)) * unit;
      xr(i, j) *= unit;
    }
  assert_ratio(norm_fro(dx) / (norm_fro(xr) * kappa * kappa * double(p) * e), ctx + " X");
  if (!c.residuals) return;
  // xQRT17: ||A**H (B - A X)|| / (max(m,n,nrhs) ||A|| ||B|| eps)
  Matrix<T> res = rows(b0, 0, m);
  subtract_product(res, a0, 'N', x, 'N');
  const Matrix<T> ahr = multiply(a0, 'C', res, 'N');
  assert_ratio(norm_one(ahr) / (double(std::max(p, nrhs)) * norm_one(a0) * norm_one(rows(b0, 0, m)) * e),
               ctx + " A**H r");
  if (h.rank == n && m > n) {  // rows n+1:m: the residual's norm, column by column
    for (lint j = 0; j < nrhs; ++j) {
      double tail = 0, rn = 0, bn = 0;
      for (lint i = n; i < m; ++i) tail += std::norm(std::complex<double>(h.b(i, j)));
      for (lint i = 0; i < m; ++i) {
        rn += std::norm(std::complex<double>(res(i, j)));
        bn += std::norm(std::complex<double>(b0(i, j)));
      }
      assert_ratio(std::abs(std::sqrt(tail) - std::sqrt(rn)) / (std::sqrt(bn) * kappa * double(p) * e),
                   ctx + context(" residual rows, column %ld", long(j + 1)));
    }
  }
}

struct Shape {
  lint m, n, nrhs;
};
// hqr's (m >= 1.6 n) and forwarded shapes: empty, 1x1, the MNTHR edge
// (8x5, 64x40 on it; 70x50 below), wide, nrhs = 0, odd sizes.
constexpr Shape kShapes[] = {{0, 0, 1},  {3, 0, 2},   {0, 3, 1},    {1, 1, 1},    {2, 1, 1},   {8, 5, 2},
                             {64, 40, 3}, {70, 50, 1}, {40, 64, 2}, {300, 37, 1}, {301, 37, 0}, {513, 128, 5},
                             {1200, 300, 2}};

template <class T> void gelsd_vs_lapack(void **) {
  for (const Shape &sh : kShapes)
    for (lint pad : {0, 3}) {
      const lint p = std::max(sh.m, sh.n);
      const std::string ctx = context("%cgelsd m=%ld n=%ld nrhs=%ld lda=%ld ldb=%ld", prefix<T>(), long(sh.m),
                                      long(sh.n), long(sh.nrhs), long(sh.m + pad), long(p + 2 * pad));
      compare(random_matrix<T>(sh.m, sh.n, sh.m + pad), random_matrix<T>(p, sh.nrhs, p + 2 * pad), R<T>(-1), ctx);
    }
}

// Rank n/2: A = X Y with X m-by-(n/2), Y (n/2)-by-n; RCOND far below the
// rank's singular values and far above the rest (roundoff).
template <class T> void gelsd_rank_deficient(void **) {
  for (const Shape &sh : {Shape{200, 40, 2}, Shape{999, 120, 1}, Shape{60, 60, 3}}) {
    const lint r = sh.n / 2;
    const Matrix<T> a = product(random_matrix<T>(sh.m, r), 'N', random_matrix<T>(r, sh.n), 'N');
    const R<T> rcond = std::is_same_v<R<T>, float> ? R<T>(1e-4) : R<T>(1e-10);
    compare(a, random_matrix<T>(sh.m, sh.nrhs), rcond,
            context("%cgelsd rank %ld of m=%ld n=%ld nrhs=%ld", prefix<T>(), long(r), long(sh.m), long(sh.n),
                    long(sh.nrhs)));
  }
}

// Graded columns (condition about 1e4 in s and c, 1e12 in d and z), RCOND
// placed against the reference's own S: -1 and S(n)/S(1)/3 (full rank by
// a margin: hqr's triangular solve with R), S(n)/S(1)/1.01 (full rank
// within that margin: LAPACK's xLALSD decides) and S(n)/S(1)*1.01 (rank
// n-1: xLALSD). RANK, S and X as the reference's either side of the line.
template <class T> void gelsd_rank_threshold(void **) {
  const lint m = 400, n = 60, nrhs = 2;
  const double decades = std::is_same_v<R<T>, float> ? 4 : 12;
  Matrix<T> a = random_matrix<T>(m, n);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i) a(i, j) *= R<T>(std::pow(10.0, -decades * double(j) / double(n - 1)));
  const Matrix<T> b = random_matrix<T>(m, nrhs);
  const Out<T> r = run(a, b, R<T>(-1), 0, Lib::ref, "gelsd_rank_threshold (reference S)");
  const double ratio = double(r.s[size_t(n - 1)]) / double(r.s[0]);
  for (double f : {-1.0, 1 / 3.0, 1 / 1.01, 1.01}) {
    const R<T> rcond = f < 0 ? R<T>(-1) : R<T>(ratio * f);
    compare(a, b, rcond,
            context("%cgelsd 400x60 graded (S(n)/S(1) %.2e), RCOND %.3e", prefix<T>(), ratio, double(rcond)));
  }
}

// Data LAPACK scales first (hqr forwards them) and data at the edges of
// the unscaled range (hqr's path).
template <class T> void gelsd_scaled(void **) {
  const R<T> tiny = std::numeric_limits<R<T>>::min(), huge = std::numeric_limits<R<T>>::max();
  for (R<T> f : {tiny * R<T>(1024), huge / R<T>(1e6), std::sqrt(tiny), std::sqrt(huge) / R<T>(1e3)})
    for (bool scale_b : {false, true}) {
      Matrix<T> a = random_matrix<T>(160, 60), b = random_matrix<T>(160, 2);
      for (auto &x : (scale_b ? b : a).data) x *= f;
      const bool lapack_scales = f < std::sqrt(tiny) || f > std::sqrt(huge);  // then hqr forwards the call
      compare(a, b, R<T>(-1), context("%cgelsd 160x60, %s scaled by %g", prefix<T>(), scale_b ? "B" : "A", double(f)),
              Checks{!lapack_scales, false});
    }
}

// A = 0: RANK 0, S = 0, B(1:max(m,n),:) = 0. A NaN: INFO > 0 where LAPACK's is, no crash.
template <class T> void gelsd_zero_and_nan(void **) {
  for (const Shape &sh : {Shape{100, 20, 2}, Shape{20, 30, 1}}) {
    const std::string ctx = context("%cgelsd zero A m=%ld n=%ld", prefix<T>(), long(sh.m), long(sh.n));
    const Matrix<T> a(sh.m, sh.n);
    const Out<T> h = run(a, random_matrix<T>(std::max(sh.m, sh.n), sh.nrhs), R<T>(-1), 0, Lib::hqr, ctx);
    assert_info(h.info, 0, ctx);
    if (h.rank != 0) fail_msg("%s: RANK %ld", ctx.c_str(), long(h.rank));
    for (R<T> s : h.s)
      if (s != 0) fail_msg("%s: S not zero", ctx.c_str());
    for (lint j = 0; j < sh.nrhs; ++j)
      for (lint i = 0; i < std::max(sh.m, sh.n); ++i)
        if (h.b(i, j) != T(0)) fail_msg("%s: B(%ld,%ld) not zero", ctx.c_str(), long(i + 1), long(j + 1));
  }
  for (int where : {0, 1}) {
    Matrix<T> a = random_matrix<T>(120, 30), b = random_matrix<T>(120, 1);
    (where ? b : a)(7, 0) = T(std::numeric_limits<R<T>>::quiet_NaN());
    const std::string ctx = context("%cgelsd NaN in %s", prefix<T>(), where ? "B" : "A");
    const Out<T> h = run(a, b, R<T>(-1), 0, Lib::hqr, ctx), r = run(a, b, R<T>(-1), 0, Lib::ref, ctx + " (reference)");
    // How many singular values fail to converge on NaN depends on the BLAS
    // underneath (the reference's gemms run on the GPU with
    // HQR_GPU_MIN_N=0: sgelsd gave 13 against 14 on the H200), so only
    // whether the SVD failed must agree.
    if (h.info < 0 || (h.info > 0) != (r.info > 0))
      fail_msg("%s: INFO %ld, the reference's %ld", ctx.c_str(), long(h.info), long(r.info));
  }
}

// The smallest LWORK the reference accepts works (hqr's own steps have
// their own workspace); one less is argument 12, A and B untouched.
template <class T> void gelsd_minimum_lwork(void **) {
  for (const Shape &sh : {Shape{160, 60, 1}, Shape{160, 60, 7}, Shape{90, 70, 2}, Shape{17, 1, 1}}) {
    const std::string ctx = context("%cgelsd m=%ld n=%ld nrhs=%ld", prefix<T>(), long(sh.m), long(sh.n), long(sh.nrhs));
    const Matrix<T> a = random_matrix<T>(sh.m, sh.n), b = random_matrix<T>(sh.m, sh.nrhs);
    // Bisect the reference's smallest accepted LWORK (its INFO is -12 below it).
    lint lo = 0, hi = run(a, b, R<T>(-1), 0, Lib::ref, ctx).query_work;
    while (hi - lo > 1) {
      const lint mid = (lo + hi) / 2;
      const Out<T> o = run(a, b, R<T>(-1), mid, Lib::ref, ctx);
      xerbla_reset();
      (o.info == -12 ? lo : hi) = mid;
    }
    const Out<T> ok = run(a, b, R<T>(-1), hi, Lib::hqr, ctx + context(" LWORK=%ld", long(hi)));
    assert_info(ok.info, 0, ctx + context(" LWORK=%ld", long(hi)));
    if (ok.rank != sh.n) fail_msg("%s: RANK %ld at the minimum LWORK", ctx.c_str(), long(ok.rank));
    xerbla_reset();
    const Out<T> bad = run(a, b, R<T>(-1), hi - 1, Lib::hqr, ctx);
    assert_info(bad.info, -12, ctx + context(" LWORK=%ld", long(hi - 1)));
    assert_xerbla(xerbla_name<T>("gelsd").c_str(), 12);
    if (!same_bytes(bad.a, with_spare_column(a)) || !same_bytes(bad.b, with_spare_column(b)))
      fail_msg("%s: A or B changed on an illegal LWORK", ctx.c_str());
  }
}

template <class T> void gelsd_illegal(void **) {
  struct Bad {
    lint m, n, nrhs, lda, ldb, pos;
  };
  for (const Bad &c : {Bad{-1, 3, 1, 5, 5, 1}, Bad{5, -1, 1, 5, 5, 2}, Bad{5, 3, -1, 5, 5, 3}, Bad{50, 3, 1, 49, 50, 5},
                       Bad{50, 3, 1, 50, 49, 7}, Bad{3, 50, 1, 3, 49, 7}}) {
    Matrix<T> a = random_matrix<T>(std::max<lint>(c.lda, 1), 50), b = random_matrix<T>(std::max<lint>(c.ldb, 1), 2);
    const Matrix<T> a0 = a, b0 = b;
    std::vector<T> work(100000);
    std::vector<lint> iwork(100000);
    std::vector<R<T>> rwork(100000), s(100);
    lint rank = 0;
    xerbla_reset();
    const lint info = gelsd<T>(c.m, c.n, c.nrhs, a.ptr(), c.lda, b.ptr(), c.ldb, s.data(), R<T>(-1), &rank,
                               work.data(), lint(work.size()), rwork.data(), iwork.data());
    const std::string ctx = context("%cgelsd m=%ld n=%ld nrhs=%ld lda=%ld ldb=%ld", prefix<T>(), long(c.m), long(c.n),
                                    long(c.nrhs), long(c.lda), long(c.ldb));
    assert_info(info, -c.pos, ctx);
    assert_xerbla(xerbla_name<T>("gelsd").c_str(), c.pos);
    if (!same_bytes(a, a0) || !same_bytes(b, b0)) fail_msg("%s: A or B changed", ctx.c_str());
  }
}

}  // namespace

#define ALL_TYPES(test)                                                                                  \
  cmocka_unit_test(test<float>), cmocka_unit_test(test<double>), cmocka_unit_test(test<std::complex<float>>), \
      cmocka_unit_test(test<std::complex<double>>)

int main() {
  const struct CMUnitTest tests[] = {
      ALL_TYPES(gelsd_vs_lapack),    ALL_TYPES(gelsd_rank_deficient), ALL_TYPES(gelsd_rank_threshold),
      ALL_TYPES(gelsd_scaled),
      ALL_TYPES(gelsd_zero_and_nan), ALL_TYPES(gelsd_minimum_lwork),  ALL_TYPES(gelsd_illegal),
  };
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
