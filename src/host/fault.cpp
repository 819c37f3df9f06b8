#include "fault.hpp"

#include <atomic>
#include <cstdlib>
#include <algorithm>
#include <cstring>

namespace hqr::fault {
namespace {

struct Setting {
  int point = -1;  // Point, or -1: no fault requested
  long nth = 1;
};

Setting parse() {
  Setting s;
  const char *v = std::getenv("HQR_FAULT");
  if (!v || !*v) return s;
  static const char *const names[] = {"alloc", "copy", "kernel", "sync"};
  for (int i = 0; i < 4; ++i) {
    const std::size_t len = std::strlen(names[i]);
    if (std::strncmp(v, names[i], len) != 0 || (v[len] != '\0' && v[len] != ':')) continue;
    s.point = i;
    if (v[len] == ':') s.nth = std::max(1L, std::strtol(v + len + 1, nullptr, 10));
  }
  return s;
}

}  // namespace

bool hit(Point p) {
  static const Setting s = parse();
  if (s.point != static_cast<int>(p)) return false;
  static std::atomic<long> passes{0};
  return passes.fetch_add(1, std::memory_order_relaxed) + 1 >= s.nth;
}

}  // namespace hqr::fault
