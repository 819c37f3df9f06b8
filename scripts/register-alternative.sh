#!/bin/sh
# Makes hqr the system's LAPACK: every program that loads liblapack.so.3
# (numpy, Octave, R, any Fortran program linked with -llapack) then gets it,
# without LD_PRELOAD. As root:
#   scripts/register-alternative.sh [LIB]    register LIB (default: build/libhqr.so
#                                            of this checkout, else /usr/local/lib/libhqr.so)
#   scripts/register-alternative.sh --undo   unregister; the previous choice comes back
#
# Debian picks liblapack.so.3 through the alternative liblapack.so.3-x86_64-linux-gnu
# (OpenBLAS or the reference LAPACK). This copies LIB to /usr/local/lib/hqr/liblapack.so.3
# (a stable path: a rebuild or `make clean` does not pull the system's LAPACK
# away; run the script again to take a new build), sets the copy's SONAME to
# liblapack.so.3 (with libhqr.so there, ldconfig would add a libhqr.so link
# beside it), registers it with priority 200 (OpenBLAS has 100) and selects it.
# hqr itself still finds the real LAPACK underneath: its fallback list
# (src/host/next_lapack.cpp) skips any copy of hqr and opens OpenBLAS's, or
# the reference, library by path.
#
# The group's mode and selection before the first registration are kept in
# /usr/local/lib/hqr/previous; --undo removes hqr from the group and restores them.
# Both directions are idempotent: registering again only refreshes the copy.
set -eu

group=liblapack.so.3-x86_64-linux-gnu
link=/usr/lib/x86_64-linux-gnu/liblapack.so.3
dir=/usr/local/lib/hqr
target=$dir/liblapack.so.3
priority=200

die() { echo "register-alternative: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (it changes /etc/alternatives)"
command -v update-alternatives >/dev/null || die "update-alternatives not found (not Debian?)"
query=$(update-alternatives --query "$group" 2>/dev/null) ||
  die "no $group alternative: install liblapack3 or libopenblas0 first"
registered() { update-alternatives --query "$group" | grep -qx "Alternative: $target"; }

if [ "${1:-}" = --undo ]; then
  if ! registered; then
    rm -f "$target" "$dir/previous"; rmdir "$dir" 2>/dev/null || true
    echo "register-alternative: hqr is not registered; $link -> $(readlink -f "$link")"
    exit 0
  fi
  # "auto", or "manual PATH"; a lost record means auto, Debian's default.
  read -r mode value <"$dir/previous" 2>/dev/null || mode=auto
  update-alternatives --quiet --remove "$group" "$target"
  if [ "$mode" = manual ] && update-alternatives --list "$group" | grep -qx "$value"; then
    update-alternatives --quiet --set "$group" "$value"
  else
    update-alternatives --quiet --auto "$group"
  fi
  rm -f "$target" "$dir/previous"; rmdir "$dir" 2>/dev/null || true
  echo "register-alternative: hqr unregistered; $link -> $(readlink -f "$link")"
  exit 0
fi

case "${1:-}" in -*) die "usage: $0 [LIB] | --undo" ;; esac
here=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -gt 0 ]; then lib=$1
elif [ -f "$here/build/libhqr.so" ]; then lib=$here/build/libhqr.so
else lib=/usr/local/lib/libhqr.so; fi
[ -f "$lib" ] || die "$lib not found: build hqr (make) or name the library"
readelf -d "$lib" 2>/dev/null | grep -q 'SONAME.*\[libhqr\.so\]' || die "$lib is not libhqr.so"
command -v patchelf >/dev/null || die "patchelf not found (apt-get install patchelf)"

mkdir -p "$dir"
if ! registered; then
  status=$(echo "$query" | sed -n 's/^Status: //p')
  current=$(echo "$query" | sed -n 's/^Value: //p')
  echo "$status $current" >"$dir/previous"
fi
# A new file renamed over the old one: programs running with the old copy
# mapped keep it intact.
cp "$lib" "$target.new"
patchelf --set-soname liblapack.so.3 "$target.new"
chmod 644 "$target.new"
mv -f "$target.new" "$target"
update-alternatives --quiet --install "$link" "$group" "$target" "$priority"
update-alternatives --quiet --set "$group" "$target"
echo "register-alternative: $link -> $target (hqr from $lib); undo: $0 --undo"
