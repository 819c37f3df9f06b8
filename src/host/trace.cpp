#include "trace.hpp"

#include <unistd.h>

#include "config.hpp"

namespace hqr {

Trace::Trace(const RoutineName &name, double flops) : on_(config::verbose()), flops_(flops) {
  if (!on_) return;
  for (std::size_t i = 0; i < name.len && i + 1 < sizeof name_; ++i) {  // lower case, as the symbol
    const char c = name.text[i];
    name_[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c;  // '_' stays
  }
  name_[name.len < sizeof name_ ? name.len : sizeof name_ - 1] = '\0';
  start_ = std::chrono::steady_clock::now();
}

Trace::~Trace() {
  if (!on_) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char line[384];
  int len = std::snprintf(line, sizeof line, "hqr: %s %s path=%s%s%s%s time=%.6fs %.2f GFLOP/s\n", name_, args_,
                          path_, why_ ? " (" : "", why_ ? why_ : "", why_ ? ")" : "", s,
                          s > 0 ? flops_ / s * 1e-9 : 0.0);
  // One write() per line keeps lines from concurrent calls whole.
  if (len > 0) (void)!write(2, line, static_cast<std::size_t>(len < (int)sizeof line ? len : (int)sizeof line - 1));
}

}  // namespace hqr
