#!/usr/bin/env python3
"""Turns a scripts/bench table into a summary and a PNG: GFLOP/s against n,
one line per peer, one panel per routine/precision/uplo.
    scripts/plot-bench.py bench/results/potrf-<gpu>-<date>.txt
Writes <table>.png beside the table and prints the summary (markdown)."""
import collections
import re
import sys

path = sys.argv[1]
flop_scale = {"s": 1, "d": 1, "c": 4, "z": 4}
# rows[(routine, uplo)][peer][n] = seconds
rows = collections.defaultdict(lambda: collections.defaultdict(dict))
for line in open(path):
    if line.startswith("#"):
        continue
    m = re.match(r"(\w+) (\w) +(\d+) \| (.*)", line)
    if not m:
        continue
    routine, uplo, n, rest = m.group(1), m.group(2), int(m.group(3)), m.group(4)
    for field in rest.split("|"):
        p = re.match(r"\s*([\w-]+)\s+([\d.]+)", field)
        if p and p.group(1) != "reldiff":
            rows[(routine, uplo)][p.group(1)][n] = float(p.group(2))

def gflops(routine, n, t):
    return flop_scale[routine[0]] * n ** 3 / 3 / t * 1e-9

for (routine, uplo), peers in sorted(rows.items()):
    sizes = sorted(peers["hqr"])
    print(f"\n{routine} uplo={uplo} (seconds; ratio = peer time / hqr time)\n")
    names = [p for p in peers if p != "hqr"]
    print("| n | hqr | " + " | ".join(names) + " |")
    print("|---" * (2 + len(names)) + "|")
    for n in sizes:
        h = peers["hqr"][n]
        cells = [f"{h:.4f} ({gflops(routine, n, h):.0f} GF/s)"]
        for p in names:
            t = peers[p].get(n)
            cells.append(f"{t:.4f} (x{t / h:.2f})" if t else "-")
        print(f"| {n} | " + " | ".join(cells) + " |")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(1)
keys = sorted(rows)
cols = min(4, len(keys))
fig, axes = plt.subplots((len(keys) + cols - 1) // cols, cols, figsize=(5 * cols, 4 * ((len(keys) + cols - 1) // cols)),
                         squeeze=False)
for ax, key in zip(axes.flat, keys):
    for peer, times in sorted(rows[key].items()):
        ns = sorted(times)
        ax.plot(ns, [gflops(key[0], n, times[n]) for n in ns], marker="o", label=peer,
                linewidth=2.5 if peer == "hqr" else 1)
    ax.set_xscale("log", base=2)
    ax.set_title(f"{key[0]} uplo={key[1]}")
    ax.set_xlabel("n")
    ax.set_ylabel("GFLOP/s (host to host)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
for ax in list(axes.flat)[len(keys):]:
    ax.axis("off")
fig.tight_layout()
fig.savefig(path.rsplit(".", 1)[0] + ".png", dpi=110)
