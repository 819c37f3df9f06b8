// hqr-calibrate: measures where each routine's GPU path starts to pay on
// this machine's GPU (hqr_calibrate(), include/hqr.h) and caches it, so that
// no later process measures anything inside a call. Run it once per
// machine, user and setting that changes the CPU LAPACK's speed
// (OPENBLAS_NUM_THREADS, ...); without it hqr uses the defaults shipped for
// the GPU model (ABI.md, "The crossover").
//
//   hqr-calibrate        measure, print each crossover and the cache file
//   hqr-calibrate -q     measure, print nothing
// Exit status: 0 measured and cached; 1 no GPU serves calls; 2 measured but
// the cache file could not be written; 64 a bad argument.
#include <cstdio>
#include <cstring>

#include <hqr.h>

int main(int argc, char **argv) {
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-q") == 0) {
      quiet = true;
    } else {
      std::fprintf(stderr, "usage: %s [-q]\n", argv[0]);
      return 64;
    }
  }
  hqr_set_verbose(quiet ? 0 : 1);
  const int rc = hqr_calibrate();
  hqr_set_verbose(0);
  if (quiet) return rc == 0 ? 0 : rc == -1 ? 1 : 2;
  if (rc == 0) {
    std::printf("hqr-calibrate: crossovers measured on %s and cached\n", hqr_device_name());
    return 0;
  }
  if (rc == -1) {
    std::fprintf(stderr, "hqr-calibrate: no GPU serves calls (HQR_DEVICE, driver, or a build without CUDA): nothing to measure\n");
    return 1;
  }
  std::fprintf(stderr, "hqr-calibrate: measured on %s, but the cache file could not be written (XDG_CACHE_HOME, HOME)\n",
               hqr_device_name());
  return 2;
}
