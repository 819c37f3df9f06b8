// LAPACK's reflector where a column has nothing to eliminate. xLARFG, for
// a column whose entries below the diagonal are all exactly zero, gives
// tau = 0 (H = I) when alpha = A(i,i) is real, and otherwise
// beta = -sign(Re alpha) |alpha|, tau = (beta - alpha) / beta. cuSOLVER's
// geqrf, which factors the GPU paths' fallback panels (scaled or
// rank-deficient input), may take another unitary H there (tau = 2 in real
// arithmetic: row i of R negated), a valid factorization but not LAPACK's
// V and tau. Since V's column i is e_i, H acts on row i alone: it scaled
// row i of R by f = 1 - conj(tau); LAPACK's scales it by 1 - conj(tau_L).
#pragma once

#include <cmath>
#include <complex>

#include "host/common.hpp"

namespace hqr {

// Rewrites, in an m-by-n QR factorization as xGEQRF stores it (A, tau),
// each reflector whose column below the diagonal is exactly zero into
// LAPACK's, together with row i of R (columns i..n-1) and, where given,
// row i of Q**H B (nrhs columns). Cheap where nothing is to be done: a
// column's scan stops at its first nonzero entry.
template <class T>
void lapack_zero_reflectors(lint m, lint n, T *a, lint lda, T *tau, T *b = nullptr, lint ldb = 0, lint nrhs = 0) {
  using R = typename Prec<T>::real;
  const lint k = m < n ? m : n;
  for (lint i = 0; i < k; ++i) {
    T *col = a + i + std::size_t(i) * lda;
    lint r = 1;
    while (r < m - i && col[r] == T(0)) ++r;
    if (r < m - i) continue;
    const T f = T(1) - conj_of(tau[i]);  // what H did to row i
    if (f == T(0) || std::isnan(std::abs(f))) continue;
    T alpha = col[0] / f, tl = T(0), diag = alpha;
    if constexpr (is_complex<T>) {
      if (std::imag(alpha) != R(0)) {
        const R beta = -std::copysign(std::abs(alpha), std::real(alpha));
        tl = (T(beta) - alpha) / T(beta);
        diag = T(beta);
      }
    }
    if (tl == tau[i]) continue;  // LAPACK's already
    const T g = (T(1) - conj_of(tl)) / f;
    col[0] = diag == T(0) ? T(0) : diag;
    for (lint j = i + 1; j < n; ++j) a[i + std::size_t(j) * lda] *= g;
    for (lint j = 0; b && j < nrhs; ++j) b[i + std::size_t(j) * ldb] *= g;
    tau[i] = tl;
  }
}

}  // namespace hqr
