// Run-time settings: read once from the environment, changeable through the
// hqr_set_* API. Every reader sees a consistent value without locking.
#pragma once

namespace hqr::config {

constexpr int kDeviceAuto = -2;  // HQR_DEVICE unset: first GPU, if any
constexpr int kDeviceNone = -1;  // HQR_DEVICE=none

int device_request();  // HQR_DEVICE: ordinal, kDeviceNone or kDeviceAuto
long gpu_min_n();      // HQR_GPU_MIN_N; negative: use the calibrated crossover
int nb();              // HQR_NB; 0: each routine's default
// HQR_PANEL: where the hybrid potrf factors its diagonal blocks and the
// hybrid geqrf its panels (a tuning knob for measurement): cpu (hqr's own
// kernels), gpu (cuSOLVER's potrf; geqrf: CholeskyQR2 with Householder
// reconstruction), cusolver (geqrf: cuSOLVER's geqrf; potrf: as gpu), or
// auto.
constexpr int kPanelAuto = 0, kPanelCpu = 1, kPanelGpu = 2, kPanelCusolver = 3;
int panel();
int cpu_threads();     // HQR_CPU_THREADS; 0: all cores
bool verbose();        // HQR_VERBOSE (>= 1)
int verbose_level();   // HQR_VERBOSE: 2 adds the GPU paths' phase timings, 3 potrf's and geqrf's panel steps

void set_device_request(int ordinal);
void set_gpu_min_n(long n);
void set_nb(int nb);
void set_verbose(bool on);

}  // namespace hqr::config
