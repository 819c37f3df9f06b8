// Shared by the benchmark programs: wall-clock timing, medians, and an exit
// on any failing CUDA/cuSOLVER call (status 0 is success for both).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

using clk = std::chrono::steady_clock;

inline double seconds(const std::function<void()> &f) {
  const auto t = clk::now();
  f();
  return std::chrono::duration<double>(clk::now() - t).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

#define CK(x)                                                                       \
  do {                                                                              \
    auto e_ = (x);                                                                  \
    if (e_ != 0) {                                                                  \
      std::fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, int(e_)); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)
