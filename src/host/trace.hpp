// HQR_VERBOSE=1: one line per call on stderr, written when the call returns:
//   hqr: dpotrf uplo=L n=500 lda=512 path=cpu time=0.00123s 34.0 GFLOP/s
// Every call also counts in the path counters (hqr_path_calls,
// hqr_device_calls), verbose or not.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "common.hpp"

namespace hqr {

class Trace {
 public:
  // True while one of hqr's routines runs on this thread: a BLAS call that
  // arrives then comes from the next LAPACK that hqr's CPU path called.
  static bool active();
  // True inside a call that an hqr routine's CPU path made: the next
  // LAPACK's dpotri calling dtrtri_ and dlauum_, which resolve to hqr's.
  static bool nested();
  // While one lives, the calls this thread's current hqr routine makes
  // itself (xGELSD's xGEQRF and xORMQR) count as the caller's own, not as
  // nested ones: their CPU time counts toward starting the GPU.
  class Direct {
   public:
    Direct();
    ~Direct();
    Direct(const Direct &) = delete;
    Direct &operator=(const Direct &) = delete;

   private:
    int saved_;
  };
  // The path of the last call made directly inside this thread's current
  // one by hqr's own code (xGELSD's xGEQRF): "cpu" before any.
  static const char *last_nested_path();

  // `flops` uses LAPACK's operation counts (flops.hpp).
  Trace(const RoutineName &name, double flops);
  ~Trace();
  Trace(const Trace &) = delete;
  Trace &operator=(const Trace &) = delete;

  bool on() const { return on_; }
  // printf-style description of the arguments ("uplo=L n=500 lda=512").
  template <class... A> void args(const char *fmt, A... a) {
    if (on_) std::snprintf(args_, sizeof args_, fmt, a...);
  }
  // Which path ran and, when it is not the preferred one, why.
  void path(const char *path, const char *why = nullptr) {
    path_ = path;
    why_ = why;
  }
  // The GPUs that did work (a mask of ordinals); a GPU path that names
  // none ran on the first GPU of the set.
  void devices(std::uint64_t mask) { devices_ = mask; }

 private:
  bool on_;
  char name_[24];
  double flops_;
  char args_[160] = "";
  const char *path_ = "cpu";
  const char *why_ = nullptr;
  std::uint64_t devices_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// HQR_VERBOSE=2: the seconds from the object's birth at each step of a GPU
// path, printed in one line,
//   hqr: dqrupd_addcols_econ phases (s from start), uploaded 0.0415, ...
// by print(routine), or when it dies if it was given the routine's name.
class Phases {
 public:
  explicit Phases(const char *routine = nullptr);
  ~Phases();
  Phases(const Phases &) = delete;
  Phases &operator=(const Phases &) = delete;
  bool on() const { return on_; }
  void mark(const char *what);
  void print(const char *routine) const;

 private:
  bool on_;
  char routine_[32] = "";
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::vector<std::pair<const char *, double>> marks_;
};

}  // namespace hqr
