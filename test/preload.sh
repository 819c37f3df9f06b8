#!/bin/sh
# Way in 1: LD_PRELOAD into an unmodified program built against the system
# LAPACK (-llapack, nothing from hqr). The program (test/preload_prog.f90)
# checks its own residuals; run plainly and with LD_PRELOAD=libhqr.so, both
# must pass, their checksums must agree, and HQR_VERBOSE must show that hqr
# took the routines it implements (dgesv is forwarded, so it has no line).
BUILD=${BUILD:-build}
lib=$(cd "$BUILD" && pwd)/libhqr.so
# A directory of its own per run (make check may run twice at once in one
# build); removed when everything passed, kept for a look otherwise.
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/preload.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

if ! ${FC:-gfortran} -O2 test/preload_prog.f90 -o "$out/preload_prog" -llapack; then
  notok "preload: build test/preload_prog.f90 against -llapack"
  exit 1
fi
if readelf -d "$out/preload_prog" | grep -q 'libhqr'; then
  notok "preload: the program does not depend on libhqr"
else
  ok "preload: the program is built against the system LAPACK only"
fi

"$out/preload_prog" >"$out/plain.out" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q '^PASS' "$out/plain.out"; then ok "preload: plain run passes its residual checks"
else notok "preload: plain run passes its residual checks"; cat "$out/plain.out"; fi

LD_PRELOAD=$lib HQR_VERBOSE=1 "$out/preload_prog" >"$out/hqr.out" 2>"$out/hqr.err"; rc=$?
if [ $rc -eq 0 ] && grep -q '^PASS' "$out/hqr.out"; then ok "preload: LD_PRELOAD run passes its residual checks"
else notok "preload: LD_PRELOAD run passes its residual checks"; cat "$out/hqr.out" "$out/hqr.err"; fi

# Same routines, same order, checksums equal to a relative 1e-8.
if awk '
  FNR == NR { if ($2 ~ /^ratio=/) { split($0, f, "checksum="); split(f[2], g, " "); c[$1] = g[1]; n++ }; next }
  $2 ~ /^ratio=/ {
    split($0, f, "checksum="); split(f[2], g, " "); x = g[1] + 0; m++
    if (!($1 in c)) { print "  " $1 ": missing in the plain run"; bad = 1; next }
    y = c[$1] + 0; d = x - y; if (d < 0) d = -d; s = (y < 0 ? -y : y)
    if (d > 1e-8 * s) { print "  " $1 ": checksum " x " vs " y; bad = 1 }
  }
  END { if (n == 0 || n != m) { print "  routine count " n " vs " m; bad = 1 }; exit bad }
' "$out/plain.out" "$out/hqr.out"; then
  ok "preload: results agree with the plain run"
else
  notok "preload: results agree with the plain run"
fi

for r in dpotrf dpotri dgeqrf dgels zpotrf; do
  line=$(grep "^hqr: $r " "$out/hqr.err" | head -n 1)
  if [ -n "$line" ]; then ok "preload: hqr took $r ($(echo "$line" | sed 's/^hqr: //'))"
  else notok "preload: hqr took $r (no HQR_VERBOSE line)"; fi
done
if grep -q '^hqr: dgesv ' "$out/hqr.err"; then
  notok "preload: dgesv is forwarded, not taken"
else
  ok "preload: dgesv (not implemented by hqr) forwarded to the system LAPACK"
fi
if grep -v '^hqr: ' "$out/hqr.err" | grep -q .; then
  notok "preload: nothing but HQR_VERBOSE lines on stderr"; grep -v '^hqr: ' "$out/hqr.err" | head -n 5
else
  ok "preload: nothing but HQR_VERBOSE lines on stderr"
fi
if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
