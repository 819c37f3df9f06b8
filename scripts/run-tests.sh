#!/bin/sh
# Runs every CMocka test program given as an argument, then every test/*.sh
# script, and prints one closing line: "N passed, N failed".
# CMocka programs report their own counts; scripts print "ok - ..." and
# "not ok - ..." lines (and exit non-zero when something failed).
BUILD=${BUILD:-build}
export BUILD
passed=0; failed=0; broken=""
log=$(mktemp)
for t in "$@"; do
  echo "== $t"
  "$t" >"$log" 2>&1; rc=$?
  cat "$log"
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p)); failed=$((failed + f))
  [ "$rc" -ne 0 ] && broken="$broken $t"
done
for s in $( [ "${HQR_TEST_SCRIPTS:-1}" = 1 ] && ls test/*.sh 2>/dev/null ); do
  [ -f "$s" ] || continue
  echo "== $s"
  sh "$s" >"$log" 2>&1; rc=$?
  cat "$log"
  p=$(grep -c '^ok ' "$log"); f=$(grep -c '^not ok ' "$log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p)); failed=$((failed + f))
  [ "$rc" -ne 0 ] && broken="$broken $s"
done
rm -f "$log"
[ -n "$broken" ] && echo "failing:$broken"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ -z "$broken" ]
