#!/bin/sh
# The ILP64 twin, libhqr64.so: 64-bit INTEGER, a drop-in for Debian's
# liblapack64.so.3. It depends on the 64-bit system LAPACK/BLAS and on nothing
# 32-bit; a Fortran program compiled with -fdefault-integer-8
# (test/ilp64_prog.f90) and a C program with int64_t (test/ilp64_prog.c) run
# correctly linked with -lhqr64 alone; the Fortran program, built against
# -llapack64 instead, runs under LD_PRELOAD=libhqr64.so; the ILP64 Fortran module
# ($BUILD/ilp64/hqr.mod) works and rejects 32-bit INTEGERs; hqr.h agrees with
# LAPACKE's <lapack.h> under LAPACK_ILP64. ABI.md section 1 describes the twin.
BUILD=${BUILD:-build}
libdir=$(cd "$BUILD" && pwd)
lib=$libdir/libhqr64.so
# A directory of its own per run (make check may run twice at once in one
# build); removed when everything passed, kept for a look otherwise.
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/ilp64.XXXXXX") || exit 1
FC=${FC:-gfortran}
CC=${CC:-cc}
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }
# Fresh data each run; the seed reproduces a failure.
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "# seed $seed"

if [ ! -f "$lib" ]; then
  notok "ilp64: $BUILD/libhqr64.so exists (make builds it)"
  exit 1
fi
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }

# ---- the library: 64-bit system LAPACK/BLAS, nothing 32-bit -------------------
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = libhqr64.so ]; then ok "ilp64: SONAME libhqr64.so"
else notok "ilp64: SONAME libhqr64.so (is: $soname)"; fi
for dep in liblapack64.so.3 libblas64.so.3; do
  case " $(needed "$lib")" in
    *" $dep "*) ok "ilp64: libhqr64.so needs $dep" ;;
    *) notok "ilp64: libhqr64.so needs $dep (NEEDED: $(needed "$lib"))" ;;
  esac
done
# Neither a NEEDED entry nor a name next_lapack.cpp would dlopen may be a
# 32-bit LAPACK/BLAS: calling one with 64-bit INTEGERs corrupts memory.
lp64=$(strings "$lib" | grep -E '(^|/)lib(lapack|blas|openblas)\.so' | sort -u | tr '\n' ' ')
if [ -z "$lp64" ]; then ok "ilp64: libhqr64.so names no 32-bit LAPACK/BLAS library"
else notok "ilp64: libhqr64.so names no 32-bit LAPACK/BLAS library (names: $lp64)"; fi
resolved=$(ldd "$lib" | awk '/lib(lapack|blas|openblas)/ { print $1 " => " $3 }' | tr '\n' ' ')
case "$resolved" in
  *liblapack64.so.3" => /"*) ok "ilp64: at run time: $resolved" ;;
  *) notok "ilp64: liblapack64.so.3 resolves at run time ($resolved)" ;;
esac

# ---- programs linked with -lhqr64 alone --------------------------------------
# run_checks <lang> <program>: each "ok: ..." / "FAILED: ..." line the program
# prints becomes a test line; then it must have reached PASS.
run_checks() {
  lang=$1 prog=$2
  "$prog" "$seed" >"$prog.out" 2>&1; rc=$?
  while IFS= read -r line; do
    case "$line" in
      "ok: "*) ok "ilp64: $lang: ${line#ok: }" ;;
      "FAILED: "*) notok "ilp64: $lang: ${line#FAILED: }" ;;
      "#"*) echo "$line" ;;
    esac
  done <"$prog.out"
  if [ $rc -eq 0 ] && grep -q '^PASS' "$prog.out"; then ok "ilp64: $lang program ran every check"
  else notok "ilp64: $lang program ran every check (exit $rc)"; tail -n 5 "$prog.out"; fi
  case " $(needed "$prog")" in
    *" liblapack"* | *" libblas"* | *" libopenblas"* | *" libhqr.so "*)
      notok "ilp64: $lang program depends on libhqr64.so only (NEEDED: $(needed "$prog"))" ;;
    *" libhqr64.so "*) ok "ilp64: $lang program's NEEDED: $(needed "$prog")" ;;
    *) notok "ilp64: $lang program depends on libhqr64.so (NEEDED: $(needed "$prog"))" ;;
  esac
}
if $FC -O1 -fdefault-integer-8 -J"$out" test/ilp64_prog.f90 -o "$out/prog_f" -L"$libdir" -lhqr64 \
     -Wl,-rpath,"$libdir" >"$out/prog_f.log" 2>&1; then
  run_checks Fortran "$out/prog_f"
else
  notok "ilp64: test/ilp64_prog.f90 builds with -fdefault-integer-8 -lhqr64"; cat "$out/prog_f.log"
fi
if $CC -std=c11 -O1 -Wall -Wextra -Werror -DHQR_ILP64 -Iinclude test/ilp64_prog.c -o "$out/prog_c" \
     -L"$libdir" -lhqr64 -Wl,-rpath,"$libdir" -lm >"$out/prog_c.log" 2>&1; then
  run_checks C "$out/prog_c"
else
  notok "ilp64: test/ilp64_prog.c builds with -DHQR_ILP64 -lhqr64"; cat "$out/prog_c.log"
fi

# ---- LD_PRELOAD into a program built against liblapack64 ---------------------
# The same Fortran program, linked with -llapack64 and nothing from hqr.
if $FC -O1 -fdefault-integer-8 -J"$out" test/ilp64_prog.f90 -o "$out/preload_prog" -llapack64 \
     >"$out/preload.log" 2>&1; then
  case " $(needed "$out/preload_prog")" in
    *" liblapack64.so.3 "*) ok "ilp64: preload: the program is built against liblapack64.so.3, not hqr" ;;
    *) notok "ilp64: preload: the program is built against liblapack64.so.3 (NEEDED: $(needed "$out/preload_prog"))" ;;
  esac
  "$out/preload_prog" "$seed" >"$out/plain.out" 2>&1; rc=$?
  if [ $rc -eq 0 ] && grep -q '^PASS' "$out/plain.out"; then ok "ilp64: preload: plain run passes every check"
  else notok "ilp64: preload: plain run passes every check"; cat "$out/plain.out"; fi
  LD_PRELOAD=$lib HQR_VERBOSE=1 "$out/preload_prog" "$seed" >"$out/hqr.out" 2>"$out/hqr.err"; rc=$?
  if [ $rc -eq 0 ] && grep -q '^PASS' "$out/hqr.out"; then ok "ilp64: preload: LD_PRELOAD=libhqr64.so run passes every check"
  else notok "ilp64: preload: LD_PRELOAD=libhqr64.so run passes every check"; cat "$out/hqr.out" "$out/hqr.err"; fi
  for r in dpotrf dpotri dgeqrf dorgqr dgels; do
    line=$(grep "^hqr: $r " "$out/hqr.err" | head -n 1)
    if [ -n "$line" ]; then ok "ilp64: preload: hqr took $r ($(echo "$line" | sed 's/^hqr: //'))"
    else notok "ilp64: preload: hqr took $r (no HQR_VERBOSE line)"; fi
  done
else
  notok "ilp64: test/ilp64_prog.f90 builds with -fdefault-integer-8 -llapack64"; cat "$out/preload.log"
fi

# ---- Fortran `use hqr` with the ILP64 module ---------------------------------
if [ -f "$BUILD/ilp64/hqr.mod" ]; then
  if $FC -O1 -fdefault-integer-8 -I"$BUILD/ilp64" -J"$out" test/fortran_module_prog.f90 -o "$out/module_prog" \
       -L"$libdir" -lhqr64 -Wl,-rpath,"$libdir" >"$out/module.log" 2>&1; then
    if "$out/module_prog" >"$out/module.out" 2>&1 && grep -q '^PASS' "$out/module.out"; then
      ok "ilp64: test/fortran_module_prog.f90 with -fdefault-integer-8, $BUILD/ilp64/hqr.mod and -lhqr64 passes"
    else
      notok "ilp64: test/fortran_module_prog.f90 with -fdefault-integer-8, $BUILD/ilp64/hqr.mod and -lhqr64 passes"
      grep -v '^ok:' "$out/module.out"
    fi
  else
    notok "ilp64: test/fortran_module_prog.f90 compiles with -fdefault-integer-8 against $BUILD/ilp64/hqr.mod"
    cat "$out/module.log"
  fi
  # The module's INTEGER kind is 8: integer(8) compiles, integer(4) must not.
  for kind in 8 4; do
    printf 'program k\n  use hqr\n  integer(%s) :: n = 2, lda = 2, info\n  real(8) :: a(2, 2) = 1\n  call dpotrf("L", n, a, lda, info)\nend program k\n' \
      "$kind" >"$out/kind$kind.f90"
    $FC -c -I"$BUILD/ilp64" -J"$out" "$out/kind$kind.f90" -o "$out/kind$kind.o" >"$out/kind$kind.log" 2>&1
    eval "rc$kind=\$?"
  done
  if [ "$rc8" -eq 0 ] && [ "$rc4" -ne 0 ]; then
    ok "ilp64: with $BUILD/ilp64/hqr.mod, integer(8) arguments compile and integer(4) ones are an error"
  else
    notok "ilp64: with $BUILD/ilp64/hqr.mod, integer(8) arguments compile (exit $rc8) and integer(4) ones are an error (exit $rc4)"
  fi
else
  notok "ilp64: $BUILD/ilp64/hqr.mod exists (make builds it)"
fi

# ---- hqr.h and LAPACKE's <lapack.h> agree on a 64-bit lapack_int --------------
body='
_Static_assert(sizeof(lapack_int) == 8, "lapack_int is 64-bit");
static double a[9] = {4, 1, 0, 1, 3, 1, 0, 1, 2};
int main(void) {
  lapack_int n = 3, lda = 3, info = -1, lwork = 64;
  double tau[3], work[64];
  LAPACK_dpotrf("L", &n, a, &lda, &info);            /* lapack.h spelling */
  if (info != 0) return 1;
  info = -1;
  dgeqrf_(&n, &n, a, &lda, tau, work, &lwork, &info); /* hqr.h prototype */
  return info != 0;
}
'
for variant in "LAPACK_ILP64 lapack.h hqr.h" "HQR_ILP64 hqr.h lapack.h"; do
  set -- $variant
  src=$out/header-$1.c
  printf '#include <%s>\n#include <%s>\n%s\n' "$2" "$3" "$body" >"$src"
  if $CC -std=c11 -Wall -Wextra -Werror -D"$1" -Iinclude "$src" -o "$out/header-$1" -L"$libdir" -lhqr64 \
       -Wl,-rpath,"$libdir" >"$out/header-$1.log" 2>&1 && "$out/header-$1"; then
    ok "ilp64: -D$1, <$2> then <$3>: 64-bit lapack_int, compiles with -Werror, runs with -lhqr64"
  else
    notok "ilp64: -D$1, <$2> then <$3>: 64-bit lapack_int, compiles with -Werror, runs with -lhqr64"
    head -n 20 "$out/header-$1.log"
  fi
done

# HQR_ILP64 after <lapack.h> made lapack_int 32-bit: hqr.h must refuse it.
printf '#include <lapack.h>\n#include <hqr.h>\nint main(void) { return 0; }\n' >"$out/header-mixed.c"
if $CC -std=c11 -DHQR_ILP64 -Iinclude -c "$out/header-mixed.c" -o "$out/header-mixed.o" >"$out/header-mixed.log" 2>&1; then
  notok "ilp64: -DHQR_ILP64 with a 32-bit lapack_int from <lapack.h> is a compile-time error"
else
  ok "ilp64: -DHQR_ILP64 with a 32-bit lapack_int from <lapack.h> is a compile-time error"
fi

if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
