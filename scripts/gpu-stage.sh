#!/bin/sh
# Here (a networked Debian machine with nvcc): builds the library, the tests
# and the benchmark programs, and stages what a GPU host with no network
# needs into .gpu/ (ignored by git): .gpu/build (libraries, test and
# benchmark programs) and .gpu/debs (scripts/offline-bundle.sh). On the GPU
# host: `rm -rf build && cp -r .gpu/build build`, then scripts/gpu-check.sh
# and scripts/bench*. Object files stay behind, so the folder stays small.
set -eu
make -j"$(nproc)" all tests bench
rm -rf .gpu/build
mkdir -p .gpu/build
cp -r build/libhqr.so build/libhqr64.so build/test build/bench_* .gpu/build/
rm -rf .gpu/build/test/fortran_module.* .gpu/build/test/logs.*
# Without debug sections: the device tool carries at most 64 MiB.
find .gpu/build -type f \( -name '*.so' -o -perm -u+x \) -exec strip --strip-debug {} +
ls .gpu/debs/openmpi-bin_*.deb >/dev/null 2>&1 || scripts/offline-bundle.sh .gpu/debs  # again where an older bundle lacks Open MPI
du -sh .gpu
