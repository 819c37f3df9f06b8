#!/bin/sh
# include/hqr.h and LAPACKE's <lapack.h> in one translation unit, in both
# orders, as C and as C++, with -Wall -Werror: the declarations agree. Each
# file also calls a few routines through both headers' spellings and links
# against libhqr.
BUILD=${BUILD:-build}
libdir=$(cd "$BUILD" && pwd)
# A directory of its own per run (make check may run twice at once in one
# build); removed when everything passed, kept for a look otherwise.
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/header.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

if [ ! -f /usr/include/lapack.h ]; then
  notok "header: <lapack.h> is installed (Debian package liblapacke-dev; make deps)"
  exit 1
fi

body='
#include <stdio.h>
static double a[9] = {4, 1, 0, 1, 3, 1, 0, 1, 2};
int main(void) {
  lapack_int n = 3, lda = 3, info = -99;
  double tau[3], work[64];
  lapack_int lwork = 64;
  LAPACK_dpotrf("L", &n, a, &lda, &info);      /* lapack.h spelling */
  if (info != 0) return 1;
  dgeqrf_(&n, &n, a, &lda, tau, work, &lwork, &info); /* hqr.h prototype */
  if (info != 0) return 1;
  printf("%s %d\n", hqr_version(), hqr_device());
  return 0;
}
'
for lang in c c++; do
  for order in "hqr.h lapack.h" "lapack.h hqr.h"; do
    set -- $order
    name=$(printf "%s-%s-%s" "$lang" "$1" "$2" | sed "s/c++/cxx/; s/[^a-z0-9-]/_/g")
    if [ $lang = c ]; then src=$out/$name.c; cc=${CC:-cc}; std=-std=c11
    else src=$out/$name.cpp; cc=${CXX:-c++}; std=-std=c++17; fi
    printf '#include <%s>\n#include <%s>\n%s\n' "$1" "$2" "$body" > "$src"
    if $cc $std -Wall -Wextra -Werror -Iinclude "$src" -o "$out/$name" -L"$libdir" -lhqr -Wl,-rpath,"$libdir" \
       >"$out/$name.log" 2>&1 && "$out/$name" >/dev/null; then
      ok "header: $lang, #include <$1> then <$2>: compiles with -Wall -Werror, links, runs"
    else
      notok "header: $lang, #include <$1> then <$2>: compiles with -Wall -Werror, links, runs"
      head -n 20 "$out/$name.log"
    fi
  done
done

# hqr.h alone, strict C and C++ with the ILP64 switch: still self-contained.
for lang in c c++; do
  if [ $lang = c ]; then src=$out/alone.c; cc=${CC:-cc}; std=-std=c99
  else src=$out/alone.cpp; cc=${CXX:-c++}; std=-std=c++11; fi
  printf '#include <hqr.h>\nint main(void) { return hqr_device() < -1; }\n' > "$src"
  if $cc $std -Wall -Wextra -Werror -Iinclude -c "$src" -o "$out/alone.o" >"$out/alone.log" 2>&1 &&
     $cc $std -Wall -Wextra -Werror -DHQR_ILP64 -Iinclude -c "$src" -o "$out/alone.o" >>"$out/alone.log" 2>&1; then
    ok "header: $lang ($std), hqr.h alone compiles with and without HQR_ILP64"
  else
    notok "header: $lang ($std), hqr.h alone compiles with and without HQR_ILP64"; head -n 20 "$out/alone.log"
  fi
done
if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
