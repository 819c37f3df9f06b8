#!/bin/bash
# On the GPU machine: the test suite with every size sent through the GPU
# (HQR_GPU_MIN_N=0), two processes sharing the GPU, the hybrid potrf at large
# orders, compute-sanitizer, and the benchmark. Takes a build made elsewhere
# (make; the test programs and build/bench_potrf) and the packages from
# scripts/offline-bundle.sh.
#   scripts/gpu-check.sh [OUTDIR]
# GPU_CHECK_TAR=file also packs the logs into one file. GPU_CHECK_PARTS (default "suite node node-qr ooc ooc-inverse oom large panel faults gelsd qrupd qrupd-econ blas3 mpi sanitizer") picks parts,
# so that one check fits in a limited slot of GPU time. GPU_CHECK_QRUPD_FAULTS
# adds HQR_FAULT points to part qrupd's four (e.g. "sync:27 copy:51", where
# Q's last rows of an update are finished on the CPU). Part node-qr's fault
# lists: GPU_CHECK_NODE_QR_FAULTS, GPU_CHECK_NODE_APPLY_FAULTS,
# GPU_CHECK_NODE_OOC_FAULTS; GPU_CHECK_NODE_OOC_MEMORY (default 512K) is the
# HQR_GPU_MEMORY of its out-of-core runs; part ooc's: GPU_CHECK_OOC_FAULTS.
set -u
out=${1:-/tmp/hqr-gpu-check}
mkdir -p "$out"
. scripts/offline-env.sh >/dev/null
export HQR_REFERENCE_LAPACK=$hqr_lib/lapack/liblapack.so.3
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX}  # Debian's 0.3.21 misdetects Sapphire Rapids
nvidia-smi -L | tee "$out/device.txt"
fail=0
parts=${GPU_CHECK_PARTS:-suite node node-qr ooc ooc-inverse oom large panel faults gelsd qrupd qrupd-econ blas3 mpi sanitizer}
part() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
tests=$(ls build/test/test_* 2>/dev/null)

if part suite; then
echo "== suite, every size on the GPU"
HQR_GPU_MIN_N=0 BUILD=build scripts/run-tests.sh $tests >"$out/suite.log" 2>&1 || fail=1
tail -n 3 "$out/suite.log"
fi

if part suite; then
# The GPU inverse's products split in halves only past HQR_INV_LEAF: a small
# one makes the suite's orders take those paths too.
echo "== test_inverse with HQR_INV_LEAF=64"
HQR_INV_LEAF=64 HQR_GPU_MIN_N=0 build/test/test_inverse >"$out/inverse-leaf64.log" 2>&1 || fail=1
tail -n 1 "$out/inverse-leaf64.log"
fi

if part suite; then
# The geqrf panel at other block sizes: at the suite's orders the panels are
# 256 wide (triangular inverses merged from 32x32 blocks, three levels) or
# as wide as what is left; 64 merges once, and 48 (not 32 times a power of
# two) takes the trsm.
for nb in 64 48; do
  echo "== test_qr geqrf* with HQR_NB=$nb"
  HQR_NB=$nb HQR_GPU_MIN_N=0 HQR_TEST_FILTER='geqrf*' build/test/test_qr >"$out/geqrf-nb$nb.log" 2>&1 || fail=1
  tail -n 1 "$out/geqrf-nb$nb.log"
done
fi

if part suite; then
echo "== two processes sharing the GPU"
HQR_GPU_MIN_N=0 BUILD=build sh test/two_processes.sh >"$out/two_processes.log" 2>&1 || fail=1
grep -E '^(not )?ok' "$out/two_processes.log"

fi

if part suite; then
# xPOLOGDET's sum on each GPU schedule of potrf (the suite's run covers the
# one trip): the hybrid's device panels, its CPU panels, and the device
# set's schedule out of core. test_logdet fails where a call's GPU path did
# not sum the logarithms.
for run in "hybrid:HQR_NB=64" "cpu-panels:HQR_NB=64 HQR_PANEL=cpu" "node:HQR_NB=64 HQR_GPU_MEMORY=8M"; do
  env ${run#*:} HQR_GPU_MIN_N=0 HQR_VERBOSE=1 build/test/test_logdet >"$out/logdet-${run%%:*}.log" 2>&1 || fail=1
  echo "test_logdet ${run%%:*}: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/logdet-${run%%:*}.log" | head -n 1)," \
       "$(grep -c 'pologdet .*path=gpu' "$out/logdet-${run%%:*}.log") sums on a GPU path"
done
fi

if part node; then
# xPOTRF over the device set: every GPU, in core and out of core (a small
# HQR_GPU_MEMORY), one GPU out of core, faults on the set's paths, a list
# that names a GPU this machine lacks, and compute-sanitizer. The tests
# fail when a call did not end on a GPU path or, with several GPUs, when a
# GPU did no work; the trace must show the schedule that ran.
# HQR_DEVICE_REPLICAS=k (exported by the caller) makes each GPU serve as k
# members of the set: the set's schedules then run on a one-GPU machine.
phys=$(nvidia-smi -L | grep -c '^GPU ')
gpus=$((phys * ${HQR_DEVICE_REPLICAS:-1}))
echo "== the device set ($gpus GPUs: $phys, ${HQR_DEVICE_REPLICAS:-1} member(s) each)"
node_run() {  # name, expected trace pattern, env...
  name=$1 want=$2; shift 2
  log="$out/node-$name.log"
  env "$@" HQR_VERBOSE=1 HQR_GPU_MIN_N=0 BUILD=build HQR_TEST_LOG=full \
    scripts/run-tests.sh build/test/test_potrf_hybrid ${NODE_MORE_TESTS-build/test/test_cholesky} >"$log" 2>&1
  rc=$?
  seen=$(grep -c "potrf .*path=$want" "$log")
  if [ $rc = 0 ] && [ "$seen" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "$name: $r ($(tail -n 1 "$log"); $seen calls on '$want')"
}
node_run all-in-core "gpu-node ($gpus GPU[s]*, in core)" HQR_DEVICE=all
NODE_MORE_TESTS= node_run all-out-of-core "gpu-node ($gpus GPU[s]*, out of core" HQR_DEVICE=all HQR_GPU_MEMORY=16M HQR_NB=64
NODE_MORE_TESTS= node_run one-out-of-core "gpu-node (1 GPU, out of core" HQR_DEVICE=0 HQR_GPU_MEMORY=8M HQR_NB=64
# xTRTRI, xLAUUM, xPOTRI over the set (in core), with every GPU and with two.
inverse_run() {  # name, env...
  name=$1; shift
  log="$out/node-inverse-$name.log"
  env "$@" HQR_VERBOSE=1 HQR_GPU_MIN_N=0 build/test/test_inverse >"$log" 2>&1
  rc=$?
  seen=$(grep -cE "(potri|trtri|lauum) .*path=gpu-node" "$log")
  if [ $rc = 0 ] && [ "$seen" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "inverse $name: $r ($(tail -n 1 "$log"); $seen calls on the set)"
}
inverse_run all HQR_DEVICE=all
[ "$phys" -gt 2 ] && inverse_run two HQR_DEVICE=0,1
[ "$phys" -gt 2 ] && NODE_MORE_TESTS= node_run two-in-core "gpu-node (2 GPUs, in core)" HQR_DEVICE=0,1
for f in alloc copy:7 kernel:9 sync:4; do
  log="$out/node-inverse-fault-$f.log"
  HQR_DEVICE=all HQR_FAULT=$f HQR_VERBOSE=1 HQR_GPU_MIN_N=0 HQR_TEST_FILTER='*_residual<double*' \
    build/test/test_inverse >"$log" 2>&1
  rc=$?
  fired=$(grep -cE "(potri|trtri) .*path=cpu(-resumed)? \((CUDA error|GPU out of memory)" "$log")
  if [ $rc = 0 ] && [ "$fired" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "inverse HQR_FAULT=$f HQR_DEVICE=all: $r ($fired calls fell back)"
done
for tool in ${GPU_CHECK_SANITIZERS:-memcheck racecheck}; do
  log="$out/node-inverse-sanitizer-$tool.log"
  HQR_DEVICE=all HQR_GPU_MIN_N=0 HQR_TEST_FILTER='*_residual<double, ?L?*' timeout 300 \
    compute-sanitizer --tool "$tool" --error-exitcode 1 build/test/test_inverse >"$log" 2>&1
  rc=$?
  if [ $rc = 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "compute-sanitizer $tool (inverse), HQR_DEVICE=all: $r ($(grep -m1 'ERROR SUMMARY' "$log"))"
done
log="$out/node-missing.log"
HQR_DEVICE=0,63 HQR_GPU_MIN_N=0 build/test/test_potrf_hybrid >"$log" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "names GPU 63" "$log"; then r=ok; else r=FAILED; fail=1; fi
echo "HQR_DEVICE=0,63: $r ($(grep -m1 'names GPU' "$log"))"
for f in alloc copy:7 kernel:9 sync:4; do
  log="$out/node-fault-$f.log"
  HQR_DEVICE=all HQR_FAULT=$f HQR_VERBOSE=1 HQR_GPU_MIN_N=0 HQR_TEST_FILTER='orders*' \
    build/test/test_potrf_hybrid >"$log" 2>&1
  rc=$?
  fired=$(grep -cE "potrf .*path=cpu(-resumed)? \((CUDA error|GPU out of memory)" "$log")
  if [ $rc = 0 ] && [ "$fired" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "HQR_FAULT=$f HQR_DEVICE=all: $r ($fired calls fell back)"
done
for tool in ${GPU_CHECK_SANITIZERS:-memcheck racecheck}; do
  log="$out/node-sanitizer-$tool.log"
  HQR_DEVICE=all HQR_GPU_MIN_N=0 HQR_TEST_FILTER='orders<double>' timeout 300 \
    compute-sanitizer --tool "$tool" --error-exitcode 1 build/test/test_potrf_hybrid >"$log" 2>&1
  rc=$?
  if [ $rc = 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "compute-sanitizer $tool, HQR_DEVICE=all: $r ($(grep -m1 'ERROR SUMMARY' "$log"))"
done
fi

if part node-qr; then
# The QR routines over the device set: xGEQRF (geqrf_node.cu), xORMQR,
# xORGQR and xGELS (qr_apply.cu): test_qr's tests and its hard inputs with
# HQR_DEVICE=all and every size on the set's schedules
# (HQR_DEVICE_REPLICAS=k, exported by the caller, makes one GPU serve as k
# members), injected faults early and late (the CPU resumes from what was
# stored), compute-sanitizer. A run fails where no call took the set's
# schedule (a fault run: where none fell back).
gpus=$(( $(nvidia-smi -L | grep -c '^GPU ') * ${HQR_DEVICE_REPLICAS:-1} ))
qr_node_run() {  # name, routines (a trace pattern), test filter, env...
  name=$1 what=$2 filter=$3; shift 3
  log="$out/node-qr-$(echo "$name" | tr : -).log"
  env "$@" HQR_DEVICE=all HQR_VERBOSE=1 HQR_GPU_MIN_N=0 HQR_TEST_FILTER="$filter" ${wrap:-} build/test/test_qr \
    >"$log" 2>&1
  rc=$?
  seen=$(grep -cE "($what) .*path=gpu-node \($gpus GPUs, (in core|out of core: (C in pieces|[0-9]+ windows))(; [0-9]+ panels GPU to GPU)?\)" "$log")
  shared=$(grep -cE "($what) .*path=gpu-node \($gpus GPUs, [^)]*; [1-9][0-9]* panels GPU to GPU\)" "$log")
  fell=$(grep -cE "($what) .*path=cpu(-resumed)? \((CUDA error|GPU out of memory)" "$log")
  resumed=$(grep -cE "($what) .*path=cpu-resumed" "$log")
  windows=$(grep -cE "($what) .*path=gpu-node \($gpus GPUs, out of core: [0-9]+ windows" "$log")
  beside=$(grep -cE "($what) .*path=gpu-node \($gpus GPUs, in core\), B beside A" "$log")
  case $name in *fault-*) want=$fell ;; ooc-*|memcheck-ooc*) want=$windows ;; ormqr) want=$shared ;; gels) want=$beside ;;
    *) want=$seen ;; esac
  if [ $rc = 0 ] && [ "$want" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "over $gpus GPUs, $name: $r ($(grep -E '^\[  (PASSED|FAILED)  \]' "$log" | head -n 1); $seen calls on the set ($windows in windows, $shared with panels GPU to GPU, $beside with B beside A), $fell fell back, $resumed of them resumed)"
}
qr_node_run geqrf geqrf 'geqrf*'
qr_node_run hard geqrf 'hard_geqrf*'
qr_node_run ormqr '(or|un)mqr' '*mqr*'
qr_node_run orgqr '(or|un)gqr' 'orgqr*'
qr_node_run gels gels 'gels*'
qr_node_run hard-gels gels 'hard_gels*'
for f in ${GPU_CHECK_NODE_QR_FAULTS:-alloc copy:9 kernel:9 sync:4 copy:40 sync:20 kernel:60}; do
  qr_node_run "fault-$f" geqrf 'geqrf_panels*' HQR_FAULT=$f
done
for f in ${GPU_CHECK_NODE_APPLY_FAULTS:-alloc copy:9 sync:4 kernel:20}; do
  qr_node_run "ormqr-fault-$f" '(or|un)mqr' 'ormqr_blocks*' HQR_FAULT=$f
  qr_node_run "gels-fault-$f" gels 'gels_blocks*' HQR_FAULT=$f
  qr_node_run "orgqr-fault-$f" '(or|un)gqr' 'orgqr_blocks*' HQR_FAULT=$f
done
# xGELS over the set under a sync or a copy fault at each step of its
# first four calls in turn (trans N with B beside A, then trans T, whose
# B goes through xORMQR over the set afterwards), 8 runs at a time. Some
# must land while B's columns are stored: the CPU then applies Q to B's
# columns not stored ("B's last columns on the CPU"; with 2 members of one
# H200, copy:121-136 and 175-193, sync:188-202 did).
gels_fault() {
  local log="$out/node-qr-gels-$1-$2.log"
  HQR_FAULT=$1:$2 HQR_DEVICE=all HQR_VERBOSE=1 HQR_GPU_MIN_N=0 HQR_TEST_FILTER='gels_blocks<double>' \
    build/test/test_qr >"$log" 2>&1
  echo "$1:$2 rc=$? late=$(grep -c "B's last columns on the CPU" "$log")"
}
export -f gels_fault
export out
last=${GPU_CHECK_NODE_GELS_STEPS:-240}
{ for n in $(seq 1 "$last"); do echo "sync $n"; echo "copy $n"; done; } |
  xargs -P 8 -n 2 bash -c 'gels_fault "$0" "$1"' >"$out/node-qr-gels-faults.txt"
bad=$(grep -vc ' rc=0 ' "$out/node-qr-gels-faults.txt")
late=$(awk -F'late=' '{ s += $2 } END { print s + 0 }' "$out/node-qr-gels-faults.txt")
[ "$bad" -eq 0 ] || { fail=1; grep -v ' rc=0 ' "$out/node-qr-gels-faults.txt" | sed "s/^/over $gpus GPUs, gels_blocks<double> FAILED under HQR_FAULT=/"; }
[ "$late" -gt 0 ] || { fail=1; echo "over $gpus GPUs, gels_blocks<double>: no fault landed in B's stores"; }
echo "over $gpus GPUs, HQR_FAULT=sync:1..$last and copy:1..$last gels_blocks<double>: $bad failed, $late calls finished B's last columns on the CPU"
# Out of core over the set (HQR_GPU_MEMORY too small for the members'
# shares; HQR_NB=32 so that test_qr's orders hold several panels): windows,
# each updated by xORMQR over the set and factored by the set's schedule;
# xGELS on top of it; faults (the CPU finishes the window, then resumes);
# xORGQR's columns in more ranges than members, dealt out.
# Most calls there still take one GPU's windows (the set's needs per member
# are larger): a run fails only where none took the set's.
ooc_env="HQR_GPU_MEMORY=${GPU_CHECK_NODE_OOC_MEMORY:-512K} HQR_NB=32"
qr_node_run ooc-geqrf geqrf 'geqrf*' $ooc_env
qr_node_run ooc-gels gels 'gels*' $ooc_env
qr_node_run ooc-orgqr '(or|un)gqr' 'orgqr*' $ooc_env
for f in ${GPU_CHECK_NODE_OOC_FAULTS:-copy:9 sync:20 kernel:60}; do
  qr_node_run "ooc-fault-$f" geqrf 'geqrf_panels*' $ooc_env HQR_FAULT=$f
  qr_node_run "ooc-orgqr-fault-$f" '(or|un)gqr' 'orgqr_blocks*' $ooc_env HQR_FAULT=$f
done
wrap="timeout 300 compute-sanitizer --tool memcheck --error-exitcode 1"
qr_node_run memcheck geqrf 'geqrf_panels<double>'
qr_node_run memcheck-apply '(or|un)mqr|(or|un)gqr|gels' '*_blocks<double>'
qr_node_run memcheck-ooc geqrf 'geqrf_panels<double>' $ooc_env
qr_node_run memcheck-ooc-orgqr '(or|un)gqr' 'orgqr_blocks<double>' $ooc_env
wrap=
fi

if part ooc; then
# The QR routines out of core on one GPU: xGEQRF (HQR_GPU_MEMORY=2M: test_qr's
# geqrf_panels orders take windows of one panel), xORMQR in pieces of C,
# xORGQR and xGELS in windows (256K: the cases with HQR_NB set, which keep
# them off the one trip); injected faults (the CPU finishes from what was stored) and
# compute-sanitizer. A run fails where no call took the out-of-core path
# (a fault run: where none fell back). One GPU (HQR_DEVICE=0, no replicas):
# with several, HQR_GPU_MIN_N=0 sends these calls to the set's schedules.
qr_ooc_run() {  # name, test filter, trace pattern, HQR_GPU_MEMORY, env...
  name=$1 filter=$2 pattern=$3 mem=$4; shift 4
  log="$out/ooc-$(echo "$name" | tr : -).log"
  env -u HQR_DEVICE_REPLICAS HQR_DEVICE=0 "$@" HQR_GPU_MEMORY=$mem HQR_VERBOSE=1 HQR_GPU_MIN_N=0 \
    HQR_TEST_FILTER="$filter" ${wrap:-} build/test/test_qr \
    >"$log" 2>&1
  rc=$?
  seen=$(grep -cE "$pattern" "$log")
  fell=$(grep -cE "(geqrf|mqr|gqr|gels) .*path=cpu(-resumed)? \((CUDA error|GPU out of memory)" "$log")
  resumed=$(grep -cE "(geqrf|mqr|gqr|gels) .*path=cpu-resumed" "$log")
  case $name in *fault-*) want=$fell ;; *) want=$seen ;; esac
  if [ $rc = 0 ] && [ "$want" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "out of core $name: $r ($(grep -E '^\[  (PASSED|FAILED)  \]' "$log" | head -n 1); $seen calls out of core, $fell fell back, $resumed of them resumed)"
}
geqrf_ooc='geqrf .*path=gpu-node \(1 GPU, out of core'
ormqr_ooc='(or|un)mqr .*path=gpu-larfb \(out of core'
orgqr_ooc='(or|un)gqr .*path=gpu-node \(1 GPU, out of core'
gels_ooc='gels .*path=gpu-node \(1 GPU, out of core'
qr_ooc_run geqrf 'geqrf*' "$geqrf_ooc" 2M
qr_ooc_run ormqr 'ormqr_blocks*' "$ormqr_ooc" 256K
qr_ooc_run orgqr 'orgqr_blocks*' "$orgqr_ooc" 256K
qr_ooc_run gels 'gels_blocks*' "$gels_ooc" 256K
# Faults early (every call falls back at once) and later (copy:40, sync:20,
# kernel:60: the CPU resumes from the windows already stored).
for f in ${GPU_CHECK_OOC_FAULTS:-alloc copy:9 kernel:9 sync:4 copy:40 sync:20 kernel:60}; do
  qr_ooc_run "geqrf-fault-$f" 'geqrf_panels*' "$geqrf_ooc" 2M HQR_FAULT=$f
  qr_ooc_run "ormqr-fault-$f" 'ormqr_blocks*' "$ormqr_ooc" 256K HQR_FAULT=$f
  qr_ooc_run "orgqr-fault-$f" 'orgqr_blocks*' "$orgqr_ooc" 256K HQR_FAULT=$f
  qr_ooc_run "gels-fault-$f" 'gels_blocks*' "$gels_ooc" 256K HQR_FAULT=$f
done
wrap="timeout 300 compute-sanitizer --tool memcheck --error-exitcode 1"
qr_ooc_run geqrf-memcheck 'geqrf_panels<double>' "$geqrf_ooc" 2M
qr_ooc_run ormqr-memcheck 'ormqr_blocks*' "$ormqr_ooc" 256K
qr_ooc_run orgqr-memcheck 'orgqr_blocks<double>' "$orgqr_ooc" 256K
qr_ooc_run gels-memcheck 'gels_blocks<double>' "$gels_ooc" 256K
wrap=
fi

if part ooc-inverse; then
# xTRTRI, xLAUUM and xPOTRI out of core (inverse_ooc.cu): test_inverse with
# HQR_GPU_MEMORY=1M, where its HQR_NB=32 cases of order 257 and up split
# (HQR_TEST_LARGE adds 1000 and 2100: several levels, products whose
# triangles split again); faults; compute-sanitizer on the double cases.
inv_ooc_run() {  # name, test filter, env...
  name=$1 filter=$2; shift 2
  log="$out/ooc-$(echo "$name" | tr : -).log"
  env "$@" HQR_GPU_MEMORY=1M HQR_VERBOSE=1 HQR_GPU_MIN_N=0 HQR_TEST_FILTER="$filter" ${wrap:-} build/test/test_inverse \
    >"$log" 2>&1
  rc=$?
  seen=$(grep -cE '(trtri|lauum|potri) .*path=gpu-node \([0-9]+ GPUs?, out of core' "$log")
  fell=$(grep -cE '(trtri|lauum|potri) .*path=cpu-resumed' "$log")
  case $name in *fault-*) want=$fell ;; *) want=$seen ;; esac
  if [ $rc = 0 ] && [ "$want" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "out of core $name: $r ($(grep -E '^\[  (PASSED|FAILED)  \]' "$log" | head -n 1); $seen calls out of core, $fell with CPU pieces)"
}
inv_ooc_run inverse '*' HQR_TEST_LARGE=1
# The products over every GPU of the set (on one GPU: HQR_DEVICE_REPLICAS).
inv_ooc_run inverse-set '*residual<double*' HQR_DEVICE=all HQR_TEST_LARGE=1
for f in ${GPU_CHECK_OOC_FAULTS:-alloc copy:9 kernel:9 sync:4 copy:40 sync:20 kernel:60}; do
  inv_ooc_run "inverse-fault-$f" '*residual*' HQR_FAULT=$f  # potri and trtri
done
for f in copy:40 kernel:60; do inv_ooc_run "lauum-fault-$f" '*lauum_product*' HQR_FAULT=$f; done
wrap="timeout 300 compute-sanitizer --tool memcheck --error-exitcode 1"
inv_ooc_run inverse-memcheck '*potri_residual<double*'
wrap=
fi

if part oom; then
echo "== the GPU's memory taken by another process"
BUILD=build sh test/gpu_oom.sh >"$out/oom.log" 2>&1 || fail=1
grep -E '^(not )?ok|^#' "$out/oom.log"
fi

if part large; then
echo "== hybrid potrf up to n = 20000"
HQR_GPU_MIN_N=0 HQR_TEST_LARGE=1 build/test/test_potrf_hybrid >"$out/large.log" 2>&1 || fail=1
tail -n 2 "$out/large.log"
HQR_GPU_MIN_N=0 HQR_TEST_LARGE=1 build/test/test_inverse >"$out/large-inverse.log" 2>&1 || fail=1
tail -n 2 "$out/large-inverse.log"
fi

if part panel; then
echo "== hybrid potrf with the diagonal blocks on the CPU (HQR_PANEL=cpu)"
HQR_PANEL=cpu HQR_GPU_MIN_N=0 build/test/test_potrf_hybrid >"$out/panel-cpu.log" 2>&1 || fail=1
tail -n 2 "$out/panel-cpu.log"
fi

if part faults; then
# Every kind of GPU step made to fail, first and later occurrences: the
# answers must still be LAPACK's (through the CPU), and the trace must show
# that the fault fired and the CPU took over.
echo "== injected GPU faults"
for f in alloc copy:7 kernel:9 sync:4; do
  for panel in ${GPU_CHECK_PANELS:-gpu cpu}; do
    log="$out/fault-$f-$panel.log"
    HQR_PANEL=$panel HQR_FAULT=$f HQR_VERBOSE=1 HQR_GPU_MIN_N=0 BUILD=build HQR_TEST_LOG=full \
      scripts/run-tests.sh build/test/test_potrf_hybrid build/test/test_inverse >"$log" 2>&1
    rc=$?
    fired=$(grep -cE "path=cpu(-resumed)? \((CUDA error|GPU out of memory)" "$log")
    if [ $rc = 0 ] && [ "$fired" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
    echo "HQR_FAULT=$f HQR_PANEL=$panel: $r ($(tail -n 1 "$log"); $fired calls fell back)"
    # The hybrid geqrf: its tests alone (test_qr's other routines run on the CPU).
    log="$out/fault-$f-$panel-qr.log"
    HQR_PANEL=$panel HQR_FAULT=$f HQR_VERBOSE=1 HQR_GPU_MIN_N=0 HQR_TEST_FILTER='geqrf*' build/test/test_qr >"$log" 2>&1
    rc=$?
    fired=$(grep -cE "geqrf.*path=cpu(-resumed)? \((CUDA error|GPU out of memory)" "$log")
    if [ $rc = 0 ] && [ "$fired" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
    echo "HQR_FAULT=$f HQR_PANEL=$panel test_qr (geqrf): $r ($fired calls fell back)"
  done
done
# xORMQR, xORGQR and xGELS on the GPU (the *_blocks tests): the first and
# later steps of each kind fail; the counter is global, so every step after
# the n-th fails too. Then a failure at each of the first sync points of
# dgels in turn, so that it lands inside the download phase and the CPU
# resumes from the rows or columns already stored.
for f in alloc copy:2 copy:9 kernel:3 kernel:9 sync:2 sync:6; do
  log="$out/fault-$f-qr-apply.log"
  HQR_FAULT=$f HQR_VERBOSE=1 HQR_GPU_MIN_N=0 HQR_TEST_FILTER='*_blocks*' build/test/test_qr >"$log" 2>&1
  rc=$?
  fired=$(grep -cE "path=cpu(-resumed)? \((CUDA error|GPU out of memory)" "$log")
  if [ $rc = 0 ] && [ "$fired" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "HQR_FAULT=$f test_qr (ormqr, orgqr, gels): $r ($fired calls fell back, $(grep -c cpu-resumed "$log") resumed)"
done
# A caller's arrays in pinned memory (test_pinned, one kind at a time so
# that the faults land in its paths): the one trip's direct DMAs and
# device stores, whose failure after storing puts the inputs back, and the
# hybrids' direct uploads; the answers must stay LAPACK's.
for mem in cudaMallocHost cudaHostRegister; do
  for f in alloc copy:1 copy:2 copy:5 kernel:1 kernel:4 sync:1 sync:2 sync:5; do
    log="$out/fault-$f-pinned-$mem.log"
    HQR_TEST_MEMORY=$mem HQR_FAULT=$f HQR_VERBOSE=1 HQR_GPU_MIN_N=0 build/test/test_pinned >"$log" 2>&1
    rc=$?
    fired=$(grep -cE "path=cpu(-resumed)? \((CUDA error|GPU out of memory)" "$log")
    if [ $rc = 0 ] && [ "$fired" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
    echo "HQR_FAULT=$f test_pinned ($mem): $r ($fired calls fell back, $(grep -c cpu-resumed "$log") resumed)"
  done
done
bad=0
for n in $(seq 1 ${GPU_CHECK_GELS_SYNCS:-24}); do
  HQR_FAULT=sync:$n HQR_GPU_MIN_N=0 HQR_TEST_FILTER='gels_blocks<double>' build/test/test_qr >"$out/fault-gels-sync.log" 2>&1 ||
    { bad=$((bad + 1)); fail=1; echo "HQR_FAULT=sync:$n gels_blocks<double>: FAILED"; }
done
echo "HQR_FAULT=sync:1..${GPU_CHECK_GELS_SYNCS:-24} gels_blocks<double>: $bad failed"
# The same for m < n (the hybrid's A**H form, which stores A's rows): a
# failure at each of the first copies and syncs, and some must land where
# A's leading rows were stored, so that the CPU resumes from them.
for k in copy sync; do
  bad=0 resumed=0
  for n in $(seq 1 ${GPU_CHECK_GELS_SYNCS:-24}); do
    log="$out/fault-gels-wide.log"
    HQR_FAULT=$k:$n HQR_VERBOSE=1 HQR_GPU_MIN_N=0 HQR_TEST_FILTER='gels_blocks_wide<double>' build/test/test_qr \
      >"$log" 2>&1 || { bad=$((bad + 1)); fail=1; echo "HQR_FAULT=$k:$n gels_blocks_wide<double>: FAILED"; }
    resumed=$((resumed + $(grep -c 'path=cpu-resumed' "$log")))
  done
  [ "$resumed" -gt 0 ] || { fail=1; echo "HQR_FAULT=$k:* gels_blocks_wide<double>: no call resumed from stored rows"; }
  echo "HQR_FAULT=$k:1..${GPU_CHECK_GELS_SYNCS:-24} gels_blocks_wide<double>: $bad failed, $resumed calls resumed"
done
fi

if part gelsd; then
# xGELSD's bidiagonal form on the GPU (gebrd.cu): the suite's run requires
# each of test_gelsd's tall calls to end on a GPU path, which under
# HQR_GPU_MIN_N=0 includes the bidiagonal form; here faults (the counter is
# global: the QR's steps fail too, and a call whose bidiagonal form failed
# says "cpu-resumed" with the GPU's reason, which only gelsd.cpp writes for
# it) and memcheck over the double and complex-single cases.
echo "== xGELSD's bidiagonal form on the GPU"
log="$out/gelsd.log"
HQR_VERBOSE=1 HQR_GPU_MIN_N=0 build/test/test_gelsd >"$log" 2>&1
rc=$?
seen=$(grep -c "gelsd .*bidiagonal form on the GPU" "$log")
# Both ends of the bidiagonal form must run after the GPU made it: the
# full-rank one (xBDSQR and R's triangular solve) and LAPACK's (xLALSD).
full=$(grep -c "gelsd .*bidiagonal form on the GPU, full rank" "$log")
lalsd=$(grep -c "gelsd .*bidiagonal form on the GPU, its SVD by xLALSD" "$log")
if [ $rc = 0 ] && [ "$full" -gt 0 ] && [ "$lalsd" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
echo "test_gelsd: $r ($(grep -E '^\[  (PASSED|FAILED)  \]' "$log" | head -n 1); $seen calls with the bidiagonal form on the GPU: $full full rank, $lalsd by xLALSD)"
for f in alloc copy:3 copy:40 kernel:2 kernel:30 sync:3 sync:20; do
  log="$out/gelsd-fault-$f.log"
  HQR_FAULT=$f HQR_VERBOSE=1 HQR_GPU_MIN_N=0 HQR_TEST_FILTER='gelsd_vs_lapack*' build/test/test_gelsd >"$log" 2>&1
  rc=$?
  fired=$(grep -cE "gelsd .*path=cpu-resumed \((CUDA error|GPU out of memory)" "$log")
  if [ $rc = 0 ] && [ "$fired" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "HQR_FAULT=$f test_gelsd: $r ($(grep -E '^\[  (PASSED|FAILED)  \]' "$log" | head -n 1); $fired bidiagonal forms fell back)"
done
for t in 'gelsd_vs_lapack<double>' 'gelsd_rank_deficient<std::complex<float>>' 'gelsd_rank_threshold<std::complex<double>>'; do
  log="$out/gelsd-memcheck-${t%%<*}.log"
  HQR_TEST_FILTER=$t HQR_GPU_MIN_N=0 timeout 300 compute-sanitizer --tool memcheck --error-exitcode 1 \
    build/test/test_gelsd >"$log" 2>&1
  if [ $? = 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "compute-sanitizer memcheck test_gelsd $t: $r ($(grep -m1 'ERROR SUMMARY' "$log"))"
done
fi

if part sanitizer; then
# Each GPU test under memcheck and racecheck, with a filter that keeps it
# inside its time limit while still taking every GPU path of the test:
# test_inverse in double (potri, trtri, lauum, both uplo, HQR_INV_LEAF=64 so
# that the recursion splits at these orders), test_qr the hybrid geqrf,
# test_qrupd the GPU update paths, s, d, c and z, one precision a run (the
# shared-memory kernels: qrupd_cols.cu's band_qr, cholqr.cuh's signed LU and
# triangular inverse).
echo "== compute-sanitizer"
for tool in ${GPU_CHECK_SANITIZERS:-memcheck racecheck}; do
  i=0
  # test_qr's geqrf_panels one type at a time, each under its own limit:
  # racecheck took 249 s for <double> (H100), 400 s for complex<double>
  # and 286-302 s for the single types (H200, 2026-11-27), so all four
  # under one 300 s limit never finished. Even one tool of this part
  # (GPU_CHECK_SANITIZERS) outlasts a 10-minute GPU slot: there, run the
  # loop's commands a few at a time.
  # test_pinned: the pinned caller's paths (cudaMallocHost memory), double.
  for t in test_potrf_hybrid:'*' test_inverse:'*<double*' test_qr:'geqrf_panels<float>' \
           test_qr:'geqrf_panels<double>' test_qr:'geqrf_panels<std::complex<float>>' \
           test_qr:'geqrf_panels<std::complex<double>>' test_qr:'*_blocks<double>*' \
           test_qrupd:'gpu_paths_s' test_qrupd:'gpu_paths_d' test_qrupd:'gpu_paths_c' test_qrupd:'gpu_paths_z' \
           test_pinned:'*_pinned<double>'; do
    name=${t%%:*}; i=$((i + 1))
    log="$out/sanitizer-$tool-$i-$name.log"
    HQR_TEST_MEMORY=cudaMallocHost HQR_TEST_FILTER=${t#*:} HQR_INV_LEAF=64 HQR_GPU_MIN_N=0 timeout 600 \
        compute-sanitizer --tool $tool --error-exitcode 99 build/test/$name >"$log" 2>&1 || fail=1
    echo "$tool $name (${t#*:}): $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$log" | tail -n 2 | tr '\n' ' ')"
  done
done
fi

if part qrupd; then
# The QR updates' GPU paths (all four; addrows with and without Q), s, d, c
# and z (test_qrupd): the whole test with every size on the GPU (gpu_paths_*
# fail where a call did not run there) and injected faults (the arrays must
# come back right through the CPU); compute-sanitizer is in part sanitizer.
# The limits are those of the two programs (s/d, c/z) this one replaced,
# added.
echo "== QR updates"
t=test_qrupd
HQR_GPU_MIN_N=0 timeout 400 build/test/$t >"$out/$t.log" 2>&1 || fail=1
echo "$t: $(tail -n 1 "$out/$t.log")"
for f in alloc copy:3 kernel:5 sync:2 ${GPU_CHECK_QRUPD_FAULTS:-}; do
  log="$out/$t-fault-$f.log"
  HQR_FAULT=$f HQR_VERBOSE=1 HQR_GPU_MIN_N=0 HQR_TEST_FILTER='gpu_paths*' timeout 200 build/test/$t >"$log" 2>&1
  rc=$?
  fired=$(grep -cE "path=cpu-(update|refactor) \((CUDA error|GPU out of memory)" "$log")
  if [ $rc = 0 ] && [ "$fired" -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "$t HQR_FAULT=$f: $r ($fired calls fell back)"
done
fi

if part qrupd-econ; then
# The economy form's addcols on the GPU (qrupd_econ.cu), s, d, c and z: the
# whole test with every size sent there (the tall shapes must end on the
# GPU; the others may decline to the CPU's Gram-Schmidt), injected faults
# before R is written (the CPU redoes the update) and while Q's rows stream
# out (the CPU finishes the rows left: "Q's last rows"; in the tall shapes,
# gpu_paths_*, which always take the GPU), compute-sanitizer. HQR_GPU_MIN_N
# puts R's staircase on the device too (every call with passes must say
# so); HQR_PANEL=cpu keeps the host's Givens passes on R for a second run.
echo "== economy QR updates"
HQR_GPU_MIN_N=0 HQR_VERBOSE=1 timeout 200 build/test/test_qrupd_econ >"$out/qrupd_econ.log" 2>&1 || fail=1
stairs=$(grep -c "addcols_econ.*path=gpu-update.*staircase factored on the device" "$out/qrupd_econ.log")
echo "test_qrupd_econ: $(tail -n 1 "$out/qrupd_econ.log"), $(grep -c 'addcols_econ.*path=gpu-update' "$out/qrupd_econ.log") addcols on the GPU" \
     "($stairs with R's staircase on the device), $(grep -c 'addcols_econ.*path=cpu-update' "$out/qrupd_econ.log") on the CPU"
[ "$stairs" -gt 0 ] || { echo "no staircase factored on the device: FAILED"; fail=1; }
HQR_PANEL=cpu HQR_GPU_MIN_N=0 HQR_VERBOSE=1 timeout 200 build/test/test_qrupd_econ >"$out/qrupd_econ-host-passes.log" 2>&1 || fail=1
echo "test_qrupd_econ HQR_PANEL=cpu: $(tail -n 1 "$out/qrupd_econ-host-passes.log")," \
     "$(grep -c 'addcols_econ.*path=gpu-update' "$out/qrupd_econ-host-passes.log") addcols on the GPU," \
     "$(grep -c 'staircase factored' "$out/qrupd_econ-host-passes.log") with the staircase there"
# econ_fault LABEL FAULT [VAR=VALUE...]: gpu_paths_* under HQR_FAULT, which
# must either redo calls on the CPU or finish Q's last rows there.
finished=0
econ_fault() {
  label=$1 f=$2
  shift 2
  log="$out/qrupd_econ-fault-$label$f.log"
  env "$@" HQR_FAULT=$f HQR_VERBOSE=1 HQR_GPU_MIN_N=0 HQR_TEST_FILTER='gpu_paths_*' timeout 100 \
      build/test/test_qrupd_econ >"$log" 2>&1
  rc=$?
  back=$(grep -cE "addcols_econ.*path=cpu-update \((CUDA error|GPU out of memory)" "$log")
  rows=$(grep -c "Q's last rows updated on the CPU" "$log")
  if [ -z "$label" ]; then finished=$((finished + rows)); fi  # the staircase's runs must land one
  if [ $rc = 0 ] && [ $((back + rows)) -gt 0 ]; then r=ok; else r=FAILED; fail=1; fi
  echo "test_qrupd_econ $* HQR_FAULT=$f: $r ($back calls redone on the CPU, $rows with Q's last rows finished there)"
}
for f in alloc copy:2 kernel:3 sync:2 sync:5 sync:6 sync:12 sync:14 sync:17 kernel:40 copy:40 ${GPU_CHECK_ECON_FAULTS:-}; do
  econ_fault "" "$f"
done
# The same with the host's passes (R's staircase not on the device).
for f in kernel:3 sync:6 kernel:40; do econ_fault host-passes- "$f" HQR_PANEL=cpu; done
[ "$finished" -gt 0 ] || { echo "no fault landed while Q's rows streamed: FAILED"; fail=1; }
HQR_GPU_MIN_N=0 HQR_TEST_FILTER='*_d' timeout 300 compute-sanitizer --tool memcheck --error-exitcode 99 \
    build/test/test_qrupd_econ >"$out/sanitizer-qrupd_econ.log" 2>&1 || fail=1
grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/sanitizer-qrupd_econ.log" | tail -n 3
fi

if part blas3; then
# Level-3 BLAS on the GPUs (blas3_gpu.cu): test_blas3 with every call on the
# GPU path, at the default tile edge and at 64 (many tiles, dealt over the
# set's GPUs, the A pieces copied GPU to GPU), one GPU, pieces streamed
# through a 4 MB budget (the tiles shrink; at 1 and 2 MB the smallest
# schedules of a few of the tests' calls do not fit -- zgemm 480x64x512
# with 32-wide pieces, the A of dsymm and zsymm of order 345 -- and those
# run on the CPU as planned: H200, 2026-11-28), faults in the middle of the
# large calls (the CPU finishes the lines not stored: cpu-resumed), the
# reference BLAS testers, and compute-sanitizer on the multi-tile gemms.
export HQR_REFERENCE_BLAS=${HQR_REFERENCE_BLAS:-$hqr_lib/blas/libblas.so.3}
for run in "default:" "nb64:HQR_NB=64" "nb64-1gpu:HQR_NB=64 HQR_DEVICE=0" "stream:HQR_NB=64 HQR_GPU_MEMORY=4M" \
           "fault-copy:HQR_NB=64 HQR_FAULT=copy:200 HQR_TEST_FILTER=*_large*" \
           "fault-sync:HQR_NB=64 HQR_FAULT=sync:150 HQR_TEST_FILTER=*_large*" \
           "fault-kernel:HQR_NB=64 HQR_FAULT=kernel:60 HQR_TEST_FILTER=*_large*"; do
  name=${run%%:*}
  echo "== test_blas3 $name"
  env ${run#*:} HQR_GPU_MIN_N=0 HQR_VERBOSE=1 build/test/test_blas3 >"$out/blas3-$name.log" 2>&1 || fail=1
  grep -E "^\[  (PASSED|FAILED)  \]" "$out/blas3-$name.log" | head -n 2
  echo "   $(grep -c 'path=gpu' "$out/blas3-$name.log") calls on a GPU path," \
       "$(grep -c 'several GPUs' "$out/blas3-$name.log") over several, $(grep -c cpu-resumed "$out/blas3-$name.log") finished by the CPU"
done
echo "== reference BLAS testers"
BLAS_TESTING_DIR=${BLAS_TESTING_DIR:-$hqr_lib/blas} BUILD=build sh test/blas_testers.sh >"$out/blas_testers.log" 2>&1 || fail=1
grep -E '^(not )?ok' "$out/blas_testers.log"
HQR_NB=64 HQR_GPU_MIN_N=0 HQR_TEST_FILTER='*gemm_large*' timeout 300 compute-sanitizer --tool memcheck \
    --error-exitcode 99 build/test/test_blas3 >"$out/sanitizer-blas3.log" 2>&1 || fail=1
grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/sanitizer-blas3.log" | tail -n 3
fi

if part mpi; then
# ScaLAPACK under mpirun, one rank per GPU (HQR_DEVICE=local-rank; at least
# 2 ranks, 4 where the machine has 4 GPUs or more), every call hqr serves on
# its rank's GPU.
ranks=$(nvidia-smi -L | grep -c '^GPU '); [ "$ranks" -gt 4 ] && ranks=4; [ "$ranks" -lt 2 ] && ranks=2
echo "== ScaLAPACK, $ranks ranks"
HQR_SCALAPACK_RANKS=$ranks HQR_GPU_MIN_N=0 BUILD=build sh test/scalapack.sh >"$out/scalapack.log" 2>&1 || fail=1
grep -E '^(not )?ok' "$out/scalapack.log"
fi

if part sanitizer; then
# Many threads' GPU calls at once (orders up to 200 keep it short).
HQR_GPU_MIN_N=0 HQR_TEST_MAX_N=200 timeout 300 compute-sanitizer --tool memcheck --error-exitcode 99 \
    build/test/test_threads >"$out/sanitizer-threads.log" 2>&1 || fail=1
grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/sanitizer-threads.log" | tail -n 3
fi

[ $fail = 0 ] && echo "gpu-check: all passed" || echo "gpu-check: FAILURES (logs in $out)"
# GPU_CHECK_TAR=file: every log in one compressed file as well (for a
# machine that returns few files).
[ -n "${GPU_CHECK_TAR:-}" ] && tar czf "$GPU_CHECK_TAR" -C "$out" .
exit $fail
