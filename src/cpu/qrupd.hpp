// CPU kernels of the QR-updating routines (xQRUPD_*): given A = Q*R (Q
// M-by-M orthogonal, or unitary for c and z; R M-by-N upper trapezoidal),
// the factors of A with columns or rows added or deleted. One template for
// s, d, c, z: Q^H where the real routines read Q^T.
//
// Updates, after Hammarling & Lucas (2008) and Andrew & Dingle (2014):
//   delcols  short Householder reflectors (length <= P+1) on R's band;
//   addcols  Q^T*U by gemm, a Householder QR of the part below row N, then
//            Givens passes that reduce the inserted block bottom-up;
//   addrows  compact-WY reflectors that touch one row of R and the P new
//            rows each ([R; U] as LAPACK's xTPQRT with L = 0), gemm updates;
//   delrows  Givens passes that turn the deleted rows of Q into [+-I 0].
// Each update runs blocked when `lwork` reaches its *_lwopt (as LAPACK's
// xGEQRF does): reflectors in compact-WY blocks (xGEQRT, xLARFT, xLARFB)
// and Givens rotations gathered into small orthogonal windows applied by
// gemm, all level-3 BLAS from the next library. With less, down to *_lwmin,
// it applies the reflectors and rotations directly, a few at a time in
// cache-sized chunks.
//
// Refactoring (addcols, addrows with Q, delrows): the updated matrix is
// formed from the old factors in R's storage, factored by xGEQRT, and the
// full Q generated from the reflectors: cheaper than updating when most of
// the result is new (src/host/qrupd.cpp decides by operation counts).
//
// The entry points (src/host/qrupd.cpp) check the arguments; these
// functions assume valid ones (P >= 1, and M >= 1 for addcols). Indices j0
// are 0-based. Workspace sizes are in elements.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "host/common.hpp"

namespace hqr::cpu {

// Workspace: the minimum (direct kernels, one pass or reflector at a time)
// and the optimum (blocked).
long qrupd_delcols_lwmin(lint m, lint n, lint p);
long qrupd_delcols_lwopt(bool wantq, lint m, lint n, lint p, lint j0);
long qrupd_addcols_lwmin(lint m, lint n, lint p);
long qrupd_addcols_lwopt(lint m, lint n, lint p);
long qrupd_addrows_lwmin(bool wantq, lint m, lint n, lint p);
long qrupd_addrows_lwopt(bool wantq, lint m, lint n, lint p);
long qrupd_delrows_lwmin(lint m, lint n, lint p);
long qrupd_delrows_lwopt(lint m, lint n, lint p);
// Refactoring an mnew-by-nnew updated matrix formed from factors of order
// mold-by-nold.
long qrupd_refactor_lwork(lint mnew, lint nnew, lint mold, lint nold);

// Delete columns j0..j0+p-1. Q is updated when wantq.
template <class T>
void qrupd_delcols(bool wantq, lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *work, long lwork);

// Insert the p columns of u (m-by-p, destroyed) before column j0.
template <class T>
void qrupd_addcols(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu, T *work,
                   long lwork);

// Insert the p >= 1 rows of u (p-by-n, destroyed) before row j0. When
// wantq, q (ldq >= m+p) holds the m-by-m factor on entry and the
// (m+p)-by-(m+p) one on exit.
template <class T>
void qrupd_addrows(bool wantq, lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu,
                   T *work, long lwork);

// Delete rows j0..j0+p-1; q(1:m-p,1:m-p) and r(1:m-p,1:n) on exit.
template <class T>
void qrupd_delrows(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *work, long lwork);

// The same results by refactoring (Q always updated); work holds
// qrupd_refactor_lwork of the updated and the old shape. u is only read.
template <class T>
void qrupd_addcols_refactor(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, const T *u, lint ldu,
                            T *work);
template <class T>
void qrupd_addrows_refactor(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, const T *u, lint ldu,
                            T *work);
template <class T>
void qrupd_delrows_refactor(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *work);

// The economy form (Q m-by-n with orthonormal columns, R n-by-n, m >= n):
//   addcols  the new columns orthogonalised against Q, then addcols' Givens
//            passes on R's n+p rows and Q's n+p columns (m >= n+p). Blocked:
//            CholeskyQR2 of U and one projection against Q (W = Q^H*U from
//            a pass over Q) where U is well conditioned and not too close
//            to Q's range, then all passes generated on R and one more pass
//            over Q that forms its new columns and rotates: Q read twice,
//            written once. Otherwise (and directly) block Gram-Schmidt run
//            twice, each pass followed by a thin Householder QR (a third
//            and fourth pass where the second still cancels; column by
//            column, a dependent column getting R's diagonal entry 0 and a
//            unit vector orthogonal to the rest, where even they cancel);
//   delcols  delcols' reflectors on R's n rows; blocked, all generated on R
//            first, then one pass over Q's rows;
//   addrows  addrows' reflectors on [R; U] (R's n rows), then the new Q
//            from the product of the reflectors' first n columns, Q*Gt
//            (xTRMM) with the new rows Gb inserted: never the (m+p)-by-p
//            columns the full form carries.
// The passes over Q run on `threads` threads (HQR_CPU_THREADS; 0: every
// core), fewer for small problems (qrupd_econ_passes.hpp). addcols and delcols
// run blocked from their *_lwopt on, directly down to *_lwmin; addrows
// takes qrupd_addrows_econ_lwork.
long qrupd_addcols_econ_lwmin(lint m, lint n, lint p);
long qrupd_addcols_econ_lwopt(lint m, lint n, lint p);
long qrupd_delcols_econ_lwopt(bool wantq, lint m, lint n, lint p, lint j0);
long qrupd_addrows_econ_lwork(bool wantq, lint m, lint n, lint p);

// Insert the p columns of u (m-by-p, destroyed) before column j0; q has room
// for n+p columns, r for n+p rows and columns (m >= n+p, p >= 1).
template <class T>
void qrupd_addcols_econ(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu, T *work,
                        long lwork, int threads);
// addcols' blocked path (CholeskyQR2 of U, one projection against Q, the
// Givens passes on R) for a device that makes the passes over Q and U
// itself (src/cuda/qrupd_econ.cu) and hands back their small results:
//   1. gram1() (p-by-p, ld p) := U^H*U; factor_gram1(): R1, r1inv();
//   2. gram2() ((n+p)-by-p, ld n+p) := [Q U1]^H*U1 with U1 = U*R1^-1;
//      finish(r, ldr) reads the caller's R: new_r() ((n+p)-by-(n+p), ld
//      n+p, zeros below the diagonal) is the new R, and with Qn = (U1 -
//      Q*W)*f() (W: gram2()'s first n rows, f() p-by-p, ld p) the new
//      Q(:, j0:n+p-1) = [Q Qn](:, j0:n+p-1) * rotation() (k-by-k, ld k,
//      k = n+p-j0).
// false from either step: CholeskyQR2 declines (U ill conditioned or too
// close to Q's range). Then orthogonalize(m, q, ldq, u, ldu, r, ldr) runs
// the CPU's block Gram-Schmidt instead (Qn into q's columns n..n+p-1, u
// destroyed), after which new_r() and rotation() are as after finish(),
// with Qn in q (f() unused); or take_block() takes the same block
// Gram-Schmidt's results made on a device (W1, W2 n-by-p, ld n, Ry1, Ry2
// p-by-p upper, ld p: U = Q*(W1 + W2*Ry1) + Qn*(Ry2*Ry1); w2 is
// overwritten), Qn in q's columns n.. as well. finish_rows() updates rows of the caller's Q
// (still the input, their U beside them, or Qn after orthogonalize) as
// the CPU's pass does, for rows the device did not deliver. Allocates
// (std::bad_alloc).
// Where R is wide the passes cost more on the host than a Householder QR
// on the device of what they reduce: leave_staircase(true) before finish(),
// orthogonalize() or take_block() makes them stop with new_r()'s columns
// j0.. set but not yet triangular. staircase() (k-by-k at new_r()'s row and
// column j0, ld n+p: the inserted block's rows j0.. and R's old columns
// after it, lower bandwidth p) is then what the passes would reduce; the
// device factors it as M*S, writes S's upper triangle over it (anything
// below the diagonal) and M into product_room() (k-by-k, ld k), and calls
// staircase_factored(). rotation() is then M, and finish_rows() multiplies
// by it.
template <class T> class AddcolsEconHost {
 public:
  // room: room_elems(n, p, j0) elements that outlive the object (a
  // device's pinned buffer), or null: allocated here.
  AddcolsEconHost(lint n, lint p, lint j0, int threads, T *room = nullptr);
  static std::size_t room_elems(lint n, lint p, lint j0);
  T *gram1();
  bool factor_gram1();
  const T *r1inv();
  T *gram2();
  bool finish(const T *r, lint ldr);
  void orthogonalize(lint m, T *q, lint ldq, T *u, lint ldu, const T *r, lint ldr);
  void take_block(const T *w1, T *w2, const T *ry1, const T *ry2, const T *r, lint ldr);
  const T *new_r() const { return r_; }
  // new_r() into the caller's R (n+p columns of n+p rows), on every core.
  void copy_r(T *r, lint ldr) const;
  const T *f();
  const T *rotation() const { return rot_; }
  void finish_rows(lint rows, T *q, lint ldq, const T *u, lint ldu);
  void leave_staircase(bool leave) { staircase_ = leave; }
  T *staircase() const { return r_ + j0_ + j0_ * (n_ + p_); }
  T *product_room() const { return rot_; }
  void staircase_factored();

 private:
  void open_gap(const T *r, lint ldr);
  void passes();
  lint n_, p_, j0_;
  int threads_;
  bool formed_ = false;    // Qn in q's columns n.. (orthogonalize)
  bool gap_open_ = false;  // R's old columns in r_ (open_gap)
  bool staircase_ = false; // the passes left to a device (leave_staircase)
  std::unique_ptr<T[]> own_;
  T *work_, *r_, *rot_;  // WORK of the blocked path, the new R, M
  std::vector<std::ptrdiff_t> bounds_;
};

// Delete columns j0..j0+p-1 (p >= 1): r(1:n-p,1:n-p), with wantq q(1:m,1:n-p).
template <class T>
void qrupd_delcols_econ(bool wantq, lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *work,
                        long lwork, int threads);
// Insert the p rows of u (p-by-n, destroyed) before row j0 (n, p >= 1);
// with wantq q (ldq >= m+p) is m-by-n on entry, (m+p)-by-n on exit.
template <class T>
void qrupd_addrows_econ(bool wantq, lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu,
                        T *work, int threads);

}  // namespace hqr::cpu
