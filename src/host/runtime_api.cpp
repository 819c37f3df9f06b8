// hqr's own small API (hqr.h): version, serving devices, settings, path counters.
#include "common.hpp"
#include "config.hpp"

#ifndef HQR_VERSION
#define HQR_VERSION "0.1.0"
#endif

namespace hqr {
// The GPU side answers these; builds without CUDA have no device.
int serving_device();
int serving_device_count();
const char *serving_device_name();
long path_count(char path);  // trace.cpp
long device_count_calls(int ordinal);
}  // namespace hqr

extern "C" {
const char *hqr_version(void) { return HQR_VERSION; }
int hqr_device(void) { return hqr::serving_device(); }
const char *hqr_device_name(void) { return hqr::serving_device_name(); }
int hqr_device_count(void) { return hqr::serving_device_count(); }
void hqr_set_device(int ordinal) {
  hqr::config::set_device_mask(ordinal < 0 || ordinal > hqr::config::kMaxOrdinal ? 0 : std::uint64_t(1) << ordinal);
}
int hqr_set_devices(const char *list) {
  hqr::config::Devices d;
  if (!list || !hqr::config::parse_devices(list, &d)) return -1;
  hqr::config::set_devices(d);
  return 0;
}
long hqr_path_calls(char path) { return hqr::path_count(path); }
long hqr_device_calls(int ordinal) { return hqr::device_count_calls(ordinal); }
void hqr_set_gpu_min_n(long n) { hqr::config::set_gpu_min_n(n); }
void hqr_set_verbose(int on) { hqr::config::set_verbose(on != 0); }
void hqr_set_nb(int nb) { hqr::config::set_nb(nb); }
void hqr_set_cpu_threads(int n) { hqr::config::set_cpu_threads(n); }
}
