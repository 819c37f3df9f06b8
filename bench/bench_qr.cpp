// Benchmark (a program, not a test): xGEQRF host to host, hqr beside its
// peers in the same run. One row per (precision, m, n): median seconds of
// `reps` runs after one warm-up, GFLOP/s with LAPACK's count (2mn^2 -
// 2n^3/3 for m >= n, 2nm^2 - 2m^3/3 otherwise; x4 complex), and hqr's
// speed-up over each peer.
//   peers: cuSOLVER Xgeqrf with a plain host round trip (cudaMalloc + copy +
//   geqrf + copy back + cudaFree), the same on a caller buffer that is
//   already pinned (registration not timed), the same on data already on
//   the device (no transfers: what the anchors quote), and the CPU
//   LAPACK (OpenBLAS, all cores; skipped where m*n*min(m,n) exceeds
//   cpu_max^3). "best" is the fastest host-to-host peer.
//   bench_qr PRECISIONS SHAPES [reps] [cpu_max]
//   e.g. bench_qr d 4096x4096,16384x16384,65536x1024 3 8192
// Build (GPU machine or here): g++ -O2 -std=c++17 -Iinclude bench/bench_qr.cpp -o build/bench_qr
//   -I$CUDA/include -L$CUDA/lib64 -Lbuild -lhqr -lcusolver -lcudart -ldl -Wl,-rpath,'$ORIGIN'
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "hqr.h"
#include "timing.hpp"


using zc = std::complex<double>;
using cc = std::complex<float>;
template <class T> struct Traits;
template <> struct Traits<double> {
  static constexpr const char *name = "d";
  static constexpr cudaDataType type = CUDA_R_64F;
  static constexpr double flop_scale = 1;
};
template <> struct Traits<float> {
  static constexpr const char *name = "s";
  static constexpr cudaDataType type = CUDA_R_32F;
  static constexpr double flop_scale = 1;
};
template <> struct Traits<zc> {
  static constexpr const char *name = "z";
  static constexpr cudaDataType type = CUDA_C_64F;
  static constexpr double flop_scale = 4;
};
template <> struct Traits<cc> {
  static constexpr const char *name = "c";
  static constexpr cudaDataType type = CUDA_C_32F;
  static constexpr double flop_scale = 4;
};

static cusolverDnHandle_t solver;
static cusolverDnParams_t params;

// Fortran xGEQRF of hqr (through its exported symbol) or of the CPU LAPACK.
template <class T> using GeqrfFn = void(const int *, const int *, T *, const int *, T *, T *, const int *, int *);

template <class T> void lapack_geqrf(GeqrfFn<T> *f, int m, int n, T *a, T *tau) {
  int lw = -1, info = 0;
  T w{};
  f(&m, &n, a, &m, tau, &w, &lw, &info);
  lw = std::max(1, int(std::real(w)));
  std::vector<T> work(static_cast<size_t>(lw));
  f(&m, &n, a, &m, tau, work.data(), &lw, &info);
  if (info != 0) std::fprintf(stderr, "geqrf info=%d\n", info);
}

// cuSOLVER's Xgeqrf on device data, workspace set up once.
template <class T> struct Peer {
  int m, n;
  T *dtau = nullptr;
  void *dwork = nullptr, *hwork = nullptr;
  size_t dbytes = 0, hbytes = 0;
  int *dinfo = nullptr;
  Peer(int m_, int n_, T *dA) : m(m_), n(n_) {
    const cudaDataType t = Traits<T>::type;
    CK(cudaMalloc(&dtau, sizeof(T) * std::max(1, std::min(m, n))));
    CK(cusolverDnXgeqrf_bufferSize(solver, params, m, n, t, dA, m, t, dtau, t, &dbytes, &hbytes));
    CK(cudaMalloc(&dwork, std::max<size_t>(dbytes, 1)));
    hwork = std::malloc(std::max<size_t>(hbytes, 1));
    CK(cudaMalloc(&dinfo, sizeof(int)));
  }
  ~Peer() {
    cudaFree(dtau);
    cudaFree(dwork);
    cudaFree(dinfo);
    std::free(hwork);
  }
  void operator()(T *dA) {
    const cudaDataType t = Traits<T>::type;
    CK(cusolverDnXgeqrf(solver, params, m, n, t, dA, m, t, dtau, t, dwork, dbytes, hwork, hbytes, dinfo));
  }
};

template <class T> void run(int m, int n, int reps, long cpu_max, void *cpu_lib) {
  const size_t count = size_t(m) * n, bytes = sizeof(T) * count;
  std::vector<T> a0(count), a(count), tau(size_t(std::min(m, n)));
  std::mt19937_64 g(std::random_device{}());
  std::uniform_real_distribution<double> u(-1, 1);
  for (T &x : a0) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      x = T(u(g));
    else
      x = T(u(g), u(g));
  }
  const double k = std::min(m, n), l = std::max(m, n);
  const double flops = Traits<T>::flop_scale * (2 * l * k * k - 2 * k * k * k / 3);

  GeqrfFn<T> *hqr_fn = reinterpret_cast<GeqrfFn<T> *>(dlsym(RTLD_DEFAULT, (std::string(Traits<T>::name) + "geqrf_").c_str()));
  std::vector<double> t_hqr;
  for (int r = 0; r <= reps; ++r) {
    std::memcpy(a.data(), a0.data(), bytes);
    const double s = seconds([&] { lapack_geqrf(hqr_fn, m, n, a.data(), tau.data()); });
    if (r > 0) t_hqr.push_back(s);
  }
  const std::vector<T> hqr_result = a;
  if (std::getenv("HQR_BENCH_HQR_ONLY")) {  // block-size sweeps: hqr alone
    const double h = median(t_hqr);
    std::printf("%sgeqrf %6dx%-6d | hqr %8.4f s %7.0f GF/s | HQR_NB=%s HQR_PANEL=%s\n", Traits<T>::name, m, n, h,
                flops / h * 1e-9, std::getenv("HQR_NB") ? std::getenv("HQR_NB") : "-",
                std::getenv("HQR_PANEL") ? std::getenv("HQR_PANEL") : "-");
    std::fflush(stdout);
    return;
  }

  T *dA;
  CK(cudaMalloc(&dA, bytes));
  Peer<T> peer(m, n, dA);
  std::vector<double> t_rt;
  for (int r = 0; r <= reps; ++r) {
    std::memcpy(a.data(), a0.data(), bytes);
    const double s = seconds([&] {
      T *d;
      CK(cudaMalloc(&d, bytes));
      CK(cudaMemcpy(d, a.data(), bytes, cudaMemcpyHostToDevice));
      peer(d);
      CK(cudaMemcpy(a.data(), d, bytes, cudaMemcpyDeviceToHost));
      CK(cudaFree(d));
    });
    if (r > 0) t_rt.push_back(s);
  }
  // Largest difference between |R| of hqr and of cuSOLVER, relative to the
  // largest |R| (the signs of R's rows are a convention).
  double diff = 0, ref = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= std::min(j, m - 1); ++i) {
      const size_t e = i + size_t(j) * m;
      diff = std::max(diff, std::abs(double(std::abs(a[e])) - double(std::abs(hqr_result[e]))));
      ref = std::max(ref, double(std::abs(a[e])));
    }

  std::vector<double> t_pin, t_dev;
  CK(cudaHostRegister(a.data(), bytes, cudaHostRegisterDefault));
  for (int r = 0; r <= reps; ++r) {
    std::memcpy(a.data(), a0.data(), bytes);
    const double s = seconds([&] {
      CK(cudaMemcpy(dA, a.data(), bytes, cudaMemcpyHostToDevice));
      peer(dA);
      CK(cudaMemcpy(a.data(), dA, bytes, cudaMemcpyDeviceToHost));
    });
    CK(cudaMemcpy(dA, a0.data(), bytes, cudaMemcpyHostToDevice));
    const double d = seconds([&] {
      peer(dA);
      CK(cudaDeviceSynchronize());
    });
    if (r > 0) {
      t_pin.push_back(s);
      t_dev.push_back(d);
    }
  }
  CK(cudaHostUnregister(a.data()));
  CK(cudaFree(dA));

  double t_cpu = 0;
  if (cpu_lib && double(m) * n * std::min(m, n) <= double(cpu_max) * cpu_max * cpu_max) {
    auto *f = reinterpret_cast<GeqrfFn<T> *>(dlsym(cpu_lib, (std::string(Traits<T>::name) + "geqrf_").c_str()));
    // One run where it takes seconds (OpenBLAS's threads are warm from the
    // earlier shapes); the median of reps after a warm-up where it is quick.
    std::vector<double> t;
    for (int r = 0; f && r <= reps; ++r) {
      std::memcpy(a.data(), a0.data(), bytes);
      t.push_back(seconds([&] { lapack_geqrf(f, m, n, a.data(), tau.data()); }));
      if (r == 0 && t[0] > 2) break;
      if (r == 0) t.clear();
    }
    if (!t.empty()) t_cpu = median(t);
  }
  const double h = median(t_hqr), rt = median(t_rt), pin = median(t_pin), dev = median(t_dev);
  const double best = std::min({rt, pin, t_cpu > 0 ? t_cpu : rt});
  char cpu[64] = "-";
  if (t_cpu > 0) std::snprintf(cpu, sizeof cpu, "%8.4f (x%5.2f)", t_cpu, t_cpu / h);
  std::printf("%sgeqrf %6dx%-6d | hqr %8.4f s %7.0f GF/s | cusolver-roundtrip %8.4f (x%5.2f) | cusolver-pinned %8.4f "
              "(x%5.2f) | cusolver-device-only %8.4f (x%5.2f) | cpu %s | best %8.4f (x%5.2f) | |R| reldiff %.1e\n",
              Traits<T>::name, m, n, h, flops / h * 1e-9, rt, rt / h, pin, pin / h, dev, dev / h, cpu, best, best / h,
              diff / ref);
  std::fflush(stdout);
}

int main(int argc, char **argv) {
  const std::string precs = argc > 1 ? argv[1] : "d";
  std::vector<std::pair<int, int>> shapes;
  for (char *p = std::strtok(argc > 2 ? argv[2] : (char *)"4096x4096,8192x8192,16384x16384", ","); p;
       p = std::strtok(nullptr, ",")) {
    int m = 0, n = 0;
    if (std::sscanf(p, "%dx%d", &m, &n) == 2) shapes.push_back({m, n});
  }
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  const long cpu_max = argc > 4 ? std::atol(argv[4]) : 8192;
  void *cpu_lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  CK(cusolverDnCreate(&solver));
  CK(cusolverDnCreateParams(&params));
  std::printf("# device: %s (hqr_device=%d), hqr %s\n", hqr_device_name(), hqr_device(), hqr_version());
  for (char p : precs)
    for (auto [m, n] : shapes) {
      if (p == 'd') run<double>(m, n, reps, cpu_max, cpu_lib);
      if (p == 's') run<float>(m, n, reps, cpu_max, cpu_lib);
      if (p == 'z') run<zc>(m, n, reps, cpu_max, cpu_lib);
      if (p == 'c') run<cc>(m, n, reps, cpu_max, cpu_lib);
    }
}
