// Timing program (not a test) for xCOPY in numpy's pattern: numpy's
// _umath_linalg copies an n-by-n matrix into Fortran order for each LAPACK
// call with n copies dcopy(n, a + j, n, b + j*n, 1) (the source a row apart:
// "in") and back with dcopy(n, b + j*n, 1, a + j, n) ("out"). hqr's dcopy_
// against the next library's (OpenBLAS, dlopened with RTLD_DEEPBIND, as pip's
// wheel has its own), each pass timed whole, median of REPS after a warm-up,
// on the same arrays; hqr's result checked element by element. The matrix a (numpy's array, the
// strided side) is allocated as numpy allocates arrays of 4 MiB or more on
// Linux: madvise(MADV_HUGEPAGE), so that where transparent huge pages are on
// ("madvise" or "always") its rows lie in 2 MiB pages, as numpy's do;
// HQR_BENCH_SMALL_PAGES=1 leaves it to the system's default. b (numpy's
// Fortran-order buffer, from malloc) is not advised. "floor": the same
// copies in one parallel loop (floor_pass), the bound for numpy's pattern.
//   bench_blas1 [N, default 16384] [REPS, default 3] [LIB, default libopenblas.so.0]
// Build: make bench (build/bench_blas1; CPU only).
#include <dlfcn.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "hqr.h"
#include "timing.hpp"

extern "C" void dcopy_(const lapack_int *, const double *, const lapack_int *, double *, const lapack_int *);

namespace {
using Copy = void(const lapack_int *, const double *, const lapack_int *, double *, const lapack_int *);

void pass(Copy *copy, bool in, lapack_int n, double *a, double *b) {
  const lapack_int one = 1;
  for (lapack_int j = 0; j < n; ++j) {
    if (in)
      copy(&n, a + j, &n, b + std::size_t(j) * n, &one);
    else
      copy(&n, b + std::size_t(j) * n, &one, a + j, &n);
  }
}

// The floor for numpy's pattern: the same element copies in the same order
// (column j of the pass before column j+1, each thread the same rows of
// every column, as hqr's ranges), but one parallel loop over the whole pass,
// with no call, hand-off or wait between columns. What a copy routine that
// must finish each of numpy's calls before it returns cannot go below.
void floor_pass(bool in, lapack_int n, double *a, double *b, int threads) {
  const std::ptrdiff_t nn = n;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      const std::ptrdiff_t i0 = nn * t / threads, i1 = nn * (t + 1) / threads;
      for (std::ptrdiff_t j = 0; j < nn; ++j) {
        // element i: x[i * ix] to y[i * iy]; numpy's row a row apart
        const double *x = in ? a + j : b + j * nn;
        double *y = in ? b + j * nn : a + j;
        const std::ptrdiff_t ix = in ? nn : 1, iy = in ? 1 : nn;
        std::ptrdiff_t i = i0;
        for (; i + 4 <= i1; i += 4) {  // four misses in flight, as hqr's loop
          const double x0 = x[i * ix], x1 = x[(i + 1) * ix], x2 = x[(i + 2) * ix], x3 = x[(i + 3) * ix];
          y[i * iy] = x0, y[(i + 1) * iy] = x1, y[(i + 2) * iy] = x2, y[(i + 3) * iy] = x3;
        }
        for (; i < i1; ++i) y[i * iy] = x[i * ix];
      }
    });
  for (auto &th : pool) th.join();
}
}  // namespace

int main(int argc, char **argv) {
  const lapack_int n = argc > 1 ? lapack_int(std::atol(argv[1])) : 16384;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  const char *lib = argc > 3 ? argv[3] : "libopenblas.so.0";
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  Copy *peer = h ? reinterpret_cast<Copy *>(dlsym(h, "dcopy_")) : nullptr;
  if (!peer) std::printf("# %s: no dcopy_ (%s); hqr only\n", lib, dlerror());
  const std::size_t count = std::size_t(n) * n, huge = std::size_t(2) << 20;
  const std::size_t bytes = (count * sizeof(double) + huge - 1) / huge * huge;
  const bool small_pages = std::getenv("HQR_BENCH_SMALL_PAGES") != nullptr;
  std::unique_ptr<double, decltype(&std::free)> a_mem(static_cast<double *>(std::aligned_alloc(huge, bytes)), std::free);
  if (!a_mem) {
    std::printf("# no memory for %zu bytes\n", bytes);
    return 1;
  }
  const bool advised = !small_pages && madvise(a_mem.get(), bytes, MADV_HUGEPAGE) == 0;
  double *const a = a_mem.get();
  std::vector<double> b(count);
  auto value = [](std::size_t k) { return double(k % 1000003) * 0.5; };
  for (std::size_t i = 0; i < count; ++i) a[i] = value(i);
  std::printf("# bench_blas1 n=%ld reps=%d, %u host threads: numpy's linearize (in: source a row apart) and "
              "delinearize (out: destination a row apart), seconds per pass of %ld dcopy calls, median; a %s\n",
              long(n), reps, std::thread::hardware_concurrency(), long(n),
              advised ? "madvise(MADV_HUGEPAGE) as numpy's" : "on the default pages (HQR_BENCH_SMALL_PAGES or madvise failed)");
  // What the kernel gave: the process's anonymous memory in huge pages.
  if (FILE *f = std::fopen("/proc/self/smaps_rollup", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, "AnonHugePages:", 14) == 0) std::printf("# %s", line);
    std::fclose(f);
  }
  const int threads = host_threads();  // the floor's: as many as hqr's pool
  for (bool in : {true, false}) {
    double best[2] = {0, 0};
    bool right = true;
    for (int who = 0; who < 2; ++who) {
      Copy *f = who == 0 ? dcopy_ : peer;
      if (!f) continue;
      best[who] = median_time(reps, [] {}, [&] { pass(f, in, n, a, b.data()); });
      if (who == 0) {  // hqr's result against the values a was filled with
        for (std::size_t j = 0; j < std::size_t(n) && right; ++j)
          for (std::size_t i = 0; i < std::size_t(n); ++i) {
            const std::size_t k = i * std::size_t(n) + j;  // a(i, j), row-major as numpy's
            if ((in ? b[j * std::size_t(n) + i] : a[k]) != value(k)) right = false;
          }
      }
    }
    const double fl = median_time(reps, [] {}, [&] { floor_pass(in, n, a, b.data(), threads); });
    std::printf("dcopy %-4s n=%-6ld | hqr %8.3f s (%6.1f us/call) | %s %8.3f s (x %5.2f) | floor %8.3f s (%d threads; "
                "hqr/floor %4.2f) | %s\n",
                in ? "in" : "out", long(n), best[0], best[0] / n * 1e6, peer ? "openblas" : "-", best[1],
                best[0] > 0 ? best[1] / best[0] : 0.0, fl, threads, best[0] / fl,
                right ? "hqr's copy checked" : "HQR'S COPY WRONG");
  }
  return 0;
}
