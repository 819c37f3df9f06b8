// The GPU potrf's own cases: sizes that are not multiples of the block size
// or of the GPU count, lda > n, both uplo, non-SPD and NaN at several
// positions (INFO as the reference LAPACK), the untouched triangle. Run with
// HQR_GPU_MIN_N=0 on the GPU machine (scripts/gpu-check.sh), where every
// successful call must end on a GPU path and, with several GPUs
// (HQR_DEVICE=all), on every GPU; HQR_GPU_MEMORY small makes them run out
// of core, and HQR_TEST_LARGE=1 adds orders up to 20000. On a machine
// without a GPU the same cases check the CPU path.
// The check is a solve: ||b - A x|| / (||A|| ||x|| n eps) with x from the
// factor, O(n^2) so that large orders stay cheap.
#include "testing.hpp"

using testing::lint;

template <class T> struct Api;
template <> struct Api<double> {
  static void potrf(const char *u, lint n, double *a, lint lda, lint *info) { dpotrf_(u, &n, a, &lda, info, 1); }
  static void potrs(const char *u, lint n, const double *a, lint lda, double *b, lint *info) {
    lint one = 1;
    dpotrs_(u, &n, &one, a, &lda, b, &n, info, 1);
  }
  static constexpr const char *ref = "dpotrf_";
};
template <> struct Api<float> {
  static void potrf(const char *u, lint n, float *a, lint lda, lint *info) { spotrf_(u, &n, a, &lda, info, 1); }
  static void potrs(const char *u, lint n, const float *a, lint lda, float *b, lint *info) {
    lint one = 1;
    spotrs_(u, &n, &one, a, &lda, b, &n, info, 1);
  }
  static constexpr const char *ref = "spotrf_";
};
template <> struct Api<std::complex<double>> {
  using C = std::complex<double>;
  static void potrf(const char *u, lint n, C *a, lint lda, lint *info) {
    zpotrf_(u, &n, reinterpret_cast<lapack_complex_double *>(a), &lda, info, 1);
  }
  static void potrs(const char *u, lint n, const C *a, lint lda, C *b, lint *info) {
    lint one = 1;
    zpotrs_(u, &n, &one, reinterpret_cast<const lapack_complex_double *>(a), &lda,
            reinterpret_cast<lapack_complex_double *>(b), &n, info, 1);
  }
  static constexpr const char *ref = "zpotrf_";
};
template <> struct Api<std::complex<float>> {
  using C = std::complex<float>;
  static void potrf(const char *u, lint n, C *a, lint lda, lint *info) {
    cpotrf_(u, &n, reinterpret_cast<lapack_complex_float *>(a), &lda, info, 1);
  }
  static void potrs(const char *u, lint n, const C *a, lint lda, C *b, lint *info) {
    lint one = 1;
    cpotrs_(u, &n, &one, reinterpret_cast<const lapack_complex_float *>(a), &lda,
            reinterpret_cast<lapack_complex_float *>(b), &n, info, 1);
  }
  static constexpr const char *ref = "cpotrf_";
};

// Hermitian, strictly diagonally dominant (so positive definite) without an
// O(n^3) product: a complex entry has |a_ij| <= sqrt(2), so the off-diagonal
// row sum stays below (n-1) sqrt(2) < 2n - 1 <= a_jj. (A shift of n alone
// let a complex order-2 matrix be indefinite now and then.) The unreferenced
// triangle holds a random sentinel pattern.
template <class T> testing::Matrix<T> make_hpd(lint n, lint lda, bool upper) {
  testing::Matrix<T> a = testing::random_matrix<T>(n, n, lda);
  for (lint j = 0; j < n; ++j) a(j, j) = T(std::real(a(j, j)) + testing::real_t<T>(2 * n));
  return a;
}

// y = A x with A Hermitian, given by one triangle.
template <class T> std::vector<T> hemv(const testing::Matrix<T> &a, bool upper, const std::vector<T> &x) {
  const lint n = a.n;
  std::vector<std::complex<double>> y(n);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < n; ++i) {
      const bool in = upper ? i <= j : i >= j;
      std::complex<double> aij = in ? std::complex<double>(a(i, j)) : std::conj(std::complex<double>(a(j, i)));
      if (i == j) aij = aij.real();
      y[i] += aij * std::complex<double>(x[j]);
    }
  std::vector<T> out(n);
  for (lint i = 0; i < n; ++i) {
    if constexpr (testing::is_complex_v<T>)
      out[i] = T(testing::real_t<T>(y[i].real()), testing::real_t<T>(y[i].imag()));
    else
      out[i] = T(y[i].real());
  }
  return out;
}

// hqr_set_nb's block size while each_schedule sets one (0: none); the
// device-set schedule's panels are this wide, else HQR_NB's, else 512.
static lint block_size = 0;
lint node_panel() {
  const char *nb = std::getenv("HQR_NB");
  return block_size ? block_size : nb ? std::atol(nb) : 512;
}

template <class T> void check_order(lint n, lint lda, bool upper) {
  const char *uplo = upper ? "U" : "L";
  testing::Matrix<T> a0 = make_hpd<T>(n, lda, upper), a = a0;
  lint info = -99;
  char what[96];
  std::snprintf(what, sizeof what, "n=%ld uplo=%s lda=%ld", long(n), uplo, long(lda));
  const testing::GpuPathCheck path;
  Api<T>::potrf(uplo, n, a.ptr(), a.ld, &info);
  if (info != 0) fail_msg("n=%ld uplo=%s lda=%ld: info %ld", long(n), uplo, long(lda), long(info));
  path.expect(n, node_panel(), what);
  // The other triangle and the padding rows are untouched, bit for bit.
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < a.ld; ++i) {
      const bool referenced = i < n && (upper ? i <= j : i >= j);
      if (!referenced && std::memcmp(&a(i, j), &a0(i, j), sizeof(T)) != 0)
        fail_msg("n=%ld uplo=%s: element (%ld,%ld) outside the triangle changed", long(n), uplo, long(i), long(j));
    }
  std::vector<T> x(n);
  for (auto &v : x) v = testing::random_value<T>();
  std::vector<T> b = hemv(a0, upper, x), sol = b;
  Api<T>::potrs(uplo, n, a.ptr(), a.ld, sol.data(), &info);
  assert_int_equal(info, 0);
  std::vector<T> r = hemv(a0, upper, sol);
  double rn = 0, xn = 0;
  for (lint i = 0; i < n; ++i) {
    rn = std::max(rn, double(std::abs(b[i] - r[i])));
    xn = std::max(xn, double(std::abs(sol[i])));
  }
  double anorm = 0;  // ||A||_inf of the Hermitian matrix, from its stored triangle
  for (lint i = 0; i < n; ++i) {
    double s = 0;
    for (lint j = 0; j < n; ++j) s += std::abs(upper == (i <= j) ? a0(i, j) : a0(j, i));
    anorm = std::max(anorm, s);
  }
  const double ratio = rn / (anorm * xn * n * testing::eps<T>());
  if (!(ratio < testing::kThreshold)) fail_msg("n=%ld uplo=%s lda=%ld: ratio %g", long(n), uplo, long(lda), ratio);
}

// A(p,p) made negative (or NaN): the leading minor of order p+1 fails.
template <class T> void check_failure(lint n, lint p, bool upper, bool nan) {
  const char *uplo = upper ? "U" : "L";
  testing::Matrix<T> a = make_hpd<T>(n, n + 3, upper), r = a;
  a(p, p) = nan ? T(std::numeric_limits<testing::real_t<T>>::quiet_NaN()) : T(-1);
  r = a;
  lint info = -99, ref_info = -99;
  Api<T>::potrf(uplo, n, a.ptr(), a.ld, &info);
  using F = void(const char *, const lint *, T *, const lint *, lint *, size_t);
  reinterpret_cast<F *>(testing::reference_symbol(Api<T>::ref))(uplo, &n, r.ptr(), &r.ld, &ref_info, 1);
  if (info != ref_info)
    fail_msg("n=%ld p=%ld uplo=%s nan=%d: info %ld, reference %ld", long(n), long(p), uplo, int(nan), long(info),
             long(ref_info));
  assert_int_equal(info, p + 1);
}

// Hermitian positive definite with condition number 1/rcond: Q diag(s) Q**H,
// s from 1 down to rcond geometrically, Q from the QR of a random matrix
// (reference LAPACK). The unreferenced triangle and the padding stay random.
template <class T> testing::Matrix<T> make_ill(lint n, lint lda, double rcond, bool upper) {
  using namespace testing;
  Matrix<T> q = random_matrix<T>(n, n);
  std::vector<T> tau(n), work(std::size_t(64) * n);
  assert_int_equal(geqrf<T>(n, n, q.ptr(), q.ld, tau.data(), work.data(), lint(work.size()), Lib::ref), 0);
  assert_int_equal(orgqr<T>(n, n, n, q.ptr(), q.ld, tau.data(), work.data(), lint(work.size()), Lib::ref), 0);
  Matrix<T> qs = q;
  for (lint j = 0; j < n; ++j) {
    const real_t<T> s = real_t<T>(std::pow(rcond, double(j) / double(n - 1)));
    for (lint i = 0; i < n; ++i) qs(i, j) *= s;
  }
  Matrix<T> h = product(qs, 'N', q, 'C'), a = random_matrix<T>(n, n, lda);
  for (lint j = 0; j < n; ++j)
    for (lint i = upper ? 0 : j; i < (upper ? j + 1 : n); ++i)
      a(i, j) = i == j ? T(std::real(h(i, i))) : upper ? cj(h(j, i)) : h(i, j);
  return a;
}

// LAPACK's xPOT01 ratio (testing::factor_ratio) on an ill-conditioned
// matrix: the blocked solves below each diagonal block must stay backward
// stable, whatever the block's condition number.
template <class T> void check_ill(lint n, bool upper, double rcond) {
  using namespace testing;
  const char uplo = upper ? 'U' : 'L';
  const Matrix<T> a0 = make_ill<T>(n, n + 3, rcond, upper);
  Matrix<T> a = a0;
  lint info = -99;
  Api<T>::potrf(upper ? "U" : "L", n, a.ptr(), a.ld, &info);
  if (info != 0) fail_msg("n=%ld uplo=%c rcond=%g: info %ld", long(n), uplo, rcond, long(info));
  const double ratio = factor_ratio(hermitian(block(a0, n, n), uplo), a, uplo);
  if (!(ratio < kThreshold)) fail_msg("n=%ld uplo=%c rcond=%g: ratio %g", long(n), uplo, rcond, ratio);
}

static bool large() { return std::getenv("HQR_TEST_LARGE") != nullptr; }

// Both GPU schedules where a GPU serves: the default (one trip through
// cuSOLVER at small orders, the hybrid above) and the hybrid at every
// order (a block size set: several panels even at these orders).
template <class F> static void each_schedule(F f) {
  f();
  if (hqr_device() < 0 || large()) return;  // the large orders take the hybrid anyway
  hqr_set_nb(int(block_size = 128));
  f();
  const char *env = std::getenv("HQR_NB");  // back to what the run asked for
  hqr_set_nb(int(block_size = env ? std::atol(env) : 0));
}

template <class T> static void orders(void **) {
  std::vector<lint> sizes = {1, 2, 33, 511, 512, 513, 1000};
  if (large()) sizes.insert(sizes.end(), {4097, 10000, 20000});
  // With a small HQR_GPU_MEMORY (scripts/gpu-check.sh: 8M), an order whose
  // triangle is several times that runs out of core, on one GPU or several.
  if (std::getenv("HQR_GPU_MEMORY")) sizes.push_back(3001);
  each_schedule([&] {
    for (lint n : sizes)
      for (bool upper : {false, true}) check_order<T>(n, n + (n % 3 == 0 ? 0 : 5), upper);
  });
}

template <class T> static void failures(void **) {
  const lint n = large() ? 3000 : 700;
  each_schedule([&] {
    for (bool upper : {false, true})
      for (lint p : {lint(0), lint(511), lint(512), n / 2 + 7, n - 1}) {
        check_failure<T>(n, p, upper, false);
        check_failure<T>(n, p, upper, true);
      }
  });
}

// Condition numbers 1e12 (double) and 1e3 (single), with margin to where
// n*eps makes the factorization itself break down.
template <class T> static void ill_conditioned(void **) {
  const double rcond = std::is_same_v<testing::real_t<T>, double> ? 1e-12 : 1e-3;
  each_schedule([&] {
    for (lint n : {lint(600), lint(1500)})
      for (bool upper : {false, true}) check_ill<T>(n, upper, rcond);
  });
}

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(orders<float>),
      cmocka_unit_test(orders<double>),
      cmocka_unit_test(orders<std::complex<float>>),
      cmocka_unit_test(orders<std::complex<double>>),
      cmocka_unit_test(failures<double>),
      cmocka_unit_test(failures<std::complex<float>>),
      cmocka_unit_test(ill_conditioned<double>),
      cmocka_unit_test(ill_conditioned<std::complex<float>>),
  };
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);  // e.g. sanitizer runs
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
