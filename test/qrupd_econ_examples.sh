#!/bin/sh
# The worked examples of the economy form, ABI.md section 5.8, in C
# (examples/qrupd_econ_{cols,rows}.c, hqr.h, -lhqr) and in Fortran
# (examples/qrupd_econ_{cols,rows}.f90, `use hqr`): each builds, runs, and
# compares its updated solution with a fresh DGELS of the current data after
# every step. Here they run at 100000 observations (the programs' default is
# the 1000000 x 200, minutes on two cores): this script reads every
# relative difference they print and wants each at most 1e-10, the number of
# steps each program has, exit status 0 and the closing "check: ... ok"
# (the output is shown when something is wrong).
BUILD=${BUILD:-build}
libdir=$(cd "$BUILD" && pwd)
COLS_ARGS="100000 200"        # M, N
ROWS_ARGS="100000 200 10000"  # M, K, batch
# A directory of its own per run (make check may run twice at once in one
# build); removed when everything passed, kept for a look otherwise.
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/qrupd_econ_examples.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

# differences <output> <pattern>: the number after <pattern> on each step
# line (not the closing check line), one a line.
differences() {
  grep -v '^check:' "$1" | sed -n "s#^.*$2 *\([-+0-9.eEnNaAiIfF]*\).*\$#\1#p"
}

# verify <what> <output> <rc> <pattern> <count> [<pattern> <count>]: the
# program exited 0, printed <count> differences after each <pattern>, each
# at most 1e-10, and "check: ... ok".
verify() {
  what=$1 file=$2 rc=$3
  shift 3
  bad=""
  [ "$rc" -eq 0 ] || bad="exit status $rc"
  grep -q '^check: .*: ok$' "$file" || bad="$bad; no 'check: ... ok' line"
  while [ $# -gt 0 ]; do
    differences "$file" "$1" >"$file.num"
    n=$(wc -l <"$file.num")
    [ "$n" -eq "$2" ] || bad="$bad; $n differences after '$1', not $2"
    awk '{ if (!($1 + 0 <= 1e-10) || $1 !~ /^[0-9]/) exit 1 }' "$file.num" ||
      bad="$bad; a difference after '$1' above 1e-10 (or not a number)"
    shift 2
  done
  if [ -z "$bad" ]; then
    ok "qrupd_econ_examples: $what agrees with DGELS after every step"
  else
    notok "qrupd_econ_examples: $what agrees with DGELS after every step (${bad#; })"
    sed 's/^/#   /' "$file"
  fi
}

# run <what> <binary> <args> <pattern> <count> [<pattern> <count>]
run() {
  what=$1 bin=$2 args=$3
  shift 3
  start=$(date +%s)
  # shellcheck disable=SC2086 # the arguments are words
  "$bin" $args >"$bin.out" 2>&1
  rc=$?
  echo "# $what $args: $(($(date +%s) - start)) s"
  verify "$what" "$bin.out" $rc "$@"
}

# build_c <name>, build_f <name>: examples/<name>.c or .f90 into $out/<name>_{c,f}.
build_c() {
  if ${CC:-cc} -O2 -Wall -Iinclude "examples/$1.c" -o "$out/$1_c" -L"$libdir" -lhqr -Wl,-rpath,"$libdir" -lm \
     >"$out/$1_c.log" 2>&1; then
    ok "qrupd_econ_examples: examples/$1.c builds with hqr.h and -lhqr"
  else
    notok "qrupd_econ_examples: examples/$1.c builds with hqr.h and -lhqr"; cat "$out/$1_c.log"; return 1
  fi
}
build_f() {
  if ${FC:-gfortran} -O2 -I"$BUILD" -J"$out" "examples/$1.f90" -o "$out/$1_f" -L"$libdir" -lhqr \
     -Wl,-rpath,"$libdir" >"$out/$1_f.log" 2>&1; then
    ok "qrupd_econ_examples: examples/$1.f90 builds with 'use hqr' and -lhqr"
  else
    notok "qrupd_econ_examples: examples/$1.f90 builds with 'use hqr' and -lhqr"; cat "$out/$1_f.log"; return 1
  fi
}

# Columns: the start and 4 steps, each one |x - x_dgels|/|x_dgels|.
# Rows: the first batch, half and all, each one for x and one for |rho|.
X='x_dgels|/|x_dgels| ='
RHO='relative difference'
build_c qrupd_econ_cols && run "the C columns example" "$out/qrupd_econ_cols_c" "$COLS_ARGS" "$X" 5
build_c qrupd_econ_rows && run "the C rows example" "$out/qrupd_econ_rows_c" "$ROWS_ARGS" "$X" 3 "$RHO" 3
if [ ! -f "$BUILD/hqr.mod" ]; then
  notok "qrupd_econ_examples: $BUILD/hqr.mod exists (make builds it)"
else
  build_f qrupd_econ_cols && run "the Fortran columns example" "$out/qrupd_econ_cols_f" "$COLS_ARGS" "$X" 5
  build_f qrupd_econ_rows && run "the Fortran rows example" "$out/qrupd_econ_rows_f" "$ROWS_ARGS" "$X" 3 "$RHO" 3
fi

if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
