// xPOTRF: Cholesky factorization A = U**H*U (uplo 'U') or L*L**H ('L').
// Contract (LAPACK 3.11): uplo 'U'/'L' (arg 1); n >= 0 (2); lda >= max(1,n) (4).
// info > 0: the leading minor of that order is not positive definite; the
// factorization stopped there, as LAPACK leaves it.
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#include "calibrate.hpp"
#include "cpu/blas.hpp"
#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "flops.hpp"
#include "next_lapack.hpp"
#include "trace.hpp"

namespace hqr {

namespace {
// Reference LAPACK stops at the first NaN pivot (xPOTRF2 tests DISNAN);
// OpenBLAS does not, but a NaN pivot leaves a NaN on the factor's diagonal
// and the first one marks where LAPACK would have stopped.
template <class T> void cpu_potrf(const char *uplo, const lint *n, T *a, const lint *lda, lint *info) {
  next::potrf(uplo, n, a, lda, info);
  const lint last = *info > 0 ? *info - 1 : *n;
  for (lint j = 0; j < last; ++j)
    if (std::isnan(std::real(a[j + std::size_t(j) * *lda]))) {
      *info = j + 1;
      return;
    }
}

// The GPU stopped after the first k columns of L (rows of U) were final in
// the caller's array; the rest still holds the input, except that for upper
// the next `rows` rows of U may be final up to column `cols` - 1 (a panel
// stored in part, its diagonal block included): those rows are finished
// first (U12 = U11**-H (A12 - U01**H U02) for the columns not yet stored).
// Then left-looking from there: A22 -= L21*L21**H, then factor A22.
template <class T> void finish_on_cpu(bool upper, lint n, lint k, T *a, lint lda, lint *info, lint rows = 0,
                                      lint cols = 0) {
  if (upper && rows > 0) {
    const lint rest = n - cols;
    T *b = a + k + std::size_t(cols) * lda;
    if (rest > 0) {
      if (k > 0)
        blas::gemm<T>('C', 'N', rows, rest, k, T(-1), a + std::size_t(k) * lda, lda, a + std::size_t(cols) * lda, lda,
                      T(1), b, lda);
      blas::trsm<T>('L', 'U', 'C', 'N', rows, rest, T(1), a + k + std::size_t(k) * lda, lda, b, lda);
    }
    k += rows;
  }
  const lint m = n - k;
  T *a22 = a + k + std::size_t(k) * lda;
  if (upper)
    next::herk<T>("U", "C", &m, &k, -1, a + std::size_t(k) * lda, &lda, 1, a22, &lda);
  else
    next::herk<T>("L", "N", &m, &k, -1, a + k, &lda, 1, a22, &lda);
  cpu_potrf(upper ? "U" : "L", &m, a22, &lda, info);
  if (*info > 0) *info += k;
}
}  // namespace

// Dispatch's probe (calibrate.hpp): one factorization of a fresh random
// diagonally dominant Hermitian matrix of order n on `path`, timed.
template <class T> double potrf_probe(Path path, long n) {
  using R = typename Prec<T>::real;
  std::mt19937_64 gen{std::random_device{}()};
  std::uniform_real_distribution<R> u(-1, 1);
  std::vector<T> a(std::size_t(n) * n);
  for (lint j = 0; j < n; ++j) {
    a[j + std::size_t(j) * n] = T(R(n) + 1 + u(gen));
    for (lint i = j + 1; i < n; ++i) {
      if constexpr (is_complex<T>)
        a[i + std::size_t(j) * n] = T(u(gen), u(gen));
      else
        a[i + std::size_t(j) * n] = u(gen);
    }
  }
  const lint order = n;
  lint info = 0;
  const auto start = std::chrono::steady_clock::now();
  if (path == Path::gpu)
    gpu::potrf(false, order, a.data(), order);
  else
    cpu_potrf("L", &order, a.data(), &order, &info);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
template double potrf_probe<float>(Path, long);
template double potrf_probe<double>(Path, long);
template double potrf_probe<std::complex<float>>(Path, long);
template double potrf_probe<std::complex<double>>(Path, long);

// xPOTRF; with log_det (xPOLOGDET), true where the GPU path summed
// log(real(L(i,i))) into *log_det as it factored the diagonal blocks
// (false: the caller sums the factor's diagonal).
template <class T>
bool potrf_summing(const char *uplo, const lint *n, T *a, const lint *lda, lint *info, double *log_det) {
  const RoutineName name = routine_name<T>("POTRF");
  *info = check_uplo_n_lda(uplo, *n, *lda);
  if (*info != 0) {
    report_illegal(name, -*info);
    return false;
  }
  if (*n == 0) return false;

  Trace trace(name, flops::potrf<T>(*n));
  trace.args("uplo=%c n=%ld lda=%ld", *uplo, long(*n), long(*lda));
  const bool upper = lsame(uplo, 'U');
  // The crossover, measured on the lower triangle, serves both: the GPU
  // path runs either as the lower one (H200, n = 256: L 0.19-0.20 ms, U
  // 0.18-0.20; OpenBLAS's upper potrf 0.29-0.34, its lower 0.46-0.53;
  // bench/results/history/potrf-tuning-NVIDIA-H200-2026-11-26.txt).
  const Decision d = choose_path(Routine::potrf, Prec<T>::letter, *n, potrf_probe<T>, a, span_bytes<T>(*n, *n, *lda));
  if (d.path == Path::gpu) {
    const gpu::Result r = gpu::potrf(upper, *n, a, *lda, log_det != nullptr);
    trace.devices(r.devices);
    if (r.ran) {
      trace.path(r.path ? r.path : "gpu-hybrid", r.why);  // why: "pinned caller" or none
      *info = r.info;
      if (r.has_log_det) *log_det = r.log_det;
      return r.has_log_det;
    }
    trace.path(r.resume > 0 || r.partial_rows > 0 ? "cpu-resumed" : "cpu", r.why);
    if (r.resume > 0 || r.partial_rows > 0) {
      finish_on_cpu(upper, *n, r.resume, a, *lda, info, r.partial_rows, r.partial_cols);
      return false;
    }
  } else {
    trace.path("cpu", d.why);
  }
  cpu_potrf(uplo, n, a, lda, info);
  return false;
}

template <class T> void potrf(const char *uplo, const lint *n, T *a, const lint *lda, lint *info) {
  potrf_summing(uplo, n, a, lda, info, nullptr);
}

template void potrf(const char *, const lint *, float *, const lint *, lint *);
template bool potrf_summing(const char *, const lint *, float *, const lint *, lint *, double *);
template void potrf(const char *, const lint *, double *, const lint *, lint *);
template bool potrf_summing(const char *, const lint *, double *, const lint *, lint *, double *);
template void potrf(const char *, const lint *, std::complex<float> *, const lint *, lint *);
template bool potrf_summing(const char *, const lint *, std::complex<float> *, const lint *, lint *, double *);
template void potrf(const char *, const lint *, std::complex<double> *, const lint *, lint *);
template bool potrf_summing(const char *, const lint *, std::complex<double> *, const lint *, lint *, double *);

}  // namespace hqr

extern "C" {
void spotrf_(const char *uplo, const lapack_int *n, float *a, const lapack_int *lda, lapack_int *info, size_t) {
  hqr::potrf(uplo, n, hqr::cx(a), lda, info);
}
void dpotrf_(const char *uplo, const lapack_int *n, double *a, const lapack_int *lda, lapack_int *info, size_t) {
  hqr::potrf(uplo, n, hqr::cx(a), lda, info);
}
void cpotrf_(const char *uplo, const lapack_int *n, lapack_complex_float *a, const lapack_int *lda, lapack_int *info,
             size_t) {
  hqr::potrf(uplo, n, hqr::cx(a), lda, info);
}
void zpotrf_(const char *uplo, const lapack_int *n, lapack_complex_double *a, const lapack_int *lda, lapack_int *info,
             size_t) {
  hqr::potrf(uplo, n, hqr::cx(a), lda, info);
}
}
