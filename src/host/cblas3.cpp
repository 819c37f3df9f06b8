// Level-3 CBLAS: cblas_xgemm, xsymm/xhemm, xsyrk/xherk, xsyr2k/xher2k,
// xtrmm, xtrsm (s, d, c, z), both layouts, onto the Fortran-convention front
// (blas3.hpp). A row-major call is the column-major call on the transposed
// views of its arrays: operands and dimensions swapped (gemm), side and uplo
// flipped (symm/hemm, trmm/trsm, whose transposes stay), uplo flipped and
// the transpose turned over (syrk: N <-> T; herk: N <-> C; her2k also
// conjugates alpha, since (A B**H)**T = conj(B) A**T). hemm needs no
// conjugation: the transposed view of a Hermitian A is Hermitian, conj(A).
//
// Integers are lapack_int (64-bit in libhqr64.so, as Debian's libblas64's
// CBLAS); the enums are cblas.h's values, passed as int. A call the front
// does not take (an illegal layout, enum or dimension, a quick return)
// goes verbatim to the next library's cblas_* entry point,
// which reports it through cblas_xerbla as the CBLAS test programs expect.
#include "blas3.hpp"
#include "next_lapack.hpp"

namespace hqr::cblas {
namespace {

// cblas.h's enumerations.
enum : int { kRowMajor = 101, kColMajor = 102 };
enum : int { kNoTrans = 111, kTrans = 112, kConjTrans = 113 };
enum : int { kUpper = 121, kLower = 122 };
enum : int { kNonUnit = 131, kUnit = 132 };
enum : int { kLeft = 141, kRight = 142 };

// The Fortran character of an enum ('?' for a value cblas.h does not have:
// the front finds it illegal). flip: the row-major call's.
char trans_of(int t) {
  return t == kNoTrans ? 'N' : t == kTrans ? 'T' : t == kConjTrans ? 'C' : '?';
}
char uplo_of(int u, bool flip) {
  return u == kUpper ? (flip ? 'L' : 'U') : u == kLower ? (flip ? 'U' : 'L') : '?';
}
char side_of(int s, bool flip) {
  return s == kLeft ? (flip ? 'R' : 'L') : s == kRight ? (flip ? 'L' : 'R') : '?';
}
char diag_of(int d) {
  return d == kNonUnit ? 'N' : d == kUnit ? 'U' : '?';
}
// xSYRK/xSYR2K/xHERK/xHER2K's transpose in a row-major call: turned over
// ('N' <-> 'T', 'N' <-> 'C' for the Hermitian ones); ConjTrans of a real
// matrix is Trans; what the routine does not accept stays illegal.
template <class T, bool Herm> char rank_k_row_trans(int t) {
  if constexpr (Herm) return t == kNoTrans ? 'C' : t == kConjTrans ? 'N' : '?';
  if (t == kNoTrans) return 'T';
  return t == kTrans || (t == kConjTrans && !is_complex<T>) ? 'N' : '?';
}

// Each returns false, having done nothing, where the caller forwards.
template <class T>
bool gemm(int layout, int ta, int tb, lint m, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb,
          T beta, T *c, lint ldc) {
  if (layout == kColMajor)
    return blas3::gemm<T>(trans_of(ta), trans_of(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (layout == kRowMajor)
    return blas3::gemm<T>(trans_of(tb), trans_of(ta), n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
  return false;
}
template <class T, bool Herm>
bool symm(int layout, int side, int uplo, lint m, lint n, T alpha, const T *a, lint lda, const T *b, lint ldb, T beta,
          T *c, lint ldc) {
  if (layout != kColMajor && layout != kRowMajor) return false;
  const bool row = layout == kRowMajor;
  return blas3::symm<T, Herm>(side_of(side, row), uplo_of(uplo, row), row ? n : m, row ? m : n, alpha, a, lda, b, ldb,
                              beta, c, ldc);
}
template <class T, bool Herm, class S = blas3::Scalar<T, Herm>>
bool syrk(int layout, int uplo, int trans, lint n, lint k, S alpha, const T *a, lint lda, S beta, T *c, lint ldc) {
  if (layout != kColMajor && layout != kRowMajor) return false;
  const bool row = layout == kRowMajor;
  return blas3::syrk<T, Herm>(uplo_of(uplo, row), row ? rank_k_row_trans<T, Herm>(trans) : trans_of(trans), n, k, alpha,
                              a, lda, beta, c, ldc);
}
template <class T, bool Herm, class S = blas3::Scalar<T, Herm>>
bool syr2k(int layout, int uplo, int trans, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb, S beta,
           T *c, lint ldc) {
  if (layout != kColMajor && layout != kRowMajor) return false;
  const bool row = layout == kRowMajor;
  return blas3::syr2k<T, Herm>(uplo_of(uplo, row), row ? rank_k_row_trans<T, Herm>(trans) : trans_of(trans), n, k,
                               row && Herm ? conj_of(alpha) : alpha, a, lda, b, ldb, beta, c, ldc);
}
template <class T, bool Solve>
bool trmm(int layout, int side, int uplo, int trans, int diag, lint m, lint n, T alpha, const T *a, lint lda, T *b,
          lint ldb) {
  if (layout != kColMajor && layout != kRowMajor) return false;
  const bool row = layout == kRowMajor;
  return blas3::trmm<T, Solve>(side_of(side, row), uplo_of(uplo, row), trans_of(trans), diag_of(diag), row ? n : m,
                               row ? m : n, alpha, a, lda, b, ldb);
}

// Complex scalars come by pointer.
template <class T> T value(const void *p) {
  return *static_cast<const T *>(p);
}
template <class T> const T *in(const void *p) {
  return static_cast<const T *>(p);
}
template <class T> T *out(void *p) {
  return static_cast<T *>(p);
}

}  // namespace

// The next library's entry point `name`, typed as F (resolved once per
// entry point by the caller's function-local static).
template <class F> F *next_fn(const char *name) {
  return reinterpret_cast<F *>(next::require(name));
}

}  // namespace hqr::cblas

using hqr::lint;
namespace cb = hqr::cblas;

// Exported: the CBLAS names are hqr's ABI (cblas.h declares them).
#pragma GCC visibility push(default)
extern "C" {
void cblas_sgemm(int layout, int transa, int transb, lint m, lint n, lint k, const float alpha, const float *a,
                 lint lda, const float *b, lint ldb, const float beta, float *c, lint ldc) {
  if (cb::gemm<float>(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;
  static auto *const next = cb::next_fn<decltype(cblas_sgemm)>("cblas_sgemm");
  next(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_dgemm(int layout, int transa, int transb, lint m, lint n, lint k, const double alpha, const double *a,
                 lint lda, const double *b, lint ldb, const double beta, double *c, lint ldc) {
  if (cb::gemm<double>(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;
  static auto *const next = cb::next_fn<decltype(cblas_dgemm)>("cblas_dgemm");
  next(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_cgemm(int layout, int transa, int transb, lint m, lint n, lint k, const void *alpha, const void *a, lint lda,
                 const void *b, lint ldb, const void *beta, void *c, lint ldc) {
  if (cb::gemm<std::complex<float>>(layout, transa, transb, m, n, k, cb::value<std::complex<float>>(alpha),
                                    cb::in<std::complex<float>>(a), lda, cb::in<std::complex<float>>(b), ldb,
                                    cb::value<std::complex<float>>(beta), cb::out<std::complex<float>>(c), ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_cgemm)>("cblas_cgemm");
  next(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_zgemm(int layout, int transa, int transb, lint m, lint n, lint k, const void *alpha, const void *a, lint lda,
                 const void *b, lint ldb, const void *beta, void *c, lint ldc) {
  if (cb::gemm<std::complex<double>>(layout, transa, transb, m, n, k, cb::value<std::complex<double>>(alpha),
                                     cb::in<std::complex<double>>(a), lda, cb::in<std::complex<double>>(b), ldb,
                                     cb::value<std::complex<double>>(beta), cb::out<std::complex<double>>(c), ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_zgemm)>("cblas_zgemm");
  next(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_ssymm(int layout, int side, int uplo, lint m, lint n, const float alpha, const float *a, lint lda,
                 const float *b, lint ldb, const float beta, float *c, lint ldc) {
  if (cb::symm<float, false>(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc)) return;
  static auto *const next = cb::next_fn<decltype(cblas_ssymm)>("cblas_ssymm");
  next(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_dsymm(int layout, int side, int uplo, lint m, lint n, const double alpha, const double *a, lint lda,
                 const double *b, lint ldb, const double beta, double *c, lint ldc) {
  if (cb::symm<double, false>(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc)) return;
  static auto *const next = cb::next_fn<decltype(cblas_dsymm)>("cblas_dsymm");
  next(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_csymm(int layout, int side, int uplo, lint m, lint n, const void *alpha, const void *a, lint lda,
                 const void *b, lint ldb, const void *beta, void *c, lint ldc) {
  if (cb::symm<std::complex<float>, false>(layout, side, uplo, m, n, cb::value<std::complex<float>>(alpha),
                                           cb::in<std::complex<float>>(a), lda, cb::in<std::complex<float>>(b), ldb,
                                           cb::value<std::complex<float>>(beta), cb::out<std::complex<float>>(c), ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_csymm)>("cblas_csymm");
  next(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_zsymm(int layout, int side, int uplo, lint m, lint n, const void *alpha, const void *a, lint lda,
                 const void *b, lint ldb, const void *beta, void *c, lint ldc) {
  if (cb::symm<std::complex<double>, false>(layout, side, uplo, m, n, cb::value<std::complex<double>>(alpha),
                                            cb::in<std::complex<double>>(a), lda, cb::in<std::complex<double>>(b), ldb,
                                            cb::value<std::complex<double>>(beta), cb::out<std::complex<double>>(c),
                                            ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_zsymm)>("cblas_zsymm");
  next(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_chemm(int layout, int side, int uplo, lint m, lint n, const void *alpha, const void *a, lint lda,
                 const void *b, lint ldb, const void *beta, void *c, lint ldc) {
  if (cb::symm<std::complex<float>, true>(layout, side, uplo, m, n, cb::value<std::complex<float>>(alpha),
                                          cb::in<std::complex<float>>(a), lda, cb::in<std::complex<float>>(b), ldb,
                                          cb::value<std::complex<float>>(beta), cb::out<std::complex<float>>(c), ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_chemm)>("cblas_chemm");
  next(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_zhemm(int layout, int side, int uplo, lint m, lint n, const void *alpha, const void *a, lint lda,
                 const void *b, lint ldb, const void *beta, void *c, lint ldc) {
  if (cb::symm<std::complex<double>, true>(layout, side, uplo, m, n, cb::value<std::complex<double>>(alpha),
                                           cb::in<std::complex<double>>(a), lda, cb::in<std::complex<double>>(b), ldb,
                                           cb::value<std::complex<double>>(beta), cb::out<std::complex<double>>(c),
                                           ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_zhemm)>("cblas_zhemm");
  next(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_ssyrk(int layout, int uplo, int trans, lint n, lint k, const float alpha, const float *a, lint lda,
                 const float beta, float *c, lint ldc) {
  if (cb::syrk<float, false>(layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc)) return;
  static auto *const next = cb::next_fn<decltype(cblas_ssyrk)>("cblas_ssyrk");
  next(layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}
void cblas_dsyrk(int layout, int uplo, int trans, lint n, lint k, const double alpha, const double *a, lint lda,
                 const double beta, double *c, lint ldc) {
  if (cb::syrk<double, false>(layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc)) return;
  static auto *const next = cb::next_fn<decltype(cblas_dsyrk)>("cblas_dsyrk");
  next(layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}
void cblas_csyrk(int layout, int uplo, int trans, lint n, lint k, const void *alpha, const void *a, lint lda,
                 const void *beta, void *c, lint ldc) {
  if (cb::syrk<std::complex<float>, false>(layout, uplo, trans, n, k, cb::value<std::complex<float>>(alpha),
                                           cb::in<std::complex<float>>(a), lda, cb::value<std::complex<float>>(beta),
                                           cb::out<std::complex<float>>(c), ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_csyrk)>("cblas_csyrk");
  next(layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}
void cblas_zsyrk(int layout, int uplo, int trans, lint n, lint k, const void *alpha, const void *a, lint lda,
                 const void *beta, void *c, lint ldc) {
  if (cb::syrk<std::complex<double>, false>(layout, uplo, trans, n, k, cb::value<std::complex<double>>(alpha),
                                            cb::in<std::complex<double>>(a), lda, cb::value<std::complex<double>>(beta),
                                            cb::out<std::complex<double>>(c), ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_zsyrk)>("cblas_zsyrk");
  next(layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}
void cblas_cherk(int layout, int uplo, int trans, lint n, lint k, const float alpha, const void *a, lint lda,
                 const float beta, void *c, lint ldc) {
  if (cb::syrk<std::complex<float>, true>(layout, uplo, trans, n, k, alpha, cb::in<std::complex<float>>(a), lda, beta,
                                          cb::out<std::complex<float>>(c), ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_cherk)>("cblas_cherk");
  next(layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}
void cblas_zherk(int layout, int uplo, int trans, lint n, lint k, const double alpha, const void *a, lint lda,
                 const double beta, void *c, lint ldc) {
  if (cb::syrk<std::complex<double>, true>(layout, uplo, trans, n, k, alpha, cb::in<std::complex<double>>(a), lda, beta,
                                           cb::out<std::complex<double>>(c), ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_zherk)>("cblas_zherk");
  next(layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}
void cblas_ssyr2k(int layout, int uplo, int trans, lint n, lint k, const float alpha, const float *a, lint lda,
                  const float *b, lint ldb, const float beta, float *c, lint ldc) {
  if (cb::syr2k<float, false>(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;
  static auto *const next = cb::next_fn<decltype(cblas_ssyr2k)>("cblas_ssyr2k");
  next(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_dsyr2k(int layout, int uplo, int trans, lint n, lint k, const double alpha, const double *a, lint lda,
                  const double *b, lint ldb, const double beta, double *c, lint ldc) {
  if (cb::syr2k<double, false>(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;
  static auto *const next = cb::next_fn<decltype(cblas_dsyr2k)>("cblas_dsyr2k");
  next(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_csyr2k(int layout, int uplo, int trans, lint n, lint k, const void *alpha, const void *a, lint lda,
                  const void *b, lint ldb, const void *beta, void *c, lint ldc) {
  if (cb::syr2k<std::complex<float>, false>(layout, uplo, trans, n, k, cb::value<std::complex<float>>(alpha),
                                            cb::in<std::complex<float>>(a), lda, cb::in<std::complex<float>>(b), ldb,
                                            cb::value<std::complex<float>>(beta), cb::out<std::complex<float>>(c), ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_csyr2k)>("cblas_csyr2k");
  next(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_zsyr2k(int layout, int uplo, int trans, lint n, lint k, const void *alpha, const void *a, lint lda,
                  const void *b, lint ldb, const void *beta, void *c, lint ldc) {
  if (cb::syr2k<std::complex<double>, false>(layout, uplo, trans, n, k, cb::value<std::complex<double>>(alpha),
                                             cb::in<std::complex<double>>(a), lda, cb::in<std::complex<double>>(b), ldb,
                                             cb::value<std::complex<double>>(beta), cb::out<std::complex<double>>(c),
                                             ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_zsyr2k)>("cblas_zsyr2k");
  next(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_cher2k(int layout, int uplo, int trans, lint n, lint k, const void *alpha, const void *a, lint lda,
                  const void *b, lint ldb, const float beta, void *c, lint ldc) {
  if (cb::syr2k<std::complex<float>, true>(layout, uplo, trans, n, k, cb::value<std::complex<float>>(alpha),
                                           cb::in<std::complex<float>>(a), lda, cb::in<std::complex<float>>(b), ldb,
                                           beta, cb::out<std::complex<float>>(c), ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_cher2k)>("cblas_cher2k");
  next(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_zher2k(int layout, int uplo, int trans, lint n, lint k, const void *alpha, const void *a, lint lda,
                  const void *b, lint ldb, const double beta, void *c, lint ldc) {
  if (cb::syr2k<std::complex<double>, true>(layout, uplo, trans, n, k, cb::value<std::complex<double>>(alpha),
                                            cb::in<std::complex<double>>(a), lda, cb::in<std::complex<double>>(b), ldb,
                                            beta, cb::out<std::complex<double>>(c), ldc))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_zher2k)>("cblas_zher2k");
  next(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_strmm(int layout, int side, int uplo, int transa, int diag, lint m, lint n, const float alpha,
                 const float *a, lint lda, float *b, lint ldb) {
  if (cb::trmm<float, false>(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)) return;
  static auto *const next = cb::next_fn<decltype(cblas_strmm)>("cblas_strmm");
  next(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
}
void cblas_dtrmm(int layout, int side, int uplo, int transa, int diag, lint m, lint n, const double alpha,
                 const double *a, lint lda, double *b, lint ldb) {
  if (cb::trmm<double, false>(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)) return;
  static auto *const next = cb::next_fn<decltype(cblas_dtrmm)>("cblas_dtrmm");
  next(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
}
void cblas_ctrmm(int layout, int side, int uplo, int transa, int diag, lint m, lint n, const void *alpha, const void *a,
                 lint lda, void *b, lint ldb) {
  if (cb::trmm<std::complex<float>, false>(layout, side, uplo, transa, diag, m, n,
                                           cb::value<std::complex<float>>(alpha), cb::in<std::complex<float>>(a), lda,
                                           cb::out<std::complex<float>>(b), ldb))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_ctrmm)>("cblas_ctrmm");
  next(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
}
void cblas_ztrmm(int layout, int side, int uplo, int transa, int diag, lint m, lint n, const void *alpha, const void *a,
                 lint lda, void *b, lint ldb) {
  if (cb::trmm<std::complex<double>, false>(layout, side, uplo, transa, diag, m, n,
                                            cb::value<std::complex<double>>(alpha), cb::in<std::complex<double>>(a),
                                            lda, cb::out<std::complex<double>>(b), ldb))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_ztrmm)>("cblas_ztrmm");
  next(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
}
void cblas_strsm(int layout, int side, int uplo, int transa, int diag, lint m, lint n, const float alpha,
                 const float *a, lint lda, float *b, lint ldb) {
  if (cb::trmm<float, true>(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)) return;
  static auto *const next = cb::next_fn<decltype(cblas_strsm)>("cblas_strsm");
  next(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
}
void cblas_dtrsm(int layout, int side, int uplo, int transa, int diag, lint m, lint n, const double alpha,
                 const double *a, lint lda, double *b, lint ldb) {
  if (cb::trmm<double, true>(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)) return;
  static auto *const next = cb::next_fn<decltype(cblas_dtrsm)>("cblas_dtrsm");
  next(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
}
void cblas_ctrsm(int layout, int side, int uplo, int transa, int diag, lint m, lint n, const void *alpha, const void *a,
                 lint lda, void *b, lint ldb) {
  if (cb::trmm<std::complex<float>, true>(layout, side, uplo, transa, diag, m, n, cb::value<std::complex<float>>(alpha),
                                          cb::in<std::complex<float>>(a), lda, cb::out<std::complex<float>>(b), ldb))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_ctrsm)>("cblas_ctrsm");
  next(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
}
void cblas_ztrsm(int layout, int side, int uplo, int transa, int diag, lint m, lint n, const void *alpha, const void *a,
                 lint lda, void *b, lint ldb) {
  if (cb::trmm<std::complex<double>, true>(layout, side, uplo, transa, diag, m, n,
                                           cb::value<std::complex<double>>(alpha), cb::in<std::complex<double>>(a), lda,
                                           cb::out<std::complex<double>>(b), ldb))
    return;
  static auto *const next = cb::next_fn<decltype(cblas_ztrsm)>("cblas_ztrsm");
  next(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
}
}
#pragma GCC visibility pop
