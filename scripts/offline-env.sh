# Sourced on the offline GPU host: unpacks the packages collected by
# scripts/offline-bundle.sh into PREFIX (default /tmp/hqr-deps), points the
# dynamic linker there and makes liblapack.so.3/libblas.so.3 OpenBLAS's.
#   HQR_DEBS=DIR HQR_DEPS_PREFIX=PREFIX . scripts/offline-env.sh
hqr_debs=${HQR_DEBS:-.gpu/debs}
hqr_prefix=${HQR_DEPS_PREFIX:-/tmp/hqr-deps}
mkdir -p "$hqr_prefix"
for f in "$hqr_debs"/*.deb; do dpkg -x "$f" "$hqr_prefix"; done
hqr_lib=$hqr_prefix/usr/lib/x86_64-linux-gnu
ln -sf openblas-pthread/liblapack.so.3 "$hqr_lib/liblapack.so.3"
ln -sf openblas-pthread/libblas.so.3 "$hqr_lib/libblas.so.3"
ln -sf openblas-pthread/libopenblas.so.0 "$hqr_lib/libopenblas.so.0"
for f in "$hqr_debs"/libnvblas.so.*; do [ -e "$f" ] && cp "$f" "$hqr_lib/"; done
export LD_LIBRARY_PATH="$hqr_lib:$hqr_lib/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HQR_LAPACK_TEST_DIR="$hqr_lib/lapack"
