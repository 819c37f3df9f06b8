// Benchmark (a program, not a test): xPOTRI, xTRTRI and xLAUUM host to host,
// hqr beside its peers in the same run. Prints one row per (routine,
// precision, uplo, n): median seconds of `reps` runs after one warm-up,
// GFLOP/s with LAPACK's counts (trtri and lauum n^3/3, potri 2n^3/3; x4
// complex), and hqr's speed-up over each peer.
//   peers: cuSOLVER (potri, Xtrtri, lauum) with a plain host round trip
//   (cudaMalloc + copy + routine + copy back + cudaFree), the same on a
//   caller buffer that is already pinned (registration not timed), the same
//   on data already on the device (no transfers: what the anchors
//   quote), and the CPU LAPACK (OpenBLAS, all cores; skipped above
//   --cpu-max). "best" is the fastest host-to-host peer.
//   Then a caller whose matrix lives in pinned memory (issue 39): hqr on a
//   cudaMallocHost buffer ("hqr-pinned"), and cuSOLVER on that same buffer
//   ("cusolver-on-pinned": cudaMemcpy2DAsync up on a stream, the routine,
//   the same down, synchronised; host to host), its ratio taken to
//   hqr-pinned (above 0.91: hqr within 1.1x of it).
//   bench_inverse ROUTINES PRECISIONS UPLOS SIZES [reps] [cpu_max]
//   HQR_BENCH_PEERS=0 times hqr alone (for tuning runs).
//   e.g. bench_inverse potri,trtri,lauum d LU 4096,8192,16384 3 8192
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
#include <vector>

#include "hqr.h"
#include "timing.hpp"


enum class Routine { potri, trtri, lauum };
static const char *name(Routine r) { return r == Routine::potri ? "potri" : r == Routine::trtri ? "trtri" : "lauum"; }

static cusolverDnHandle_t solver;

using zc = std::complex<double>;
using cc = std::complex<float>;
template <class T> struct Traits;
template <> struct Traits<double> {
  static constexpr const char *name = "d";
  static constexpr cudaDataType type = CUDA_R_64F;
  static constexpr double flop_scale = 1;
  using cu = double;
};
template <> struct Traits<float> {
  static constexpr const char *name = "s";
  static constexpr cudaDataType type = CUDA_R_32F;
  static constexpr double flop_scale = 1;
  using cu = float;
};
template <> struct Traits<zc> {
  static constexpr const char *name = "z";
  static constexpr cudaDataType type = CUDA_C_64F;
  static constexpr double flop_scale = 4;
  using cu = cuDoubleComplex;
};
template <> struct Traits<cc> {
  static constexpr const char *name = "c";
  static constexpr cudaDataType type = CUDA_C_32F;
  static constexpr double flop_scale = 4;
  using cu = cuComplex;
};

// hqr through its exported Fortran symbols (what a LAPACK caller uses).
template <class T> void hqr_call(Routine r, const char *uplo, int n, T *a, int *info) {
  using L = std::conditional_t<std::is_same_v<T, zc>, lapack_complex_double,
                               std::conditional_t<std::is_same_v<T, cc>, lapack_complex_float, T>>;
  L *p = reinterpret_cast<L *>(a);
  const char diag = 'N';
  if constexpr (std::is_same_v<T, double>) {
    if (r == Routine::potri) dpotri_(uplo, &n, p, &n, info, 1);
    if (r == Routine::trtri) dtrtri_(uplo, &diag, &n, p, &n, info, 1, 1);
    if (r == Routine::lauum) dlauum_(uplo, &n, p, &n, info, 1);
  } else if constexpr (std::is_same_v<T, float>) {
    if (r == Routine::potri) spotri_(uplo, &n, p, &n, info, 1);
    if (r == Routine::trtri) strtri_(uplo, &diag, &n, p, &n, info, 1, 1);
    if (r == Routine::lauum) slauum_(uplo, &n, p, &n, info, 1);
  } else if constexpr (std::is_same_v<T, zc>) {
    if (r == Routine::potri) zpotri_(uplo, &n, p, &n, info, 1);
    if (r == Routine::trtri) ztrtri_(uplo, &diag, &n, p, &n, info, 1, 1);
    if (r == Routine::lauum) zlauum_(uplo, &n, p, &n, info, 1);
  } else {
    if (r == Routine::potri) cpotri_(uplo, &n, p, &n, info, 1);
    if (r == Routine::trtri) ctrtri_(uplo, &diag, &n, p, &n, info, 1, 1);
    if (r == Routine::lauum) clauum_(uplo, &n, p, &n, info, 1);
  }
}

// cuSOLVER's potri and lauum: legacy typed API.
#define LEGACY(T, P)                                                                                          \
  static void cusolver_legacy(Routine r, cublasFillMode_t f, int n, T *a, int *lwork_query, T *work, int lwork,   \
                              int *dinfo) {                                                                   \
    using C = Traits<T>::cu;                                                                                  \
    C *ca = reinterpret_cast<C *>(a);                                                                         \
    if (lwork_query) {                                                                                        \
      if (r == Routine::potri) CK(cusolverDn##P##potri_bufferSize(solver, f, n, ca, n, lwork_query));         \
      if (r == Routine::lauum) CK(cusolverDn##P##lauum_bufferSize(solver, f, n, ca, n, lwork_query));         \
      return;                                                                                                 \
    }                                                                                                         \
    C *cw = reinterpret_cast<C *>(work);                                                                      \
    if (r == Routine::potri) CK(cusolverDn##P##potri(solver, f, n, ca, n, cw, lwork, dinfo));                 \
    if (r == Routine::lauum) CK(cusolverDn##P##lauum(solver, f, n, ca, n, cw, lwork, dinfo));                 \
  }
LEGACY(double, D)
LEGACY(float, S)
LEGACY(zc, Z)
LEGACY(cc, C)
#undef LEGACY

// One cuSOLVER peer call on device data, workspace set up once.
template <class T> struct Peer {
  Routine r;
  cublasFillMode_t fill;
  int n;
  void *dwork = nullptr, *hwork = nullptr;
  size_t dbytes = 0, hbytes = 0;
  int lwork = 0, *dinfo = nullptr;
  Peer(Routine r_, const char *uplo, int n_, T *dA)
      : r(r_), fill(*uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER), n(n_) {
    if (r == Routine::trtri) {
      CK(cusolverDnXtrtri_bufferSize(solver, fill, CUBLAS_DIAG_NON_UNIT, n, Traits<T>::type, dA, n, &dbytes, &hbytes));
    } else {
      cusolver_legacy(r, fill, n, dA, &lwork, nullptr, 0, nullptr);
      dbytes = sizeof(T) * size_t(lwork);
    }
    CK(cudaMalloc(&dwork, std::max<size_t>(dbytes, 1)));
    hwork = std::malloc(std::max<size_t>(hbytes, 1));
    CK(cudaMalloc(&dinfo, sizeof(int)));
  }
  ~Peer() {
    cudaFree(dwork);
    cudaFree(dinfo);
    std::free(hwork);
  }
  void operator()(T *dA) {
    if (r == Routine::trtri)
      CK(cusolverDnXtrtri(solver, fill, CUBLAS_DIAG_NON_UNIT, n, Traits<T>::type, dA, n, dwork, dbytes, hwork, hbytes,
                          dinfo));
    else
      cusolver_legacy(r, fill, n, dA, nullptr, static_cast<T *>(dwork), lwork, dinfo);
  }
};

// A well-conditioned triangle in `uplo` (real diagonal in [1, 2],
// off-diagonal entries below 1/n in modulus): a valid Cholesky factor for
// potri, a triangle for trtri and lauum. The other triangle holds noise.
// A well-conditioned random triangle (diagonal in [1, 2], off-diagonal
// entries below 1/n), filled by one thread per core (orders of 32768 took
// seconds on one).
template <class T> void make_triangle(std::vector<T> &a, int n, char uplo) {
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t seed = std::random_device{}();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::mt19937_64 g(seed + t);
      std::uniform_real_distribution<double> u(-1, 1);
      for (int j = t; j < n; j += threads)
        for (int i = 0; i < n; ++i) {
          T x;
          if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
            x = T(u(g));
          else
            x = T(u(g), u(g));
          const bool in = uplo == 'U' ? i <= j : i >= j;
          if (i == j)
            x = T(1.5 + 0.5 * u(g));
          else if (in)
            x *= T(1.0 / n);
          a[i + size_t(j) * n] = x;
        }
    });
  for (std::thread &t : pool) t.join();
}

template <class T> void run(Routine rt, const char *uplo, int n, int reps, int cpu_max, void *cpu_lib) {
  const size_t bytes = sizeof(T) * size_t(n) * n;
  std::vector<T> a0(size_t(n) * n), a(size_t(n) * n);
  make_triangle(a0, n, *uplo);
  int info = 0;
  const double n3 = double(n) * n * n;
  const double flops = Traits<T>::flop_scale * (rt == Routine::potri ? 2 * n3 / 3 : n3 / 3);

  // hqr, host to host.
  std::vector<double> t_hqr;
  for (int r = 0; r <= reps; ++r) {
    std::memcpy(a.data(), a0.data(), bytes);
    double s = seconds([&] { hqr_call(rt, uplo, n, a.data(), &info); });
    if (info != 0) std::fprintf(stderr, "hqr info=%d\n", info);
    if (r > 0) t_hqr.push_back(s);
  }
  std::vector<T> hqr_result = a;
  if (hqr_only()) {
    std::printf("%s%s %s %6d | hqr %8.4f s %7.0f GF/s\n", Traits<T>::name, name(rt), uplo, n, median(t_hqr),
                flops / median(t_hqr) * 1e-9);
    std::fflush(stdout);
    return;
  }

  T *dA;
  CK(cudaMalloc(&dA, bytes));
  Peer<T> peer(rt, uplo, n, dA);

  // cuSOLVER: a plain host round trip, the caller's buffer registered, and
  // device-resident data.
  const PeerTimes peer_t = peer_times<T>(a, a0, dA, reps, [&](T *d) { peer(d); });
  // Largest relative difference between hqr's and cuSOLVER's results, on
  // the triangle both write.
  double diff = 0, ref = 0;
  for (int j = 0; j < n; ++j)
    for (int i = (*uplo == 'U' ? 0 : j); i < (*uplo == 'U' ? j + 1 : n); ++i) {
      diff = std::max(diff, double(std::abs(a[i + size_t(j) * n] - hqr_result[i + size_t(j) * n])));
      ref = std::max(ref, double(std::abs(a[i + size_t(j) * n])));
    }

  // The caller's matrix in pinned memory: hqr, and cuSOLVER on the same buffer.
  const auto [h_pin, on_pin] = on_pinned<T>(
      a0, n, n, dA, reps, [&](T *p) { hqr_call(rt, uplo, n, p, &info); }, [&] { peer(dA); },
      [](cudaStream_t s) { CK(cusolverDnSetStream(solver, s)); });
  CK(cudaFree(dA));

  // CPU LAPACK (the library hqr forwards to).
  double t_cpu = 0;
  if (n <= cpu_max && cpu_lib) {
    std::vector<double> t;
    const std::string sym = std::string(Traits<T>::name) + name(rt) + "_";
    void *f = dlsym(cpu_lib, sym.c_str());
    for (int r = 0; f && r <= std::min(reps, 3); ++r) {
      std::memcpy(a.data(), a0.data(), bytes);
      double s = seconds([&] {
        if (rt == Routine::trtri) {
          const char diag = 'N';
          reinterpret_cast<void (*)(const char *, const char *, const int *, T *, const int *, int *, size_t, size_t)>(
              f)(uplo, &diag, &n, a.data(), &n, &info, 1, 1);
        } else {
          reinterpret_cast<void (*)(const char *, const int *, T *, const int *, int *, size_t)>(f)(
              uplo, &n, a.data(), &n, &info, 1);
        }
      });
      if (r > 0) t.push_back(s);
    }
    if (!t.empty()) t_cpu = median(t);
  }
  const double h = median(t_hqr), rt_s = peer_t.round_trip, pin = peer_t.registered, dev = peer_t.device;
  const double best = std::min({rt_s, pin, t_cpu > 0 ? t_cpu : rt_s});
  char cpu[64] = "-";
  if (t_cpu > 0) std::snprintf(cpu, sizeof cpu, "%8.4f (x%5.2f)", t_cpu, t_cpu / h);
  std::printf("%s%s %s %6d | hqr %8.4f s %7.0f GF/s | cusolver-roundtrip %8.4f (x%5.2f) | cusolver-pinned %8.4f "
              "(x%5.2f) | cusolver-device-only %8.4f (x%5.2f) | cpu %s | best %8.4f (x%5.2f) | reldiff %.1e | "
              "hqr-pinned %8.5f s | cusolver-on-pinned %8.5f (x%5.2f vs hqr-pinned)\n",
              Traits<T>::name, name(rt), uplo, n, h, flops / h * 1e-9, rt_s, rt_s / h, pin, pin / h, dev, dev / h, cpu,
              best, best / h, diff / ref, h_pin, on_pin, on_pin / h_pin);
  std::fflush(stdout);
}

int main(int argc, char **argv) {
  if (!gpu_present("bench_inverse")) return 0;
  std::string size_list = argc > 4 ? argv[4] : "4096,8192,16384";  // strtok writes into it
  std::vector<Routine> routines;
  const std::string rs = argc > 1 ? argv[1] : "potri,trtri,lauum";
  for (Routine r : {Routine::potri, Routine::trtri, Routine::lauum})
    if (rs.find(name(r)) != std::string::npos) routines.push_back(r);
  const std::string precs = argc > 2 ? argv[2] : "d";
  const std::string uplos = argc > 3 ? argv[3] : "L";
  std::vector<int> sizes;
  for (char *p = std::strtok(size_list.data(), ","); p; p = std::strtok(nullptr, ","))
    sizes.push_back(std::atoi(p));
  const int reps = argc > 5 ? std::atoi(argv[5]) : 3;
  const int cpu_max = argc > 6 ? std::atoi(argv[6]) : 8192;
  // DEEPBIND: OpenBLAS's LAPACK calls its own routines, not hqr's exported
  // ones of the same name (its dgels's dgeqrf ran on hqr's GPU path without).
  void *cpu_lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  CK(cusolverDnCreate(&solver));
  std::printf("# device: %s (hqr_device=%d; %d GPU%s serve calls, HQR_DEVICE=%s), hqr %s\n", hqr_device_name(),
              hqr_device(), hqr_device_count(), hqr_device_count() == 1 ? "" : "s",
              std::getenv("HQR_DEVICE") ? std::getenv("HQR_DEVICE") : "all", hqr_version());
  for (Routine r : routines)
    for (char p : precs)
      for (char u : uplos)
        for (int n : sizes) {
          if (u != 'L' && u != 'U') continue;  // UPLOS "L,U" as well as "LU"
          const char uplo[2] = {u, 0};
          if (p == 'd') run<double>(r, uplo, n, reps, cpu_max, cpu_lib);
          if (p == 's') run<float>(r, uplo, n, reps, cpu_max, cpu_lib);
          if (p == 'z') run<zc>(r, uplo, n, reps, cpu_max, cpu_lib);
          if (p == 'c') run<cc>(r, uplo, n, reps, cpu_max, cpu_lib);
        }
}
