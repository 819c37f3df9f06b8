#!/bin/sh
# The Python package (python/, issue 41): builds the wheel from $BUILD's
# wheel libraries ($BUILD/wheel, linked without the system LAPACK, as `make
# wheel`), checks that its ELF files need nothing outside the manylinux
# policy's libraries and cuBLAS/cuSOLVER (an auditwheel-like readelf check),
# installs it in a fresh venv (--system-site-packages: Debian's python3-numpy
# and python3-scipy serve without a network), and checks `python -m hqr`
# (libhqr.so and libhqr64.so preloaded, Debian's numpy served by hqr,
# hqr.info()'s path counters), the wheel's tag and contents, and hqr.linalg
# against SciPy (test/python_pkg_test.py). Where the system's LAPACK, BLAS
# and libgfortran can be hidden (scripts/without-system-lapack.sh: a user and
# mount namespace), the installed package must still load, and a call that
# needs a LAPACK must stop with hqr's one line. pip's numpy and SciPy run
# under `python -m hqr` in a second venv when PyPI is reachable (skipped
# otherwise): equal results, no system LAPACK loaded, the wheel from
# PYTHONPATH (pip install --target) with the system LAPACK hidden, and
# bench/bench_python.py at smoke-test sizes.
BUILD=${BUILD:-build}
build=$(cd "$BUILD" && pwd)
root=$(pwd)
mkdir -p "$BUILD/test"
out=$(mktemp -d "$build/test/python_pkg.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }
skip() { echo "ok - $1 # SKIP $2"; }
finish() { if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi; exit $failed; }

# Debian's interpreter first: its numpy and SciPy are the packages make deps installs.
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
if ! "$py" -c 'import numpy' 2>/dev/null; then
  skip "python package" "no numpy for $py (make deps installs python3-numpy)"; finish
fi
version=$(sed -n 's/^VERSION *:= *//p' Makefile)

# ---- the wheel --------------------------------------------------------------------
wlib=$build/wheel/libhqr.so; wlib64=$build/wheel/libhqr64.so
if [ ! -f "$wlib" ] || [ ! -f "$wlib64" ]; then
  notok "wheel: $BUILD/wheel/libhqr.so and libhqr64.so (make check builds them; make $BUILD/wheel/libhqr.so $BUILD/wheel/libhqr64.so)"
  finish
fi
if whl=$("$py" scripts/build-wheel.py --version "$version" --lib "$wlib" --lib64 "$wlib64" --out "$out/dist" \
          2>"$out/wheel.err"); then
  ok "wheel: built $(basename "$whl") ($(wc -c <"$whl") bytes)"
else
  notok "wheel: scripts/build-wheel.py"; cat "$out/wheel.err"; finish
fi
glibc=$(objdump -T "$wlib" "$wlib64" | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_2\.//' | sort -n | tail -n 1)
case "$(basename "$whl")" in
  hqr-$version-py3-none-manylinux_2_${glibc}_x86_64.whl) ok "wheel: tag manylinux_2_${glibc}_x86_64, the highest GLIBC_ version the libraries need" ;;
  *) notok "wheel: tag manylinux_2_${glibc}_x86_64 expected, got $(basename "$whl")" ;;
esac
if "$py" scripts/build-wheel.py --version "$version" --lib "$build/libhqr.so" --lib64 "$build/libhqr64.so" \
     --out "$out/refused" >/dev/null 2>"$out/refused.err"; then
  notok "wheel: build-wheel.py refuses make's libhqr.so, which needs the system LAPACK"
elif grep -q 'libhqr.so needs liblapack.so.3' "$out/refused.err"; then
  ok "wheel: build-wheel.py refuses make's libhqr.so ($(sed 's/.*libhqr.so needs \([^;]*\);.*/needs \1/' "$out/refused.err"))"
else notok "wheel: build-wheel.py's refusal names liblapack.so.3"; cat "$out/refused.err"; fi

# Every ELF file of the wheel needs only the manylinux policy's libraries
# (auditwheel's list: the C and C++ runtime, the dynamic loader) or cuBLAS,
# cuBLASLt, cuSOLVER (a CUDA build: NVIDIA's wheels or a system CUDA), and
# carries no debug sections.
"$py" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$out/unzipped"
policy=" libc.so.6 libm.so.6 libmvec.so.1 libdl.so.2 librt.so.1 libpthread.so.0 libstdc++.so.6 libgcc_s.so.1 \
libatomic.so.1 libanl.so.1 libnsl.so.1 libutil.so.1 libresolv.so.2 libexpat.so.1 libz.so.1 ld-linux-x86-64.so.2 "
elves=""; bad=""; fat=""
for f in $(find "$out/unzipped" -type f | sort); do
  [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = "177ELF" ] || continue
  rel=${f#"$out/unzipped/"}
  elves="$elves $rel"
  for need in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
    case "$policy" in *" $need "*) continue ;; esac
    case "$need" in libcublas.so.[0-9]*|libcublasLt.so.[0-9]*|libcusolver.so.[0-9]*) continue ;; esac
    bad="$bad $rel:$need"
  done
  readelf -S "$f" | grep -q ' \.debug_' && fat="$fat $rel"
done
if [ -z "$elves" ]; then notok "wheel: ELF files found"
elif [ -n "$bad" ]; then notok "wheel: ELF files need only the manylinux policy's libraries and cuBLAS/cuSOLVER (not:$bad)"
else ok "wheel: every ELF file ($(echo $elves | wc -w)) needs only the manylinux policy's libraries and cuBLAS/cuSOLVER ($(readelf -d "$out/unzipped/hqr/lib/libhqr64.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | tr '\n' ' ')for libhqr64.so)"; fi
if [ -n "$fat" ]; then notok "wheel: libraries stripped (debug sections in:$fat)"
else ok "wheel: libraries stripped"; fi

if "$py" - "$whl" "$version" <<'PYEOF'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1]); names = set(z.namelist()); v = sys.argv[2]
need = {"hqr/__init__.py", "hqr/__main__.py", "hqr/linalg.py", "hqr/_lib.py", "hqr/_version.py",
        "hqr/lib/libhqr.so", "hqr/lib/libhqr64.so", "hqr-%s.dist-info/METADATA" % v,
        "hqr-%s.dist-info/WHEEL" % v, "hqr-%s.dist-info/RECORD" % v}
meta = z.read("hqr-%s.dist-info/METADATA" % v).decode()
assert need <= names, need - names
assert "Version: %s\n" % v in meta and "Requires-Dist: numpy\n" in meta, meta[:300]
assert z.getinfo("hqr/lib/libhqr.so").external_attr >> 16 & 0o111
PYEOF
then ok "wheel: libhqr.so, libhqr64.so, the package, METADATA (version $version, Requires-Dist numpy)"
else notok "wheel: contents and metadata"; fi

# ---- a fresh venv with the wheel ----------------------------------------------------
if ! "$py" -m venv --system-site-packages "$out/venv" >"$out/venv.log" 2>&1; then
  notok "venv: python3 -m venv (make deps installs python3-venv)"; cat "$out/venv.log"; finish
fi
vpy=$out/venv/bin/python
if "$vpy" -m pip install -q --no-index --disable-pip-version-check "$whl" >"$out/pip.log" 2>&1; then
  ok "venv: pip installs the wheel without a network"
else
  notok "venv: pip install $(basename "$whl")"; cat "$out/pip.log"; finish
fi
cd "$out" || exit 1   # away from the checkout: the installed package is imported

cat >"$out/prog.py" <<'PYEOF'
import os, sys
import numpy as np
import hqr
maps = open("/proc/self/maps").read()
print("argv", " ".join(sys.argv[1:]))
print("maps", "libhqr.so" in maps, "libhqr64.so" in maps)
print("ld_preload", os.environ.get("LD_PRELOAD", ""))
before = hqr.info()["paths"]
a = np.random.default_rng(1).random((300, 300)); a = a @ a.T + 300 * np.eye(300)
l = np.linalg.cholesky(a)
info = hqr.info()
print("cholesky", np.abs(l @ l.T - a).max() < 1e-9)
print("counted", sum(info["paths"].values()) > sum(before.values()))
print("numpy", info["numpy"]["symbol"], info["numpy"]["served_by_hqr"])
print("origin", info["origin"], info["library"].startswith(os.path.dirname(hqr.__file__)))
sys.exit(int(sys.argv[-1]))
PYEOF
LD_PRELOAD=libm.so.6 "$vpy" -m hqr "$out/prog.py" one two 3 >"$out/run.out" 2>"$out/run.err"; rc=$?
if [ $rc -eq 3 ] && grep -q '^argv one two 3$' "$out/run.out"; then
  ok "python -m hqr script.py args: sys.argv and the exit status as python script.py"
else notok "python -m hqr script.py args (rc $rc)"; cat "$out/run.out" "$out/run.err"; fi
if grep -q '^maps True True$' "$out/run.out"; then ok "python -m hqr: libhqr.so and libhqr64.so loaded before the script"
else notok "python -m hqr: libhqr.so and libhqr64.so in /proc/self/maps"; fi
if grep -q "^ld_preload .*/hqr/lib/libhqr.so .*/hqr/lib/libhqr64.so libm.so.6$" "$out/run.out"; then
  ok "python -m hqr: LD_PRELOAD is the wheel's libhqr.so, libhqr64.so, then the one already set"
else notok "python -m hqr: LD_PRELOAD"; grep '^ld_preload' "$out/run.out"; fi
if grep -q '^cholesky True$' "$out/run.out" && grep -q '^counted True$' "$out/run.out" \
   && grep -q '^numpy dpotrf_ True$' "$out/run.out"; then
  ok "python -m hqr: Debian's numpy cholesky served by hqr (hqr.info(): dpotrf_ from libhqr, path counters up)"
else notok "python -m hqr: Debian's numpy served by hqr"; cat "$out/run.out" "$out/run.err"; fi
if grep -q '^origin wheel True$' "$out/run.out"; then ok "hqr.info(): the wheel's own library"
else notok "hqr.info(): origin"; grep '^origin' "$out/run.out"; fi

HQR_VERBOSE=1 "$vpy" -m hqr -c 'import numpy as np, sys; np.linalg.cholesky(np.eye(50)); print(sys.argv)' x \
  >"$out/c.out" 2>"$out/c.err"
if grep -q "^\['-c', 'x'\]$" "$out/c.out" && grep -q '^hqr: dpotrf ' "$out/c.err"; then
  ok "python -m hqr -c code: runs, HQR_VERBOSE shows hqr's dpotrf ($(grep '^hqr: dpotrf ' "$out/c.err" | head -n 1 | cut -c1-60))"
else notok "python -m hqr -c code"; cat "$out/c.out" "$out/c.err"; fi

if "$vpy" -c '
import hqr, numpy
i = hqr.info()
assert i["version"] == hqr.__version__, i
assert i["device_count"] >= 0 and isinstance(i["paths"], dict) and not i["preloaded"]
assert i["numpy"]["served_by_hqr"] is False   # plain run: numpy keeps its LAPACK
' >"$out/info.out" 2>&1; then ok "hqr.info() without the preload: version, devices, numpy not served"
else notok "hqr.info() without the preload"; cat "$out/info.out"; fi

# The installed package loads its own libhqr with no help from the
# environment: no LD_LIBRARY_PATH, LD_PRELOAD or HQR_LIBRARY.
site=$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
plainenv="env -u LD_LIBRARY_PATH -u LD_PRELOAD -u HQR_LIBRARY -u HQR_LIBRARY64 -u HQR_LAPACK -u HQR_VERBOSE"
if $plainenv "$vpy" -c 'import hqr; i = hqr.info(); print(i["origin"]); print(i["library"])' >"$out/load.out" 2>&1 \
   && grep -q '^wheel' "$out/load.out" && grep -q "^$site/hqr/lib/" "$out/load.out"; then
  ok "import hqr: the wheel's $(sed -n 2p "$out/load.out" | sed "s|^$site/||") loads without LD_LIBRARY_PATH ($(head -n 1 "$out/load.out"))"
else notok "import hqr: the wheel's library loads without LD_LIBRARY_PATH"; cat "$out/load.out"; fi

# ---- no system LAPACK, BLAS or libgfortran (scripts/without-system-lapack.sh) ---------
cat >"$out/nolapack.py" <<'PYEOF'
import ctypes, sys
import hqr
lib = hqr._lib.load()
print("origin", hqr.info()["origin"])
sys.stdout.flush()
n, one, info = ctypes.c_int(2), ctypes.c_int(1), ctypes.c_int(0)
a, b, ipiv = (ctypes.c_double * 4)(4, 1, 1, 3), (ctypes.c_double * 2)(1, 2), (ctypes.c_int * 2)()
if sys.argv[1] == "illegal":   # hqr's argument check, reported through xerbla_
    lib.dpotrf_(b"X", ctypes.byref(n), a, ctypes.byref(n), ctypes.byref(info), ctypes.c_size_t(1))
    print("info", info.value)
else:                          # a forwarded routine: needs the next LAPACK
    lib.dgesv_(ctypes.byref(n), ctypes.byref(one), a, ctypes.byref(n), ipiv, b, ctypes.byref(n),
               ctypes.byref(info))
    print("solved", list(b))
PYEOF
nolapack="$root/scripts/without-system-lapack.sh"
$plainenv "$nolapack" "$vpy" "$out/nolapack.py" gesv >"$out/nl.out" 2>"$out/nl.err"; rc=$?
if [ $rc -eq 77 ]; then
  skip "no system LAPACK" "$(cat "$out/nl.err")"
else
  if grep -q '^origin wheel' "$out/nl.out"; then
    ok "no system LAPACK, BLAS, libgfortran: the installed package loads its libhqr ($(sed -n 's/^origin //p' "$out/nl.out"))"
  else notok "no system LAPACK: the installed package loads"; cat "$out/nl.out" "$out/nl.err"; fi
  if [ $rc -eq 127 ] && [ "$(wc -l <"$out/nl.err")" -eq 1 ] \
     && grep -q '^hqr: dgesv_: no LAPACK/BLAS to call: .*import scipy.linalg.*apt install liblapack3' "$out/nl.err"; then
    ok "no system LAPACK: dgesv_ (forwarded) stops with one line, exit status 127 ($(cut -c1-70 "$out/nl.err")...)"
  else notok "no system LAPACK: dgesv_ stops with hqr's one line (rc $rc)"; cat "$out/nl.out" "$out/nl.err"; fi
  $plainenv "$nolapack" "$vpy" "$out/nolapack.py" illegal >"$out/il.out" 2>"$out/il.err"; rc=$?
  if [ $rc -eq 0 ] && grep -q '^info -1$' "$out/il.out" \
     && grep -q '^ \*\* On entry to DPOTRF parameter number  1 had an illegal value$' "$out/il.err"; then
    ok "no system LAPACK: an illegal argument still gives INFO = -1 and XERBLA's line"
  else notok "no system LAPACK: an illegal argument (rc $rc)"; cat "$out/il.out" "$out/il.err"; fi
fi

# ---- hqr.linalg against SciPy ----------------------------------------------------------
if ! "$vpy" -c 'import scipy.linalg' 2>/dev/null; then
  echo "# no SciPy (make deps installs python3-scipy): shapes not compared with SciPy's"
fi
"$vpy" "$root/test/python_pkg_test.py" >"$out/linalg.out" 2>&1 || failed=1
sed 's/^\(not \)\{0,1\}ok - /&hqr.linalg: /' "$out/linalg.out"

# ---- pip's numpy and SciPy under python -m hqr (needs PyPI) --------------------------------
if "$vpy" -m venv "$out/pipvenv" >/dev/null 2>&1 \
   && timeout 120 "$out/pipvenv/bin/python" -m pip install -q --disable-pip-version-check --timeout 10 --retries 1 \
        numpy scipy >"$out/pypi.log" 2>&1 \
   && "$out/pipvenv/bin/python" -m pip install -q --no-index --no-deps "$whl" >>"$out/pypi.log" 2>&1; then
  ppy=$out/pipvenv/bin/python
  cat >"$out/pip_prog.py" <<'PYEOF'
import re, sys, numpy as np, scipy.linalg as sl, hqr
rng = np.random.default_rng(7)
a = rng.random((400, 400)); spd = a @ a.T + 400 * np.eye(400); t = rng.random((500, 300)); b = rng.random(500)
# order 4200: numpy's row copies (scipy_dcopy_64_, 4200 elements a row apart) are hqr's split ones
big = rng.random((4200, 4200)); big = big + big.T + 8400 * np.eye(4200)
res = [np.linalg.cholesky(spd), np.abs(np.linalg.qr(t)[1]), np.linalg.lstsq(t, b, rcond=None)[0],
       np.linalg.inv(spd), np.triu(sl.cho_factor(spd)[0]), np.abs(sl.qr(t, mode="r")[0]), sl.lstsq(t, b)[0],
       np.linalg.cholesky(big)]
np.savez(sys.argv[1], *res)
i = hqr.info()
print("served", i["numpy"]["symbol"], i["numpy"]["served_by_hqr"], i["scipy"]["symbol"], i["scipy"]["served_by_hqr"])
# the system's LAPACK, BLAS, OpenBLAS, libgfortran (not the wheels' own copies)
paths = {l.split()[-1] for l in open("/proc/self/maps") if "/" in l}
print("system_libs", " ".join(sorted(p for p in paths if "-packages/" not in p and
      re.search(r"/(liblapack|libblas|libopenblas|libgfortran|libquadmath)[^/]*$", p))))
PYEOF
  "$ppy" "$out/pip_prog.py" "$out/plain.npz" >"$out/pip_plain.out" 2>&1
  "$ppy" -m hqr "$out/pip_prog.py" "$out/hqr.npz" >"$out/pip_hqr.out" 2>&1
  if "$ppy" -c '
import sys, numpy as np
p, h = np.load(sys.argv[1]), np.load(sys.argv[2])
for k in p.files:
    assert np.allclose(p[k], h[k], rtol=1e-8, atol=1e-10), k
' "$out/plain.npz" "$out/hqr.npz" 2>"$out/pip_cmp.err"; then
    ok "pip numpy $("$ppy" -c 'import numpy; print(numpy.__version__)'), SciPy $("$ppy" -c 'import scipy; print(scipy.__version__)'): cholesky (400, 4200)/qr/lstsq/inv, cho_factor/qr/lstsq under python -m hqr equal the plain run"
  else notok "pip numpy/SciPy under python -m hqr: results equal the plain run"; cat "$out/pip_hqr.out" "$out/pip_cmp.err"; fi
  if grep -q '^served scipy_dpotrf_64_ True scipy_dpotrf_ True$' "$out/pip_hqr.out"; then
    ok "pip numpy/SciPy: served by hqr under python -m hqr (scipy_dpotrf_64_, scipy_dpotrf_)"
  else notok "pip numpy/SciPy served by hqr"; cat "$out/pip_hqr.out"; fi
  if grep -q '^system_libs $' "$out/pip_hqr.out"; then
    ok "pip numpy/SciPy under python -m hqr: no system LAPACK, BLAS or libgfortran loaded (/proc/self/maps)"
  else notok "pip numpy/SciPy under python -m hqr: system libraries loaded: $(sed -n 's/^system_libs //p' "$out/pip_hqr.out")"; fi

  # The wheel from PYTHONPATH (pip install --target), as on a machine with
  # pip's numpy and SciPy and nothing else: the system LAPACK hidden where
  # scripts/without-system-lapack.sh can, plainly otherwise.
  "$ppy" -m pip install -q --no-index --no-deps --target "$out/site" "$whl" >>"$out/pypi.log" 2>&1
  hide=$nolapack; hidden="no system LAPACK"
  "$nolapack" true 2>/dev/null || { hide=; hidden="system LAPACK present"; }
  cat >"$out/target_prog.py" <<'PYEOF'
import os, sys, numpy as np, hqr, hqr.linalg as hl
rng = np.random.default_rng(3)
a = rng.random((300, 300)); spd = a @ a.T + 300 * np.eye(300); t = rng.random((300, 120))
l = np.linalg.cholesky(spd); q, r = np.linalg.qr(t); u = rng.random((300, 4))
q1, r1 = hl.qr_insert(q, r, u, 7, "col")
ok = (np.abs(l @ l.T - spd).max() < 1e-9 and np.abs(q @ r - t).max() < 1e-12 and
      np.abs(q1 @ r1 - np.insert(t, [7] * 4, u, 1)).max() < 1e-12)
i = hqr.info()
print("target", hqr.__file__.startswith(sys.argv[1]), ok, i["numpy"]["served_by_hqr"], i["paths"]["cpu"] + i["paths"]["gpu"] > 0)
PYEOF
  PYTHONPATH=$out/site $plainenv $hide "$ppy" -m hqr "$out/target_prog.py" "$out/site/" >"$out/target.out" 2>&1
  if grep -q '^target True True True True$' "$out/target.out"; then
    ok "pip install --target, PYTHONPATH ($hidden): python -m hqr runs numpy's cholesky and qr through the wheel's libhqr, hqr.linalg.qr_insert"
  else notok "pip install --target, PYTHONPATH ($hidden): python -m hqr"; cat "$out/target.out"; fi
  if PYTHONPATH=$out/site $plainenv $hide "$ppy" "$root/bench/bench_python.py" --n 300 --qr 300x100 --lstsq 400x50 \
       --insert 200x50+5 --reps 1 >"$out/bench.out" 2>&1 && grep -q '^qr_insert economic' "$out/bench.out"; then
    ok "bench/bench_python.py with the package from PYTHONPATH ($hidden), smoke-test sizes"
  else notok "bench/bench_python.py with the package from PYTHONPATH"; cat "$out/bench.out"; fi
else
  skip "pip numpy and SciPy under python -m hqr" "PyPI unreachable (pip install numpy scipy failed)"
fi
finish
