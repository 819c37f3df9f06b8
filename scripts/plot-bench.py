#!/usr/bin/env python3
"""Turns a benchmark table of scripts/bench, bench-inverse or bench-qr into a
summary and a PNG, one line (or bar) per peer:
  rows "dpotrf L  8192 | hqr ... | peer seconds (x ratio) | ...": GFLOP/s
      against n, one panel per routine and uplo;
  other rows ("dgeqrf 16384x16384 | ...", "dgels 32768x2048 nrhs=1 | ..."):
      GFLOP/s per case, bars grouped by case.
A peer's GFLOP/s is hqr's (the table's, with LAPACK's flop count) over the
peer's time ratio to hqr, so each routine's count is the table's own.
    scripts/plot-bench.py bench/results/<table>.txt
Writes <table>.png beside the table and prints the summary (markdown)."""
import collections
import re
import sys

path = sys.argv[1]
row_re = re.compile(r"(\S.*?)\s*\|\s*hqr\s+([\d.]+) s\s+([\d.]+) GF/s(.*)")
peer_re = re.compile(r"\s*([\w-]+)\s+([\d.]+)(?:\s*\(x\s*([\d.]+)\))?")
skip = {"best", "reldiff"}
# cases[label] = {peer: (seconds, GFLOP/s)}, in table order
cases = collections.OrderedDict()
for line in open(path):
    m = row_re.match(line)
    if not m or line.startswith("#"):
        continue
    label, t, gf = " ".join(m.group(1).split()), float(m.group(2)), float(m.group(3))
    peers = {"hqr": (t, gf)}
    for field in m.group(4).split("|"):
        p = peer_re.match(field)
        if p and p.group(1) not in skip and float(p.group(2)) > 0:
            s = float(p.group(2))
            ratio = float(p.group(3)) if p.group(3) else s / t  # the table's ratio: unrounded times
            peers[p.group(1)] = (s, gf / ratio)
    cases[label] = peers
if not cases:
    sys.exit(f"{path}: no rows with hqr's GFLOP/s")

# "routine uplo n" rows plot against n; the rest are cases side by side.
series = collections.defaultdict(lambda: collections.defaultdict(dict))  # (routine, uplo) -> peer -> n -> GF/s
bars = collections.OrderedDict()
for label, peers in cases.items():
    m = re.fullmatch(r"(\w+) (\w) +(\d+)", label)
    if m:
        for peer, (_, g) in peers.items():
            series[(m.group(1), m.group(2))][peer][int(m.group(3))] = g
    else:
        bars[label] = peers

names = []
for peers in cases.values():
    names += [p for p in peers if p != "hqr" and p not in names]
print("| case | hqr | " + " | ".join(names) + " |")
print("|---" * (2 + len(names)) + "|")
for label, peers in cases.items():
    t, g = peers["hqr"]
    cells = [f"{t:.4f} s ({g:.0f} GF/s)"]
    cells += [f"{peers[p][0]:.4f} (x{g / peers[p][1]:.2f})" if p in peers else "-" for p in names]
    print(f"| {label} | " + " | ".join(cells) + " |")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(1)
cols = min(4, len(series)) if series else 1
rows = (len(series) + cols - 1) // cols if series else 0
fig = plt.figure(figsize=(5 * cols if series else 12, 4 * rows + (5 if bars else 0)))
grid = fig.add_gridspec(rows + (1 if bars else 0), cols)
for i, key in enumerate(sorted(series)):
    ax = fig.add_subplot(grid[i // cols, i % cols])
    for peer, points in sorted(series[key].items()):
        ns = sorted(points)
        ax.plot(ns, [points[n] for n in ns], marker="o", label=peer, linewidth=2.5 if peer == "hqr" else 1)
    ax.set_xscale("log", base=2)
    ax.set_title(f"{key[0]} uplo={key[1]}")
    ax.set_xlabel("n")
    ax.set_ylabel("GFLOP/s")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
if bars:
    ax = fig.add_subplot(grid[rows, :])
    peers = ["hqr"] + [p for p in names if any(p in c for c in bars.values())]
    width = 0.8 / len(peers)
    for k, peer in enumerate(peers):
        xs = [i + (k - (len(peers) - 1) / 2) * width for i in range(len(bars))]
        ax.bar(xs, [c[peer][1] if peer in c else 0 for c in bars.values()], width, label=peer)
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels(list(bars), rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("GFLOP/s (hqr's flop count)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
fig.suptitle(path.rsplit("/", 1)[-1])
fig.tight_layout()
fig.savefig(path.rsplit(".", 1)[0] + ".png", dpi=110)
