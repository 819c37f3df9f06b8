// Types and small helpers shared by every routine: the integer and precision
// traits, LAPACK's LSAME, and the name a routine reports to XERBLA.
#pragma once

#include <complex>
#include <cstddef>
#include <type_traits>

// The library is built with -fvisibility=hidden; what hqr.h declares is its ABI.
#pragma GCC visibility push(default)
#include "hqr.h"
#pragma GCC visibility pop

namespace hqr {

using lint = lapack_int;  // 32-bit in libhqr.so, 64-bit in libhqr64.so

// Precision traits: the LAPACK prefix letter and the real type underneath.
template <class T> struct Prec;
template <> struct Prec<float> { static constexpr char letter = 's'; using real = float; };
template <> struct Prec<double> { static constexpr char letter = 'd'; using real = double; };
template <> struct Prec<std::complex<float>> { static constexpr char letter = 'c'; using real = float; };
template <> struct Prec<std::complex<double>> { static constexpr char letter = 'z'; using real = double; };

template <class T> constexpr bool is_complex = !std::is_same_v<T, typename Prec<T>::real>;
// conj(x) for complex T, x itself for real T (std::conj of a real returns a complex).
template <class T> T conj_of(T x) {
  if constexpr (is_complex<T>)
    return std::conj(x);
  else
    return x;
}

// The C ABI spells complex numbers as C99 _Complex; inside, std::complex.
// Both have the layout of two consecutive reals.
template <class T> T *cx(T *p) { return p; }
template <class T> const T *cx(const T *p) { return p; }
inline std::complex<float> *cx(lapack_complex_float *p) { return reinterpret_cast<std::complex<float> *>(p); }
inline std::complex<double> *cx(lapack_complex_double *p) { return reinterpret_cast<std::complex<double> *>(p); }
inline const std::complex<float> *cx(const lapack_complex_float *p) { return reinterpret_cast<const std::complex<float> *>(p); }
inline const std::complex<double> *cx(const lapack_complex_double *p) { return reinterpret_cast<const std::complex<double> *>(p); }

// LAPACK's LSAME: case-insensitive comparison of one character. Only the
// first character of a CHARACTER argument is read (C callers often pass a
// single char with no length).
inline bool lsame(const char *c, char upper) { return (*c & ~0x20) == upper; }

inline lint max1(lint n) { return n > 1 ? n : 1; }

// A routine's name as LAPACK passes it to XERBLA: upper case, prefix letter
// first ("DPOTRF", "ZUNMQR", "DQRUPD_ADDCOLS").
struct RoutineName {
  char text[24];
  std::size_t len;
};
template <class T> RoutineName routine_name(const char *base) {
  RoutineName r{};
  r.text[0] = static_cast<char>(Prec<T>::letter & ~0x20);
  std::size_t i = 0;
  for (; base[i] && i + 1 < sizeof r.text; ++i) r.text[i + 1] = base[i];
  r.len = i + 1;
  return r;
}

// The argument checks that the Cholesky-family routines share, in LAPACK's
// order: (UPLO, N, A, LDA) and (UPLO, N, NRHS, A, LDA, B, LDB). They return
// INFO (0, or minus the position of the first illegal argument).
inline lint check_uplo_n_lda(const char *uplo, lint n, lint lda) {
  if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) return -1;
  if (n < 0) return -2;
  if (lda < max1(n)) return -4;
  return 0;
}
inline lint check_uplo_n_nrhs(const char *uplo, lint n, lint nrhs, lint lda, lint ldb) {
  if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) return -1;
  if (n < 0) return -2;
  if (nrhs < 0) return -3;
  if (lda < max1(n)) return -5;
  if (ldb < max1(n)) return -7;
  return 0;
}

// Calls XERBLA through the dynamic symbol table, so that a program's own
// XERBLA (LAPACK's test suite has one) wins over the library's.
void report_illegal(const RoutineName &name, lint position);

}  // namespace hqr
