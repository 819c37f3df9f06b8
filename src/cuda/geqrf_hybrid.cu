// xGEQRF on the GPU: the entry points (gpu.hpp, qr_device.hpp); the
// schedule itself is HybridGeqrf (geqrf_hybrid.cuh), the device set's
// geqrf_node.cu.
#include <mutex>

#include "cuda/geqrf_hybrid.cuh"
#include "cuda/node.hpp"
#include "cuda/qr_device.hpp"

namespace hqr::gpu {


template <class T>
Result geqrf_on_device(Context &c, lint m, lint n, T *a, lint lda, T *tau, std::size_t extra_bytes, DeviceQR<T> *out,
                       const char **path, bool conj_transposed) {
  const Panel mode = panel_mode();
  if (path)
    *path = mode == Panel::cpu ? "gpu-hybrid (cpu panels)"
            : mode == Panel::cusolver ? "gpu-hybrid (cusolver panels)"
                                      : "gpu-hybrid (gpu panels)";
  if (conj_transposed)
    return HybridGeqrf<T>(typename HybridGeqrf<T>::ConjTransposed{}, c, m, n, a, lda, tau, block_size(n, mode), mode,
                          extra_bytes, out)
        .run();
  return HybridGeqrf<T>(c, m, n, a, lda, tau, block_size(n, mode), mode, extra_bytes, out).run();
}

template <class T> Result geqrf_device(Context &c, lint m, lint n, T *a, lint ldda, T *tau, DeviceQR<T> *kept) {
  if (m == 0 || n == 0) return {true, 0, nullptr, 0};
  const Panel mode = panel_mode();
  return HybridGeqrf<T>(typename HybridGeqrf<T>::OnDevice{}, c, m, n, a, ldda, tau, block_size(n, mode), mode, kept)
      .run();
}
lint geqrf_device_block(lint n) { return block_size(n, panel_mode()); }

// The columns the in-core schedule may hold at once: n where the matrix
// and its workspace fit what the GPU may plan with (schedule_budget: its free
// memory less a margin for the libraries, or HQR_GPU_MEMORY), else the
// widest window of whole panels that does beside the window loop's own
// panel slots (qr_apply.cu's geqrf_out_of_core), at least one panel.
template <class T> lint geqrf_window(Context &c, lint m, lint n) {
  const lint nb = block_size(n, panel_mode());
  const double need = HybridGeqrf<T>::in_core_bytes(m, n, nb);
  const std::size_t budget = schedule_budget(c, need);
  if (budget == 0 || need <= double(budget)) return n;
  const double e = sizeof(T), ldd = double((m + 31) / 32 * 32);
  const double fixed = HybridGeqrf<T>::in_core_bytes(m, 0, nb) + 3 * e * ldd * nb, per_column = e * (ldd + 4.0 * nb);
  const lint w = double(budget) > fixed ? lint((double(budget) - fixed) / per_column) / nb * nb : 0;
  return std::min(n, std::max(w, nb));
}

template <class T> Result geqrf(lint m, lint n, T *a, lint lda, T *tau, const char **path) {
  const DeviceSet set = device_set();
  if (!set.count) return {false, 0, context_error(), 0};
  if (set.count > 1) {  // the whole set (geqrf_node.cu), where it serves
    SetLock lock(set);
    Context &first = *set.member[0];
    const bool one_fits = ok(cudaSetDevice(first.device)) && geqrf_window<T>(first, m, n) == n;
    if (const lint w = geqrf_set_plan<T>(set, m, n, one_fits); w > 0) {  // in core, or in windows (w < n)
      int windows = 1;
      Result r = geqrf_set(set, m, n, a, lda, tau, w, &windows);
      if (path) *path = node_path(set.count, windows);
      return r;
    }
  }
  Context *c = set.member[0];
  std::lock_guard<std::mutex> g(c->lock);
  if (!ok(cudaSetDevice(c->device))) return {false, 0, "cudaSetDevice failed", 0};
  if (const lint w = geqrf_window<T>(*c, m, n); w < n) {
    int windows = 0;
    const Result r = geqrf_out_of_core(*c, m, n, a, lda, tau, w, &windows);
    if (path) *path = node_path(1, windows);
    return r;
  }
  if (Result r; geqrf_one_trip(*c, m, n, a, lda, tau, &r)) {
    if (path) *path = "gpu-one-trip";
    return r;
  }
  return geqrf_on_device(*c, m, n, a, lda, tau, 0, static_cast<DeviceQR<T> *>(nullptr), path);
}

template Result geqrf(lint, lint, float *, lint, float *, const char **);
template Result geqrf(lint, lint, double *, lint, double *, const char **);
template Result geqrf(lint, lint, std::complex<float> *, lint, std::complex<float> *, const char **);
template Result geqrf(lint, lint, std::complex<double> *, lint, std::complex<double> *, const char **);
#define HQR_INSTANTIATE(T)                                                                                        \
  template lint geqrf_window<T>(Context &, lint, lint);                                                            \
  template Result geqrf_on_device(Context &, lint, lint, T *, lint, T *, std::size_t, DeviceQR<T> *, const char **, \
                                  bool);                                                                          \
  template Result geqrf_device(Context &, lint, lint, T *, lint, T *, DeviceQR<T> *);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
