#!/bin/sh
# The reference BLAS's level-3 test programs (Debian package libblas-test):
# xblat3{s,d,c,z} (Fortran) and x{s,d,c,z}cblat3 (CBLAS, both layouts),
# error exits included, each run without hqr, with LD_PRELOAD=libhqr.so, and
# with LD_PRELOAD=libhqr.so HQR_GPU_MIN_N=0 (every call hqr takes on the GPU
# path where there is a GPU; on a machine without one, the CPU path again).
# A program passes when every run finishes with END OF TESTS, no line says
# FAIL, the three runs' summaries (PASSED lines) are identical, and hqr's
# runs went through hqr's front (HQR_VERBOSE lines for the program's
# routines). A few seconds on 2 cores.
#
# The Fortran programs run against the system BLAS (OpenBLAS). Debian builds
# the CBLAS programs against the reference CBLAS: they need its
# RowMajorStrg, which OpenBLAS does not define, so they run with the
# reference BLAS's folder first in LD_LIBRARY_PATH (hqr then sits in front
# of the reference BLAS, which is also what answers the illegal calls hqr
# forwards). Then the level-1 programs xblat1{s,d,c,z}, for hqr's xCOPY.
BUILD=${BUILD:-build}
lib=$(cd "$BUILD" && pwd)/libhqr.so
dir=${BLAS_TESTING_DIR:-/usr/lib/x86_64-linux-gnu/blas}
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/blas_testers.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

# summary <output file>: the lines that must agree between the runs.
summary() { grep -E 'PASSED|FAIL|ERROR|END OF TESTS' "$1" | sed 's/ *$//'; }

# check <label> <program> <input> <summary file name or -> <library path or ->
check() {
  label=$1 prog=$2 input=$3 sumfile=$4 libpath=$5
  if [ ! -x "$prog" ] || [ ! -f "$input" ]; then
    notok "blas_testers: $label: $prog and $input exist (Debian package libblas-test; make deps)"
    return
  fi
  why=""
  for run in plain hqr gpu; do
    rdir=$out/$label.$run
    mkdir -p "$rdir"
    case $run in
      plain) env_pre="" ;;
      hqr) env_pre="LD_PRELOAD=$lib HQR_VERBOSE=1" ;;
      gpu) env_pre="LD_PRELOAD=$lib HQR_VERBOSE=1 HQR_GPU_MIN_N=0" ;;
    esac
    if [ "$libpath" != - ]; then env_pre="LD_LIBRARY_PATH=$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $env_pre"; fi
    (cd "$rdir" && env $env_pre OPENBLAS_NUM_THREADS=1 "$prog" < "$input" > stdout 2> stderr); rc=$?
    # The Fortran programs write their summary to a file the input names.
    if [ "$sumfile" != - ]; then res=$rdir/$sumfile; else res=$rdir/stdout; fi
    [ "$rc" -ne 0 ] && why="$why; $run run exit status $rc"
    if [ ! -f "$res" ] || ! grep -q 'END OF TESTS' "$res"; then why="$why; $run run did not finish"; continue; fi
    grep -q 'FAIL' "$res" && why="$why; $run run: $(grep -m 1 'FAIL' "$res" | sed 's/^ *//')"
    summary "$res" > "$out/$label.$run.sum"
    if [ "$run" != plain ]; then
      cmp -s "$out/$label.plain.sum" "$out/$label.$run.sum" || why="$why; $run run's summary differs from the run without hqr"
      # The calls' trace lines (HQR_VERBOSE also reports the GPUs' start).
      traced=$(grep -c '^hqr: .* path=' "$rdir/stderr")
      [ "$traced" -gt 0 ] || why="$why; $run run: no call went through hqr's front"
      # Forced onto the GPU where there is one: some call must have run there.
      if [ "$run" = gpu ] && [ "$traced" -gt 0 ]; then
        nogpu=$(grep '^hqr: .* path=' "$rdir/stderr" | grep -cE '\((no GPU|built without CUDA)\)')
        ongpu=$(grep '^hqr: ' "$rdir/stderr" | grep -c ' path=gpu')
        [ "$nogpu" -lt "$traced" ] && [ "$ongpu" -eq 0 ] && why="$why; gpu run: a GPU but no call ran on it"
      fi
      other=$(grep -v '^hqr: ' "$rdir/stderr" | grep -c .)
      [ "$other" -gt 0 ] && why="$why; $run run: $other line(s) on stderr besides HQR_VERBOSE's"
    fi
  done
  if [ -z "$why" ]; then
    ok "blas_testers: $label: $(grep -c PASSED "$out/$label.plain.sum") PASSED lines, identical without hqr, with it ($(grep -c '^hqr: ' "$out/$label.hqr/stderr") calls through hqr) and with HQR_GPU_MIN_N=0"
  else
    notok "blas_testers: $label${why}"
  fi
}

for p in s d c z; do
  check "xblat3$p" "$dir/xblat3$p" "$dir/${p}blat3.in" "${p}blat3.out" -
done
for p in s d c z; do
  check "x${p}cblat3" "$dir/x${p}cblat3" "$dir/${p}in3" - "$dir"
done
# The level-1 test programs xblat1{s,d,c,z} (no input): their xCOPY is
# hqr's (ABI.md 4.3; every other level-1 routine forwarded). The output must
# be the same without hqr and with it, no FAIL, and the program's xCOPY must
# bind to libhqr.so (LD_DEBUG=bindings).
for p in s d c z; do
  prog=$dir/xblat1$p
  if [ ! -x "$prog" ]; then notok "blas_testers: xblat1$p: $prog exists (libblas-test)"; continue; fi
  (cd "$out" && OPENBLAS_NUM_THREADS=1 "$prog" > "xblat1$p.plain" 2>&1); rc1=$?
  (cd "$out" && LD_PRELOAD=$lib LD_DEBUG=bindings LD_DEBUG_OUTPUT="xblat1$p.bind" OPENBLAS_NUM_THREADS=1 \
      "$prog" > "xblat1$p.hqr" 2>&1); rc2=$?
  passed=$(grep -c 'PASS' "$out/xblat1$p.hqr")
  if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then notok "blas_testers: xblat1$p: exit status $rc1 without hqr, $rc2 with it"
  elif grep -q FAIL "$out/xblat1$p.plain" "$out/xblat1$p.hqr"; then notok "blas_testers: xblat1$p: a FAIL line"
  elif ! cmp -s "$out/xblat1$p.plain" "$out/xblat1$p.hqr"; then notok "blas_testers: xblat1$p: output differs with hqr"
  elif ! cat "$out/xblat1$p.bind".* | grep -q "xblat1$p .* to .*libhqr.so .*\`${p}copy_'"; then
    notok "blas_testers: xblat1$p: its ${p}copy_ did not bind to hqr"
  else ok "blas_testers: xblat1$p: $passed PASS lines, identical with hqr (${p}copy_ hqr's)"; fi
done
if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
