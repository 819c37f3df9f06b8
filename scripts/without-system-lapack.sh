#!/bin/sh
# scripts/without-system-lapack.sh COMMAND [ARGS...]
#
# Runs COMMAND where the system's LAPACK, BLAS, OpenBLAS and libgfortran
# cannot be loaded: a machine with only pip's numpy and SciPy, such as the
# wheel is for (python/README.md). In a user and mount namespace of its own
# (unshare -rm: no root needed, nothing outside changes), /dev/null is
# bind-mounted over each such library file that ld.so's cache or hqr's
# fallback list (src/host/next_lapack.cpp) names, so that dlopen() and
# DT_NEEDED fail on them as where they are not installed. Exits 77, with a
# line on stderr, where the namespace cannot be made (unshare missing or
# user namespaces off) or a library stays loadable.
if [ $# -eq 0 ]; then
  echo "usage: scripts/without-system-lapack.sh COMMAND [ARGS...]" >&2; exit 2
fi
if [ -z "${HQR_IN_NAMESPACE:-}" ]; then
  if ! command -v unshare >/dev/null 2>&1 || ! unshare -rm true 2>/dev/null; then
    echo "without-system-lapack.sh: no user and mount namespace (unshare -rm)" >&2; exit 77
  fi
  HQR_IN_NAMESPACE=1 exec unshare -rm sh "$0" "$@"
fi
unset HQR_IN_NAMESPACE

names='liblapack\.so|libblas\.so|liblapack64\.so|libblas64\.so|libopenblas[a-z0-9_]*\.so|libgfortran\.so|libquadmath\.so'
files=$( { /sbin/ldconfig -p 2>/dev/null || ldconfig -p 2>/dev/null; } | awk -v re="^($names)" '$1 ~ re { print $NF }'
        for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /lib/x86_64-linux-gnu; do
          ls "$d"/openblas*/lib*.so* "$d"/lapack*/lib*.so* "$d"/blas*/lib*.so* 2>/dev/null
        done )
for real in $(for f in $files; do readlink -f "$f"; done | sort -u); do
  [ -f "$real" ] || continue
  mount --bind /dev/null "$real" 2>/dev/null || { echo "without-system-lapack.sh: cannot hide $real" >&2; exit 77; }
done
# Check: none of them loads now.
for lib in liblapack.so.3 libblas.so.3 liblapack64.so.3 libopenblas.so.0 libgfortran.so.5; do
  if python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$lib" 2>/dev/null; then
    echo "without-system-lapack.sh: $lib still loads" >&2; exit 77
  fi
done
exec "$@"
