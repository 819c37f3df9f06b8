// cuBLAS and cuSOLVER bound lazily (src/cuda/cuda_libs.cu, trampolines from
// scripts/gen-cuda-stubs.sh): loading libhqr.so loads neither library; before
// binding, every entry is hqr's "not loaded" stop; binding loads both and
// points every entry into one of them; a call through a trampoline then
// reaches cuBLAS (cublasCreate answers with a status, with or without a GPU);
// binding again changes nothing. No GPU needed. The loader and the stubs are
// compiled in (their symbols are hidden in libhqr). A build without CUDA
// (HQR_HAVE_CUDA=0) has neither: the test is skipped.
#include "testing.hpp"

#if HQR_HAVE_CUDA
#include <dlfcn.h>

#include "cuda/cuda_libs.hpp"

extern "C" {
extern void *hqr_cuda_entries[];
extern const unsigned hqr_cuda_entry_count;
extern const char hqr_cuda_entry_names[];
extern const char hqr_cuda_library_names[];
void hqr_cuda_not_loaded();
int cublasCreate_v2(void **handle);  // cublas_v2.h's cublasCreate
int cublasDestroy_v2(void *handle);
}

namespace {

bool loaded(const char *soname) {
  void *h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
  if (h) dlclose(h);
  return h != nullptr;
}

void bound_on_first_use(void **) {
  const char *cublas = hqr_cuda_library_names, *cusolver = cublas + std::strlen(cublas) + 1;
  // hqr is loaded (this program calls into it), the CUDA libraries are not.
  assert_non_null(hqr_version());
  if (loaded(cublas) || loaded(cusolver)) fail_msg("%s or %s loaded before hqr bound them", cublas, cusolver);
  assert_true(hqr_cuda_entry_count > 0);
  for (unsigned i = 0; i < hqr_cuda_entry_count; ++i)
    if (hqr_cuda_entries[i] != reinterpret_cast<void *>(&hqr_cuda_not_loaded)) fail_msg("entry %u bound early", i);

  const char *why = hqr::gpu::load_cuda_libraries();
  if (why) fail_msg("binding failed: %s", why);
  assert_true(loaded(cublas) && loaded(cusolver));
  const char *name = hqr_cuda_entry_names;
  for (unsigned i = 0; i < hqr_cuda_entry_count; ++i, name += std::strlen(name) + 1) {
    Dl_info info{};
    if (!dladdr(hqr_cuda_entries[i], &info) || !info.dli_fname ||
        (!std::strstr(info.dli_fname, "libcublas") && !std::strstr(info.dli_fname, "libcusolver")))
      fail_msg("%s bound outside cuBLAS/cuSOLVER (%s)", name, info.dli_fname ? info.dli_fname : "?");
    if (dlsym(RTLD_DEFAULT, name) == hqr_cuda_entries[i]) continue;  // the library's own, as dlsym finds it
    void *lib = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    const bool same = lib && dlsym(lib, name) == hqr_cuda_entries[i];
    if (lib) dlclose(lib);
    if (!same) fail_msg("%s is not the library's %s", name, name);
  }
  void *first = hqr_cuda_entries[0];
  assert_null(hqr::gpu::load_cuda_libraries());
  assert_ptr_equal(first, hqr_cuda_entries[0]);

  // Through the trampoline: CUBLAS_STATUS_SUCCESS (0) with a GPU, an error
  // status (CUBLAS_STATUS_NOT_INITIALIZED, 1) without; never hqr's stop.
  void *handle = nullptr;
  const int status = cublasCreate_v2(&handle);
  print_message("cublasCreate through its trampoline: status %d\n", status);
  if (status == 0) cublasDestroy_v2(handle);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {cmocka_unit_test(bound_on_first_use)};
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
#else
namespace {
void bound_on_first_use(void **) { skip(); }
}  // namespace
int main() {
  const struct CMUnitTest tests[] = {cmocka_unit_test(bound_on_first_use)};
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
#endif
