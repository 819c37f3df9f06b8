/*
 * hqr.h — the routines libhqr exports, for C and C++ callers.
 *
 * Every LAPACK routine is declared in the Fortran calling convention: all
 * arguments by reference, column-major arrays, and one hidden `size_t` length
 * per CHARACTER argument at the end of the list. The declarations match
 * LAPACKE's <lapack.h> (LAPACK 3.11, LAPACK_FORTRAN_STRLEN_END) type for type,
 * so both headers can be included in one translation unit.
 *
 * Integers are `lapack_int`: 32-bit for libhqr.so, 64-bit for libhqr64.so
 * (define HQR_ILP64 or LAPACK_ILP64 before including this header).
 *
 * ABI.md documents each routine's arguments, INFO values and promises.
 */
#ifndef HQR_H
#define HQR_H

#include <stddef.h>
#include <stdint.h>

/* The same guarded definitions as <lapack.h>, so that the two agree. */
#ifndef lapack_int
#if defined(HQR_ILP64) || defined(LAPACK_ILP64)
#define lapack_int int64_t
#else
#define lapack_int int32_t
#endif
#endif
#if defined(HQR_ILP64) || defined(LAPACK_ILP64)
/* An earlier header (<lapack.h> without LAPACK_ILP64, say) may have made
 * lapack_int 32-bit: stop here rather than call libhqr64.so with it. */
typedef char hqr_ilp64_needs_a_64_bit_lapack_int[sizeof(lapack_int) == 8 ? 1 : -1];
#endif

#ifndef lapack_complex_float
#ifndef __cplusplus
#include <complex.h>
#else
#include <complex>
#endif
#define lapack_complex_float float _Complex
#endif

#ifndef lapack_complex_double
#ifndef __cplusplus
#include <complex.h>
#else
#include <complex>
#endif
#define lapack_complex_double double _Complex
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Cholesky factorization: A = U**H*U or L*L**H ---------------------- */
void spotrf_(char const *uplo, lapack_int const *n, float *a, lapack_int const *lda, lapack_int *info, size_t);
void dpotrf_(char const *uplo, lapack_int const *n, double *a, lapack_int const *lda, lapack_int *info, size_t);
void cpotrf_(char const *uplo, lapack_int const *n, lapack_complex_float *a, lapack_int const *lda, lapack_int *info, size_t);
void zpotrf_(char const *uplo, lapack_int const *n, lapack_complex_double *a, lapack_int const *lda, lapack_int *info, size_t);
/* hqr's own: xPOTRF, then LOGDET = log(det(A)) = 2 sum log(real(diag(factor))) when INFO = 0
 * (REAL for s/c, DOUBLE PRECISION for d/z); LOGDET is not referenced when INFO > 0 (ABI.md). */
void spologdet_(char const *uplo, lapack_int const *n, float *a, lapack_int const *lda, float *logdet, lapack_int *info, size_t);
void dpologdet_(char const *uplo, lapack_int const *n, double *a, lapack_int const *lda, double *logdet, lapack_int *info, size_t);
void cpologdet_(char const *uplo, lapack_int const *n, lapack_complex_float *a, lapack_int const *lda, float *logdet, lapack_int *info, size_t);
void zpologdet_(char const *uplo, lapack_int const *n, lapack_complex_double *a, lapack_int const *lda, double *logdet, lapack_int *info, size_t);

/* ---- Inverse from the Cholesky factor ---------------------------------- */
void spotri_(char const *uplo, lapack_int const *n, float *a, lapack_int const *lda, lapack_int *info, size_t);
void dpotri_(char const *uplo, lapack_int const *n, double *a, lapack_int const *lda, lapack_int *info, size_t);
void cpotri_(char const *uplo, lapack_int const *n, lapack_complex_float *a, lapack_int const *lda, lapack_int *info, size_t);
void zpotri_(char const *uplo, lapack_int const *n, lapack_complex_double *a, lapack_int const *lda, lapack_int *info, size_t);

/* ---- Triangular inverse ------------------------------------------------- */
void strtri_(char const *uplo, char const *diag, lapack_int const *n, float *a, lapack_int const *lda, lapack_int *info, size_t, size_t);
void dtrtri_(char const *uplo, char const *diag, lapack_int const *n, double *a, lapack_int const *lda, lapack_int *info, size_t, size_t);
void ctrtri_(char const *uplo, char const *diag, lapack_int const *n, lapack_complex_float *a, lapack_int const *lda, lapack_int *info, size_t, size_t);
void ztrtri_(char const *uplo, char const *diag, lapack_int const *n, lapack_complex_double *a, lapack_int const *lda, lapack_int *info, size_t, size_t);

/* ---- U*U**H or L**H*L of a triangle ------------------------------------ */
void slauum_(char const *uplo, lapack_int const *n, float *a, lapack_int const *lda, lapack_int *info, size_t);
void dlauum_(char const *uplo, lapack_int const *n, double *a, lapack_int const *lda, lapack_int *info, size_t);
void clauum_(char const *uplo, lapack_int const *n, lapack_complex_float *a, lapack_int const *lda, lapack_int *info, size_t);
void zlauum_(char const *uplo, lapack_int const *n, lapack_complex_double *a, lapack_int const *lda, lapack_int *info, size_t);

/* ---- Solve with the Cholesky factor ------------------------------------ */
void spotrs_(char const *uplo, lapack_int const *n, lapack_int const *nrhs, float const *a, lapack_int const *lda, float *b, lapack_int const *ldb, lapack_int *info, size_t);
void dpotrs_(char const *uplo, lapack_int const *n, lapack_int const *nrhs, double const *a, lapack_int const *lda, double *b, lapack_int const *ldb, lapack_int *info, size_t);
void cpotrs_(char const *uplo, lapack_int const *n, lapack_int const *nrhs, lapack_complex_float const *a, lapack_int const *lda, lapack_complex_float *b, lapack_int const *ldb, lapack_int *info, size_t);
void zpotrs_(char const *uplo, lapack_int const *n, lapack_int const *nrhs, lapack_complex_double const *a, lapack_int const *lda, lapack_complex_double *b, lapack_int const *ldb, lapack_int *info, size_t);

/* ---- Factor and solve A*X = B, A Hermitian positive definite ------------ */
void sposv_(char const *uplo, lapack_int const *n, lapack_int const *nrhs, float *a, lapack_int const *lda, float *b, lapack_int const *ldb, lapack_int *info, size_t);
void dposv_(char const *uplo, lapack_int const *n, lapack_int const *nrhs, double *a, lapack_int const *lda, double *b, lapack_int const *ldb, lapack_int *info, size_t);
void cposv_(char const *uplo, lapack_int const *n, lapack_int const *nrhs, lapack_complex_float *a, lapack_int const *lda, lapack_complex_float *b, lapack_int const *ldb, lapack_int *info, size_t);
void zposv_(char const *uplo, lapack_int const *n, lapack_int const *nrhs, lapack_complex_double *a, lapack_int const *lda, lapack_complex_double *b, lapack_int const *ldb, lapack_int *info, size_t);

/* ---- QR factorization (compact V + tau, as LAPACK) ---------------------- */
void sgeqrf_(lapack_int const *m, lapack_int const *n, float *a, lapack_int const *lda, float *tau, float *work, lapack_int const *lwork, lapack_int *info);
void dgeqrf_(lapack_int const *m, lapack_int const *n, double *a, lapack_int const *lda, double *tau, double *work, lapack_int const *lwork, lapack_int *info);
void cgeqrf_(lapack_int const *m, lapack_int const *n, lapack_complex_float *a, lapack_int const *lda, lapack_complex_float *tau, lapack_complex_float *work, lapack_int const *lwork, lapack_int *info);
void zgeqrf_(lapack_int const *m, lapack_int const *n, lapack_complex_double *a, lapack_int const *lda, lapack_complex_double *tau, lapack_complex_double *work, lapack_int const *lwork, lapack_int *info);

/* ---- Multiply by Q from geqrf ------------------------------------------ */
void sormqr_(char const *side, char const *trans, lapack_int const *m, lapack_int const *n, lapack_int const *k, float const *a, lapack_int const *lda, float const *tau, float *c, lapack_int const *ldc, float *work, lapack_int const *lwork, lapack_int *info, size_t, size_t);
void dormqr_(char const *side, char const *trans, lapack_int const *m, lapack_int const *n, lapack_int const *k, double const *a, lapack_int const *lda, double const *tau, double *c, lapack_int const *ldc, double *work, lapack_int const *lwork, lapack_int *info, size_t, size_t);
void cunmqr_(char const *side, char const *trans, lapack_int const *m, lapack_int const *n, lapack_int const *k, lapack_complex_float const *a, lapack_int const *lda, lapack_complex_float const *tau, lapack_complex_float *c, lapack_int const *ldc, lapack_complex_float *work, lapack_int const *lwork, lapack_int *info, size_t, size_t);
void zunmqr_(char const *side, char const *trans, lapack_int const *m, lapack_int const *n, lapack_int const *k, lapack_complex_double const *a, lapack_int const *lda, lapack_complex_double const *tau, lapack_complex_double *c, lapack_int const *ldc, lapack_complex_double *work, lapack_int const *lwork, lapack_int *info, size_t, size_t);

/* ---- Form Q from geqrf ------------------------------------------------- */
void sorgqr_(lapack_int const *m, lapack_int const *n, lapack_int const *k, float *a, lapack_int const *lda, float const *tau, float *work, lapack_int const *lwork, lapack_int *info);
void dorgqr_(lapack_int const *m, lapack_int const *n, lapack_int const *k, double *a, lapack_int const *lda, double const *tau, double *work, lapack_int const *lwork, lapack_int *info);
void cungqr_(lapack_int const *m, lapack_int const *n, lapack_int const *k, lapack_complex_float *a, lapack_int const *lda, lapack_complex_float const *tau, lapack_complex_float *work, lapack_int const *lwork, lapack_int *info);
void zungqr_(lapack_int const *m, lapack_int const *n, lapack_int const *k, lapack_complex_double *a, lapack_int const *lda, lapack_complex_double const *tau, lapack_complex_double *work, lapack_int const *lwork, lapack_int *info);

/* ---- Least squares / minimum norm through QR or LQ ---------------------- */
void sgels_(char const *trans, lapack_int const *m, lapack_int const *n, lapack_int const *nrhs, float *a, lapack_int const *lda, float *b, lapack_int const *ldb, float *work, lapack_int const *lwork, lapack_int *info, size_t);
void dgels_(char const *trans, lapack_int const *m, lapack_int const *n, lapack_int const *nrhs, double *a, lapack_int const *lda, double *b, lapack_int const *ldb, double *work, lapack_int const *lwork, lapack_int *info, size_t);
void cgels_(char const *trans, lapack_int const *m, lapack_int const *n, lapack_int const *nrhs, lapack_complex_float *a, lapack_int const *lda, lapack_complex_float *b, lapack_int const *ldb, lapack_complex_float *work, lapack_int const *lwork, lapack_int *info, size_t);
void zgels_(char const *trans, lapack_int const *m, lapack_int const *n, lapack_int const *nrhs, lapack_complex_double *a, lapack_int const *lda, lapack_complex_double *b, lapack_int const *ldb, lapack_complex_double *work, lapack_int const *lwork, lapack_int *info, size_t);

/* ---- Minimum-norm least squares through the SVD (numpy's and SciPy's lstsq) */
void sgelsd_(lapack_int const *m, lapack_int const *n, lapack_int const *nrhs, float *a, lapack_int const *lda, float *b, lapack_int const *ldb, float *s, float const *rcond, lapack_int *rank, float *work, lapack_int const *lwork, lapack_int *iwork, lapack_int *info);
void dgelsd_(lapack_int const *m, lapack_int const *n, lapack_int const *nrhs, double *a, lapack_int const *lda, double *b, lapack_int const *ldb, double *s, double const *rcond, lapack_int *rank, double *work, lapack_int const *lwork, lapack_int *iwork, lapack_int *info);
void cgelsd_(lapack_int const *m, lapack_int const *n, lapack_int const *nrhs, lapack_complex_float *a, lapack_int const *lda, lapack_complex_float *b, lapack_int const *ldb, float *s, float const *rcond, lapack_int *rank, lapack_complex_float *work, lapack_int const *lwork, float *rwork, lapack_int *iwork, lapack_int *info);
void zgelsd_(lapack_int const *m, lapack_int const *n, lapack_int const *nrhs, lapack_complex_double *a, lapack_int const *lda, lapack_complex_double *b, lapack_int const *ldb, double *s, double const *rcond, lapack_int *rank, lapack_complex_double *work, lapack_int const *lwork, double *rwork, lapack_int *iwork, lapack_int *info);

/* ---- QR updating (hqr's own; ABI fixed, see ABI.md) --------------------- *
 * A = Q*R, Q M-by-M orthogonal (unitary for c, z), R M-by-N upper          *
 * trapezoidal; J is 1-based.                                                */
void sqrupd_addcols_(lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, float *q, lapack_int const *ldq, float *r, lapack_int const *ldr, float *u, lapack_int const *ldu, float *work, lapack_int const *lwork, lapack_int *info);
void dqrupd_addcols_(lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, double *q, lapack_int const *ldq, double *r, lapack_int const *ldr, double *u, lapack_int const *ldu, double *work, lapack_int const *lwork, lapack_int *info);
void sqrupd_delcols_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, float *q, lapack_int const *ldq, float *r, lapack_int const *ldr, float *work, lapack_int const *lwork, lapack_int *info, size_t);
void dqrupd_delcols_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, double *q, lapack_int const *ldq, double *r, lapack_int const *ldr, double *work, lapack_int const *lwork, lapack_int *info, size_t);
void sqrupd_addrows_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, float *q, lapack_int const *ldq, float *r, lapack_int const *ldr, float *u, lapack_int const *ldu, float *work, lapack_int const *lwork, lapack_int *info, size_t);
void dqrupd_addrows_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, double *q, lapack_int const *ldq, double *r, lapack_int const *ldr, double *u, lapack_int const *ldu, double *work, lapack_int const *lwork, lapack_int *info, size_t);
void sqrupd_delrows_(lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, float *q, lapack_int const *ldq, float *r, lapack_int const *ldr, float *work, lapack_int const *lwork, lapack_int *info);
void dqrupd_delrows_(lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, double *q, lapack_int const *ldq, double *r, lapack_int const *ldr, double *work, lapack_int const *lwork, lapack_int *info);
void cqrupd_addcols_(lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_float *q, lapack_int const *ldq, lapack_complex_float *r, lapack_int const *ldr, lapack_complex_float *u, lapack_int const *ldu, lapack_complex_float *work, lapack_int const *lwork, lapack_int *info);
void cqrupd_delcols_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_float *q, lapack_int const *ldq, lapack_complex_float *r, lapack_int const *ldr, lapack_complex_float *work, lapack_int const *lwork, lapack_int *info, size_t);
void cqrupd_addrows_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_float *q, lapack_int const *ldq, lapack_complex_float *r, lapack_int const *ldr, lapack_complex_float *u, lapack_int const *ldu, lapack_complex_float *work, lapack_int const *lwork, lapack_int *info, size_t);
void cqrupd_delrows_(lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_float *q, lapack_int const *ldq, lapack_complex_float *r, lapack_int const *ldr, lapack_complex_float *work, lapack_int const *lwork, lapack_int *info);
void zqrupd_addcols_(lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_double *q, lapack_int const *ldq, lapack_complex_double *r, lapack_int const *ldr, lapack_complex_double *u, lapack_int const *ldu, lapack_complex_double *work, lapack_int const *lwork, lapack_int *info);
void zqrupd_delcols_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_double *q, lapack_int const *ldq, lapack_complex_double *r, lapack_int const *ldr, lapack_complex_double *work, lapack_int const *lwork, lapack_int *info, size_t);
void zqrupd_addrows_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_double *q, lapack_int const *ldq, lapack_complex_double *r, lapack_int const *ldr, lapack_complex_double *u, lapack_int const *ldu, lapack_complex_double *work, lapack_int const *lwork, lapack_int *info, size_t);
void zqrupd_delrows_(lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_double *q, lapack_int const *ldq, lapack_complex_double *r, lapack_int const *ldr, lapack_complex_double *work, lapack_int const *lwork, lapack_int *info);

/* ---- QR updating, economy form (hqr's own; ABI.md section 5.7) ---------- *
 * A = Q*R, Q M-by-N with orthonormal columns, R N-by-N upper triangular,   *
 * M >= N; J is 1-based. Deleting rows needs the full Q (xqrupd_delrows_).  */
void sqrupd_addcols_econ_(lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, float *q, lapack_int const *ldq, float *r, lapack_int const *ldr, float *u, lapack_int const *ldu, float *work, lapack_int const *lwork, lapack_int *info);
void dqrupd_addcols_econ_(lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, double *q, lapack_int const *ldq, double *r, lapack_int const *ldr, double *u, lapack_int const *ldu, double *work, lapack_int const *lwork, lapack_int *info);
void cqrupd_addcols_econ_(lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_float *q, lapack_int const *ldq, lapack_complex_float *r, lapack_int const *ldr, lapack_complex_float *u, lapack_int const *ldu, lapack_complex_float *work, lapack_int const *lwork, lapack_int *info);
void zqrupd_addcols_econ_(lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_double *q, lapack_int const *ldq, lapack_complex_double *r, lapack_int const *ldr, lapack_complex_double *u, lapack_int const *ldu, lapack_complex_double *work, lapack_int const *lwork, lapack_int *info);
void sqrupd_delcols_econ_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, float *q, lapack_int const *ldq, float *r, lapack_int const *ldr, float *work, lapack_int const *lwork, lapack_int *info, size_t);
void dqrupd_delcols_econ_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, double *q, lapack_int const *ldq, double *r, lapack_int const *ldr, double *work, lapack_int const *lwork, lapack_int *info, size_t);
void cqrupd_delcols_econ_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_float *q, lapack_int const *ldq, lapack_complex_float *r, lapack_int const *ldr, lapack_complex_float *work, lapack_int const *lwork, lapack_int *info, size_t);
void zqrupd_delcols_econ_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_double *q, lapack_int const *ldq, lapack_complex_double *r, lapack_int const *ldr, lapack_complex_double *work, lapack_int const *lwork, lapack_int *info, size_t);
void sqrupd_addrows_econ_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, float *q, lapack_int const *ldq, float *r, lapack_int const *ldr, float *u, lapack_int const *ldu, float *work, lapack_int const *lwork, lapack_int *info, size_t);
void dqrupd_addrows_econ_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, double *q, lapack_int const *ldq, double *r, lapack_int const *ldr, double *u, lapack_int const *ldu, double *work, lapack_int const *lwork, lapack_int *info, size_t);
void cqrupd_addrows_econ_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_float *q, lapack_int const *ldq, lapack_complex_float *r, lapack_int const *ldr, lapack_complex_float *u, lapack_int const *ldu, lapack_complex_float *work, lapack_int const *lwork, lapack_int *info, size_t);
void zqrupd_addrows_econ_(char const *jobq, lapack_int const *m, lapack_int const *n, lapack_int const *p, lapack_int const *j, lapack_complex_double *q, lapack_int const *ldq, lapack_complex_double *r, lapack_int const *ldr, lapack_complex_double *u, lapack_int const *ldu, lapack_complex_double *work, lapack_int const *lwork, lapack_int *info, size_t);

/* ---- hqr's runtime API -------------------------------------------------- *
 * Programmatic equivalents of the environment settings (ABI.md). Each setter
 * takes effect for calls that start after it returns.                       */

/* "MAJOR.MINOR.PATCH" */
const char *hqr_version(void);
/* Ordinal of the first GPU that serves calls, or -1 when every call runs on
 * the CPU (no GPU, no driver, HQR_DEVICE=none, or a build without CUDA). */
int hqr_device(void);
/* How many GPUs serve calls (HQR_DEVICE less those this process cannot see);
 * 0 when the CPU serves every call. */
int hqr_device_count(void);
/* Human-readable name of that device ("none" when hqr_device() is -1). */
const char *hqr_device_name(void);
/* HQR_DEVICE: one ordinal, or -1 for none. */
void hqr_set_device(int ordinal);
/* HQR_DEVICE as text: "all", "none", an ordinal, a list ("0,2,3") or
 * "local-rank" (under MPI, the GPU of the node-local rank, read now).
 * Returns 0, or -1 (the setting unchanged) for any other text. */
int hqr_set_devices(const char *list);
/* Path counters since the process started: calls that ran wholly on the CPU
 * ('c'), ran a GPU path to the end ('g'), or started on a GPU and were
 * finished by the CPU ('r'); -1 for any other letter. */
long hqr_path_calls(char path);
/* Calls in which GPU `ordinal` did work. */
long hqr_device_calls(int ordinal);
/* HQR_GPU_MIN_N: problems at least this large go to the GPU; 0 sends every
 * size there; a negative value restores the calibrated crossover. */
void hqr_set_gpu_min_n(long n);
/* HQR_VERBOSE: 1 prints one line per call to stderr, 0 is silent. */
void hqr_set_verbose(int on);
/* HQR_NB: block size of the hybrid paths; 0 restores the default. */
void hqr_set_nb(int nb);
/* HQR_CPU_THREADS: threads of hqr's own CPU passes (the economy QR updates);
 * 0 restores the default, every core. */
void hqr_set_cpu_threads(int n);
/* Measures, on the GPU that serves calls, the order from which each routine
 * with a GPU path (xPOTRF, xTRTRI, xLAUUM, xPOTRI, xGEQRF and the QR family)
 * runs faster there than on the CPU, s/d/c/z, and caches it for every later
 * process on this GPU, host and settings (ABI.md, "The crossover"); takes
 * seconds to a minute. The program hqr-calibrate calls it. Returns 0; -1
 * when no GPU serves calls (nothing measured); -2 when the cache file could
 * not be written (neither XDG_CACHE_HOME nor HOME set, or not writable):
 * the values serve this process only. */
int hqr_calibrate(void);

#ifdef __cplusplus
}
#endif

#endif /* HQR_H */
