// Run-time settings: read once from the environment, changeable through the
// hqr_set_* API. Every reader sees a consistent value without locking.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hqr::config {

// HQR_DEVICE: the GPUs that serve calls, as a mask of ordinals 0..63.
// "all" (the default): every visible GPU; "none" (or "cpu"): 0; an ordinal
// or a comma-separated list of them ("0,2,3"): those; "local-rank": one GPU
// per MPI rank, the one whose ordinal is the process's node-local rank
// (local_rank()) modulo the number of visible GPUs, or "all" where no rank
// is found.
constexpr std::uint64_t kDevicesAll = ~std::uint64_t(0);
constexpr int kMaxOrdinal = 63;
struct Devices {
  std::uint64_t mask = kDevicesAll;  // the ordinals named, when rank < 0
  int rank = -1;                     // >= 0: "local-rank" with this node-local rank
};
// The GPUs among `visible` ones (ordinals 0..visible-1) that serve calls;
// without the count (before CUDA is asked), "local-rank" answers the rank's bit.
std::uint64_t device_mask(int visible = kMaxOrdinal + 1);
std::uint64_t device_mask(const Devices &d, int visible);
// Parses an HQR_DEVICE value ("local-rank" reads the rank from the
// environment now); false (out untouched) when it is none of the above.
bool parse_devices(const char *text, Devices *out);
void set_devices(const Devices &d);
void set_device_mask(std::uint64_t mask);
// The process's node-local rank under MPI: the first of
// OMPI_COMM_WORLD_LOCAL_RANK (Open MPI), MPI_LOCALRANKID (MPICH, Intel MPI)
// and SLURM_LOCALID (srun) that holds a non-negative integer; -1: none does.
int local_rank();
// HQR_GPU_MEMORY ("8G", "512M", "1T", or bytes): the memory each GPU's
// schedule may plan with; 0: what the GPU has free.
std::size_t gpu_memory();
// HQR_DEVICE_REPLICAS (a testing knob, 1 to 8; default 1): each GPU of the
// set serves as that many members, each with its own context, so that the
// schedules written for several GPUs run on a machine with one.
int device_replicas();
long gpu_min_n();      // HQR_GPU_MIN_N; negative: use the calibrated crossover
int nb();              // HQR_NB; 0: each routine's default
// HQR_PANEL: where the hybrid potrf factors its diagonal blocks and the
// hybrid geqrf its panels (a tuning knob for measurement): cpu (hqr's own
// kernels), gpu (cuSOLVER's potrf; geqrf: CholeskyQR2 with Householder
// reconstruction), cusolver (geqrf: cuSOLVER's geqrf; potrf: as gpu), or
// auto.
constexpr int kPanelAuto = 0, kPanelCpu = 1, kPanelGpu = 2, kPanelCusolver = 3;
int panel();
// HQR_GPU_START: when the GPU contexts are created. auto (the default):
// in the background once the calls the GPU would serve have cost about as
// much on the CPU as the start does, or at once for a call that would take
// longer than that on the CPU (src/host/dispatch.cpp); load: in the
// background when the library loads; call: at the first call the GPU
// would serve, which waits for them.
constexpr int kStartAuto = 0, kStartLoad = 1, kStartCall = 2;
int gpu_start();
// HQR_CALIBRATE=1: a routine and precision whose crossover no cache file
// holds measures it at its first call, as hqr-calibrate does, and caches it.
bool calibrate_on_call();
int cpu_threads();     // HQR_CPU_THREADS; 0: all cores
bool verbose();        // HQR_VERBOSE (>= 1)
int verbose_level();   // HQR_VERBOSE: 2 adds the GPU paths' phase timings, 3 potrf's and geqrf's panel steps

void set_gpu_min_n(long n);
void set_nb(int nb);
void set_cpu_threads(int n);
void set_verbose(bool on);

}  // namespace hqr::config
