/* ScaLAPACK under MPI with whatever LAPACK/BLAS each rank loads (hqr through
 * LD_PRELOAD, or the system's OpenBLAS): pdpotrf and pdgemm on a square
 * BLACS grid, each checked, each timed. Both test/scalapack.sh (small n, 2
 * ranks) and scripts/bench-scalapack (n = 32768, 4 ranks x 1 GPU) run it.
 *
 *   mpirun -np P scalapack_prog N NB [ROUTINES [REPS]]
 *     N, NB     order and block size (NB x NB blocks, block-cyclic)
 *     ROUTINES  potrf, gemm or potrf,gemm (default both)
 *     REPS      timed repetitions after one warm-up (default 1)
 *     KB        the PBLAS's panel width, what PILAENV answers: the k of
 *               pdgemm's local dgemm calls and the width of pdsyrk's and
 *               pdtrsm's pieces (default 32, the PBLAS's own; 0: NB)
 *
 * The grid is p x q with p*q = P, p <= q, p as large as possible. Every
 * rank fills its own blocks from a counter-based hash of (seed, i, j), the
 * seed fresh each run (rank 0's clock and pid, broadcast), so no matrix is
 * ever sent whole. pdpotrf's A is symmetric with entries in [-1, 1) off the
 * diagonal and n + 1 + [0, 1) on it: diagonally dominant, so SPD. pdgemm
 * computes C = A B + C0 on entries in [-1, 1).
 *
 * Checks, with x a random vector (O(n^2) work, so they stay cheap at
 * n = 32768):
 *   pdpotrf  ||A x - L (L^T x)||_inf / (n ||A||_1 ||x||_inf eps)
 *   pdgemm   ||C x - A (B x) - C0 x||_inf / ((n ||A||_inf ||B||_inf + ||C0||_inf) ||x||_inf eps)
 * and each must be below 30 (LAPACK's THRESH); INFO must be 0.
 *
 * Output, from rank 0: first a line per rank saying whether hqr is loaded
 * (its runtime API found in the process) and which GPU serves that rank
 * (hqr_device(); HQR_DEVICE=local-rank gives rank r of a node GPU r mod the
 * GPU count):
 *   # rank 1 (local rank 1): hqr 0.1.0, HQR_DEVICE=local-rank, GPU 1 (NVIDIA H100 80GB HBM3)
 *   # rank 1 (local rank 1): no hqr
 * then one line per routine (time: the slowest rank's, the
 * median of REPS after the warm-up; GFLOP/s: n^3/3 for pdpotrf, 2 n^3 for
 * pdgemm):
 *   pdpotrf n=1000 nb=64 grid=1x2 reps=3 time=0.0123s min=0.0120s 27.10 GFLOP/s residual=1.2e-02 PASS
 * and exits 0 when every check passed, 1 otherwise. */
#include <dlfcn.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* BLACS's C interface and ScaLAPACK's Fortran symbols (32-bit INTEGER). */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja, const int *desca, int *info);
void pdgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
             const double *a, const int *ia, const int *ja, const int *desca, const double *b, const int *ib,
             const int *jb, const int *descb, const double *beta, double *c, const int *ic, const int *jc,
             const int *descc);
void pdgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a, const int *ia,
             const int *ja, const int *desca, const double *x, const int *ix, const int *jx, const int *descx,
             const int *incx, const double *beta, double *y, const int *iy, const int *jy, const int *descy,
             const int *incy);
void pdtrmv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *a, const int *ia,
             const int *ja, const int *desca, double *x, const int *ix, const int *jx, const int *descx,
             const int *incx);
double pdlange_(const char *norm, const int *m, const int *n, const double *a, const int *ia, const int *ja,
                const int *desca, double *work);
void pdlacpy_(const char *uplo, const int *m, const int *n, const double *a, const int *ia, const int *ja,
              const int *desca, double *b, const int *ib, const int *jb, const int *descb);

/* PILAENV, the PBLAS's tuning function (PBLAS/SRC/pilaenv.f: "users are
 * encouraged to modify this subroutine"), defined here, so that the
 * library's calls through its PLT come to this one. */
static int pblas_kb = 32;
int pilaenv_(const int *ictxt, const char *prec) { return pblas_kb; }

static const int i0 = 0, i1 = 1;
static const double one = 1.0, zero = 0.0, minus_one = -1.0;
static const double kThreshold = 30.0;

/* The grid and the local shape of an n x n (or n x 1) matrix on it. */
typedef struct {
  int ctxt, nprow, npcol, myrow, mycol;
} Grid;

typedef struct {
  int desc[9];
  int rows, cols;  /* local */
  double *data;
} Dist;

static Dist dist_new(const Grid *g, int m, int n, int nb) {
  Dist d;
  const int nbc = n == 1 ? 1 : nb;
  d.rows = numroc_(&m, &nb, &g->myrow, &i0, &g->nprow);
  d.cols = numroc_(&n, &nbc, &g->mycol, &i0, &g->npcol);
  const int lld = d.rows > 1 ? d.rows : 1;
  int info = 0;
  descinit_(d.desc, &m, &n, &nb, &nbc, &i0, &i0, &g->ctxt, &lld, &info);
  if (info != 0) {
    fprintf(stderr, "descinit: info %d\n", info);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  d.data = malloc(sizeof(double) * ((size_t)lld * (d.cols > 0 ? d.cols : 1)));
  if (!d.data) {
    fprintf(stderr, "out of memory: %d x %d local\n", d.rows, d.cols);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return d;
}

/* Global index (0-based) of local index l, block size nb, this process's
 * coordinate p of np (the source process is 0). */
static long global_index(int l, int nb, int p, int np) { return ((long)(l / nb) * np + p) * nb + l % nb; }

/* A uniform double in [-1, 1) from (seed, key): splitmix64's finalizer. */
static double hash_uniform(uint64_t seed, uint64_t key) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (key + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* Fills a distributed matrix: kind 's' symmetric, diagonally dominant
 * (SPD), 'g' general; entries from (seed, i, j). */
static void fill(const Grid *g, Dist *d, long n, int nb, uint64_t seed, char kind) {
  const int nbc = d->desc[5];
  const long ld = d->desc[8];
  for (int lj = 0; lj < d->cols; ++lj) {
    const long j = global_index(lj, nbc, g->mycol, g->npcol);
    double *col = d->data + ld * lj;
    for (int li = 0; li < d->rows; ++li) {
      const long i = global_index(li, nb, g->myrow, g->nprow);
      if (kind == 's') {
        const long lo = i < j ? i : j, hi = i < j ? j : i;
        const double h = hash_uniform(seed, (uint64_t)lo * (uint64_t)n + (uint64_t)hi);
        col[li] = i == j ? (double)n + 1.5 + 0.5 * h : h;
      } else {
        col[li] = hash_uniform(seed, (uint64_t)i * (uint64_t)n + (uint64_t)j);
      }
    }
  }
}

static int compare_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Seconds the slowest rank took for f(arg), started together. */
static double timed(void (*f)(void *), void *arg) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  f(arg);
  double t = MPI_Wtime() - t0, tmax = 0;
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return tmax;
}

/* Each rank's line about hqr, printed by rank 0 in rank order. */
static void report_ranks(int rank, int size) {
  enum { kLine = 256 };
  char line[kLine];
  const char *local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  if (!local) local = getenv("MPI_LOCALRANKID");
  if (!local) local = getenv("SLURM_LOCALID");
  const char *(*version)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "hqr_version");
  int (*device)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "hqr_device");
  const char *(*device_name)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "hqr_device_name");
  if (version && device && device_name) {
    const char *setting = getenv("HQR_DEVICE");
    const int d = device();
    snprintf(line, kLine, "# rank %d (local rank %s): hqr %s, HQR_DEVICE=%s, GPU %d (%s)", rank, local ? local : "?",
             version(), setting ? setting : "(unset)", d, device_name());
  } else {
    snprintf(line, kLine, "# rank %d (local rank %s): no hqr", rank, local ? local : "?");
  }
  char *all = rank == 0 ? malloc((size_t)kLine * size) : NULL;
  MPI_Gather(line, kLine, MPI_CHAR, all, kLine, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) printf("%s\n", all + (size_t)kLine * r);
    fflush(stdout);
    free(all);
  }
}

/* ---- pdpotrf ---------------------------------------------------------- */
typedef struct {
  int n;
  Dist *a;
  int info;
} PotrfArgs;

static void run_potrf(void *p) {
  PotrfArgs *r = p;
  pdpotrf_("L", &r->n, r->a->data, &i1, &i1, r->a->desc, &r->info);
}

/* ||A x - L (L^T x)||_inf / (n ||A||_1 ||x||_inf eps); L in a's lower triangle. */
static double potrf_residual(const Grid *g, int n, int nb, const Dist *a0, const Dist *l, uint64_t seed) {
  Dist x = dist_new(g, n, 1, nb), y = dist_new(g, n, 1, nb);
  fill(g, &x, n, nb, seed ^ 0x5eedull, 'g');
  pdgemv_("N", &n, &n, &one, a0->data, &i1, &i1, a0->desc, x.data, &i1, &i1, x.desc, &i1, &zero, y.data, &i1,
          &i1, y.desc, &i1);  /* y = A x */
  double *work = malloc(sizeof(double) * (size_t)(a0->rows + a0->cols + n + 64));
  const double anorm = pdlange_("1", &n, &n, a0->data, &i1, &i1, a0->desc, work);
  const double xnorm = pdlange_("I", &n, &i1, x.data, &i1, &i1, x.desc, work);
  pdtrmv_("L", "T", "N", &n, l->data, &i1, &i1, l->desc, x.data, &i1, &i1, x.desc, &i1);  /* x = L^T x */
  pdtrmv_("L", "N", "N", &n, l->data, &i1, &i1, l->desc, x.data, &i1, &i1, x.desc, &i1);  /* x = L x */
  for (int i = 0; i < x.rows * (x.cols > 0); ++i) y.data[i] -= x.data[i];
  const double rnorm = pdlange_("I", &n, &i1, y.data, &i1, &i1, y.desc, work);
  free(work);
  free(x.data);
  free(y.data);
  return rnorm / ((double)n * anorm * xnorm * (0.5 * 2.220446049250313e-16));
}

/* ---- pdgemm ----------------------------------------------------------- */
typedef struct {
  int n;
  Dist *a, *b, *c;
} GemmArgs;

static void run_gemm(void *p) {
  GemmArgs *r = p;
  pdgemm_("N", "N", &r->n, &r->n, &r->n, &one, r->a->data, &i1, &i1, r->a->desc, r->b->data, &i1, &i1, r->b->desc,
          &one, r->c->data, &i1, &i1, r->c->desc);
}

/* ||C x - A (B x) - C0 x||_inf / ((n ||A||_inf ||B||_inf + ||C0||_inf) ||x||_inf eps). */
static double gemm_residual(const Grid *g, int n, int nb, const Dist *a, const Dist *b, const Dist *c0,
                            const Dist *c, uint64_t seed) {
  Dist x = dist_new(g, n, 1, nb), t = dist_new(g, n, 1, nb), y = dist_new(g, n, 1, nb);
  fill(g, &x, n, nb, seed ^ 0x5eedull, 'g');
  pdgemv_("N", &n, &n, &one, c->data, &i1, &i1, c->desc, x.data, &i1, &i1, x.desc, &i1, &zero, y.data, &i1, &i1,
          y.desc, &i1);  /* y = C x */
  pdgemv_("N", &n, &n, &minus_one, c0->data, &i1, &i1, c0->desc, x.data, &i1, &i1, x.desc, &i1, &one, y.data,
          &i1, &i1, y.desc, &i1);  /* y -= C0 x */
  pdgemv_("N", &n, &n, &one, b->data, &i1, &i1, b->desc, x.data, &i1, &i1, x.desc, &i1, &zero, t.data, &i1, &i1,
          t.desc, &i1);  /* t = B x */
  pdgemv_("N", &n, &n, &minus_one, a->data, &i1, &i1, a->desc, t.data, &i1, &i1, t.desc, &i1, &one, y.data, &i1,
          &i1, y.desc, &i1);  /* y -= A t */
  double *work = malloc(sizeof(double) * (size_t)(a->rows + a->cols + n + 64));
  const double an = pdlange_("I", &n, &n, a->data, &i1, &i1, a->desc, work);
  const double bn = pdlange_("I", &n, &n, b->data, &i1, &i1, b->desc, work);
  const double cn = pdlange_("I", &n, &n, c0->data, &i1, &i1, c0->desc, work);
  const double xn = pdlange_("I", &n, &i1, x.data, &i1, &i1, x.desc, work);
  const double rn = pdlange_("I", &n, &i1, y.data, &i1, &i1, y.desc, work);
  free(work);
  free(x.data);
  free(t.data);
  free(y.data);
  return rn / (((double)n * an * bn + cn) * xn * (0.5 * 2.220446049250313e-16));
}

/* Prints the routine's line (rank 0); returns whether it passed. */
static int report(int rank, const char *name, int n, int nb, const Grid *g, int reps, double *times, double flops,
                  int info, double residual) {
  qsort(times, reps, sizeof(double), compare_double);
  const double median = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
  const int pass = info == 0 && residual < kThreshold;  /* a NaN residual fails */
  if (rank == 0) {
    printf("%s n=%d nb=%d grid=%dx%d reps=%d time=%.4fs min=%.4fs %.2f GFLOP/s", name, n, nb, g->nprow, g->npcol,
           reps, median, times[0], flops / median * 1e-9);
    if (info != 0) printf(" info=%d", info);
    printf(" residual=%.3e %s\n", residual, pass ? "PASS" : "FAIL");
    fflush(stdout);
  }
  return pass;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -np P %s N NB [potrf,gemm [REPS [KB]]]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const int n = atoi(argv[1]), nb = atoi(argv[2]);
  const char *routines = argc > 3 ? argv[3] : "potrf,gemm";
  const int reps = argc > 4 ? atoi(argv[4]) : 1;
  const int kb = argc > 5 ? atoi(argv[5]) : 32;
  pblas_kb = kb > 0 ? kb : nb;
  if (n < 1 || nb < 1 || reps < 1 || kb < 0) {
    if (rank == 0) fprintf(stderr, "N, NB and REPS must be positive, KB not negative\n");
    MPI_Finalize();
    return 2;
  }

  Grid g;
  int p = 1;
  for (int d = 1; d * d <= size; ++d)
    if (size % d == 0) p = d;
  int me, nprocs;
  Cblacs_pinfo(&me, &nprocs);
  Cblacs_get(-1, 0, &g.ctxt);
  Cblacs_gridinit(&g.ctxt, "Row", p, size / p);
  Cblacs_gridinfo(g.ctxt, &g.nprow, &g.npcol, &g.myrow, &g.mycol);

  uint64_t seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid() << 20;
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("# ScaLAPACK: %d ranks, grid %dx%d, n=%d nb=%d kb=%d, seed %llu\n", size, g.nprow, g.npcol, n, nb,
                        pblas_kb, (unsigned long long)seed);
  report_ranks(rank, size);
  double *times = malloc(sizeof(double) * reps);
  int all_pass = 1;

  if (strstr(routines, "potrf")) {
    Dist a0 = dist_new(&g, n, n, nb), a = dist_new(&g, n, n, nb);
    fill(&g, &a0, n, nb, seed, 's');
    PotrfArgs args = {n, &a, 0};
    int info = 0;
    for (int r = -1; r < reps; ++r) {  /* r = -1: the warm-up */
      pdlacpy_("A", &n, &n, a0.data, &i1, &i1, a0.desc, a.data, &i1, &i1, a.desc);
      const double t = timed(run_potrf, &args);
      if (r >= 0) times[r] = t;
      if (args.info != 0 && info == 0) info = args.info;
    }
    const double residual = info == 0 ? potrf_residual(&g, n, nb, &a0, &a, seed) : NAN;
    all_pass &= report(rank, "pdpotrf", n, nb, &g, reps, times, (double)n * n * n / 3.0, info, residual);
    free(a0.data);
    free(a.data);
  }

  if (strstr(routines, "gemm")) {
    Dist a = dist_new(&g, n, n, nb), b = dist_new(&g, n, n, nb), c0 = dist_new(&g, n, n, nb),
         c = dist_new(&g, n, n, nb);
    fill(&g, &a, n, nb, seed + 1, 'g');
    fill(&g, &b, n, nb, seed + 2, 'g');
    fill(&g, &c0, n, nb, seed + 3, 'g');
    GemmArgs args = {n, &a, &b, &c};
    for (int r = -1; r < reps; ++r) {
      pdlacpy_("A", &n, &n, c0.data, &i1, &i1, c0.desc, c.data, &i1, &i1, c.desc);
      const double t = timed(run_gemm, &args);
      if (r >= 0) times[r] = t;
    }
    const double residual = gemm_residual(&g, n, nb, &a, &b, &c0, &c, seed);
    all_pass &= report(rank, "pdgemm", n, nb, &g, reps, times, 2.0 * n * n * (double)n, 0, residual);
    free(a.data);
    free(b.data);
    free(c0.data);
    free(c.data);
  }

  free(times);
  Cblacs_gridexit(g.ctxt);
  MPI_Finalize();
  return all_pass ? 0 : 1;
}
