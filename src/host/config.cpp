#include "config.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common.hpp"

namespace hqr::config {
namespace {

long env_long(const char *name, long fallback) {
  const char *v = std::getenv(name);
  if (!v || !*v) return fallback;
  char *end = nullptr;
  long x = std::strtol(v, &end, 10);
  return (end && *end == '\0') ? x : fallback;
}

// An unreadable HQR_DEVICE serves no GPU, and says so once.
Devices env_devices() {
  const char *v = std::getenv("HQR_DEVICE");
  Devices d;
  if (v && *v && !parse_devices(v, &d)) {
    std::fprintf(stderr,
                 "hqr: HQR_DEVICE=%s is not 'all', 'none', 'local-rank' or a list of GPU ordinals 0-%d: the CPU serves calls\n",
                 v, kMaxOrdinal);
    d = Devices{0, -1};
  }
  return d;
}

// "8G", "512M", "1T", "4096K" or plain bytes; 0 when unset or unreadable.
std::size_t env_bytes(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v) return 0;
  char *end = nullptr;
  const double x = std::strtod(v, &end);
  if (!end || end == v || x < 0) return 0;
  double scale = 1;
  switch (*end) {
    case 'k': case 'K': scale = 1024.0; ++end; break;
    case 'm': case 'M': scale = 1024.0 * 1024; ++end; break;
    case 'g': case 'G': scale = 1024.0 * 1024 * 1024; ++end; break;
    case 't': case 'T': scale = 1024.0 * 1024 * 1024 * 1024; ++end; break;
    default: break;
  }
  if (*end == 'i' || *end == 'I') ++end;  // "8GiB"
  if (*end == 'b' || *end == 'B') ++end;
  return *end == '\0' ? static_cast<std::size_t>(x * scale) : 0;
}

int env_panel() {
  const char *v = std::getenv("HQR_PANEL");
  if (v && std::strcmp(v, "cpu") == 0) return kPanelCpu;
  if (v && std::strcmp(v, "gpu") == 0) return kPanelGpu;
  if (v && std::strcmp(v, "cusolver") == 0) return kPanelCusolver;
  return kPanelAuto;
}

// HQR_DEVICE as two words: a reader loads rank, then mask; set_devices
// stores mask, then rank, so a reader sees the old setting or the new one.
struct DeviceWords {
  std::atomic<std::uint64_t> mask;
  std::atomic<int> rank;
  explicit DeviceWords(const Devices &d) : mask(d.mask), rank(d.rank) {}
};

int env_gpu_start() {
  const char *v = std::getenv("HQR_GPU_START");
  if (v && std::strcmp(v, "load") == 0) return kStartLoad;
  if (v && std::strcmp(v, "call") == 0) return kStartCall;
  return kStartAuto;
}

struct Settings {
  DeviceWords devices{env_devices()};
  const std::size_t gpu_memory = env_bytes("HQR_GPU_MEMORY");
  const int replicas = static_cast<int>(std::min<long>(8, std::max<long>(1, env_long("HQR_DEVICE_REPLICAS", 1))));
  std::atomic<long> gpu_min_n{env_long("HQR_GPU_MIN_N", -1)};
  std::atomic<int> nb{static_cast<int>(env_long("HQR_NB", 0))};
  std::atomic<int> cpu_threads{static_cast<int>(env_long("HQR_CPU_THREADS", 0))};
  std::atomic<int> verbose{static_cast<int>(env_long("HQR_VERBOSE", 0))};
};

Settings &settings() {
  static Settings s;
  return s;
}

}  // namespace

int local_rank() {
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
    const char *v = std::getenv(name);
    if (!v || *v < '0' || *v > '9') continue;
    char *end = nullptr;
    const long r = std::strtol(v, &end, 10);
    if (*end == '\0' && r <= 1000000) return static_cast<int>(r);
  }
  return -1;
}

bool parse_devices(const char *text, Devices *out) {
  if (std::strcmp(text, "all") == 0) {
    *out = Devices{kDevicesAll, -1};
    return true;
  }
  if (std::strcmp(text, "none") == 0 || std::strcmp(text, "cpu") == 0) {
    *out = Devices{0, -1};
    return true;
  }
  if (std::strcmp(text, "local-rank") == 0) {
    *out = Devices{kDevicesAll, local_rank()};  // no rank: "all"
    return true;
  }
  std::uint64_t m = 0;
  const char *p = text;
  for (;;) {
    if (*p < '0' || *p > '9') return false;  // strtol would take " 0" and "+0"
    char *end = nullptr;
    const long d = std::strtol(p, &end, 10);
    if (end == p || d > kMaxOrdinal) return false;
    m |= std::uint64_t(1) << d;
    if (*end == '\0') break;
    if (*end != ',') return false;
    p = end + 1;
  }
  *out = Devices{m, -1};
  return true;
}

std::uint64_t device_mask(const Devices &d, int visible) {
  if (d.rank < 0) return d.mask;
  if (visible <= 0) return 0;
  return std::uint64_t(1) << (d.rank % std::min(visible, kMaxOrdinal + 1));
}

std::uint64_t device_mask(int visible) {
  Devices d;
  d.rank = settings().devices.rank.load();
  d.mask = settings().devices.mask.load();
  return device_mask(d, visible);
}

std::size_t gpu_memory() { return settings().gpu_memory; }
int device_replicas() { return settings().replicas; }
long gpu_min_n() { return settings().gpu_min_n.load(std::memory_order_relaxed); }
int panel() {
  static const int p = env_panel();
  return p;
}
int gpu_start() {
  static const int s = env_gpu_start();
  return s;
}
bool calibrate_on_call() {
  static const bool on = env_long("HQR_CALIBRATE", 0) > 0;
  return on;
}
int nb() { return settings().nb.load(std::memory_order_relaxed); }
int cpu_threads() { return settings().cpu_threads.load(std::memory_order_relaxed); }
bool verbose() { return verbose_level() > 0; }
int verbose_level() { return settings().verbose.load(std::memory_order_relaxed); }

void set_devices(const Devices &d) {
  settings().devices.mask.store(d.mask);
  settings().devices.rank.store(d.rank);
}
void set_device_mask(std::uint64_t mask) { set_devices(Devices{mask, -1}); }
void set_gpu_min_n(long n) { settings().gpu_min_n.store(n < 0 ? -1 : n); }
void set_nb(int nb) { settings().nb.store(nb > 0 ? nb : 0); }
void set_cpu_threads(int n) { settings().cpu_threads.store(n > 0 ? n : 0); }
void set_verbose(bool on) { settings().verbose.store(on ? 1 : 0); }

}  // namespace hqr::config
