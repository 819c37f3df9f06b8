#!/bin/sh
# ABI.md's symbol index matches what libhqr.so and its ILP64 twin libhqr64.so
# export (the same names in both): every documented symbol is defined, every
# defined symbol is documented or one of the forwarding stubs of
# src/host/forward.list, and every stub is exported; the wheels' scipy_
# aliases name exactly the documented routines.
# std:: template instantiations that g++ exports with default visibility are
# listed as a note, not a failure.
BUILD=${BUILD:-build}
# A directory of its own per run (make check may run twice at once in one
# build); removed when everything passed, kept for a look otherwise.
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/abi_symbols.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

# The fenced blocks ```symbols and ```symbols-optional of ABI.md.
block() { awk -v tag="$1" '$0 == "```" tag { on = 1; next } on && /^```/ { on = 0 } on' ABI.md | tr ' ' '\n' | grep . | sort -u; }
block symbols > "$out/documented"
block symbols-optional > "$out/optional"
sort -u src/host/forward.list > "$out/forwarded"

if [ ! -s "$out/documented" ]; then
  notok "abi: ABI.md has a symbol index"; exit 1
fi
both=$(comm -12 "$out/documented" "$out/forwarded" | tr '\n' ' ')
if [ -z "$both" ]; then ok "abi: no documented routine is also a forwarding stub"
else notok "abi: routines both implemented and forwarded: $both"; fi
cat "$out/documented" "$out/optional" "$out/forwarded" | sort -u > "$out/known"

for name in libhqr.so libhqr64.so; do
  lib=$BUILD/$name
  if [ ! -f "$lib" ]; then notok "abi: $BUILD/$name exists (make builds it)"; continue; fi
  nm -D --defined-only "$lib" | awk '$2 ~ /^[TWiVDBR]$/ { print $3 }' | sort -u > "$out/exported.all"

  # The wheels' names (ABI.md, "pip's numpy and SciPy"): scipy_<name> in
  # libhqr.so, scipy_<name>64_ in libhqr64.so, for exactly the documented
  # BLAS/LAPACK routines (hqr's own), none for a forwarded one.
  suffix=; [ "$name" = libhqr64.so ] && suffix=64_
  grep -E '^[a-z][a-z0-9_]*_$|^cblas_' "$out/documented" | grep -v '^hqr_' | sed "s/^\(.*\)\$/scipy_\1$suffix/" | sort -u > "$out/scipy.expected"
  grep '^scipy_' "$out/exported.all" > "$out/scipy.exported"
  if cmp -s "$out/scipy.expected" "$out/scipy.exported"; then
    ok "abi: $name exports scipy_<name>$suffix for all $(wc -l < "$out/scipy.expected") routines of ABI.md's index, and no other scipy_ name"
  else
    notok "abi: $name's scipy_ names differ from ABI.md's index: $(diff "$out/scipy.expected" "$out/scipy.exported" | grep '^[<>]' | head -n 8 | tr '\n' ' ')"
  fi
  grep -v '^scipy_' "$out/exported.all" > "$out/exported"

  missing=$(comm -23 "$out/documented" "$out/exported" | tr '\n' ' ')
  if [ -z "$missing" ]; then ok "abi: $name exports all $(wc -l < "$out/documented") symbols of ABI.md's index"
  else notok "abi: ABI.md documents symbols $name does not export: $missing"; fi

  stubs=$(comm -23 "$out/forwarded" "$out/exported" | wc -l)
  if [ "$stubs" -eq 0 ]; then ok "abi: $name exports all $(wc -l < "$out/forwarded") forwarding stubs of src/host/forward.list"
  else notok "abi: $stubs names of src/host/forward.list are not exported by $name: $(comm -23 "$out/forwarded" "$out/exported" | head -n 5 | tr '\n' ' ')"; fi

  extra=$(comm -13 "$out/known" "$out/exported")
  std=$(printf '%s\n' "$extra" | grep -E '^_ZN?St|^_ZNKSt|^_ZNSt|^_ZTVSt|^_ZTISt|^_ZTSSt' | grep .)
  other=$(printf '%s\n' "$extra" | grep -vE '^_ZN?St|^_ZNKSt|^_ZNSt|^_ZTVSt|^_ZTISt|^_ZTSSt' | grep .)
  [ -n "$std" ] && echo "# note: $name: $(printf '%s\n' "$std" | wc -l) std:: template instantiation(s) exported by g++ (harmless, better hidden): $(printf '%s\n' "$std" | head -n 3 | tr '\n' ' ')"
  if [ -z "$other" ]; then
    ok "abi: $name exports nothing outside ABI.md and src/host/forward.list"
  else
    notok "abi: $name exports symbols outside the ABI: $(printf '%s\n' "$other" | head -n 8 | tr '\n' ' ')"
    printf '%s\n' "$other" | c++filt | sed 's/^/#   /' | head -n 8
  fi
done
if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
