#!/bin/sh
# The Python package (python/, issue 41): builds the wheel from $BUILD's
# libraries (scripts/build-wheel.py, as `make wheel`), installs it in a fresh
# venv (--system-site-packages: Debian's python3-numpy and python3-scipy serve
# without a network), and checks `python -m hqr` (libhqr.so and libhqr64.so
# preloaded, Debian's numpy served by hqr, hqr.info()'s path counters), the
# wheel's tag and contents, and hqr.linalg against SciPy
# (test/python_pkg_test.py). pip's numpy and SciPy run under `python -m hqr`
# in a second venv when PyPI is reachable (skipped otherwise).
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
if whl=$("$py" scripts/build-wheel.py --version "$version" --lib "$build/libhqr.so" \
          --lib64 "$build/libhqr64.so" --out "$out/dist" 2>"$out/wheel.err"); then
  ok "wheel: built $(basename "$whl")"
else
  notok "wheel: scripts/build-wheel.py"; cat "$out/wheel.err"; finish
fi
glibc=$(objdump -T "$build/libhqr.so" "$build/libhqr64.so" | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_2\.//' | sort -n | tail -n 1)
case "$(basename "$whl")" in
  hqr-$version-py3-none-manylinux_2_${glibc}_x86_64.whl) ok "wheel: tag manylinux_2_${glibc}_x86_64, the highest GLIBC_ version the libraries need" ;;
  *) notok "wheel: tag manylinux_2_${glibc}_x86_64 expected, got $(basename "$whl")" ;;
esac
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
import sys, numpy as np, scipy.linalg as sl, hqr
rng = np.random.default_rng(7)
a = rng.random((400, 400)); spd = a @ a.T + 400 * np.eye(400); t = rng.random((500, 300)); b = rng.random(500)
res = [np.linalg.cholesky(spd), np.abs(np.linalg.qr(t)[1]), np.linalg.lstsq(t, b, rcond=None)[0],
       np.linalg.inv(spd), np.triu(sl.cho_factor(spd)[0]), np.abs(sl.qr(t, mode="r")[0]), sl.lstsq(t, b)[0]]
np.savez(sys.argv[1], *res)
i = hqr.info()
print("served", i["numpy"]["symbol"], i["numpy"]["served_by_hqr"], i["scipy"]["symbol"], i["scipy"]["served_by_hqr"])
PYEOF
  "$ppy" "$out/pip_prog.py" "$out/plain.npz" >"$out/pip_plain.out" 2>&1
  "$ppy" -m hqr "$out/pip_prog.py" "$out/hqr.npz" >"$out/pip_hqr.out" 2>&1
  if "$ppy" -c '
import sys, numpy as np
p, h = np.load(sys.argv[1]), np.load(sys.argv[2])
for k in p.files:
    assert np.allclose(p[k], h[k], rtol=1e-8, atol=1e-10), k
' "$out/plain.npz" "$out/hqr.npz" 2>"$out/pip_cmp.err"; then
    ok "pip numpy $("$ppy" -c 'import numpy; print(numpy.__version__)'), SciPy $("$ppy" -c 'import scipy; print(scipy.__version__)'): cholesky/qr/lstsq/inv, cho_factor/qr/lstsq under python -m hqr equal the plain run"
  else notok "pip numpy/SciPy under python -m hqr: results equal the plain run"; cat "$out/pip_hqr.out" "$out/pip_cmp.err"; fi
  if nm -D --defined-only "$build/libhqr.so" | grep -q ' scipy_dpotrf_$'; then
    if grep -q '^served scipy_dpotrf_64_ True scipy_dpotrf_ True$' "$out/pip_hqr.out"; then
      ok "pip numpy/SciPy: served by hqr under python -m hqr (scipy_dpotrf_64_, scipy_dpotrf_)"
    else notok "pip numpy/SciPy served by hqr"; cat "$out/pip_hqr.out"; fi
  else
    skip "pip numpy/SciPy served by hqr" "libhqr does not export the wheels' scipy_* names yet ($(cat "$out/pip_hqr.out" | tail -n 1))"
  fi
else
  skip "pip numpy and SciPy under python -m hqr" "PyPI unreachable (pip install numpy scipy failed)"
fi
finish
