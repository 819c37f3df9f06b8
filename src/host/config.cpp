#include "config.hpp"

#include <atomic>
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

int env_device() {
  const char *v = std::getenv("HQR_DEVICE");
  if (!v || !*v) return kDeviceAuto;
  if (std::strcmp(v, "none") == 0 || std::strcmp(v, "cpu") == 0) return kDeviceNone;
  long d = env_long("HQR_DEVICE", kDeviceNone);
  return d >= 0 ? static_cast<int>(d) : kDeviceNone;
}

int env_panel() {
  const char *v = std::getenv("HQR_PANEL");
  if (v && std::strcmp(v, "cpu") == 0) return kPanelCpu;
  if (v && std::strcmp(v, "gpu") == 0) return kPanelGpu;
  if (v && std::strcmp(v, "cusolver") == 0) return kPanelCusolver;
  return kPanelAuto;
}

struct Settings {
  std::atomic<int> device{env_device()};
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

int device_request() { return settings().device.load(std::memory_order_relaxed); }
long gpu_min_n() { return settings().gpu_min_n.load(std::memory_order_relaxed); }
int panel() {
  static const int p = env_panel();
  return p;
}
int nb() { return settings().nb.load(std::memory_order_relaxed); }
int cpu_threads() { return settings().cpu_threads.load(std::memory_order_relaxed); }
bool verbose() { return verbose_level() > 0; }
int verbose_level() { return settings().verbose.load(std::memory_order_relaxed); }

void set_device_request(int ordinal) { settings().device.store(ordinal < 0 ? kDeviceNone : ordinal); }
void set_gpu_min_n(long n) { settings().gpu_min_n.store(n < 0 ? -1 : n); }
void set_nb(int nb) { settings().nb.store(nb > 0 ? nb : 0); }
void set_verbose(bool on) { settings().verbose.store(on ? 1 : 0); }

}  // namespace hqr::config
