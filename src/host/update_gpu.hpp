// The QR updates' choice between the GPU and the CPU, shared by the full
// form (qrupd.cpp) and the economy form (qrupd_econ.cpp): each routine
// estimates both times from its own cost model and asks gpu_choice; a GPU
// update that does not run (gpu::Result::ran false) leaves the arrays as
// they came and the CPU runs, the trace saying why.
#pragma once

#include "config.hpp"
#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "lwork.hpp"
#include "trace.hpp"

namespace hqr {

// HQR_GPU_MIN_N forces the GPU from that size (max(M,N)) on; otherwise the
// estimated times decide.
struct GpuChoice {
  bool gpu;
  const char *why;  // why the CPU runs
};
inline GpuChoice gpu_choice(long size, double t_cpu, double t_gpu) {
  const long forced = config::gpu_min_n();
  if (forced >= 0) {
    if (size < forced) return {false, "below HQR_GPU_MIN_N"};
  } else if (t_gpu >= t_cpu) {
    return {false, "the CPU is faster at this size"};
  }
  // Not yet started, a call quicker on the CPU than the GPU's start runs there.
  if (const GpuGate g = gpu_gate(t_cpu); !g.open) return {false, g.why};
  return {true, nullptr};
}

// Runs `run` (a GPU update) where `g` chose the GPU. True when it ran: the
// trace says gpu-update (with its note where the CPU finished a part of Q)
// and WORK(1) holds lwopt. Otherwise g says why the CPU runs instead.
template <class T, class Run> bool ran_on_gpu(GpuChoice &g, Trace &trace, T *work, long lwopt, Run &&run) {
  if (!g.gpu) return false;
  const gpu::Result res = run();
  if (res.ran) {
    trace.path("gpu-update", res.why);
    work[0] = lwork_value<T>(lwopt);
    return true;
  }
  g = {false, res.why};
  return false;
}

}  // namespace hqr
