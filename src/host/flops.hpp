// LAPACK's operation counts (LAWN 41 / TESTING dopla.f): multiplications and
// additions, combined as mul + add for real types and 6 mul + 2 add for
// complex ones (one complex multiply is 6 real flops, one add 2).
#pragma once

#include "common.hpp"

namespace hqr::flops {

template <class T> double combine(double mul, double add) {
  return is_complex<T> ? 6.0 * mul + 2.0 * add : mul + add;
}

template <class T> double potrf(double n) {
  return combine<T>(n * n * n / 6 + n * n / 2 + n / 3, n * n * n / 6 - n / 6);
}
template <class T> double trtri(double n) {
  return combine<T>(n * n * n / 6 + n * n / 2 + n / 3, n * n * n / 6 - n * n / 2 + n / 3);
}
template <class T> double lauum(double n) { return potrf<T>(n); }
template <class T> double potri(double n) { return trtri<T>(n) + lauum<T>(n); }
template <class T> double potrs(double n, double nrhs) {
  return combine<T>(nrhs * n * (n + 1), nrhs * n * (n - 1));
}
template <class T> double posv(double n, double nrhs) { return potrf<T>(n) + potrs<T>(n, nrhs); }
template <class T> double geqrf(double m, double n) {
  if (m >= n)
    return combine<T>(m * n * n - n * n * n / 3 + m * n + n * n / 2 + 23 * n / 6,
                      m * n * n - n * n * n / 3 + n * n / 2 + 5 * n / 6);
  return combine<T>(n * m * m - m * m * m / 3 + 2 * n * m - m * m / 2 + 23 * m / 6,
                    n * m * m - m * m * m / 3 + n * m - m * m / 2 + 5 * m / 6);
}
// Q (from k reflectors) applied to an m-by-n C from the left or the right.
template <class T> double ormqr(bool left, double m, double n, double k) {
  if (left) return combine<T>(2 * n * m * k - n * k * k + 2 * n * k, 2 * n * m * k - n * k * k + n * k);
  return combine<T>(2 * n * m * k - m * k * k + m * k + n * k - k * k / 2 + k / 2, 2 * n * m * k - m * k * k + m * k);
}
template <class T> double orgqr(double m, double n, double k) {
  return combine<T>(2 * m * n * k - (m + n) * k * k + 2.0 / 3 * k * k * k + 2 * n * k - k * k - 5 * k / 3,
                    2 * m * n * k - (m + n) * k * k + 2.0 / 3 * k * k * k + n * k - m * k + k / 3);
}
// The bidiagonal reduction of an m-by-n matrix, m >= n.
template <class T> double gebrd(double m, double n) {
  return combine<T>(n * n * (2 * m - 2 * n / 3 + 2) + 20 * n / 3, n * n * (2 * m - 2 * n / 3 + 1) - m * n + 5 * n / 3);
}
// Factor, apply Q to the right-hand sides, solve with the triangle.
template <class T> double gels(double m, double n, double nrhs) {
  const double k = m < n ? m : n;
  return geqrf<T>(m, n) + ormqr<T>(true, m > n ? m : n, nrhs, k) + combine<T>(nrhs * k * k / 2, nrhs * k * k / 2);
}

// Level-3 BLAS (LAWN 41). symm/hemm: A m-by-m (left) or n-by-n (right);
// trmm and trsm: the same counts, A m-by-m (left) or n-by-n (right).
template <class T> double gemm(double m, double n, double k) { return combine<T>(m * n * k, m * n * k); }
template <class T> double symm(bool left, double m, double n) {
  return left ? combine<T>(m * m * n, m * m * n) : combine<T>(m * n * n, m * n * n);
}
template <class T> double syrk(double n, double k) { return combine<T>(k * n * (n + 1) / 2, k * n * (n + 1) / 2); }
template <class T> double syr2k(double n, double k) { return combine<T>(k * n * n, k * n * n + n); }
template <class T> double trmm(bool left, double m, double n) {
  return left ? combine<T>(n * m * (m + 1) / 2, n * m * (m - 1) / 2) : combine<T>(m * n * (n + 1) / 2, m * n * (n - 1) / 2);
}
template <class T> double trsm(bool left, double m, double n) { return trmm<T>(left, m, n); }

}  // namespace hqr::flops
