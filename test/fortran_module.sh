#!/bin/sh
# Way in 3: Fortran `use hqr`. A program compiled with -I$BUILD (hqr.mod) and
# linked with -lhqr calls the runtime API and LAPACK routines through the
# module's explicit interfaces (test/fortran_module_prog.f90); a program that
# passes the wrong kind must not compile; the module declares every routine
# libhqr.so exports.
BUILD=${BUILD:-build}
libdir=$(cd "$BUILD" && pwd)
# A directory of its own per run (make check may run twice at once in one
# build); removed when everything passed, kept for a look otherwise.
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/fortran_module.XXXXXX") || exit 1
FC=${FC:-gfortran}
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

if [ ! -f "$BUILD/hqr.mod" ]; then
  notok "fortran_module: $BUILD/hqr.mod exists (make builds it)"
  exit 1
fi

# hqr_version() and hqr_device_name() are module procedures: their code is in
# the module's object file. When libhqr.so does not carry it, link it beside.
extra=""
if ! nm -D --defined-only "$libdir/libhqr.so" | grep -q '__hqr_MOD_hqr_version$'; then
  extra="$BUILD/obj/fortran/hqr_mod.o"
  echo "# libhqr.so does not contain the module's procedures; linking $extra as well"
fi

if $FC -O1 -I"$BUILD" -J"$out" test/fortran_module_prog.f90 -o "$out/prog" $extra -L"$libdir" -lhqr -Wl,-rpath,"$libdir" \
   >"$out/build.log" 2>&1; then
  ok "fortran_module: 'use hqr' program compiles with -I$BUILD and links with -lhqr"
  "$out/prog" >"$out/run.out" 2>&1; rc=$?
  sed 's/^/# /' "$out/run.out"
  if [ $rc -eq 0 ] && grep -q '^PASS' "$out/run.out"; then
    ok "fortran_module: every check in the 'use hqr' program passes"
  else
    notok "fortran_module: every check in the 'use hqr' program passes"
  fi
  for what in 'hqr_version()' 'dpotrf + dpotrs' 'zpotrf: A' 'dgels: A' 'dgeqrf + dormqr' \
              'dqrupd_addcols with an illegal J returns INFO < 0' 'reports argument 4'; do
    line=$(grep -F "$what" "$out/run.out" | head -n 1)
    case "$line" in
      ok:*) ok "fortran_module: ${line#ok: }" ;;
      *) notok "fortran_module: $what${line:+ (${line})}" ;;
    esac
  done
else
  notok "fortran_module: 'use hqr' program compiles with -I$BUILD and links with -lhqr"
  cat "$out/build.log"
fi

if $FC -c -I"$BUILD" -J"$out" test/fortran_module_bad.f90 -o "$out/bad.o" >"$out/bad.log" 2>&1; then
  notok "fortran_module: a real(4) matrix passed to dpotrf is a compile-time error"
else
  ok "fortran_module: a real(4) matrix passed to dpotrf is a compile-time error"
fi

# Every LAPACK-style routine libhqr.so defines (not a forwarding stub, not the
# C runtime API, not a scipy_ alias of pip's wheels) has an interface in the
# module's source.
own=$(nm -D --defined-only "$libdir/libhqr.so" | awk '$2 == "T" { print $3 }' | grep '^[a-z][a-z0-9_]*_$' \
      | grep -v '^scipy_' | grep -vxF -f src/host/forward.list | sed 's/_$//' | sort)
modsrc=$(ls fortran/hqr.F90 fortran/hqr.f90 2>/dev/null | head -n 1)
declared=$(sed -n 's/^ *subroutine \([a-z0-9_]*\)(.*/\1/p' "$modsrc" | sort)
missing=$(printf '%s\n' "$own" | grep -vxF -e "$declared" | tr '\n' ' ')
if [ -z "$own" ]; then
  notok "fortran_module: libhqr.so exports LAPACK routines"
elif [ -n "$missing" ]; then
  notok "fortran_module: the module declares every routine libhqr.so exports (missing: $missing)"
else
  ok "fortran_module: the module declares all $(printf '%s\n' "$own" | wc -l) routines libhqr.so exports"
fi
if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
