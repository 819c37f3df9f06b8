#!/bin/sh
# Runs the test suites given as arguments, in order, and prints one progress
# line per suite as it finishes, then one closing line "N passed, N failed":
#
#   [3/17] test_qr ... 42 passed (35 s)
#   [9/17] lapack_testing.sh ... 3 passed, 1 FAILED (12 s)
#
# An argument ending in .sh is a test script, run with sh: it prints
# "ok - ..." and "not ok - ..." lines (an "ok - ... # SKIP" counts as
# skipped) and exits non-zero when something failed. Any other argument is a
# CMocka program, which reports its own counts. A suite that exits non-zero
# with no failure counted counts as one failure.
#
# Each suite's whole output goes to a log, printed after its progress line
# when the suite failed; the logs' folder ($BUILD/test/logs.XXXXXX) is removed
# when everything passed and named otherwise. HQR_TEST_LOG=full prints every
# suite's whole output before its progress line (scripts/gpu-check.sh reads
# the programs' HQR_VERBOSE lines from it).
BUILD=${BUILD:-build}
export BUILD
mkdir -p "$BUILD/test"
logs=$(mktemp -d "$BUILD/test/logs.XXXXXX") || exit 1
passed=0; skipped=0; failed=0; broken=""; i=0; n=$#
start=$(date +%s)
for t in "$@"; do
  i=$((i + 1))
  name=$(basename "$t")
  log=$logs/$name.log
  t0=$(date +%s)
  case "$t" in
    *.sh)
      sh "$t" >"$log" 2>&1; rc=$?
      p=$(grep '^ok ' "$log" | grep -vc '# SKIP')
      s=$(grep '^ok ' "$log" | grep -c '# SKIP')
      f=$(grep -c '^not ok ' "$log") ;;
    *)
      "$t" >"$log" 2>&1; rc=$?
      p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
      s=0
      f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}') ;;
  esac
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p)); skipped=$((skipped + s)); failed=$((failed + f))
  [ "${HQR_TEST_LOG:-}" = full ] && cat "$log"
  line="[$i/$n] $name ... $p passed"
  [ "$s" -gt 0 ] && line="$line, $s skipped"
  [ "$f" -gt 0 ] && line="$line, $f FAILED"
  [ "$rc" -ne 0 ] && line="$line, exit status $rc"
  echo "$line ($(( $(date +%s) - t0 )) s)"
  if [ "$rc" -ne 0 ] || [ "$f" -gt 0 ]; then
    broken="$broken $t"
    [ "${HQR_TEST_LOG:-}" = full ] || sed 's/^/    /' "$log"
  fi
done
if [ -n "$broken" ]; then
  echo "failing:$broken (logs: $logs)"
else
  rm -rf "$logs"
fi
total="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && total="$passed passed, $skipped skipped, $failed failed"
echo "$total ($(( $(date +%s) - start )) s)"
[ "$failed" -eq 0 ] && [ -z "$broken" ]
