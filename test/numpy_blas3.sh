#!/bin/sh
# Debian's numpy (python3-numpy, on the system BLAS/LAPACK) under
# LD_PRELOAD=libhqr.so: A @ B reaches hqr's cblas_dgemm (row-major, turned
# into the column-major product), np.linalg.solve (dgesv, forwarded) still
# answers; results equal to the plain run's. With HQR_GPU_MIN_N=0 on a
# machine with a GPU the product must run there (issue 37); without one the
# trace says why not. N (default 600) sets the order: HQR_NUMPY_N=8192 on
# the GPU machine.
BUILD=${BUILD:-build}
lib=$(cd "$BUILD" && pwd)/libhqr.so
py=/usr/bin/python3
n=${HQR_NUMPY_N:-600}
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/numpy_blas3.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }
if ! "$py" -c 'import numpy' 2>/dev/null; then
  echo "ok - numpy_blas3: Debian's python3-numpy # SKIP not installed (make deps)"
  exit 0
fi
cat >"$out/prog.py" <<'PY'
import sys
import numpy as np
n = int(sys.argv[1])
rng = np.random.default_rng(int(sys.argv[2]))
a = rng.standard_normal((n, n + 7))
b = rng.standard_normal((n + 7, n - 5))
c = a @ b
m = rng.standard_normal((n, n)) + n * np.eye(n)
rhs = rng.standard_normal((n, 3))
x = np.linalg.solve(m, rhs)
# The product against a sum that uses no BLAS-3 (einsum's loops), the solve by its residual.
ref = np.einsum('ik,kj->ij', a, b, optimize=False)
eps = np.finfo(float).eps
r1 = np.abs(c - ref).max() / (np.abs(a).max() * np.abs(b).max() * (n + 7) * eps)
r2 = np.abs(m @ x - rhs).max() / (np.abs(m).max() * np.abs(x).max() * n * eps)
print("ratios %.3g %.3g" % (r1, r2))
print("checksum %.17g" % c.sum())
sys.exit(0 if r1 < 30 and r2 < 30 else 1)
PY
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
"$py" "$out/prog.py" "$n" "$seed" >"$out/plain.out" 2>&1 && ok "numpy_blas3: plain numpy, n = $n: $(grep ratios "$out/plain.out")" ||
  notok "numpy_blas3: plain numpy ($(cat "$out/plain.out" | tail -n 2))"
for run in hqr gpu; do
  if [ $run = gpu ]; then extra="HQR_GPU_MIN_N=0"; else extra=""; fi
  env LD_PRELOAD="$lib" HQR_VERBOSE=1 $extra "$py" "$out/prog.py" "$n" "$seed" >"$out/$run.out" 2>"$out/$run.err"
  rc=$?
  [ $rc -eq 0 ] && ok "numpy_blas3: $run run, $(grep ratios "$out/$run.out")" || notok "numpy_blas3: $run run (exit $rc)"
  if [ "$(grep checksum "$out/$run.out")" = "$(grep checksum "$out/plain.out")" ] || [ $run = gpu ]; then
    ok "numpy_blas3: $run run's product checked ($(grep checksum "$out/$run.out"))"
  else
    # The CPU path is the same OpenBLAS call: bit for bit.
    notok "numpy_blas3: $run run's product differs from the plain run's"
  fi
  line=$(grep '^hqr: dgemm .* path=' "$out/$run.err" | head -n 1)
  if [ -z "$line" ]; then
    notok "numpy_blas3: $run run: A @ B went through hqr's dgemm (no trace line)"
  elif [ $run = gpu ] && ! echo "$line" | grep -qE '\((no GPU|built without CUDA)\)' && ! echo "$line" | grep -q 'path=gpu'; then
    notok "numpy_blas3: gpu run: a GPU, but A @ B did not run there: $line"
  else
    ok "numpy_blas3: $run run: $(echo "$line" | sed 's/.* path=/path=/')"
  fi
done
[ $failed = 0 ] && rm -rf "$out"
exit $failed
