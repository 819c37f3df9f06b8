// hqr's runtime API and the XERBLA route: reports reach the program's own
// XERBLA through the dynamic symbol table.
#include "testing.hpp"

static void version_is_semver(void **) {
  int a, b, c;
  assert_int_equal(std::sscanf(hqr_version(), "%d.%d.%d", &a, &b, &c), 3);
}

static void no_device_without_gpu(void **) {
  hqr_set_device(-1);
  assert_int_equal(hqr_device(), -1);
  assert_string_equal(hqr_device_name(), "none");
}

static void xerbla_reaches_program(void **) {
  testing::xerbla_reset();
  lapack_int n = 4, lda = 4, info = 0;
  std::vector<double> a(16, 1.0);
  dpotrf_("X", &n, a.data(), &lda, &info, 1);
  assert_int_equal(info, -1);
  assert_xerbla("DPOTRF", 1);
  for (double x : a) assert_true(x == 1.0);  // untouched
}

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(version_is_semver),
      cmocka_unit_test(no_device_without_gpu),
      cmocka_unit_test(xerbla_reaches_program),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
