// Dispatch for xGEQRF and the routines that apply or form its Q
// (xGELS, xORMQR/xUNMQR, xORGQR/xUNGQR), and the CPU finish after a GPU
// failure that geqrf and gels share: dispatch.hpp has one crossover per
// Routine and none for these yet, so they use the hybrid geqrf's, measured
// with the same probe (a geqrf of order n on each path) under the same key,
// at the order of the square QR with the flops of the call.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "flops.hpp"
#include "next_lapack.hpp"

namespace hqr {

// The order of the square real QR (4n^3/3 flops) with `flops` flops.
template <class T> long qr_order_for_flops(double flops) {
  const double real_flops = is_complex<T> ? flops / 4 : flops;
  return long(std::cbrt(std::max(0.0, real_flops) * 3 / 4));
}

// As geqrf.cpp's equivalent_order: tall and wide shapes share the crossover.
inline long qr_equivalent_order(lint m, lint n) {
  const double k = double(std::min(m, n)), l = double(std::max(m, n));
  return long(std::cbrt((2 * l * k * k - 2 * k * k * k / 3) * 3 / 4));
}

// Dispatch's probe for the geqrf crossover (the same measurement as
// geqrf.cpp's): one factorization of a fresh random n-by-n matrix on `path`.
template <class T> double qr_probe(Path path, long n) {
  using R = typename Prec<T>::real;
  std::mt19937_64 gen{std::random_device{}()};
  std::uniform_real_distribution<R> u(-1, 1);
  std::vector<T> a(std::size_t(n) * n), tau(static_cast<std::size_t>(n));
  for (T &x : a) {
    if constexpr (is_complex<T>)
      x = T(u(gen), u(gen));
    else
      x = u(gen);
  }
  const lint order = n, query = -1;
  lint info = 0;
  const auto start = std::chrono::steady_clock::now();
  if (path == Path::gpu) {
    gpu::geqrf(order, order, a.data(), order, tau.data(), nullptr);
  } else {
    T w{};
    next::geqrf(&order, &order, a.data(), &order, tau.data(), &w, &query, &info);
    lint lw = std::max<lint>(1, lint(std::real(w)));
    std::vector<T> work(static_cast<std::size_t>(lw));
    next::geqrf(&order, &order, a.data(), &order, tau.data(), work.data(), &lw, &info);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// After a GPU failure in geqrf or gels: the first r columns of A hold the
// factorization (with tau), the rest the input. Applies the stored
// reflectors to the rest and factors what remains below row r.
template <class T> void finish_geqrf(lint m, lint n, lint r, T *a, lint lda, T *tau) {
  const lint k = std::min(m, n), kr = std::min(r, k), nc = n - r;
  const lint query = -1;
  lint info = 0;
  if (nc <= 0) return;
  T *c = a + std::size_t(r) * lda;
  if (kr > 0) {
    const char trans = is_complex<T> ? 'C' : 'T';
    T w{};
    next::ormqr("L", &trans, &m, &nc, &kr, a, &lda, tau, c, &lda, &w, &query, &info);
    lint lw = std::max<lint>({1, nc, lint(std::real(w))});
    std::vector<T> work(static_cast<std::size_t>(lw));
    next::ormqr("L", &trans, &m, &nc, &kr, a, &lda, tau, c, &lda, work.data(), &lw, &info);
  }
  if (r < k) {
    const lint mr = m - r;
    T w{};
    next::geqrf(&mr, &nc, c + r, &lda, tau + r, &w, &query, &info);
    lint lw = std::max<lint>({1, nc, lint(std::real(w))});
    std::vector<T> work(static_cast<std::size_t>(lw));
    next::geqrf(&mr, &nc, c + r, &lda, tau + r, work.data(), &lw, &info);
  }
}

}  // namespace hqr
