#include "next_lapack.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace hqr {
namespace {

// Libraries tried, in order, when RTLD_NEXT has no such symbol (hqr was
// dlopen()ed, or is itself the system's liblapack.so.3 or liblapack64.so.3,
// e.g. through scripts/register-alternative.sh: then that name is hqr and is
// skipped, and the real LAPACK is OpenBLAS's, or the reference one last).
// libhqr64.so must never reach a 32-bit INTEGER library.
#ifdef HQR_ILP64
constexpr const char *kFallbacks[] = {
    "liblapack64.so.3", "libblas64.so.3", "/usr/lib/x86_64-linux-gnu/openblas64-pthread/liblapack64.so.3",
    "/usr/lib/x86_64-linux-gnu/openblas64-pthread/libblas64.so.3", "libopenblas64.so.0",
    "/usr/lib/x86_64-linux-gnu/lapack64/liblapack64.so.3"};
#else
constexpr const char *kFallbacks[] = {
    "liblapack.so.3", "libblas.so.3", "/usr/lib/x86_64-linux-gnu/openblas-pthread/liblapack.so.3",
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3", "libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3"};
#endif
constexpr std::size_t kNumFallbacks = sizeof kFallbacks / sizeof kFallbacks[0];

// Base address of libhqr itself: a symbol found there is hqr's own export
// and must never be called as "the next LAPACK".
const void *own_base() {
  static const void *base = [] {
    Dl_info info{};
    dladdr(reinterpret_cast<void *>(&next_symbol), &info);
    return info.dli_fbase;
  }();
  return base;
}

// True when p lies in hqr: this library, or another copy of it (the one
// registered as the system's liblapack.so.3 is loaded beside a preloaded or
// -lhqr one). Every copy defines hqr_version; calling into another copy
// would check and trace the call twice.
bool in_hqr(void *p) {
  Dl_info info{};
  if (!dladdr(p, &info)) return false;
  if (info.dli_fbase == own_base()) return true;
  void *handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!handle) return false;
  Dl_info marker{};
  void *version = dlsym(handle, "hqr_version");  // searches the object first
  const bool hqr = version && dladdr(version, &marker) && marker.dli_fbase == info.dli_fbase;
  dlclose(handle);
  return hqr;
}

struct Libraries {
  void *override_handle = nullptr;  // HQR_LAPACK, when set
  void *fallback[kNumFallbacks] = {};
};

const Libraries &libraries() {
  static const Libraries libs = [] {
    Libraries l;
    if (const char *path = std::getenv("HQR_LAPACK"); path && *path)
      l.override_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    for (std::size_t i = 0; i < kNumFallbacks; ++i) l.fallback[i] = dlopen(kFallbacks[i], RTLD_NOW | RTLD_LOCAL);
    return l;
  }();
  return libs;
}

void *lookup(void *handle, const char *name) {
  if (!handle) return nullptr;
  void *p = dlsym(handle, name);
  return (p && !in_hqr(p)) ? p : nullptr;
}

}  // namespace

void *next_symbol(const char *name) {
  const Libraries &libs = libraries();
  if (libs.override_handle) return lookup(libs.override_handle, name);
  if (void *p = lookup(RTLD_NEXT, name)) return p;
  for (void *h : libs.fallback)
    if (void *p = lookup(h, name)) return p;
  return nullptr;
}

const char *next_library_description() {
  static const std::string desc = [] {
    const char *path = std::getenv("HQR_LAPACK");
    if (path && *path) return std::string(path);
    // Name the library that actually serves dpotrf_.
    Dl_info info{};
    void *p = next_symbol("dpotrf_");
    return std::string((p && dladdr(p, &info) && info.dli_fname) ? info.dli_fname : "none");
  }();
  return desc.c_str();
}

namespace next {
void *require(const char *name) {
  void *p = next_symbol(name);
  if (!p) {
    // The dynamic linker would stop the program the same way.
    char msg[160];
    int len = std::snprintf(msg, sizeof msg, "hqr: %s not found in the system LAPACK/BLAS\n", name);
    if (len > 0) (void)!write(2, msg, static_cast<std::size_t>(len));
    std::abort();
  }
  return p;
}
}  // namespace next

}  // namespace hqr
