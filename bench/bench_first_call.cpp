// bench_first_call: what a process's first LAPACK call costs through hqr,
// beside the same call through the CPU LAPACK alone (ABI.md, "The first
// call"; issue 39 part 3).
//
// Every measurement is a fresh process: this program runs itself again
// (fork + exec, --child) for each routine, library and setting, so that the
// driver, the CUDA context, hqr's handles and staging, and OpenBLAS's thread
// pool all start cold, as in a script that calls LAPACK once. The child
// dlopens the library (build/libhqr.so beside this program, or the system's
// liblapack.so.3, OpenBLAS on Debian, alone), builds the operand, sleeps
// `delay` seconds (a program's own work before its first call), then times
// the first call and a second one on a fresh copy of the operand.
// Columns: the library's dlopen; the first call (what the target
// compares: "a process's first dpotrf n = 4096 through hqr costs less than
// OpenBLAS's on all cores"); the second call; the whole process from fork to
// exit (an exit that waits for a GPU start still in progress included); the
// path the first call took (hqr_path_calls: cpu or gpu). Medians of `reps`.
//
// Usage, on the GPU machine from the repository root:
//   make all bench && build/bench_first_call [reps=5] [delay=0.5] [routines=dpotrf,dgeqrf,dpotri]
// The rows: OpenBLAS alone; hqr with HQR_DEVICE=none; hqr by default
// (HQR_GPU_START=auto); HQR_GPU_START=load with no delay and with `delay`;
// HQR_GPU_START=call (the first call waits for the GPU: the old behaviour
// less the crossover measurement); each for dpotrf L 4096, dgeqrf
// 24000x2400 and dpotri L 4096. HQR_VERBOSE=1 in the environment shows each
// child's trace, the GPU start's parts included (the driver, the context,
// handles, pinned staging). A fresh XDG_CACHE_HOME is used, so no cached
// crossover is read.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

using potrf_t = void (*)(const char *, const int *, double *, const int *, int *, std::size_t);
using potri_t = potrf_t;
using geqrf_t = void (*)(const int *, const int *, double *, const int *, double *, double *, const int *, int *);
using path_calls_t = long (*)(char);

std::string self_dir() {
  char buf[4096];
  const ssize_t len = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (len <= 0) return ".";
  buf[len] = '\0';
  std::string p(buf);
  return p.substr(0, p.rfind('/'));
}

// The child: one library, one routine, one first and one second call.
// Prints "open first second path".
int child(const char *lib, const char *routine, double delay) {
  const std::string path = std::strcmp(lib, "openblas") == 0 ? "liblapack.so.3" : self_dir() + "/libhqr.so";
  const Clock::time_point t0 = Clock::now();
  void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  const double open_s = since(t0);
  if (!h) {
    std::fprintf(stderr, "bench_first_call: %s\n", dlerror());
    return 1;
  }
  auto path_calls = reinterpret_cast<path_calls_t>(dlsym(h, "hqr_path_calls"));
  std::mt19937_64 gen{42};
  std::uniform_real_distribution<double> u(-1, 1);
  const bool qr = std::strcmp(routine, "dgeqrf") == 0;
  const int m = qr ? 24000 : 4096, n = qr ? 2400 : 4096;
  std::vector<double> a(std::size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double &x = a[i + std::size_t(j) * m];
      if (qr)
        x = u(gen);
      else if (std::strcmp(routine, "dpotrf") == 0)
        x = i == j ? n + 1.0 + u(gen) : i > j ? u(gen) : 0.0;  // the lower triangle of an SPD matrix
      else
        x = i == j ? 1.5 + u(gen) / 2 : i > j ? u(gen) / n : 0.0;  // a well-conditioned factor L
    }
  std::vector<double> b = a;
  std::vector<double> tau(static_cast<std::size_t>(n));
  if (delay > 0) std::this_thread::sleep_for(std::chrono::duration<double>(delay));
  int info = 0;
  auto call = [&](std::vector<double> &x) {
    if (qr) {
      auto f = reinterpret_cast<geqrf_t>(dlsym(h, "dgeqrf_"));
      const int query = -1;
      double w = 0;
      f(&m, &n, x.data(), &m, tau.data(), &w, &query, &info);
      const int lwork = int(w);
      std::vector<double> work(std::size_t(std::max(1, lwork)));
      f(&m, &n, x.data(), &m, tau.data(), work.data(), &lwork, &info);
    } else {
      auto f = reinterpret_cast<potrf_t>(dlsym(h, std::strcmp(routine, "dpotrf") == 0 ? "dpotrf_" : "dpotri_"));
      f("L", &n, x.data(), &n, &info, 1);
    }
  };
  Clock::time_point t = Clock::now();
  call(a);
  const double first = since(t);
  const long gpu_calls = path_calls ? path_calls('g') + path_calls('r') : 0;
  t = Clock::now();
  call(b);
  const double second = since(t);
  if (info != 0) std::fprintf(stderr, "bench_first_call: %s info=%d\n", routine, info);
  std::printf("%.6f %.6f %.6f %s\n", open_s, first, second, !path_calls ? "-" : gpu_calls > 0 ? "gpu" : "cpu");
  return 0;
}

struct Row {
  const char *label, *lib, *env;  // env: "NAME=value" or nullptr
  double delay;
};

// Runs one child; false when it failed. Fills the four times and the path.
bool measure(const char *self, const Row &row, const char *routine, const std::string &cache, double out[4],
             std::string &path) {
  int fd[2];
  if (pipe(fd) != 0) return false;
  const Clock::time_point t0 = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    if (row.env) putenv(const_cast<char *>(row.env));
    char delay[32];
    std::snprintf(delay, sizeof delay, "%g", row.delay);
    execl(self, self, "--child", row.lib, routine, delay, static_cast<char *>(nullptr));
    _exit(127);
  }
  close(fd[1]);
  char buf[256] = "";
  std::size_t len = 0;
  for (ssize_t r; len + 1 < sizeof buf && (r = read(fd[0], buf + len, sizeof buf - 1 - len)) > 0;) len += std::size_t(r);
  buf[len] = '\0';
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  out[3] = since(t0);
  char p[16] = "";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      std::sscanf(buf, "%lf %lf %lf %15s", &out[0], &out[1], &out[2], p) != 4)
    return false;
  path = p;
  return true;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  if (argc == 5 && std::strcmp(argv[1], "--child") == 0) return child(argv[2], argv[3], std::atof(argv[4]));
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const double delay = argc > 2 ? std::atof(argv[2]) : 0.5;
  char cache[] = "/tmp/hqr-first-call-XXXXXX";
  if (!mkdtemp(cache)) return 1;
  const Row rows[] = {
      {"OpenBLAS alone", "openblas", nullptr, 0},
      {"hqr HQR_DEVICE=none", "hqr", "HQR_DEVICE=none", 0},
      {"hqr (default: auto)", "hqr", nullptr, 0},
      {"hqr HQR_GPU_START=load", "hqr", "HQR_GPU_START=load", 0},
      {"hqr HQR_GPU_START=load", "hqr", "HQR_GPU_START=load", delay},
      {"hqr HQR_GPU_START=call", "hqr", "HQR_GPU_START=call", 0},
  };
  std::printf("# build/bench_first_call %d %g: each row a fresh process per measurement, median of %d, seconds\n", reps,
              delay, reps);
  std::printf("# %-8s %-24s %6s | %8s %8s %8s %8s | %s\n", "routine", "library", "delay", "dlopen", "first", "second",
              "process", "first call's path");
  // The routines: argv[3] (a comma-separated list) or all three.
  const std::string only = argc > 3 ? std::string(",") + argv[3] + "," : "";
  for (const char *routine : {"dpotrf", "dgeqrf", "dpotri"}) {
    if (!only.empty() && only.find(std::string(",") + routine + ",") == std::string::npos) continue;
    for (const Row &row : rows) {
      std::vector<double> t[4];
      std::string path, paths;
      for (int r = 0; r < reps; ++r) {
        double out[4];
        if (!measure(argv[0], row, routine, cache, out, path)) {
          std::printf("%-10s %-24s failed\n", routine, row.label);
          break;
        }
        for (int k = 0; k < 4; ++k) t[k].push_back(out[k]);
        if (paths.find(path) == std::string::npos) paths += (paths.empty() ? "" : ",") + path;
      }
      if (t[0].empty()) continue;
      std::printf("%-10s %-24s %6.2f | %8.4f %8.4f %8.4f %8.4f | %s\n", routine, row.label, row.delay, median(t[0]),
                  median(t[1]), median(t[2]), median(t[3]), paths.c_str());
      std::fflush(stdout);
    }
  }
  rmdir(cache);
  return 0;
}
