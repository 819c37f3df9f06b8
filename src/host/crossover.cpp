#include "crossover.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#ifndef HQR_VERSION
#define HQR_VERSION "0.1.0"
#endif

namespace hqr::crossover {
namespace {

// The measurement belongs to this GPU, this host, the CPU LAPACK's
// settings and the GPU paths as they were measured: the cache file's name
// carries a hash of all of them. kCalibration names the GPU paths' speed
// near the crossover: change it (a new date) with any change to that speed,
// so that crossovers measured with older code are measured again. The
// current value is the one trip of geqrf and gels on hqr's small geqrf
// (panel_qr.cuh); git log -S kCalibration lists the earlier ones.
constexpr const char *kCalibration = "2026-11-27b";

// Defaults shipped per GPU model, for a host of kShippedCores cores with
// OpenBLAS: the smallest order at which hqr's GPU path beat the CPU LAPACK,
// s/d/c/z. Only double was measured; s, c and z take double's value (the GPU
// gains more on c and z, whose calls have four times the flops, and on s).
//   potrf: bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-26.txt,
//     item 13: the GPU path wins from 256 for both triangles (the smallest
//     order hqr offers a GPU).
//   trtri, lauum, potri: bench/results/inverse-NVIDIA-H200-2026-11-27.txt:
//     1.3-4.5x faster than OpenBLAS at 256.
//   geqrf (also gels, ormqr, orgqr at the equivalent order): 384, the
//     crossover measured on the H200
//     (bench/results/history/qr-tuning-NVIDIA-H200-H100-2026-11-26.txt,
//     item 1); 512^2 runs 3.5x faster than OpenBLAS there today
//     (bench/results/qr-NVIDIA-H200-2026-11-27f.txt).
// The H100's tables start at larger orders (bench/results/*H100*), where it
// wins as the H200 does: it ships the H200's values.
constexpr long kShippedCores = 16;
struct Shipped {
  const char *model;    // a prefix of the CUDA device name
  const char *routine;  // dispatch's key
  long n[4];            // s, d, c, z
};
constexpr Shipped kShipped[] = {
    {"NVIDIA H200", "potrf", {256, 256, 256, 256}}, {"NVIDIA H200", "trtri", {256, 256, 256, 256}},
    {"NVIDIA H200", "lauum", {256, 256, 256, 256}}, {"NVIDIA H200", "potri", {256, 256, 256, 256}},
    {"NVIDIA H200", "geqrf", {384, 384, 384, 384}}, {"NVIDIA H100", "potrf", {256, 256, 256, 256}},
    {"NVIDIA H100", "trtri", {256, 256, 256, 256}}, {"NVIDIA H100", "lauum", {256, 256, 256, 256}},
    {"NVIDIA H100", "potri", {256, 256, 256, 256}}, {"NVIDIA H100", "geqrf", {384, 384, 384, 384}},
};

// Any other GPU: an order whose CPU call takes a few milliseconds on a
// server's cores, so that a GPU slower than those above (a workstation
// card's FP64 runs at 1/32 or 1/64 of its FP32) costs little where it loses,
// and hqr-calibrate measures the real value.
constexpr long kGeneric = 1024;

int prec_index(char prec) {
  switch (prec) {
    case 's': return 0;
    case 'd': return 1;
    case 'c': return 2;
    default: return 3;
  }
}

}  // namespace

const char *source_name(Source s) {
  switch (s) {
    case Source::cached: return "cache file";
    case Source::shipped: return "shipped default";
    case Source::generic: return "generic default";
    case Source::measured: return "measured";
  }
  return "?";
}

std::string key(const char *routine, char prec) { return std::string(routine) + " " + prec; }

Entry shipped(const char *gpu_name, const char *routine, char prec, long host_cores) {
  for (const Shipped &s : kShipped) {
    if (std::strncmp(gpu_name, s.model, std::strlen(s.model)) != 0 || std::strcmp(routine, s.routine) != 0) continue;
    long n = s.n[prec_index(prec)];
    // A host of more cores runs the CPU path faster: its time falls as
    // n^3 / cores, so the order where it meets the GPU's grows as their cube root.
    if (host_cores > kShippedCores) n = long(std::ceil(double(n) * std::cbrt(double(host_cores) / kShippedCores)));
    return {n, Source::shipped};
  }
  return {kGeneric, Source::generic};
}

std::string cache_path(const char *gpu_name) {
  std::string dir;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
    dir = x;
  else if (const char *h = std::getenv("HOME"); h && *h)
    dir = std::string(h) + "/.cache";
  else
    return "";
  dir += "/hqr";
  std::string id = std::string(HQR_VERSION) + "|" + kCalibration + "|" + gpu_name + "|" +
                   std::to_string(sysconf(_SC_NPROCESSORS_ONLN));
  for (const char *v : {"OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "HQR_PANEL", "HQR_NB"}) {
    const char *e = std::getenv(v);
    id += std::string("|") + (e ? e : "");
  }
  char name[64];
  std::snprintf(name, sizeof name, "/crossover-%016zx.txt", std::hash<std::string>{}(id));
  return dir + name;
}

std::map<std::string, long> read(const std::string &path) {
  std::map<std::string, long> values;
  if (path.empty()) return values;
  if (FILE *f = std::fopen(path.c_str(), "r")) {
    char routine[16], prec;
    long n;
    while (std::fscanf(f, "%15s %c %ld", routine, &prec, &n) == 3) values[key(routine, prec)] = n;
    std::fclose(f);
  }
  return values;
}

bool write(const std::string &path, const std::map<std::string, long> &values) {
  if (path.empty()) return false;
  const std::string dir = path.substr(0, path.rfind('/'));
  mkdir(dir.substr(0, dir.rfind('/')).c_str(), 0700);
  mkdir(dir.c_str(), 0700);
  const std::string tmp = path + "." + std::to_string(getpid());
  FILE *f = std::fopen(tmp.c_str(), "w");
  if (!f) return false;
  for (const auto &[k, n] : values) std::fprintf(f, "%s %ld\n", k.c_str(), n);
  if (std::fclose(f) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace hqr::crossover
