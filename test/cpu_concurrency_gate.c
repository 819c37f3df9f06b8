/* A stand-in for the system LAPACK (HQR_LAPACK=<this library>) that sees
 * how many threads are inside hqr's CPU path at once. Its dpotrf_, dpotri_,
 * dtrtri_, dgeqrf_, dgels_ and dgemm_ pass each call on to the real
 * liblapack.so.3 (libblas for dgemm_); every other symbol hqr looks up comes
 * from the libraries this one links. While armed, a thread entering one of
 * them waits (up to 10 s) until a second thread is inside one too: if hqr
 * serialised its CPU-path calls the second thread could never arrive and
 * the count stays 1. Nested calls (LAPACK calling LAPACK through hqr's
 * exports) count once per thread. Used by test/cpu_concurrency.sh. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static atomic_int armed, inside, most;
static _Thread_local int depth;
static _Thread_local int counted;

/* Starts (1) or stops (0) counting; the counts restart from zero. */
void gate_arm(int on) {
  atomic_store(&armed, 0);
  atomic_store(&inside, 0);
  atomic_store(&most, 0);
  atomic_store(&armed, on);
}
/* The most threads that were inside at once since gate_arm(1). */
int gate_most(void) { return atomic_load(&most); }

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void enter(void) {
  if (depth++ > 0 || !atomic_load(&armed)) return;
  counted = 1;
  const int in = atomic_fetch_add(&inside, 1) + 1;
  for (int m = atomic_load(&most); in > m && !atomic_compare_exchange_weak(&most, &m, in);) {
  }
  const double deadline = now() + 10.0;
  const struct timespec ms = {0, 1000000};
  while (atomic_load(&most) < 2 && now() < deadline) nanosleep(&ms, NULL);
}

static void leave(void) {
  if (--depth == 0 && counted) {
    counted = 0;
    atomic_fetch_sub(&inside, 1);
  }
}

typedef void potrf_t(const char *, const int *, double *, const int *, int *, size_t);
typedef void trtri_t(const char *, const char *, const int *, double *, const int *, int *, size_t, size_t);
typedef void geqrf_t(const int *, const int *, double *, const int *, double *, double *, const int *, int *);
typedef void gels_t(const char *, const int *, const int *, const int *, double *, const int *, double *,
                    const int *, double *, const int *, int *, size_t);
typedef void gemm_t(const char *, const char *, const int *, const int *, const int *, const double *,
                    const double *, const int *, const double *, const int *, const double *, double *, const int *,
                    size_t, size_t);
static potrf_t *real_potrf, *real_potri;
static trtri_t *real_trtri;
static geqrf_t *real_geqrf;
static gels_t *real_gels;
static gemm_t *real_gemm;

static void *real(void *lib, const char *name) {
  void *p = lib ? dlsym(lib, name) : NULL;
  if (!p) {
    fprintf(stderr, "cpu_concurrency_gate: no %s in liblapack.so.3\n", name);
    abort();
  }
  return p;
}

__attribute__((constructor)) static void resolve(void) {
  void *lib = dlopen("liblapack.so.3", RTLD_NOW | RTLD_LOCAL);
  real_potrf = (potrf_t *)real(lib, "dpotrf_");
  real_potri = (potrf_t *)real(lib, "dpotri_");
  real_trtri = (trtri_t *)real(lib, "dtrtri_");
  real_geqrf = (geqrf_t *)real(lib, "dgeqrf_");
  real_gels = (gels_t *)real(lib, "dgels_");
  real_gemm = (gemm_t *)real(lib, "dgemm_");
}

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t l) {
  enter();
  real_potrf(uplo, n, a, lda, info, l);
  leave();
}
void dpotri_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t l) {
  enter();
  real_potri(uplo, n, a, lda, info, l);
  leave();
}
void dtrtri_(const char *uplo, const char *diag, const int *n, double *a, const int *lda, int *info, size_t l1,
             size_t l2) {
  enter();
  real_trtri(uplo, diag, n, a, lda, info, l1, l2);
  leave();
}
void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work, const int *lwork,
             int *info) {
  enter();
  real_geqrf(m, n, a, lda, tau, work, lwork, info);
  leave();
}
void dgels_(const char *trans, const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b,
            const int *ldb, double *work, const int *lwork, int *info, size_t l) {
  enter();
  real_gels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info, l);
  leave();
}
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc, size_t l1, size_t l2) {
  enter();
  real_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, l1, l2);
  leave();
}
