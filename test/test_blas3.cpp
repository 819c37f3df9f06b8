// Level-3 BLAS through hqr's front (xGEMM, xSYMM/xHEMM, xSYRK/xHERK,
// xSYR2K/xHER2K, xTRMM, xTRSM; s, d, c, z; Fortran and CBLAS) against the
// next BLAS (the system's, OpenBLAS, called directly) on fresh random data:
// every side/uplo/trans/diag, odd sizes with ld > m, general (complex)
// alpha and beta; the ratio ||C_hqr - C_next||_F / ((|alpha| ||A|| ||B|| +
// |beta| ||C||) eps k) below LAPACK's threshold, and what the routine must
// not write (padding rows, the other triangle) bit for bit unchanged.
// The reference BLAS's special cases: beta = 0 never reads C (NaN there does
// not come out), alpha = 0 never reads A or B (NaN there neither), quick
// returns leave C bit-identical. Illegal arguments: one XERBLA call, as the
// reference BLAS makes it (Debian's libblas3, loaded beside hqr). CBLAS, both
// layouts: against the Fortran routine of the next BLAS on the same logical
// matrices. The large cases (orders 300-500) run on the GPU path when
// HQR_GPU_MIN_N=0 on a GPU machine (GpuPathCheck), the small ones stay fast.
#include <functional>

#include "testing.hpp"

using namespace testing;

namespace {

// ---- the three libraries ------------------------------------------------
// hqr: the symbol the program binds to (libhqr's export); next: the system
// BLAS that hqr forwards to, looked up in it directly; ref: the reference
// BLAS, loaded beside it (for XERBLA's reports).
enum class Via { hqr, next, ref };

#ifdef HQR_ILP64
constexpr const char *kRefBlas = "/usr/lib/x86_64-linux-gnu/blas64/libblas64.so.3";
#else
constexpr const char *kRefBlas = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3";
#endif

// HQR_REFERENCE_BLAS names another copy (the GPU host's unpacked packages).
void *handle(Via via) {
  static void *ref = dlopen(std::getenv("HQR_REFERENCE_BLAS") ? std::getenv("HQR_REFERENCE_BLAS") : kRefBlas,
                            RTLD_NOW | RTLD_LOCAL);
  return via == Via::next ? system_blas() : via == Via::ref ? ref : RTLD_DEFAULT;
}
template <class F> F *fn(Via via, const std::string &name) {
  void *h = handle(via);  // RTLD_DEFAULT (a null pointer) for hqr
  if (via != Via::hqr && !h) fail_msg("cannot open the %s BLAS", via == Via::next ? "next" : "reference");
  void *p = dlsym(h, name.c_str());
  if (!p) fail_msg("no %s", name.c_str());
  return reinterpret_cast<F *>(p);
}
template <class T> std::string fname(const char *base) { return std::string(1, prefix<T>()) + base + "_"; }
template <class T> std::string cname(const char *base) { return std::string("cblas_") + prefix<T>() + base; }

template <class T>
using GemmF = void(const char *, const char *, const lint *, const lint *, const lint *, const T *, const T *,
                   const lint *, const T *, const lint *, const T *, T *, const lint *, size_t, size_t);
template <class T>
using SymmF = void(const char *, const char *, const lint *, const lint *, const T *, const T *, const lint *,
                   const T *, const lint *, const T *, T *, const lint *, size_t, size_t);
template <class T, class S>
using SyrkF = void(const char *, const char *, const lint *, const lint *, const S *, const T *, const lint *,
                   const S *, T *, const lint *, size_t, size_t);
template <class T, class S>
using Syr2kF = void(const char *, const char *, const lint *, const lint *, const T *, const T *, const lint *,
                    const T *, const lint *, const S *, T *, const lint *, size_t, size_t);
template <class T>
using TrmmF = void(const char *, const char *, const char *, const char *, const lint *, const lint *, const T *,
                   const T *, const lint *, T *, const lint *, size_t, size_t, size_t, size_t);

// The routines' scalar arguments. Herm: hemm/herk/her2k.
struct Args {
  char side = 'L', uplo = 'U', ta = 'N', tb = 'N', diag = 'N';
  lint m = 0, n = 0, k = 0, lda = 1, ldb = 1, ldc = 1;
};
template <class T> using real = real_t<T>;

template <class T> void call_gemm(Via v, const Args &x, T alpha, const T *a, const T *b, T beta, T *c) {
  fn<GemmF<T>>(v, fname<T>("gemm"))(&x.ta, &x.tb, &x.m, &x.n, &x.k, &alpha, a, &x.lda, b, &x.ldb, &beta, c, &x.ldc, 1,
                                    1);
}
template <class T, bool Herm> void call_symm(Via v, const Args &x, T alpha, const T *a, const T *b, T beta, T *c) {
  fn<SymmF<T>>(v, fname<T>(Herm ? "hemm" : "symm"))(&x.side, &x.uplo, &x.m, &x.n, &alpha, a, &x.lda, b, &x.ldb, &beta,
                                                    c, &x.ldc, 1, 1);
}
template <class T, bool Herm, class S = std::conditional_t<Herm, real<T>, T>>
void call_syrk(Via v, const Args &x, S alpha, const T *a, S beta, T *c) {
  fn<SyrkF<T, S>>(v, fname<T>(Herm ? "herk" : "syrk"))(&x.uplo, &x.ta, &x.n, &x.k, &alpha, a, &x.lda, &beta, c,
                                                       &x.ldc, 1, 1);
}
template <class T, bool Herm, class S = std::conditional_t<Herm, real<T>, T>>
void call_syr2k(Via v, const Args &x, T alpha, const T *a, const T *b, S beta, T *c) {
  fn<Syr2kF<T, S>>(v, fname<T>(Herm ? "her2k" : "syr2k"))(&x.uplo, &x.ta, &x.n, &x.k, &alpha, a, &x.lda, b, &x.ldb,
                                                          &beta, c, &x.ldc, 1, 1);
}
template <class T, bool Solve> void call_trmm(Via v, const Args &x, T alpha, const T *a, T *b) {
  fn<TrmmF<T>>(v, fname<T>(Solve ? "trsm" : "trmm"))(&x.side, &x.uplo, &x.ta, &x.diag, &x.m, &x.n, &alpha, a, &x.lda,
                                                     b, &x.ldb, 1, 1, 1, 1);
}

// A general scalar: both parts nonzero for complex types, away from 0 and 1.
template <class T> T scalar() {
  T s = random_value<T>();
  if constexpr (is_complex_v<T>)
    return T(real<T>(0.5) + std::abs(s.real()), real<T>(-0.25) - std::abs(s.imag()) / 2);
  else
    return T(real<T>(0.5) + std::abs(s));
}
template <class T> real<T> real_scalar() { return real<T>(0.5) + std::abs(std::real(random_value<T>())); }

template <class T> double fro(const Matrix<T> &a, lint m, lint n) { return norm_fro(block(a, m, n)); }

// ||got - want||_F over the m-by-n block where `in(i, j)`, over scale*eps*depth.
template <class T, class In>
double ratio(const Matrix<T> &got, const Matrix<T> &want, lint m, lint n, double scale, double depth, In in) {
  double s = 0;
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i)
      if (in(i, j)) s += std::norm(std::complex<double>(got(i, j)) - std::complex<double>(want(i, j)));
  if (std::isnan(s)) return s;
  return s == 0 ? 0 : std::sqrt(s) / (scale * eps<T>() * std::max(depth, 1.0));
}
bool all(lint, lint) { return true; }

template <class T> bool has_nan(const Matrix<T> &a, lint m, lint n) {
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i)
      if (std::isnan(std::real(a(i, j))) || std::isnan(std::imag(std::complex<double>(a(i, j))))) return true;
  return false;
}
template <class T> void fill_nan(Matrix<T> &a) {
  for (auto &x : a.data) x = T(std::numeric_limits<real<T>>::quiet_NaN());
}

// alpha = 0: C must be beta*C over the cells `in` (herm: beta*real(C(j,j))
// on the diagonal), without a NaN from A or B, and unchanged elsewhere.
template <class T, class S, class In>
void expect_scaled(const Matrix<T> &got, const Matrix<T> &c, S beta, lint m, lint n, In in, bool herm,
                   const std::string &ctx) {
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i) {
      const T x = herm && i == j ? T(std::real(c(i, j))) : c(i, j);
      const std::complex<double> want = in(i, j) ? std::complex<double>(T(beta) * x) : std::complex<double>(c(i, j));
      const std::complex<double> have(got(i, j));
      if (!(std::abs(have - want) <= 4 * eps<T>() * std::abs(want)))
        fail_msg("%s alpha=0: C(%ld,%ld) is not beta*C", ctx.c_str(), long(i), long(j));
    }
}

// The transposes a routine accepts.
template <class T> const char *ops_all() { return "NTC"; }
template <class T, bool Herm> const char *ops_rank_k() { return Herm ? "NC" : is_complex_v<T> ? "NT" : "NTC"; }

// ---- xGEMM --------------------------------------------------------------
// The options and special cases of one shape (m, n, k) with `pad` spare rows.
template <class T> void check_gemm(char ta, char tb, lint m, lint n, lint k, lint pad, bool gpu_case) {
  Args x;
  x.ta = ta, x.tb = tb, x.m = m, x.n = n, x.k = k;
  const bool na = ta == 'N' || ta == 'n', nb = tb == 'N' || tb == 'n';
  const lint ar = na ? m : k, ac = na ? k : m, br = nb ? k : n, bc = nb ? n : k;
  Matrix<T> a = random_matrix<T>(ar, ac, ar + pad), b = random_matrix<T>(br, bc, br + pad),
            c = random_matrix<T>(m, n, m + pad);
  x.lda = a.ld, x.ldb = b.ld, x.ldc = c.ld;
  const T alpha = scalar<T>(), beta = scalar<T>();
  const std::string ctx = context("%cgemm transa=%c transb=%c m=%ld n=%ld k=%ld", prefix<T>(), ta, tb, long(m),
                                  long(n), long(k));
  Matrix<T> want = c, got = c;
  call_gemm<T>(Via::next, x, alpha, a.ptr(), b.ptr(), beta, want.ptr());
  GpuPathCheck check;
  xerbla_reset();
  call_gemm<T>(Via::hqr, x, alpha, a.ptr(), b.ptr(), beta, got.ptr());
  if (gpu_case) check.expect(std::min({m, n, k}), std::min({m, n, k}), ctx.c_str());
  if (xerbla_log().calls) fail_msg("%s: XERBLA called", ctx.c_str());
  const double scale = std::abs(alpha) * fro(a, ar, ac) * fro(b, br, bc) + std::abs(beta) * fro(c, m, n);
  assert_ratio(ratio(got, want, m, n, scale, k, all), ctx);
  if (!unchanged_where(c, got, [](lint, lint) { return false; })) fail_msg("%s: padding written", ctx.c_str());

  // beta = 0: C is not read (NaN there stays out).
  Matrix<T> nan_c(m, n, m + pad);
  fill_nan(nan_c);
  Matrix<T> zero_want = c;
  call_gemm<T>(Via::next, x, alpha, a.ptr(), b.ptr(), T(0), zero_want.ptr());
  call_gemm<T>(Via::hqr, x, alpha, a.ptr(), b.ptr(), T(0), nan_c.ptr());
  if (has_nan(nan_c, m, n)) fail_msg("%s beta=0: NaN from C came out", ctx.c_str());
  assert_ratio(ratio(nan_c, zero_want, m, n, std::abs(alpha) * fro(a, ar, ac) * fro(b, br, bc), k, all),
               ctx + " beta=0");

  // alpha = 0: A and B are not read; C := beta*C.
  Matrix<T> nan_a = a, nan_b = b, scaled = c;
  fill_nan(nan_a);
  fill_nan(nan_b);
  call_gemm<T>(Via::hqr, x, T(0), nan_a.ptr(), nan_b.ptr(), beta, scaled.ptr());
  expect_scaled(scaled, c, beta, m, n, all, false, ctx);
}

template <class T> void gemm_options(void **) {
  for (const char *ta = ops_all<T>(); *ta; ++ta)
    for (const char *tb = ops_all<T>(); *tb; ++tb) {
      check_gemm<T>(*ta, *tb, 13, 7, 5, 3, false);
      check_gemm<T>(*ta, *tb, 1, 9, 17, 0, false);
    }
  // Lower-case options are the same routine (LSAME).
  check_gemm<T>('n', is_complex_v<T> ? 'c' : 't', 6, 5, 4, 1, false);
}
template <class T> void gemm_large(void **) {
  check_gemm<T>('N', 'N', 333, 301, 317, 5, true);
  check_gemm<T>(trans_h<T>(), 'T', 301, 367, 289, 0, true);
  check_gemm<T>('N', trans_h<T>(), 480, 64, 512, 3, true);  // skinny
}

// ---- xSYMM / xHEMM ------------------------------------------------------
template <class T, bool Herm> void check_symm(char side, char uplo, lint m, lint n, lint pad, bool gpu_case) {
  Args x;
  x.side = side, x.uplo = uplo, x.m = m, x.n = n;
  const lint na = side == 'L' ? m : n;
  Matrix<T> a = random_matrix<T>(na, na, na + pad), b = random_matrix<T>(m, n, m + pad),
            c = random_matrix<T>(m, n, m + pad);
  x.lda = a.ld, x.ldb = b.ld, x.ldc = c.ld;
  const T alpha = scalar<T>(), beta = scalar<T>();
  const std::string ctx =
      context("%c%s side=%c uplo=%c m=%ld n=%ld", prefix<T>(), Herm ? "hemm" : "symm", side, uplo, long(m), long(n));
  Matrix<T> want = c, got = c;
  call_symm<T, Herm>(Via::next, x, alpha, a.ptr(), b.ptr(), beta, want.ptr());
  GpuPathCheck check;
  call_symm<T, Herm>(Via::hqr, x, alpha, a.ptr(), b.ptr(), beta, got.ptr());
  if (gpu_case) check.expect(std::min(m, n), std::min(m, n), ctx.c_str());
  const double scale = std::abs(alpha) * fro(a, na, na) * fro(b, m, n) + std::abs(beta) * fro(c, m, n);
  assert_ratio(ratio(got, want, m, n, scale, na, all), ctx);
  if (!unchanged_where(c, got, [](lint, lint) { return false; })) fail_msg("%s: padding written", ctx.c_str());

  Matrix<T> nan_c(m, n, m + pad), zero_want = c;
  fill_nan(nan_c);
  call_symm<T, Herm>(Via::next, x, alpha, a.ptr(), b.ptr(), T(0), zero_want.ptr());
  call_symm<T, Herm>(Via::hqr, x, alpha, a.ptr(), b.ptr(), T(0), nan_c.ptr());
  if (has_nan(nan_c, m, n)) fail_msg("%s beta=0: NaN from C came out", ctx.c_str());
  assert_ratio(ratio(nan_c, zero_want, m, n, std::abs(alpha) * fro(a, na, na) * fro(b, m, n), na, all),
               ctx + " beta=0");

  Matrix<T> nan_a = a, nan_b = b, scaled = c;
  fill_nan(nan_a);
  fill_nan(nan_b);
  call_symm<T, Herm>(Via::hqr, x, T(0), nan_a.ptr(), nan_b.ptr(), beta, scaled.ptr());
  expect_scaled(scaled, c, beta, m, n, all, false, ctx);
}
template <class T, bool Herm> void symm_options(void **) {
  for (char side : {'L', 'R'})
    for (char uplo : {'U', 'L'}) {
      check_symm<T, Herm>(side, uplo, 11, 6, 2, false);
      check_symm<T, Herm>(side, uplo, 4, 13, 0, false);
    }
}
template <class T, bool Herm> void symm_large(void **) {
  check_symm<T, Herm>('L', 'U', 345, 301, 3, true);
  check_symm<T, Herm>('R', 'L', 299, 377, 0, true);
}

// ---- xSYRK / xHERK ------------------------------------------------------
template <class T, bool Herm> void check_syrk(char uplo, char trans, lint n, lint k, lint pad, bool gpu_case) {
  using S = std::conditional_t<Herm, real<T>, T>;
  Args x;
  x.uplo = uplo, x.ta = trans, x.n = n, x.k = k;
  const lint ar = trans == 'N' ? n : k, ac = trans == 'N' ? k : n;
  Matrix<T> a = random_matrix<T>(ar, ac, ar + pad), c = random_matrix<T>(n, n, n + pad);
  x.lda = a.ld, x.ldc = c.ld;
  S alpha, beta;
  if constexpr (Herm)
    alpha = real_scalar<T>(), beta = real_scalar<T>();
  else
    alpha = scalar<T>(), beta = scalar<T>();
  const std::string ctx =
      context("%c%s uplo=%c trans=%c n=%ld k=%ld", prefix<T>(), Herm ? "herk" : "syrk", uplo, trans, long(n), long(k));
  auto tri = [uplo](lint i, lint j) { return in_triangle(uplo, i, j); };
  auto other = [uplo](lint i, lint j) { return !in_triangle(uplo, i, j); };
  Matrix<T> want = c, got = c;
  call_syrk<T, Herm>(Via::next, x, alpha, a.ptr(), beta, want.ptr());
  GpuPathCheck check;
  call_syrk<T, Herm>(Via::hqr, x, alpha, a.ptr(), beta, got.ptr());
  if (gpu_case) check.expect(std::min(n, k), std::min(n, k), ctx.c_str());
  const double scale = std::abs(alpha) * fro(a, ar, ac) * fro(a, ar, ac) + std::abs(beta) * fro(c, n, n);
  assert_ratio(ratio(got, want, n, n, scale, k, tri), ctx);
  if (!unchanged_where(c, got, other)) fail_msg("%s: written outside the %c triangle", ctx.c_str(), uplo);
  if constexpr (Herm)
    for (lint i = 0; i < n; ++i)
      if (std::imag(got(i, i)) != 0) fail_msg("%s: C(%ld,%ld) not real", ctx.c_str(), long(i), long(i));

  Matrix<T> nan_c(n, n, n + pad), zero_want = c;
  fill_nan(nan_c);
  const Matrix<T> nan_before = nan_c;
  call_syrk<T, Herm>(Via::next, x, alpha, a.ptr(), S(0), zero_want.ptr());
  call_syrk<T, Herm>(Via::hqr, x, alpha, a.ptr(), S(0), nan_c.ptr());
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < n; ++i)
      if (tri(i, j) && std::isnan(std::abs(std::complex<double>(nan_c(i, j)))))
        fail_msg("%s beta=0: NaN from C came out at (%ld,%ld)", ctx.c_str(), long(i), long(j));
  assert_ratio(ratio(nan_c, zero_want, n, n, std::abs(alpha) * fro(a, ar, ac) * fro(a, ar, ac), k, tri),
               ctx + " beta=0");
  if (!unchanged_where(nan_before, nan_c, other)) fail_msg("%s beta=0: written outside the triangle", ctx.c_str());

  Matrix<T> nan_a = a, scaled = c;
  fill_nan(nan_a);
  call_syrk<T, Herm>(Via::hqr, x, S(0), nan_a.ptr(), beta, scaled.ptr());
  expect_scaled(scaled, c, beta, n, n, tri, Herm, ctx);
}
template <class T, bool Herm> void syrk_options(void **) {
  for (char uplo : {'U', 'L'})
    for (const char *t = ops_rank_k<T, Herm>(); *t; ++t) {
      check_syrk<T, Herm>(uplo, *t, 11, 6, 2, false);
      check_syrk<T, Herm>(uplo, *t, 5, 14, 0, false);
    }
}
template <class T, bool Herm> void syrk_large(void **) {
  check_syrk<T, Herm>('L', 'N', 377, 311, 3, true);
  check_syrk<T, Herm>('U', Herm ? 'C' : 'T', 333, 301, 0, true);
}

// ---- xSYR2K / xHER2K ----------------------------------------------------
template <class T, bool Herm> void check_syr2k(char uplo, char trans, lint n, lint k, lint pad, bool gpu_case) {
  using S = std::conditional_t<Herm, real<T>, T>;
  Args x;
  x.uplo = uplo, x.ta = trans, x.n = n, x.k = k;
  const lint ar = trans == 'N' ? n : k, ac = trans == 'N' ? k : n;
  Matrix<T> a = random_matrix<T>(ar, ac, ar + pad), b = random_matrix<T>(ar, ac, ar + pad + 1),
            c = random_matrix<T>(n, n, n + pad);
  x.lda = a.ld, x.ldb = b.ld, x.ldc = c.ld;
  const T alpha = scalar<T>();
  S beta;
  if constexpr (Herm)
    beta = real_scalar<T>();
  else
    beta = scalar<T>();
  const std::string ctx = context("%c%s uplo=%c trans=%c n=%ld k=%ld", prefix<T>(), Herm ? "her2k" : "syr2k", uplo,
                                  trans, long(n), long(k));
  auto tri = [uplo](lint i, lint j) { return in_triangle(uplo, i, j); };
  auto other = [uplo](lint i, lint j) { return !in_triangle(uplo, i, j); };
  Matrix<T> want = c, got = c;
  call_syr2k<T, Herm>(Via::next, x, alpha, a.ptr(), b.ptr(), beta, want.ptr());
  GpuPathCheck check;
  call_syr2k<T, Herm>(Via::hqr, x, alpha, a.ptr(), b.ptr(), beta, got.ptr());
  if (gpu_case) check.expect(std::min(n, k), std::min(n, k), ctx.c_str());
  const double scale = 2 * std::abs(alpha) * fro(a, ar, ac) * fro(b, ar, ac) + std::abs(beta) * fro(c, n, n);
  assert_ratio(ratio(got, want, n, n, scale, k, tri), ctx);
  if (!unchanged_where(c, got, other)) fail_msg("%s: written outside the %c triangle", ctx.c_str(), uplo);
  if constexpr (Herm)
    for (lint i = 0; i < n; ++i)
      if (std::imag(got(i, i)) != 0) fail_msg("%s: C(%ld,%ld) not real", ctx.c_str(), long(i), long(i));

  Matrix<T> nan_c(n, n, n + pad), zero_want = c;
  fill_nan(nan_c);
  call_syr2k<T, Herm>(Via::next, x, alpha, a.ptr(), b.ptr(), S(0), zero_want.ptr());
  call_syr2k<T, Herm>(Via::hqr, x, alpha, a.ptr(), b.ptr(), S(0), nan_c.ptr());
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < n; ++i)
      if (tri(i, j) && std::isnan(std::abs(std::complex<double>(nan_c(i, j)))))
        fail_msg("%s beta=0: NaN from C came out at (%ld,%ld)", ctx.c_str(), long(i), long(j));
  assert_ratio(ratio(nan_c, zero_want, n, n, 2 * std::abs(alpha) * fro(a, ar, ac) * fro(b, ar, ac), k, tri),
               ctx + " beta=0");

  Matrix<T> nan_a = a, nan_b = b, scaled = c;
  fill_nan(nan_a);
  fill_nan(nan_b);
  call_syr2k<T, Herm>(Via::hqr, x, T(0), nan_a.ptr(), nan_b.ptr(), beta, scaled.ptr());
  expect_scaled(scaled, c, beta, n, n, tri, Herm, ctx);
}
template <class T, bool Herm> void syr2k_options(void **) {
  for (char uplo : {'U', 'L'})
    for (const char *t = ops_rank_k<T, Herm>(); *t; ++t) {
      check_syr2k<T, Herm>(uplo, *t, 11, 6, 2, false);
      check_syr2k<T, Herm>(uplo, *t, 5, 14, 0, false);
    }
}
template <class T, bool Herm> void syr2k_large(void **) {
  check_syr2k<T, Herm>('U', 'N', 355, 301, 1, true);
  check_syr2k<T, Herm>('L', Herm ? 'C' : 'T', 313, 333, 0, true);
}

// ---- xTRMM / xTRSM ------------------------------------------------------
// A well-conditioned triangle for trsm: off-diagonal entries of size
// 1/order, a diagonal of size 1 to 2 (random everywhere, the other triangle
// included, which the routine must not read).
template <class T> Matrix<T> triangular(lint na, lint pad, bool solve) {
  Matrix<T> a = random_matrix<T>(na, na, na + pad);
  if (solve)
    for (lint j = 0; j < na; ++j)
      for (lint i = 0; i < na; ++i) a(i, j) = i == j ? T(real<T>(1.5)) + a(i, j) / real<T>(2) : a(i, j) / real<T>(na);
  return a;
}
template <class T, bool Solve>
void check_trmm(char side, char uplo, char trans, char diag, lint m, lint n, lint pad, bool gpu_case) {
  Args x;
  x.side = side, x.uplo = uplo, x.ta = trans, x.diag = diag, x.m = m, x.n = n;
  const lint na = side == 'L' ? m : n;
  Matrix<T> a = triangular<T>(na, pad, Solve), b = random_matrix<T>(m, n, m + pad + 2);
  x.lda = a.ld, x.ldb = b.ld;
  const T alpha = scalar<T>();
  const std::string ctx = context("%c%s side=%c uplo=%c transa=%c diag=%c m=%ld n=%ld", prefix<T>(),
                                  Solve ? "trsm" : "trmm", side, uplo, trans, diag, long(m), long(n));
  Matrix<T> want = b, got = b;
  call_trmm<T, Solve>(Via::next, x, alpha, a.ptr(), want.ptr());
  GpuPathCheck check;
  call_trmm<T, Solve>(Via::hqr, x, alpha, a.ptr(), got.ptr());
  if (gpu_case) check.expect(std::min(m, n), std::min(m, n), ctx.c_str());
  // trmm: relative to |alpha| ||A|| ||B||; trsm: to the solution's size
  // (A is well conditioned).
  const double scale = Solve ? fro(want, m, n) : std::abs(alpha) * fro(a, na, na) * fro(b, m, n);
  assert_ratio(ratio(got, want, m, n, scale, na, all), ctx);
  if (!unchanged_where(b, got, [](lint, lint) { return false; })) fail_msg("%s: padding written", ctx.c_str());

  // alpha = 0: B := 0, A not read.
  Matrix<T> nan_a = a, zeroed = b;
  fill_nan(nan_a);
  call_trmm<T, Solve>(Via::hqr, x, T(0), nan_a.ptr(), zeroed.ptr());
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i)
      if (zeroed(i, j) != T(0)) fail_msg("%s alpha=0: B(%ld,%ld) is not 0", ctx.c_str(), long(i), long(j));
}
template <class T, bool Solve> void trmm_options(void **) {
  for (char side : {'L', 'R'})
    for (char uplo : {'U', 'L'})
      for (const char *t = ops_all<T>(); *t; ++t)
        for (char diag : {'N', 'U'}) {
          check_trmm<T, Solve>(side, uplo, *t, diag, 11, 6, 2, false);
          check_trmm<T, Solve>(side, uplo, *t, diag, 3, 13, 0, false);
        }
}
template <class T, bool Solve> void trmm_large(void **) {
  check_trmm<T, Solve>('L', 'L', 'N', 'N', 377, 311, 3, true);
  check_trmm<T, Solve>('R', 'U', trans_h<T>(), 'U', 301, 345, 0, true);
  check_trmm<T, Solve>('L', 'U', 'T', 'N', 333, 64, 1, true);
}

// ---- quick returns ------------------------------------------------------
// m or n = 0, and k = 0 with beta = 1: C (B) bit-identical. k = 0 with
// another beta: C := beta*C as the next BLAS makes it.
template <class T> void quick_returns(void **) {
  const T alpha = scalar<T>(), beta = scalar<T>();
  Matrix<T> a = random_matrix<T>(8, 8), b = random_matrix<T>(8, 8), c = random_matrix<T>(8, 8);
  auto same = [&](const Matrix<T> &after, const char *what) {
    if (!same_bytes(c, after)) fail_msg("%cBLAS-3 %s: C written on a quick return", prefix<T>(), what);
  };
  for (lint zero_dim = 0; zero_dim < 2; ++zero_dim) {
    Args x;
    x.m = zero_dim == 0 ? 0 : 5, x.n = zero_dim == 0 ? 5 : 0, x.k = 4, x.lda = x.ldb = x.ldc = 8;
    Matrix<T> got = c;
    call_gemm<T>(Via::hqr, x, alpha, a.ptr(), b.ptr(), beta, got.ptr());
    same(got, "gemm m or n = 0");
    call_symm<T, false>(Via::hqr, x, alpha, a.ptr(), b.ptr(), beta, got.ptr());
    same(got, "symm m or n = 0");
    call_trmm<T, false>(Via::hqr, x, alpha, a.ptr(), got.ptr());
    call_trmm<T, true>(Via::hqr, x, alpha, a.ptr(), got.ptr());
    same(got, "trmm/trsm m or n = 0");
  }
  Args x;
  x.m = 6, x.n = 7, x.k = 0, x.lda = x.ldb = x.ldc = 8;
  Matrix<T> got = c;
  call_gemm<T>(Via::hqr, x, alpha, a.ptr(), b.ptr(), T(1), got.ptr());
  same(got, "gemm k = 0, beta = 1");
  x.n = 0;
  call_syrk<T, false>(Via::hqr, x, alpha, a.ptr(), beta, got.ptr());
  call_syr2k<T, false>(Via::hqr, x, alpha, a.ptr(), b.ptr(), beta, got.ptr());
  same(got, "syrk/syr2k n = 0");
  x.n = 7;
  call_syrk<T, false>(Via::hqr, x, alpha, a.ptr(), T(1), got.ptr());
  call_syr2k<T, false>(Via::hqr, x, alpha, a.ptr(), b.ptr(), T(1), got.ptr());
  same(got, "syrk/syr2k k = 0, beta = 1");
  x.n = 7;
  got = c;
  call_gemm<T>(Via::hqr, x, alpha, a.ptr(), b.ptr(), beta, got.ptr());
  expect_scaled(got, c, beta, 6, 7, all, false, context("%cgemm k=0", prefix<T>()));
  // k = 0, beta = 0: C := 0 without reading C.
  Matrix<T> nan_c = c;
  fill_nan(nan_c);
  call_gemm<T>(Via::hqr, x, alpha, a.ptr(), b.ptr(), T(0), nan_c.ptr());
  for (lint j = 0; j < 7; ++j)
    for (lint i = 0; i < 6; ++i)
      if (nan_c(i, j) != T(0)) fail_msg("%cgemm k=0 beta=0: C(%ld,%ld) is not 0", prefix<T>(), long(i), long(j));
  if constexpr (is_complex_v<T>) {
    got = c;
    call_syrk<T, true>(Via::hqr, x, real<T>(2), a.ptr(), real<T>(1), got.ptr());
    call_syr2k<T, true>(Via::hqr, x, alpha, a.ptr(), b.ptr(), real<T>(1), got.ptr());
    same(got, "herk/her2k k = 0, beta = 1");
    x.m = 0;
    call_symm<T, true>(Via::hqr, x, alpha, a.ptr(), b.ptr(), beta, got.ptr());
    same(got, "hemm m = 0");
  }
}

// ---- illegal arguments --------------------------------------------------
// Each argument made illegal in turn: XERBLA once with the reference BLAS's
// name and position (hqr forwards the call to the next BLAS, which reports
// it), C unchanged.
struct Bad {
  int pos;
  std::function<void(Args &)> apply;
};
template <class T, class Call>
void check_illegal(const char *base, Args valid, const std::vector<Bad> &bad, Call call) {
  const std::string name = xerbla_name<T>(base);
  for (const Bad &b : bad) {
    Args x = valid;
    b.apply(x);
    Matrix<T> c = random_matrix<T>(16, 16);
    for (Via via : {Via::ref, Via::hqr}) {
      Matrix<T> got = c;
      xerbla_reset();
      call(via, x, got);
      const XerblaLog log = xerbla_log();
      const char *who = via == Via::ref ? "reference BLAS" : "hqr";
      if (log.calls != 1 || name != log.name || log.info != b.pos)
        fail_msg("%s, argument %d illegal, %s: XERBLA called %d times, last with %s %ld", name.c_str(), b.pos, who,
                 log.calls, log.name, log.info);
      if (!same_bytes(got, c)) fail_msg("%s, argument %d illegal, %s: C written", name.c_str(), b.pos, who);
    }
    xerbla_reset();
  }
}
template <class T> void illegal_arguments(void **) {
  Matrix<T> a = random_matrix<T>(16, 16), b = random_matrix<T>(16, 16);
  const T alpha = scalar<T>(), beta = scalar<T>();
  Args v;
  v.m = 5, v.n = 4, v.k = 3, v.lda = v.ldb = v.ldc = 6;
  check_illegal<T>("GEMM", v,
                   {{1, [](Args &x) { x.ta = 'X'; }},
                    {2, [](Args &x) { x.tb = '/'; }},
                    {3, [](Args &x) { x.m = -1; }},
                    {4, [](Args &x) { x.n = -1; }},
                    {5, [](Args &x) { x.k = -2; }},
                    {8, [](Args &x) { x.lda = 4; }},
                    {8, [](Args &x) { x.ta = 'T', x.lda = 2; }},
                    {10, [](Args &x) { x.ldb = 2; }},
                    {10, [](Args &x) { x.tb = 'T', x.ldb = 3; }},
                    {13, [](Args &x) { x.ldc = 4; }},
                    {1, [](Args &x) { x.ta = 'X', x.m = -1, x.ldc = 0; }}},
                   [&](Via via, const Args &x, Matrix<T> &c) {
                     call_gemm<T>(via, x, alpha, a.ptr(), b.ptr(), beta, c.ptr());
                   });
  const std::vector<Bad> symm_bad = {{1, [](Args &x) { x.side = 'U'; }},
                                     {2, [](Args &x) { x.uplo = 'N'; }},
                                     {3, [](Args &x) { x.m = -1; }},
                                     {4, [](Args &x) { x.n = -3; }},
                                     {7, [](Args &x) { x.lda = 4; }},
                                     {7, [](Args &x) { x.side = 'R', x.n = 6, x.lda = 5; }},
                                     {9, [](Args &x) { x.ldb = 4; }},
                                     {12, [](Args &x) { x.ldc = 4; }}};
  check_illegal<T>("SYMM", v, symm_bad, [&](Via via, const Args &x, Matrix<T> &c) {
    call_symm<T, false>(via, x, alpha, a.ptr(), b.ptr(), beta, c.ptr());
  });
  const std::vector<Bad> rank_k_bad = {{1, [](Args &x) { x.uplo = 'X'; }},
                                       {2, [](Args &x) { x.ta = 'X'; }},
                                       {3, [](Args &x) { x.n = -1; }},
                                       {4, [](Args &x) { x.k = -1; }},
                                       {7, [](Args &x) { x.lda = 3; }},
                                       {7, [](Args &x) { x.ta = 'T', x.k = 7, x.lda = 6; }}};
  std::vector<Bad> syrk_bad = rank_k_bad;
  syrk_bad.push_back({10, [](Args &x) { x.ldc = 3; }});
  if constexpr (is_complex_v<T>) syrk_bad.push_back({2, [](Args &x) { x.ta = 'C'; }});  // csyrk: N or T
  v.n = 4;
  check_illegal<T>("SYRK", v, syrk_bad, [&](Via via, const Args &x, Matrix<T> &c) {
    call_syrk<T, false>(via, x, alpha, a.ptr(), beta, c.ptr());
  });
  std::vector<Bad> syr2k_bad = rank_k_bad;
  syr2k_bad.push_back({9, [](Args &x) { x.ldb = 3; }});
  syr2k_bad.push_back({12, [](Args &x) { x.ldc = 3; }});
  check_illegal<T>("SYR2K", v, syr2k_bad, [&](Via via, const Args &x, Matrix<T> &c) {
    call_syr2k<T, false>(via, x, alpha, a.ptr(), b.ptr(), beta, c.ptr());
  });
  if constexpr (is_complex_v<T>) {
    check_illegal<T>("HEMM", v, symm_bad, [&](Via via, const Args &x, Matrix<T> &c) {
      call_symm<T, true>(via, x, alpha, a.ptr(), b.ptr(), beta, c.ptr());
    });
    std::vector<Bad> herk_bad = rank_k_bad;
    herk_bad[5] = {7, [](Args &x) { x.ta = 'C', x.k = 7, x.lda = 6; }};
    herk_bad.push_back({2, [](Args &x) { x.ta = 'T'; }});  // cherk: N or C
    std::vector<Bad> her2k_bad = herk_bad;
    herk_bad.push_back({10, [](Args &x) { x.ldc = 3; }});
    her2k_bad.push_back({9, [](Args &x) { x.ldb = 3; }});
    her2k_bad.push_back({12, [](Args &x) { x.ldc = 3; }});
    check_illegal<T>("HERK", v, herk_bad, [&](Via via, const Args &x, Matrix<T> &c) {
      call_syrk<T, true>(via, x, real<T>(0.5), a.ptr(), real<T>(2), c.ptr());
    });
    check_illegal<T>("HER2K", v, her2k_bad, [&](Via via, const Args &x, Matrix<T> &c) {
      call_syr2k<T, true>(via, x, alpha, a.ptr(), b.ptr(), real<T>(2), c.ptr());
    });
  }
  const std::vector<Bad> trmm_bad = {{1, [](Args &x) { x.side = 'X'; }},
                                     {2, [](Args &x) { x.uplo = 'X'; }},
                                     {3, [](Args &x) { x.ta = 'X'; }},
                                     {4, [](Args &x) { x.diag = 'X'; }},
                                     {5, [](Args &x) { x.m = -1; }},
                                     {6, [](Args &x) { x.n = -1; }},
                                     {9, [](Args &x) { x.lda = 4; }},
                                     {9, [](Args &x) { x.side = 'R', x.n = 7, x.lda = 6; }},
                                     {11, [](Args &x) { x.ldb = 4; }}};
  for (bool solve : {false, true})
    check_illegal<T>(solve ? "TRSM" : "TRMM", v, trmm_bad, [&](Via via, const Args &x, Matrix<T> &c) {
      if (solve)
        call_trmm<T, true>(via, x, alpha, a.ptr(), c.ptr());
      else
        call_trmm<T, false>(via, x, alpha, a.ptr(), c.ptr());
    });
}

// ---- CBLAS --------------------------------------------------------------
enum : int { RowMajor = 101, ColMajor = 102, NoTrans = 111, Trans = 112, ConjTrans = 113, Upper = 121, Lower = 122 };
enum : int { NonUnit = 131, Unit = 132, Left = 141, Right = 142 };
int cb_trans(char t) { return t == 'N' ? NoTrans : t == 'T' ? Trans : ConjTrans; }
int cb_uplo(char u) { return u == 'U' ? Upper : Lower; }
int cb_side(char s) { return s == 'L' ? Left : Right; }
int cb_diag(char d) { return d == 'U' ? Unit : NonUnit; }

// A logical rows-by-cols matrix stored in `layout` with `pad` spare
// elements per column (row) — and back.
template <class T> Matrix<T> store(const Matrix<T> &a, int layout, lint pad) {
  if (layout == ColMajor) {
    Matrix<T> s = random_matrix<T>(a.m, a.n, a.m + pad);
    for (lint j = 0; j < a.n; ++j)
      for (lint i = 0; i < a.m; ++i) s(i, j) = a(i, j);
    return s;
  }
  Matrix<T> s = random_matrix<T>(a.n, a.m, a.n + pad);  // the transpose, column-major
  for (lint j = 0; j < a.n; ++j)
    for (lint i = 0; i < a.m; ++i) s(j, i) = a(i, j);
  return s;
}
template <class T> Matrix<T> load(const Matrix<T> &s, int layout, lint rows, lint cols) {
  Matrix<T> a(rows, cols);
  for (lint j = 0; j < cols; ++j)
    for (lint i = 0; i < rows; ++i) a(i, j) = layout == ColMajor ? s(i, j) : s(j, i);
  return a;
}
// Scalars as CBLAS takes them: by value for real types, by pointer for complex.
template <class T> auto cb_scalar(const T &x) {
  if constexpr (is_complex_v<T>)
    return static_cast<const void *>(&x);
  else
    return x;
}

template <class T> void cblas_layouts(void **) {
  const lint m = 9, n = 7, k = 5;
  const T alpha = scalar<T>(), beta = scalar<T>();
  const real<T> ra = real_scalar<T>(), rb = real_scalar<T>();
  using CS = decltype(cb_scalar(alpha));
  using RS = std::conditional_t<is_complex_v<T>, real<T>, T>;  // herk's alpha, her2k's beta (real)
  for (int layout : {ColMajor, RowMajor}) {
    const char *lname = layout == ColMajor ? "ColMajor" : "RowMajor";
    // Compares C, the logical rows-by-cols result of the CBLAS call stored
    // as `s`, with the Fortran result `want`, over the cells `in`.
    auto expect = [&](const Matrix<T> &s, const Matrix<T> &want, double scale, double depth, const char *what,
                      auto in) {
      const Matrix<T> got = load(s, layout, want.m, want.n);
      assert_ratio(ratio(got, want, want.m, want.n, scale, depth, in), context("cblas_%c%s %s", prefix<T>(), what, lname));
    };
    for (const char *ta = ops_all<T>(); *ta; ++ta)
      for (const char *tb = ops_all<T>(); *tb; ++tb) {
        const Matrix<T> a = *ta == 'N' ? random_matrix<T>(m, k) : random_matrix<T>(k, m);
        const Matrix<T> b = *tb == 'N' ? random_matrix<T>(k, n) : random_matrix<T>(n, k);
        const Matrix<T> c = random_matrix<T>(m, n);
        Matrix<T> want = c;
        Args x;
        x.ta = *ta, x.tb = *tb, x.m = m, x.n = n, x.k = k, x.lda = a.ld, x.ldb = b.ld, x.ldc = c.ld;
        call_gemm<T>(Via::next, x, alpha, a.data.data(), b.data.data(), beta, want.ptr());
        Matrix<T> sa = store(a, layout, 2), sb = store(b, layout, 1), sc = store(c, layout, 3);
        fn<void(int, int, int, lint, lint, lint, CS, const T *, lint, const T *, lint, CS, T *, lint)>(
            Via::hqr, cname<T>("gemm"))(layout, cb_trans(*ta), cb_trans(*tb), m, n, k, cb_scalar(alpha), sa.ptr(),
                                        sa.ld, sb.ptr(), sb.ld, cb_scalar(beta), sc.ptr(), sc.ld);
        expect(sc, want, std::abs(alpha) * norm_fro(a) * norm_fro(b) + std::abs(beta) * norm_fro(c), k, "gemm", all);
      }
    for (int herm = 0; herm < (is_complex_v<T> ? 2 : 1); ++herm)
      for (char side : {'L', 'R'})
        for (char uplo : {'U', 'L'}) {
          const lint na = side == 'L' ? m : n;
          const Matrix<T> a = random_matrix<T>(na, na), b = random_matrix<T>(m, n), c = random_matrix<T>(m, n);
          Matrix<T> want = c;
          Args x;
          x.side = side, x.uplo = uplo, x.m = m, x.n = n, x.lda = a.ld, x.ldb = b.ld, x.ldc = c.ld;
          // The stored triangle of A in the CBLAS call is the logical one.
          if (herm)
            call_symm<T, true>(Via::next, x, alpha, a.data.data(), b.data.data(), beta, want.ptr());
          else
            call_symm<T, false>(Via::next, x, alpha, a.data.data(), b.data.data(), beta, want.ptr());
          Matrix<T> sa = store(a, layout, 1), sb = store(b, layout, 2), sc = store(c, layout, 0);
          fn<void(int, int, int, lint, lint, CS, const T *, lint, const T *, lint, CS, T *, lint)>(
              Via::hqr, cname<T>(herm ? "hemm" : "symm"))(layout, cb_side(side), cb_uplo(uplo), m, n,
                                                          cb_scalar(alpha), sa.ptr(), sa.ld, sb.ptr(), sb.ld,
                                                          cb_scalar(beta), sc.ptr(), sc.ld);
          expect(sc, want, std::abs(alpha) * norm_fro(a) * norm_fro(b) + std::abs(beta) * norm_fro(c), na,
                 herm ? "hemm" : "symm", all);
        }
    for (int herm = 0; herm < (is_complex_v<T> ? 2 : 1); ++herm)
      for (char uplo : {'U', 'L'})
        for (const char *t = herm ? "NC" : is_complex_v<T> ? "NT" : "NTC"; *t; ++t) {
          const lint ar = *t == 'N' ? n : k, ac = *t == 'N' ? k : n;
          const Matrix<T> a = random_matrix<T>(ar, ac), b = random_matrix<T>(ar, ac), c = random_matrix<T>(n, n);
          Args x;
          x.uplo = uplo, x.ta = *t, x.n = n, x.k = k, x.lda = a.ld, x.ldb = b.ld, x.ldc = c.ld;
          auto tri = [uplo](lint i, lint j) { return in_triangle(uplo, i, j); };
          Matrix<T> want = c, want2 = c;
          Matrix<T> sa = store(a, layout, 2), sb = store(b, layout, 0), sc = store(c, layout, 1), sc2 = sc;
          if (herm) {
            if constexpr (is_complex_v<T>) {
              call_syrk<T, true>(Via::next, x, ra, a.data.data(), rb, want.ptr());
              call_syr2k<T, true>(Via::next, x, alpha, a.data.data(), b.data.data(), rb, want2.ptr());
              fn<void(int, int, int, lint, lint, RS, const T *, lint, RS, T *, lint)>(Via::hqr, cname<T>("herk"))(
                  layout, cb_uplo(uplo), cb_trans(*t), n, k, ra, sa.ptr(), sa.ld, rb, sc.ptr(), sc.ld);
              fn<void(int, int, int, lint, lint, CS, const T *, lint, const T *, lint, RS, T *, lint)>(
                  Via::hqr, cname<T>("her2k"))(layout, cb_uplo(uplo), cb_trans(*t), n, k, cb_scalar(alpha), sa.ptr(),
                                               sa.ld, sb.ptr(), sb.ld, rb, sc2.ptr(), sc2.ld);
              expect(sc, want, ra * norm_fro(a) * norm_fro(a) + rb * norm_fro(c), k, "herk", tri);
              expect(sc2, want2, 2 * std::abs(alpha) * norm_fro(a) * norm_fro(b) + rb * norm_fro(c), k, "her2k", tri);
            }
          } else {
            call_syrk<T, false>(Via::next, x, alpha, a.data.data(), beta, want.ptr());
            call_syr2k<T, false>(Via::next, x, alpha, a.data.data(), b.data.data(), beta, want2.ptr());
            fn<void(int, int, int, lint, lint, CS, const T *, lint, CS, T *, lint)>(Via::hqr, cname<T>("syrk"))(
                layout, cb_uplo(uplo), cb_trans(*t), n, k, cb_scalar(alpha), sa.ptr(), sa.ld, cb_scalar(beta),
                sc.ptr(), sc.ld);
            fn<void(int, int, int, lint, lint, CS, const T *, lint, const T *, lint, CS, T *, lint)>(
                Via::hqr, cname<T>("syr2k"))(layout, cb_uplo(uplo), cb_trans(*t), n, k, cb_scalar(alpha), sa.ptr(),
                                             sa.ld, sb.ptr(), sb.ld, cb_scalar(beta), sc2.ptr(), sc2.ld);
            expect(sc, want, std::abs(alpha) * norm_fro(a) * norm_fro(a) + std::abs(beta) * norm_fro(c), k, "syrk",
                   tri);
            expect(sc2, want2, 2 * std::abs(alpha) * norm_fro(a) * norm_fro(b) + std::abs(beta) * norm_fro(c), k,
                   "syr2k", tri);
          }
        }
    for (int solve = 0; solve < 2; ++solve)
      for (char side : {'L', 'R'})
        for (char uplo : {'U', 'L'})
          for (const char *t = ops_all<T>(); *t; ++t)
            for (char diag : {'N', 'U'}) {
              const lint na = side == 'L' ? m : n;
              const Matrix<T> a = triangular<T>(na, 0, true), b = random_matrix<T>(m, n);
              Matrix<T> want = b;
              Args x;
              x.side = side, x.uplo = uplo, x.ta = *t, x.diag = diag, x.m = m, x.n = n, x.lda = a.ld, x.ldb = b.ld;
              if (solve)
                call_trmm<T, true>(Via::next, x, alpha, a.data.data(), want.ptr());
              else
                call_trmm<T, false>(Via::next, x, alpha, a.data.data(), want.ptr());
              Matrix<T> sa = store(a, layout, 1), sb = store(b, layout, 2);
              fn<void(int, int, int, int, int, lint, lint, CS, const T *, lint, T *, lint)>(
                  Via::hqr, cname<T>(solve ? "trsm" : "trmm"))(layout, cb_side(side), cb_uplo(uplo), cb_trans(*t),
                                                               cb_diag(diag), m, n, cb_scalar(alpha), sa.ptr(), sa.ld,
                                                               sb.ptr(), sb.ld);
              expect(sb, want, solve ? norm_fro(want) : std::abs(alpha) * norm_fro(a) * norm_fro(b), na,
                     solve ? "trsm" : "trmm", all);
            }
  }
}

// CBLAS's illegal arguments go to the next library's CBLAS as they are:
// the same XERBLA report as calling it directly.
template <class T> void cblas_illegal(void **) {
  using CS = decltype(cb_scalar(T()));
  using F = void(int, int, int, lint, lint, lint, CS, const T *, lint, const T *, lint, CS, T *, lint);
  Matrix<T> a = random_matrix<T>(8, 8), b = random_matrix<T>(8, 8), c = random_matrix<T>(8, 8);
  const T alpha = scalar<T>(), beta = scalar<T>();
  struct Case {
    int layout, ta;
    lint m, ldc;
  };
  for (Case k : {Case{99, NoTrans, 4, 8}, Case{ColMajor, 7, 4, 8}, Case{RowMajor, NoTrans, -1, 8},
                 Case{ColMajor, NoTrans, 4, 2}, Case{RowMajor, NoTrans, 4, 2}}) {
    XerblaLog logs[2];
    Matrix<T> got[2] = {c, c};
    for (int i = 0; i < 2; ++i) {
      xerbla_reset();
      fn<F>(i ? Via::hqr : Via::next, cname<T>("gemm"))(k.layout, k.ta, NoTrans, k.m, 4, 4, cb_scalar(alpha),
                                                        a.ptr(), 8, b.ptr(), 8, cb_scalar(beta), got[i].ptr(), k.ldc);
      logs[i] = xerbla_log();
    }
    xerbla_reset();
    if (logs[0].calls != logs[1].calls || std::strcmp(logs[0].name, logs[1].name) != 0 || logs[0].info != logs[1].info)
      fail_msg("cblas_%cgemm layout=%d trans=%d m=%ld ldc=%ld: hqr reported %d x %s %ld, the next CBLAS %d x %s %ld",
               prefix<T>(), k.layout, k.ta, long(k.m), long(k.ldc), logs[1].calls, logs[1].name, logs[1].info,
               logs[0].calls, logs[0].name, logs[0].info);
    if (!same_bytes(got[1], c)) fail_msg("cblas_%cgemm illegal call wrote C", prefix<T>());
  }
}

// hqr's symbols are the ones a program binds to, and they are traced.
void symbols_are_hqrs(void **) {
  for (const char *name : {"dgemm_", "zher2k_", "strsm_", "cblas_zgemm", "cblas_ctrmm", "cblas_dsyrk"}) {
    Dl_info info{};
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!p || !dladdr(p, &info) || !std::strstr(info.dli_fname, "libhqr")) fail_msg("%s is not libhqr's", name);
  }
  const long before = hqr_path_calls('c') + hqr_path_calls('g') + hqr_path_calls('r');
  Matrix<double> a = random_matrix<double>(4, 4), b = random_matrix<double>(4, 4), c = random_matrix<double>(4, 4);
  Args x;
  x.m = x.n = x.k = 4, x.lda = x.ldb = x.ldc = 4;
  call_gemm<double>(Via::hqr, x, 1.5, a.ptr(), b.ptr(), 0.5, c.ptr());
  assert_int_equal(hqr_path_calls('c') + hqr_path_calls('g') + hqr_path_calls('r'), before + 1);
}

}  // namespace

#define ALL_TYPES(test)                                                                                  \
  cmocka_unit_test(test<float>), cmocka_unit_test(test<double>), cmocka_unit_test(test<std::complex<float>>), \
      cmocka_unit_test(test<std::complex<double>>)
#define ALL_TYPES_B(test, B)                                                                            \
  cmocka_unit_test((test<float, B>)), cmocka_unit_test((test<double, B>)),                              \
      cmocka_unit_test((test<std::complex<float>, B>)), cmocka_unit_test((test<std::complex<double>, B>))
#define COMPLEX_B(test, B) cmocka_unit_test((test<std::complex<float>, B>)), cmocka_unit_test((test<std::complex<double>, B>))

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(symbols_are_hqrs),
      ALL_TYPES(gemm_options),
      ALL_TYPES(gemm_large),
      ALL_TYPES_B(symm_options, false),
      COMPLEX_B(symm_options, true),
      ALL_TYPES_B(symm_large, false),
      COMPLEX_B(symm_large, true),
      ALL_TYPES_B(syrk_options, false),
      COMPLEX_B(syrk_options, true),
      ALL_TYPES_B(syrk_large, false),
      COMPLEX_B(syrk_large, true),
      ALL_TYPES_B(syr2k_options, false),
      COMPLEX_B(syr2k_options, true),
      ALL_TYPES_B(syr2k_large, false),
      COMPLEX_B(syr2k_large, true),
      ALL_TYPES_B(trmm_options, false),
      ALL_TYPES_B(trmm_options, true),
      ALL_TYPES_B(trmm_large, false),
      ALL_TYPES_B(trmm_large, true),
      ALL_TYPES(quick_returns),
      ALL_TYPES(illegal_arguments),
      ALL_TYPES(cblas_layouts),
      ALL_TYPES(cblas_illegal),
  };
  // HQR_TEST_FILTER (a cmocka pattern, e.g. "*gemm*") runs a subset: the GPU
  // machine's fault and sanitizer runs.
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
