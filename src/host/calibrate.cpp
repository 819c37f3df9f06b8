// hqr_calibrate(): measures the crossover of every routine and precision
// that has a GPU path on the GPU that serves calls, and caches it
// (crossover.hpp) for every later process on this GPU and host. The
// program tools/hqr_calibrate.cpp (hqr-calibrate) calls it.
#include <complex>

#include "calibrate.hpp"
#include "common.hpp"
#include "inverse.hpp"
#include "qr_dispatch.hpp"

namespace hqr {
namespace {

template <class T, Routine R> double inverse_probe(Path path, long n) { return probe_inverse<T>(R, path, n); }

template <class T> bool measure_all() {
  constexpr char p = Prec<T>::letter;
  return measure_crossover(Routine::potrf, p, potrf_probe<T>) >= 0 &&
         measure_crossover(Routine::trtri, p, inverse_probe<T, Routine::trtri>) >= 0 &&
         measure_crossover(Routine::lauum, p, inverse_probe<T, Routine::lauum>) >= 0 &&
         measure_crossover(Routine::potri, p, inverse_probe<T, Routine::potri>) >= 0 &&
         measure_crossover(Routine::geqrf, p, qr_probe<T>) >= 0;
}

}  // namespace
}  // namespace hqr

extern "C" int hqr_calibrate(void) {
  using namespace hqr;
  if (!measure_all<float>() || !measure_all<double>() || !measure_all<std::complex<float>>() ||
      !measure_all<std::complex<double>>())
    return -1;
  return crossover_cache_written() ? 0 : -2;
}
