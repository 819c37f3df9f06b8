// Level-3 BLAS: xGEMM, xSYMM/xHEMM, xSYRK/xHERK, xSYR2K/xHER2K, xTRMM, xTRSM
// (s, d, c, z), the Fortran entry points and the one precision-generic front
// behind them and the CBLAS ones (cblas3.cpp). Contract: the reference BLAS
// 3.11's, argument for argument (blas3.hpp says what the front takes).
//
// A call that is not hqr's to run (illegal, a quick return, or made from
// inside one of hqr's routines) goes verbatim to the next BLAS, with the
// caller's hidden lengths, so that it reports it exactly as it always has.
// alpha == 0 and k == 0 hqr answers itself (C := beta*C, B := 0) without
// reading A or B (OpenBLAS 0.3.21's small xGEMMs do read them: NaN there
// comes out), and beta == 0 zeroes C before the next BLAS adds to it: the
// reference BLAS's promises, kept whatever the next BLAS does. Every other call is traced (HQR_VERBOSE, the path
// counters) and runs where choose_blas3_path sends it: the GPUs (gpu::gemm etc., which leave C untouched when they do
// not run), or the next BLAS. No lock on the way: many threads calling small products go straight through to the next
// BLAS side by side.
#include "blas3.hpp"

#include <algorithm>
#include <cstddef>

#include "cuda/gpu.hpp"
#include "dispatch.hpp"
#include "flops.hpp"
#include "next_lapack.hpp"
#include "trace.hpp"

namespace hqr {
namespace {

// The next BLAS's routines, typed, resolved once per routine and type (a
// function-local static: after the first call, a plain load).
template <class T>
using GemmF = void(const char *, const char *, const lint *, const lint *, const lint *, const T *, const T *,
                   const lint *, const T *, const lint *, const T *, T *, const lint *, std::size_t, std::size_t);
template <class T>
using SymmF = void(const char *, const char *, const lint *, const lint *, const T *, const T *, const lint *,
                   const T *, const lint *, const T *, T *, const lint *, std::size_t, std::size_t);
template <class T, class S>
using SyrkF = void(const char *, const char *, const lint *, const lint *, const S *, const T *, const lint *,
                   const S *, T *, const lint *, std::size_t, std::size_t);
template <class T, class S>
using Syr2kF = void(const char *, const char *, const lint *, const lint *, const T *, const T *, const lint *,
                    const T *, const lint *, const S *, T *, const lint *, std::size_t, std::size_t);
template <class T>
using TrmmF = void(const char *, const char *, const char *, const char *, const lint *, const lint *, const T *,
                   const T *, const lint *, T *, const lint *, std::size_t, std::size_t, std::size_t, std::size_t);

template <class T> GemmF<T> *next_gemm() {
  static GemmF<T> *const f = next::fn<GemmF<T>, T>("gemm");
  return f;
}
template <class T, bool Herm> SymmF<T> *next_symm() {
  static SymmF<T> *const f = next::fn<SymmF<T>, T>(Herm ? "hemm" : "symm");
  return f;
}
template <class T, bool Herm> SyrkF<T, blas3::Scalar<T, Herm>> *next_syrk() {
  static SyrkF<T, blas3::Scalar<T, Herm>> *const f =
      next::fn<SyrkF<T, blas3::Scalar<T, Herm>>, T>(Herm ? "herk" : "syrk");
  return f;
}
template <class T, bool Herm> Syr2kF<T, blas3::Scalar<T, Herm>> *next_syr2k() {
  static Syr2kF<T, blas3::Scalar<T, Herm>> *const f =
      next::fn<Syr2kF<T, blas3::Scalar<T, Herm>>, T>(Herm ? "her2k" : "syr2k");
  return f;
}
template <class T, bool Solve> TrmmF<T> *next_trmm() {
  static TrmmF<T> *const f = next::fn<TrmmF<T>, T>(Solve ? "trsm" : "trmm");
  return f;
}

// LSAME's view of a CHARACTER argument: its first character, upper case.
char upper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}
// The transposes that the reference BLAS accepts: 'N', 'T', 'C' for xGEMM,
// xTRMM, xTRSM and the real xSYRK/xSYR2K; 'N', 'T' for the complex
// symmetric ones; 'N', 'C' for the Hermitian ones.
enum class Ops { all, sym, herm };
bool legal_trans(char t, Ops ops) {
  switch (ops) {
    case Ops::all:
      return t == 'N' || t == 'T' || t == 'C';
    case Ops::sym:
      return t == 'N' || t == 'T';
    case Ops::herm:
      return t == 'N' || t == 'C';
  }
  return false;
}
template <class T, bool Herm> constexpr Ops rank_k_ops() {
  return Herm ? Ops::herm : is_complex<T> ? Ops::sym : Ops::all;
}
// The transpose as gpu:: takes it: 'C' of a real matrix is 'T'.
template <class T> char gpu_op(char t) {
  return !is_complex<T> && t == 'C' ? 'T' : t;
}

// C := beta*C over an m-by-n block; beta = 0 writes zeros without reading
// C (NaN there does not come out), as the reference BLAS does.
template <class T> void scale(lint m, lint n, T beta, T *c, lint ldc) {
  for (lint j = 0; j < n; ++j) {
    T *col = c + std::size_t(j) * ldc;
    for (lint i = 0; i < m; ++i) col[i] = beta == T(0) ? T(0) : beta * col[i];
  }
}
// The same over the uplo triangle of an order-n C; herm: the diagonal's
// imaginary part becomes 0 (xHERK/xHER2K: C(j,j) = beta*real(C(j,j))).
template <class T> void scale_triangle(bool upper, lint n, T beta, T *c, lint ldc, bool herm) {
  for (lint j = 0; j < n; ++j) {
    T *col = c + std::size_t(j) * ldc;
    const lint first = upper ? 0 : j, last = upper ? j + 1 : n;
    for (lint i = first; i < last; ++i) {
      const T x = herm && i == j ? T(std::real(col[i])) : col[i];
      col[i] = beta == T(0) ? T(0) : beta * x;
    }
  }
}

// Elements of an order-n triangle, diagonal included.
double triangle(double n) {
  return n * (n + 1) / 2;
}

// The GPUs when the cost model sends the call there and they ran it; the
// next BLAS otherwise (gpu:: leaves C, or B, untouched when it did not run).
template <class Gpu, class Cpu>
void run(Trace &trace, char prec, double flops, double bytes, Dims dims, Gpu &&on_gpu, Cpu &&on_cpu) {
  const Decision d = choose_blas3_path(prec, flops, bytes, dims);
  if (d.path == Path::gpu) {
    const gpu::Result r = on_gpu();
    trace.devices(r.devices);
    if (r.ran) {
      trace.path(r.why ? "cpu-resumed" : r.path ? r.path : "gpu", r.why);
      return;
    }
    trace.path("cpu", r.why);
  } else {
    trace.path("cpu", d.why);
  }
  on_cpu();
}

}  // namespace

namespace blas3 {

template <class T>
bool gemm(char transa, char transb, lint m, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb, T beta,
          T *c, lint ldc) {
  const char ta = upper(transa), tb = upper(transb);
  const lint nrowa = ta == 'N' ? m : k, nrowb = tb == 'N' ? k : n;
  if (!legal_trans(ta, Ops::all) || !legal_trans(tb, Ops::all) || m < 0 || n < 0 || k < 0 || lda < max1(nrowa) ||
      ldb < max1(nrowb) || ldc < max1(m))
    return false;
  if (m == 0 || n == 0 || ((alpha == T(0) || k == 0) && beta == T(1))) return false;  // quick return
  if (alpha == T(0) || k == 0) {
    scale(m, n, beta, c, ldc);
    return true;
  }
  if (Trace::active()) return false;

  const double flops = flops::gemm<T>(m, n, k);
  Trace trace(routine_name<T>("GEMM"), flops);
  trace.args("transa=%c transb=%c m=%ld n=%ld k=%ld lda=%ld ldb=%ld ldc=%ld", ta, tb, long(m), long(n), long(k),
             long(lda), long(ldb), long(ldc));
  const double bytes = sizeof(T) * (double(m) * k + double(k) * n + double(m) * n * (beta == T(0) ? 1 : 2));
  run(
      trace, Prec<T>::letter, flops, bytes, Dims{std::min(m, n), k},
      [&] { return gpu::gemm<T>(gpu_op<T>(ta), gpu_op<T>(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); },
      [&] {
        if (beta == T(0)) scale(m, n, beta, c, ldc);
        next_gemm<T>()(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
      });
  return true;
}

template <class T, bool Herm>
bool symm(char side, char uplo, lint m, lint n, T alpha, const T *a, lint lda, const T *b, lint ldb, T beta, T *c,
          lint ldc) {
  const char s = upper(side), u = upper(uplo);
  const lint nrowa = s == 'L' ? m : n;
  if ((s != 'L' && s != 'R') || (u != 'U' && u != 'L') || m < 0 || n < 0 || lda < max1(nrowa) || ldb < max1(m) ||
      ldc < max1(m))
    return false;
  if (m == 0 || n == 0 || (alpha == T(0) && beta == T(1))) return false;  // quick return
  if (alpha == T(0)) {
    scale(m, n, beta, c, ldc);
    return true;
  }
  if (Trace::active()) return false;

  const double flops = flops::symm<T>(s == 'L', m, n);
  Trace trace(routine_name<T>(Herm ? "HEMM" : "SYMM"), flops);
  trace.args("side=%c uplo=%c m=%ld n=%ld lda=%ld ldb=%ld ldc=%ld", s, u, long(m), long(n), long(lda), long(ldb),
             long(ldc));
  const double bytes = sizeof(T) * (triangle(nrowa) + double(m) * n + double(m) * n * (beta == T(0) ? 1 : 2));
  run(
      trace, Prec<T>::letter, flops, bytes, Dims{std::min(m, n), nrowa},
      [&] { return gpu::symm<T>(s == 'L', u == 'U', Herm, m, n, alpha, a, lda, b, ldb, beta, c, ldc); },
      [&] {
        if (beta == T(0)) scale(m, n, beta, c, ldc);
        next_symm<T, Herm>()(&s, &u, &m, &n, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
      });
  return true;
}

template <class T, bool Herm>
bool syrk(char uplo, char trans, lint n, lint k, Scalar<T, Herm> alpha, const T *a, lint lda, Scalar<T, Herm> beta,
          T *c, lint ldc) {
  const char u = upper(uplo), t = upper(trans);
  const lint nrowa = t == 'N' ? n : k;
  if ((u != 'U' && u != 'L') || !legal_trans(t, rank_k_ops<T, Herm>()) || n < 0 || k < 0 || lda < max1(nrowa) ||
      ldc < max1(n))
    return false;
  using S = Scalar<T, Herm>;
  if (n == 0 || ((alpha == S(0) || k == 0) && beta == S(1))) return false;  // quick return
  if (alpha == S(0) || k == 0) {
    scale_triangle(u == 'U', n, T(beta), c, ldc, Herm);
    return true;
  }
  if (Trace::active()) return false;

  const double flops = flops::syrk<T>(n, k);
  Trace trace(routine_name<T>(Herm ? "HERK" : "SYRK"), flops);
  trace.args("uplo=%c trans=%c n=%ld k=%ld lda=%ld ldc=%ld", u, t, long(n), long(k), long(lda), long(ldc));
  const double bytes = sizeof(T) * (double(n) * k + triangle(n) * (beta == Scalar<T, Herm>(0) ? 1 : 2));
  const char op = t == 'N' ? 'N' : Herm ? 'C' : 'T';
  run(
      trace, Prec<T>::letter, flops, bytes, Dims{n, k},
      [&] { return gpu::syrk<T>(u == 'U', op, Herm, n, k, T(alpha), a, lda, T(beta), c, ldc); },
      [&] {
        if (beta == S(0)) scale_triangle(u == 'U', n, T(0), c, ldc, Herm);
        next_syrk<T, Herm>()(&u, &t, &n, &k, &alpha, a, &lda, &beta, c, &ldc, 1, 1);
      });
  return true;
}

template <class T, bool Herm>
bool syr2k(char uplo, char trans, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb,
           Scalar<T, Herm> beta, T *c, lint ldc) {
  const char u = upper(uplo), t = upper(trans);
  const lint nrowa = t == 'N' ? n : k;
  if ((u != 'U' && u != 'L') || !legal_trans(t, rank_k_ops<T, Herm>()) || n < 0 || k < 0 || lda < max1(nrowa) ||
      ldb < max1(nrowa) || ldc < max1(n))
    return false;
  using S = Scalar<T, Herm>;
  if (n == 0 || ((alpha == T(0) || k == 0) && beta == S(1))) return false;  // quick return
  if (alpha == T(0) || k == 0) {
    scale_triangle(u == 'U', n, T(beta), c, ldc, Herm);
    return true;
  }
  if (Trace::active()) return false;

  const double flops = flops::syr2k<T>(n, k);
  Trace trace(routine_name<T>(Herm ? "HER2K" : "SYR2K"), flops);
  trace.args("uplo=%c trans=%c n=%ld k=%ld lda=%ld ldb=%ld ldc=%ld", u, t, long(n), long(k), long(lda), long(ldb),
             long(ldc));
  const double bytes = sizeof(T) * (2.0 * n * k + triangle(n) * (beta == Scalar<T, Herm>(0) ? 1 : 2));
  const char op = t == 'N' ? 'N' : Herm ? 'C' : 'T';
  run(
      trace, Prec<T>::letter, flops, bytes, Dims{n, k},
      [&] { return gpu::syr2k<T>(u == 'U', op, Herm, n, k, alpha, a, lda, b, ldb, T(beta), c, ldc); },
      [&] {
        if (beta == S(0)) scale_triangle(u == 'U', n, T(0), c, ldc, Herm);
        next_syr2k<T, Herm>()(&u, &t, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
      });
  return true;
}

template <class T, bool Solve>
bool trmm(char side, char uplo, char transa, char diag, lint m, lint n, T alpha, const T *a, lint lda, T *b, lint ldb) {
  const char s = upper(side), u = upper(uplo), t = upper(transa), d = upper(diag);
  const lint nrowa = s == 'L' ? m : n;
  if ((s != 'L' && s != 'R') || (u != 'U' && u != 'L') || !legal_trans(t, Ops::all) || (d != 'U' && d != 'N') ||
      m < 0 || n < 0 || lda < max1(nrowa) || ldb < max1(m))
    return false;
  if (m == 0 || n == 0) return false;  // quick return
  if (alpha == T(0)) {
    scale(m, n, T(0), b, ldb);
    return true;
  }
  if (Trace::active()) return false;

  const double flops = Solve ? flops::trsm<T>(s == 'L', m, n) : flops::trmm<T>(s == 'L', m, n);
  Trace trace(routine_name<T>(Solve ? "TRSM" : "TRMM"), flops);
  trace.args("side=%c uplo=%c transa=%c diag=%c m=%ld n=%ld lda=%ld ldb=%ld", s, u, t, d, long(m), long(n), long(lda),
             long(ldb));
  const double bytes = sizeof(T) * (triangle(nrowa) + 2.0 * m * n);
  run(
      trace, Prec<T>::letter, flops, bytes, Dims{std::min(m, n), nrowa},
      [&] {
        return Solve ? gpu::trsm<T>(s == 'L', u == 'U', gpu_op<T>(t), d == 'U', m, n, alpha, a, lda, b, ldb)
                     : gpu::trmm<T>(s == 'L', u == 'U', gpu_op<T>(t), d == 'U', m, n, alpha, a, lda, b, ldb);
      },
      [&] { next_trmm<T, Solve>()(&s, &u, &t, &d, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1); });
  return true;
}

#define HQR_INSTANTIATE(T, HERM)                                                                                     \
  template bool symm<T, HERM>(char, char, lint, lint, T, const T *, lint, const T *, lint, T, T *, lint);            \
  template bool syrk<T, HERM>(char, char, lint, lint, Scalar<T, HERM>, const T *, lint, Scalar<T, HERM>, T *, lint); \
  template bool syr2k<T, HERM>(char, char, lint, lint, T, const T *, lint, const T *, lint, Scalar<T, HERM>, T *, lint);
HQR_INSTANTIATE(float, false)
HQR_INSTANTIATE(double, false)
HQR_INSTANTIATE(std::complex<float>, false)
HQR_INSTANTIATE(std::complex<double>, false)
HQR_INSTANTIATE(std::complex<float>, true)
HQR_INSTANTIATE(std::complex<double>, true)
#undef HQR_INSTANTIATE
#define HQR_INSTANTIATE(T)                                                                                \
  template bool gemm<T>(char, char, lint, lint, lint, T, const T *, lint, const T *, lint, T, T *, lint); \
  template bool trmm<T, false>(char, char, char, char, lint, lint, T, const T *, lint, T *, lint);        \
  template bool trmm<T, true>(char, char, char, char, lint, lint, T, const T *, lint, T *, lint);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace blas3

// The Fortran calling convention: every argument by reference, the hidden
// lengths of the CHARACTER arguments last (passed on as they came).
namespace {
template <class T>
void fortran_gemm(const char *ta, const char *tb, const lint *m, const lint *n, const lint *k, const T *alpha,
                  const T *a, const lint *lda, const T *b, const lint *ldb, const T *beta, T *c, const lint *ldc,
                  std::size_t lta, std::size_t ltb) {
  if (!blas3::gemm<T>(*ta, *tb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc))
    next_gemm<T>()(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, lta, ltb);
}
template <class T, bool Herm>
void fortran_symm(const char *side, const char *uplo, const lint *m, const lint *n, const T *alpha, const T *a,
                  const lint *lda, const T *b, const lint *ldb, const T *beta, T *c, const lint *ldc, std::size_t ls,
                  std::size_t lu) {
  if (!blas3::symm<T, Herm>(*side, *uplo, *m, *n, *alpha, a, *lda, b, *ldb, *beta, c, *ldc))
    next_symm<T, Herm>()(side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, ls, lu);
}
template <class T, bool Herm, class S = blas3::Scalar<T, Herm>>
void fortran_syrk(const char *uplo, const char *trans, const lint *n, const lint *k, const S *alpha, const T *a,
                  const lint *lda, const S *beta, T *c, const lint *ldc, std::size_t lu, std::size_t lt) {
  if (!blas3::syrk<T, Herm>(*uplo, *trans, *n, *k, *alpha, a, *lda, *beta, c, *ldc))
    next_syrk<T, Herm>()(uplo, trans, n, k, alpha, a, lda, beta, c, ldc, lu, lt);
}
template <class T, bool Herm, class S = blas3::Scalar<T, Herm>>
void fortran_syr2k(const char *uplo, const char *trans, const lint *n, const lint *k, const T *alpha, const T *a,
                   const lint *lda, const T *b, const lint *ldb, const S *beta, T *c, const lint *ldc, std::size_t lu,
                   std::size_t lt) {
  if (!blas3::syr2k<T, Herm>(*uplo, *trans, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc))
    next_syr2k<T, Herm>()(uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, lu, lt);
}
template <class T, bool Solve>
void fortran_trmm(const char *side, const char *uplo, const char *transa, const char *diag, const lint *m,
                  const lint *n, const T *alpha, const T *a, const lint *lda, T *b, const lint *ldb, std::size_t ls,
                  std::size_t lu, std::size_t lt, std::size_t ld) {
  if (!blas3::trmm<T, Solve>(*side, *uplo, *transa, *diag, *m, *n, *alpha, a, *lda, b, *ldb))
    next_trmm<T, Solve>()(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb, ls, lu, lt, ld);
}
}  // namespace

}  // namespace hqr

// The entry points. The hidden lengths are the caller's (C callers may pass
// none: they are only passed on, never read).
// Exported: the BLAS names are hqr's ABI (hqr.h leaves BLAS to the BLAS headers).
#pragma GCC visibility push(default)
extern "C" {
void sgemm_(const char *transa, const char *transb, const lapack_int *m, const lapack_int *n, const lapack_int *k,
            const float *alpha, const float *a, const lapack_int *lda, const float *b, const lapack_int *ldb,
            const float *beta, float *c, const lapack_int *ldc, size_t ltransa, size_t ltransb) {
  hqr::fortran_gemm(transa, transb, m, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(beta),
                    hqr::cx(c), ldc, ltransa, ltransb);
}
void dgemm_(const char *transa, const char *transb, const lapack_int *m, const lapack_int *n, const lapack_int *k,
            const double *alpha, const double *a, const lapack_int *lda, const double *b, const lapack_int *ldb,
            const double *beta, double *c, const lapack_int *ldc, size_t ltransa, size_t ltransb) {
  hqr::fortran_gemm(transa, transb, m, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(beta),
                    hqr::cx(c), ldc, ltransa, ltransb);
}
void cgemm_(const char *transa, const char *transb, const lapack_int *m, const lapack_int *n, const lapack_int *k,
            const lapack_complex_float *alpha, const lapack_complex_float *a, const lapack_int *lda,
            const lapack_complex_float *b, const lapack_int *ldb, const lapack_complex_float *beta,
            lapack_complex_float *c, const lapack_int *ldc, size_t ltransa, size_t ltransb) {
  hqr::fortran_gemm(transa, transb, m, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(beta),
                    hqr::cx(c), ldc, ltransa, ltransb);
}
void zgemm_(const char *transa, const char *transb, const lapack_int *m, const lapack_int *n, const lapack_int *k,
            const lapack_complex_double *alpha, const lapack_complex_double *a, const lapack_int *lda,
            const lapack_complex_double *b, const lapack_int *ldb, const lapack_complex_double *beta,
            lapack_complex_double *c, const lapack_int *ldc, size_t ltransa, size_t ltransb) {
  hqr::fortran_gemm(transa, transb, m, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(beta),
                    hqr::cx(c), ldc, ltransa, ltransb);
}
void ssymm_(const char *side, const char *uplo, const lapack_int *m, const lapack_int *n, const float *alpha,
            const float *a, const lapack_int *lda, const float *b, const lapack_int *ldb, const float *beta, float *c,
            const lapack_int *ldc, size_t lside, size_t luplo) {
  hqr::fortran_symm<float, false>(side, uplo, m, n, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(beta),
                                  hqr::cx(c), ldc, lside, luplo);
}
void dsymm_(const char *side, const char *uplo, const lapack_int *m, const lapack_int *n, const double *alpha,
            const double *a, const lapack_int *lda, const double *b, const lapack_int *ldb, const double *beta,
            double *c, const lapack_int *ldc, size_t lside, size_t luplo) {
  hqr::fortran_symm<double, false>(side, uplo, m, n, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(beta),
                                   hqr::cx(c), ldc, lside, luplo);
}
void csymm_(const char *side, const char *uplo, const lapack_int *m, const lapack_int *n,
            const lapack_complex_float *alpha, const lapack_complex_float *a, const lapack_int *lda,
            const lapack_complex_float *b, const lapack_int *ldb, const lapack_complex_float *beta,
            lapack_complex_float *c, const lapack_int *ldc, size_t lside, size_t luplo) {
  hqr::fortran_symm<std::complex<float>, false>(side, uplo, m, n, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb,
                                                hqr::cx(beta), hqr::cx(c), ldc, lside, luplo);
}
void zsymm_(const char *side, const char *uplo, const lapack_int *m, const lapack_int *n,
            const lapack_complex_double *alpha, const lapack_complex_double *a, const lapack_int *lda,
            const lapack_complex_double *b, const lapack_int *ldb, const lapack_complex_double *beta,
            lapack_complex_double *c, const lapack_int *ldc, size_t lside, size_t luplo) {
  hqr::fortran_symm<std::complex<double>, false>(side, uplo, m, n, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb,
                                                 hqr::cx(beta), hqr::cx(c), ldc, lside, luplo);
}
void chemm_(const char *side, const char *uplo, const lapack_int *m, const lapack_int *n,
            const lapack_complex_float *alpha, const lapack_complex_float *a, const lapack_int *lda,
            const lapack_complex_float *b, const lapack_int *ldb, const lapack_complex_float *beta,
            lapack_complex_float *c, const lapack_int *ldc, size_t lside, size_t luplo) {
  hqr::fortran_symm<std::complex<float>, true>(side, uplo, m, n, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb,
                                               hqr::cx(beta), hqr::cx(c), ldc, lside, luplo);
}
void zhemm_(const char *side, const char *uplo, const lapack_int *m, const lapack_int *n,
            const lapack_complex_double *alpha, const lapack_complex_double *a, const lapack_int *lda,
            const lapack_complex_double *b, const lapack_int *ldb, const lapack_complex_double *beta,
            lapack_complex_double *c, const lapack_int *ldc, size_t lside, size_t luplo) {
  hqr::fortran_symm<std::complex<double>, true>(side, uplo, m, n, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb,
                                                hqr::cx(beta), hqr::cx(c), ldc, lside, luplo);
}
void ssyrk_(const char *uplo, const char *trans, const lapack_int *n, const lapack_int *k, const float *alpha,
            const float *a, const lapack_int *lda, const float *beta, float *c, const lapack_int *ldc, size_t luplo,
            size_t ltrans) {
  hqr::fortran_syrk<float, false>(uplo, trans, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(beta), hqr::cx(c), ldc,
                                  luplo, ltrans);
}
void dsyrk_(const char *uplo, const char *trans, const lapack_int *n, const lapack_int *k, const double *alpha,
            const double *a, const lapack_int *lda, const double *beta, double *c, const lapack_int *ldc, size_t luplo,
            size_t ltrans) {
  hqr::fortran_syrk<double, false>(uplo, trans, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(beta), hqr::cx(c), ldc,
                                   luplo, ltrans);
}
void csyrk_(const char *uplo, const char *trans, const lapack_int *n, const lapack_int *k,
            const lapack_complex_float *alpha, const lapack_complex_float *a, const lapack_int *lda,
            const lapack_complex_float *beta, lapack_complex_float *c, const lapack_int *ldc, size_t luplo,
            size_t ltrans) {
  hqr::fortran_syrk<std::complex<float>, false>(uplo, trans, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(beta),
                                                hqr::cx(c), ldc, luplo, ltrans);
}
void zsyrk_(const char *uplo, const char *trans, const lapack_int *n, const lapack_int *k,
            const lapack_complex_double *alpha, const lapack_complex_double *a, const lapack_int *lda,
            const lapack_complex_double *beta, lapack_complex_double *c, const lapack_int *ldc, size_t luplo,
            size_t ltrans) {
  hqr::fortran_syrk<std::complex<double>, false>(uplo, trans, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(beta),
                                                 hqr::cx(c), ldc, luplo, ltrans);
}
void cherk_(const char *uplo, const char *trans, const lapack_int *n, const lapack_int *k, const float *alpha,
            const lapack_complex_float *a, const lapack_int *lda, const float *beta, lapack_complex_float *c,
            const lapack_int *ldc, size_t luplo, size_t ltrans) {
  hqr::fortran_syrk<std::complex<float>, true>(uplo, trans, n, k, (alpha), hqr::cx(a), lda, (beta), hqr::cx(c), ldc,
                                               luplo, ltrans);
}
void zherk_(const char *uplo, const char *trans, const lapack_int *n, const lapack_int *k, const double *alpha,
            const lapack_complex_double *a, const lapack_int *lda, const double *beta, lapack_complex_double *c,
            const lapack_int *ldc, size_t luplo, size_t ltrans) {
  hqr::fortran_syrk<std::complex<double>, true>(uplo, trans, n, k, (alpha), hqr::cx(a), lda, (beta), hqr::cx(c), ldc,
                                                luplo, ltrans);
}
void ssyr2k_(const char *uplo, const char *trans, const lapack_int *n, const lapack_int *k, const float *alpha,
             const float *a, const lapack_int *lda, const float *b, const lapack_int *ldb, const float *beta, float *c,
             const lapack_int *ldc, size_t luplo, size_t ltrans) {
  hqr::fortran_syr2k<float, false>(uplo, trans, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(beta),
                                   hqr::cx(c), ldc, luplo, ltrans);
}
void dsyr2k_(const char *uplo, const char *trans, const lapack_int *n, const lapack_int *k, const double *alpha,
             const double *a, const lapack_int *lda, const double *b, const lapack_int *ldb, const double *beta,
             double *c, const lapack_int *ldc, size_t luplo, size_t ltrans) {
  hqr::fortran_syr2k<double, false>(uplo, trans, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb, hqr::cx(beta),
                                    hqr::cx(c), ldc, luplo, ltrans);
}
void csyr2k_(const char *uplo, const char *trans, const lapack_int *n, const lapack_int *k,
             const lapack_complex_float *alpha, const lapack_complex_float *a, const lapack_int *lda,
             const lapack_complex_float *b, const lapack_int *ldb, const lapack_complex_float *beta,
             lapack_complex_float *c, const lapack_int *ldc, size_t luplo, size_t ltrans) {
  hqr::fortran_syr2k<std::complex<float>, false>(uplo, trans, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb,
                                                 hqr::cx(beta), hqr::cx(c), ldc, luplo, ltrans);
}
void zsyr2k_(const char *uplo, const char *trans, const lapack_int *n, const lapack_int *k,
             const lapack_complex_double *alpha, const lapack_complex_double *a, const lapack_int *lda,
             const lapack_complex_double *b, const lapack_int *ldb, const lapack_complex_double *beta,
             lapack_complex_double *c, const lapack_int *ldc, size_t luplo, size_t ltrans) {
  hqr::fortran_syr2k<std::complex<double>, false>(uplo, trans, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb,
                                                  hqr::cx(beta), hqr::cx(c), ldc, luplo, ltrans);
}
void cher2k_(const char *uplo, const char *trans, const lapack_int *n, const lapack_int *k,
             const lapack_complex_float *alpha, const lapack_complex_float *a, const lapack_int *lda,
             const lapack_complex_float *b, const lapack_int *ldb, const float *beta, lapack_complex_float *c,
             const lapack_int *ldc, size_t luplo, size_t ltrans) {
  hqr::fortran_syr2k<std::complex<float>, true>(uplo, trans, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb,
                                                (beta), hqr::cx(c), ldc, luplo, ltrans);
}
void zher2k_(const char *uplo, const char *trans, const lapack_int *n, const lapack_int *k,
             const lapack_complex_double *alpha, const lapack_complex_double *a, const lapack_int *lda,
             const lapack_complex_double *b, const lapack_int *ldb, const double *beta, lapack_complex_double *c,
             const lapack_int *ldc, size_t luplo, size_t ltrans) {
  hqr::fortran_syr2k<std::complex<double>, true>(uplo, trans, n, k, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb,
                                                 (beta), hqr::cx(c), ldc, luplo, ltrans);
}
void strmm_(const char *side, const char *uplo, const char *transa, const char *diag, const lapack_int *m,
            const lapack_int *n, const float *alpha, const float *a, const lapack_int *lda, float *b,
            const lapack_int *ldb, size_t lside, size_t luplo, size_t ltransa, size_t ldiag) {
  hqr::fortran_trmm<float, false>(side, uplo, transa, diag, m, n, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb,
                                  lside, luplo, ltransa, ldiag);
}
void dtrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const lapack_int *m,
            const lapack_int *n, const double *alpha, const double *a, const lapack_int *lda, double *b,
            const lapack_int *ldb, size_t lside, size_t luplo, size_t ltransa, size_t ldiag) {
  hqr::fortran_trmm<double, false>(side, uplo, transa, diag, m, n, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb,
                                   lside, luplo, ltransa, ldiag);
}
void ctrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const lapack_int *m,
            const lapack_int *n, const lapack_complex_float *alpha, const lapack_complex_float *a,
            const lapack_int *lda, lapack_complex_float *b, const lapack_int *ldb, size_t lside, size_t luplo,
            size_t ltransa, size_t ldiag) {
  hqr::fortran_trmm<std::complex<float>, false>(side, uplo, transa, diag, m, n, hqr::cx(alpha), hqr::cx(a), lda,
                                                hqr::cx(b), ldb, lside, luplo, ltransa, ldiag);
}
void ztrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const lapack_int *m,
            const lapack_int *n, const lapack_complex_double *alpha, const lapack_complex_double *a,
            const lapack_int *lda, lapack_complex_double *b, const lapack_int *ldb, size_t lside, size_t luplo,
            size_t ltransa, size_t ldiag) {
  hqr::fortran_trmm<std::complex<double>, false>(side, uplo, transa, diag, m, n, hqr::cx(alpha), hqr::cx(a), lda,
                                                 hqr::cx(b), ldb, lside, luplo, ltransa, ldiag);
}
void strsm_(const char *side, const char *uplo, const char *transa, const char *diag, const lapack_int *m,
            const lapack_int *n, const float *alpha, const float *a, const lapack_int *lda, float *b,
            const lapack_int *ldb, size_t lside, size_t luplo, size_t ltransa, size_t ldiag) {
  hqr::fortran_trmm<float, true>(side, uplo, transa, diag, m, n, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb,
                                 lside, luplo, ltransa, ldiag);
}
void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const lapack_int *m,
            const lapack_int *n, const double *alpha, const double *a, const lapack_int *lda, double *b,
            const lapack_int *ldb, size_t lside, size_t luplo, size_t ltransa, size_t ldiag) {
  hqr::fortran_trmm<double, true>(side, uplo, transa, diag, m, n, hqr::cx(alpha), hqr::cx(a), lda, hqr::cx(b), ldb,
                                  lside, luplo, ltransa, ldiag);
}
void ctrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const lapack_int *m,
            const lapack_int *n, const lapack_complex_float *alpha, const lapack_complex_float *a,
            const lapack_int *lda, lapack_complex_float *b, const lapack_int *ldb, size_t lside, size_t luplo,
            size_t ltransa, size_t ldiag) {
  hqr::fortran_trmm<std::complex<float>, true>(side, uplo, transa, diag, m, n, hqr::cx(alpha), hqr::cx(a), lda,
                                               hqr::cx(b), ldb, lside, luplo, ltransa, ldiag);
}
void ztrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const lapack_int *m,
            const lapack_int *n, const lapack_complex_double *alpha, const lapack_complex_double *a,
            const lapack_int *lda, lapack_complex_double *b, const lapack_int *ldb, size_t lside, size_t luplo,
            size_t ltransa, size_t ldiag) {
  hqr::fortran_trmm<std::complex<double>, true>(side, uplo, transa, diag, m, n, hqr::cx(alpha), hqr::cx(a), lda,
                                                hqr::cx(b), ldb, lside, luplo, ltransa, ldiag);
}
}
#pragma GCC visibility pop
