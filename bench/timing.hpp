// Shared by the benchmark programs: wall-clock timing, medians (of runs on
// fresh inputs after a warm-up: median_timing), and an exit
// on any failing CUDA/cuSOLVER call (status 0 is success for both).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <utility>
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

// Threads for a benchmark's own parallel loops: HQR_CPU_THREADS (as hqr's
// CPU passes and copy pool take it), else every core.
inline int host_threads() {
  const char *v = std::getenv("HQR_CPU_THREADS");
  const int n = v ? std::atoi(v) : 0;
  return n > 0 ? n : int(std::max(1u, std::thread::hardware_concurrency()));
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

// The medians of `reps` timed runs of a and of b after a warm-up of each,
// run in pairs whose order swaps every round, refill() (not timed) before
// each run: a pair of peers sees the same GPU clocks and host state. Timed
// one after the other (a's reps, then b's), hqr's median of 21 at n = 256
// moved by up to 40% between runs seconds apart while the peer's moved 10%
// (spotri U 256 with a pinned caller, H200, session 54).
inline std::pair<double, double> paired_medians(int reps, const std::function<void()> &refill,
                                                const std::function<void()> &a, const std::function<void()> &b) {
  std::vector<double> ta, tb;
  for (int r = 0; r <= reps; ++r)
    for (int k = 0; k < 2; ++k) {
      const bool run_a = (k == 0) == (r % 2 == 0);
      refill();
      const double s = seconds(run_a ? a : b);
      if (r > 0) (run_a ? ta : tb).push_back(s);
    }
  return {median(ta), median(tb)};
}

// HQR_BENCH_HQR_ONLY=1: time hqr alone, no peers (tuning runs and A/B
// runs of hqr's own versions, where the peers' times are in another run).
inline bool hqr_only() { return std::getenv("HQR_BENCH_HQR_ONLY") != nullptr; }

// The peer's times host to host, medians of `reps` runs after a warm-up,
// `a` refilled from a0 (not timed) before each: `work(d)` on device memory
// d between a plain copy of `a` up and back (a cudaMalloc'd d, allocated
// and freed inside the timing: what a caller without hqr writes), the same
// with `a` registered (outside the timing) and d = dA allocated once, and
// work(dA) alone on device-resident data. `a` holds the peer's result on
// return.
struct PeerTimes {
  double round_trip, registered, device;
};
template <class T>
PeerTimes peer_times(std::vector<T> &a, const std::vector<T> &a0, T *dA, int reps,
                     const std::function<void(T *)> &work) {
  const size_t bytes = sizeof(T) * a.size();
  auto refill = [&] { std::copy(a0.begin(), a0.end(), a.begin()); };
  PeerTimes t;
  t.round_trip = median_time(reps, refill, [&] {
    T *d;
    CK(cudaMalloc(&d, bytes));
    CK(cudaMemcpy(d, a.data(), bytes, cudaMemcpyHostToDevice));
    work(d);
    CK(cudaMemcpy(a.data(), d, bytes, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
  });
  t.device = median_time(
      reps, [&] { CK(cudaMemcpy(dA, a0.data(), bytes, cudaMemcpyHostToDevice)); },
      [&] {
        work(dA);
        CK(cudaDeviceSynchronize());
      });
  CK(cudaHostRegister(a.data(), bytes, cudaHostRegisterDefault));
  t.registered = median_time(reps, refill, [&] {
    CK(cudaMemcpy(dA, a.data(), bytes, cudaMemcpyHostToDevice));
    work(dA);
    CK(cudaMemcpy(a.data(), dA, bytes, cudaMemcpyDeviceToHost));
  });
  CK(cudaHostUnregister(a.data()));
  return t;
}

// Whether a GPU is there; the benchmark programs print one line and exit 0
// where none is (a build machine), so that scripts around them still run.
inline bool gpu_present(const char *program) {
  int n = 0;
  if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0) return true;
  std::printf("# %s: no GPU here, nothing measured\n", program);
  return false;
}

// Issue 39's pair, host to host: `hqr(p)` on a cudaMallocHost copy of the
// m-by-n a0 (leading dimension m), and the peer on that same buffer: a 2D
// copy up into dA on a stream, `work` queued on it (use_stream(s) points
// the libraries at s; use_stream(nullptr) back), the copy back,
// synchronised. The medians of `reps` runs after a warm-up each, paired.
template <class T>
std::pair<double, double> on_pinned(const std::vector<T> &a0, int m, int n, T *dA, int reps,
                                    const std::function<void(T *)> &hqr, const std::function<void()> &work,
                                    const std::function<void(cudaStream_t)> &use_stream) {
  const size_t bytes = sizeof(T) * size_t(m) * n, pitch = sizeof(T) * size_t(m);
  T *pa;
  cudaStream_t stream;
  CK(cudaMallocHost(reinterpret_cast<void **>(&pa), bytes));
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto refill = [&] { std::copy(a0.begin(), a0.end(), pa); };
  use_stream(stream);
  const auto [h, peer] = paired_medians(
      reps, refill, [&] { hqr(pa); },
      [&] {
        CK(cudaMemcpy2DAsync(dA, pitch, pa, pitch, pitch, n, cudaMemcpyHostToDevice, stream));
        work();
        CK(cudaMemcpy2DAsync(pa, pitch, dA, pitch, pitch, n, cudaMemcpyDeviceToHost, stream));
        CK(cudaStreamSynchronize(stream));
      });
  use_stream(nullptr);
  CK(cudaStreamDestroy(stream));
  CK(cudaFreeHost(pa));
  return {h, peer};
}
