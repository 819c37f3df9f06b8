#include "dispatch.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <sys/stat.h>

#include "config.hpp"
#include "cuda/gpu.hpp"

namespace hqr {

int serving_device();
const char *serving_device_name();

namespace {

// No GPU path pays below this order: the transfers and launches alone cost
// more than the CPU's whole factorization (measured on the H200 host:
// potrf's one trip through cuSOLVER beats the CPU from 256,
// bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-25.txt).
constexpr long kMinGpuOrder = 256;
// The crossover is searched on these orders; past the last one the CPU is
// never faster on a machine that has a data-centre GPU.
constexpr long kProbeOrders[] = {256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192};

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

// The measurement belongs to this GPU, this host, the CPU LAPACK's
// settings and the GPU paths as they were measured: the cache file's name
// carries a hash of all of them. kCalibration names the GPU paths' speed
// near the crossover: change it (a new date) with any change to that speed,
// so that crossovers measured with older code are measured again. The
// current value is the one trip of geqrf and gels on hqr's small geqrf
// (panel_qr.cuh); git log -S kCalibration lists the earlier ones.
constexpr const char *kCalibration = "2026-11-27b";
std::string cache_path() {
  std::string dir;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
    dir = x;
  else if (const char *h = std::getenv("HOME"); h && *h)
    dir = std::string(h) + "/.cache";
  else
    return "";
  dir += "/hqr";
  std::string id = std::string(HQR_VERSION) + "|" + kCalibration + "|" + serving_device_name() + "|" +
                   std::to_string(sysconf(_SC_NPROCESSORS_ONLN));
  for (const char *v : {"OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "HQR_PANEL", "HQR_NB"}) {
    const char *e = std::getenv(v);
    id += std::string("|") + (e ? e : "");
  }
  char name[64];
  std::snprintf(name, sizeof name, "/crossover-%016zx.txt", std::hash<std::string>{}(id));
  return dir + name;
}

class Crossovers {
 public:
  // The crossover of (r, prec), measured with `probe` if unknown.
  long get(Routine r, char prec, Probe probe) {
    std::lock_guard<std::mutex> g(lock_);
    if (!loaded_) load();
    const std::string k = std::string(key(r)) + " " + prec;
    auto it = known_.find(k);
    if (it != known_.end()) return it->second;
    const long n = measure(probe);
    known_[k] = n;
    save();
    if (config::verbose())
      std::fprintf(stderr, "hqr: calibrated %s crossover n=%ld on %s (cached in %s)\n", k.c_str(), n,
                   serving_device_name(), path_.empty() ? "memory only" : path_.c_str());
    return n;
  }

 private:
  void load() {
    loaded_ = true;
    path_ = cache_path();
    if (path_.empty()) return;
    if (FILE *f = std::fopen(path_.c_str(), "r")) {
      char routine[16], prec;
      long n;
      while (std::fscanf(f, "%15s %c %ld", routine, &prec, &n) == 3) known_[std::string(routine) + " " + prec] = n;
      std::fclose(f);
    }
  }

  // Written whole to a temporary file and renamed, so that concurrent
  // processes never see half a file.
  void save() {
    if (path_.empty()) return;
    const std::string dir = path_.substr(0, path_.rfind('/'));
    mkdir(dir.substr(0, dir.rfind('/')).c_str(), 0700);
    mkdir(dir.c_str(), 0700);
    const std::string tmp = path_ + "." + std::to_string(getpid());
    FILE *f = std::fopen(tmp.c_str(), "w");
    if (!f) return;
    for (const auto &[k, n] : known_) std::fprintf(f, "%s %ld\n", k.c_str(), n);
    if (std::fclose(f) != 0 || std::rename(tmp.c_str(), path_.c_str()) != 0) std::remove(tmp.c_str());
  }

  // The smallest probed order at which the GPU path beats the CPU (best of
  // two runs each after a warm-up of both).
  static long measure(Probe probe) {
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
  bool loaded_ = false;
  std::string path_;
  std::map<std::string, long> known_;
};

}  // namespace

Decision choose_path(Routine r, char prec, long n, Probe probe) {
  const long forced = config::gpu_min_n();
  if (forced >= 0 && n < forced) return {Path::cpu, "below HQR_GPU_MIN_N"};
  if (forced < 0 && n < kMinGpuOrder) return {Path::cpu, "too small for the GPU"};
  if (!gpu::available()) return {Path::cpu, "no GPU"};
  if (forced < 0) {
    static Crossovers crossovers;
    if (n < crossovers.get(r, prec, probe)) return {Path::cpu, "below the measured GPU crossover"};
  }
  return {Path::gpu, nullptr};
}

}  // namespace hqr

namespace hqr {

// First version of the model, from the measured rates (H100 host): the GPU
// path costs its setup plus the larger of its link time and its compute
// time (the two overlap), the CPU its compute time alone. The rates are
// conservative so that the CPU keeps what it does as fast.
Decision choose_blas3_path(char prec, double flops, double bytes, long min_dim) {
  const long forced = config::gpu_min_n();
  if (forced >= 0 && min_dim < forced) return {Path::cpu, "below HQR_GPU_MIN_N"};
  // The cost model before gpu::available(), which takes the device
  // contexts' lock: small calls from many threads never touch it.
  if (forced < 0) {
    const bool single = prec == 's' || prec == 'c';
    const double cpu_rate = single ? 2.0e12 : 1.0e12;   // flop/s, the host's BLAS on all cores
    const double gpu_rate = single ? 40e12 : 40e12;     // flop/s, one GPU (TF32 is not used for s/c)
    const double link = 20e9;                           // byte/s, pageable staging in and out
    const double setup = 2e-4;                          // s, launches and synchronization
    const double cpu = flops / cpu_rate;
    const double gpu = setup + std::max(bytes / link, flops / gpu_rate);
    if (min_dim < 64 || gpu >= cpu) return {Path::cpu, "the CPU is faster for this shape"};
  }
  if (!gpu::available()) return {Path::cpu, "no GPU"};
  return {Path::gpu, nullptr};
}

}  // namespace hqr
