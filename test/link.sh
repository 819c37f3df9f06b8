#!/bin/sh
# Way in 2: -lhqr as the only LAPACK/BLAS. A C program (test/link_prog.c) and a
# Fortran program (test/link_prog.f90) that call dgesv_ and dgemm_ (which hqr
# forwards) and dpotrf_ (hqr's own) link with -L$BUILD -lhqr alone, run
# correctly, and have no direct dependency on liblapack or libblas.
BUILD=${BUILD:-build}
libdir=$(cd "$BUILD" && pwd)
# A directory of its own per run (make check may run twice at once in one
# build); removed when everything passed, kept for a look otherwise.
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/link.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

check() {  # check <lang> <program>
  lang=$1 prog=$2
  if "$prog" >"$prog.out" 2>&1 && grep -q '^PASS' "$prog.out"; then
    ok "link: $lang program linked with -lhqr alone runs correctly"
  else
    notok "link: $lang program linked with -lhqr alone runs correctly"; cat "$prog.out"
  fi
  needed=$(readelf -d "$prog" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  case " $needed" in
    *" liblapack"* | *" libblas"* | *" libopenblas"*)
      notok "link: $lang program has no direct liblapack/libblas dependency (NEEDED: $needed)" ;;
    *" libhqr.so "*)
      ok "link: $lang program's NEEDED: $needed" ;;
    *)
      notok "link: $lang program depends on libhqr.so (NEEDED: $needed)" ;;
  esac
  # At run time the system library is there, loaded by libhqr, after it.
  if ldd "$prog" | grep -q "libhqr.so => $libdir/libhqr.so"; then
    ok "link: $lang program resolves libhqr.so from $BUILD"
  else
    notok "link: $lang program resolves libhqr.so from $BUILD"; ldd "$prog"
  fi
}

if ${CC:-cc} -O2 -Wall test/link_prog.c -o "$out/link_c" -L"$libdir" -lhqr -Wl,-rpath,"$libdir" -lm; then
  check C "$out/link_c"
else
  notok "link: C program links with -lhqr alone"
fi
if ${FC:-gfortran} -O2 test/link_prog.f90 -o "$out/link_f" -L"$libdir" -lhqr -Wl,-rpath,"$libdir"; then
  check Fortran "$out/link_f"
else
  notok "link: Fortran program links with -lhqr alone"
fi
if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
