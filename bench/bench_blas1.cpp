// Timing program (not a test) for xCOPY in numpy's pattern: numpy's
// _umath_linalg copies an n-by-n matrix into Fortran order for each LAPACK
// call with n copies dcopy(n, a + j, n, b + j*n, 1) (the source a row apart:
// "in") and back with dcopy(n, b + j*n, 1, a + j, n) ("out"). hqr's dcopy_
// against the next library's (OpenBLAS, dlopened with RTLD_DEEPBIND, as pip's
// wheel has its own), each pass timed whole, median of REPS after a warm-up,
// on the same arrays; the results compared.
//   bench_blas1 [N, default 16384] [REPS, default 3] [LIB, default libopenblas.so.0]
// Build: make bench (build/bench_blas1; CPU only).
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "hqr.h"

extern "C" void dcopy_(const lapack_int *, const double *, const lapack_int *, double *, const lapack_int *);

namespace {
using Copy = void(const lapack_int *, const double *, const lapack_int *, double *, const lapack_int *);

double pass(Copy *copy, bool in, lapack_int n, double *a, double *b) {
  const lapack_int one = 1;
  const auto t0 = std::chrono::steady_clock::now();
  for (lapack_int j = 0; j < n; ++j) {
    if (in)
      copy(&n, a + j, &n, b + std::size_t(j) * n, &one);
    else
      copy(&n, b + std::size_t(j) * n, &one, a + j, &n);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char **argv) {
  const lapack_int n = argc > 1 ? lapack_int(std::atol(argv[1])) : 16384;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  const char *lib = argc > 3 ? argv[3] : "libopenblas.so.0";
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  Copy *peer = h ? reinterpret_cast<Copy *>(dlsym(h, "dcopy_")) : nullptr;
  if (!peer) std::printf("# %s: no dcopy_ (%s); hqr only\n", lib, dlerror());
  std::vector<double> a(std::size_t(n) * n), b(a.size()), c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = double(i % 1000003) * 0.5;
  std::printf("# bench_blas1 n=%ld reps=%d, %u host threads: numpy's linearize (in: source a row apart) and "
              "delinearize (out: destination a row apart), seconds per pass of %ld dcopy calls, median\n",
              long(n), reps, std::thread::hardware_concurrency(), long(n));
  for (bool in : {true, false}) {
    double best[2] = {0, 0};
    for (int who = 0; who < 2; ++who) {
      Copy *f = who == 0 ? dcopy_ : peer;
      if (!f) continue;
      std::vector<double> t;
      for (int r = 0; r <= reps; ++r) {
        const double s = pass(f, in, n, a.data(), b.data());
        if (r > 0) t.push_back(s);
      }
      std::sort(t.begin(), t.end());
      best[who] = t[t.size() / 2];
      if (in && who == 0) c = b;  // hqr's result, compared with the peer's below
    }
    const bool same = !peer || !in || std::memcmp(b.data(), c.data(), b.size() * sizeof(double)) == 0;
    std::printf("dcopy %-4s n=%-6ld | hqr %8.3f s (%6.1f us/call) | %s %8.3f s (x %5.2f) | %s\n", in ? "in" : "out",
                long(n), best[0], best[0] / n * 1e6, peer ? "openblas" : "-", best[1],
                best[0] > 0 ? best[1] / best[0] : 0.0, same ? "same result" : "RESULTS DIFFER");
  }
  return 0;
}
