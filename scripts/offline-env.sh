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
# Open MPI, relocated to the prefix: OPAL_PREFIX and PMIX_INSTALL_PREFIX
# move where it finds its components and help texts; mpirun is Debian's
# alternatives link, so it is made here. The host's own libudev, where it
# has one, stays in front of the bundle's.
if [ -x "$hqr_prefix/usr/bin/orterun" ]; then
  ln -sf orterun "$hqr_prefix/usr/bin/mpirun"
  if ldconfig -p 2>/dev/null | grep -q 'libudev\.so\.1 '; then rm -f "$hqr_lib"/libudev.so.1*; fi
  export OPAL_PREFIX="$hqr_prefix/usr"
  export PMIX_INSTALL_PREFIX="$hqr_lib/pmix2"
  export PATH="$hqr_prefix/usr/bin:$PATH"
  # Debian's /etc/openmpi/openmpi-mca-params.conf is not there: what it
  # says that matters here (no UCX, no OFI), and no load errors for the
  # transports left out of the bundle.
  export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
  export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
  export OMPI_MCA_mtl=${OMPI_MCA_mtl:-^ofi}
  export OMPI_MCA_mca_base_component_show_load_errors=${OMPI_MCA_mca_base_component_show_load_errors:-0}
  export OMPI_MCA_btl_base_warn_component_unused=${OMPI_MCA_btl_base_warn_component_unused:-0}
fi
