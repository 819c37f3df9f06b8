// Benchmark peer (a program, not a test): xPOTRF of one LAPACK library,
// loaded by path, host to host. scripts/bench runs it with the reference
// LAPACK under LD_PRELOAD=libnvblas.so (NVBLAS sends the large level-3 calls
// that the reference xPOTRF makes to the GPU) and prints rows that
// scripts/plot-bench.py puts beside hqr's.
//   bench_potrf_peer LIBRARY LABEL PRECISIONS UPLOS SIZES [reps]
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "spd_matrix.hpp"

template <class T> void run(void *lib, const char *label, char prec, const char *uplo, int n, int reps) {
  using F = void(const char *, const int *, T *, const int *, int *, size_t);
  const std::string sym = std::string(1, prec) + "potrf_";
  auto *f = reinterpret_cast<F *>(dlsym(lib, sym.c_str()));
  if (!f) {
    std::fprintf(stderr, "no %s\n", sym.c_str());
    std::exit(1);
  }
  std::vector<T> a0(size_t(n) * n), a(a0.size());
  make_spd(a0, n);
  std::vector<double> t;
  int info = 0;
  for (int r = 0; r <= reps; ++r) {
    std::copy(a0.begin(), a0.end(), a.begin());
    const auto start = std::chrono::steady_clock::now();
    f(uplo, &n, a.data(), &n, &info, 1);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (info != 0) std::fprintf(stderr, "%s info=%d\n", label, info);
    if (r > 0) t.push_back(s);
  }
  std::sort(t.begin(), t.end());
  const double med = t[t.size() / 2];
  const double flops = (std::is_floating_point_v<T> ? 1.0 : 4.0) * double(n) * n * n / 3;
  std::printf("%cpotrf %s %6d | %s %8.4f s %7.0f GF/s\n", prec, uplo, n, label, med, flops / med * 1e-9);
  std::fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s LIBRARY LABEL PRECISIONS UPLOS SIZES [reps]\n", argv[0]);
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    std::fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  const int reps = argc > 6 ? std::atoi(argv[6]) : 3;
  for (const char *p = argv[3]; *p; ++p)
    for (const char *u = argv[4]; *u; ++u) {
      const char uplo[2] = {*u, 0};
      std::string sizes = argv[5];
      for (char *s = std::strtok(sizes.data(), ","); s; s = std::strtok(nullptr, ",")) {
        const int n = std::atoi(s);
        if (*p == 'd') run<double>(lib, argv[2], *p, uplo, n, reps);
        if (*p == 's') run<float>(lib, argv[2], *p, uplo, n, reps);
        if (*p == 'z') run<std::complex<double>>(lib, argv[2], *p, uplo, n, reps);
        if (*p == 'c') run<std::complex<float>>(lib, argv[2], *p, uplo, n, reps);
      }
    }
}
