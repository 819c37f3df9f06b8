#include "dispatch.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "config.hpp"
#include "crossover.hpp"
#include "cuda/gpu.hpp"
#include "trace.hpp"

namespace hqr {

const char *serving_device_name();

namespace {

// No GPU path pays below this order: the transfers and launches alone cost
// more than the CPU's whole factorization (measured on the H200 host:
// potrf's one trip through cuSOLVER beats the CPU from 256,
// bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-25.txt).
constexpr long kMinGpuOrder = 256;
// A caller whose array lies in pinned memory skips the staging copies, a
// large share of the GPU path's time near the crossovers (H200, dpotrf L
// 256: hqr's one trip 0.33 ms through the staging against 0.16 for
// cuSOLVER on a pinned buffer, bench/results/potrf-NVIDIA-H200-2026-11-26b.txt):
// its crossover is taken as this fraction of the measured (or shipped) one,
// never below kMinGpuOrder. So it moves only where the crossover lies above
// the smallest order (H200: the QR family's 384 to 256; potrf and the
// inverses stay at 256). At 0.75 (384 to 288) a pinned dgeqrf and dgels of
// 256 stayed on the CPU, 1.3-2.6 ms against cuSOLVER's 0.7-0.8 on the same
// pinned buffer (bench/results/history/pinned-NVIDIA-H200-2026-11-28.txt).
// Only calls in between ask the driver (pinned.hpp).
constexpr double kPinnedCrossover = 0.6;
// The crossover is searched on these orders; past the last one the CPU is
// never faster on a machine that has a data-centre GPU.
constexpr long kProbeOrders[] = {256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192};

// What starting the GPU side costs a process, estimated: the driver, a CUDA
// context, the handles and the pinned staging took 0.30-0.53 s on the H200
// host in a fresh process (bench/results/history/first-call-NVIDIA-H200-2026-11-28.txt).
// While it is not done, a call shorter than what is left of it on the CPU
// runs there; its remainder is never taken below kStartFloor, so a start
// that runs long still lets the short calls through.
constexpr double kStartSeconds = 0.35, kStartFloor = 0.05;
// The CPU LAPACK's rate per core in double (single: twice), for the
// estimate above: OpenBLAS's first dpotrf of order 4096 on 16 cores of the
// H200 host took 0.087-0.094 s (15.9 GFLOP/s a core), the same file.
constexpr double kCoreRate = 16e9;

const char *key(Routine r) {
  switch (r) {
    case Routine::potrf:
      return "potrf";
    case Routine::trtri:
      return "trtri";
    case Routine::lauum:
      return "lauum";
    case Routine::potri:
      return "potri";
    case Routine::geqrf:
      return "geqrf";
  }
  return "?";
}

// LAPACK's flop count of a routine of order n (geqrf: the square QR).
double flops_of(Routine r, char prec, long n) {
  const double n3 = double(n) * n * n, complex = (prec == 'c' || prec == 'z') ? 4 : 1;
  switch (r) {
    case Routine::potri:
      return complex * 2 * n3 / 3;
    case Routine::geqrf:
      return complex * 4 * n3 / 3;
    default:
      return complex * n3 / 3;
  }
}

long host_cores() { return std::max(1L, long(sysconf(_SC_NPROCESSORS_ONLN))); }

class Crossovers {
 public:
  // The crossover of (r, prec): cached, shipped or generic; measured with
  // `probe` only where HQR_CALIBRATE=1 asks and no cache file holds it.
  long get(Routine r, char prec, Probe probe) {
    std::lock_guard<std::mutex> g(lock_);
    if (!loaded_) load();
    const std::string k = crossover::key(key(r), prec);
    if (auto it = known_.find(k); it != known_.end()) return it->second.n;
    if (config::calibrate_on_call() && probe) return measure_locked(k, probe);
    const crossover::Entry e = crossover::shipped(serving_device_name(), key(r), prec, host_cores());
    known_[k] = e;
    if (config::verbose())
      std::fprintf(stderr, "hqr: %s crossover n=%ld: %s for %s (hqr-calibrate measures it)\n", k.c_str(), e.n,
                   crossover::source_name(e.source), serving_device_name());
    return e.n;
  }

  long measure(Routine r, char prec, Probe probe) {
    std::lock_guard<std::mutex> g(lock_);
    if (!loaded_) load();
    return measure_locked(crossover::key(key(r), prec), probe);
  }

  bool written() {
    std::lock_guard<std::mutex> g(lock_);
    return written_;
  }

 private:
  void load() {
    loaded_ = true;
    path_ = crossover::cache_path(serving_device_name());
    for (const auto &[k, n] : crossover::read(path_)) {
      known_[k] = {n, crossover::Source::cached};
      if (config::verbose())
        std::fprintf(stderr, "hqr: %s crossover n=%ld: %s %s\n", k.c_str(), n,
                     crossover::source_name(crossover::Source::cached), path_.c_str());
    }
  }

  long measure_locked(const std::string &k, Probe probe) {
    const long n = measure_with(probe);
    known_[k] = {n, crossover::Source::measured};
    // The file holds measurements only: what this process or an earlier
    // one measured, never a default.
    std::map<std::string, long> measured;
    for (const auto &[key, e] : known_)
      if (e.source == crossover::Source::cached || e.source == crossover::Source::measured) measured[key] = e.n;
    written_ = crossover::write(path_, measured);
    if (config::verbose())
      std::fprintf(stderr, "hqr: calibrated %s crossover n=%ld on %s (cached in %s)\n", k.c_str(), n,
                   serving_device_name(), written_ ? path_.c_str() : "memory only");
    return n;
  }

  // The smallest probed order at which the GPU path beats the CPU (best of
  // two runs each after a warm-up of both).
  static long measure_with(Probe probe) {
    probe(Path::gpu, kMinGpuOrder);
    probe(Path::cpu, kMinGpuOrder);
    for (long n : kProbeOrders) {
      const double gpu = std::min(probe(Path::gpu, n), probe(Path::gpu, n));
      const double cpu = std::min(probe(Path::cpu, n), probe(Path::cpu, n));
      if (gpu < cpu) return n;
    }
    return kProbeOrders[std::size(kProbeOrders) - 1] * 3 / 2;
  }

  std::mutex lock_;
  bool loaded_ = false, written_ = false;
  std::string path_;
  std::map<std::string, crossover::Entry> known_;
};

Crossovers &crossovers() {
  static Crossovers c;
  return c;
}

// CPU seconds of the calls the GPU would have served had it been started,
// in microseconds: once they reach kStartSeconds, the start begins.
std::atomic<long> cpu_spent_us{0};

GpuGate wait_for_gpu() { return gpu::available() ? GpuGate{true, nullptr} : GpuGate{false, "no GPU"}; }

}  // namespace

double cpu_seconds(double flops, char prec) {
  long threads = host_cores();
  for (const char *v : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"})
    if (const char *e = std::getenv(v); e && std::atol(e) > 0) {
      threads = std::min(threads, std::atol(e));
      break;
    }
  const double rate = kCoreRate * double(threads) * (prec == 's' || prec == 'c' ? 2 : 1);
  return flops / rate;
}

GpuGate gpu_gate(double cpu_s) {
  if (config::gpu_min_n() >= 0 || config::gpu_start() == config::kStartCall) return wait_for_gpu();
  const gpu::StartState s = gpu::startup();
  switch (s.state) {
    case gpu::Startup::off:
      return {false, "no GPU"};
    case gpu::Startup::ready:
      return {true, nullptr};
    case gpu::Startup::starting:
      if (cpu_s > std::max(kStartSeconds - s.seconds, kStartFloor)) return wait_for_gpu();
      return {false, "the GPU is starting; quicker on the CPU than waiting"};
    case gpu::Startup::cold:
      break;
  }
  // Longer on the CPU than the start costs: start and wait (in this thread).
  if (cpu_s > kStartSeconds) return wait_for_gpu();
  // A call from inside the CPU path of an hqr routine (the next LAPACK's
  // dpotri calls dtrtri_ and dlauum_) is part of a call already counted:
  // counted again, a first dpotri of 4096 started the GPU in its own
  // middle, and the start's threads slowed it from 0.135 to 0.32 s (H200
  // host, bench_first_call).
  if (Trace::nested()) return {false, "the GPU is not started; quicker on the CPU than starting it"};
  const long spent = cpu_spent_us.fetch_add(long(cpu_s * 1e6)) + long(cpu_s * 1e6);
  if (spent >= long(kStartSeconds * 1e6)) gpu::start();
  return {false, "the GPU is not started; quicker on the CPU than starting it"};
}

namespace {
thread_local bool cpu_only = false;
constexpr const char *kCpuOnly = "inside a call with NaN or Inf";
}  // namespace
CpuOnly::CpuOnly(bool on) : saved_(cpu_only) { cpu_only = cpu_only || on; }
CpuOnly::~CpuOnly() { cpu_only = saved_; }

Decision choose_path(Routine r, char prec, long n, Probe probe, const void *a, std::size_t bytes) {
  if (cpu_only) return {Path::cpu, kCpuOnly};
  const long forced = config::gpu_min_n();
  if (forced >= 0 && n < forced) return {Path::cpu, "below HQR_GPU_MIN_N"};
  if (forced < 0 && n < kMinGpuOrder) return {Path::cpu, "too small for the GPU"};
  const GpuGate g = gpu_gate(cpu_seconds(flops_of(r, prec, n), prec));
  if (!g.open) return {Path::cpu, g.why};
  if (forced < 0) {
    const long crossover = crossovers().get(r, prec, probe);
    const bool pinned_window = a && n >= std::max(kMinGpuOrder, long(double(crossover) * kPinnedCrossover));
    if (n < crossover && !(pinned_window && gpu::caller_pinned(a, bytes))) return {Path::cpu, "below the GPU crossover"};
  }
  return {Path::gpu, nullptr};
}

Decision choose_fixed_path(long n, long min_n, double cpu_s) {
  if (cpu_only) return {Path::cpu, kCpuOnly};
  const long forced = config::gpu_min_n();
  if (forced >= 0 && n < forced) return {Path::cpu, "below HQR_GPU_MIN_N"};
  if (forced < 0 && n < min_n) return {Path::cpu, "below the GPU crossover"};
  const GpuGate g = gpu_gate(cpu_s);
  if (!g.open) return {Path::cpu, g.why};
  return {Path::gpu, nullptr};
}

long measure_crossover(Routine r, char prec, Probe probe) {
  if (!gpu::available()) return -1;
  return crossovers().measure(r, prec, probe);
}

bool crossover_cache_written() { return crossovers().written(); }

}  // namespace hqr

namespace hqr {

// The model, fitted to one H200 and its host's OpenBLAS 0.3.21 on 16 cores
// (bench/results/blas3-dispatch-NVIDIA-H200-2026-12-03.txt): the CPU's
// dgemm runs at about 40 GFLOP/s a core up to 1.2 TFLOP/s (0.55-0.63
// TFLOP/s on 16 cores; 1.0-1.15 on the 64 cores of the x4 hosts), less where
// the shape is skinny: a result with 64 rows or columns at a quarter of
// that (113-169 GFLOP/s), a sum over k = 64 at two thirds (412-466). The
// GPU path costs 0.8 ms to start plus the larger of its transfers through
// the staging (43-54 GB/s measured on large calls: 40 taken) and its
// compute: at 512^3 it took 0.9 (s), 1.1 (c) and 1.2 ms (z), of which the
// transfers at 40 GB/s explain 0.1-0.4 (with 0.6 ms cgemm 512^3 went to
// the GPU at 0.75x OpenBLAS's time; s/c/z in
// bench/results/blas3-dispatch-scz-NVIDIA-H200-2026-12-04.txt). Each is
// conservative toward the CPU where the two are close.
Decision choose_blas3_path(char prec, double flops, double bytes, Dims dims) {
  if (cpu_only) return {Path::cpu, kCpuOnly};
  const long min_dim = std::min(dims.outer, dims.inner);
  const long forced = config::gpu_min_n();
  if (forced >= 0 && min_dim < forced) return {Path::cpu, "below HQR_GPU_MIN_N"};
  // The cost model before gpu::available(), which takes the device
  // contexts' lock: small calls from many threads never touch it.
  if (forced < 0) {
    static const double cores = std::max(1u, std::thread::hardware_concurrency());
    const bool single = prec == 's' || prec == 'c';
    const double cpu_peak = std::min(cores * 40e9, 1.2e12) * (single ? 2 : 1);  // flop/s, all cores
    const double shape = std::min(1.0, double(dims.outer) / 256) * std::min(1.0, double(dims.inner) / 96);
    const double gpu_rate = 40e12;  // flop/s, one GPU (TF32 is not used for s/c)
    const double link = 40e9;       // byte/s, pageable staging in and out
    const double setup = 8e-4;      // s, launches, pinned staging and synchronization
    const double cpu = flops / (cpu_peak * shape);
    const double gpu = setup + std::max(bytes / link, flops / gpu_rate);
    if (min_dim < 64 || gpu >= cpu) return {Path::cpu, "the CPU is faster for this shape"};
  }
  if (!gpu::available()) return {Path::cpu, "no GPU"};
  return {Path::gpu, nullptr};
}

}  // namespace hqr
