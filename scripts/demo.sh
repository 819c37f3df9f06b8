#!/bin/sh
# make demo: an unmodified LAPACK program (examples/solve_spd.f90, built with
# -llapack only) runs once plainly and once with LD_PRELOAD=libhqr.so. Prints
# the wall time of each run, whether a GPU was found, the path hqr took for
# every call (HQR_VERBOSE), and whether the two runs' answers agree.
#
#   BUILD=build scripts/demo.sh [n]      (default n = 4000; DEMO_N works too)
set -u
BUILD=${BUILD:-build}
N=${1:-${DEMO_N:-4000}}
FC=${FC:-gfortran}
CC=${CC:-cc}
libdir=$(cd "$BUILD" && pwd) || exit 1
lib=$libdir/libhqr.so
out=$BUILD/examples
mkdir -p "$out"
[ -f "$lib" ] || { echo "demo: $lib is missing (run make first)"; exit 1; }

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

echo "== hqr demo: examples/solve_spd.f90, an unmodified LAPACK program, n = $N"
echo "   build: $FC -O2 examples/solve_spd.f90 -o $out/solve_spd -llapack"
$FC -O2 examples/solve_spd.f90 -o "$out/solve_spd" -llapack || exit 1
echo "   the program's LAPACK: $(readelf -d "$out/solve_spd" | sed -n 's/.*(NEEDED).*\[\(liblapack[^]]*\)\]/\1/p')" \
     "-> $(readlink -f "$(ldd "$out/solve_spd" | awk '/liblapack/ { print $3 }')")"

# ---- GPU: what the machine has, and what hqr itself reports --------------
echo
echo "== GPU"
have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >"$out/gpus.txt" 2>/dev/null && [ -s "$out/gpus.txt" ]; then
  have_gpu=1
  sed 's/^/   nvidia-smi: /' "$out/gpus.txt"
else
  echo "   nvidia-smi: no NVIDIA GPU or driver found"
fi
cat > "$out/hqr_probe.c" <<'PROBE'
#include <stdio.h>
#include <hqr.h>
int main(void) {
  printf("%s %d %s\n", hqr_version(), hqr_device(), hqr_device_name());
  return 0;
}
PROBE
device=-1
if $CC -Iinclude "$out/hqr_probe.c" -o "$out/hqr_probe" -L"$libdir" -lhqr -Wl,-rpath,"$libdir" 2>/dev/null &&
   probe=$("$out/hqr_probe"); then
  version=${probe%% *}; rest=${probe#* }; device=${rest%% *}; name=${rest#* }
  if [ "$device" -ge 0 ] 2>/dev/null; then
    echo "   hqr $version: serves large calls on GPU $device ($name); small ones stay on the CPU"
  elif [ $have_gpu = 1 ]; then
    echo "   hqr $version: uses no GPU (a build without CUDA, HQR_DEVICE=none, or no usable device): hqr runs the CPU path"
  else
    echo "   hqr $version: no GPU: hqr runs the CPU path (the system LAPACK, through hqr's entry points)"
  fi
else
  echo "   hqr: could not build the hqr_device() probe; see the path column below"
fi

# ---- run 1: plain ---------------------------------------------------------
echo
echo "== run 1: plain (the system LAPACK)"
t0=$(now)
"$out/solve_spd" "$N" >"$out/plain.out" 2>&1; rc1=$?
t1=$(now)
sed 's/^/   /' "$out/plain.out"
wall1=$(elapsed "$t0" "$t1")
echo "   wall time: ${wall1}s (exit status $rc1)"

# ---- run 2: through hqr ---------------------------------------------------
echo
echo "== run 2: LD_PRELOAD=$lib HQR_VERBOSE=1"
t0=$(now)
LD_PRELOAD=$lib HQR_VERBOSE=1 "$out/solve_spd" "$N" >"$out/hqr.out" 2>"$out/hqr.err"; rc2=$?
t1=$(now)
sed 's/^/   /' "$out/hqr.out"
wall2=$(elapsed "$t0" "$t1")
echo "   wall time: ${wall2}s (exit status $rc2)"
echo "   calls hqr took (HQR_VERBOSE):"
# A call's line names its path; hqr's other lines (the GPUs' start) pass below.
if grep -q '^hqr: .* path=' "$out/hqr.err"; then
  # "hqr: dpotrf uplo=L n=4000 lda=4000 path=cpu (why) time=0.75s 28.3 GFLOP/s"
  awk '/^hqr: .* path=/ {
    r = $2; i = index($0, " path="); a = substr($0, 7 + length(r), i - 7 - length(r))
    rest = substr($0, i + 6); split(rest, w, " "); why = ""; t = ""; g = ""
    if (match(rest, /\([^)]*\)/)) why = "   (" substr(rest, RSTART + 1, RLENGTH - 2) ")"
    if (match(rest, /time=[^ ]*/)) t = substr(rest, RSTART + 5, RLENGTH - 5)
    if (match(rest, /[0-9.]+ GFLOP\/s/)) g = substr(rest, RSTART, RLENGTH)
    printf "     %-7s %-52s path=%-4s %10s %14s%s\n", r, a, w[1], t, g, why
  }' "$out/hqr.err"
else
  echo "     none -- hqr did not take any call"
fi
grep -v '^hqr: .* path=' "$out/hqr.err" | sed 's/^/   stderr: /'

# ---- verdict --------------------------------------------------------------
echo
echo "== summary"
paths=$(sed -n 's/^hqr: .* path=\([a-z]*\).*/\1/p' "$out/hqr.err" | sort | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s=", " }')
speedup=$(awk -v a="$wall1" -v b="$wall2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')
echo "   plain: ${wall1}s   through hqr: ${wall2}s   (plain/hqr: $speedup)   hqr paths: ${paths:-none}"
[ "$device" -ge 0 ] 2>/dev/null || echo "   no GPU: hqr runs the CPU path, so both runs do the same work (the GPU path is where the speed-up comes from)"
status=0
if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
  echo "   FAILED: a run exited with status $rc1 / $rc2"; status=1
fi
# Same problems, same answers: checksums to a relative 1e-9, residuals both
# below LAPACK's threshold (the program itself checks them: exit status).
if awk '
  { for (i = 1; i <= NF; ++i) if ($i ~ /^checksum=/) { v = substr($i, 10); if (v == "") v = $(i + 1) } }
  /checksum=/ { if (FNR == NR) a[FNR] = v + 0; else { b[FNR] = v + 0; m = FNR } ; n = (FNR == NR ? FNR : n) }
  END {
    if (n == 0 || n != m) { print "   answers: different number of results (" n " vs " m ")"; exit 1 }
    bad = 0
    for (k in a) { d = a[k] - b[k]; if (d < 0) d = -d; s = a[k] < 0 ? -a[k] : a[k]
      if (d > 1e-9 * s) { printf "   answers differ: checksum %.16e vs %.16e\n", a[k], b[k]; bad = 1 } }
    exit bad
  }' "$out/plain.out" "$out/hqr.out"; then
  echo "   answers agree: checksums equal to 1e-9 relative, residuals within LAPACK's threshold in both runs"
else
  status=1
fi
exit $status
