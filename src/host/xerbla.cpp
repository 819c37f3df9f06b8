#include "common.hpp"

// XERBLA as every LAPACK defines it. Resolved through the dynamic symbol table
// (libhqr exports a forwarding xerbla_), so a program or test suite that
// defines its own XERBLA receives hqr's reports.
extern "C" void xerbla_(const char *srname, const lapack_int *info, std::size_t srname_len);

namespace hqr {
void report_illegal(const RoutineName &name, lint position) {
  const lint info = position;
  xerbla_(name.text, &info, name.len);
}
}  // namespace hqr
