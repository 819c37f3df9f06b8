#!/usr/bin/env python3
"""Builds the hqr wheel from built libraries, with the standard library only.

  scripts/build-wheel.py --version V --lib build/libhqr.so --lib64 build/libhqr64.so
                         [--cpu-dir build/cpu] [--cuda] [--out dist]

The wheel holds python/hqr/*.py, hqr/_version.py, hqr/lib/libhqr.so and
hqr/lib/libhqr64.so (debug sections stripped when `strip` is found) and, from
a CUDA build, the CPU-only pair in hqr/lib/cpu/ that the package falls back
to where cuBLAS/cuSOLVER are missing. Its platform tag is
manylinux_2_<N>_x86_64 with 2.<N> the highest GLIBC_ symbol version the
libraries need (objdump -T). Requires-Dist numpy; a CUDA build adds the
extra `cuda`: NVIDIA's CUDA 13 wheels nvidia-cublas and nvidia-cusolver.
Prints the wheel's path.
"""
import argparse
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def glibc_needed(paths):
    best = (2, 17)
    for p in paths:
        out = subprocess.run(["objdump", "-T", p], check=True, capture_output=True,
                             text=True).stdout
        for major, minor in re.findall(r"GLIBC_(\d+)\.(\d+)", out):
            best = max(best, (int(major), int(minor)))
    return best


def stripped(path, tmp):
    dst = os.path.join(tmp, "%d-%s" % (len(os.listdir(tmp)), os.path.basename(path)))
    if shutil.which("strip"):
        subprocess.run(["strip", "--strip-debug", "-o", dst, path], check=True)
    else:
        shutil.copyfile(path, dst)
    return dst


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--lib64", required=True)
    ap.add_argument("--cpu-dir", help="folder of the CPU-only libhqr.so, libhqr64.so")
    ap.add_argument("--cuda", action="store_true", help="the libraries are a CUDA build")
    ap.add_argument("--out", default="dist")
    args = ap.parse_args()

    libs = {"hqr/lib/libhqr.so": args.lib, "hqr/lib/libhqr64.so": args.lib64}
    if args.cpu_dir:
        libs["hqr/lib/cpu/libhqr.so"] = os.path.join(args.cpu_dir, "libhqr.so")
        libs["hqr/lib/cpu/libhqr64.so"] = os.path.join(args.cpu_dir, "libhqr64.so")
    major, minor = glibc_needed(libs.values())
    tag = "py3-none-manylinux_%d_%d_x86_64" % (major, minor)
    dist_info = "hqr-%s.dist-info" % args.version
    name = "hqr-%s-%s.whl" % (args.version, tag)

    metadata = [
        "Metadata-Version: 2.1",
        "Name: hqr",
        "Version: %s" % args.version,
        "Summary: LAPACK on the node's GPUs for numpy and SciPy (python -m hqr), "
        "SciPy-compatible QR updates",
        "License: see the hqr repository",
        "Requires-Python: >=3.8",
        "Requires-Dist: numpy",
    ]
    if args.cuda:
        metadata += [
            "Provides-Extra: cuda",
            'Requires-Dist: nvidia-cublas<14,>=13; extra == "cuda"',
            'Requires-Dist: nvidia-cusolver<13,>=12; extra == "cuda"',
        ]
    readme = os.path.join(ROOT, "python", "README.md")
    metadata += ["Description-Content-Type: text/markdown", ""]
    body = "\n".join(metadata) + "\n" + open(readme).read()
    wheel = "\n".join(["Wheel-Version: 1.0", "Generator: hqr scripts/build-wheel.py",
                       "Root-Is-Purelib: false", "Tag: %s" % tag, ""])

    files = []  # (name in the wheel, bytes, mode)
    pkg = os.path.join(ROOT, "python", "hqr")
    for f in sorted(os.listdir(pkg)):
        if f.endswith(".py") and f != "_version.py":
            files.append(("hqr/" + f, open(os.path.join(pkg, f), "rb").read(), 0o644))
    files.append(("hqr/_version.py", ('__version__ = "%s"\n' % args.version).encode(), 0o644))
    with tempfile.TemporaryDirectory() as tmp:
        for arc, src in libs.items():
            files.append((arc, open(stripped(src, tmp), "rb").read(), 0o755))
    files.append((dist_info + "/METADATA", body.encode(), 0o644))
    files.append((dist_info + "/WHEEL", wheel.encode(), 0o644))
    files.append((dist_info + "/top_level.txt", b"hqr\n", 0o644))

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, name)
    record = [record_line(n, d) for n, d, _ in files] + [dist_info + "/RECORD,,"]
    with zipfile.ZipFile(path + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
        for n, d, mode in files + [(dist_info + "/RECORD", ("\n".join(record) + "\n").encode(), 0o644)]:
            zi = zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = (0o100000 | mode) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, d)
    os.replace(path + ".tmp", path)
    print(path)


if __name__ == "__main__":
    sys.exit(main())
