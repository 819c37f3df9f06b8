#!/bin/sh
# CMake users: `make install DESTDIR=... PREFIX=/opt/hqr` installs
# lib/cmake/hqr/hqrConfig.cmake and hqrConfigVersion.cmake; a small CMake
# project (test/cmake_project: C through hqr.h and Fortran through `use hqr`,
# each against hqr::hqr and hqr::hqr64, each checking its INTEGER size) finds the tree where it lies, not at
# /opt/hqr (the config is relocatable), with find_package(hqr REQUIRED),
# builds, and its programs run correctly with the installed libraries.
# Skipped where cmake is not installed (Debian package cmake; make deps).
BUILD=${BUILD:-build}
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/cmake.XXXXXX") || exit 1
out=$(cd "$out" && pwd)
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }
finish() {
  if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
  exit $failed
}

if ! command -v cmake >/dev/null 2>&1; then
  ok "cmake # SKIP cmake is not installed (Debian package cmake; make deps)"
  finish
fi
# A make of its own, not a job of the make that runs the tests.
unset MAKEFLAGS MFLAGS MAKELEVEL
prefix=$out/root/opt/hqr
version=$(sed -n 's/^VERSION *:= *//p' Makefile)
if make -s --no-print-directory install BUILD="$BUILD" DESTDIR="$out/root" PREFIX=/opt/hqr >"$out/install.log" 2>&1 &&
   [ -f "$prefix/lib/cmake/hqr/hqrConfig.cmake" ] && [ -f "$prefix/lib/cmake/hqr/hqrConfigVersion.cmake" ]; then
  ok "cmake: make install puts lib/cmake/hqr/hqrConfig.cmake and hqrConfigVersion.cmake under PREFIX"
else
  notok "cmake: make install puts lib/cmake/hqr/hqrConfig.cmake and hqrConfigVersion.cmake under PREFIX"
  sed 's/^/#   /' "$out/install.log" | tail -n 20
  finish
fi

if cmake -S test/cmake_project -B "$out/project" -DCMAKE_PREFIX_PATH="$prefix" >"$out/configure.log" 2>&1 &&
   grep -q -- "-- hqr $version from $prefix/lib/cmake/hqr\$" "$out/configure.log"; then
  ok "cmake: find_package(hqr REQUIRED) finds hqr $version installed for /opt/hqr at $prefix; find_package(hqr 99) does not"
else
  notok "cmake: find_package(hqr REQUIRED) finds hqr $version installed for /opt/hqr at $prefix; find_package(hqr 99) does not"
  sed 's/^/#   /' "$out/configure.log" | tail -n 20
  finish
fi
if cmake --build "$out/project" >"$out/build.log" 2>&1; then
  ok "cmake: C and Fortran programs build against hqr::hqr and hqr::hqr64 (HQR_ILP64, include/hqr64)"
else
  notok "cmake: C and Fortran programs build against hqr::hqr and hqr::hqr64 (HQR_ILP64, include/hqr64)"
  grep -E 'rror|undefined' "$out/build.log" | head -n 20 | sed 's/^/#   /'
  finish
fi

# pkg-config users: the installed hqr.pc and hqr64.pc name the tree where
# it lies too (prefix from ${pcfiledir}).
for pc in hqr:4 hqr64:8; do
  name=${pc%:*} bytes=${pc#*:}
  flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs "$name" 2>&1)
  if cc test/cmake_project/potrf.c -DEXPECT_INTEGER_BYTES=$bytes $flags -Wl,-rpath,"$prefix/lib" \
       -o "$out/pc_$name" >"$out/pc_$name.log" 2>&1 && "$out/pc_$name" >>"$out/pc_$name.log" 2>&1 &&
     grep -q '^PASS' "$out/pc_$name.log"; then
    ok "cmake: pkg-config's $name.pc, installed for /opt/hqr, builds a program against the tree where it lies"
  else
    notok "cmake: pkg-config's $name.pc, installed for /opt/hqr, builds a program against the tree where it lies ($flags)"
    sed 's/^/#   /' "$out/pc_$name.log" | tail -n 10
  fi
done

for prog in potrf_c potrf_c64 potrf_f potrf_f64; do
  case $prog in *64) lib=libhqr64.so target=hqr::hqr64 ;; *) lib=libhqr.so target=hqr::hqr ;; esac
  if "$out/project/$prog" >"$out/$prog.out" 2>&1 && grep -q '^PASS' "$out/$prog.out"; then
    ok "cmake: $prog ($target) runs dpotrf correctly"
  else
    notok "cmake: $prog ($target) runs dpotrf correctly"; sed 's/^/#   /' "$out/$prog.out"
  fi
  if ldd "$out/project/$prog" | grep -q "$lib => $prefix/lib/$lib"; then
    ok "cmake: $prog loads the installed $lib"
  else
    notok "cmake: $prog loads the installed $lib"; ldd "$out/project/$prog" | grep hqr | sed 's/^/#   /'
  fi
done
finish
