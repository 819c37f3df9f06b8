// What the host side asks of the GPU side. Builds without CUDA link
// src/host/no_gpu.cpp instead, where nothing ever runs on a GPU.
#pragma once

#include "host/common.hpp"

namespace hqr::gpu {

// Cheap: is a GPU there to serve calls (HQR_DEVICE, driver, not a fork child)?
bool available();

// The outcome of a GPU path. `ran` true: `info` is the routine's INFO.
// `ran` false: the GPU could not finish (`why` says why); the caller's array
// holds the input except for the first `resume` columns (routine-specific:
// for potrf, columns of L already final), and the CPU path takes over there.
struct Result {
  bool ran;
  lint info;
  const char *why;
  lint resume;
  // potrf, uplo 'U' only: rows resume..resume+partial_rows-1 of U are also
  // final in columns up to partial_cols-1 (a panel stored in part).
  lint partial_rows = 0, partial_cols = 0;
};

// Hybrid Cholesky, host memory in and out (potrf_hybrid.cu).
template <class T> Result potrf(bool upper, lint n, T *a, lint lda);

// Hybrid triangular inverse, U*U**H (L**H*L) and Cholesky inverse, host
// memory in and out (inverse_hybrid.cu). The caller has checked the
// arguments and, for trtri (diag 'N') and potri, that the diagonal holds no
// zero. `resume` counts leading lines of the result final in the caller's
// array, the rest still being the input: trtri, columns ('U') or rows ('L');
// lauum and potri, rows ('U') or columns ('L'). The CPU finishes trtri with
// the trailing block's inverse and two trmm (host/inverse.hpp), lauum and
// potri with lauum or potri of the trailing diagonal block alone.
template <class T> Result trtri(bool upper, bool unit, lint n, T *a, lint lda);
template <class T> Result lauum(bool upper, lint n, T *a, lint lda);
template <class T> Result potri(bool upper, lint n, T *a, lint lda);

// QR updates on the GPU, host memory in and out (qrupd_gpu.cu); s and d.
// The caller has checked the arguments and that the update has work (P >= 1;
// delcols: J-1 < min(N-P, M-1)). Atomic: `ran` false leaves every array as
// it came (the CPU path then runs); `resume` is unused. addrows: JOBQ = 'N'.
template <class T> Result qrupd_delcols(bool wantq, lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr);
template <class T> Result qrupd_addrows(lint m, lint n, lint p, T *r, lint ldr, T *u, lint ldu);
// addcols and delrows with Q (M >= 1; delrows: M > P): R's result comes
// back staged (`ran` false leaves every array as it came, as above); then
// Q's rows stream into the caller. Should that fail, the CPU applies the
// device's reflectors (fetched before) to Q's rows not yet written: `ran`
// stays true, `why` says so and `resume` counts the rows that came back.
template <class T> Result qrupd_addcols(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu);
template <class T> Result qrupd_delrows(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr);
// addrows with Q (M, N >= 1), likewise; Q's rows stream from the last, and
// `resume` counts the trailing rows that came back.
template <class T>
Result qrupd_addrows_q(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu);

// Hybrid QR factorization, host memory in and out (geqrf_hybrid.cu): A and
// tau exactly as LAPACK's xGEQRF leaves them (info is always 0). `resume`
// counts the leading columns of A, and the tau of their reflectors, that
// are final in the caller's arrays; the other columns hold the input.
// *path names the variant that ran, for HQR_VERBOSE.
template <class T> Result geqrf(lint m, lint n, T *a, lint lda, T *tau, const char **path);

}  // namespace hqr::gpu
