// What hqr's register-tiled CPU kernels for the inverse (trti2, lauu2)
// share: the tile shape and complex arithmetic that vectorises.
#pragma once

#include <cstddef>

#include "host/common.hpp"

namespace hqr::cpu::tile {

using idx = std::ptrdiff_t;  // offsets: row + column * ld can pass 2**31

// 16 rows (contiguous: one or two vector registers per column) by 4
// columns, so each element loaded from the triangle is used 4 times.
// Inner loops of fixed length run down a column without reductions, so the
// compiler vectorises them without reassociating sums.
constexpr idx kRows = 16, kCols = 4;

// a*b spelled out for complex types: std::complex's operator* calls
// __muldc3 for its NaN/Inf corner cases, which stops vectorisation.
template <class T> inline T mul(const T &a, const T &b) {
  if constexpr (is_complex<T>)
    return T(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  else
    return a * b;
}

}  // namespace hqr::cpu::tile
