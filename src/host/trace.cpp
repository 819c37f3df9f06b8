#include "trace.hpp"

#include <link.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include "config.hpp"

namespace hqr {

int serving_device();

namespace {
// The path counters: [0] CPU only, [1] a GPU path to the end, [2] a GPU
// path the CPU finished; and per GPU, the calls it worked in.
std::atomic<long> path_calls[3];
std::atomic<long> device_calls[64];

// Calls of hqr's routines under way on this thread: the CPU path's LAPACK
// calls hqr's exported symbols again (dgels calls dgeqrf_), and only the
// outermost call counts.
thread_local int depth = 0;
thread_local const char *last_nested = "cpu";

int path_kind(const char *path) {
  if (std::strncmp(path, "gpu", 3) == 0) return 1;
  return std::strcmp(path, "cpu-resumed") == 0 ? 2 : 0;
}
}  // namespace

namespace {
// At exit, under HQR_VERBOSE: a process that never called hqr but loaded
// MKL (numpy or SciPy built against MKL, conda's for one) calls MKL's own
// names, which hqr does not intercept; one line says so. ABI.md, "pip's numpy
// and SciPy".
struct MklNote {
  ~MklNote() {
    if (!config::verbose() || path_calls[0] + path_calls[1] + path_calls[2] > 0) return;
    char mkl[256] = "";
    dl_iterate_phdr(
        [](dl_phdr_info *info, std::size_t, void *data) {
          const char *name = info->dlpi_name;
          const char *base = name ? std::strrchr(name, '/') : nullptr;
          base = base ? base + 1 : name;
          if (base && std::strncmp(base, "libmkl_", 7) == 0) {
            std::snprintf(static_cast<char *>(data), 256, "%s", name);
            return 1;
          }
          return 0;
        },
        mkl);
    if (!mkl[0]) return;
    char line[400];
    int len = std::snprintf(line, sizeof line,
                            "hqr: no call reached hqr; this process loaded %s (MKL), whose names hqr does not intercept\n",
                            mkl);
    if (len > 0) (void)!write(2, line, static_cast<std::size_t>(len < (int)sizeof line ? len : (int)sizeof line - 1));
  }
} mkl_note;
}  // namespace

long path_count(char path) {
  switch (path) {
    case 'c': return path_calls[0].load();
    case 'g': return path_calls[1].load();
    case 'r': return path_calls[2].load();
    default: return -1;
  }
}
long device_count_calls(int ordinal) { return ordinal >= 0 && ordinal < 64 ? device_calls[ordinal].load() : -1; }

bool Trace::active() { return depth > 0; }
// The depth of the routine whose own calls are direct (Trace::Direct), or 0.
thread_local int direct_parent = 0;
bool Trace::nested() { return depth > 1 && depth - 1 != direct_parent; }
Trace::Direct::Direct() : saved_(direct_parent) { direct_parent = depth; }
Trace::Direct::~Direct() { direct_parent = saved_; }
const char *Trace::last_nested_path() { return last_nested; }

Trace::Trace(const RoutineName &name, double flops) : on_(config::verbose()), flops_(flops) {
  ++depth;
  if (!on_) return;
  for (std::size_t i = 0; i < name.len && i + 1 < sizeof name_; ++i) {  // lower case, as the symbol
    const char c = name.text[i];
    name_[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c;  // '_' stays
  }
  name_[name.len < sizeof name_ ? name.len : sizeof name_ - 1] = '\0';
  start_ = std::chrono::steady_clock::now();
}

Trace::~Trace() {
  const int kind = path_kind(path_);
  if (depth == 1) {  // the caller's call, not the system LAPACK's calls back into hqr from inside it
    path_calls[kind].fetch_add(1, std::memory_order_relaxed);
    if (kind != 0 && devices_ == 0) {
      const int d = serving_device();
      if (d >= 0 && d < 64) devices_ = std::uint64_t(1) << d;
    }
    for (int d = 0; d < 64; ++d)
      if (devices_ >> d & 1) device_calls[d].fetch_add(1, std::memory_order_relaxed);
  }
  if (depth == 2) last_nested = path_;  // path_: a string literal
  --depth;
  if (!on_) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char gpus[200] = "";
  if (kind != 0)
    for (int d = 0, len = 0; d < 64 && len < 180; ++d)
      if (devices_ >> d & 1) len += std::snprintf(gpus + len, sizeof gpus - len, "%s%d", len ? "," : " gpus=", d);
  char line[512];
  int len = std::snprintf(line, sizeof line, "hqr: %s %s path=%s%s%s%s%s time=%.6fs %.2f GFLOP/s\n", name_, args_,
                          path_, why_ ? " (" : "", why_ ? why_ : "", why_ ? ")" : "", gpus, s,
                          s > 0 ? flops_ / s * 1e-9 : 0.0);
  // One write() per line keeps lines from concurrent calls whole.
  if (len > 0) (void)!write(2, line, static_cast<std::size_t>(len < (int)sizeof line ? len : (int)sizeof line - 1));
}

Phases::Phases(const char *routine) : on_(config::verbose_level() >= 2) {
  if (routine) std::snprintf(routine_, sizeof routine_, "%s", routine);
}
Phases::~Phases() {
  if (routine_[0]) print(routine_);
}
void Phases::mark(const char *what) {
  if (on_) marks_.push_back({what, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()});
}
void Phases::print(const char *routine) const {
  if (marks_.empty()) return;
  std::string line;
  char buf[64];
  for (const auto &m : marks_) {
    std::snprintf(buf, sizeof buf, ", %s %.4f", m.first, m.second);
    line += buf;
  }
  std::fprintf(stderr, "hqr: %s phases (s from start)%s\n", routine, line.c_str());
}

}  // namespace hqr
