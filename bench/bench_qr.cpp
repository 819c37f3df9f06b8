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
// A shape may name another routine:
//   gels:MxNxNRHS  xgels 'N' (m >= n; every precision asked; m < n: hqr and
//                  OpenBLAS only, cuSOLVER has no xGELQF) against
//                  cuSOLVER Xgeqrf + xORMQR/xUNMQR + cuBLAS xTRSM with the
//                  same host round trip / pinned / device-only variants,
//                  and OpenBLAS's xgels;
//   gelsd:MxNxNRHS xgelsd (m >= 1.6 n, hqr's path) against OpenBLAS's, and
//                  OpenBLAS's on the n-by-n R alone (run_gelsd);
//   ormqr:N        dormqr 'L' 'T' with N reflectors of order N on N x N C;
//   orgqr:N        dorgqr of order N from N reflectors;
//   both (double only) against cuSOLVER Dormqr / Dorgqr likewise.
//   e.g. bench_qr d gels:32768x2048x1,ormqr:8192,orgqr:8192 3
// xgeqrf and xgels add a caller whose arrays live in pinned memory (issue
// 39): hqr with A (and B) in cudaMallocHost memory, tau and WORK ordinary
// ("hqr-pinned"), and cuSOLVER on those same buffers ("cusolver-on-pinned":
// cudaMemcpy2DAsync up on a stream, the routine(s), the results down,
// synchronised; host to host), its ratio taken to hqr-pinned (above 0.91:
// hqr within 1.1x of it).
// Build: make bench (build/bench_qr).
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

#include <cublas_v2.h>

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
  if (hqr_only()) {  // block-size sweeps
    const double h = median(t_hqr);
    std::printf("%sgeqrf %6dx%-6d | hqr %9.5f s %7.0f GF/s | HQR_NB=%s HQR_PANEL=%s\n", Traits<T>::name, m, n, h,
                flops / h * 1e-9, std::getenv("HQR_NB") ? std::getenv("HQR_NB") : "-",
                std::getenv("HQR_PANEL") ? std::getenv("HQR_PANEL") : "-");
    std::fflush(stdout);
    return;
  }

  T *dA;
  CK(cudaMalloc(&dA, bytes));
  Peer<T> peer(m, n, dA);
  // cuSOLVER: a plain host round trip, the caller's buffer registered, and
  // device-resident data.
  const PeerTimes peer_t = peer_times<T>(a, a0, dA, reps, [&](T *d) { peer(d); });
  // Largest difference between |R| of hqr and of cuSOLVER, relative to the
  // largest |R| (the signs of R's rows are a convention).
  double diff = 0, ref = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= std::min(j, m - 1); ++i) {
      const size_t e = i + size_t(j) * m;
      diff = std::max(diff, std::abs(double(std::abs(a[e])) - double(std::abs(hqr_result[e]))));
      ref = std::max(ref, double(std::abs(a[e])));
    }

  // The caller's matrix in pinned memory (tau and WORK ordinary): hqr, and
  // cuSOLVER on the same buffer.
  const auto [h_pin, on_pin] = on_pinned<T>(
      a0, m, n, dA, reps, [&](T *p) { lapack_geqrf(hqr_fn, m, n, p, tau.data()); }, [&] { peer(dA); },
      [](cudaStream_t s) { CK(cusolverDnSetStream(solver, s)); });
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
  const double h = median(t_hqr), rt = peer_t.round_trip, pin = peer_t.registered, dev = peer_t.device;
  const double best = std::min({rt, pin, t_cpu > 0 ? t_cpu : rt});
  char cpu[64] = "-";
  if (t_cpu > 0) std::snprintf(cpu, sizeof cpu, "%9.5f (x%5.2f)", t_cpu, t_cpu / h);
  std::printf("%sgeqrf %6dx%-6d | hqr %9.5f s %7.0f GF/s | cusolver-roundtrip %9.5f (x%5.2f) | cusolver-pinned %9.5f "
              "(x%5.2f) | cusolver-device-only %9.5f (x%5.2f) | cpu %s | best %9.5f (x%5.2f) | |R| reldiff %.1e | "
              "hqr-pinned %9.5f s | cusolver-on-pinned %9.5f (x%5.2f vs hqr-pinned)\n",
              Traits<T>::name, m, n, h, flops / h * 1e-9, rt, rt / h, pin, pin / h, dev, dev / h, cpu, best, best / h,
              diff / ref, h_pin, on_pin, on_pin / h_pin);
  std::fflush(stdout);
}

// ---- gels, ormqr, orgqr --------------------------------------------------------

static cublasHandle_t cublas;

// A fresh random vector of `count` values.
template <class T = double> static std::vector<T> random_values(size_t count) {
  std::vector<T> v(count);
  std::mt19937_64 g(std::random_device{}());
  std::uniform_real_distribution<double> u(-1, 1);
  for (T &x : v) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      x = T(u(g));
    else
      x = T(u(g), u(g));
  }
  return v;
}
static std::vector<double> random_doubles(size_t count) { return random_values<double>(count); }

// The median of reps timed runs of f after one warm-up; `reset` (untimed)
// before each.
static double timed(int reps, const std::function<void()> &reset, const std::function<void()> &f) {
  return median_time(reps, reset, f);
}

// One row: hqr beside its peers, ratios peer/hqr; then, where measured
// (h_pin > 0), hqr and cuSOLVER on the caller's pinned buffers.
static void report(const char *what, double flops, double h, double rt, double pin, double dev, double cpu,
                   const char *check, double h_pin = 0, double on_pin = 0) {
  char cpus[64] = "-", pinned[128] = "";
  if (cpu > 0) std::snprintf(cpus, sizeof cpus, "%9.5f (x%5.2f)", cpu, cpu / h);
  if (h_pin > 0)
    std::snprintf(pinned, sizeof pinned, " | hqr-pinned %9.5f s | cusolver-on-pinned %9.5f (x%5.2f vs hqr-pinned)",
                  h_pin, on_pin, on_pin / h_pin);
  const double best = std::min({rt, pin, cpu > 0 ? cpu : rt});
  std::printf("%-26s | hqr %9.5f s %7.0f GF/s | cusolver-roundtrip %9.5f (x%5.2f) | cusolver-pinned %9.5f (x%5.2f) | "
              "cusolver-device-only %9.5f (x%5.2f) | cpu %s | best %9.5f (x%5.2f) | %s%s\n",
              what, h, flops / h * 1e-9, rt, rt / h, pin, pin / h, dev, dev / h, cpus, best, best / h, check, pinned);
  std::fflush(stdout);
}

// cuSOLVER's xORMQR/xUNMQR ('L', Q**H) and cuBLAS's xTRSM for one type.
template <class T> struct GelsPeer {
  template <class U> static auto *cu(U *p) {
    if constexpr (std::is_same_v<U, zc>)
      return reinterpret_cast<cuDoubleComplex *>(p);
    else if constexpr (std::is_same_v<U, cc>)
      return reinterpret_cast<cuComplex *>(p);
    else
      return p;
  }
  static constexpr cublasOperation_t conj = std::is_same_v<T, zc> || std::is_same_v<T, cc> ? CUBLAS_OP_C : CUBLAS_OP_T;
  static void mqr_size(int m, int nrhs, int n, T *A, T *tau, T *B, int *lwork) {
    if constexpr (std::is_same_v<T, double>)
      CK(cusolverDnDormqr_bufferSize(solver, CUBLAS_SIDE_LEFT, conj, m, nrhs, n, A, m, tau, B, m, lwork));
    else if constexpr (std::is_same_v<T, float>)
      CK(cusolverDnSormqr_bufferSize(solver, CUBLAS_SIDE_LEFT, conj, m, nrhs, n, A, m, tau, B, m, lwork));
    else if constexpr (std::is_same_v<T, zc>)
      CK(cusolverDnZunmqr_bufferSize(solver, CUBLAS_SIDE_LEFT, conj, m, nrhs, n, cu(A), m, cu(tau), cu(B), m, lwork));
    else
      CK(cusolverDnCunmqr_bufferSize(solver, CUBLAS_SIDE_LEFT, conj, m, nrhs, n, cu(A), m, cu(tau), cu(B), m, lwork));
  }
  static void mqr(int m, int nrhs, int n, T *A, T *tau, T *B, T *work, int lwork, int *dinfo) {
    if constexpr (std::is_same_v<T, double>)
      CK(cusolverDnDormqr(solver, CUBLAS_SIDE_LEFT, conj, m, nrhs, n, A, m, tau, B, m, work, lwork, dinfo));
    else if constexpr (std::is_same_v<T, float>)
      CK(cusolverDnSormqr(solver, CUBLAS_SIDE_LEFT, conj, m, nrhs, n, A, m, tau, B, m, work, lwork, dinfo));
    else if constexpr (std::is_same_v<T, zc>)
      CK(cusolverDnZunmqr(solver, CUBLAS_SIDE_LEFT, conj, m, nrhs, n, cu(A), m, cu(tau), cu(B), m, cu(work), lwork,
                          dinfo));
    else
      CK(cusolverDnCunmqr(solver, CUBLAS_SIDE_LEFT, conj, m, nrhs, n, cu(A), m, cu(tau), cu(B), m, cu(work), lwork,
                          dinfo));
  }
  static void trsm(int m, int n, int nrhs, T *A, T *B) {
    T one(1);
    if constexpr (std::is_same_v<T, double>)
      CK(cublasDtrsm(cublas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, nrhs, &one,
                     A, m, B, m));
    else if constexpr (std::is_same_v<T, float>)
      CK(cublasStrsm(cublas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, nrhs, &one,
                     A, m, B, m));
    else if constexpr (std::is_same_v<T, zc>)
      CK(cublasZtrsm(cublas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, nrhs,
                     cu(&one), cu(A), m, cu(B), m));
    else
      CK(cublasCtrsm(cublas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, nrhs,
                     cu(&one), cu(A), m, cu(B), m));
  }
};

// xgels 'N' through f (hqr's or OpenBLAS's): LWORK queried, then the call;
// lda = m, B's leading dimension ldb.
template <class T, class Gels> static void call_gels(Gels *f, int m, int n, int nrhs, T *a, T *b, int ldb) {
  int lw = -1, info = 0;
  T w = 0;
  f("N", &m, &n, &nrhs, a, &m, b, &ldb, &w, &lw, &info, 1);
  lw = std::max(1, int(std::real(w)));
  std::vector<T> work(static_cast<size_t>(lw));
  f("N", &m, &n, &nrhs, a, &m, b, &ldb, work.data(), &lw, &info, 1);
  if (info != 0) std::fprintf(stderr, "%sgels info=%d\n", Traits<T>::name, info);
}

// xgels 'N', m >= n: hqr (host arrays in and out) against cuSOLVER Xgeqrf +
// xORMQR/xUNMQR('L', Q**H) + cuBLAS xTRSM, with a plain host round trip
// (cudaMalloc + copies + cudaFree), with the caller's buffers pinned, on
// device data, and OpenBLAS's xgels; then the caller's A and B in pinned
// memory (hqr-pinned, cusolver-on-pinned). Check: the relative difference of
// the solutions.
template <class T> static void run_gels(int m, int n, int nrhs, int reps, long cpu_max, void *cpu_lib) {
  using Gels = void(const char *, const int *, const int *, const int *, T *, const int *, T *, const int *, T *,
                    const int *, int *, size_t);
  using P = GelsPeer<T>;
  const cudaDataType type = Traits<T>::type;
  const size_t ca = size_t(m) * n, cb = size_t(m) * nrhs;
  const std::vector<T> a0 = random_values<T>(ca), b0 = random_values<T>(cb);
  std::vector<T> a(ca), b(cb);
  const double dm = m, dn = n, dr = nrhs;
  const double flops = Traits<T>::flop_scale *
                       ((2 * dm * dn * dn - 2 * dn * dn * dn / 3) + (4 * dm * dn * dr - 2 * dn * dn * dr) + dn * dn * dr);
  T *ha = a.data(), *hb = b.data();  // the host arrays the calls use
  auto reset = [&] {
    std::memcpy(ha, a0.data(), ca * sizeof(T));
    std::memcpy(hb, b0.data(), cb * sizeof(T));
  };
  auto lapack = [&](Gels *f) { call_gels<T>(f, m, n, nrhs, ha, hb, m); };
  const std::string sym = std::string(Traits<T>::name) + "gels_";
  auto *hqr_fn = reinterpret_cast<Gels *>(dlsym(RTLD_DEFAULT, sym.c_str()));
  const double h = timed(reps, reset, [&] { lapack(hqr_fn); });
  const std::vector<T> x_hqr(b.begin(), b.begin() + std::min<size_t>(cb, size_t(n)));

  // cuSOLVER: workspaces set up once (outside the timings).
  T *dA, *dB, *dtau;
  int *dinfo;
  CK(cudaMalloc(&dA, ca * sizeof(T)));
  CK(cudaMalloc(&dB, cb * sizeof(T)));
  CK(cudaMalloc(&dtau, n * sizeof(T)));
  CK(cudaMalloc(&dinfo, sizeof(int)));
  size_t gq_d = 0, gq_h = 0;
  CK(cusolverDnXgeqrf_bufferSize(solver, params, m, n, type, dA, m, type, dtau, type, &gq_d, &gq_h));
  int mq_l = 0;
  P::mqr_size(m, nrhs, n, dA, dtau, dB, &mq_l);
  void *gq_dw;
  T *mq_dw;
  CK(cudaMalloc(&gq_dw, std::max<size_t>(gq_d, 1)));
  CK(cudaMalloc(&mq_dw, std::max<size_t>(size_t(mq_l) * sizeof(T), 1)));
  std::vector<char> gq_hw(std::max<size_t>(gq_h, 1));
  auto solve = [&](T *A, T *B) {
    CK(cusolverDnXgeqrf(solver, params, m, n, type, A, m, type, dtau, type, gq_dw, gq_d, gq_hw.data(), gq_h, dinfo));
    P::mqr(m, nrhs, n, A, dtau, B, mq_dw, mq_l, dinfo);
    P::trsm(m, n, nrhs, A, B);
  };
  const double rt = timed(reps, reset, [&] {
    T *A, *B;
    CK(cudaMalloc(&A, ca * sizeof(T)));
    CK(cudaMalloc(&B, cb * sizeof(T)));
    CK(cudaMemcpy(A, a.data(), ca * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, b.data(), cb * sizeof(T), cudaMemcpyHostToDevice));
    solve(A, B);
    CK(cudaMemcpy(a.data(), A, ca * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), B, cb * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaFree(A));
    CK(cudaFree(B));
  });
  double diff = 0, ref = 0;
  for (int i = 0; i < n && i < int(x_hqr.size()); ++i) {
    diff = std::max(diff, double(std::abs(b[i] - x_hqr[i])));
    ref = std::max(ref, double(std::abs(b[i])));
  }
  CK(cudaHostRegister(a.data(), ca * sizeof(T), cudaHostRegisterDefault));
  CK(cudaHostRegister(b.data(), cb * sizeof(T), cudaHostRegisterDefault));
  const double pin = timed(reps, reset, [&] {
    CK(cudaMemcpy(dA, a.data(), ca * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, b.data(), cb * sizeof(T), cudaMemcpyHostToDevice));
    solve(dA, dB);
    CK(cudaMemcpy(a.data(), dA, ca * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), dB, cb * sizeof(T), cudaMemcpyDeviceToHost));
  });
  CK(cudaHostUnregister(a.data()));
  CK(cudaHostUnregister(b.data()));
  const double dev = timed(
      reps,
      [&] {
        CK(cudaMemcpy(dA, a0.data(), ca * sizeof(T), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dB, b0.data(), cb * sizeof(T), cudaMemcpyHostToDevice));
      },
      [&] {
        solve(dA, dB);
        CK(cudaDeviceSynchronize());
      });

  // The caller's A and B in pinned memory: hqr, and cuSOLVER on the same buffers.
  T *pa, *pb;
  cudaStream_t stream;
  CK(cudaMallocHost(&pa, ca * sizeof(T)));
  CK(cudaMallocHost(&pb, cb * sizeof(T)));
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ha = pa, hb = pb;
  CK(cusolverDnSetStream(solver, stream));
  CK(cublasSetStream(cublas, stream));
  const auto [h_pin, on_pin] = paired_medians(
      reps, reset, [&] { lapack(hqr_fn); },
      [&] {
        CK(cudaMemcpy2DAsync(dA, m * sizeof(T), pa, m * sizeof(T), m * sizeof(T), n, cudaMemcpyHostToDevice, stream));
        CK(cudaMemcpy2DAsync(dB, m * sizeof(T), pb, m * sizeof(T), m * sizeof(T), nrhs, cudaMemcpyHostToDevice,
                             stream));
        solve(dA, dB);
        CK(cudaMemcpy2DAsync(pa, m * sizeof(T), dA, m * sizeof(T), m * sizeof(T), n, cudaMemcpyDeviceToHost, stream));
        CK(cudaMemcpy2DAsync(pb, m * sizeof(T), dB, m * sizeof(T), m * sizeof(T), nrhs, cudaMemcpyDeviceToHost,
                             stream));
        CK(cudaStreamSynchronize(stream));
      });
  CK(cusolverDnSetStream(solver, nullptr));
  CK(cublasSetStream(cublas, nullptr));
  CK(cudaStreamDestroy(stream));
  CK(cudaFreeHost(pa));
  CK(cudaFreeHost(pb));
  ha = a.data(), hb = b.data();
  for (void *p : {(void *)dA, (void *)dB, (void *)dtau, (void *)dinfo, gq_dw, (void *)mq_dw}) cudaFree(p);
  double cpu = 0;
  if (cpu_lib && dm * dn * dn <= double(cpu_max) * cpu_max * cpu_max)
    if (auto *f = reinterpret_cast<Gels *>(dlsym(cpu_lib, sym.c_str()))) cpu = timed(reps, reset, [&] { lapack(f); });
  char what[64], check[64];
  std::snprintf(what, sizeof what, "%sgels %dx%d nrhs=%d", Traits<T>::name, m, n, nrhs);
  std::snprintf(check, sizeof check, "x reldiff vs cuSOLVER %.1e", ref > 0 ? diff / ref : diff);
  report(what, flops, h, rt, pin, dev, cpu, check, h_pin, on_pin);
}

// xgels 'N' with m < n (the minimum-norm solution of a consistent system,
// through the LQ factorization): hqr (host arrays in and out; HQR_VERBOSE
// names its path) against OpenBLAS's xgels where the size allows; cuSOLVER
// has no xGELQF, so no GPU peer. Check: ||A x - b|| / (||A|| ||x||) with
// A and b as they came.
template <class T> static void run_gels_wide(int m, int n, int nrhs, int reps, long cpu_max, void *cpu_lib) {
  using Gels = void(const char *, const int *, const int *, const int *, T *, const int *, T *, const int *, T *,
                    const int *, int *, size_t);
  const size_t ca = size_t(m) * n, cb = size_t(n) * nrhs;
  const std::vector<T> a0 = random_values<T>(ca), b0 = random_values<T>(cb);
  std::vector<T> a(ca), b(cb);
  const double dm = m, dn = n, dr = nrhs;
  const double flops = Traits<T>::flop_scale *
                       ((2 * dn * dm * dm - 2 * dm * dm * dm / 3) + (4 * dn * dm * dr - 2 * dm * dm * dr) + dm * dm * dr);
  auto reset = [&] {
    std::memcpy(a.data(), a0.data(), ca * sizeof(T));
    std::memcpy(b.data(), b0.data(), cb * sizeof(T));
  };
  auto lapack = [&](Gels *f) { call_gels<T>(f, m, n, nrhs, a.data(), b.data(), n); };
  const std::string sym = std::string(Traits<T>::name) + "gels_";
  const double h = timed(reps, reset, [&] { lapack(reinterpret_cast<Gels *>(dlsym(RTLD_DEFAULT, sym.c_str()))); });
  // Residual of the first right-hand side: r = b0(1:m) - A0 x.
  double rmax = 0, amax = 0, xmax = 0;
  for (int i = 0; i < n; ++i) xmax = std::max(xmax, double(std::abs(b[i])));
  std::vector<T> r(b0.begin(), b0.begin() + m);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      r[size_t(i)] -= a0[i + size_t(j) * m] * b[size_t(j)];
      amax = std::max(amax, double(std::abs(a0[i + size_t(j) * m])));
    }
  for (const T &x : r) rmax = std::max(rmax, double(std::abs(x)));
  double cpu = 0;
  if (cpu_lib && dn * dm * dm <= double(cpu_max) * cpu_max * cpu_max)
    if (auto *f = reinterpret_cast<Gels *>(dlsym(cpu_lib, sym.c_str()))) cpu = timed(reps, reset, [&] { lapack(f); });
  char cpus[64] = "-";
  if (cpu > 0) std::snprintf(cpus, sizeof cpus, "%9.5f (x%5.2f)", cpu, cpu / h);
  std::printf("%sgels %dx%d nrhs=%d      | hqr %9.5f s %7.0f GF/s | cpu %s | |Ax-b|/(|A||x|) %.1e (max entries)\n",
              Traits<T>::name, m, n, nrhs, h, flops / h * 1e-9, cpus, rmax / (amax * xmax * n));
  std::fflush(stdout);
}

// xgelsd through f (hqr's exported symbol or OpenBLAS's): LWORK, LIWORK
// (and LRWORK) queried, then the call with RCOND = -1 (machine precision).
// Returns INFO; RANK in *rank, the singular values in s.
template <class T> using RealOf = decltype(std::abs(T()));
template <class T>
static int call_gelsd(void *f, int m, int n, int nrhs, T *a, int lda, T *b, int ldb, RealOf<T> *s, int *rank) {
  using R = RealOf<T>;
  const R rcond = -1;
  int info = 0;
  auto call = [&](T *work, int lwork, R *rwork, int *iwork) {
    if constexpr (std::is_same_v<T, R>)
      reinterpret_cast<void (*)(const int *, const int *, const int *, T *, const int *, T *, const int *, R *,
                                const R *, int *, T *, const int *, int *, int *)>(f)(
          &m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, &info);
    else
      reinterpret_cast<void (*)(const int *, const int *, const int *, T *, const int *, T *, const int *, R *,
                                const R *, int *, T *, const int *, R *, int *, int *)>(f)(
          &m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, rwork, iwork, &info);
  };
  T w{};
  R rw = 0;
  int iw = 0;
  call(&w, -1, &rw, &iw);
  std::vector<T> work(size_t(std::max(1, int(std::real(w)))));
  std::vector<R> rwork(size_t(std::max(1, int(rw))));
  std::vector<int> iwork(size_t(std::max(1, iw)));
  call(work.data(), int(work.size()), rwork.data(), iwork.data());
  return info;
}

// xgelsd, m >= 1.6 n (hqr's QR, then R's n-by-n problem: the bidiagonal form
// on the GPU from gelsd.cpp's kBidiagonalMinN on; HQR_VERBOSE names the
// steps' paths) against OpenBLAS's xgelsd on the same A and B ("cpu"), and
// OpenBLAS's xgelsd on the n-by-n R of A alone ("cpu-nxn": what hqr ran on
// the CPU after its QR before; with the QR's time, the crossover). Check:
// S and X against OpenBLAS's (max |ds| / s1, max |dx| / max |x|), RANK.
template <class T> static void run_gelsd(int m, int n, int nrhs, int reps, long cpu_max, void *cpu_lib) {
  using R = RealOf<T>;
  const size_t ca = size_t(m) * n, cb = size_t(m) * nrhs;
  const std::vector<T> a0 = random_values<T>(ca), b0 = random_values<T>(cb);
  // A spare column: OpenBLAS 0.3.21's zgemv_n, which its xGELSD calls, reads
  // past the end of its matrix (a segmentation fault here once).
  std::vector<T> a(ca + size_t(m)), b(cb);
  std::vector<R> s(static_cast<size_t>(n)), s_cpu(static_cast<size_t>(n));
  int rank = 0, rank_cpu = 0;
  auto reset = [&] {
    std::memcpy(a.data(), a0.data(), ca * sizeof(T));
    std::memcpy(b.data(), b0.data(), cb * sizeof(T));
  };
  const std::string sym = std::string(Traits<T>::name) + "gelsd_";
  void *hqr_f = dlsym(RTLD_DEFAULT, sym.c_str());
  const double h = timed(reps, reset, [&] { call_gelsd<T>(hqr_f, m, n, nrhs, a.data(), m, b.data(), m, s.data(), &rank); });
  const std::vector<T> x(b.begin(), b.begin() + n);  // the first right-hand side's solution
  double cpu = 0, cpu_nn = 0, ds = -1, dx = -1;
  void *cpu_f = cpu_lib ? dlsym(cpu_lib, sym.c_str()) : nullptr;
  if (cpu_f && double(m) * n * n <= double(cpu_max) * cpu_max * cpu_max) {
    cpu = timed(reps, reset, [&] { call_gelsd<T>(cpu_f, m, n, nrhs, a.data(), m, b.data(), m, s_cpu.data(), &rank_cpu); });
    ds = 0;
    for (int i = 0; i < n; ++i) ds = std::max(ds, double(std::abs(s[size_t(i)] - s_cpu[size_t(i)])));
    ds /= double(s_cpu[0]);
    double big = 0;
    dx = 0;
    for (int i = 0; i < n; ++i) {
      big = std::max(big, double(std::abs(b[size_t(i)])));
      dx = std::max(dx, double(std::abs(b[size_t(i)] - x[size_t(i)])));
    }
    dx /= big;
    // R of A (OpenBLAS's xgeqrf, untimed), its lower part zero, and B's first n rows.
    std::vector<T> r0(a0), tau(static_cast<size_t>(n));
    auto *geqrf = reinterpret_cast<GeqrfFn<T> *>(dlsym(cpu_lib, (std::string(Traits<T>::name) + "geqrf_").c_str()));
    lapack_geqrf<T>(geqrf, m, n, r0.data(), tau.data());
    for (int j = 0; j < n; ++j)
      for (int i = j + 1; i < m; ++i) r0[i + size_t(j) * m] = T(0);
    cpu_nn = timed(reps, [&] {
      std::memcpy(a.data(), r0.data(), ca * sizeof(T));
      std::memcpy(b.data(), b0.data(), cb * sizeof(T));
    }, [&] { call_gelsd<T>(cpu_f, n, n, nrhs, a.data(), m, b.data(), m, s_cpu.data(), &rank_cpu); });
  }
  char cpus[64] = "-", nn[64] = "-", check[96] = "-";
  if (cpu > 0) {
    std::snprintf(cpus, sizeof cpus, "%9.5f (x%5.2f)", cpu, cpu / h);
    std::snprintf(nn, sizeof nn, "%9.5f", cpu_nn);
    std::snprintf(check, sizeof check, "|ds|/s1 %.1e |dx|/|x| %.1e rank %d/%d", ds, dx, rank, rank_cpu);
  }
  std::printf("%sgelsd %dx%d nrhs=%d | hqr %9.5f s | cpu %s | cpu-nxn %s | %s\n", Traits<T>::name, m, n, nrhs, h,
              cpus, nn, check);
  std::fflush(stdout);
}

// Reflectors of a random n x n matrix (cuSOLVER's geqrf), for ormqr/orgqr.
static void reflectors(int n, std::vector<double> &a, std::vector<double> &tau) {
  a = random_doubles(size_t(n) * n);
  tau.assign(size_t(n), 0);
  double *dA, *dtau;
  int *dinfo;
  size_t bd = 0, bh = 0;
  CK(cudaMalloc(&dA, a.size() * sizeof(double)));
  CK(cudaMalloc(&dtau, n * sizeof(double)));
  CK(cudaMalloc(&dinfo, sizeof(int)));
  CK(cudaMemcpy(dA, a.data(), a.size() * sizeof(double), cudaMemcpyHostToDevice));
  CK(cusolverDnXgeqrf_bufferSize(solver, params, n, n, CUDA_R_64F, dA, n, CUDA_R_64F, dtau, CUDA_R_64F, &bd, &bh));
  void *w;
  CK(cudaMalloc(&w, std::max<size_t>(bd, 1)));
  std::vector<char> hw(std::max<size_t>(bh, 1));
  CK(cusolverDnXgeqrf(solver, params, n, n, CUDA_R_64F, dA, n, CUDA_R_64F, dtau, CUDA_R_64F, w, bd, hw.data(), bh,
                      dinfo));
  CK(cudaMemcpy(a.data(), dA, a.size() * sizeof(double), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(tau.data(), dtau, n * sizeof(double), cudaMemcpyDeviceToHost));
  for (void *p : {(void *)dA, (void *)dtau, (void *)dinfo, w}) cudaFree(p);
}

// dormqr('L', 'T') (orgqr: dorgqr) of order n with n reflectors: hqr against
// cuSOLVER Dormqr (Dorgqr) with a host round trip of A, tau and C (A, tau),
// pinned, device-only, and OpenBLAS.
static void run_apply(bool form, int n, int reps, long cpu_max, void *cpu_lib) {
  using Ormqr = void(const char *, const char *, const int *, const int *, const int *, const double *, const int *,
                     const double *, double *, const int *, double *, const int *, int *, size_t, size_t);
  using Orgqr = void(const int *, const int *, const int *, double *, const int *, const double *, double *,
                     const int *, int *);
  const size_t count = size_t(n) * n, bytes = count * sizeof(double);
  std::vector<double> v, tau;
  reflectors(n, v, tau);
  const std::vector<double> c0 = random_doubles(count);
  std::vector<double> a(count), c(count);
  const double dn = n;
  // LAPACK's counts: ormqr 4n^3 - 2n^3 = 2n^3 (m = n = k), orgqr 4/3 n^3.
  const double flops = form ? 4 * dn * dn * dn / 3 : 2 * dn * dn * dn;
  auto reset = [&] {
    std::memcpy(a.data(), v.data(), bytes);
    if (!form) std::memcpy(c.data(), c0.data(), bytes);
  };
  auto lapack = [&](void *f) {
    int lw = -1, info = 0;
    double w = 0;
    if (form) {
      auto *g = reinterpret_cast<Orgqr *>(f);
      g(&n, &n, &n, a.data(), &n, tau.data(), &w, &lw, &info);
      lw = std::max(1, int(w));
      std::vector<double> work(static_cast<size_t>(lw));
      g(&n, &n, &n, a.data(), &n, tau.data(), work.data(), &lw, &info);
    } else {
      auto *g = reinterpret_cast<Ormqr *>(f);
      g("L", "T", &n, &n, &n, a.data(), &n, tau.data(), c.data(), &n, &w, &lw, &info, 1, 1);
      lw = std::max(1, int(w));
      std::vector<double> work(static_cast<size_t>(lw));
      g("L", "T", &n, &n, &n, a.data(), &n, tau.data(), c.data(), &n, work.data(), &lw, &info, 1, 1);
    }
    if (info != 0) std::fprintf(stderr, "info=%d\n", info);
  };
  void *hqr_fn = dlsym(RTLD_DEFAULT, form ? "dorgqr_" : "dormqr_");
  const double h = timed(reps, reset, [&] { lapack(hqr_fn); });
  const std::vector<double> out_hqr = form ? a : c;

  double *dA, *dC, *dtau, *dwork;
  int *dinfo, lwork = 0;
  CK(cudaMalloc(&dA, bytes));
  CK(cudaMalloc(&dC, bytes));
  CK(cudaMalloc(&dtau, n * sizeof(double)));
  CK(cudaMalloc(&dinfo, sizeof(int)));
  if (form)
    CK(cusolverDnDorgqr_bufferSize(solver, n, n, n, dA, n, dtau, &lwork));
  else
    CK(cusolverDnDormqr_bufferSize(solver, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, n, n, n, dA, n, dtau, dC, n, &lwork));
  CK(cudaMalloc(&dwork, std::max<size_t>(size_t(lwork) * sizeof(double), 1)));
  auto op = [&](double *A, double *C, double *t) {
    if (form)
      CK(cusolverDnDorgqr(solver, n, n, n, A, n, t, dwork, lwork, dinfo));
    else
      CK(cusolverDnDormqr(solver, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, n, n, n, A, n, t, C, n, dwork, lwork, dinfo));
  };
  double *out = form ? a.data() : c.data();
  const double rt = timed(reps, reset, [&] {
    double *A, *C = nullptr, *t;
    CK(cudaMalloc(&A, bytes));
    CK(cudaMalloc(&t, n * sizeof(double)));
    CK(cudaMemcpy(A, a.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(t, tau.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    if (!form) {
      CK(cudaMalloc(&C, bytes));
      CK(cudaMemcpy(C, c.data(), bytes, cudaMemcpyHostToDevice));
    }
    op(A, C, t);
    CK(cudaMemcpy(out, form ? A : C, bytes, cudaMemcpyDeviceToHost));
    CK(cudaFree(A));
    CK(cudaFree(t));
    if (C) CK(cudaFree(C));
  });
  double diff = 0, ref = 0;
  for (size_t i = 0; i < count; ++i) {
    diff = std::max(diff, std::abs(out[i] - out_hqr[i]));
    ref = std::max(ref, std::abs(out[i]));
  }
  CK(cudaHostRegister(a.data(), bytes, cudaHostRegisterDefault));
  CK(cudaHostRegister(c.data(), bytes, cudaHostRegisterDefault));
  const double pin = timed(reps, reset, [&] {
    CK(cudaMemcpy(dA, a.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dtau, tau.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    if (!form) CK(cudaMemcpy(dC, c.data(), bytes, cudaMemcpyHostToDevice));
    op(dA, dC, dtau);
    CK(cudaMemcpy(out, form ? dA : dC, bytes, cudaMemcpyDeviceToHost));
  });
  CK(cudaHostUnregister(a.data()));
  CK(cudaHostUnregister(c.data()));
  const double dev = timed(
      reps,
      [&] {
        CK(cudaMemcpy(dA, v.data(), bytes, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dC, c0.data(), bytes, cudaMemcpyHostToDevice));
      },
      [&] {
        op(dA, dC, dtau);
        CK(cudaDeviceSynchronize());
      });
  for (void *p : {(void *)dA, (void *)dC, (void *)dtau, (void *)dinfo, (void *)dwork}) cudaFree(p);
  double cpu = 0;
  if (cpu_lib && n <= cpu_max)
    if (void *f = dlsym(cpu_lib, form ? "dorgqr_" : "dormqr_")) cpu = timed(reps, reset, [&] { lapack(f); });
  char what[64], check[64];
  std::snprintf(what, sizeof what, form ? "dorgqr %dx%d k=%d" : "dormqr L T %dx%d k=%d", n, n, n);
  std::snprintf(check, sizeof check, "reldiff vs cuSOLVER %.1e", ref > 0 ? diff / ref : diff);
  report(what, flops, h, rt, pin, dev, cpu, check);
}

int main(int argc, char **argv) {
  if (!gpu_present("bench_qr")) return 0;
  std::string size_list = argc > 2 ? argv[2] : "4096x4096,8192x8192,16384x16384";  // strtok writes into it
  const std::string precs = argc > 1 ? argv[1] : "d";
  std::vector<std::pair<int, int>> shapes;
  struct Other {
    char routine;  // 'g' gels, 'l' gelsd, 'm' ormqr, 'o' orgqr
    int m, n, nrhs;
  };
  std::vector<Other> others;
  for (char *p = std::strtok(size_list.data(), ","); p;
       p = std::strtok(nullptr, ",")) {
    int m = 0, n = 0, r = 1;
    if (std::sscanf(p, "gels:%dx%dx%d", &m, &n, &r) >= 2)
      others.push_back({'g', m, n, r});
    else if (std::sscanf(p, "gelsd:%dx%dx%d", &m, &n, &r) >= 2)
      others.push_back({'l', m, n, r});
    else if (std::sscanf(p, "ormqr:%d", &n) == 1)
      others.push_back({'m', n, n, 0});
    else if (std::sscanf(p, "orgqr:%d", &n) == 1)
      others.push_back({'o', n, n, 0});
    else if (std::sscanf(p, "%dx%d", &m, &n) == 2)
      shapes.push_back({m, n});
  }
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  const long cpu_max = argc > 4 ? std::atol(argv[4]) : 8192;
  // DEEPBIND: OpenBLAS's LAPACK calls its own routines, not hqr's exported
  // ones of the same name (its dgels's dgeqrf ran on hqr's GPU path without).
  void *cpu_lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  CK(cusolverDnCreate(&solver));
  CK(cusolverDnCreateParams(&params));
  CK(cublasCreate(&cublas));
  std::printf("# device: %s (hqr_device=%d; %d GPU%s serve calls, HQR_DEVICE=%s), hqr %s\n", hqr_device_name(),
              hqr_device(), hqr_device_count(), hqr_device_count() == 1 ? "" : "s",
              std::getenv("HQR_DEVICE") ? std::getenv("HQR_DEVICE") : "all", hqr_version());
  for (char p : precs)
    for (auto [m, n] : shapes) {
      if (p == 'd') run<double>(m, n, reps, cpu_max, cpu_lib);
      if (p == 's') run<float>(m, n, reps, cpu_max, cpu_lib);
      if (p == 'z') run<zc>(m, n, reps, cpu_max, cpu_lib);
      if (p == 'c') run<cc>(m, n, reps, cpu_max, cpu_lib);
    }
  for (const Other &o : others) {
    if (o.routine == 'g')
      for (char p : precs) {
        if (o.m < o.n) {  // the minimum-norm case: hqr and OpenBLAS only
          if (p == 'd') run_gels_wide<double>(o.m, o.n, o.nrhs, reps, cpu_max, cpu_lib);
          if (p == 's') run_gels_wide<float>(o.m, o.n, o.nrhs, reps, cpu_max, cpu_lib);
          if (p == 'z') run_gels_wide<zc>(o.m, o.n, o.nrhs, reps, cpu_max, cpu_lib);
          if (p == 'c') run_gels_wide<cc>(o.m, o.n, o.nrhs, reps, cpu_max, cpu_lib);
          continue;
        }
        if (p == 'd') run_gels<double>(o.m, o.n, o.nrhs, reps, cpu_max, cpu_lib);
        if (p == 's') run_gels<float>(o.m, o.n, o.nrhs, reps, cpu_max, cpu_lib);
        if (p == 'z') run_gels<zc>(o.m, o.n, o.nrhs, reps, cpu_max, cpu_lib);
        if (p == 'c') run_gels<cc>(o.m, o.n, o.nrhs, reps, cpu_max, cpu_lib);
      }
    if (o.routine == 'l')
      for (char p : precs) {
        if (p == 'd') run_gelsd<double>(o.m, o.n, o.nrhs, reps, cpu_max, cpu_lib);
        if (p == 's') run_gelsd<float>(o.m, o.n, o.nrhs, reps, cpu_max, cpu_lib);
        if (p == 'z') run_gelsd<zc>(o.m, o.n, o.nrhs, reps, cpu_max, cpu_lib);
        if (p == 'c') run_gelsd<cc>(o.m, o.n, o.nrhs, reps, cpu_max, cpu_lib);
      }
    if (o.routine == 'm') run_apply(false, o.n, reps, cpu_max, cpu_lib);
    if (o.routine == 'o') run_apply(true, o.n, reps, cpu_max, cpu_lib);
  }
}
