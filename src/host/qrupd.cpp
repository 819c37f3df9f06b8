// xQRUPD_ADDCOLS, xQRUPD_DELCOLS, xQRUPD_ADDROWS, xQRUPD_DELROWS (s, d):
// updating a full QR factorization A = Q*R after columns or rows of A are
// added or deleted, without refactoring. The ABI is fixed (shared/SPEC.md,
// "QR-updating ABI"); the algorithms are in src/cpu/qrupd.cpp.
//
// Common to all four:
//   A = Q*R is M-by-N; Q is M-by-M orthogonal (the full Q), R is M-by-N upper
//   trapezoidal. On exit Q and R are the factors of the updated matrix Ã.
//   R's strictly lower trapezoid is not referenced on entry in the columns
//   the update rewrites (all columns for the row updates, columns >= J for
//   the column updates) and is exactly zero there on exit; R's other
//   elements below the diagonal are neither read nor written. The signs of
//   R's diagonal are not unique.
//   WORK (workspace/output) array, dimension (max(1,LWORK)): on exit WORK(1)
//   is the optimal LWORK. LWORK = -1 is a workspace query: only WORK(1) is
//   set, and no error is reported for LWORK. A LWORK below the minimum (and
//   not -1) is an illegal argument. Any LWORK >= the minimum works; the
//   optimal one allows the largest block size.
//   INFO = 0: success; INFO = -i: argument i had an illegal value, reported
//   through XERBLA ('DQRUPD_ADDCOLS', ...). No numerical failure is possible
//   (INFO > 0 is never returned); NaN/Inf in the input propagate.
//   Arguments are checked in order; the first illegal one is reported and
//   nothing is written. P = 0 is a quick return that changes nothing.
//
// XQRUPD_ADDCOLS( M, N, P, J, Q, LDQ, R, LDR, U, LDU, WORK, LWORK, INFO )
//   Ã = [A(:,1:J-1) U A(:,J:N)]: insert the P columns of U before column J.
//   M     (in) >= 0.                                            (arg 1)
//   N     (in) >= 0, the number of columns of A.                (arg 2)
//   P     (in) >= 0, the number of columns inserted.            (arg 3)
//   J     (in) 1 <= J <= N+1.                                   (arg 4)
//   Q     (in/out) LDQ-by-M: Q on entry, the new Q on exit.     (arg 5)
//   LDQ   (in) >= max(1,M).                                     (arg 6)
//   R     (in/out) LDR-by-(N+P): R in R(1:M,1:N) on entry, the new
//         M-by-(N+P) R on exit.                                 (arg 7)
//   LDR   (in) >= max(1,M).                                     (arg 8)
//   U     (in/out) LDU-by-P: the columns to insert; destroyed.  (arg 9)
//   LDU   (in) >= max(1,M).                                     (arg 10)
//   LWORK (in) >= 2*P + 2*max(1,min(M,N)) when P > 0, >= 1 when P = 0;
//         optimal 2*P + 2*NB*max(1,min(M,N)), NB = min(P,32).  (arg 12)
//   Method: W = Q^T*U (gemm) becomes columns J..J+P-1 of R; a Householder QR
//   of W's rows N+1..M is applied to Q(:,N+1:M); Givens passes reduce the
//   inserted block bottom-up, one row of fill per pass in the old columns.
//
// XQRUPD_DELCOLS( JOBQ, M, N, P, J, Q, LDQ, R, LDR, WORK, LWORK, INFO )
//   Ã = [A(:,1:J-1) A(:,J+P:N)]: delete columns J..J+P-1.
//   JOBQ  (in) 'U': Q is updated; 'N': Q is not referenced.    (arg 1)
//   M     (in) >= 0.                                            (arg 2)
//   N     (in) >= 0.                                            (arg 3)
//   P     (in) 0 <= P <= N.                                     (arg 4)
//   J     (in) 1 <= J <= N-P+1.                                 (arg 5)
//   Q     (in/out) LDQ-by-M, JOBQ = 'U' only.                   (arg 6)
//   LDQ   (in) >= max(1,M) if JOBQ = 'U', >= 1 otherwise.       (arg 7)
//   R     (in/out) LDR-by-N: on exit R(1:M,1:N-P) is the new R; columns
//         N-P+1..N are left as they are.                        (arg 8)
//   LDR   (in) >= max(1,M).                                     (arg 9)
//   LWORK (in) >= P+2 when P > 0, >= 1 when P = 0;
//         optimal NB*(P+2), NB <= 32.                           (arg 11)
//   Method: short Householder reflectors (length <= P+1), one per column
//   of R's band of P subdiagonals, applied in blocks of NB to R's trailing
//   columns and to Q's columns.
//
// XQRUPD_ADDROWS( JOBQ, M, N, P, J, Q, LDQ, R, LDR, U, LDU, WORK, LWORK, INFO )
//   Ã = [A(1:J-1,:); U; A(J:M,:)]: insert the P rows of U before row J.
//   JOBQ  (in) 'U': Q is updated; 'N': Q is not referenced.    (arg 1)
//   M     (in) >= 0.                                            (arg 2)
//   N     (in) >= 0.                                            (arg 3)
//   P     (in) >= 0, the number of rows inserted.               (arg 4)
//   J     (in) 1 <= J <= M+1.                                   (arg 5)
//   Q     (in/out) LDQ-by-(M+P), JOBQ = 'U' only: the M-by-M Q in
//         Q(1:M,1:M) on entry, the (M+P)-by-(M+P) Q on exit.    (arg 6)
//   LDQ   (in) >= max(1,M+P) if JOBQ = 'U', >= 1 otherwise.     (arg 7)
//   R     (in/out) LDR-by-N: R in R(1:M,1:N) on entry, the new (M+P)-by-N
//         R on exit.                                            (arg 8)
//   LDR   (in) >= max(1,M+P).                                   (arg 9)
//   U     (in/out) LDU-by-N: the rows to insert; destroyed.     (arg 10)
//   LDU   (in) >= max(1,P).                                     (arg 11)
//   LWORK (in) >= 2 + max(1,N) + (M+P if JOBQ = 'U') when P > 0, >= 1 when
//         P = 0; optimal NB*(1 + NB + max(1,N) + (M+P if JOBQ = 'U')),
//         NB = min(max(1,min(M,N)),32).                         (arg 13)
//   Method: [R; U] reduced column by column with reflectors that touch one
//   row of R and the P rows of U, blocked in compact WY form (gemm/trmm);
//   when M < N a Householder QR of U's remaining columns gives R's last P
//   rows. Q = P_J*[Q 0; 0 I]*H with P_J the row permutation.
//
// XQRUPD_DELROWS( M, N, P, J, Q, LDQ, R, LDR, WORK, LWORK, INFO )
//   Ã = [A(1:J-1,:); A(J+P:M,:)]: delete rows J..J+P-1.
//   M     (in) >= 0.                                            (arg 1)
//   N     (in) >= 0.                                            (arg 2)
//   P     (in) 0 <= P <= M.                                     (arg 3)
//   J     (in) 1 <= J <= M-P+1.                                 (arg 4)
//   Q     (in/out) LDQ-by-M: Q on entry (required), the new Q in
//         Q(1:M-P,1:M-P) on exit.                               (arg 5)
//   LDQ   (in) >= max(1,M).                                     (arg 6)
//   R     (in/out) LDR-by-N: the new R in R(1:M-P,1:N) on exit. (arg 7)
//   LDR   (in) >= max(1,M).                                     (arg 8)
//   LWORK (in) >= 2*max(1,M) when P > 0, >= 1 when P = 0;
//         optimal 2*NB*max(1,M), NB = min(P,32).                (arg 10)
//   Method: P Givens passes from the right on Q's columns turn the deleted
//   rows of Q into [+-I 0] and give R P subdiagonals; dropping the first P
//   rows of R and columns of Q leaves the factors of Ã.
#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/qrupd.hpp"
#include "dispatch.hpp"
#include "trace.hpp"

namespace hqr {
namespace {

constexpr lint nb_max = cpu::qrupd_nb;

lint clamp_nb(long useful) { return lint(std::max<long>(1, std::min<long>(nb_max, useful))); }

// LWORK check shared by the four routines: sets *info = -pos when too small.
void check_lwork(const lint *lwork, long lwmin, lint pos, lint *info) {
  if (*info == 0 && *lwork != -1 && *lwork < lwmin) *info = -pos;
}

// Operation counts (multiplications + additions) of the update algorithms,
// for HQR_VERBOSE's GFLOP/s.
double addcols_flops(double m, double n, double p, double j) {
  const double below = std::max(0.0, m - n), tail = n - j + 1;
  return 2 * m * m * p + 4 * m * below * p + p * tail * (6 * m + 3 * tail);
}
double delcols_flops(bool wantq, double m, double n, double p, double j) {
  const double cols = std::max(0.0, std::min(n - p, m - 1) - (j - 1));
  return 2 * (p + 1) * cols * (n - p - j + 1) + (wantq ? 4 * (p + 1) * m * cols : 0.0);
}
double addrows_flops(bool wantq, double m, double n, double p) {
  const double k = std::min(m, n);
  return 4 * p * (n * k - k * k / 2) + (wantq ? 4 * (m + p) * p * k : 0.0);
}
double delrows_flops(double m, double n, double p) { return p * (6 * m * m + 3 * m * n); }

// WORK(1) = lwork as a real, rounded up so that reading it back never gives
// less than lwork (LAPACK's xROUNDUP_LWORK).
template <class T> T lwork_value(long lwork) {
  T w = T(lwork);
  if (long(w) < lwork) w = std::nextafter(w, std::numeric_limits<T>::infinity());
  return w;
}

char jobq_char(const char *jobq) { return lsame(jobq, 'U') ? 'U' : 'N'; }

}  // namespace

template <class T>
void qrupd_addcols(const lint *m, const lint *n, const lint *p, const lint *j, T *q, const lint *ldq, T *r,
                   const lint *ldr, T *u, const lint *ldu, T *work, const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>("QRUPD_ADDCOLS");
  *info = 0;
  if (*m < 0)
    *info = -1;
  else if (*n < 0)
    *info = -2;
  else if (*p < 0)
    *info = -3;
  else if (*j < 1 || *j > *n + 1)
    *info = -4;
  else if (*ldq < max1(*m))
    *info = -6;
  else if (*ldr < max1(*m))
    *info = -8;
  else if (*ldu < max1(*m))
    *info = -10;
  long lwmin = 1, lwopt = 1;
  if (*info == 0 && *p > 0) {
    lwmin = cpu::qrupd_addcols_lwork(*m, *n, *p, 1);
    lwopt = cpu::qrupd_addcols_lwork(*m, *n, *p, clamp_nb(*p));
  }
  check_lwork(lwork, lwmin, 12, info);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  work[0] = lwork_value<T>(lwopt);
  if (*lwork == -1 || *p == 0 || *m == 0) return;

  Trace trace(name, addcols_flops(*m, *n, *p, *j));
  trace.args("m=%ld n=%ld p=%ld j=%ld", long(*m), long(*n), long(*p), long(*j));
  const Decision d = choose_path(std::max(*m, *n + *p));
  trace.path("cpu", d.why);
  cpu::qrupd_addcols(*m, *n, *p, *j - 1, q, *ldq, r, *ldr, u, *ldu, work, std::max<long>(*lwork, lwmin));
  work[0] = lwork_value<T>(lwopt);
}

template <class T>
void qrupd_delcols(const char *jobq, const lint *m, const lint *n, const lint *p, const lint *j, T *q,
                   const lint *ldq, T *r, const lint *ldr, T *work, const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>("QRUPD_DELCOLS");
  const bool wantq = lsame(jobq, 'U');
  *info = 0;
  if (!wantq && !lsame(jobq, 'N'))
    *info = -1;
  else if (*m < 0)
    *info = -2;
  else if (*n < 0)
    *info = -3;
  else if (*p < 0 || *p > *n)
    *info = -4;
  else if (*j < 1 || *j > *n - *p + 1)
    *info = -5;
  else if (*ldq < (wantq ? max1(*m) : 1))
    *info = -7;
  else if (*ldr < max1(*m))
    *info = -9;
  long lwmin = 1, lwopt = 1;
  if (*info == 0 && *p > 0) {
    const long cols = long(std::min(*n - *p, *m - 1)) - (*j - 1);  // reflectors needed
    lwmin = cpu::qrupd_delcols_lwork(*m, *n, *p, 1);
    lwopt = cpu::qrupd_delcols_lwork(*m, *n, *p, clamp_nb(cols));
  }
  check_lwork(lwork, lwmin, 11, info);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  work[0] = lwork_value<T>(lwopt);
  if (*lwork == -1 || *p == 0 || *m == 0) return;

  Trace trace(name, delcols_flops(wantq, *m, *n, *p, *j));
  trace.args("jobq=%c m=%ld n=%ld p=%ld j=%ld", jobq_char(jobq), long(*m), long(*n), long(*p), long(*j));
  const Decision d = choose_path(std::max(*m, *n));
  trace.path("cpu", d.why);
  cpu::qrupd_delcols(wantq, *m, *n, *p, *j - 1, q, *ldq, r, *ldr, work, std::max<long>(*lwork, lwmin));
  work[0] = lwork_value<T>(lwopt);
}

template <class T>
void qrupd_addrows(const char *jobq, const lint *m, const lint *n, const lint *p, const lint *j, T *q,
                   const lint *ldq, T *r, const lint *ldr, T *u, const lint *ldu, T *work, const lint *lwork,
                   lint *info) {
  const RoutineName name = routine_name<T>("QRUPD_ADDROWS");
  const bool wantq = lsame(jobq, 'U');
  *info = 0;
  if (!wantq && !lsame(jobq, 'N'))
    *info = -1;
  else if (*m < 0)
    *info = -2;
  else if (*n < 0)
    *info = -3;
  else if (*p < 0)
    *info = -4;
  else if (*j < 1 || *j > *m + 1)
    *info = -5;
  else if (*ldq < (wantq ? max1(*m + *p) : 1))
    *info = -7;
  else if (*ldr < max1(*m + *p))
    *info = -9;
  else if (*ldu < max1(*p))
    *info = -11;
  long lwmin = 1, lwopt = 1;
  if (*info == 0 && *p > 0) {
    lwmin = cpu::qrupd_addrows_lwork(wantq, *m, *n, *p, 1);
    lwopt = cpu::qrupd_addrows_lwork(wantq, *m, *n, *p, clamp_nb(std::min(*m, *n)));
  }
  check_lwork(lwork, lwmin, 13, info);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  work[0] = lwork_value<T>(lwopt);
  if (*lwork == -1 || *p == 0) return;

  Trace trace(name, addrows_flops(wantq, *m, *n, *p));
  trace.args("jobq=%c m=%ld n=%ld p=%ld j=%ld", jobq_char(jobq), long(*m), long(*n), long(*p), long(*j));
  const Decision d = choose_path(std::max(*m + *p, *n));
  trace.path("cpu", d.why);
  cpu::qrupd_addrows(wantq, *m, *n, *p, *j - 1, q, *ldq, r, *ldr, u, *ldu, work, std::max<long>(*lwork, lwmin));
  work[0] = lwork_value<T>(lwopt);
}

template <class T>
void qrupd_delrows(const lint *m, const lint *n, const lint *p, const lint *j, T *q, const lint *ldq, T *r,
                   const lint *ldr, T *work, const lint *lwork, lint *info) {
  const RoutineName name = routine_name<T>("QRUPD_DELROWS");
  *info = 0;
  if (*m < 0)
    *info = -1;
  else if (*n < 0)
    *info = -2;
  else if (*p < 0 || *p > *m)
    *info = -3;
  else if (*j < 1 || *j > *m - *p + 1)
    *info = -4;
  else if (*ldq < max1(*m))
    *info = -6;
  else if (*ldr < max1(*m))
    *info = -8;
  long lwmin = 1, lwopt = 1;
  if (*info == 0 && *p > 0) {
    lwmin = cpu::qrupd_delrows_lwork(*m, *n, *p, 1);
    lwopt = cpu::qrupd_delrows_lwork(*m, *n, *p, clamp_nb(*p));
  }
  check_lwork(lwork, lwmin, 10, info);
  if (*info != 0) {
    report_illegal(name, -*info);
    return;
  }
  work[0] = lwork_value<T>(lwopt);
  if (*lwork == -1 || *p == 0) return;

  Trace trace(name, delrows_flops(*m, *n, *p));
  trace.args("m=%ld n=%ld p=%ld j=%ld", long(*m), long(*n), long(*p), long(*j));
  const Decision d = choose_path(std::max(*m, *n));
  trace.path("cpu", d.why);
  cpu::qrupd_delrows(*m, *n, *p, *j - 1, q, *ldq, r, *ldr, work, std::max<long>(*lwork, lwmin));
  work[0] = lwork_value<T>(lwopt);
}

}  // namespace hqr

extern "C" {
void sqrupd_addcols_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j, float *q,
                     const lapack_int *ldq, float *r, const lapack_int *ldr, float *u, const lapack_int *ldu,
                     float *work, const lapack_int *lwork, lapack_int *info) {
  hqr::qrupd_addcols(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info);
}
void dqrupd_addcols_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j, double *q,
                     const lapack_int *ldq, double *r, const lapack_int *ldr, double *u, const lapack_int *ldu,
                     double *work, const lapack_int *lwork, lapack_int *info) {
  hqr::qrupd_addcols(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info);
}
void sqrupd_delcols_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                     const lapack_int *j, float *q, const lapack_int *ldq, float *r, const lapack_int *ldr,
                     float *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::qrupd_delcols(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info);
}
void dqrupd_delcols_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                     const lapack_int *j, double *q, const lapack_int *ldq, double *r, const lapack_int *ldr,
                     double *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::qrupd_delcols(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info);
}
void sqrupd_addrows_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                     const lapack_int *j, float *q, const lapack_int *ldq, float *r, const lapack_int *ldr, float *u,
                     const lapack_int *ldu, float *work, const lapack_int *lwork, lapack_int *info, size_t) {
  hqr::qrupd_addrows(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info);
}
void dqrupd_addrows_(const char *jobq, const lapack_int *m, const lapack_int *n, const lapack_int *p,
                     const lapack_int *j, double *q, const lapack_int *ldq, double *r, const lapack_int *ldr,
                     double *u, const lapack_int *ldu, double *work, const lapack_int *lwork, lapack_int *info,
                     size_t) {
  hqr::qrupd_addrows(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info);
}
void sqrupd_delrows_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j, float *q,
                     const lapack_int *ldq, float *r, const lapack_int *ldr, float *work, const lapack_int *lwork,
                     lapack_int *info) {
  hqr::qrupd_delrows(m, n, p, j, q, ldq, r, ldr, work, lwork, info);
}
void dqrupd_delrows_(const lapack_int *m, const lapack_int *n, const lapack_int *p, const lapack_int *j, double *q,
                     const lapack_int *ldq, double *r, const lapack_int *ldr, double *work, const lapack_int *lwork,
                     lapack_int *info) {
  hqr::qrupd_delrows(m, n, p, j, q, ldq, r, ldr, work, lwork, info);
}
}
