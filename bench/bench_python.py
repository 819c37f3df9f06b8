#!/usr/bin/env python3
"""The Python targets of issue 41, in one table: numpy under `python -m hqr`
against plain numpy, and hqr.linalg.qr_insert of a block of columns against
scipy.linalg.qr_insert called column by column.

  python3 bench/bench_python.py [--n 16384] [--qr 16384x4096] [--lstsq 32768x2048]
                                [--insert 16384x4096+100] [--reps 3] [--skip ...]

Each numpy timing runs in a child interpreter (plain `python`, then
`python -m hqr`, the package installed or on PYTHONPATH), median of --reps after
one warm-up, the same inputs. The qr_insert rows run in this process: full
(Q M-by-M) and economic (Q M-by-N) factors of a random M-by-N matrix, P
columns inserted at column N/2. The issue's targets: cholesky >= 10x, qr and
lstsq >= 5x, qr_insert >= 50x. Each numpy row also reports the time spent in
hqr's LAPACK routines (their HQR_VERBOSE times) and the rest, numpy's own
steps (its copies of the input and result, row by row through xCOPY, which
hqr also answers on every core), which no LAPACK routine shortens:
plain numpy's time over that rest bounds the speedup. Small sizes smoke-test it on any machine:
  python3 bench/bench_python.py --n 500 --qr 400x200 --lstsq 800x100 --insert 400x100+10
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

CHILD = r"""
import json, sys, time
import numpy as np
op, shape, reps = sys.argv[1], [int(x) for x in sys.argv[2].split("x")], int(sys.argv[3])
rng = np.random.default_rng(0)
if op == "cholesky":
    n = shape[0]
    a = rng.random((n, n)); a = a @ a.T + n * np.eye(n)
    f = lambda: np.linalg.cholesky(a)
elif op == "qr":
    a = rng.random(shape)
    f = lambda: np.linalg.qr(a)
else:
    a = rng.random(shape); b = rng.random(shape[0])
    f = lambda: np.linalg.lstsq(a, b, rcond=None)
f()
ts = []
sys.stderr.write("# timed\n"); sys.stderr.flush()
for _ in range(reps):
    t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
sys.stderr.write("# end\n"); sys.stderr.flush()
info = {}
try:
    import hqr
    i = hqr.info()
    info = {"device": i["device_name"], "paths": i["paths"],
            "served": i.get("numpy", {}).get("served_by_hqr")}
except Exception as e:
    info = {"error": str(e)}
print(json.dumps({"t": sorted(ts)[len(ts) // 2], "numpy": np.__version__, "hqr": info}))
"""


# The LAPACK routines each numpy call makes at the top (HQR_VERBOSE also
# prints the calls nested in them: dgelsd's dgeqrf and dormqr).
TOP = {"cholesky": ("dpotrf",), "qr": ("dgeqrf", "dorgqr"), "lstsq": ("dgelsd",)}


def child(op, shape, reps, with_hqr):
    cmd = [sys.executable] + (["-m", "hqr"] if with_hqr else []) + ["-c", CHILD, op, shape, str(reps)]
    env = dict(os.environ, HQR_VERBOSE="1") if with_hqr else None
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd[:4]), out.stderr[-2000:]))
    res = json.loads(out.stdout.strip().splitlines()[-1])
    if with_hqr:
        # Seconds per numpy call spent inside hqr's LAPACK routines (the sum of
        # their HQR_VERBOSE times over the timed calls, divided by their number):
        # the rest of the call is numpy's own work, the same with or without hqr.
        timed = out.stderr.split("# timed\n", 1)[-1].split("# end\n", 1)[0]
        inside = sum(float(m.group(2)) for m in re.finditer(r"^hqr: (\S+) .* time=([0-9.e+-]+)s", timed, re.M)
                     if m.group(1) in TOP[op])
        res["lapack"] = inside / reps
    return res


def median_time(f, reps):
    f()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[len(ts) // 2]


def bench_insert(spec, reps, scipy_steps):
    import numpy as np
    import scipy.linalg as sl
    import hqr.linalg as hl
    mn, p = spec.split("+")
    m, n, p = [int(x) for x in mn.split("x")] + [int(p)]
    rng = np.random.default_rng(1)
    a = rng.random((m, n))
    u = rng.random((m, p))
    k = n // 2
    rows = []
    for mode in ("full", "economic"):
        q, r = sl.qr(a, mode=mode)
        q = np.asfortranarray(q)
        r = np.asfortranarray(r)

        def with_hqr():
            return hl.qr_insert(q, r, u, k, "col")

        # SciPy column by column: the first `steps` of the P inserts timed
        # and scaled by P/steps (each insert costs about the same: it
        # copies Q and rotates its columns), as bench_qrupd does for qrupdate.
        steps = min(p, scipy_steps)

        def with_scipy():
            q1, r1 = q, r
            for j in range(steps):
                q1, r1 = sl.qr_insert(q1, r1, u[:, j], k + j, "col")
            return q1, r1
        t_h = median_time(with_hqr, reps)
        t_s = median_time(with_scipy, max(1, min(reps, 3))) * p / steps
        q1, r1 = with_hqr()
        ref = np.insert(a, np.full(p, k), u, 1)
        err = np.abs(q1 @ r1 - ref).max() / np.abs(ref).max()
        rows.append(("qr_insert %s, %d cols" % (mode, p), "%dx%d" % (m, n), t_h, t_s,
                     "scipy col by col" + ("" if steps == p else " (%d of %d timed, scaled)" % (steps, p)), 50,
                     "|QR-A|/|A| %.1e" % err))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", default="16384", help="cholesky order")
    ap.add_argument("--qr", default="16384x4096")
    ap.add_argument("--lstsq", default="32768x2048")
    ap.add_argument("--insert", default="16384x4096+100", help="MxN+P")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--scipy-steps", type=int, default=10,
                    help="SciPy's column-by-column inserts timed (scaled to P)")
    ap.add_argument("--skip", nargs="*", default=[], choices=["cholesky", "qr", "lstsq", "insert"])
    args = ap.parse_args()

    import numpy
    print("# bench/bench_python.py %s" % " ".join(sys.argv[1:]))
    print("# numpy %s; python %s; host cores %d; median of %d after a warm-up; rows print as they finish"
          % (numpy.__version__, sys.version.split()[0], os.cpu_count(), args.reps))
    print("%-30s %-12s %12s %12s %-18s %8s %7s  %s" % ("what", "size", "hqr s", "peer s", "peer",
                                                       "speedup", "target", "notes"))

    def show(what, size, th, tp, peer, target, note):
        sp = tp / th if th > 0 else float("inf")
        print("%-30s %-12s %12.4f %12.4f %-18s %7.2fx %6dx  %s%s"
              % (what, size, th, tp, peer, sp, target, note, "" if sp >= target else "  (below target)"),
              flush=True)

    meta = {}
    for op, shape, target in (("cholesky", "%sx%s" % (args.n, args.n), 10), ("qr", args.qr, 5),
                              ("lstsq", args.lstsq, 5)):
        if op in args.skip:
            continue
        plain = child(op, shape, args.reps, False)
        fast = child(op, shape, args.reps, True)
        meta = fast
        own = fast["t"] - fast["lapack"]  # numpy's own steps, outside LAPACK
        show("np.linalg.%s" % op, shape, fast["t"], plain["t"], "plain numpy", target,
             "hqr paths %s, served %s; in hqr's LAPACK %.4f s, numpy's own steps %.4f s: at most %.2fx"
             % (fast["hqr"].get("paths"), fast["hqr"].get("served"), fast["lapack"], own,
                plain["t"] / own if own > 0 else float("inf")))
    if "insert" not in args.skip:
        for row in bench_insert(args.insert, args.reps, args.scipy_steps):
            show(*row)
    device = meta.get("hqr", {}).get("device")
    if device is None:
        import hqr
        device = hqr.info()["device_name"]
    print("# device: %s" % device)

if __name__ == "__main__":
    main()
