// Scans of a block of a caller's matrix: whether it holds a NaN or an Inf,
// for paths that must leave such input to the CPU (LAPACK's handling of it
// cannot be reproduced after the fact; see gels.cpp), and its largest
// magnitude, for routines that scale as LAPACK does (gels.cpp, gelsd.cpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <thread>
#include <vector>

#include "common.hpp"
#include "cpu/parallel.hpp"

namespace hqr {

// x - x is NaN exactly when x is NaN or +-Inf. Large blocks are read in
// column ranges by `threads` threads: run(pieces, fn) calls fn(0) ...
// fn(pieces - 1) on them and returns when all are done (a context's copy
// pool, whose threads are awake in microseconds); the overload without a
// runner starts up to 16 threads for the call.
template <class T, class Run> bool any_nonfinite(lint m, lint n, const T *a, lint lda, int threads, Run &&run) {
  using R = typename Prec<T>::real;
  const lint len = is_complex<T> ? 2 * m : m;  // a complex column as reals
  auto scan = [&](lint j0, lint j1) {
    bool bad = false;
    for (lint j = j0; j < j1; ++j) {
      const R *c = reinterpret_cast<const R *>(a + std::size_t(j) * lda);
      for (lint i = 0; i < len; ++i) bad |= (c[i] - c[i]) != 0;
    }
    return bad;
  };
  if (threads <= 1 || n < 2 || double(len) * double(n) < double(1 << 22)) return scan(0, n);
  const int pieces = int(std::min<lint>(n, 4 * lint(threads)));  // a few per thread: even when some start late
  std::atomic<bool> bad{false};
  run(pieces, [&](int p) {
    if (!bad.load(std::memory_order_relaxed) && scan(n * p / pieces, n * (p + 1) / pieces))
      bad.store(true, std::memory_order_relaxed);
  });
  return bad.load();
}
template <class T> bool any_nonfinite(lint m, lint n, const T *a, lint lda) {
  const int threads = int(std::min<lint>({n, 16, lint(std::max(1u, std::thread::hardware_concurrency()))}));
  return any_nonfinite(m, n, a, lda, threads, [&](int pieces, const std::function<void(int)> &fn) {
    cpu::parallel_ranges(pieces, threads, 1, [&](int, lint p0, lint p1) {
      for (lint p = p0; p < p1; ++p) fn(int(p));
    });
  });
}

// LAPACK's SMLNUM of xGELS and xGELSD (safe minimum / precision; BIGNUM
// is its reciprocal): they scale A and B whose max |x_ij| lies outside.
template <class T> typename Prec<T>::real small_number() {
  using R = typename Prec<T>::real;
  return std::numeric_limits<R>::min() / std::numeric_limits<R>::epsilon();
}

// LAPACK's xLANGE('M'): max |a_ij|, NaN if any is NaN; several threads
// (cpu/parallel.hpp) over the columns of a large block. A complex entry's
// modulus (a hypot, ~20 ns) is taken only where |re| + |im|, its upper
// bound, exceeds the largest so far: zgelsd 1024 x 512 spent 10 ms here.
template <class T> typename Prec<T>::real max_abs(lint m, lint n, const T *a, lint lda) {
  using R = typename Prec<T>::real;
  auto scan = [&](lint j0, lint j1) {
    R v = 0;
    for (lint j = j0; j < j1; ++j)
      for (lint i = 0; i < m; ++i) {
        const T &z = a[i + std::size_t(j) * lda];
        if constexpr (is_complex<T>)
          if (std::abs(z.real()) + std::abs(z.imag()) <= v) continue;  // false for NaN: taken below
        const R x = std::abs(z);
        if (v < x || x != x) v = x;
      }
    return v;
  };
  const int threads = cpu::pass_threads(0, double(m) * double(n), double(1 << 20));
  if (threads <= 1 || n < 2) return scan(0, n);
  std::vector<R> part(static_cast<std::size_t>(threads), R(0));
  cpu::parallel_ranges(n, threads, 1, [&](int t, lint j0, lint j1) { part[std::size_t(t)] = scan(j0, j1); });
  R v = 0;
  for (R x : part)
    if (v < x || x != x) v = x;
  return v;
}

}  // namespace hqr
