#!/bin/sh
# No lock serialises CPU-path calls: with a gate library standing in for the
# system LAPACK (test/cpu_concurrency_gate.c, through HQR_LAPACK), two
# threads calling the same hqr routine must both be inside the system
# LAPACK at the same time (test/cpu_concurrency_prog.c), for dpotrf, dpotri,
# dtrtri, dgeqrf, dgels, dqrupd_addcols (its dgemm), and small dgemm and
# cblas_dgemm calls (the level-3 BLAS front). A structural check,
# not a timing: the gate holds the first thread until the second arrives
# (10 s at most), so a lock anywhere around the CPU path fails it. OpenBLAS
# runs each call on its calling thread (OPENBLAS_NUM_THREADS=1): its own
# thread pool is not what is tested here.
BUILD=${BUILD:-build}
bdir=$(cd "$BUILD" && pwd)
# A directory of its own per run; removed when everything passed.
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/cpu_concurrency.XXXXXX") || exit 1
cc=${CC:-cc}
if ! $cc -O2 -fPIC -shared test/cpu_concurrency_gate.c -o "$out/gate.so" \
       -Wl,--no-as-needed -llapack -lblas -ldl ||
   ! $cc -O2 -Iinclude test/cpu_concurrency_prog.c -o "$out/prog" -L"$bdir" -lhqr -Wl,-rpath,"$bdir" -pthread; then
  echo "not ok - cpu_concurrency: build the gate and the program"
  exit 1
fi
HQR_LAPACK=$out/gate.so HQR_DEVICE=none OPENBLAS_NUM_THREADS=1 "$out/prog" "$out/gate.so"; rc=$?
[ $rc -gt 128 ] && echo "not ok - cpu_concurrency: the program ended by signal $((rc - 128))"
if [ $rc -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $rc
