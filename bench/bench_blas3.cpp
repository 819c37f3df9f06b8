// Benchmark (a program, not a test): level-3 BLAS host to host, hqr beside
// its peers in the same run. One row per (routine, precision, shape): the
// median seconds of `reps` runs after one warm-up, GFLOP/s with the
// reference BLAS's count, and hqr's speed-up over each peer.
//   hqr: the routine's Fortran symbol in libhqr (what a program calls);
//   OpenBLAS: the same symbol in the system BLAS, dlopen'ed (all cores);
//   cuBLASXt (gemm only): host pointers on 1..g GPUs, pinning off and on
//     (NVBLAS is cuBLASXt behind the BLAS names);
//   cuBLAS (gemm only): the product alone on data already on one GPU, no
//     transfers: the floor of one GPU.
//   bench_blas3 ROUTINE PREC M,N,K[;M,N,K...] [reps] [max GPUs for cuBLASXt] [beta]
// ROUTINE: gemm, syrk, syr2k, symm, trmm, trsm; PREC: s, d, c, z.
// M,N,K: gemm's; syrk/syr2k use N,K; symm/trmm/trsm M,N (side L).
// BENCH_PEERS (default "openblas,xt,cublas") picks the peers.
#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hqr.h"
#include "timing.hpp"

namespace {

using zc = std::complex<double>;
using cc = std::complex<float>;

template <class T> T make(std::mt19937_64 &g) {
  std::uniform_real_distribution<double> u(-1, 1);
  if constexpr (std::is_same_v<T, zc> || std::is_same_v<T, cc>)
    return T(u(g), u(g));
  else
    return T(u(g));
}
// Fresh random data, filled by several threads (the sizes reach 16 GB).
template <class T> void fill(std::vector<T> &v, unsigned seed) {
  const int th = int(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> w;
  for (int t = 0; t < th; ++t)
    w.emplace_back([&, t] {
      std::mt19937_64 g(seed * 1000003u + t);
      const std::size_t b = v.size() * t / th, e = v.size() * (t + 1) / th;
      for (std::size_t i = b; i < e; ++i) v[i] = make<T>(g);
    });
  for (auto &x : w) x.join();
}

template <class T> char letter() {
  return std::is_same_v<T, float> ? 's' : std::is_same_v<T, double> ? 'd' : std::is_same_v<T, cc> ? 'c' : 'z';
}
template <class T> double scale() { return std::is_same_v<T, cc> || std::is_same_v<T, zc> ? 4 : 1; }

bool peer(const char *name) {
  const char *p = std::getenv("BENCH_PEERS");
  return !p || std::strstr(p, name);
}

// The routines' Fortran signatures (32-bit INTEGER).
template <class T> using Gemm = void(const char *, const char *, const int *, const int *, const int *, const T *,
                                     const T *, const int *, const T *, const int *, const T *, T *, const int *,
                                     std::size_t, std::size_t);
template <class T> using Syrk = void(const char *, const char *, const int *, const int *, const T *, const T *,
                                     const int *, const T *, T *, const int *, std::size_t, std::size_t);
template <class T> using Syr2k = void(const char *, const char *, const int *, const int *, const T *, const T *,
                                      const int *, const T *, const int *, const T *, T *, const int *, std::size_t,
                                      std::size_t);
template <class T> using Symm = Syr2k<T>;  // side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc
template <class T> using Trmm = void(const char *, const char *, const char *, const char *, const int *,
                                     const int *, const T *, const T *, const int *, T *, const int *, std::size_t,
                                     std::size_t, std::size_t, std::size_t);

struct Shape {
  int m, n, k;
};

template <class T> struct Bench {
  std::string routine;
  Shape s;
  int reps, gpus;
  T beta;
  std::vector<T> a, b, c, c0;

  void *sym(void *lib, const char *base) {
    const std::string name = std::string(1, letter<T>()) + base + "_";
    void *f = dlsym(lib, name.c_str());
    if (!f) {
      std::fprintf(stderr, "%s not found\n", name.c_str());
      std::exit(1);
    }
    return f;
  }
  double flops() const {
    const double m = s.m, n = s.n, k = s.k;
    if (routine == "gemm") return 2 * m * n * k * scale<T>();
    if (routine == "syrk") return n * (n + 1) * k * scale<T>();
    if (routine == "syr2k") return 2 * n * n * k * scale<T>();
    if (routine == "symm") return 2 * m * m * n * scale<T>();
    return m * m * n * scale<T>();  // trmm, trsm (side L)
  }
  // One call of `routine` through `lib` (a dlopen handle or RTLD_DEFAULT).
  void call(void *lib) {
    const int m = s.m, n = s.n, k = s.k;
    const T one(1);
    if (routine == "gemm") {
      reinterpret_cast<Gemm<T> *>(sym(lib, "gemm"))("N", "N", &m, &n, &k, &one, a.data(), &m, b.data(), &k, &beta,
                                                    c.data(), &m, 1, 1);
    } else if (routine == "syrk") {
      reinterpret_cast<Syrk<T> *>(sym(lib, "syrk"))("L", "N", &n, &k, &one, a.data(), &n, &beta, c.data(), &n, 1, 1);
    } else if (routine == "syr2k") {
      reinterpret_cast<Syr2k<T> *>(sym(lib, "syr2k"))("L", "N", &n, &k, &one, a.data(), &n, b.data(), &n, &beta,
                                                      c.data(), &n, 1, 1);
    } else if (routine == "symm") {
      reinterpret_cast<Symm<T> *>(sym(lib, "symm"))("L", "L", &m, &n, &one, a.data(), &m, b.data(), &m, &beta,
                                                    c.data(), &m, 1, 1);
    } else {
      reinterpret_cast<Trmm<T> *>(sym(lib, routine.c_str()))("L", "L", "N", "N", &m, &n, &one, a.data(), &m,
                                                             c.data(), &m, 1, 1, 1, 1);
    }
  }
  double time(const std::function<void()> &f) {
    f();  // warm-up
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      c = c0;
      t.push_back(seconds(f));
    }
    return median(t);
  }
  void row(const char *who, double sec, double hqr_sec) {
    std::printf("%s%-6s %-30s %8.4f s %9.1f GFLOP/s", std::string(1, letter<T>()).c_str(), routine.c_str(), who, sec,
                flops() / sec * 1e-9);
    if (hqr_sec > 0) std::printf("   hqr %.2fx", sec / hqr_sec);
    std::printf("\n");
    std::fflush(stdout);
  }
  void xt(int g, bool pinned, double hqr_sec) {
    cublasXtHandle_t h;
    CK(cublasXtCreate(&h));
    std::vector<int> ids(g);
    for (int d = 0; d < g; ++d) ids[d] = d;
    CK(cublasXtDeviceSelect(h, g, ids.data()));
    CK(cublasXtSetPinningMemMode(h, pinned ? CUBLASXT_PINNING_ENABLED : CUBLASXT_PINNING_DISABLED));
    const T one(1);
    const double sec = time([&] {
      if constexpr (std::is_same_v<T, double>)
        CK(cublasXtDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &one, a.data(), s.m, b.data(), s.k, &beta,
                         c.data(), s.m));
      else if constexpr (std::is_same_v<T, float>)
        CK(cublasXtSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &one, a.data(), s.m, b.data(), s.k, &beta,
                         c.data(), s.m));
      else if constexpr (std::is_same_v<T, zc>)
        CK(cublasXtZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, reinterpret_cast<const cuDoubleComplex *>(&one),
                         reinterpret_cast<cuDoubleComplex *>(a.data()), s.m,
                         reinterpret_cast<cuDoubleComplex *>(b.data()), s.k,
                         reinterpret_cast<cuDoubleComplex *>(&beta), reinterpret_cast<cuDoubleComplex *>(c.data()),
                         s.m));
      else
        CK(cublasXtCgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, reinterpret_cast<const cuComplex *>(&one),
                         reinterpret_cast<cuComplex *>(a.data()), s.m, reinterpret_cast<cuComplex *>(b.data()), s.k,
                         reinterpret_cast<cuComplex *>(&beta), reinterpret_cast<cuComplex *>(c.data()), s.m));
    });
    CK(cublasXtDestroy(h));
    char who[64];
    std::snprintf(who, sizeof who, "cuBLASXt %d GPU%s, pinning %s", g, g > 1 ? "s" : "", pinned ? "on" : "off");
    row(who, sec, hqr_sec);
  }
  void device_only(double hqr_sec) {
    T *da, *db, *dc;
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&da, sizeof(T) * a.size()));
    CK(cudaMalloc(&db, sizeof(T) * b.size()));
    CK(cudaMalloc(&dc, sizeof(T) * c.size()));
    CK(cudaMemcpy(da, a.data(), sizeof(T) * a.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b.data(), sizeof(T) * b.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, c0.data(), sizeof(T) * c.size(), cudaMemcpyHostToDevice));
    cublasHandle_t h;
    CK(cublasCreate(&h));
    const T one(1);
    const double sec = time([&] {
      if constexpr (std::is_same_v<T, double>)
        CK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &one, da, s.m, db, s.k, &beta, dc, s.m));
      else if constexpr (std::is_same_v<T, float>)
        CK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &one, da, s.m, db, s.k, &beta, dc, s.m));
      else if constexpr (std::is_same_v<T, zc>)
        CK(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, reinterpret_cast<const cuDoubleComplex *>(&one),
                       reinterpret_cast<cuDoubleComplex *>(da), s.m, reinterpret_cast<cuDoubleComplex *>(db), s.k,
                       reinterpret_cast<cuDoubleComplex *>(&beta), reinterpret_cast<cuDoubleComplex *>(dc), s.m));
      else
        CK(cublasCgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, reinterpret_cast<const cuComplex *>(&one),
                       reinterpret_cast<cuComplex *>(da), s.m, reinterpret_cast<cuComplex *>(db), s.k,
                       reinterpret_cast<cuComplex *>(&beta), reinterpret_cast<cuComplex *>(dc), s.m));
      CK(cudaDeviceSynchronize());
    });
    cublasDestroy(h);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    row("cuBLAS, data on 1 GPU (no copies)", sec, hqr_sec);
  }

  void run() {
    const std::size_t m = s.m, n = s.n, k = s.k;
    std::size_t na, nb, nc;
    if (routine == "gemm") {
      na = m * k, nb = k * n, nc = m * n;
    } else if (routine == "syrk" || routine == "syr2k") {
      na = n * k, nb = routine == "syr2k" ? n * k : 1, nc = n * n;
    } else if (routine == "symm") {
      na = m * m, nb = m * n, nc = m * n;
    } else {
      na = m * m, nb = 1, nc = m * n;
    }
    a.resize(na), b.resize(nb), c0.resize(nc);
    fill(a, 1), fill(b, 2), fill(c0, 3);
    if (routine == "trsm")  // well conditioned: a dominant diagonal
      for (std::size_t i = 0; i < m; ++i) a[i + i * m] += T(double(m));
    c = c0;
    std::printf("# %c%s m=%d n=%d k=%d beta=%g reps=%d\n", letter<T>(), routine.c_str(), s.m, s.n, s.k,
                double(std::real(beta)), reps);
    const double hqr = time([&] { call(RTLD_DEFAULT); });
    row("hqr (host to host)", hqr, 0);
    if (peer("openblas")) {
      void *lib = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
      if (lib) row("OpenBLAS (all cores)", time([&] { call(lib); }), hqr);
    }
    if (routine != "gemm") return;
    if (peer("xt"))
      for (int g = 1; g <= gpus; g *= 2) {
        xt(g, false, hqr);
        xt(g, true, hqr);
      }
    if (peer("cublas")) device_only(hqr);
  }
};

template <class T> void run(const std::string &r, const std::vector<Shape> &shapes, int reps, int gpus, double beta) {
  for (const Shape &s : shapes) {
    Bench<T> b{r, s, reps, gpus, T(beta), {}, {}, {}, {}};
    b.run();
  }
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s ROUTINE PREC M,N,K[;M,N,K...] [reps] [max GPUs] [beta]\n", argv[0]);
    return 2;
  }
  const std::string routine = argv[1];
  const char prec = argv[2][0];
  std::vector<Shape> shapes;
  for (std::string t = argv[3]; !t.empty();) {
    const std::size_t end = std::min(t.find(';'), t.size());
    Shape s{};
    std::sscanf(t.substr(0, end).c_str(), "%d,%d,%d", &s.m, &s.n, &s.k);
    shapes.push_back(s);
    t = end < t.size() ? t.substr(end + 1) : "";
  }
  const int reps = argc > 4 ? std::atoi(argv[4]) : 3;
  int count = 0;
  cudaGetDeviceCount(&count);
  const int gpus = argc > 5 ? std::min(std::atoi(argv[5]), count) : count;
  const double beta = argc > 6 ? std::atof(argv[6]) : 1.0;
  // hqr_version() also keeps libhqr linked: the calls go through dlsym.
  std::printf("# hqr %s, %d GPU%s visible\n", hqr_version(), count, count == 1 ? "" : "s");
  switch (prec) {
    case 's': run<float>(routine, shapes, reps, gpus, beta); break;
    case 'd': run<double>(routine, shapes, reps, gpus, beta); break;
    case 'c': run<cc>(routine, shapes, reps, gpus, beta); break;
    case 'z': run<zc>(routine, shapes, reps, gpus, beta); break;
    default: return 2;
  }
  return 0;
}
