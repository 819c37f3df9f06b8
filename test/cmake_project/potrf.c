/* A CMake user's C program (test/cmake.sh): dpotrf_ through hqr.h on a 3x3
 * SPD matrix whose Cholesky factor is known exactly; lapack_int must have the
 * size of the library linked (EXPECT_INTEGER_BYTES: 4 for hqr::hqr, 8 for
 * hqr::hqr64, whose target defines HQR_ILP64). Prints "PASS" or exits 1. */
#include <stdio.h>
#include "hqr.h"

_Static_assert(sizeof(lapack_int) == EXPECT_INTEGER_BYTES, "lapack_int has the linked library's INTEGER size");

int main(void) {
  /* A = L L^T with L = [2 0 0; 1 3 0; -1 2 4] (column-major, lower used). */
  double a[9] = {4, 2, -2, 0, 10, 5, 0, 0, 21};
  const double l[9] = {2, 1, -1, 0, 3, 2, 0, 0, 4};
  lapack_int n = 3, lda = 3, info = -1;
  dpotrf_("L", &n, a, &lda, &info, 1);
  double err = 0;
  for (int j = 0; j < 3; ++j)
    for (int i = j; i < 3; ++i) {
      double d = a[i + 3 * j] - l[i + 3 * j];
      if (d < 0) d = -d;
      if (d > err) err = d;
    }
  printf("hqr %s: dpotrf info=%ld max error %.1e\n", hqr_version(), (long)info, err);
  if (info != 0 || err > 1e-14) return 1;
  puts("PASS");
  return 0;
}
