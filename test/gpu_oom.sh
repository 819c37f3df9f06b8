#!/bin/sh
# A matrix that does not fit the GPU's memory (issue 7, item 3; ABI.md,
# "Threads, fork and sanitizers"): on the GPU machine another process holds
# all but HQR_OOM_LEAVE_MIB (default 224: enough for a context and small
# matrices, not for the larger ones) MiB of device memory while the
# hybrid potrf and inverse tests run with HQR_GPU_MIN_N=0. Every call must
# still give LAPACK's answer, and some calls must report that they fell back
# to the CPU (out of memory, or no context could be made at all). Needs a GPU and Python with
# PyTorch or CuPy to hold the memory; skipped otherwise (make check has no GPU).
BUILD=${BUILD:-build}
leave=${HQR_OOM_LEAVE_MIB:-224}
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "ok - gpu_oom # SKIP no GPU"
  exit 0
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/gpu_oom.XXXXXX") || exit 1
ready=$out/ready
# The holder allocates in 1 GiB pieces, then smaller ones, until only
# `leave` MiB are free, says so, and keeps the memory until killed.
python3 - "$leave" "$ready" >"$out/holder.log" 2>&1 <<'PY' &
import sys, time
leave, ready = int(sys.argv[1]) << 20, sys.argv[2]
try:
    import torch
    free = lambda: torch.cuda.mem_get_info()[0]
    alloc = lambda b: torch.empty(b, dtype=torch.uint8, device="cuda")
except ImportError:
    import cupy
    free = lambda: cupy.cuda.runtime.memGetInfo()[0]
    alloc = lambda b: cupy.empty(b, dtype=cupy.uint8)
held, piece = [], 1 << 30
while piece >= 1 << 20:
    while free() - piece > leave:
        held.append(alloc(piece))
    piece >>= 1
open(ready, "w").write(str(free() >> 20))
while True:
    time.sleep(1)
PY
holder=$!
for i in $(seq 120); do [ -s "$ready" ] && break; kill -0 $holder 2>/dev/null || break; sleep 1; done
if [ ! -s "$ready" ]; then
  echo "not ok - gpu_oom: could not take the GPU's memory"; cat "$out/holder.log"
  kill $holder 2>/dev/null; exit 1
fi
echo "# device memory left free: $(cat "$ready") MiB"
failed=0
for t in test_potrf_hybrid test_inverse; do
  HQR_GPU_MIN_N=0 HQR_VERBOSE=1 "$BUILD/test/$t" >"$out/$t.out" 2>"$out/$t.err"
  rc=$?
  fell=$(grep -c 'path=cpu (' "$out/$t.err")
  why=$(grep -o 'path=cpu ([^)]*' "$out/$t.err" | sort | uniq -c | sed 's/path=cpu (//' | tr -s ' \n' ' ')
  gpu=$(grep -c 'path=gpu' "$out/$t.err")
  if [ $rc = 0 ] && [ "$fell" -gt 0 ]; then
    echo "ok - gpu_oom: $t passes with the GPU's memory taken ($fell calls fell back to the CPU:$why; $gpu fit)"
  else
    echo "not ok - gpu_oom: $t (exit status $rc, $fell calls fell back)"
    grep -v '^hqr: ' "$out/$t.out" "$out/$t.err" | tail -n 20
    failed=1
  fi
done
kill $holder 2>/dev/null
wait $holder 2>/dev/null
rm -rf "$out"
exit $failed
