// Shared by the CMocka tests: random matrices, norms, LAPACK-style residual
// ratios, the reference LAPACK to compare INFO with, and an XERBLA that
// records what hqr reports. Each test program is one translation unit that
// includes this header once.
#pragma once

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

extern "C" {
#include <cmocka.h>
}
#include "hqr.h"

namespace testing {

using lint = lapack_int;
constexpr double kThreshold = 30.0;  // LAPACK's THRESH

template <class T> struct real_of { using type = T; };
template <class T> struct real_of<std::complex<T>> { using type = T; };
template <class T> using real_t = typename real_of<T>::type;
template <class T> constexpr bool is_complex_v = !std::is_same_v<T, real_t<T>>;
template <class T> real_t<T> eps() { return std::numeric_limits<real_t<T>>::epsilon() / 2; }  // LAPACK's 'E'

// Fresh random data every run; HQR_TEST_SEED reproduces a failing run.
inline std::mt19937_64 &rng() {
  static std::mt19937_64 g([] {
    const char *s = std::getenv("HQR_TEST_SEED");
    uint64_t seed = s ? std::strtoull(s, nullptr, 10) : std::random_device{}();
    std::fprintf(stderr, "HQR_TEST_SEED=%llu\n", (unsigned long long)seed);
    return seed;
  }());
  return g;
}
template <class T> T random_value() {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (is_complex_v<T>)
    return T(real_t<T>(u(rng())), real_t<T>(u(rng())));
  else
    return T(u(rng()));
}

// Column-major m-by-n matrix with leading dimension ld >= m.
template <class T> struct Matrix {
  lint m = 0, n = 0, ld = 1;
  std::vector<T> data;
  Matrix() = default;
  Matrix(lint m_, lint n_, lint ld_ = 0) : m(m_), n(n_), ld(std::max<lint>({ld_, m_, 1})), data(size_t(ld) * std::max<lint>(n_, 1)) {}
  T &operator()(lint i, lint j) { return data[size_t(i) + size_t(j) * ld]; }
  const T &operator()(lint i, lint j) const { return data[size_t(i) + size_t(j) * ld]; }
  T *ptr() { return data.data(); }
};

template <class T> Matrix<T> random_matrix(lint m, lint n, lint ld = 0) {
  Matrix<T> a(m, n, ld);
  for (auto &x : a.data) x = random_value<T>();  // padding rows random too
  return a;
}

// Hermitian positive definite: B*B^H + n*I, well conditioned.
template <class T> Matrix<T> random_hpd(lint n, lint ld = 0) {
  Matrix<T> b = random_matrix<T>(n, n);
  Matrix<T> a = random_matrix<T>(n, n, ld);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < n; ++i) {
      T s = 0;
      for (lint k = 0; k < n; ++k) s += b(i, k) * std::conj(b(j, k));
      a(i, j) = s;
    }
  for (lint i = 0; i < n; ++i) a(i, i) = T(std::real(a(i, i)) + real_t<T>(n));
  return a;
}

template <class T> double norm_one(const Matrix<T> &a) {  // max column sum
  double r = 0;
  for (lint j = 0; j < a.n; ++j) {
    double s = 0;
    for (lint i = 0; i < a.m; ++i) s += std::abs(a(i, j));
    r = std::max(r, s);
  }
  return r;
}
template <class T> double norm_fro(const Matrix<T> &a) {
  double s = 0;
  for (lint j = 0; j < a.n; ++j)
    for (lint i = 0; i < a.m; ++i) s += std::norm(std::complex<double>(a(i, j)));
  return std::sqrt(s);
}

// C = op(A) * op(B) in double-precision accumulation; op is 'N' or 'C'
// (conjugate transpose; plain transpose for real types).
template <class T> Matrix<T> multiply(const Matrix<T> &a, char opa, const Matrix<T> &b, char opb) {
  const lint m = opa == 'N' ? a.m : a.n, k = opa == 'N' ? a.n : a.m;
  const lint n = opb == 'N' ? b.n : b.m;
  Matrix<T> c(m, n);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i) {
      std::complex<double> s = 0;
      for (lint l = 0; l < k; ++l) {
        std::complex<double> x = opa == 'N' ? std::complex<double>(a(i, l)) : std::conj(std::complex<double>(a(l, i)));
        std::complex<double> y = opb == 'N' ? std::complex<double>(b(l, j)) : std::conj(std::complex<double>(b(j, l)));
        s += x * y;
      }
      if constexpr (is_complex_v<T>)
        c(i, j) = T(real_t<T>(s.real()), real_t<T>(s.imag()));
      else
        c(i, j) = T(s.real());
    }
  return c;
}

// The reference LAPACK (Debian's liblapack3), loaded beside hqr to compare
// INFO and results with. Its internal calls may still pass through hqr's
// exports; that is fine for INFO, which hqr must reproduce anyway.
inline void *reference_symbol(const char *name) {
  static void *h = dlopen("/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3", RTLD_NOW | RTLD_LOCAL);
  void *p = h ? dlsym(h, name) : nullptr;
  if (!p) fail_msg("reference LAPACK has no %s", name);
  return p;
}

// XERBLA as a test suite supplies it: record, do not print or stop.
struct XerblaLog {
  int calls = 0;
  char name[32] = "";
  long info = 0;
};
inline XerblaLog &xerbla_log() {
  static thread_local XerblaLog log;
  return log;
}
inline void xerbla_reset() { xerbla_log() = XerblaLog{}; }

}  // namespace testing

extern "C" void xerbla_(const char *name, const lapack_int *info, size_t len) {
  auto &log = testing::xerbla_log();
  ++log.calls;
  size_t n = std::min(len, sizeof log.name - 1);
  std::memcpy(log.name, name, n);
  while (n > 0 && log.name[n - 1] == ' ') --n;  // LAPACK pads with blanks
  log.name[n] = '\0';
  log.info = *info;
}

// Asserts that the last call reported argument `pos` of routine `name`.
#define assert_xerbla(routine, pos)                                  \
  do {                                                               \
    assert_int_equal(testing::xerbla_log().calls, 1);                \
    assert_string_equal(testing::xerbla_log().name, (routine));      \
    assert_int_equal(testing::xerbla_log().info, (pos));             \
    testing::xerbla_reset();                                         \
  } while (0)
