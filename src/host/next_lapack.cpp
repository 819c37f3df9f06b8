#include "next_lapack.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "config.hpp"

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

// HQR_LAPACK's library, opened at the first lookup; nullptr when unset or
// when it cannot be opened (error then holds dlerror()'s words).
struct Override {
  std::string path;  // empty: HQR_LAPACK unset
  void *handle = nullptr;
  std::string error;
};
const Override &override_library() {
  static const Override o = [] {
    Override r;
    if (const char *path = std::getenv("HQR_LAPACK"); path && *path) {
      r.path = path;
      r.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (!r.handle) r.error = dlerror();
    }
    return r;
  }();
  return o;
}

// The fallback libraries, opened only when a name is found neither in pip's
// wheel nor after hqr in the link order: a process served by the wheel's
// OpenBLAS never loads the system's LAPACK (test/python_pkg.sh checks
// /proc/self/maps).
struct Fallbacks {
  void *handle[kNumFallbacks] = {};
};
const Fallbacks &fallback_libraries() {
  static const Fallbacks libs = [] {
    Fallbacks l;
    for (std::size_t i = 0; i < kNumFallbacks; ++i) l.handle[i] = dlopen(kFallbacks[i], RTLD_NOW | RTLD_LOCAL);
    return l;
  }();
  return libs;
}

void *lookup(void *handle, const char *name) {
  if (!handle) return nullptr;
  void *p = dlsym(handle, name);
  return (p && !in_hqr(p)) ? p : nullptr;
}

// pip's numpy and SciPy wheels carry their own OpenBLAS, every symbol named
// scipy_<name> (SciPy, LP64) or scipy_<name>64_ (numpy 2, ILP64). Where the
// one of this library's INTEGER size is loaded, hqr's CPU path calls it: the
// system LAPACK's calls between its own routines go by plain names, and with
// libhqr.so and libhqr64.so both preloaded (one process importing numpy and
// SciPy) those bind to the first of the two, of the other INTEGER size for
// libhqr64.so. The wheel's calls between its routines stay at its own names.
// ABI.md, "pip's numpy and SciPy".
#ifdef HQR_ILP64
constexpr const char kWheelSuffix[] = "64_";
#else
constexpr const char kWheelSuffix[] = "";
#endif

// The wheel's OpenBLAS among the loaded objects (a file name containing
// scipy_openblas that defines scipy_openblas_get_config<suffix>), or nullptr.
// Searched again on each call until found: numpy may be imported after
// hqr's first call.
void *find_wheel_library() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info *info, std::size_t, void *data) {
        const char *name = info->dlpi_name;
        if (name && std::strstr(name, "scipy_openblas"))
          static_cast<std::vector<std::string> *>(data)->emplace_back(name);
        return 0;
      },
      &names);
  const std::string marker = std::string("scipy_openblas_get_config") + kWheelSuffix;
  for (const std::string &name : names) {
    void *handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);  // loaded already: no loading, no constructor
    if (!handle) continue;
    Dl_info info{};
    void *p = dlsym(handle, marker.c_str());
    if (p && dladdr(p, &info) && info.dli_fname && std::strcmp(info.dli_fname, name.c_str()) == 0 && !in_hqr(p)) {
      if (config::verbose()) {
        char msg[512];
        int len = std::snprintf(msg, sizeof msg, "hqr: CPU path calls %s (scipy_*%s names of pip's wheel)\n",
                                name.c_str(), kWheelSuffix);
        if (len > 0) (void)!write(2, msg, static_cast<std::size_t>(len < (int)sizeof msg ? len : (int)sizeof msg - 1));
      }
      return handle;  // kept open: the wheel stays loaded with numpy or SciPy
    }
    dlclose(handle);
  }
  return nullptr;
}

void *wheel_library() {
  static std::atomic<void *> found{nullptr};
  void *h = found.load(std::memory_order_acquire);
  if (h) return h;
  h = find_wheel_library();
  if (!h) return nullptr;
  void *expected = nullptr;
  if (!found.compare_exchange_strong(expected, h)) {  // another thread found it first
    dlclose(h);
    return expected;
  }
  return h;
}

void *lookup_wheel(const char *name) {
  void *wheel = wheel_library();
  if (!wheel) return nullptr;
  const std::string prefixed = std::string("scipy_") + name + kWheelSuffix;
  return lookup(wheel, prefixed.c_str());
}

// Whether any library to forward to is there at all: pip's wheel, one after
// hqr in the link order, or one of the fallbacks.
bool any_next_library() {
  if (wheel_library() || lookup(RTLD_NEXT, "dpotrf_") || lookup(RTLD_NEXT, "dgemm_")) return true;
  for (void *h : fallback_libraries().handle)
    if (h) return true;
  return false;
}

// The message where there is none (a wheel's libhqr on a machine without a
// system LAPACK, before numpy or SciPy loaded their OpenBLAS).
#ifdef HQR_ILP64
constexpr const char kNoLapack[] =
    "hqr: %s: no LAPACK/BLAS to call: no OpenBLAS of pip's numpy (libscipy_openblas64_) is loaded and no "
    "liblapack64.so.3, libblas64.so.3 or libopenblas64.so.0 is installed; import numpy before the first call, "
    "install one (Debian/Ubuntu: apt install liblapack64-3 libopenblas64-0), or set HQR_LAPACK\n";
#else
constexpr const char kNoLapack[] =
    "hqr: %s: no LAPACK/BLAS to call: no OpenBLAS of pip's SciPy (libscipy_openblas) is loaded and no "
    "liblapack.so.3, libblas.so.3 or libopenblas.so.0 is installed; import scipy.linalg before the first call, "
    "install one (Debian/Ubuntu: apt install liblapack3 libopenblas0), or set HQR_LAPACK\n";
#endif

}  // namespace

void *next_symbol(const char *name) {
  if (const Override &o = override_library(); !o.path.empty()) return lookup(o.handle, name);
  if (void *p = lookup_wheel(name)) return p;
  if (void *p = lookup(RTLD_NEXT, name)) return p;
  for (void *h : fallback_libraries().handle)
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
  if (void *p = next_symbol(name)) return p;
  // One line: what is missing, and what would serve. Then the exit status of
  // the dynamic linker's own "symbol lookup error".
  char msg[640];
  const Override &o = override_library();
  if (!o.path.empty() && !o.handle)
    std::snprintf(msg, sizeof msg, "hqr: %s: HQR_LAPACK=%s cannot be loaded (%s)\n", name, o.path.c_str(),
                  o.error.c_str());
  else if (!o.path.empty())
    std::snprintf(msg, sizeof msg, "hqr: %s not found in HQR_LAPACK=%s\n", name, o.path.c_str());
  else if (any_next_library())
    std::snprintf(msg, sizeof msg, "hqr: %s not found in the system LAPACK/BLAS\n", name);
  else
    std::snprintf(msg, sizeof msg, kNoLapack, name);
  (void)!write(2, msg, std::strlen(msg));
  _exit(127);
}
}  // namespace next

}  // namespace hqr
