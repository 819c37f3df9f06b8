/* Two threads call the same hqr routine at once, on the CPU path, with the
 * gate of test/cpu_concurrency_gate.c as the next LAPACK: prints one TAP line
 * per routine, "ok" when both threads were inside the system LAPACK at the
 * same time (hqr holds no lock around its CPU path) and both calls returned
 * INFO = 0. Run by test/cpu_concurrency.sh:
 *   HQR_LAPACK=gate.so HQR_DEVICE=none cpu_concurrency_prog gate.so */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hqr.h"

/* The level-3 BLAS front's entry points (hqr.h leaves BLAS to the BLAS headers). */
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *,
                 int);

enum { kN = 200, kThreads = 2 };

typedef struct {
  int routine;
  double a[kN * kN], b[kN * kN], c[kN * kN], tau[kN], work[64 * kN];
  int info;
} Call;

static const char *const names[] = {"dpotrf", "dpotri", "dtrtri",         "dgeqrf",
                                    "dgels",  "dqrupd_addcols", "dgemm (64^3)", "cblas_dgemm (64^3)"};
enum { kRoutines = sizeof names / sizeof names[0] };

static pthread_barrier_t start;

/* Diagonally dominant symmetric (so positive definite) in a; random b, c. */
static void fill(Call *c, unsigned seed) {
  for (int j = 0; j < kN; ++j)
    for (int i = 0; i < kN; ++i) {
      c->a[i + j * kN] = i == j ? 2.0 * kN : 1.0 / (1 + i + j);
      c->b[i + j * kN] = (double)rand_r(&seed) / RAND_MAX - 0.5;
      c->c[i + j * kN] = i == j ? 1.0 : 0.0; /* an orthogonal Q: the identity */
    }
}

static void *run(void *arg) {
  Call *c = arg;
  const int n = kN, lwork = 64 * kN, one = 1, p = 4, j = 3, m = kN, nq = kN - 4, small = 64;
  const double alpha = 1.5, beta = 0.5;
  pthread_barrier_wait(&start);
  switch (c->routine) {
    case 0: dpotrf_("L", &n, c->a, &n, &c->info, 1); break;
    case 1: dpotri_("L", &n, c->a, &n, &c->info, 1); break; /* of a (not a factor): any INFO >= 0 is fine */
    case 2: dtrtri_("U", "N", &n, c->a, &n, &c->info, 1, 1); break;
    case 3: dgeqrf_(&n, &n, c->b, &n, c->tau, c->work, &lwork, &c->info); break;
    case 4: dgels_("N", &n, &n, &one, c->a, &n, c->b, &n, c->work, &lwork, &c->info, 1); break;
    /* Q = I, R = upper triangle of a (m x (m-4)): insert 4 columns of b before column 3. */
    case 5:
      dqrupd_addcols_(&m, &nq, &p, &j, c->c, &m, c->a, &m, c->b, &m, c->work, &lwork, &c->info);
      break;
    /* Small products, as from a user's OpenMP loop: no lock in hqr's BLAS front. */
    case 6:
      dgemm_("N", "T", &small, &small, &small, &alpha, c->a, &n, c->b, &n, &beta, c->c, &n, 1, 1);
      c->info = 0;
      break;
    case 7:
      cblas_dgemm(101 /* RowMajor */, 111, 112, small, small, small, alpha, c->a, n, c->b, n, beta, c->c, n);
      c->info = 0;
      break;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  setvbuf(stdout, NULL, _IOLBF, 0); /* every line out at once, should something crash later */
  void *gate = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL); /* the same object hqr opens as HQR_LAPACK */
  void (*arm)(int) = gate ? (void (*)(int))dlsym(gate, "gate_arm") : NULL;
  int (*most)(void) = gate ? (int (*)(void))dlsym(gate, "gate_most") : NULL;
  if (!arm || !most) {
    printf("not ok - cpu_concurrency: load the gate %s\n", argv[1]);
    return 1;
  }
  static Call calls[kThreads];
  int failed = 0;
  for (int r = 0; r < kRoutines; ++r) {
    for (int t = 0; t < kThreads; ++t) {
      fill(&calls[t], 17u + t);
      calls[t].routine = r;
      calls[t].info = -99;
    }
    if (r == 5) /* R upper triangular */
      for (int t = 0; t < kThreads; ++t)
        for (int jj = 0; jj < kN; ++jj)
          for (int i = jj + 1; i < kN; ++i) calls[t].a[i + jj * kN] = 0;
    pthread_t th[kThreads];
    pthread_barrier_init(&start, NULL, kThreads);
    arm(1);
    for (int t = 0; t < kThreads; ++t) pthread_create(&th[t], NULL, run, &calls[t]);
    for (int t = 0; t < kThreads; ++t) pthread_join(th[t], NULL);
    const int seen = most();
    arm(0);
    pthread_barrier_destroy(&start);
    const int ok = seen == kThreads && calls[0].info >= 0 && calls[1].info >= 0;
    printf("%s - cpu_concurrency: two %s calls were inside the system LAPACK at once (seen: %d; INFO %d, %d)\n",
           ok ? "ok" : "not ok", names[r], seen, calls[0].info, calls[1].info);
    if (!ok) failed = 1;
  }
  return failed;
}
