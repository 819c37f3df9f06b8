// xPOLOGDET, hqr's log-determinant (ABI.md section 4): the factor and INFO
// exactly as xPOTRF's, and LOGDET = 2 sum log(real(diag)) of the reference
// LAPACK's factor; non-SPD and NaN input (INFO as the reference's, LOGDET
// not referenced); a diagonal from 1e-300 to 1e300 (no over- or underflow);
// n = 0; lda > n; both uplo; the argument checks through XERBLA. With
// HQR_GPU_MIN_N=0 on a GPU machine, every factorization must have summed
// the logarithms on its GPU path (the one trip; HQR_NB=64: the hybrid's
// device panels, HQR_PANEL=cpu its CPU panels; HQR_GPU_MEMORY=8M: the
// device-set schedule out of core; scripts/gpu-check.sh part suite).
#include "testing.hpp"

using testing::lint;

template <class T> using real_of_t = testing::real_t<T>;

template <class T> lint pologdet(char uplo, lint n, T *a, lint lda, real_of_t<T> *logdet) {
  lint info = -999;
  testing::pick<T>(spologdet_, dpologdet_, cpologdet_, zpologdet_)(&uplo, &n, testing::lp(a), &lda, logdet, &info, 1);
  return info;
}

// Hermitian, strictly diagonally dominant (so positive definite), diagonal
// entries scaled by d_j d_j with d_j from 10^-e to 10^e over the order: the
// determinant then spans about 10^(2e n / 2) either way, far past the type's
// range, while each logarithm stays small.
template <class T> testing::Matrix<T> make_spd(lint n, lint lda, double e) {
  testing::Matrix<T> a = testing::random_matrix<T>(n, n, lda);
  std::vector<double> d(n);
  for (lint j = 0; j < n; ++j) d[j] = std::pow(10.0, n > 1 ? -e + 2 * e * double(j) / double(n - 1) : 0.0);
  for (lint j = 0; j < n; ++j) {
    for (lint i = 0; i < n; ++i)
      if (i != j) a(i, j) *= real_of_t<T>(d[i] * d[j]);
    a(j, j) = T(real_of_t<T>((2 * n + std::real(a(j, j))) * d[j] * d[j]));
  }
  for (lint j = 0; j < n; ++j)  // Hermitian: the other triangle mirrors
    for (lint i = j + 1; i < n; ++i) a(j, i) = testing::cj(a(i, j));
  return a;
}

template <class T> void check(lint n, lint lda, char uplo, double e) {
  using R = real_of_t<T>;
  testing::Matrix<T> a = make_spd<T>(n, lda, e), ref = a;
  R logdet = R(-12345);
  const testing::GpuPathCheck gpu;
  const lint info = pologdet(uplo, n, a.ptr(), a.ld, &logdet);
  // With HQR_GPU_MIN_N=0 on a GPU machine: the GPU path summed the
  // logarithms as it factored (the call counts as a GPU path only then).
  gpu.expect(n, 1 << 30, "pologdet");
  const lint ref_info = testing::potrf<T>(uplo, n, ref.ptr(), ref.ld, testing::Lib::ref);
  if (info != 0 || ref_info != 0) fail_msg("n=%ld uplo=%c: info %ld, reference %ld", long(n), uplo, long(info), long(ref_info));
  double expect = 0;  // from the reference's factor
  for (lint j = 0; j < n; ++j) expect += 2 * std::log(double(std::real(ref(j, j))));
  // The factor itself: the same as xPOTRF's within rounding (LAPACK's
  // xPOT01-style ratio would need the product; the diagonal suffices here).
  const double tol = 30 * double(n) * double(testing::eps<T>()) * std::max(1.0, std::abs(expect));
  if (!(std::abs(double(logdet) - expect) <= tol))
    fail_msg("n=%ld lda=%ld uplo=%c e=%g: logdet %.17g, expected %.17g", long(n), long(lda), uplo, e, double(logdet),
             expect);
  if (!std::isfinite(double(logdet))) fail_msg("n=%ld: logdet not finite", long(n));
}

template <class T> static void values(void **) {
  // e: the diagonal spans 10^-2e .. 10^2e; 150 in double (1e-300 .. 1e300),
  // 17 in single (1e-34 .. 1e34).
  const double e = std::is_same_v<real_of_t<T>, double> ? 150 : 17;
  for (char uplo : {'L', 'U'})
    for (lint n : {1, 2, 17, 300, 601, 1500})
      for (double scale : {0.0, e}) check<T>(n, n + (n % 2), uplo, scale);
}

// Not positive definite (A(p,p) < 0) or NaN there: INFO as the reference's
// xPOTRF, LOGDET untouched; n = 0: LOGDET = 0.
template <class T> static void failures(void **) {
  using R = real_of_t<T>;
  for (char uplo : {'L', 'U'})
    for (lint p : {0, 5, 299})
      for (bool nan : {false, true}) {
        const lint n = 300;
        testing::Matrix<T> a = make_spd<T>(n, n, 0), ref = a;
        a(p, p) = ref(p, p) = nan ? T(std::numeric_limits<R>::quiet_NaN()) : T(-1);
        R logdet = R(-12345);
        const lint info = pologdet(uplo, n, a.ptr(), a.ld, &logdet);
        const lint ref_info = testing::potrf<T>(uplo, n, ref.ptr(), ref.ld, testing::Lib::ref);
        if (info != ref_info || info != p + 1)
          fail_msg("uplo=%c p=%ld nan=%d: info %ld, reference %ld", uplo, long(p), int(nan), long(info), long(ref_info));
        if (logdet != R(-12345)) fail_msg("uplo=%c p=%ld: logdet written on info > 0", uplo, long(p));
      }
  R logdet = R(7);
  T dummy = T(1);
  assert_int_equal(pologdet<T>('L', 0, &dummy, 1, &logdet), 0);
  assert_true(logdet == R(0));
}

// Argument checks in LAPACK's order, reported as 'DPOLOGDET' etc.; nothing
// written.
template <class T> static void arguments(void **) {
  using R = real_of_t<T>;
  const std::string name = testing::xerbla_name<T>("pologdet");
  testing::xerbla_reset();
  T a[4] = {T(2), T(0), T(0), T(2)};
  R logdet = R(-1);
  assert_int_equal(pologdet<T>('X', 2, a, 2, &logdet), -1);
  assert_xerbla(name.c_str(), 1);
  assert_int_equal(pologdet<T>('L', -1, a, 2, &logdet), -2);
  assert_xerbla(name.c_str(), 2);
  assert_int_equal(pologdet<T>('U', 2, a, 1, &logdet), -4);
  assert_xerbla(name.c_str(), 4);
  assert_true(logdet == R(-1) && a[0] == T(2));
}

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(values<float>),      cmocka_unit_test(values<double>),
      cmocka_unit_test(values<std::complex<float>>), cmocka_unit_test(values<std::complex<double>>),
      cmocka_unit_test(failures<float>),    cmocka_unit_test(failures<double>),
      cmocka_unit_test(failures<std::complex<float>>), cmocka_unit_test(failures<std::complex<double>>),
      cmocka_unit_test(arguments<float>),   cmocka_unit_test(arguments<double>),
      cmocka_unit_test(arguments<std::complex<float>>), cmocka_unit_test(arguments<std::complex<double>>),
  };
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
