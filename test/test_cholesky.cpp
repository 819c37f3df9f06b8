// xPOTRF, xPOTRS, xPOSV: LAPACK's residual ratios (DPOT01, DPOT02) for both
// uplo, n in {0, 1, 2, 31, 64, 130, 257, 500}, lda = n and lda > n; the padding and
// the triangle LAPACK does not reference left unchanged byte for byte; INFO
// equal to the reference LAPACK's for non-positive-definite and NaN input;
// the same order call after call (the small trip's graph replays).
#include "testing.hpp"

using namespace testing;

namespace {

constexpr lint kSizes[] = {0, 1, 2, 31, 64, 130, 257, 500};
constexpr lint kPads[] = {0, 5};  // lda = max(1, n) + pad

// Overwrites the strict triangle LAPACK must not reference with random
// values (the matrix is no longer Hermitian there: a routine that reads it
// gets wrong answers).
template <class T> void scramble_other_triangle(Matrix<T> &a, char uplo) {
  for (lint j = 0; j < a.n; ++j)
    for (lint i = 0; i < a.m; ++i)
      if (i != j && !in_triangle(uplo, i, j)) a(i, j) = T(10) * random_value<T>();
}

// The factor's diagonal is real and positive (the unique Cholesky factor).
template <class T> void assert_positive_real_diagonal(const Matrix<T> &f, const std::string &ctx) {
  for (lint i = 0; i < f.n; ++i)
    if (!(std::real(f(i, i)) > 0) || std::imag(f(i, i)) != 0)
      fail_msg("%s: factor diagonal (%ld) = (%g, %g), expected real > 0", ctx.c_str(), long(i),
               double(std::real(f(i, i))), double(std::imag(f(i, i))));
}

// DPOT02: ||B - A*X||_1 / (||A||_1 ||X||_1 n eps).
template <class T> double solve_ratio(const Matrix<T> &full, const Matrix<T> &b0, const Matrix<T> &x) {
  const lint n = full.n, nrhs = b0.n;
  if (n == 0 || nrhs == 0) return 0;
  Matrix<T> a = block(full, n, n);
  Matrix<T> r = block(b0, n, nrhs);
  Matrix<T> xs = block(x, n, nrhs);
  subtract_product(r, a, 'N', xs, 'N');
  return norm_one(r) / (norm_one(a) * norm_one(xs) * double(n) * eps<T>());
}

// ---- potrf ------------------------------------------------------------------

template <class T, char Uplo> void potrf_residual(void **) {
  for (lint n : kSizes)
    for (lint pad : kPads) {
      const lint lda = std::max<lint>(1, n) + pad;
      const std::string ctx = context("%cpotrf uplo=%c n=%ld lda=%ld", prefix<T>(), Uplo, long(n), long(lda));
      Matrix<T> full = random_hpd<T>(n, lda);
      Matrix<T> a = full;
      scramble_other_triangle(a, Uplo);
      const Matrix<T> before = a;
      assert_info(potrf<T>(Uplo, n, a.ptr(), lda), 0, ctx);
      assert_unchanged_outside(before, a, Uplo, ctx);
      assert_positive_real_diagonal(a, ctx);
      assert_ratio(factor_ratio(full, a, Uplo), ctx);
    }
}

// Lower-case uplo is accepted (LSAME) and gives the same factor.
template <class T> void potrf_lowercase_uplo(void **) {
  for (char uplo : {'U', 'L'}) {
    const lint n = 40, lda = 43;
    Matrix<T> full = random_hpd<T>(n, lda);
    Matrix<T> a = full, b = full;
    assert_info(potrf<T>(uplo, n, a.ptr(), lda), 0, "upper case");
    assert_info(potrf<T>(char(std::tolower(uplo)), n, b.ptr(), lda), 0, "lower case");
    assert_true(same_bytes(a, b));
  }
}

// A = L*D*L^H with L unit lower triangular (small off-diagonal entries) and
// D = I except D(k,k) = -1: the leading minor of order k is the first that is
// not positive definite, though A's diagonal may well be positive there.
template <class T> Matrix<T> indefinite_at(lint n, lint k, lint lda) {
  Matrix<T> l(n, n);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < n; ++i) l(i, j) = i > j ? random_value<T>() / real_t<T>(std::sqrt(double(n))) : T(i == j);
  Matrix<T> ld = l;
  for (lint i = 0; i < n; ++i) ld(i, k - 1) = -ld(i, k - 1);
  Matrix<T> a = random_matrix<T>(n, n, lda);
  gemm<T>('N', 'C', n, n, n, T(1), ld.ptr(), ld.ld, l.ptr(), l.ld, T(0), a.ptr(), a.ld);
  for (lint j = 0; j < n; ++j) {
    for (lint i = 0; i < j; ++i) a(i, j) = cj(a(j, i));
    a(j, j) = T(std::real(a(j, j)));
  }
  return a;
}

std::vector<lint> failing_positions(lint n) {
  std::vector<lint> k = {1, n / 2 + 1, n};
  std::sort(k.begin(), k.end());
  k.erase(std::unique(k.begin(), k.end()), k.end());
  return k;
}

// Non-positive-definite input: INFO = the order of the failing minor, equal
// to the reference LAPACK's; padding and the other triangle untouched.
template <class T> void potrf_not_positive_definite(void **) {
  for (char uplo : {'U', 'L'})
    for (lint n : {1, 2, 31, 257})
      for (lint k : failing_positions(n))
        for (int kind = 0; kind < 3; ++kind) {
          const lint lda = n + 3;
          const std::string ctx = context("%cpotrf uplo=%c n=%ld lda=%ld minor %ld (%s)", prefix<T>(), uplo, long(n),
                                          long(lda), long(k),
                                          kind == 0 ? "L*D*L^H" : kind == 1 ? "negative diagonal" : "zero diagonal");
          Matrix<T> a;
          if (kind == 0) {
            a = indefinite_at<T>(n, k, lda);
          } else {
            a = random_hpd<T>(n, lda);
            a(k - 1, k - 1) = kind == 1 ? T(-1) : T(0);
          }
          scramble_other_triangle(a, uplo);
          Matrix<T> mine = a, ref = a;
          const lint info = potrf<T>(uplo, n, mine.ptr(), lda);
          const lint rinfo = potrf<T>(uplo, n, ref.ptr(), lda, Lib::ref);
          assert_info(rinfo, k, ctx + " [reference LAPACK]");
          assert_info(info, rinfo, ctx);
          assert_unchanged_outside(a, mine, uplo, ctx);
        }
}

// NaN (and Inf) input, on the diagonal or off it in the referenced triangle:
// INFO as the reference LAPACK's.
template <class T> void potrf_nan(void **) {
  int mismatches = 0;
  const real_t<T> nan = std::numeric_limits<real_t<T>>::quiet_NaN();
  for (char uplo : {'U', 'L'})
    for (lint n : {1, 2, 31, 257})
      for (lint k : failing_positions(n))
        for (int where = 0; where < 4; ++where) {
          const bool diagonal = where % 2 == 0, is_inf = where >= 2;
          if (!diagonal && k == 1) continue;  // no entry before the first column
          const lint lda = n + 2;
          Matrix<T> a = random_hpd<T>(n, lda);
          // (k-1, k-1) on the diagonal; else entry (k-1, k/2-1) of L / its mirror in U.
          lint i = k - 1, j = diagonal ? k - 1 : (k - 1) / 2;
          if (uplo == 'U') std::swap(i, j);
          a(i, j) = is_inf ? T(std::numeric_limits<real_t<T>>::infinity()) : T(nan);
          const std::string ctx = context("%cpotrf uplo=%c n=%ld %s at (%ld,%ld)", prefix<T>(), uplo, long(n),
                                          is_inf ? "Inf" : "NaN", long(i + 1), long(j + 1));
          scramble_other_triangle(a, uplo);
          Matrix<T> mine = a, ref = a;
          const lint info = potrf<T>(uplo, n, mine.ptr(), lda);
          const lint rinfo = potrf<T>(uplo, n, ref.ptr(), lda, Lib::ref);
          assert_unchanged_outside(a, mine, uplo, ctx);
          if (info != rinfo) {  // list every case before failing
            print_message("%s: INFO %ld, reference LAPACK %ld\n", ctx.c_str(), long(info), long(rinfo));
            ++mismatches;
          }
        }
  if (mismatches) fail_msg("%d NaN/Inf inputs gave an INFO other than the reference LAPACK's", mismatches);
}

// The same order call after call: the small trip's device work is captured
// as a CUDA graph at the second call and replayed after it (one_trip.cuh).
// Fresh data every call; the third call's matrix is not positive definite
// (INFO as the reference LAPACK's, from the replayed graph where the GPU
// serves); with HQR_GPU_MIN_N=0 every other call must end on a GPU path.
template <class T> void potrf_repeated(void **) {
  for (lint n : {64, 257})
    for (char uplo : {'L', 'U'})
      for (int k = 0; k < 5; ++k) {
        const lint lda = n + k % 2;
        const std::string ctx =
            context("%cpotrf uplo=%c n=%ld lda=%ld call %d", prefix<T>(), uplo, long(n), long(lda), k + 1);
        if (k == 2) {
          Matrix<T> a = indefinite_at<T>(n, n / 2 + 1, lda);
          scramble_other_triangle(a, uplo);
          Matrix<T> ref = a;
          assert_info(potrf<T>(uplo, n, a.ptr(), lda), potrf<T>(uplo, n, ref.ptr(), lda, Lib::ref), ctx);
          continue;
        }
        Matrix<T> full = random_hpd<T>(n, lda);
        Matrix<T> a = full;
        scramble_other_triangle(a, uplo);
        const Matrix<T> before = a;
        const GpuPathCheck path;
        assert_info(potrf<T>(uplo, n, a.ptr(), lda), 0, ctx);
        path.expect(n, n, ctx.c_str());
        assert_unchanged_outside(before, a, uplo, ctx);
        assert_ratio(factor_ratio(full, a, uplo), ctx);
      }
}

// ---- potrs ------------------------------------------------------------------

template <class T, char Uplo> void potrs_residual(void **) {
  for (lint n : kSizes)
    for (int variant = 0; variant < 2; ++variant) {  // (nrhs, pad) = (1, 0), (3, 5)
        const lint nrhs = variant ? 3 : 1, pad = kPads[variant];
        const lint lda = std::max<lint>(1, n) + pad, ldb = std::max<lint>(1, n) + pad + 2;
        const std::string ctx = context("%cpotrs uplo=%c n=%ld nrhs=%ld lda=%ld ldb=%ld", prefix<T>(), Uplo, long(n),
                                        long(nrhs), long(lda), long(ldb));
        Matrix<T> full = random_hpd<T>(n, lda);
        Matrix<T> f = full;
        scramble_other_triangle(f, Uplo);
        assert_info(potrf<T>(Uplo, n, f.ptr(), lda), 0, ctx + " (potrf)");
        const Matrix<T> factor = f;
        const Matrix<T> b0 = random_matrix<T>(n, nrhs, ldb);
        Matrix<T> x = b0;
        assert_info(potrs<T>(Uplo, n, nrhs, f.ptr(), lda, x.ptr(), ldb), 0, ctx);
        if (!same_bytes(factor, f)) fail_msg("%s: the factor (input only) was changed", ctx.c_str());
        lint bi = -1, bj = -1;
        if (!unchanged_where(b0, x, [](lint, lint) { return false; }, &bi, &bj))
          fail_msg("%s: padding B(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
        assert_ratio(solve_ratio(full, b0, x), ctx);
      }
}

// NRHS = 0 and N = 0: quick return, nothing written.
template <class T> void potrs_quick_return(void **) {
  for (char uplo : {'U', 'L'}) {
    const lint n = 7;
    Matrix<T> full = random_hpd<T>(n, n);
    assert_info(potrf<T>(uplo, n, full.ptr(), n), 0, "potrf");
    Matrix<T> b = random_matrix<T>(n, 2), b0 = b;
    const Matrix<T> f0 = full;
    assert_info(potrs<T>(uplo, n, 0, full.ptr(), n, b.ptr(), n), 0, "nrhs=0");
    assert_info(potrs<T>(uplo, 0, 2, full.ptr(), 1, b.ptr(), 1), 0, "n=0");
    assert_true(same_bytes(b, b0));
    assert_true(same_bytes(full, f0));
  }
}

// ---- posv -------------------------------------------------------------------

template <class T, char Uplo> void posv_residual(void **) {
  for (lint n : kSizes)
    for (int variant = 0; variant < 2; ++variant) {  // (nrhs, pad) = (1, 0), (3, 5)
        const lint nrhs = variant ? 3 : 1, pad = kPads[variant];
        const lint lda = std::max<lint>(1, n) + pad, ldb = std::max<lint>(1, n) + pad + 1;
        const std::string ctx = context("%cposv uplo=%c n=%ld nrhs=%ld lda=%ld ldb=%ld", prefix<T>(), Uplo, long(n),
                                        long(nrhs), long(lda), long(ldb));
        Matrix<T> full = random_hpd<T>(n, lda);
        Matrix<T> a = full;
        scramble_other_triangle(a, Uplo);
        const Matrix<T> a0 = a;
        const Matrix<T> b0 = random_matrix<T>(n, nrhs, ldb);
        Matrix<T> x = b0;
        assert_info(posv<T>(Uplo, n, nrhs, a.ptr(), lda, x.ptr(), ldb), 0, ctx);
        assert_unchanged_outside(a0, a, Uplo, ctx);
        lint bi = -1, bj = -1;
        if (!unchanged_where(b0, x, [](lint, lint) { return false; }, &bi, &bj))
          fail_msg("%s: padding B(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
        assert_positive_real_diagonal(a, ctx);
        assert_ratio(factor_ratio(full, a, Uplo), ctx + " (factor)");
        assert_ratio(solve_ratio(full, b0, x), ctx);
      }
}

// Non-positive-definite and NaN input through posv: INFO as the reference's,
// B not overwritten with a solution (LAPACK returns before potrs).
template <class T> void posv_failure_info(void **) {
  const real_t<T> nan = std::numeric_limits<real_t<T>>::quiet_NaN();
  for (char uplo : {'U', 'L'})
    for (lint n : {1, 31, 257})
      for (lint k : failing_positions(n))
        for (int kind = 0; kind < 2; ++kind) {
          const lint lda = n + 1, ldb = n + 4, nrhs = 2;
          const std::string ctx = context("%cposv uplo=%c n=%ld %s at %ld", prefix<T>(), uplo, long(n),
                                          kind == 0 ? "failing minor" : "NaN", long(k));
          Matrix<T> a = kind == 0 ? indefinite_at<T>(n, k, lda) : random_hpd<T>(n, lda);
          if (kind == 1) a(k - 1, k - 1) = T(nan);
          scramble_other_triangle(a, uplo);
          Matrix<T> b = random_matrix<T>(n, nrhs, ldb);
          Matrix<T> mine = a, ref = a, bm = b;
          const lint info = posv<T>(uplo, n, nrhs, mine.ptr(), lda, bm.ptr(), ldb);
          // posv's INFO is potrf's. The reference's own dposv_ would call
          // back into hqr's potrf, so compare with the reference potrf.
          const lint rinfo = potrf<T>(uplo, n, ref.ptr(), lda, Lib::ref);
          if (kind == 0) assert_info(rinfo, k, ctx + " [reference LAPACK]");
          assert_info(info, rinfo, ctx);
          if (info > 0 && !same_bytes(b, bm)) fail_msg("%s: B changed although INFO = %ld", ctx.c_str(), long(info));
          assert_unchanged_outside(a, mine, uplo, ctx);
        }
}

}  // namespace

#define PER_UPLO(test, T) cmocka_unit_test((test<T, 'U'>)), cmocka_unit_test((test<T, 'L'>))
#define ALL_TYPES(test)                                                                                  \
  cmocka_unit_test(test<float>), cmocka_unit_test(test<double>), cmocka_unit_test(test<std::complex<float>>), \
      cmocka_unit_test(test<std::complex<double>>)
#define ALL_TYPES_UPLO(test)                                                                        \
  PER_UPLO(test, float), PER_UPLO(test, double), PER_UPLO(test, std::complex<float>), \
      PER_UPLO(test, std::complex<double>)

int main() {
  const struct CMUnitTest tests[] = {
      ALL_TYPES_UPLO(potrf_residual), ALL_TYPES(potrf_lowercase_uplo),   ALL_TYPES(potrf_not_positive_definite),
      ALL_TYPES(potrf_nan),           ALL_TYPES(potrf_repeated),         ALL_TYPES_UPLO(potrs_residual),
      ALL_TYPES(potrs_quick_return),  ALL_TYPES_UPLO(posv_residual),     ALL_TYPES(posv_failure_info),
  };
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);  // e.g. sanitizer runs
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
