// hqr's own small API (hqr.h): version, serving device, settings.
#include "common.hpp"
#include "config.hpp"

#ifndef HQR_VERSION
#define HQR_VERSION "0.1.0"
#endif

namespace hqr {
// The GPU side answers these; builds without CUDA have no device.
int serving_device();
const char *serving_device_name();
}  // namespace hqr

extern "C" {
const char *hqr_version(void) { return HQR_VERSION; }
int hqr_device(void) { return hqr::serving_device(); }
const char *hqr_device_name(void) { return hqr::serving_device_name(); }
void hqr_set_device(int ordinal) { hqr::config::set_device_request(ordinal); }
void hqr_set_gpu_min_n(long n) { hqr::config::set_gpu_min_n(n); }
void hqr_set_verbose(int on) { hqr::config::set_verbose(on != 0); }
void hqr_set_nb(int nb) { hqr::config::set_nb(nb); }
}
