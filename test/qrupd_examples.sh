#!/bin/sh
# The worked least-squares example of ABI.md section 5, in C
# (examples/qrupd_lsq.c, hqr.h, -lhqr) and in Fortran (examples/qrupd_lsq.f90,
# `use hqr`): both build, run, and print after each of their five steps the
# solution and residual norm that a direct solve gives. The direct solve is
# a small program built here against the system LAPACK alone (not hqr): it
# fits each step's observations and regressors from scratch with DGELS.
BUILD=${BUILD:-build}
libdir=$(cd "$BUILD" && pwd)
# A directory of its own per run (make check may run twice at once in one
# build); removed when everything passed, kept for a look otherwise.
mkdir -p "$BUILD/test"
out=$(mktemp -d "$BUILD/test/qrupd_examples.XXXXXX") || exit 1
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

# Each step's problem as sets: observations t, regressors among 1, t, cos(t),
# t^2/10; b(t) = 2 + t/2 + sin(2t). Row order does not change the fit.
cat >"$out/direct.c" <<'EOF'
#include <math.h>
#include <stdio.h>
#include <string.h>
void dgels_(const char *, const int *, const int *, const int *, double *, const int *, double *, const int *,
            double *, const int *, int *, size_t);
static double f(int j, double t) { return j == 0 ? 1 : j == 1 ? t : j == 2 ? cos(t) : t * t / 10; }
static void fit(const int *ts, int m, const int *regs, int k) {
  double a[16 * 8], b[16], work[1024];
  int one = 1, lwork = 1024, info;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < k; ++j) a[i + j * m] = f(regs[j], ts[i]);
    b[i] = 2 + 0.5 * ts[i] + sin(2.0 * ts[i]);
  }
  dgels_("N", &m, &k, &one, a, &m, b, &m, work, &lwork, &info, 1);
  double res = 0;
  for (int i = k; i < m; ++i) res += b[i] * b[i];
  printf("x =");
  for (int j = 0; j < k; ++j) printf(" %.12e", b[j]);
  printf("  residual = %.12e\n", info == 0 ? sqrt(res) : -1.0);
}
int main(void) {
  const int t10[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, t11[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  const int t9[] = {1, 4, 5, 6, 7, 8, 9, 10, 11};
  const int r3[] = {0, 1, 2}, r4[] = {0, 1, 2, 3}, r3b[] = {0, 1, 3};
  fit(t10, 10, r3, 3);   /* the start */
  fit(t11, 11, r3, 3);   /* 1. t = 11 added */
  fit(t9, 9, r3, 3);     /* 2. t = 2, 3 deleted */
  fit(t9, 9, r4, 4);     /* 3. t^2/10 added */
  fit(t9, 9, r3b, 3);    /* 4. cos(t) deleted */
  return 0;
}
EOF
if ! ${CC:-cc} -O2 "$out/direct.c" -o "$out/direct" -llapack -lm >"$out/direct.log" 2>&1; then
  notok "qrupd_examples: the direct solve builds against the system LAPACK"; cat "$out/direct.log"
  exit 1
fi
"$out/direct" >"$out/direct.out"

# The numbers after "x =" on each line (x, then the residual norm).
numbers() { sed -n 's/^.*x =//p' "$1" | sed 's/residual =//'; }

# compare <what> <program output>: five lines, every number within 1e-9
# (relative) of the direct solve's.
compare() {
  numbers "$2" >"$2.num"
  numbers "$out/direct.out" >"$out/direct.num"
  if paste -d '|' "$2.num" "$out/direct.num" | awk -F'|' '
      { n = split($1, a, " "); if (split($2, b, " ") != n) bad = 1
        for (i = 1; i <= n; i++) { d = a[i] - b[i]; s = b[i] < 0 ? -b[i] : b[i]
          if ((d < 0 ? -d : d) > 1e-9 * (s > 1 ? s : 1)) bad = 1 } }
      END { exit (bad || NR != 5) }'; then
    ok "qrupd_examples: $1 prints the direct solve's x and residual after all 5 steps"
  else
    notok "qrupd_examples: $1 prints the direct solve's x and residual after all 5 steps"
    echo "# $1:"; sed 's/^/#   /' "$2"; echo "# direct solve (DGELS):"; sed 's/^/#   /' "$out/direct.out"
  fi
}

if ${CC:-cc} -O2 -Wall -Iinclude examples/qrupd_lsq.c -o "$out/lsq_c" -L"$libdir" -lhqr -Wl,-rpath,"$libdir" -lm \
   >"$out/c.log" 2>&1; then
  ok "qrupd_examples: examples/qrupd_lsq.c builds with hqr.h and -lhqr"
  if "$out/lsq_c" >"$out/c.out" 2>&1; then compare "the C example" "$out/c.out"
  else notok "qrupd_examples: the C example runs"; cat "$out/c.out"; fi
else
  notok "qrupd_examples: examples/qrupd_lsq.c builds with hqr.h and -lhqr"; cat "$out/c.log"
fi

if [ ! -f "$BUILD/hqr.mod" ]; then
  notok "qrupd_examples: $BUILD/hqr.mod exists (make builds it)"
elif ${FC:-gfortran} -O2 -I"$BUILD" -J"$out" examples/qrupd_lsq.f90 -o "$out/lsq_f" -L"$libdir" -lhqr \
     -Wl,-rpath,"$libdir" >"$out/f.log" 2>&1; then
  ok "qrupd_examples: examples/qrupd_lsq.f90 builds with 'use hqr' and -lhqr"
  if "$out/lsq_f" >"$out/f.out" 2>&1; then compare "the Fortran example" "$out/f.out"
  else notok "qrupd_examples: the Fortran example runs"; cat "$out/f.out"; fi
else
  notok "qrupd_examples: examples/qrupd_lsq.f90 builds with 'use hqr' and -lhqr"; cat "$out/f.log"
fi

if [ $failed -eq 0 ]; then rm -rf "$out"; else echo "# files of this run: $out"; fi
exit $failed
