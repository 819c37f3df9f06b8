#include "cuda/cuda_libs.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "host/config.hpp"

// The generated table (scripts/gen-cuda-stubs.sh): one entry per cuBLAS or
// cuSOLVER function the GPU code calls, the trampoline of that name jumping
// through it; the names in table order, then the libraries' SONAMEs, each
// NUL-terminated.
extern "C" {
extern void *hqr_cuda_entries[];
extern const unsigned hqr_cuda_entry_count;
extern const char hqr_cuda_entry_names[];
extern const char hqr_cuda_library_names[];

// Where every entry points before the libraries are bound. Every call into
// them comes after a context exists (create() binds first), so this is a
// bug, stopped with one line rather than a jump through nothing.
__attribute__((visibility("hidden"))) void hqr_cuda_not_loaded() {
  static const char msg[] = "hqr: internal error: a cuBLAS/cuSOLVER function was called before they were loaded\n";
  (void)!write(2, msg, sizeof msg - 1);
  std::abort();
}
}

namespace hqr::gpu {

namespace {

char load_error[240] = "";

const char *load_once() {
  const auto start = std::chrono::steady_clock::now();
  void *lib[2] = {};
  const char *soname = hqr_cuda_library_names;
  for (void *&h : lib) {
    h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      std::snprintf(load_error, sizeof load_error, "cannot load %s (%s)", soname, dlerror());
      return load_error;
    }
    soname += std::strlen(soname) + 1;
  }
  // Resolved into a copy first: the table changes only once all are found.
  static void *found[512];
  if (hqr_cuda_entry_count > sizeof found / sizeof found[0]) return "too many cuBLAS/cuSOLVER entry points";
  const char *name = hqr_cuda_entry_names;
  for (unsigned i = 0; i < hqr_cuda_entry_count; ++i, name += std::strlen(name) + 1) {
    found[i] = dlsym(lib[0], name);
    if (!found[i]) found[i] = dlsym(lib[1], name);
    if (!found[i]) {
      std::snprintf(load_error, sizeof load_error, "%s not found in %s or %s", name, hqr_cuda_library_names,
                    hqr_cuda_library_names + std::strlen(hqr_cuda_library_names) + 1);
      return load_error;
    }
  }
  for (unsigned i = 0; i < hqr_cuda_entry_count; ++i) __atomic_store_n(&hqr_cuda_entries[i], found[i], __ATOMIC_RELEASE);
  if (config::verbose()) {
    Dl_info info{};
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "hqr: %u cuBLAS/cuSOLVER functions bound in %.3f s (%s)\n", hqr_cuda_entry_count, s,
                 dladdr(found[0], &info) && info.dli_fname ? info.dli_fname : hqr_cuda_library_names);
  }
  return nullptr;
}

}  // namespace

const char *load_cuda_libraries() {
  static std::once_flag once;
  static const char *result = nullptr;
  std::call_once(once, [] { result = load_once(); });
  return result;
}

}  // namespace hqr::gpu
