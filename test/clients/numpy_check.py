"""numpy.linalg as Debian ships it (python3-numpy, linked with liblapack.so.3),
run by test/clients.sh under LD_PRELOAD=libhqr.so and through the registered
alternative. Fresh random matrices; each answer is checked by a LAPACK-style
scaled residual against THRESH = 30:
  cholesky  (dpotrf, zpotrf)  |L L^H - A| / (n |A| eps), L lower triangular
  qr        (dgeqrf + dorgqr, zgeqrf + zungqr, through lapack_lite)
            |Q R - M| / (m |M| eps) with R upper triangular, |Q^H Q - I| / (m eps)
  inv       (dgesv: hqr forwards it)  |G X - I| / (n |G| |X| eps)
(numpy.linalg computes float32 and complex64 input in double precision, so
those would only call the same routines again.)
Prints TAP lines "ok - LABEL: ..." / "not ok - LABEL: ..." and the seed
(HQR_SEED=<seed> reruns the same data). Usage: numpy_check.py LABEL"""
import os
import secrets
import sys

import numpy as np

THRESH = 30.0
label = sys.argv[1] if len(sys.argv) > 1 else "numpy"
seed = int(os.environ.get("HQR_SEED") or secrets.randbits(63))
rng = np.random.default_rng(seed)
print(f"# {label}: numpy {np.__version__}, seed {seed}")


def check(what, ratio):
    ok = bool(ratio < THRESH)  # a NaN fails
    print(f"{'ok' if ok else 'not ok'} - {label}: {what} ratio={ratio:.3g}")


def norm1(x):
    return np.linalg.norm(x, 1)


def random(shape, dtype):
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def hpd(n, dtype):  # Hermitian positive definite, well conditioned
    b = random((n, n), dtype)
    return b.conj().T @ b + n * np.eye(n, dtype=dtype)


n, m = 300, 400
for dtype, routine in ((np.float64, "dpotrf"), (np.complex128, "zpotrf")):
    eps = np.finfo(dtype).eps
    a = hpd(n, dtype)
    l = np.linalg.cholesky(a)
    ratio = norm1(l @ l.conj().T - a) / (n * norm1(a) * eps)
    check(f"cholesky {np.dtype(dtype).name} ({routine}) L L^H = A",
          ratio if np.all(np.triu(l, 1) == 0) else np.inf)

for dtype, routines in ((np.float64, "dgeqrf + dorgqr"), (np.complex128, "zgeqrf + zungqr")):
    eps = np.finfo(dtype).eps
    mat = random((m, n), dtype)
    q, r = np.linalg.qr(mat)
    ratio = norm1(q @ r - mat) / (m * norm1(mat) * eps)
    check(f"qr {np.dtype(dtype).name} ({routines}) Q R = M", ratio if np.all(np.tril(r, -1) == 0) else np.inf)
    check(f"qr {np.dtype(dtype).name} ({routines}) Q^H Q = I",
          norm1(q.conj().T @ q - np.eye(n)) / (m * eps))

eps = np.finfo(np.float64).eps
g = random((n, n), np.float64)
x = np.linalg.inv(g)
check("inv float64 (dgesv, forwarded) G inv(G) = I",
      norm1(g @ x - np.eye(n)) / (n * norm1(g) * norm1(x) * eps))
