// hqr's one-thread triangular products and solves for small operands
// (src/cpu/blas.hpp, blas::serial: below 2^15 multiply-adds hqr's kernels
// do xTRMM and xTRSM themselves, so that OpenBLAS's workers are not woken
// and left spinning beside hqr's own threads), s/d/c/z, every side, uplo,
// trans and diag: xTRMM against the product with op(A) written out in full
// (its other triangle zero, its diagonal one where diag = 'U'), xTRSM by
// op(A)*X (or X*op(A)) against alpha*B; A's other triangle (and its
// diagonal where diag = 'U') NaN, which must not be read; B's padding rows
// unchanged; alpha = 0 gives zeros without reading A or B (NaN in both);
// the same loops split over threads (blas::trmm_own_threads).
#include <cmath>

#include "cpu/blas.hpp"
#include "testing.hpp"

using namespace testing;

namespace {

namespace serial = hqr::blas::serial;
using C = std::complex<float>;
using Z = std::complex<double>;

template <class T> T nan_value() { return T(std::numeric_limits<real_t<T>>::quiet_NaN()); }

// op(A) as a full k-by-k matrix: what trmm and trsm may read of a, no more.
template <class T> std::vector<T> full_op(const Matrix<T> &a, lint k, char uplo, char trans, char diag) {
  std::vector<T> op(std::size_t(k) * k, T(0));
  for (lint c = 0; c < k; ++c)
    for (lint r = 0; r < k; ++r) {
      const bool stored = uplo == 'U' ? r <= c : r >= c;
      if (!stored) continue;
      const T v = r == c && diag == 'U' ? T(1) : a(r, c);
      // op(A)(i, j): A(i, j), A(j, i) or conj(A(j, i)).
      if (trans == 'N')
        op[r + c * k] = v;
      else
        op[c + r * k] = trans == 'C' ? hqr::conj_of(v) : v;
    }
  return op;
}

// y = op*x (side 'L', op k-by-k, x m-by-n) or x*op (side 'R'), in long double's precision where real.
template <class T>
std::vector<T> product(char side, lint m, lint n, const std::vector<T> &op, const std::vector<T> &x, lint ldx) {
  std::vector<T> y(std::size_t(m) * n, T(0));
  const lint k = side == 'L' ? m : n;
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i) {
      T s = 0;
      for (lint l = 0; l < k; ++l)
        s += side == 'L' ? op[i + l * k] * x[l + j * ldx] : x[i + l * ldx] * op[l + j * k];
      y[i + j * m] = s;
    }
  return y;
}

// b (m-by-n, from b0) against alpha*op*b0 or alpha*b0*op within tol,
// and b's padding rows as in b0.
template <class T>
void expect_trmm(const std::string &ctx, char side, lint m, lint n, T alpha, const std::vector<T> &op,
                 const Matrix<T> &b0, const Matrix<T> &b, real_t<T> tol) {
  const lint ldb = b0.ld;
  const std::vector<T> want = product(side, m, n, op, b0.data, ldb);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i) {
      const T w = alpha * want[i + j * m];
      if (!(std::abs(b(i, j) - w) <= tol * (std::abs(w) + real_t<T>(1))))
        fail_msg("%s: trmm B(%ld,%ld) = %g, want %g", ctx.c_str(), long(i), long(j), double(std::real(b(i, j))),
                 double(std::real(w)));
    }
  for (lint j = 0; j < n; ++j)
    for (lint i = m; i < ldb; ++i)
      if (std::memcmp(&b(i, j), &b0(i, j), sizeof(T)) != 0) fail_msg("%s: trmm wrote padding row %ld", ctx.c_str(), long(i));
}

template <class T> void check_case(char side, char uplo, char trans, char diag, lint m, lint n, T alpha) {
  const std::string ctx = context("%c side=%c uplo=%c trans=%c diag=%c m=%ld n=%ld alpha=%g", prefix<T>(), side,
                                  uplo, trans, diag, long(m), long(n), double(std::real(alpha)));
  const lint k = side == 'L' ? m : n, lda = k + 2, ldb = m + 3;
  // A: random, diagonal 2 + |random| (op(A) well conditioned for the
  // solves); what lies outside the referenced triangle NaN.
  Matrix<T> a = random_matrix<T>(k, k, lda);
  for (lint c = 0; c < k; ++c)
    for (lint r = 0; r < k; ++r) {
      const bool stored = uplo == 'U' ? r <= c : r >= c;
      if (!stored || (r == c && diag == 'U'))
        a(r, c) = nan_value<T>();
      else if (r == c)
        a(r, c) = T(2) + std::abs(a(r, c));
      else
        a(r, c) /= real_t<T>(k);
    }
  const Matrix<T> b0 = random_matrix<T>(m, n, ldb);
  const std::vector<T> op = full_op(a, k, uplo, trans, diag);
  const real_t<T> tol = real_t<T>(4 * (k + 1)) * eps<T>();

  // xTRMM: B := alpha*op(A)*B or alpha*B*op(A).
  Matrix<T> b = b0;
  serial::triangle<T, false>(side, uplo, trans, diag, m, n, alpha, a.ptr(), lda, b.ptr(), ldb);
  expect_trmm(ctx, side, m, n, alpha, op, b0, b, tol);

  // xTRSM: X := alpha*op(A)^-1*B or alpha*B*op(A)^-1; then op(A)*X = alpha*B.
  Matrix<T> x = b0;
  serial::triangle<T, true>(side, uplo, trans, diag, m, n, alpha, a.ptr(), lda, x.ptr(), ldb);
  const std::vector<T> want = product(side, m, n, op, x.data, ldb);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i) {
      const T w = alpha * b0(i, j);
      if (!(std::abs(want[i + j * m] - w) <= tol * real_t<T>(4) * (std::abs(w) + real_t<T>(1))))
        fail_msg("%s: trsm residual at (%ld,%ld): %g, want %g", ctx.c_str(), long(i), long(j),
                 double(std::real(want[i + j * m])), double(std::real(w)));
    }
  for (lint j = 0; j < n; ++j)
    for (lint i = m; i < ldb; ++i)
      if (std::memcmp(&x(i, j), &b0(i, j), sizeof(T)) != 0) fail_msg("%s: trsm wrote padding row %ld", ctx.c_str(), long(i));
}

template <class T> void all_cases(void **) {
  T other = T(-0.75);
  if constexpr (is_complex_v<T>) other += T(0, 0.5);
  const T alphas[] = {T(1), other};
  for (char side : {'L', 'R'})
    for (char uplo : {'U', 'L'})
      for (char trans : {'N', 'T', 'C'})
        for (char diag : {'N', 'U'})
          for (lint m : {1, 5, 13})
            for (lint n : {1, 4, 9})
              for (T alpha : alphas) check_case<T>(side, uplo, trans, diag, m, n, alpha);
}

// alpha = 0: B = 0, neither A nor B read (NaN in both).
template <class T> void alpha_zero(void **) {
  const lint m = 6, n = 5;
  for (char side : {'L', 'R'})
    for (int solve = 0; solve < 2; ++solve) {
      const lint k = side == 'L' ? m : n;
      std::vector<T> a(std::size_t(k) * k, nan_value<T>()), b(std::size_t(m) * n, nan_value<T>());
      if (solve)
        serial::triangle<T, true>(side, 'U', 'N', 'N', m, n, T(0), a.data(), k, b.data(), m);
      else
        serial::triangle<T, false>(side, 'U', 'N', 'N', m, n, T(0), a.data(), k, b.data(), m);
      for (const T &v : b)
        if (v != T(0)) fail_msg("%c %s side=%c alpha=0: B not zero", prefix<T>(), solve ? "trsm" : "trmm", side);
    }
}

// blas::trmm_own_threads: the same loops over B's rows (side 'R') or
// columns ('L') split among 3 threads, at sizes past the serial bound
// (301-by-70, L and R, every uplo and trans): equal to the product with
// op(A) written out, B's padding rows unchanged.
template <class T> void own_threads(void **) {
  const lint m = 301, n = 70;
  for (char side : {'L', 'R'})
    for (char uplo : {'U', 'L'})
      for (char trans : {'N', 'T', 'C'}) {
        const lint bm = side == 'L' ? n : m, bn = side == 'L' ? m : n, k = side == 'L' ? bm : bn;
        const lint lda = k + 1, ldb = bm + 2;
        Matrix<T> a = random_matrix<T>(k, k, lda);
        for (lint c = 0; c < k; ++c)
          for (lint r = 0; r < k; ++r)
            if (uplo == 'U' ? r > c : r < c) a(r, c) = nan_value<T>();
        const Matrix<T> b0 = random_matrix<T>(bm, bn, ldb);
        Matrix<T> b = b0;
        const T alpha = T(-1.5);
        hqr::blas::trmm_own_threads<T>(3, side, uplo, trans, 'N', bm, bn, alpha, a.ptr(), lda, b.ptr(), ldb);
        expect_trmm(context("%c own threads side=%c uplo=%c trans=%c", prefix<T>(), side, uplo, trans), side, bm, bn,
                    alpha, full_op(a, k, uplo, trans, 'N'), b0, b, real_t<T>(4 * (k + 1)) * eps<T>());
      }
}

// The split between these loops and the next BLAS: 2^15 multiply-adds.
void threshold(void **) {
  assert_true(serial::small('L', 32, 32));   // 32^3 = 2^15
  assert_false(serial::small('L', 33, 32));
  assert_true(serial::small('R', 32768, 1));
  assert_false(serial::small('R', 32769, 1));
  assert_true(serial::small('R', 200, 10));  // addcols' 200-by-10 product: OpenBLAS threads it
  assert_false(serial::small('R', 1000000, 200));
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(all_cases<float>),      cmocka_unit_test(all_cases<double>),
      cmocka_unit_test(all_cases<C>),          cmocka_unit_test(all_cases<Z>),
      cmocka_unit_test(alpha_zero<float>),     cmocka_unit_test(alpha_zero<double>),
      cmocka_unit_test(alpha_zero<C>),         cmocka_unit_test(alpha_zero<Z>),
      cmocka_unit_test(own_threads<float>),    cmocka_unit_test(own_threads<double>),
      cmocka_unit_test(own_threads<C>),        cmocka_unit_test(own_threads<Z>),
      cmocka_unit_test(threshold),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
