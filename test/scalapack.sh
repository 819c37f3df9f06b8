#!/bin/sh
# hqr under MPI: ScaLAPACK's pdpotrf and pdgemm (test/scalapack_prog.c,
# built by make against the system LAPACK/BLAS only) under mpirun, once
# plainly and once with LD_PRELOAD=libhqr.so and HQR_DEVICE=local-rank in
# every rank. Both runs must pass the program's residual checks; in the hqr
# run every rank must have hqr loaded and be served by the GPU its
# node-local rank picks (rank r: GPU r mod the GPU count; none without a
# GPU or CUDA). ScaLAPACK reaches hqr through the level-3 BLAS only
# (pdpotrf factors its diagonal blocks with its own pdpotf2, never dpotrf_),
# so the HQR_VERBOSE lines of dgemm_, dsyrk_ and dtrsm_ are required only
# where libhqr.so implements dgemm_ itself rather than forwarding it.
#
#   HQR_SCALAPACK_RANKS (default 2; the GPU machine: 4), HQR_SCALAPACK_N
#   (default 1000), HQR_SCALAPACK_NB (default 64).
#
# Installs nothing (make deps does: openmpi-bin, libscalapack-openmpi-dev).
# Open MPI in a container wants a few settings, each overridable from the
# environment: run as root allowed, oversubscription allowed (2 ranks on
# fewer cores), the launcher that starts local ranks without ssh
# (plm=isolated), shared memory without CMA (single_copy_mechanism=none:
# ptrace is often not allowed), only the self and shared-memory transports
# (no network probing), no binding (OpenBLAS threads keep their cores).
BUILD=${BUILD:-build}
lib=$(cd "$BUILD" && pwd)/libhqr.so
prog=$BUILD/test/scalapack_prog
ranks=${HQR_SCALAPACK_RANKS:-2}
n=${HQR_SCALAPACK_N:-1000}
nb=${HQR_SCALAPACK_NB:-64}
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/scalapack.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}
export OMPI_MCA_plm=${OMPI_MCA_plm:-isolated}
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
export OMPI_MCA_hwloc_base_binding_policy=${OMPI_MCA_hwloc_base_binding_policy:-none}
# One OpenBLAS thread per rank: the ranks share the cores.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}

if ! command -v mpirun >/dev/null 2>&1; then
  notok "scalapack: mpirun found (make deps installs openmpi-bin)"
  exit 1
fi
if [ ! -x "$prog" ]; then
  notok "scalapack: $prog built (make $prog)"
  exit 1
fi

# run NAME [mpirun -x options]: the program's stdout in $out/NAME.out,
# stderr in $out/NAME.err; a wall-clock limit so that a hung launch fails.
run() {
  name=$1; shift
  timeout 300 mpirun -np "$ranks" "$@" "$prog" "$n" "$nb" potrf,gemm 1 >"$out/$name.out" 2>"$out/$name.err"
}

# The residual lines of a run: "ok" lines that quote them, "not ok" where
# a routine failed or printed nothing.
check_run() {
  name=$1 what=$2 rc=$3
  for r in pdpotrf pdgemm; do
    line=$(grep "^$r " "$out/$name.out")
    if [ "$rc" -eq 0 ] && echo "$line" | grep -q ' PASS$'; then
      ok "scalapack: $what, $ranks ranks: $(echo "$line" | sed 's/ reps=.* \([0-9.]* GFLOP\/s\)/ \1/')"
    else
      notok "scalapack: $what, $ranks ranks: $r (exit status $rc): ${line:-no result line}"
      sed 's/^/    /' "$out/$name.out" "$out/$name.err" | head -n 30
    fi
  done
}

run plain; rc=$?
check_run plain "OpenBLAS alone" $rc
if [ "$(grep -c '^# rank [0-9]* .*: no hqr$' "$out/plain.out")" -eq "$ranks" ]; then
  ok "scalapack: the plain run has no hqr in any rank"
else
  notok "scalapack: the plain run has no hqr in any rank"; grep '^# rank' "$out/plain.out"
fi

run hqr -x LD_PRELOAD="$lib" -x HQR_DEVICE=local-rank -x HQR_VERBOSE=1; rc=$?
check_run hqr "hqr preloaded, HQR_DEVICE=local-rank" $rc

# Each rank's GPU: r mod the GPU count where libhqr has CUDA and the
# machine a GPU, else none (-1).
gpus=0
if readelf -d "$lib" | grep -q 'libcublas' && command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi
r=0; bad=0
while [ $r -lt "$ranks" ]; do
  want=-1
  [ "$gpus" -gt 0 ] && want=$((r % gpus))
  line=$(grep "^# rank $r (" "$out/hqr.out")
  case "$line" in
    *": hqr "*", HQR_DEVICE=local-rank, GPU $want ("*) ;;
    *) bad=1; echo "    rank $r: expected hqr and GPU $want: ${line:-no line}" ;;
  esac
  r=$((r + 1))
done
if [ $bad -eq 0 ]; then
  ok "scalapack: hqr loaded in all $ranks ranks, each on the GPU of its local rank ($gpus GPUs: $(grep '^# rank' "$out/hqr.out" | sed 's/.*(local rank \([0-9]*\)).*, GPU \(-*[0-9]*\).*/\1->\2/' | paste -sd ' ' -))"
else
  notok "scalapack: hqr loaded in all $ranks ranks, each on the GPU of its local rank"
fi

# hqr's level-3 BLAS, each routine once libhqr has its own (a forwarding
# stub is one indirect jump through hqr's slot table).
for r in dgemm dsyrk dtrsm; do
  c=$(grep -c "^hqr: $r " "$out/hqr.err")
  if objdump -d --no-show-raw-insn --disassemble="${r}_" "$lib" 2>/dev/null | grep -A1 "<${r}_>:" |
      grep -q 'jmp *\*.*(%rip)'; then
    ok "scalapack: hqr served $r calls # SKIP ${r}_ forwards to the system BLAS in this libhqr"
  elif [ "$c" -gt 0 ]; then
    ok "scalapack: hqr served $c $r calls ($(grep "^hqr: $r " "$out/hqr.err" | head -n 1 | cut -c1-120))"
  else
    notok "scalapack: hqr served $r calls (${r}_ is hqr's own, yet no HQR_VERBOSE line)"
  fi
done
if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
