// Shared by the benchmark programs: wall-clock timing, medians, and an exit
// on any failing CUDA/cuSOLVER call (status 0 is success for both).
#pragma once

#include <cuda_runtime_api.h>

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

// The median of `reps` timed calls of f after one warm-up, refill() (not
// timed) before each: a benchmark's inputs put back.
inline double median_time(int reps, const std::function<void()> &refill, const std::function<void()> &f) {
  std::vector<double> t;
  for (int r = 0; r <= reps; ++r) {
    refill();
    const double s = seconds(f);
    if (r > 0) t.push_back(s);
  }
  return median(t);
}

// Whether a GPU is there; the benchmark programs print one line and exit 0
// where none is (a build machine), so that scripts around them still run.
inline bool gpu_present(const char *program) {
  int n = 0;
  if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0) return true;
  std::printf("# %s: no GPU here, nothing measured\n", program);
  return false;
}
