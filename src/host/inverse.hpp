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
#include "cpu/lauu2.hpp"
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

// xLAUUM on the CPU: the next LAPACK's, except that for complex 'U' hqr
// forms the last columns' part itself. OpenBLAS 0.3.21 (Debian 12's) reads
// past the caller's array there: its complex dot kernels (c/z dotc and dotu,
// every x86_64 core type) load one stride past the last element of a strided
// vector, and its xLAUU2 'U' takes the dot of each row of a diagonal block
// with the rest of that row, so for the last block's rows the load lands up
// to n elements past the last column. Where the array ends at an unmapped
// page the call faults, and a cudaMallocHost array does: the driver reserves
// the range after it (zpotri 'U' 4096, lda 4097, faulted in test_pinned's CPU
// fallback; test_inverse's at_mapping_end shows it on any host). So:
//   [U11 U12; 0 U22] [U11 U12; 0 U22]**H
//     = [U11 U11**H + U12 U12**H, U12 U22**H; ., U22 U22**H]
// with U22 the last kTail columns: the next LAPACK forms U11 U11**H, whose
// extra load falls on U12 (inside the array), the next BLAS the rank-kTail
// update and the product with U22**H, and hqr's xLAUU2 U22 U22**H. It costs
// 0.97-1.0x the next LAPACK's own time from n = 1024 (2-core host).
template <class T> void cpu_lauum(bool upper, lint n, T *a, lint lda) {
  const char uplo = upper ? 'U' : 'L';
  lint info = 0;
  if (!(is_complex<T> && upper)) return next::lauum(&uplo, &n, a, &lda, &info);
  constexpr lint kTail = 32;
  if (n <= kTail) return cpu::lauu2<T>(true, n, a, lda, nullptr);
  const lint n1 = n - kTail;
  T *a12 = a + std::size_t(n1) * lda, *a22 = a12 + n1;
  next::lauum(&uplo, &n1, a, &lda, &info);
  blas::syrk<T>(true, 'U', 'N', n1, kTail, T(1), a12, lda, T(1), a, lda);
  blas::trmm<T>('R', 'U', 'C', 'N', n1, kTail, T(1), a22, lda, a12, lda);
  cpu::lauu2<T>(true, kTail, a22, lda, nullptr);
}

// lauum, with the first j (> 0) rows ('U') or columns ('L') of the product
// final and the rest still the input: the trailing block's product depends
// only on the trailing block of the input, A22 = U22 * U22**H (L22**H * L22).
template <class T> void finish_lauum(bool upper, lint n, lint j, T *a, lint lda) {
  if (n - j > 0) cpu_lauum(upper, n - j, a + j + std::size_t(j) * lda, lda);
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
