#!/bin/sh
# valgrind memcheck over the CMocka programs whose sizes suit it: every
# invalid read or write, use of uninitialised memory or bad free in hqr, the
# system LAPACK it calls or the test itself fails the program (exit status
# 99), forked children included; test/valgrind.supp lists the reports from
# outside hqr that are not bugs, each with why. test_cholesky, test_inverse,
# test_qr and test_potrf_hybrid run orders up to 500-1000 in every variant
# and take a quarter of an hour or more each under valgrind; they run under
# ASan and UBSan (make check-asan) instead. VALGRIND_TESTS="test_x ..."
# picks others. The QR-update programs skip cases here (HQR_TEST_SKIP), for
# time: test_qrupd its d cases (s runs the same templates) and its complex
# gpu_paths (orders meant for a GPU, on the CPU here; 11 of the 12 minutes
# the c and z cases once took) and test_qrupd_econ its passes_z (passes_d
# runs the same threaded passes) and gpu_paths_* (tall Q, 2000-5003 rows:
# addcols_s and _d took 4 minutes under valgrind with them, the CI's
# valgrind part grew from about 11 to 25 minutes); the three took 30 of
# the 39 minutes this script took before. ASan and UBSan run them all (make check-asan). CPU only (HQR_DEVICE=none): valgrind and the CUDA driver do
# not mix, and the GPU side has compute-sanitizer (scripts/gpu-check.sh).
# OpenBLAS runs one thread per call: valgrind serialises threads, and
# OpenBLAS's spinning ones would only burn time. --fair-sched=yes: with
# valgrind's default lock a busy thread can starve the others for good (as
# test_fork's main thread, waiting for its busy one, was).
BUILD=${BUILD:-build}
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/valgrind.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

if ! command -v valgrind >/dev/null 2>&1; then
  notok "valgrind: valgrind is installed (Debian package valgrind; make deps)"
  exit 1
fi
unset HQR_GPU_MIN_N
export HQR_DEVICE=none OPENBLAS_NUM_THREADS=1
export HQR_TEST_MAX_N=${HQR_TEST_MAX_N:-40}  # test_threads' orders
for t in ${VALGRIND_TESTS:-test_errors test_runtime test_qrupd test_qrupd_econ test_threads test_fork}; do
  prog=$BUILD/test/$t
  if [ ! -x "$prog" ]; then
    notok "valgrind: $prog is built (make tests)"
    continue
  fi
  case $t in
    test_qrupd) skip='*_d,gpu_paths_c,gpu_paths_z' ;;
    test_qrupd_econ) skip='passes_z,gpu_paths_*' ;;
    *) skip= ;;
  esac
  HQR_TEST_SKIP=$skip valgrind -q --fair-sched=yes --error-exitcode=99 --suppressions=test/valgrind.supp "$prog" \
    >"$out/$t.log" 2>&1; rc=$?
  passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out/$t.log")
  if [ $rc -eq 0 ] && [ -n "$passed" ] && ! grep -q '^\[  FAILED  \]' "$out/$t.log"; then
    ok "valgrind: $t clean under memcheck ($passed tests)"
  else
    notok "valgrind: $t clean under memcheck (exit status $rc)"
    grep -E '^==[0-9]+==|FAILED|ERROR' "$out/$t.log" | head -n 40
  fi
done
if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
