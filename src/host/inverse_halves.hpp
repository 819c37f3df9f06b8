// xTRTRI and xLAUUM by halves on the caller's array, for triangles too
// large for one GPU (src/cuda/inverse_ooc.cu runs it with GPU pieces;
// test_inverse_halves with CPU ones, so that CI checks the algebra).
// On blocks split at h (1 = before the split, 2 = after):
//   trtri:  X11 = inv(T11), X22 = inv(T22)                  recursion
//           U12 := -X11 * U12 * X22            'U'
//           L21 := -X22 * L21 * X11            'L'
//   lauum:  W11 = lauum(T11)                                recursion
//           W11 += U12*U12**H; U12 := U12*U22**H   'U'
//           W11 += L21**H*L21; L21 := L22**H*L21   'L'
//           W22 = lauum(T22)                                recursion
// (xPOTRI is trtri, then lauum.) A diagonal block that `Pieces` can take
// whole goes to it whole; so does a triangular product whose triangle it
// can hold; a larger triangle's product splits in halves around a gemm.
//
// Pieces provides, for the call's uplo and diag:
//   bool whole(bool inverse, lint t)     a diagonal block of order t goes whole
//   void block(bool inverse, lint t, T *a, lint lda)    trtri / lauum of it
//   bool holds(lint t)                   a product with a triangle of order t goes whole
//   void trmm(bool left, char trans, lint m, lint n, T alpha, const T *a, lint lda, T *b, lint ldb)
//   void gemm(char ta, char tb, lint m, lint n, lint k, T alpha, const T *a, lint lda,
//             const T *b, lint ldb, T *c, lint ldc)     C += alpha op(A) op(B)
//   void herk(char trans, lint n, lint k, const T *a, lint lda, T *c, lint ldc)
//                                        C += op(A) op(A)**H on the triangle
#pragma once

#include <cstddef>

#include "common.hpp"

namespace hqr {

// The first half of a triangle of order t that is split: about half, a
// multiple of 64 so that the gemms run on aligned tiles (here and in the
// in-core recursion, src/cuda/inverse_hybrid.cu).
inline lint split_half(lint t) {
  const lint h = (t / 2 + 63) / 64 * 64;
  return h < t ? h : t / 2;
}

template <class T, class Pieces> class InverseByHalves {
 public:
  InverseByHalves(Pieces &p, bool upper) : p_(p), upper_(upper) {}

  // A(0:t, 0:t) := its inverse.
  void trtri(lint t, T *a, lint lda) {
    if (p_.whole(true, t)) return p_.block(true, t, a, lda);
    const lint h = split_half(t), r = t - h;
    T *a11 = a, *a22 = at(a, lda, h, h);
    trtri(h, a11, lda);
    trtri(r, a22, lda);
    if (upper_) {
      T *a12 = at(a, lda, 0, h);
      trmm(true, 'N', h, r, T(-1), a11, lda, a12, lda);
      trmm(false, 'N', h, r, T(1), a22, lda, a12, lda);
    } else {
      T *a21 = at(a, lda, h, 0);
      trmm(true, 'N', r, h, T(-1), a22, lda, a21, lda);
      trmm(false, 'N', r, h, T(1), a11, lda, a21, lda);
    }
  }

  // A(0:t, 0:t) := U*U**H or L**H*L.
  void lauum(lint t, T *a, lint lda) {
    if (p_.whole(false, t)) return p_.block(false, t, a, lda);
    const lint h = split_half(t), r = t - h;
    T *a11 = a, *a22 = at(a, lda, h, h);
    const char c = is_complex<T> ? 'C' : 'T';
    lauum(h, a11, lda);
    if (upper_) {
      T *a12 = at(a, lda, 0, h);
      p_.herk('N', h, r, a12, lda, a11, lda);
      trmm(false, c, h, r, T(1), a22, lda, a12, lda);
    } else {
      T *a21 = at(a, lda, h, 0);
      p_.herk(c, h, r, a21, lda, a11, lda);
      trmm(true, c, r, h, T(1), a22, lda, a21, lda);
    }
    lauum(r, a22, lda);
  }

 private:
  static T *at(T *a, lint lda, lint i, lint j) { return a + i + std::size_t(j) * lda; }

  // B := alpha*op(A)*B (left, A of order m) or alpha*B*op(A) (right, order
  // n), A triangular in the call's uplo. Split, op(A) = [S11 S12; S21 S22]
  // with one of S12, S21 zero, and each half of B is formed from halves
  // still holding the input, so the order below matters.
  void trmm(bool left, char trans, lint m, lint n, T alpha, const T *a, lint lda, T *b, lint ldb) {
    const lint t = left ? m : n;
    if (p_.holds(t)) return p_.trmm(left, trans, m, n, alpha, a, lda, b, ldb);
    const lint h = split_half(t), r = t - h;
    const T *a11 = a, *a22 = a + h + std::size_t(h) * lda;
    const T *off = upper_ ? a + std::size_t(h) * lda : a + h;  // A12 (h-by-r) or A21 (r-by-h)
    const bool op_upper = upper_ == (trans == 'N');
    if (left) {
      T *b1 = b, *b2 = b + h;
      if (op_upper) {  // B1 := S11*B1 + S12*B2, then B2 := S22*B2
        trmm(true, trans, h, n, alpha, a11, lda, b1, ldb);
        p_.gemm(trans, 'N', h, n, r, alpha, off, lda, b2, ldb, b1, ldb);
        trmm(true, trans, r, n, alpha, a22, lda, b2, ldb);
      } else {  // B2 := S21*B1 + S22*B2, then B1 := S11*B1
        trmm(true, trans, r, n, alpha, a22, lda, b2, ldb);
        p_.gemm(trans, 'N', r, n, h, alpha, off, lda, b1, ldb, b2, ldb);
        trmm(true, trans, h, n, alpha, a11, lda, b1, ldb);
      }
      return;
    }
    T *b1 = b, *b2 = b + std::size_t(h) * ldb;
    if (op_upper) {  // B2 := B1*S12 + B2*S22, then B1 := B1*S11
      trmm(false, trans, m, r, alpha, a22, lda, b2, ldb);
      p_.gemm('N', trans, m, r, h, alpha, b1, ldb, off, lda, b2, ldb);
      trmm(false, trans, m, h, alpha, a11, lda, b1, ldb);
    } else {  // B1 := B1*S11 + B2*S21, then B2 := B2*S22
      trmm(false, trans, m, h, alpha, a11, lda, b1, ldb);
      p_.gemm('N', trans, m, h, r, alpha, b2, ldb, off, lda, b1, ldb);
      trmm(false, trans, m, r, alpha, a22, lda, b2, ldb);
    }
  }

  Pieces &p_;
  const bool upper_;
};

}  // namespace hqr
