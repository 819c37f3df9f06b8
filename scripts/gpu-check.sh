#!/bin/bash
# On the GPU machine: the test suite with every size sent through the GPU
# (HQR_GPU_MIN_N=0), two processes sharing the GPU, the hybrid potrf at large
# orders, compute-sanitizer, and the benchmark. Takes a build made elsewhere
# (make; the test programs and build/bench_potrf) and the packages from
# scripts/offline-bundle.sh.
#   scripts/gpu-check.sh [OUTDIR]
set -u
out=${1:-/tmp/hqr-gpu-check}
mkdir -p "$out"
. scripts/offline-env.sh >/dev/null
export HQR_REFERENCE_LAPACK=$hqr_lib/lapack/liblapack.so.3
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX}  # Debian's 0.3.21 misdetects Sapphire Rapids
nvidia-smi -L | tee "$out/device.txt"
fail=0
tests=$(ls build/test/test_* 2>/dev/null)

echo "== suite, every size on the GPU"
HQR_GPU_MIN_N=0 BUILD=build HQR_TEST_SCRIPTS=0 scripts/run-tests.sh $tests >"$out/suite.log" 2>&1 || fail=1
tail -n 3 "$out/suite.log"

echo "== two processes sharing the GPU"
HQR_GPU_MIN_N=0 BUILD=build sh test/two_processes.sh >"$out/two_processes.log" 2>&1 || fail=1
grep -E '^(not )?ok' "$out/two_processes.log"

echo "== hybrid potrf up to n = 20000"
HQR_GPU_MIN_N=0 HQR_TEST_LARGE=1 build/test/test_potrf_hybrid >"$out/large.log" 2>&1 || fail=1
tail -n 2 "$out/large.log"

echo "== compute-sanitizer"
for tool in memcheck racecheck; do
  HQR_GPU_MIN_N=0 timeout 240 compute-sanitizer --tool $tool --error-exitcode 99 build/test/test_potrf_hybrid \
      >"$out/sanitizer-$tool.log" 2>&1 || fail=1
  grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/sanitizer-$tool.log" | tail -n 3
done
# Many threads' GPU calls at once (orders up to 200 keep it short).
HQR_GPU_MIN_N=0 HQR_TEST_MAX_N=200 timeout 300 compute-sanitizer --tool memcheck --error-exitcode 99 \
    build/test/test_threads >"$out/sanitizer-threads.log" 2>&1 || fail=1
grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/sanitizer-threads.log" | tail -n 3
[ $fail = 0 ] && echo "gpu-check: all passed" || echo "gpu-check: FAILURES (logs in $out)"
exit $fail
