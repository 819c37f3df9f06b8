#!/bin/sh
# The CMocka suite (test/test_*.cpp) built with 64-bit INTEGER against
# libhqr64.so ($BUILD/test64/, `make tests`), run with the 64-bit reference
# LAPACK (Debian's liblapack64-3) to compare with: one line per program.
BUILD=${BUILD:-build}
export HQR_REFERENCE_LAPACK=/usr/lib/x86_64-linux-gnu/lapack64/liblapack64.so.3
# A directory of its own per run (make check may run twice at once in one
# build); removed when everything passed, kept for a look otherwise.
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/ilp64_cmocka.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

if [ ! -f "$HQR_REFERENCE_LAPACK" ]; then
  notok "ilp64_cmocka: $HQR_REFERENCE_LAPACK exists (Debian package liblapack64-3; make deps)"
  exit 1
fi
for src in test/test_*.cpp; do
  name=$(basename "$src" .cpp)
  prog=$BUILD/test64/$name
  if [ ! -x "$prog" ]; then notok "ilp64_cmocka: $prog exists (make tests builds it)"; continue; fi
  "$prog" >"$out/$name.log" 2>&1; rc=$?
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out/$name.log" | awk '{s+=$1} END {print s+0}')
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out/$name.log" | awk '{s+=$1} END {print s+0}')
  if [ $rc -eq 0 ] && [ "$f" -eq 0 ] && [ "$p" -gt 0 ]; then
    ok "ilp64_cmocka: $name with 64-bit INTEGER: $p passed"
  else
    notok "ilp64_cmocka: $name with 64-bit INTEGER: $p passed, $f failed, exit $rc"
    grep -E '^\[  (FAILED|ERROR)|^HQR_TEST_SEED|FAIL|rror' "$out/$name.log" | head -n 20 | sed 's/^/#   /'
  fi
done
if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
