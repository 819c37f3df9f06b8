#!/bin/sh
# On a networked Debian machine: collects into DIR (default .gpu/debs) the
# Debian packages hqr needs at run time on a GPU host that has CUDA but no
# network and no OpenBLAS (libqrupdate1: the update benchmark's peer), and
# Open MPI with ScaLAPACK for scripts/bench-scalapack and test/scalapack.sh:
# mpirun (openmpi-bin, its help texts in openmpi-common), libmpi, PMIx,
# hwloc, libevent, munge and libudev (hwloc's), no network transports (the
# ranks of one host talk through shared memory).
# scripts/offline-env.sh unpacks them there.
set -eu
dir=${1:-.gpu/debs}
mkdir -p "$dir"
cd "$dir"
apt-get download libopenblas0-pthread liblapack3 libblas3 libgfortran5 libquadmath0 libcmocka0 \
    liblapack-test libblas-test libtmglib3 libqrupdate1 \
    openmpi-bin openmpi-common libopenmpi3 libscalapack-openmpi2.2 libpmix2 libhwloc15 \
    libevent-core-2.1-7 libevent-pthreads-2.1-7 libmunge2 libudev1 2>&1 | tail -n 2
# NVBLAS (the potrf benchmark's peer) ships with the CUDA toolkit, not with
# every CUDA runtime image: take this machine's copy along when it has one.
for f in ${CUDA_HOME:-/usr/local/cuda}/lib64/libnvblas.so.*; do [ -e "$f" ] && cp -L "$f" .; done
ls
