#!/bin/sh
# Real clients: programs Debian ships, linked with liblapack.so.3 and not
# rebuilt, use hqr.
#  1. numpy (test/clients/numpy_check.py) and Octave (test/clients/octave_check.m)
#     under LD_PRELOAD=libhqr.so: every answer passes its residual check, and
#     HQR_VERBOSE shows that hqr took the routines it implements (numpy's inv
#     calls dgesv, which hqr forwards: no line).
#  2. As root, hqr registered as the system's liblapack.so.3
#     (scripts/register-alternative.sh): test/preload_prog.f90 (built with
#     -llapack) and numpy, without LD_PRELOAD, pass and are served by hqr;
#     preloading libhqr.so as well changes nothing (each call is served once);
#     registering twice and undoing twice are harmless; --undo restores the
#     alternative exactly (auto mode, and a manual choice) and programs no
#     longer see hqr.
# Part 2 changes the LAPACK of the whole machine for a few seconds: a lock
# keeps two runs apart, and an exit trap restores the state found at the start.
BUILD=${BUILD:-build}
lib=$(cd "$BUILD" && pwd)/libhqr.so
# A directory of its own per run; removed when everything passed.
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/clients.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }
# hqr forwards to the system LAPACK, and nothing is preloaded unless asked.
unset HQR_LAPACK LD_PRELOAD
export HQR_VERBOSE=1
# Debian's python3, which python3-numpy belongs to (not one found first on PATH).
python=/usr/bin/python3

# took LABEL ERRFILE ROUTINE...: an HQR_VERBOSE line for each routine.
took() {
  label=$1 err=$2; shift 2
  for r in "$@"; do
    line=$(grep "^hqr: $r " "$err" | head -n 1)
    if [ -n "$line" ]; then ok "$label: hqr took $r (${line#hqr: })"
    else notok "$label: hqr took $r (no HQR_VERBOSE line)"; fi
  done
}
# untouched LABEL ERRFILE WHAT: no HQR_VERBOSE line at all.
untouched() {
  if grep -q '^hqr: ' "$2"; then notok "$1: $3"; grep '^hqr: ' "$2" | head -n 3
  else ok "$1: $3"; fi
}
# run_numpy LABEL [VAR=VALUE...]: numpy_check.py's TAP lines, and its exit status.
run_numpy() {
  label=$1; shift
  env "$@" "$python" test/clients/numpy_check.py "$label" >"$out/np.out" 2>"$out/np.err"; rc=$?
  cat "$out/np.out"
  grep -q '^not ok ' "$out/np.out" && failed=1
  if [ $rc -eq 0 ]; then ok "$label: numpy_check.py ran to the end"
  else notok "$label: numpy_check.py ran to the end (exit $rc)"; cat "$out/np.err"; fi
}
# run_prog LABEL [VAR=VALUE...]: test/preload_prog.f90 passes its residual checks.
run_prog() {
  label=$1; shift
  env "$@" "$out/prog" >"$out/prog.out" 2>"$out/prog.err"; rc=$?
  if [ $rc -eq 0 ] && grep -q '^PASS' "$out/prog.out"; then ok "$label: Fortran program passes its residual checks"
  else notok "$label: Fortran program passes its residual checks"; cat "$out/prog.out" "$out/prog.err"; fi
}

# ---- 1. LD_PRELOAD -----------------------------------------------------------
if "$python" -c 'import numpy' 2>/dev/null; then
  run_numpy "numpy (LD_PRELOAD)" LD_PRELOAD="$lib"
  took "numpy (LD_PRELOAD)" "$out/np.err" dpotrf zpotrf dgeqrf dorgqr zgeqrf zungqr
  if grep -q '^hqr: dgesv ' "$out/np.err"; then notok "numpy (LD_PRELOAD): inv's dgesv is forwarded, not taken"
  else ok "numpy (LD_PRELOAD): inv's dgesv is forwarded, not taken"; fi
else
  notok "numpy: $python cannot import numpy (make deps installs python3-numpy)"
fi

if command -v octave-cli >/dev/null; then
  # --no-history: Octave 7 otherwise reports an error saving it at exit.
  LD_PRELOAD="$lib" octave-cli --norc --quiet --no-history test/clients/octave_check.m "octave (LD_PRELOAD)" \
    >"$out/oct.out" 2>"$out/oct.err"; rc=$?
  cat "$out/oct.out"
  grep -q '^not ok ' "$out/oct.out" && failed=1
  if [ $rc -eq 0 ] && ! grep -v '^hqr: ' "$out/oct.err" | grep -q .; then
    ok "octave (LD_PRELOAD): octave_check.m ran to the end, nothing but HQR_VERBOSE lines on stderr"
  else
    notok "octave (LD_PRELOAD): octave_check.m ran to the end, nothing but HQR_VERBOSE lines on stderr (exit $rc)"
    grep -v '^hqr: ' "$out/oct.err" | head -n 5
  fi
  took "octave (LD_PRELOAD)" "$out/oct.err" dpotrf dpotri dgeqrf dorgqr
else
  notok "octave: octave-cli not found (make deps installs octave)"
fi

# ---- 2. the registered alternative -------------------------------------------
group=liblapack.so.3-x86_64-linux-gnu
syslib=/usr/lib/x86_64-linux-gnu/liblapack.so.3
copy=/usr/local/lib/hqr/liblapack.so.3
register=scripts/register-alternative.sh
# Mode, selection, and every alternative with its priority.
state() { update-alternatives --query "$group"; }
# restore: back to the state found at the start, whatever happened since.
restore() {
  "$register" --undo >/dev/null 2>&1
  if grep -q '^Status: manual' "$out/state.before"; then
    update-alternatives --quiet --set "$group" "$(sed -n 's/^Value: //p' "$out/state.before")"
  else
    update-alternatives --quiet --auto "$group"
  fi
}
# same_state WHAT: the alternative is exactly as found at the start.
same_state() {
  if state | diff "$out/state.before" - >"$out/state.diff"; then ok "alternative: $1"
  else notok "alternative: $1"; cat "$out/state.diff"; fi
}

if [ "$(id -u)" != 0 ]; then
  ok "# SKIP alternative: registering hqr as the system's LAPACK needs root"
elif ! state >/dev/null 2>&1; then
  notok "alternative: Debian's $group alternative exists (liblapack3 installed)"
elif ! ${FC:-gfortran} -O2 test/preload_prog.f90 -o "$out/prog" -llapack; then
  notok "alternative: build test/preload_prog.f90 against -llapack"
else
  # One run at a time on this machine (two would undo each other's
  # registration): a lock on the folder of the alternatives' links, which
  # root owns and update-alternatives itself does not lock.
  exec 9</etc/alternatives
  flock 9
  if state | grep -qx "Alternative: $copy"; then
    ok "# SKIP alternative: hqr is already registered as this machine's LAPACK; left as it is"
  else
    state >"$out/state.before"
    trap restore EXIT
    trap 'exit 1' HUP INT TERM

    run_prog "before"
    untouched "before" "$out/prog.err" "the system's LAPACK is not hqr"

    if "$register" "$lib" >"$out/reg.log" 2>&1 && [ "$(readlink -f "$syslib")" = "$copy" ]; then
      ok "alternative: registered, $syslib -> $copy"
    else
      notok "alternative: registered, $syslib -> $copy"; cat "$out/reg.log"
    fi
    # ldconfig names a link after the SONAME of each library it finds: with
    # libhqr.so there it would put a libhqr.so link into the system's folder.
    mkdir "$out/ldconfig" && ln -s "$copy" "$out/ldconfig/liblapack.so.3" && ldconfig -n "$out/ldconfig"
    if [ "$(ls "$out/ldconfig")" = liblapack.so.3 ]; then ok "alternative: ldconfig adds no link for the copy (SONAME liblapack.so.3)"
    else notok "alternative: ldconfig adds no link for the copy (SONAME liblapack.so.3)"; ls -l "$out/ldconfig"; fi

    cp /usr/local/lib/hqr/previous "$out/previous" 2>/dev/null
    if "$register" "$lib" >"$out/reg2.log" 2>&1 && [ "$(state | grep -cx "Alternative: $copy")" = 1 ] &&
       [ "$(readlink -f "$syslib")" = "$copy" ] && cmp -s /usr/local/lib/hqr/previous "$out/previous"; then
      ok "alternative: registering again changes nothing (one entry, the first previous state kept)"
    else
      notok "alternative: registering again changes nothing (one entry, the first previous state kept)"
      cat "$out/reg2.log"; state
    fi

    run_prog "alternative"
    took "alternative" "$out/prog.err" dpotrf dpotri dgeqrf dgels zpotrf
    if grep -q '^hqr: dgesv ' "$out/prog.err"; then notok "alternative: dgesv is forwarded, not taken"
    else ok "alternative: dgesv (not implemented by hqr) forwarded to the real LAPACK"; fi
    lines=$(grep -c '^hqr: ' "$out/prog.err")

    # hqr preloaded and the system's LAPACK at once: the preloaded copy must
    # forward past the registered one, not serve each call twice.
    run_prog "alternative + LD_PRELOAD" LD_PRELOAD="$lib"
    both=$(grep -c '^hqr: ' "$out/prog.err")
    if [ "$both" = "$lines" ]; then ok "alternative + LD_PRELOAD: each call served once ($both HQR_VERBOSE lines)"
    else notok "alternative + LD_PRELOAD: each call served once ($both HQR_VERBOSE lines, $lines without LD_PRELOAD)"; fi

    if "$python" -c 'import numpy' 2>/dev/null; then
      run_numpy "numpy (alternative)"
      took "numpy (alternative)" "$out/np.err" dpotrf zpotrf dgeqrf dorgqr
    fi

    if "$register" --undo >"$out/undo.log" 2>&1; then ok "alternative: --undo succeeds"
    else notok "alternative: --undo succeeds"; cat "$out/undo.log"; fi
    same_state "--undo restores the alternative as it was"
    if [ -e /usr/local/lib/hqr ]; then notok "alternative: --undo removes /usr/local/lib/hqr"
    else ok "alternative: --undo removes /usr/local/lib/hqr"; fi
    run_prog "after --undo"
    untouched "after --undo" "$out/prog.err" "programs no longer get hqr"
    if "$register" --undo >"$out/undo.log" 2>&1; then ok "alternative: a second --undo succeeds"
    else notok "alternative: a second --undo succeeds"; cat "$out/undo.log"; fi
    same_state "a second --undo changes nothing"

    # A manual choice (another LAPACK than the current one) comes back too.
    other=$(update-alternatives --list "$group" | grep -vx "$(sed -n 's/^Value: //p' "$out/state.before")" | head -n 1)
    if [ -z "$other" ]; then
      ok "# SKIP alternative: a manual choice comes back after --undo (only one LAPACK installed)"
    else
      update-alternatives --quiet --set "$group" "$other"
      state >"$out/state.manual"
      "$register" "$lib" >"$out/reg.log" 2>&1 && [ "$(readlink -f "$syslib")" = "$copy" ] &&
        "$register" --undo >"$out/undo.log" 2>&1
      if state | diff "$out/state.manual" - >"$out/state.diff"; then
        ok "alternative: a manual choice ($other) comes back after --undo"
      else
        notok "alternative: a manual choice ($other) comes back after --undo"; cat "$out/reg.log" "$out/undo.log" "$out/state.diff"
      fi
    fi
    restore
    trap - EXIT HUP INT TERM
    same_state "back to the state found at the start"
  fi
  exec 9<&-
fi

if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
