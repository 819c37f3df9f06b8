#!/usr/bin/env python3
"""Builds the hqr wheel from built libraries, with the standard library only.

  scripts/build-wheel.py --version V --lib build/wheel/libhqr.so
                         --lib64 build/wheel/libhqr64.so
                         [--cuda] [--out dist]

The wheel holds python/hqr/*.py, hqr/_version.py, hqr/lib/libhqr.so and
hqr/lib/libhqr64.so (stripped: strip --strip-unneeded, when `strip` is
found). A CUDA build loads without cuBLAS/cuSOLVER (it binds them when the
GPU starts, src/cuda/cuda_libs.cu), so one pair serves with and without them.

The libraries must be the wheel's (make's $(BUILD)/wheel: linked without the
system LAPACK): every DT_NEEDED entry must be a library of the manylinux
policy's list (libc, libm, libstdc++, libgcc_s, ...) or, for a CUDA build,
cuBLAS, cuBLASLt or cuSOLVER (NVIDIA's pip wheels, the extra `cuda`); the
script stops, naming the others, as auditwheel would. The platform tag is
manylinux_2_<N>_x86_64 with 2.<N> the highest GLIBC_ symbol version the
libraries need (objdump -T), raised where their GLIBCXX_, CXXABI_ or GCC_
versions need a newer distribution's C++ runtime than manylinux_2_<N>'s
policy allows. Requires-Dist numpy; a CUDA build adds the extra `cuda`:
NVIDIA's CUDA 13 wheels nvidia-cublas and nvidia-cusolver. Prints the
wheel's path.
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


# The manylinux policy's libraries (auditwheel's manylinux-policy.json, the
# same list from manylinux_2_17 on; libmvec from 2_35) and the dynamic loader.
MANYLINUX_LIBS = {
    "libc.so.6", "libm.so.6", "libmvec.so.1", "libdl.so.2", "librt.so.1", "libpthread.so.0",
    "libstdc++.so.6", "libgcc_s.so.1", "libatomic.so.1", "libanl.so.1", "libnsl.so.1",
    "libutil.so.1", "libresolv.so.2", "libexpat.so.1", "libz.so.1", "libX11.so.6",
    "libXext.so.6", "libXrender.so.1", "libICE.so.6", "libSM.so.6", "libGL.so.1",
    "libgobject-2.0.so.0", "libgthread-2.0.so.0", "libglib-2.0.so.0", "ld-linux-x86-64.so.2",
}
# What a CUDA build needs besides: cuBLAS and cuSOLVER (NVIDIA's wheels).
CUDA_LIBS = re.compile(r"^lib(cublas|cublasLt|cusolver)\.so\.\d+$")

# The newest C++ runtime versions each manylinux_2_<N> policy allows
# (auditwheel's manylinux-policy.json, x86_64): N -> GLIBCXX, CXXABI, GCC.
CXX_RUNTIME = {
    17: ("3.4.19", "1.3.7", "4.8.0"), 24: ("3.4.22", "1.3.10", "4.8.0"),
    27: ("3.4.24", "1.3.11", "7.0.0"), 31: ("3.4.28", "1.3.12", "7.0.0"),
    34: ("3.4.29", "1.3.13", "7.0.0"), 35: ("3.4.30", "1.3.13", "12.0.0"),
    39: ("3.4.33", "1.3.15", "14.0.0"),
}


def version(text):
    return tuple(int(x) for x in text.split("."))


def symbol_versions(paths):
    """The highest version the libraries need of GLIBC, GLIBCXX, CXXABI, GCC."""
    best = {"GLIBC": (2, 17), "GLIBCXX": (3, 4), "CXXABI": (1, 3), "GCC": (3, 0)}
    for p in paths:
        out = subprocess.run(["objdump", "-T", p], check=True, capture_output=True,
                             text=True).stdout
        for name, ver in re.findall(r"\b(GLIBCXX|CXXABI|GLIBC|GCC)_(\d+(?:\.\d+)+)\b", out):
            best[name] = max(best[name], version(ver))
    return best


def manylinux_minor(paths):
    """N of manylinux_2_<N>: the highest GLIBC_ version needed, raised until
    the policy's C++ runtime covers the GLIBCXX_/CXXABI_/GCC_ versions."""
    need = symbol_versions(paths)
    cxx = (need["GLIBCXX"], need["CXXABI"], need["GCC"])
    glibc = need["GLIBC"][1]
    for n in [glibc] + [k for k in sorted(CXX_RUNTIME) if k > glibc]:
        # the C++ runtime of manylinux_2_<n>: its table entry, or the one before
        allowed = CXX_RUNTIME[max([k for k in CXX_RUNTIME if k <= n] or [min(CXX_RUNTIME)])]
        if all(a <= version(b) for a, b in zip(cxx, allowed)):
            return n
    sys.exit("build-wheel.py: the libraries need a C++ runtime newer than this script's table "
             "knows (%s)" % ", ".join("%s_%s" % (k, ".".join(map(str, v))) for k, v in need.items()))


def needed(path):
    out = subprocess.run(["readelf", "-d", path], check=True, capture_output=True,
                         text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def outside_policy(path):
    """The DT_NEEDED entries of `path` a manylinux wheel may not need."""
    return [n for n in needed(path) if n not in MANYLINUX_LIBS and not CUDA_LIBS.match(n)]


def stripped(path, tmp):
    dst = os.path.join(tmp, "%d-%s" % (len(os.listdir(tmp)), os.path.basename(path)))
    if shutil.which("strip"):
        subprocess.run(["strip", "--strip-unneeded", "-o", dst, path], check=True)
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
    ap.add_argument("--cuda", action="store_true", help="the libraries are a CUDA build")
    ap.add_argument("--out", default="dist")
    args = ap.parse_args()

    libs = {"hqr/lib/libhqr.so": args.lib, "hqr/lib/libhqr64.so": args.lib64}
    bad = ["%s needs %s" % (src, ", ".join(outside_policy(src))) for src in libs.values()
           if outside_policy(src)]
    if bad:
        sys.exit("build-wheel.py: a manylinux wheel may need only the system's C and C++ "
                 "runtime (and cuBLAS/cuSOLVER): " + "; ".join(bad) +
                 " (the wheel's libraries are make's $(BUILD)/wheel/, linked without them)")
    tag = "py3-none-manylinux_2_%d_x86_64" % manylinux_minor(libs.values())
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
