// B := A**H (A**T for real types) between two host arrays, for the paths
// that factor A**H where one GPU cannot hold it (xGELS with m < n over the
// device set or out of core, qr_apply.cu): a copy of A's size, read and
// written in square tiles so that both sides stream through the cache, on
// several threads (cpu/parallel.hpp), each owning a range of B's columns.
#pragma once

#include <algorithm>
#include <complex>

#include "common.hpp"
#include "cpu/parallel.hpp"

namespace hqr {

// b (cols-by-rows, leading dimension ldb) := a**H, a rows-by-cols (lda).
template <class T> void conj_transpose(lint rows, lint cols, const T *a, lint lda, T *b, lint ldb) {
  constexpr lint kTile = 64;
  auto conj = [](const T &x) {
    if constexpr (is_complex<T>)
      return std::conj(x);
    else
      return x;
  };
  auto run = [&](int, lint j0, lint j1) {  // b's columns j0..j1-1 (a's rows)
    for (lint jt = j0; jt < j1; jt += kTile)
      for (lint it = 0; it < cols; it += kTile) {
        const lint je = std::min(j1, jt + kTile), ie = std::min(cols, it + kTile);
        for (lint j = jt; j < je; ++j)
          for (lint i = it; i < ie; ++i) b[i + std::size_t(j) * ldb] = conj(a[j + std::size_t(i) * lda]);
      }
  };
  const int threads = cpu::pass_threads(0, double(rows) * double(cols), double(1 << 20));
  cpu::parallel_ranges(rows, threads, kTile, run);
}

}  // namespace hqr
