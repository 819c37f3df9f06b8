// Where each routine's GPU path starts to pay: the crossover order of a
// routine and precision on one GPU model and host, from one of three sources,
// none of which measures anything inside a caller's call:
//   the cache file that hqr-calibrate (hqr_calibrate()) or HQR_CALIBRATE=1
//   wrote for this GPU, host and settings;
//   else the defaults shipped for the GPU model (kShipped in crossover.cpp,
//   each value pointing at the results file it comes from);
//   else a conservative generic default for a GPU hqr has no numbers for.
// Pure functions of their arguments and the environment: test/test_crossover
// compiles this file in.
#pragma once

#include <map>
#include <string>

namespace hqr::crossover {

enum class Source { cached, shipped, generic, measured };
const char *source_name(Source s);  // "cache file", "shipped default", ...

struct Entry {
  long n;  // the GPU serves orders of at least n
  Source source;
};

// The default for `routine` ("potrf", "trtri", "lauum", "potri", "geqrf")
// and `prec` ('s', 'd', 'c', 'z') on a GPU named `gpu_name` in a host of
// `host_cores` cores: the shipped value for that model (Source::shipped,
// scaled up on hosts of more cores than the one it was measured on), or the
// generic one (Source::generic) for other models and routines.
Entry shipped(const char *gpu_name, const char *routine, char prec, long host_cores);

// The cache file for this GPU name, host and settings:
// $XDG_CACHE_HOME/hqr/crossover-<hash>.txt (~/.cache/hqr/ without it);
// "" when neither XDG_CACHE_HOME nor HOME is set.
std::string cache_path(const char *gpu_name);
// Its lines, "potrf d 512", keyed "potrf d"; empty when it cannot be read.
std::map<std::string, long> read(const std::string &path);
// Written whole to a temporary file and renamed, so that concurrent
// processes never see half a file; false when it could not be written.
bool write(const std::string &path, const std::map<std::string, long> &values);

std::string key(const char *routine, char prec);

}  // namespace hqr::crossover
