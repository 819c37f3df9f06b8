// cuBLAS and cuSOLVER, bound when the first GPU context is created rather
// than when hqr is loaded (scripts/gen-cuda-stubs.sh writes the trampolines
// the GPU code calls): a process that never starts the GPU does not pay
// their load (65-90 ms, most of hqr's dlopen) or map them at all.
#pragma once

namespace hqr::gpu {

// Loads libcublas and libcusolver (the SONAMEs of the toolkit hqr was built
// with, found as dlopen finds them: already loaded, LD_LIBRARY_PATH,
// libhqr's RUNPATH, the system's) and binds every entry point; once per
// process. nullptr on success, else why not (a missing library or
// function): then no GPU serves calls.
const char *load_cuda_libraries();

}  // namespace hqr::gpu
