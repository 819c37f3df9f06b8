// The resolver behind the forwarding stubs generated from forward.list: every
// BLAS/LAPACK symbol hqr does not implement jumps through a slot that this
// function fills, on first use, with the next library's address.
#include <cstdio>
#include <cstring>

#include <unistd.h>

#include "next_lapack.hpp"

namespace {
// XERBLA where there is no LAPACK at all (a wheel's libhqr before numpy or
// SciPy loaded their OpenBLAS): OpenBLAS's message, then a return, so that
// hqr's own argument errors still report and return INFO < 0.
void builtin_xerbla(const char *srname, const lapack_int *info, std::size_t len) {
  char msg[128];
  std::size_t n = 0;
  while (n < len && n < 32 && srname[n] && srname[n] != ' ') ++n;
  int w = std::snprintf(msg, sizeof msg, " ** On entry to %.*s parameter number %2ld had an illegal value\n",
                        static_cast<int>(n), srname, static_cast<long>(*info));
  if (w > 0) (void)!write(2, msg, std::strlen(msg));
}
}  // namespace

extern "C" {
extern void *hqr_fwd_slot[];
extern const char *const hqr_fwd_name[];

__attribute__((visibility("hidden"))) void *hqr_forward_resolve(unsigned index) {
  const char *name = hqr_fwd_name[index];
  void *f = hqr::next_symbol(name);
  if (!f && std::strcmp(name, "xerbla_") == 0) f = reinterpret_cast<void *>(&builtin_xerbla);
  if (!f) f = hqr::next::require(name);
  // Every thread that races here stores the same address.
  __atomic_store_n(&hqr_fwd_slot[index], f, __ATOMIC_RELEASE);
  return f;
}
}
