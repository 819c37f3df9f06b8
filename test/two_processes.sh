#!/bin/sh
# Two processes at once (ABI.md, "Threads, fork and sanitizers"): the
# CMocka programs test_threads and test_potrf_hybrid run at the same time
# and each must pass. On the GPU machine, with HQR_GPU_MIN_N=0, both put
# their potrf calls on the one GPU, each with its own context; each must
# then have run some of them there (HQR_VERBOSE lines "path=gpu-hybrid"),
# and falling back to the CPU when the other holds the memory is allowed.
# Without a GPU both run on the CPU and the counts are 0.
BUILD=${BUILD:-build}
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/two_processes.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

gpu=0
if [ "${HQR_GPU_MIN_N:-}" = 0 ] && [ "${HQR_DEVICE:-}" != none ] && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  gpu=1
fi
a=test_threads b=test_potrf_hybrid
for p in $a $b; do
  if [ ! -x "$BUILD/test/$p" ]; then
    notok "two_processes: $BUILD/test/$p is built (make tests)"
    exit 1
  fi
done
HQR_VERBOSE=1 "$BUILD/test/$a" >"$out/$a.out" 2>"$out/$a.err" &
pa=$!
HQR_VERBOSE=1 "$BUILD/test/$b" >"$out/$b.out" 2>"$out/$b.err" &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
for p in $a $b; do
  [ $p = $a ] && rc=$ra other=$b || rc=$rb other=$a
  on_gpu=$(grep -c '^hqr: .potrf .*path=gpu-hybrid' "$out/$p.err")
  if [ "$rc" -eq 0 ] && grep -q '^\[  PASSED  \]' "$out/$p.err" "$out/$p.out" && ! grep -q '^\[  FAILED  \]' "$out/$p.err" "$out/$p.out"; then
    ok "two_processes: $p passes while $other runs (potrf calls on the GPU: $on_gpu)"
  else
    notok "two_processes: $p passes while $other runs (exit status $rc)"
    grep -v '^hqr: ' "$out/$p.out" "$out/$p.err" | tail -n 20
  fi
  if [ $gpu = 1 ]; then
    if [ "$on_gpu" -gt 0 ]; then ok "two_processes: $p shared the GPU ($on_gpu potrf calls there)"
    else notok "two_processes: $p shared the GPU (no potrf call ran there; HQR_GPU_MIN_N=0)"; fi
  fi
done
if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
