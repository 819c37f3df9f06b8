// Benchmark (a program, not a test): xPOTRF host to host, hqr beside its
// peers in the same run. Prints one row per (precision, uplo, n): median
// seconds of `reps` runs after one warm-up, GFLOP/s with LAPACK's count, and
// hqr's speed-up over each peer.
//   peers: cuSOLVER with a plain host round trip (cudaMalloc + copy + potrf +
//   copy back + cudaFree), cuSOLVER on a caller buffer that is already pinned
//   (registration not timed: the best hand-written baseline), and the CPU
//   LAPACK (OpenBLAS, all cores; skipped above --cpu-max).
// Then a caller whose matrix lives in pinned memory (issue 39): hqr on a
// cudaMallocHost buffer ("hqr-pinned"), and cuSOLVER on that same buffer
// ("cusolver-on-pinned": cudaMemcpy2DAsync up on a stream, potrf, the same
// down, synchronised; host to host), its ratio taken to hqr-pinned (above
// 0.91: hqr within 1.1x of it).
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "spd_matrix.hpp"

#include "hqr.h"
#include "timing.hpp"


template <class T> struct Traits;
template <> struct Traits<double> {
  static constexpr const char *name = "d";
  static constexpr cudaDataType type = CUDA_R_64F;
  static constexpr double flop_scale = 1;
  static void hqr(const char *u, int n, double *a, int *info) { dpotrf_(u, &n, a, &n, info, 1); }
};
template <> struct Traits<float> {
  static constexpr const char *name = "s";
  static constexpr cudaDataType type = CUDA_R_32F;
  static constexpr double flop_scale = 1;
  static void hqr(const char *u, int n, float *a, int *info) { spotrf_(u, &n, a, &n, info, 1); }
};
template <> struct Traits<std::complex<double>> {
  static constexpr const char *name = "z";
  static constexpr cudaDataType type = CUDA_C_64F;
  static constexpr double flop_scale = 4;
  static void hqr(const char *u, int n, std::complex<double> *a, int *info) {
    zpotrf_(u, &n, reinterpret_cast<lapack_complex_double *>(a), &n, info, 1);
  }
};
template <> struct Traits<std::complex<float>> {
  static constexpr const char *name = "c";
  static constexpr cudaDataType type = CUDA_C_32F;
  static constexpr double flop_scale = 4;
  static void hqr(const char *u, int n, std::complex<float> *a, int *info) {
    cpotrf_(u, &n, reinterpret_cast<lapack_complex_float *>(a), &n, info, 1);
  }
};

static cusolverDnHandle_t solver;
template <class T> void cusolver_potrf(const char *uplo, int n, T *dA, void *dwork, size_t dbytes, void *hwork,
                                       size_t hbytes, int *dinfo) {
  CK(cusolverDnXpotrf(solver, nullptr, *uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, n,
                      Traits<T>::type, dA, n, Traits<T>::type, dwork, dbytes, hwork, hbytes, dinfo));
}

template <class T> void run(const char *uplo, int n, int reps, int cpu_max, void *cpu_lib) {
  const size_t bytes = sizeof(T) * size_t(n) * n;
  std::vector<T> a0(size_t(n) * n), a(size_t(n) * n);
  make_spd(a0, n);
  int info = 0;
  const double flops = Traits<T>::flop_scale * double(n) * n * n / 3;

  // hqr, host to host.
  std::vector<double> t_hqr;
  for (int r = 0; r <= reps; ++r) {
    std::memcpy(a.data(), a0.data(), bytes);
    double s = seconds([&] { Traits<T>::hqr(uplo, n, a.data(), &info); });
    if (info != 0) std::fprintf(stderr, "hqr info=%d\n", info);
    if (r > 0) t_hqr.push_back(s);
  }
  std::vector<T> hqr_result = a;
  if (hqr_only()) {
    std::printf("%spotrf %s %6d | hqr %9.5f s %7.0f GF/s\n", Traits<T>::name, uplo, n, median(t_hqr),
                flops / median(t_hqr) * 1e-9);
    std::fflush(stdout);
    return;
  }

  // cuSOLVER workspace (not timed: set up once, as an application would).
  size_t dbytes = 0, hbytes = 0;
  CK(cusolverDnXpotrf_bufferSize(solver, nullptr, *uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, n,
                                 Traits<T>::type, nullptr, n, Traits<T>::type, &dbytes, &hbytes));
  void *dwork, *hwork = std::malloc(std::max<size_t>(hbytes, 1));
  int *dinfo;
  CK(cudaMalloc(&dwork, std::max<size_t>(dbytes, 1)));
  CK(cudaMalloc(&dinfo, sizeof(int)));

  // cuSOLVER: a plain host round trip, the caller's buffer registered, and
  // device-resident data.
  T *dA;
  CK(cudaMalloc(&dA, bytes));
  const PeerTimes peer_t = peer_times<T>(
      a, a0, dA, reps, [&](T *d) { cusolver_potrf<T>(uplo, n, d, dwork, dbytes, hwork, hbytes, dinfo); });
  // Largest relative difference between hqr's and cuSOLVER's factors.
  double diff = 0, ref = 0;
  for (int j = 0; j < n; ++j)
    for (int i = (*uplo == 'U' ? 0 : j); i < (*uplo == 'U' ? j + 1 : n); ++i) {
      diff = std::max(diff, double(std::abs(a[i + size_t(j) * n] - hqr_result[i + size_t(j) * n])));
      ref = std::max(ref, double(std::abs(a[i + size_t(j) * n])));
    }

  // The caller's matrix in pinned memory: hqr, and cuSOLVER on the same buffer.
  const auto [h_pin, on_pin] = on_pinned<T>(
      a0, n, n, dA, reps, [&](T *p) { Traits<T>::hqr(uplo, n, p, &info); },
      [&] { cusolver_potrf<T>(uplo, n, dA, dwork, dbytes, hwork, hbytes, dinfo); },
      [](cudaStream_t s) { CK(cusolverDnSetStream(solver, s)); });
  CK(cudaFree(dA));
  CK(cudaFree(dwork));
  CK(cudaFree(dinfo));
  std::free(hwork);

  // CPU LAPACK (the library hqr forwards to).
  double t_cpu = 0;
  if (n <= cpu_max && cpu_lib) {
    using F = void(const char *, const int *, T *, const int *, int *, size_t);
    std::string sym = std::string(Traits<T>::name) + "potrf_";
    auto *f = reinterpret_cast<F *>(dlsym(cpu_lib, sym.c_str()));
    std::vector<double> t;
    for (int r = 0; r <= std::min(reps, 3); ++r) {
      std::memcpy(a.data(), a0.data(), bytes);
      double s = seconds([&] { f(uplo, &n, a.data(), &n, &info, 1); });
      if (r > 0) t.push_back(s);
    }
    t_cpu = median(t);
  }
  const double h = median(t_hqr), rt = peer_t.round_trip, pin = peer_t.registered, dev = peer_t.device;
  std::printf("%spotrf %s %6d | hqr %9.5f s %7.0f GF/s | cusolver-roundtrip %9.5f (x%5.2f) | cusolver-pinned %9.5f "
              "(x%5.2f) | cusolver-device-only %9.5f (x%5.2f) | cpu %s | reldiff %.1e | hqr-pinned %9.5f s | "
              "cusolver-on-pinned %9.5f (x%5.2f vs hqr-pinned)\n",
              Traits<T>::name, uplo, n, h, flops / h * 1e-9, rt, rt / h, pin, pin / h, dev, dev / h,
              t_cpu > 0 ? (std::to_string(t_cpu) + " (x" + std::to_string(t_cpu / h) + ")").c_str() : "-",
              diff / ref, h_pin, on_pin, on_pin / h_pin);
  std::fflush(stdout);
}

int main(int argc, char **argv) {
  if (!gpu_present("bench_potrf")) return 0;
  std::string size_list = argc > 3 ? argv[3] : "1024,4096,8192";  // strtok writes into it
  // bench_potrf PRECISIONS UPLOS SIZES [reps] [cpu_max]
  const std::string precs = argc > 1 ? argv[1] : "d";
  const std::string uplos = argc > 2 ? argv[2] : "L";
  std::vector<int> sizes;
  for (char *p = std::strtok(size_list.data(), ","); p; p = std::strtok(nullptr, ","))
    sizes.push_back(std::atoi(p));
  const int reps = argc > 4 ? std::atoi(argv[4]) : 3;
  const int cpu_max = argc > 5 ? std::atoi(argv[5]) : 8192;
  // DEEPBIND: OpenBLAS's LAPACK calls its own routines, not hqr's exported
  // ones of the same name (its dgels's dgeqrf ran on hqr's GPU path without).
  void *cpu_lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  CK(cusolverDnCreate(&solver));
  std::printf("# device: %s (hqr_device=%d; %d GPU%s serve calls, HQR_DEVICE=%s), hqr %s\n", hqr_device_name(),
              hqr_device(), hqr_device_count(), hqr_device_count() == 1 ? "" : "s",
              std::getenv("HQR_DEVICE") ? std::getenv("HQR_DEVICE") : "all", hqr_version());
  for (char p : precs)
    for (char u : uplos)
      for (int n : sizes) {
        const char uplo[2] = {u, 0};
        if (p == 'd') run<double>(uplo, n, reps, cpu_max, cpu_lib);
        if (p == 's') run<float>(uplo, n, reps, cpu_max, cpu_lib);
        if (p == 'z') run<std::complex<double>>(uplo, n, reps, cpu_max, cpu_lib);
        if (p == 'c') run<std::complex<float>>(uplo, n, reps, cpu_max, cpu_lib);
      }
}
