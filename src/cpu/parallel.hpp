// Contiguous ranges of [0, m), or items taken in turn, over short-lived
// threads, for hqr's own CPU passes over tall matrices (the economy QR
// updates' passes over Q's rows, host/nonfinite.hpp's scan). Threads start per call, a few tens of
// microseconds against passes of milliseconds: nothing persists, so a
// forked child and concurrent callers need nothing special. A thread that
// cannot start (resource limits) costs time, never the call: the caller
// runs its range. Never throws.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace hqr::cpu {

// `requested` threads (HQR_CPU_THREADS; 0 or less: one per core), fewer
// where a thread would get less than `grain` of the `work`; at least one.
inline int pass_threads(int requested, double work, double grain) {
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  const int want = requested > 0 ? requested : cores;
  const double most = grain > 0 ? work / grain : double(want);
  return std::max(1, std::min(want, most < double(want) ? int(most) : want));
}

// fn(t, r0, r1) for t = 0 .. threads-1 on contiguous ranges of [0, m)
// whose starts are multiples of `align` (the last may be shorter; some may
// be empty), fn(0, ...) on the calling thread; returns when all are done.
template <class F> void parallel_ranges(std::ptrdiff_t m, int threads, std::ptrdiff_t align, F &&fn) {
  using idx = std::ptrdiff_t;
  threads = std::max(1, threads);
  idx per = (m + threads - 1) / threads;
  per = (per + align - 1) / align * align;
  auto range = [&](int t) { fn(t, std::min(m, t * per), std::min(m, (t + 1) * per)); };
  std::vector<std::thread> pool;
  int started = 1;
  try {
    pool.reserve(std::size_t(threads - 1));
    for (; started < threads; ++started) pool.emplace_back(range, started);
  } catch (...) {  // no more threads: the caller runs the rest
  }
  range(0);
  for (int t = started; t < threads; ++t) range(t);
  for (std::thread &th : pool) th.join();
}

// fn(t, i) for i = 0 .. count-1, on `threads` threads that take the next i
// from a shared counter as they finish one (t: the thread, 0 .. threads-1):
// where some items or threads are slower than others, none waits on a
// fixed share.
template <class F> void parallel_take(std::ptrdiff_t count, int threads, F &&fn) {
  std::atomic<std::ptrdiff_t> next{0};
  parallel_ranges(threads, threads, 1, [&](int t, std::ptrdiff_t, std::ptrdiff_t) {
    for (std::ptrdiff_t i = next++; i < count; i = next++) fn(t, i);
  });
}

}  // namespace hqr::cpu
