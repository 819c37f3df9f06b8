// Where the crossover comes from and what a first call pays for it
// (src/host/crossover.cpp, src/host/dispatch.cpp, hqr_calibrate()):
// - the shipped defaults per GPU model, the generic one for other GPUs, the
//   scaling with the host's cores; the cache file's place, name and lines
//   (crossover.cpp is compiled in);
// - hqr_calibrate() without a GPU returns -1 and writes nothing;
// - a first call measures nothing unless HQR_CALIBRATE=1 asks: each case
//   runs in a fresh process (this program again, with --child), HQR_VERBOSE
//   on, its own XDG_CACHE_HOME. Without a GPU: no "calibrated" line, no
//   cache file, path=cpu. With one (HQR_GPU_START=call, so that the first
//   call waits for the GPU): the crossover comes from the shipped or generic
//   default, then, after HQR_CALIBRATE=1 measured it, from the cache file.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "host/crossover.hpp"
#include "testing.hpp"

namespace xo = hqr::crossover;

namespace {

std::string temp_dir() {
  char d[] = "/tmp/hqr-test-crossover-XXXXXX";
  return mkdtemp(d) ? d : "/tmp";
}

int files_in(const std::string &dir) {
  int n = 0;
  std::string cmd = "ls -A '" + dir + "/hqr' 2>/dev/null | grep -c crossover-";
  if (FILE *p = popen(cmd.c_str(), "r")) {
    if (std::fscanf(p, "%d", &n) != 1) n = 0;
    pclose(p);
  }
  return n;
}

std::string slurp(const std::string &path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// One dpotrf of order n in a fresh process with `env` ("A=1 B=2") set,
// HQR_VERBOSE=1 and XDG_CACHE_HOME=cache; returns its stderr.
std::string run_child(const char *env, const std::string &cache, int n) {
  const std::string err = cache + "/stderr.txt";
  const pid_t pid = fork();
  if (pid == 0) {
    unsetenv("HQR_GPU_MIN_N");  // the GPU machine's suite sets it; these cases need the model's dispatch
    std::istringstream vars(env);
    for (std::string v; vars >> v;) putenv(strdup(v.c_str()));
    setenv("HQR_VERBOSE", "1", 1);
    setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    if (!freopen(err.c_str(), "w", stderr)) _exit(126);
    char order[16];
    std::snprintf(order, sizeof order, "%d", n);
    execl("/proc/self/exe", "test_crossover", "--child", order, static_cast<char *>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "child failed";
  return slurp(err);
}

// The child: one dpotrf 'L' of a diagonally dominant matrix, checked.
int child(int n) {
  std::vector<double> a(std::size_t(n) * n, 0.5);
  for (int j = 0; j < n; ++j) a[j + std::size_t(j) * n] = n + 1.0;
  const lapack_int order = n;
  lapack_int info = -1;
  dpotrf_("L", &order, a.data(), &order, &info, 1);
  return info == 0 && a[0] > 0 ? 0 : 1;
}

bool gpu_serves() {
  const char *d = std::getenv("HQR_DEVICE");
  return hqr_device() >= 0 && !(d && std::strcmp(d, "none") == 0);
}

}  // namespace

static void shipped_per_model(void **) {
  xo::Entry e = xo::shipped("NVIDIA H100 80GB HBM3", "potrf", 'd', 16);
  assert_int_equal(e.n, 256);
  assert_true(e.source == xo::Source::shipped);
  e = xo::shipped("NVIDIA H200", "geqrf", 'z', 16);
  assert_int_equal(e.n, 384);
  assert_true(e.source == xo::Source::shipped);
  for (const char *r : {"trtri", "lauum", "potri"}) {
    e = xo::shipped("NVIDIA H200", r, 's', 8);
    assert_int_equal(e.n, 256);
    assert_true(e.source == xo::Source::shipped);
  }
  // A host of eight times the cores: twice the order (cube root).
  e = xo::shipped("NVIDIA H100 PCIe", "potrf", 'd', 128);
  assert_int_equal(e.n, 512);
  assert_string_equal(xo::source_name(xo::Source::shipped), "shipped default");
}

static void generic_for_others(void **) {
  for (const char *gpu : {"NVIDIA GH200 480GB", "NVIDIA GeForce RTX 4090", "Tesla V100-SXM2-16GB", "none", ""}) {
    const xo::Entry e = xo::shipped(gpu, "potrf", 'd', 16);
    assert_true(e.source == xo::Source::generic);
    assert_int_equal(e.n, 1024);
  }
  // A routine without shipped values (a new GPU path) gets the generic one.
  const xo::Entry e = xo::shipped("NVIDIA H100 80GB HBM3", "gemm", 'd', 16);
  assert_true(e.source == xo::Source::generic);
  assert_string_equal(xo::source_name(xo::Source::generic), "generic default");
}

static void cache_file(void **) {
  const std::string dir = temp_dir();
  setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  const std::string h100 = xo::cache_path("NVIDIA H100 80GB HBM3"), h200 = xo::cache_path("NVIDIA H200");
  assert_true(h100.rfind(dir + "/hqr/crossover-", 0) == 0);
  assert_true(h100.size() > 4 && h100.compare(h100.size() - 4, 4, ".txt") == 0);
  assert_true(h100 != h200);  // one file per GPU model
  assert_true(xo::read(h100).empty());
  assert_true(xo::write(h100, {{xo::key("potrf", 'd'), 512}, {xo::key("geqrf", 'z'), 384}}));
  const auto back = xo::read(h100);
  assert_int_equal(back.size(), 2);
  assert_int_equal(back.at("potrf d"), 512);
  assert_int_equal(back.at("geqrf z"), 384);
  assert_string_equal(slurp(h100).c_str(), "geqrf z 384\npotrf d 512\n");  // the format of every earlier version
  // Settings that change the CPU's speed name another file.
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  assert_true(xo::cache_path("NVIDIA H100 80GB HBM3") != h100);
  unsetenv("OPENBLAS_NUM_THREADS");
  // Nowhere to cache: no path, nothing written.
  const char *home = std::getenv("HOME");
  const std::string saved_home = home ? home : "";
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  assert_true(xo::cache_path("NVIDIA H200").empty());
  assert_false(xo::write("", {{"potrf d", 256}}));
  if (home) setenv("HOME", saved_home.c_str(), 1);
  std::remove(h100.c_str());
  rmdir((dir + "/hqr").c_str());
  rmdir(dir.c_str());
}

static void calibrate_without_gpu(void **) {
  if (gpu_serves()) skip();
  const std::string dir = temp_dir();
  setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  const auto start = std::chrono::steady_clock::now();
  assert_int_equal(hqr_calibrate(), -1);
  assert_true(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 1.0);
  assert_int_equal(files_in(dir), 0);
  rmdir(dir.c_str());
}

// The default: nothing measured inside a call.
static void first_call_measures_nothing(void **) {
  const std::string dir = temp_dir();
  const std::string err = run_child("HQR_GPU_START=call", dir, 1024);
  assert_true(err.find("dpotrf uplo=L n=1024") != std::string::npos);
  assert_true(err.find("calibrated") == std::string::npos);
  assert_int_equal(files_in(dir), 0);
  if (gpu_serves()) {
    // The crossover came from a default, and the call ran on the GPU.
    if (err.find("potrf d crossover n=") == std::string::npos ||
        (err.find("shipped default") == std::string::npos && err.find("generic default") == std::string::npos))
      fail_msg("no default crossover reported:\n%s", err.c_str());
  } else {
    assert_true(err.find("path=cpu (no GPU)") != std::string::npos);
  }
  std::remove((dir + "/stderr.txt").c_str());
  rmdir(dir.c_str());
}

// HQR_CALIBRATE=1: the first call measures and caches; the next process
// reads the cache file.
static void calibrate_on_call(void **) {
  const std::string dir = temp_dir();
  std::string err = run_child("HQR_CALIBRATE=1 HQR_GPU_START=call", dir, 1024);
  assert_true(err.find("dpotrf uplo=L n=1024") != std::string::npos);
  if (!gpu_serves()) {
    assert_true(err.find("calibrated") == std::string::npos);  // nothing to measure against
    assert_int_equal(files_in(dir), 0);
  } else {
    if (err.find("calibrated potrf d crossover") == std::string::npos) fail_msg("not measured:\n%s", err.c_str());
    assert_int_equal(files_in(dir), 1);
    err = run_child("HQR_GPU_START=call", dir, 1024);
    if (err.find("potrf d crossover n=") == std::string::npos || err.find("cache file") == std::string::npos ||
        err.find("calibrated") != std::string::npos)
      fail_msg("the cache file was not used:\n%s", err.c_str());
    assert_int_equal(std::system(("rm -rf '" + dir + "/hqr'").c_str()), 0);
  }
  std::remove((dir + "/stderr.txt").c_str());
  rmdir(dir.c_str());
}

// HQR_GPU_START=auto (the default): a first call that is short on the CPU
// does not wait for the GPU's start.
static void short_first_call_stays_on_cpu(void **) {
  const std::string dir = temp_dir();
  const std::string err = run_child("", dir, 512);
  assert_true(err.find("dpotrf uplo=L n=512") != std::string::npos);
  if (gpu_serves() && err.find("path=cpu (the GPU is not started") == std::string::npos)
    fail_msg("the first short call did not run on the CPU:\n%s", err.c_str());
  assert_true(err.find("context created") == std::string::npos);
  std::remove((dir + "/stderr.txt").c_str());
  rmdir(dir.c_str());
}

int main(int argc, char **argv) {
  if (argc == 3 && std::strcmp(argv[1], "--child") == 0) return child(std::atoi(argv[2]));
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(shipped_per_model),
      cmocka_unit_test(generic_for_others),
      cmocka_unit_test(cache_file),
      cmocka_unit_test(first_call_measures_nothing),
      cmocka_unit_test(calibrate_on_call),
      cmocka_unit_test(short_first_call_stays_on_cpu),
      cmocka_unit_test(calibrate_without_gpu),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
