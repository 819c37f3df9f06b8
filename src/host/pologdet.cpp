// xPOLOGDET (hqr's own): XPOLOGDET(UPLO, N, A, LDA, LOGDET, INFO), the
// Cholesky factorization of A exactly as xPOTRF (the same INFO, A
// overwritten by the factor) and, when INFO = 0,
//   LOGDET = log(det(A)) = 2 * sum_j log(real(factor(j,j))),
// REAL for s and c, DOUBLE PRECISION for d and z; on INFO > 0 LOGDET is not
// referenced. N = 0: LOGDET = 0 (the empty determinant is 1).
// Contract: uplo 'U'/'L' (arg 1); n >= 0 (2); lda >= max(1,n) (4); XERBLA
// gets 'SPOLOGDET' ... 'ZPOLOGDET'.
// The factorization is xPOTRF's own path (the GPU where it pays; its
// HQR_VERBOSE line is the potrf's). The logarithms are summed in double,
// one per diagonal element, so nothing over- or underflows for any SPD A
// (a diagonal from 1e-300 to 1e300 included). Where a GPU path factors A,
// it sums them as it goes: the device right behind each diagonal block's
// factorization (one double per block comes back at the end), or the host
// in the hybrid's CPU-panel mode as it factors the block; the host reads
// the factor's diagonal again only after a CPU path (or a GPU path the
// CPU finished).
#include <cmath>

#include "common.hpp"
#include "flops.hpp"
#include "trace.hpp"

namespace hqr {

template <class T>
bool potrf_summing(const char *uplo, const lint *n, T *a, const lint *lda, lint *info, double *log_det);  // potrf.cpp

template <class T>
void pologdet(const char *uplo, const lint *n, T *a, const lint *lda, typename Prec<T>::real *logdet, lint *info) {
  *info = check_uplo_n_lda(uplo, *n, *lda);
  if (*info != 0) {
    report_illegal(routine_name<T>("POLOGDET"), -*info);
    return;
  }
  if (*n == 0) {
    *logdet = 0;
    return;
  }
  // Its own HQR_VERBOSE line after the potrf's, and the call counted once,
  // as a GPU path where the GPU path summed the logarithms.
  Trace trace(routine_name<T>("POLOGDET"), flops::potrf<T>(*n));
  trace.args("uplo=%c n=%ld lda=%ld", *uplo, long(*n), long(*lda));
  double sum = 0;
  const bool summed = potrf_summing(uplo, n, a, lda, info, &sum);
  if (summed) trace.path("gpu", "log-determinant summed as the diagonal blocks were factored");
  if (*info != 0) {
    if (!summed) trace.path("cpu", "not positive definite");
    return;
  }
  if (!summed) {
    trace.path("cpu", "log-determinant from the factor's diagonal");
    for (lint j = 0; j < *n; ++j) sum += std::log(double(std::real(a[j + std::size_t(j) * *lda])));
  }
  *logdet = typename Prec<T>::real(2 * sum);
}

}  // namespace hqr

extern "C" {
void spologdet_(const char *uplo, const lapack_int *n, float *a, const lapack_int *lda, float *logdet,
                lapack_int *info, size_t) {
  hqr::pologdet(uplo, n, hqr::cx(a), lda, logdet, info);
}
void dpologdet_(const char *uplo, const lapack_int *n, double *a, const lapack_int *lda, double *logdet,
                lapack_int *info, size_t) {
  hqr::pologdet(uplo, n, hqr::cx(a), lda, logdet, info);
}
void cpologdet_(const char *uplo, const lapack_int *n, lapack_complex_float *a, const lapack_int *lda, float *logdet,
                lapack_int *info, size_t) {
  hqr::pologdet(uplo, n, hqr::cx(a), lda, logdet, info);
}
void zpologdet_(const char *uplo, const lapack_int *n, lapack_complex_double *a, const lapack_int *lda,
                double *logdet, lapack_int *info, size_t) {
  hqr::pologdet(uplo, n, hqr::cx(a), lda, logdet, info);
}
}
