// The next LAPACK/BLAS in the link order (the system's, normally OpenBLAS):
// where hqr sends every call it runs on the CPU, and every symbol it does not
// implement (forward.cpp). Never resolves back into hqr itself.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>

#include "common.hpp"

namespace hqr {

// Address of `name` (a Fortran symbol such as "dpotrf_") in the next library,
// or nullptr. Thread-safe; the libraries are opened once.
void *next_symbol(const char *name);

// A human-readable description of where next_symbol looks ("RTLD_NEXT", or
// the path of HQR_LAPACK), for HQR_VERBOSE and the demo.
const char *next_library_description();

namespace next {

// Resolves the next library's `<letter><base>_` once per (routine, type) and
// returns it typed. A missing symbol in the system LAPACK is fatal, as it
// would be for the dynamic linker: one line on stderr naming it (and, where
// there is no LAPACK at all, what would serve), exit status 127.
void *require(const char *name);
// `<letter><base>_` of T in `name` (32 bytes).
template <class T> const char *symbol_name(const char *base, char (&name)[32]) {
  name[0] = Prec<T>::letter;
  std::size_t i = 0;
  for (; base[i] && i + 2 < sizeof name; ++i) name[i + 1] = base[i];
  name[i + 1] = '_';
  name[i + 2] = '\0';
  return name;
}
template <class F, class T> F *fn(const char *base) {
  char name[32];
  return reinterpret_cast<F *>(require(symbol_name<T>(base, name)));
}
// The same where the routine may be missing (an auxiliary routine that a
// LAPACK need not export): nullptr then.
template <class F, class T> F *fn_or_null(const char *base) {
  char name[32];
  return reinterpret_cast<F *>(next_symbol(symbol_name<T>(base, name)));
}

// One wrapper per routine. Hidden string lengths are passed as 1: only the
// first character is significant.
template <class T> void potrf(const char *uplo, const lint *n, T *a, const lint *lda, lint *info) {
  using F = void(const char *, const lint *, T *, const lint *, lint *, std::size_t);
  static F *const f = fn<F, T>("potrf");
  f(uplo, n, a, lda, info, 1);
}
template <class T> void potri(const char *uplo, const lint *n, T *a, const lint *lda, lint *info) {
  using F = void(const char *, const lint *, T *, const lint *, lint *, std::size_t);
  static F *const f = fn<F, T>("potri");
  f(uplo, n, a, lda, info, 1);
}
template <class T> void lauum(const char *uplo, const lint *n, T *a, const lint *lda, lint *info) {
  using F = void(const char *, const lint *, T *, const lint *, lint *, std::size_t);
  static F *const f = fn<F, T>("lauum");
  f(uplo, n, a, lda, info, 1);
}
template <class T> void trtri(const char *uplo, const char *diag, const lint *n, T *a, const lint *lda, lint *info) {
  using F = void(const char *, const char *, const lint *, T *, const lint *, lint *, std::size_t, std::size_t);
  static F *const f = fn<F, T>("trtri");
  f(uplo, diag, n, a, lda, info, 1, 1);
}
template <class T>
void potrs(const char *uplo, const lint *n, const lint *nrhs, const T *a, const lint *lda, T *b, const lint *ldb,
           lint *info) {
  using F = void(const char *, const lint *, const lint *, const T *, const lint *, T *, const lint *, lint *,
                 std::size_t);
  static F *const f = fn<F, T>("potrs");
  f(uplo, n, nrhs, a, lda, b, ldb, info, 1);
}
template <class T>
void posv(const char *uplo, const lint *n, const lint *nrhs, T *a, const lint *lda, T *b, const lint *ldb, lint *info) {
  using F = void(const char *, const lint *, const lint *, T *, const lint *, T *, const lint *, lint *, std::size_t);
  static F *const f = fn<F, T>("posv");
  f(uplo, n, nrhs, a, lda, b, ldb, info, 1);
}
template <class T>
void geqrf(const lint *m, const lint *n, T *a, const lint *lda, T *tau, T *work, const lint *lwork, lint *info) {
  using F = void(const lint *, const lint *, T *, const lint *, T *, T *, const lint *, lint *);
  static F *const f = fn<F, T>("geqrf");
  f(m, n, a, lda, tau, work, lwork, info);
}
// ormqr for real types, unmqr for complex: LAPACK's names differ.
template <class T>
void ormqr(const char *side, const char *trans, const lint *m, const lint *n, const lint *k, const T *a,
           const lint *lda, const T *tau, T *c, const lint *ldc, T *work, const lint *lwork, lint *info) {
  using F = void(const char *, const char *, const lint *, const lint *, const lint *, const T *, const lint *,
                 const T *, T *, const lint *, T *, const lint *, lint *, std::size_t, std::size_t);
  static F *const f = fn<F, T>(is_complex<T> ? "unmqr" : "ormqr");
  f(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, 1, 1);
}
template <class T>
void orgqr(const lint *m, const lint *n, const lint *k, T *a, const lint *lda, const T *tau, T *work,
           const lint *lwork, lint *info) {
  using F = void(const lint *, const lint *, const lint *, T *, const lint *, const T *, T *, const lint *, lint *);
  static F *const f = fn<F, T>(is_complex<T> ? "ungqr" : "orgqr");
  f(m, n, k, a, lda, tau, work, lwork, info);
}
template <class T>
void gels(const char *trans, const lint *m, const lint *n, const lint *nrhs, T *a, const lint *lda, T *b,
          const lint *ldb, T *work, const lint *lwork, lint *info) {
  using F = void(const char *, const lint *, const lint *, const lint *, T *, const lint *, T *, const lint *, T *,
                 const lint *, lint *, std::size_t);
  static F *const f = fn<F, T>("gels");
  f(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info, 1);
}

// BLAS xHERK (xSYRK for real types): C = alpha*op(A)*op(A)**H + beta*C.
template <class T>
void herk(const char *uplo, const char *trans, const lint *n, const lint *k, typename Prec<T>::real alpha,
          const T *a, const lint *lda, typename Prec<T>::real beta, T *c, const lint *ldc) {
  using R = typename Prec<T>::real;
  using F = void(const char *, const char *, const lint *, const lint *, const R *, const T *, const lint *,
                 const R *, T *, const lint *, std::size_t, std::size_t);
  static F *const f = fn<F, T>(is_complex<T> ? "herk" : "syrk");
  f(uplo, trans, n, k, &alpha, a, lda, &beta, c, ldc, 1, 1);
}

// Runs call(A') with A' a copy of the m-by-n A (same lda) followed by a
// spare column, and copies A' back, for complex T; call(A) otherwise. Why:
// OpenBLAS 0.3.21's (Debian 12's) complex kernels read one stride past a
// strided vector (c/z dotc and dotu always, c/z gemv 'N' for some shapes;
// the reals' and the other level-2 routines' do not), and LAPACK's routines
// that apply reflectors from the right (xGELQF, xUNMLQ 'R', xGEBRD) pass a
// row of A as that vector: on A's last column the read lands up to m
// elements past the array, and where the array ends at an unmapped page (a
// cudaMallocHost array does) the call faults. Without memory for the copy,
// call(A).
template <class T, class F> void on_padded_copy(lint m, lint n, T *a, lint lda, F &&call) {
  if constexpr (is_complex<T>) {
    if (m > 0 && n > 0) {
      const std::size_t ld = std::size_t(lda);
      std::unique_ptr<T[]> c(new (std::nothrow) T[ld * std::size_t(n + 1)]());
      if (c) {
        for (std::size_t j = 0; j < std::size_t(n); ++j) std::copy(a + j * ld, a + j * ld + m, c.get() + j * ld);
        call(c.get());
        for (std::size_t j = 0; j < std::size_t(n); ++j) std::copy(c.get() + j * ld, c.get() + j * ld + m, a + j * ld);
        return;
      }
    }
  }
  call(a);
}

}  // namespace next
}  // namespace hqr
