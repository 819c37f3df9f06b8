#!/bin/sh
# pip's numpy and SciPy through hqr (ABI.md, "pip's numpy and SciPy"): their
# wheels call scipy_<name>_64_ (numpy 2, ILP64) and scipy_<name>_ (SciPy,
# LP64), which libhqr64.so and libhqr.so answer for the routines hqr
# implements. In a virtual environment under $BUILD (made once, then reused)
# with numpy and SciPy from PyPI, test/pip_wheels.py runs np.linalg.cholesky,
# qr, lstsq, inv and scipy.linalg.cho_factor, qr, lstsq on random data plainly
# and with LD_PRELOAD="libhqr.so libhqr64.so" HQR_VERBOSE=1: the results must
# agree, hqr must have taken the calls of routines it implements, and the
# others (dgesv, dgetrf) must have gone to the wheel's own OpenBLAS.
# Everything is skipped when PyPI cannot be reached (the CI machine reaches
# only Debian's packages) and no environment was made before.
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-python3}
lib=$(cd "$BUILD" && pwd)/libhqr.so
lib64=$(cd "$BUILD" && pwd)/libhqr64.so
venv=$(cd "$BUILD" && pwd)/pip-venv
# A directory of its own per run (make check may run twice at once in one
# build); removed when everything passed, kept for a look otherwise.
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/pip_wheels.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }
skip_all() {
  for what in "the wheels' names reach hqr" "results agree with the plain run" \
              "names hqr does not implement reach the wheel's OpenBLAS"; do
    echo "ok - pip_wheels: $what # SKIP $1"
  done
  rm -rf "$out"; exit 0
}

# Names hqr does not implement are not exported under scipy_ names: the
# dynamic linker then finds them in the wheel's own OpenBLAS.
for pair in "$lib:scipy_dpotrf_:scipy_dgesv_" "$lib64:scipy_dpotrf_64_:scipy_dgesv_64_"; do
  l=${pair%%:*}; rest=${pair#*:}; own=${rest%%:*}; other=${rest#*:}
  names=$(nm -D --defined-only "$l" | awk '{ print $3 }')
  if printf '%s\n' "$names" | grep -qx "$own" && ! printf '%s\n' "$names" | grep -qx "$other"; then
    ok "pip_wheels: $(basename "$l") exports $own, not $other"
  else
    notok "pip_wheels: $(basename "$l") exports $own, not $other"
  fi
done

# An MKL-based numpy or SciPy calls MKL's names, which hqr leaves alone;
# HQR_VERBOSE says so at exit when no call reached hqr (a stand-in library
# named as MKL's here).
echo 'int mkl_stand_in(void) { return 0; }' > "$out/mkl.c"
if ${CC:-cc} -shared -fPIC -o "$out/libmkl_rt.so.2" "$out/mkl.c" 2>"$out/mkl.log"; then
  LD_PRELOAD="$lib $out/libmkl_rt.so.2" HQR_VERBOSE=1 /bin/true 2>"$out/mkl.err"
  if grep -q '^hqr: no call reached hqr; this process loaded .*libmkl_rt.so.2 (MKL)' "$out/mkl.err"; then
    ok "pip_wheels: HQR_VERBOSE names an MKL that no call of hqr's went past"
  else
    notok "pip_wheels: HQR_VERBOSE names an MKL that no call of hqr's went past"; cat "$out/mkl.err"
  fi
else
  notok "pip_wheels: build a stand-in libmkl_rt.so.2"; cat "$out/mkl.log"
fi

# The environment: reused when numpy and SciPy import from it; otherwise made
# afresh under a lock (two runs at once share it), if PyPI answers.
have_env() { "$venv/bin/python" -c 'import numpy, scipy' >/dev/null 2>&1; }
make_env() {
  have_env && return 0
  index=${PIP_INDEX_URL:-https://pypi.org/simple}
  if ! timeout 20 "$PYTHON" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + '/numpy/', timeout=8)" \
       "$index" >/dev/null 2>&1; then
    echo "PyPI unreachable ($index)" > "$out/skip"; return 1
  fi
  if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    echo "no python3 -m venv (Debian: python3-venv, make deps installs it)" > "$out/skip"; return 1
  fi
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv" >"$out/venv.log" 2>&1 &&
    timeout 900 "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q --progress-bar off \
      --only-binary=:all: numpy scipy >>"$out/venv.log" 2>&1 && have_env
}
if command -v flock >/dev/null 2>&1; then
  ( flock 9; make_env ) 9>"$BUILD/pip-venv.lock"; rc=$?
else
  make_env; rc=$?
fi
if [ $rc -ne 0 ]; then
  [ -f "$out/skip" ] && skip_all "$(cat "$out/skip")"
  notok "pip_wheels: a virtual environment with numpy and SciPy from PyPI"; sed 's/^/#   /' "$out/venv.log" | tail -n 20
  exit 1
fi
versions=$("$venv/bin/python" -c 'import numpy, scipy; print("numpy", numpy.__version__, "scipy", scipy.__version__)')
ok "pip_wheels: $versions in $venv"

# One OpenBLAS thread: the two wheels' pools and the system's would share
# the cores and make the runs slow, not different.
export OPENBLAS_NUM_THREADS=1
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
if "$venv/bin/python" test/pip_wheels.py run "$seed" "$out/plain.npz" 2>"$out/plain.err"; then
  ok "pip_wheels: plain run (seed $seed)"
else
  notok "pip_wheels: plain run (seed $seed)"; sed 's/^/#   /' "$out/plain.err" | tail -n 20
fi
if LD_PRELOAD="$lib $lib64" HQR_VERBOSE=1 "$venv/bin/python" test/pip_wheels.py run "$seed" "$out/hqr.npz" \
     2>"$out/hqr.err"; then
  ok "pip_wheels: run with LD_PRELOAD=\"libhqr.so libhqr64.so\""
else
  notok "pip_wheels: run with LD_PRELOAD=\"libhqr.so libhqr64.so\""; sed 's/^/#   /' "$out/hqr.err" | tail -n 20
fi
if [ -f "$out/plain.npz" ] && [ -f "$out/hqr.npz" ]; then
  "$venv/bin/python" test/pip_wheels.py compare "$out/plain.npz" "$out/hqr.npz" || failed=1
else
  notok "pip_wheels: results agree with the plain run (a run failed)"
fi

# HQR_VERBOSE's lines of each call (between its "# call NAME" line and the
# next): the routines hqr implements have one, the others none.
section() { awk -v name="$1" '/^# call / { on = ($3 == name); next } on' "$out/hqr.err"; }
expect() {  # call, what hqr must have taken (space-separated), what it must not have
  s=$(section "$1")
  for r in $2; do
    line=$(printf '%s\n' "$s" | grep "^hqr: $r " | head -n 1)
    if [ -n "$line" ]; then ok "pip_wheels: $1 reached hqr ($(echo "$line" | sed 's/^hqr: //'))"
    else notok "pip_wheels: $1 reached hqr's $r (no HQR_VERBOSE line)"; fi
  done
  for r in $3; do
    if printf '%s\n' "$s" | grep -q "^hqr: $r "; then notok "pip_wheels: $1: $r is the wheel's, not hqr's"
    else ok "pip_wheels: $1: $r (not implemented by hqr) served by the wheel's OpenBLAS"; fi
  done
}
expect np_cholesky "dpotrf"
expect np_qr "dgeqrf dorgqr"
expect np_lstsq "dgeqrf dgelsd"
expect np_inv "" "dgesv dgetrf"
expect sp_cho_factor "dpotrf"
expect sp_qr "dgeqrf dorgqr"
expect sp_lstsq "dgeqrf dgelsd"

# Where hqr ran a call on the CPU, it called the wheel's OpenBLAS of the
# caller's INTEGER size (numpy: libscipy_openblas64_, SciPy: libscipy_openblas).
for pair in "np_:libscipy_openblas64_" "sp_:libscipy_openblas-"; do
  prefix=${pair%%:*}; wheel=${pair#*:}
  s=$(awk -v p="$prefix" '/^# call / { on = (index($3, p) == 1); next } on' "$out/hqr.err")
  if ! printf '%s\n' "$s" | grep -q '^hqr: .* path=cpu'; then
    ok "pip_wheels: ${prefix}* CPU path # SKIP no call of hqr took the CPU path"
  elif grep '^hqr: CPU path calls ' "$out/hqr.err" | grep -q "$wheel"; then
    ok "pip_wheels: ${prefix}* calls on the CPU went to $wheel"
  else
    notok "pip_wheels: ${prefix}* calls on the CPU went to $wheel (no 'hqr: CPU path calls' line naming it)"
  fi
done
if grep -v '^hqr: ' "$out/hqr.err" | grep -v '^# call ' | grep -q .; then
  notok "pip_wheels: nothing but HQR_VERBOSE lines on stderr"; grep -v '^hqr: ' "$out/hqr.err" | grep -v '^# call ' | head -n 5
else
  ok "pip_wheels: nothing but HQR_VERBOSE lines on stderr"
fi
if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
