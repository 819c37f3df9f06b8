// Shared by the benchmark programs: a fresh random SPD matrix per run.
#pragma once

#include <algorithm>
#include <complex>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

// SPD test matrix without an O(n^3) product: random Hermitian + n*I, filled
// by all cores (the largest orders take seconds on one).
template <class T> void make_spd(std::vector<T> &a, int n) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::mt19937_64 g(std::random_device{}());
      std::uniform_real_distribution<double> u(-1, 1);
      for (int j = int(t); j < n; j += int(threads))
        for (int i = j; i < n; ++i) {
          T x;
          if constexpr (std::is_floating_point_v<T>)
            x = T(u(g));
          else
            x = T(u(g), i == j ? 0 : u(g));
          if (i == j) x = T(std::real(x) + n);
          a[i + size_t(j) * n] = x;
          if constexpr (std::is_floating_point_v<T>)
            a[j + size_t(i) * n] = x;
          else
            a[j + size_t(i) * n] = std::conj(x);
        }
    });
  for (auto &t : pool) t.join();
}
