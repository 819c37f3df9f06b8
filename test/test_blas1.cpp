// xCOPY (src/host/blas1.cpp), s/d/c/z: against the reference BLAS's
// definition, written out here: y(i) := x(i), element i of a vector with
// increment inc at (i-1)*inc from its first element for inc > 0 and at
// (n-i)*|inc| for inc < 0, inc = 0 the first element every time, n <= 0 a
// quick return. Lengths below and above the striped copies' 4096, positive,
// negative and zero increments, the elements of y between the vector's
// untouched, x untouched; overlapping vectors (copied on the calling
// thread); several threads copying at once (one holds the pool, the others
// copy alone); a child of fork() after the parent's pool started.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "testing.hpp"

using namespace testing;

// The level-1 copies hqr exports (ABI.md 4.3; not in hqr.h, like the other BLAS).
extern "C" {
void scopy_(const lapack_int *, const float *, const lapack_int *, float *, const lapack_int *);
void dcopy_(const lapack_int *, const double *, const lapack_int *, double *, const lapack_int *);
void ccopy_(const lapack_int *, const lapack_complex_float *, const lapack_int *, lapack_complex_float *,
            const lapack_int *);
void zcopy_(const lapack_int *, const lapack_complex_double *, const lapack_int *, lapack_complex_double *,
            const lapack_int *);
}

namespace {

template <class T> void xcopy(lint n, const T *x, lint incx, T *y, lint incy) {
  pick<T>(scopy_, dcopy_, ccopy_, zcopy_)(&n, lp(x), &incx, lp(y), &incy);
}

// Where element i (0-based) of an n-vector with increment inc lies, from its storage's start.
std::size_t at(lint n, lint inc, lint i) { return std::size_t(inc >= 0 ? i * inc : (n - 1 - i) * -inc); }
std::size_t storage(lint n, lint inc) { return n <= 0 ? 1 : std::size_t((n - 1) * std::abs(inc) + 1); }

// One call, checked: y's vector elements equal x's in order, every other
// element of y's storage (random, as it came) and all of x unchanged.
template <class T> void check_copy(lint n, lint incx, lint incy, const std::string &ctx) {
  std::vector<T> x(storage(n, incx)), y(storage(n, incy) + 5);
  for (T &v : x) v = random_value<T>();
  for (T &v : y) v = random_value<T>();
  const std::vector<T> x0 = x, y0 = y;
  xcopy<T>(n, x.data(), incx, y.data() + 2, incy);  // two guard elements each side
  if (!same_bytes(x, x0)) fail_msg("%s: x was changed", ctx.c_str());
  std::vector<T> want = y0;
  for (lint i = 0; i < n; ++i) want[2 + at(n, incy, i)] = x0[incx == 0 ? 0 : at(n, incx, i)];
  for (std::size_t k = 0; k < y.size(); ++k)
    if (std::memcmp(&y[k], &want[k], sizeof(T)) != 0)
      fail_msg("%s: y storage element %zu is %g, want %g", ctx.c_str(), k, double(std::real(y[k])),
               double(std::real(want[k])));
}

template <class T> void copy_cases(void **) {
  for (lint n : {-1, 0, 1, 2, 7, 4095, 4096, 5000, 65537})
    for (lint incx : {1, 2, -3, 0})
      for (lint incy : {1, 3, -2, 0})
        check_copy<T>(n, incx, incy, context("%ccopy n=%ld incx=%ld incy=%ld", prefix<T>(), long(n), long(incx), long(incy)));
}

// A vector copied onto itself shifted by one stride (the reference loop's
// order decides the result; the BLAS leaves it undefined): hqr must not
// split it among threads, where the order would vary from call to call;
// shifted down, each element takes its successor's value, as the loop gives.
template <class T> void overlapping(void **) {
  for (lint inc : {1, 5}) {
    const lint n = 20000;
    std::vector<T> a(std::size_t(n + 1) * inc);
    for (T &v : a) v = random_value<T>();
    const std::vector<T> a0 = a;
    xcopy<T>(n, a.data() + inc, inc, a.data(), inc);
    for (lint i = 0; i < n; ++i)
      if (std::memcmp(&a[std::size_t(i) * inc], &a0[std::size_t(i + 1) * inc], sizeof(T)) != 0)
        fail_msg("%ccopy in place, inc=%ld: element %ld is not its successor", prefix<T>(), long(inc), long(i));
  }
}

// numpy's pattern (rows of a square, a row apart) from four threads at once.
void threads_at_once(void **) {
  const lint n = 4500;
  std::vector<double> a(std::size_t(n) * n);
  for (double &v : a) v = random_value<double>();
  std::vector<std::vector<double>> out(4, std::vector<double>(std::size_t(n) * 8));
  std::vector<std::thread> th;
  for (int t = 0; t < 4; ++t)
    th.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep)
        for (lint j = 0; j < 8; ++j) xcopy<double>(n, a.data() + t * 8 + j, n, out[t].data() + j * n, 1);
    });
  for (auto &x : th) x.join();
  for (int t = 0; t < 4; ++t)
    for (lint j = 0; j < 8; ++j)
      for (lint i = 0; i < n; ++i)
        if (out[t][std::size_t(j * n + i)] != a[std::size_t(i * n + t * 8 + j)])
          fail_msg("thread %d row %ld: element %ld wrong", t, long(j), long(i));
}

// Every core busy with other threads (the pool's workers descheduled for
// whole time slices): the caller runs the parts their threads have not
// claimed; every copy stays right, with fresh data each time.
void busy_cores(void **) {
  const lint n = 9000, inc = 7;
  std::atomic<bool> stop{false};
  std::vector<std::thread> hogs;
  for (unsigned i = 0; i < std::max(2u, std::thread::hardware_concurrency()); ++i)
    hogs.emplace_back([&] {
      volatile double x = 1;
      while (!stop.load(std::memory_order_relaxed)) x = x * 1.0000001;
    });
  std::vector<double> x(std::size_t(n) * inc), y(n);
  for (int rep = 0; rep < 300; ++rep) {
    for (double &v : x) v = random_value<double>();
    xcopy<double>(n, x.data(), inc, y.data(), 1);
    for (lint i = 0; i < n; ++i)
      if (y[i] != x[std::size_t(i * inc)]) {
        stop = true;
        for (auto &h : hogs) h.join();
        fail_msg("copy %d: element %ld wrong", rep, long(i));
      }
  }
  stop = true;
  for (auto &h : hogs) h.join();
}

// After a striped copy in the parent, a forked child copies too (its own
// pool; the parent's threads do not exist there) and must finish.
void after_fork(void **) {
  const lint n = 8192, inc = 3;
  std::vector<double> x(std::size_t(n) * inc), y(n);
  for (double &v : x) v = random_value<double>();
  xcopy<double>(n, x.data(), inc, y.data(), 1);
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    alarm(60);  // a hang would fail the test, not stall it
    std::vector<double> z(n);
    xcopy<double>(n, x.data(), inc, z.data(), 1);
    for (lint i = 0; i < n; ++i)
      if (z[i] != x[std::size_t(i * inc)]) _exit(2);
    _exit(0);
  }
  if (child < 0) fail_msg("fork failed");
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail_msg("the child's copy %s (status %d)", WIFSIGNALED(status) ? "hung or crashed" : "was wrong", status);
  for (lint i = 0; i < n; ++i)
    if (y[i] != x[std::size_t(i * inc)]) fail_msg("parent's copy: element %ld wrong", long(i));
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(copy_cases<float>),          cmocka_unit_test(copy_cases<double>),
      cmocka_unit_test(copy_cases<std::complex<float>>), cmocka_unit_test(copy_cases<std::complex<double>>),
      cmocka_unit_test(overlapping<double>),        cmocka_unit_test(overlapping<std::complex<float>>),
      cmocka_unit_test(threads_at_once),            cmocka_unit_test(busy_cores),
      cmocka_unit_test(after_fork),
  };
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
