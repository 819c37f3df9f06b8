// The resolver behind the forwarding stubs generated from forward.list: every
// BLAS/LAPACK symbol hqr does not implement jumps through a slot that this
// function fills, on first use, with the next library's address.
#include "next_lapack.hpp"

extern "C" {
extern void *hqr_fwd_slot[];
extern const char *const hqr_fwd_name[];

__attribute__((visibility("hidden"))) void *hqr_forward_resolve(unsigned index) {
  void *f = hqr::next::require(hqr_fwd_name[index]);
  // Every thread that races here stores the same address.
  __atomic_store_n(&hqr_fwd_slot[index], f, __ATOMIC_RELEASE);
  return f;
}
}
