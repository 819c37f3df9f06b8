// What xTRTRI, xLAUUM and xPOTRI share around their GPU path: LAPACK's
// singularity check, finishing on the CPU when the GPU stopped with part of
// the result already in the caller's array (gpu.hpp, Result::resume), and
// the probe that measures the crossover.
#pragma once

#include <chrono>
#include <cstddef>
#include <random>
#include <vector>

#include "common.hpp"
#include "cpu/blas.hpp"
#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "next_lapack.hpp"

namespace hqr {

// xTRTRI (and so xPOTRI) checks the whole diagonal for an exact zero
// before it writes anything: INFO is the first such position, or 0.
template <class T> lint first_zero_diagonal(lint n, const T *a, lint lda) {
  for (lint j = 0; j < n; ++j)
    if (a[j + std::size_t(j) * lda] == T(0)) return j + 1;
  return 0;
}

// trtri, with `done` (> 0) columns of the inverse final, the first ('U') or
// the last ('L'), and the rest still the input (nonsingular):
//   'U', j = done:     U22 = inv(U22); U12 = -inv(U11) * U12 * inv(U22)
//   'L', j = n - done: L21 = -inv(L22) * L21 * inv(L11), with inv(L22)
//                      already in place; L11 = inv(L11)
template <class T> void finish_trtri(bool upper, bool unit, lint n, lint done, T *a, lint lda) {
  const lint j = upper ? done : n - done, m = n - j;
  if (upper ? m == 0 : j == 0) return;
  const char uplo = upper ? 'U' : 'L', diag = unit ? 'U' : 'N';
  T *a22 = a + j + std::size_t(j) * lda;
  lint info = 0;
  if (upper) {
    next::trtri(&uplo, &diag, &m, a22, &lda, &info);
    T *a12 = a + std::size_t(j) * lda;
    blas::trmm<T>('L', 'U', 'N', diag, j, m, T(-1), a, lda, a12, lda);
    blas::trmm<T>('R', 'U', 'N', diag, j, m, T(1), a22, lda, a12, lda);
  } else {
    T *a21 = a + j;
    blas::trmm<T>('L', 'L', 'N', diag, m, j, T(-1), a22, lda, a21, lda);
    next::trtri(&uplo, &diag, &j, a, &lda, &info);
    blas::trmm<T>('R', 'L', 'N', diag, m, j, T(1), a, lda, a21, lda);
  }
}

// lauum, with the first j (> 0) rows ('U') or columns ('L') of the product
// final and the rest still the input: the trailing block's product depends
// only on the trailing block of the input, A22 = U22 * U22**H (L22**H * L22).
template <class T> void finish_lauum(bool upper, lint n, lint j, T *a, lint lda) {
  const lint m = n - j;
  if (m == 0) return;
  const char uplo = upper ? 'U' : 'L';
  lint info = 0;
  next::lauum(&uplo, &m, a + j + std::size_t(j) * lda, &lda, &info);
}

// potri likewise: inv(U) is upper triangular with inv(U)22 = inv(U22), so
// the trailing block of the inverse is potri of the factor's trailing block.
template <class T> void finish_potri(bool upper, lint n, lint j, T *a, lint lda) {
  const lint m = n - j;
  if (m == 0) return;
  const char uplo = upper ? 'U' : 'L';
  lint info = 0;
  next::potri(&uplo, &m, a + j + std::size_t(j) * lda, &lda, &info);
}

// Dispatch's probe for trtri, lauum and potri: one call of order n on
// `path` on a fresh random well-conditioned triangle (real diagonal in
// [1, 2], off-diagonal entries below 1/n in modulus), timed.
template <class T> double probe_inverse(Routine r, Path path, long n) {
  using R = typename Prec<T>::real;
  std::mt19937_64 gen{std::random_device{}()};
  std::uniform_real_distribution<R> u(-1, 1);
  std::vector<T> a(std::size_t(n) * n);
  for (lint j = 0; j < n; ++j) {
    a[j + std::size_t(j) * n] = T(R(1.5) + u(gen) / 2);
    for (lint i = j + 1; i < n; ++i) {
      if constexpr (is_complex<T>)
        a[i + std::size_t(j) * n] = T(u(gen), u(gen)) / R(n);
      else
        a[i + std::size_t(j) * n] = u(gen) / R(n);
    }
  }
  const lint order = n;
  lint info = 0;
  const auto start = std::chrono::steady_clock::now();
  if (path == Path::gpu) {
    if (r == Routine::trtri) gpu::trtri(false, false, order, a.data(), order);
    if (r == Routine::lauum) gpu::lauum(false, order, a.data(), order);
    if (r == Routine::potri) gpu::potri(false, order, a.data(), order);
  } else {
    if (r == Routine::trtri) next::trtri("L", "N", &order, a.data(), &order, &info);
    if (r == Routine::lauum) next::lauum("L", &order, a.data(), &order, &info);
    if (r == Routine::potri) {
      // As the CPU LAPACK's potri does, but without its calls to xTRTRI and
      // xLAUUM, which hqr exports: they would come back into dispatch while
      // it measures.
      next::trtri("L", "N", &order, a.data(), &order, &info);
      next::lauum("L", &order, a.data(), &order, &info);
    }
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace hqr
