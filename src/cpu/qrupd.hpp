// CPU kernels of the QR-updating routines (xQRUPD_*): given A = Q*R (Q
// M-by-M orthogonal, R M-by-N upper trapezoidal), the factors of A with
// columns or rows added or deleted, without refactoring.
//
// Algorithms after Hammarling & Lucas (2008) and Andrew & Dingle (2014):
//   delcols  short Householder reflectors (length <= P+1) on R's band,
//            applied blockwise to R's trailing columns and to Q's columns;
//   addcols  Q^T*U by gemm, a Householder QR of the part below row N, then
//            Givens passes that reduce the inserted block bottom-up;
//   addrows  compact-WY reflectors that touch one row of R and the P new
//            rows each ([R; U] as LAPACK's xTPQRT with L = 0), gemm updates;
//   delrows  Givens passes that turn the deleted rows of Q into [+-I 0].
//
// The entry points (src/host/qrupd.cpp) check the arguments; these
// functions assume valid ones. Indices j0 are 0-based. `work` holds at least
// *_lwork(..., 1) elements; a larger one allows a larger block size.
#pragma once

#include "host/common.hpp"

namespace hqr::cpu {

// Largest block size the kernels use (columns/passes per block).
constexpr lint qrupd_nb = 32;

// Workspace, in elements, for block size nb >= 1.
long qrupd_delcols_lwork(lint m, lint n, lint p, lint nb);
long qrupd_addcols_lwork(lint m, lint n, lint p, lint nb);
long qrupd_addrows_lwork(bool wantq, lint m, lint n, lint p, lint nb);
long qrupd_delrows_lwork(lint m, lint n, lint p, lint nb);

// Delete columns j0..j0+p-1 (p >= 1). Q is updated when wantq.
template <class T>
void qrupd_delcols(bool wantq, lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *work, long lwork);

// Insert the p columns of u (m-by-p, destroyed) before column j0 (p >= 1).
template <class T>
void qrupd_addcols(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu, T *work,
                   long lwork);

// Insert the p rows of u (p-by-n, destroyed) before row j0 (p >= 1). When
// wantq, q (ldq >= m+p) holds the m-by-m factor on entry and the
// (m+p)-by-(m+p) one on exit.
template <class T>
void qrupd_addrows(bool wantq, lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu,
                   T *work, long lwork);

// Delete rows j0..j0+p-1 (p >= 1); q(1:m-p,1:m-p) and r(1:m-p,1:n) on exit.
template <class T>
void qrupd_delrows(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *work, long lwork);

}  // namespace hqr::cpu
