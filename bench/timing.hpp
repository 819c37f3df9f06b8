// Shared by the benchmark programs: wall-clock timing, medians (of runs on
// fresh inputs after a warm-up: median_timing), and an exit
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

// run() after prep() (untimed): a warm-up, then the median of reps; a peer
// whose warm-up takes over 2 s is timed once (that run, `once`).
struct Timing {
  double s;
  bool once;
};
inline Timing median_timing(int reps, const std::function<void()> &prep, const std::function<void()> &run) {
  prep();
  const double first = seconds(run);
  if (first > 2.0) return {first, true};
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    prep();
    t.push_back(seconds(run));
  }
  return {median(t), false};
}

#define CK(x)                                                                       \
  do {                                                                              \
    auto e_ = (x);                                                                  \
    if (e_ != 0) {                                                                  \
      std::fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, int(e_)); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)
