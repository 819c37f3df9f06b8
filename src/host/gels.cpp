// xGELS: least squares (m >= n) or minimum-norm (m < n) solution of
// op(A)*X = B for a full-rank m x n A, through its QR (or LQ) factorization;
// op = A for trans 'N', A**T for 'T' (real) and A**H for 'C' (complex).
// Contract (LAPACK 3.11.0):
//   trans 'N'/'T' for real, 'N'/'C' for complex (arg 1); m >= 0 (2); n >= 0 (3);
//   nrhs >= 0 (4); lda >= max(1,m) (6); ldb >= max(1,m,n) (8);
//   unless LWORK = -1: LWORK >= max(1, mn + max(mn,nrhs)), mn = min(m,n) (10).
// XERBLA gets LAPACK's 6-character name, 'DGELS ' (blank-padded).
// LWORK = -1: a query; the optimal LWORK is returned in WORK(1) (from the
// next LAPACK), nothing else is touched. An LWORK too small (arg 10) still
// returns the optimal LWORK in WORK(1) before XERBLA, as LAPACK does.
// min(m,n,nrhs) = 0: quick return, B(1:max(m,n),1:nrhs) is set to zero.
// On exit A holds the factorization, B the solution (and for m >= n with
// trans 'N', rows n+1:m the residual information), WORK(1) the optimal LWORK.
// info > 0: the info-th diagonal element of the triangular factor is exactly
// zero, A does not have full rank and no solution is computed.
#include "dispatch.hpp"
#include "flops.hpp"
#include "next_lapack.hpp"
#include "trace.hpp"

namespace hqr {

template <class T>
void gels(const char *trans, const lint *m, const lint *n, const lint *nrhs, T *a, const lint *lda, T *b,
          const lint *ldb, T *work, const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>("GELS ");  // as LAPACK passes it to XERBLA
  const bool query = *lwork == -1;
  const lint mn = *m < *n ? *m : *n;
  const lint mx = *m > *n ? *m : *n;
  *info = 0;
  if (!lsame(trans, 'N') && !lsame(trans, is_complex<T> ? 'C' : 'T'))
    *info = -1;
  else if (*m < 0)
    *info = -2;
  else if (*n < 0)
    *info = -3;
  else if (*nrhs < 0)
    *info = -4;
  else if (*lda < max1(*m))
    *info = -6;
  else if (*ldb < max1(mx))
    *info = -8;
  else if (*lwork < max1(mn + (mn > *nrhs ? mn : *nrhs)) && !query)
    *info = -10;
  if (*info != 0) {
    if (*info == -10) {  // LAPACK stores the optimal LWORK before reporting
      const lint q = -1;
      lint qinfo = 0;
      T opt{};
      next::gels(trans, m, n, nrhs, a, lda, b, ldb, &opt, &q, &qinfo);
      work[0] = opt;
    }
    report_illegal(name, -*info);
    return;
  }
  if (query || mn == 0 || *nrhs == 0) {  // the next LAPACK sets WORK(1) (and clears B)
    next::gels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info);
    return;
  }

  Trace trace(routine_name<T>("GELS"), flops::gels<T>(*m, *n, *nrhs));
  trace.args("trans=%c m=%ld n=%ld nrhs=%ld lda=%ld ldb=%ld lwork=%ld", *trans, long(*m), long(*n), long(*nrhs),
             long(*lda), long(*ldb), long(*lwork));
  const Decision d = choose_path(mx);
  trace.path("cpu", d.why);
  next::gels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info);
}

}  // namespace hqr

extern "C" {
void sgels_(const char *trans, const lapack_int *m, const lapack_int *n, const lapack_int *nrhs, float *a,
            const lapack_int *lda, float *b, const lapack_int *ldb, float *work, const lapack_int *lwork,
            lapack_int *info, size_t) {
  hqr::gels(trans, m, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(work), lwork, info);
}
void dgels_(const char *trans, const lapack_int *m, const lapack_int *n, const lapack_int *nrhs, double *a,
            const lapack_int *lda, double *b, const lapack_int *ldb, double *work, const lapack_int *lwork,
            lapack_int *info, size_t) {
  hqr::gels(trans, m, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(work), lwork, info);
}
void cgels_(const char *trans, const lapack_int *m, const lapack_int *n, const lapack_int *nrhs,
            lapack_complex_float *a, const lapack_int *lda, lapack_complex_float *b, const lapack_int *ldb,
            lapack_complex_float *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::gels(trans, m, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(work), lwork, info);
}
void zgels_(const char *trans, const lapack_int *m, const lapack_int *n, const lapack_int *nrhs,
            lapack_complex_double *a, const lapack_int *lda, lapack_complex_double *b, const lapack_int *ldb,
            lapack_complex_double *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::gels(trans, m, n, nrhs, hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(work), lwork, info);
}
}
