// What the host side asks of the GPU side. Builds without CUDA link
// src/host/no_gpu.cpp instead, where nothing ever runs on a GPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "host/common.hpp"

namespace hqr::gpu {

// Is a GPU there to serve calls (HQR_DEVICE, driver, not a fork child)?
// Creates the device set's contexts if need be and waits for them (a few
// tenths of a second, once per process); cheap after that.
bool available();

// Starting the GPU side without waiting for it (context.cu). `off`: no GPU
// will serve (HQR_DEVICE=none, a fork child, no device, or its context
// failed); `cold`: nothing started yet; `starting`: a background thread is
// creating the contexts, begun `seconds` ago; `ready`: available() is true
// and cheap.
enum class Startup { off, cold, starting, ready };
struct StartState {
  Startup state;
  double seconds;
};
StartState startup();
// Begins creating the device set's contexts on a background thread, once;
// returns at once. A process that exits meanwhile waits for it at exit.
void start();

// Whether [p, p+bytes) lies in pinned host memory (pinned.hpp), for the
// dispatch: asked of the driver as it stands, the current device untouched.
bool caller_pinned(const void *p, std::size_t bytes);

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
  // The GPUs that worked (a mask of ordinals; 0: the first of the set),
  // and the schedule that ran, for HQR_VERBOSE (nullptr: the routine's own
  // name for it).
  std::uint64_t devices = 0;
  const char *path = nullptr;
  // potrf asked for the log-determinant (xPOLOGDET), `ran` true: whether
  // the GPU summed log(real(L(i,i))) as it factored, and the sum.
  bool has_log_det = false;
  double log_det = 0;
};

// Result::why of a QR path that found a NaN or Inf in its input (xGELS's
// one trip and hybrid), which the CPU then serves as plain LAPACK
// (dispatch.hpp's CpuOnly).
inline constexpr char kNonFiniteInput[] = "NaN or Inf in A or B";

// Cholesky, host memory in and out: over the device set (potrf_node.cu)
// when it has several GPUs and the order is large, or when the matrix does
// not fit one GPU (out of core); else on the first GPU (potrf_hybrid.cu).
// With log_det, the diagonal blocks' logarithms are summed where they are
// factored (Result::log_det), for xPOLOGDET.
template <class T> Result potrf(bool upper, lint n, T *a, lint lda, bool log_det = false);

// Hybrid triangular inverse, U*U**H (L**H*L) and Cholesky inverse, host
// memory in and out (inverse_hybrid.cu). The caller has checked the
// arguments and, for trtri (diag 'N') and potri, that the diagonal holds no
// zero. `resume` counts lines of the result final in the caller's array,
// the rest still being the input: trtri, leading ('U') or trailing ('L')
// columns; lauum and potri, leading rows ('U') or columns ('L'). The CPU
// finishes trtri with the other diagonal block's inverse and two trmm
// (host/inverse.hpp), lauum and potri with lauum or potri of the trailing
// diagonal block alone.
template <class T> Result trtri(bool upper, bool unit, lint n, T *a, lint lda);
template <class T> Result lauum(bool upper, lint n, T *a, lint lda);
template <class T> Result potri(bool upper, lint n, T *a, lint lda);

// QR updates on the GPU, host memory in and out (qrupd_cols.cu,
// qrupd_rows.cu); s, d, c and z.
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
// The economy form's addcols (qrupd_econ.cu; Q m-by-n, m >= n+p, P >= 1),
// likewise: `ran` false leaves every array as it came; R is written
// first, then Q's rows stream; rows that did not come back are updated by
// the CPU (`ran` true, `why` says so, `resume` counts the rows that came
// back). U is only read, except where CholeskyQR2 declines (U ill
// conditioned or close to Q's range): the CPU's block Gram-Schmidt then
// orthogonalises it into Q's room (U destroyed), the device still applies
// the passes, and the update completes (`why` says so).
template <class T>
Result qrupd_addcols_econ(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu);

// Hybrid QR factorization, host memory in and out (geqrf_hybrid.cu): A and
// tau exactly as LAPACK's xGEQRF leaves them (info is always 0). `resume`
// counts the leading columns of A, and the tau of their reflectors, that
// are final in the caller's arrays; the other columns hold the input.
// *path names the variant that ran, for HQR_VERBOSE.
template <class T> Result geqrf(lint m, lint n, T *a, lint lda, T *tau, const char **path);

// The bidiagonal form of an n-by-n upper triangular R (xGELSD's n-by-n
// stage; gebrd.cu): Q**H R P = B, B upper bidiagonal, by cuSOLVER's xGEBRD.
// V (ldv >= n) gets what xGEBRD leaves in A (B's diagonal and
// superdiagonal, Q's reflectors below the diagonal, P's right of the
// superdiagonal), d and e B's diagonal (n) and superdiagonal (n-1), tauq and
// taup (n) the reflectors' scalars, all as LAPACK's xGEBRD stores them.
// R's strictly lower part is not referenced and R is only read: `ran`
// false leaves it as it came (V, d, e, tauq, taup undefined).
template <class T>
Result gebrd(lint n, const T *r, lint ldr, T *v, lint ldv, typename Prec<T>::real *d, typename Prec<T>::real *e,
             T *tauq, T *taup);

}  // namespace hqr::gpu

// ---- Applying and forming Q on the GPU (qr_apply.cu) ------------------------
namespace hqr::gpu {

// Host memory in and out; the caller has checked the arguments and that the
// call has work (no quick return).

// xGELS, m >= n: the hybrid geqrf (A and tau stored as xGEQRF stores them;
// tau in the caller's `tau`, min(m,n) entries), then on the device, for
// trans 'N', B := Q**H B and, unless R has an exactly zero diagonal element
// (info = the first one's index, as xTRTRS), B(1:n,:) := R**-1 B(1:n,:);
// for `trans` ('T'/'C'), unless info > 0 (B then untouched),
// B(1:n,:) := R**-H B(1:n,:), B(n+1:m,:) := 0, B := Q B.
// No scaling (xGELS's xLASCL): the caller emulates it from `anrm`.
struct GelsResult {
  Result r;         // ran: A, tau and all of B final (r.info as above)
  bool factored;    // A holds the whole factorization and tau its tau (else r.resume columns of it)
  lint b_columns;   // leading columns of B final (the rest still hold the input)
  double anrm;      // max |a_ij| of the input, when factored (NaN: unknown); 0: B was not touched
};
template <class T>
GelsResult gels(bool trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, T *tau, const char **path);

// xGELS, m < n: A**H = Q_F R factored on the device (transposed on its
// way in and out), A and tau stored exactly as xGELQF stores them (L = R**H,
// the reflectors conjugated in A's rows), then trans 'N': B(1:m,:) :=
// L**-1 B(1:m,:) (unless info > 0: B untouched), B(m+1:n,:) := 0,
// B := Q**H B (Q = Q_F**H, xGELQF's); trans 'T'/'C': B := Q B, then
// B(1:m,:) := L**-H B(1:m,:) unless info > 0. Not factored: r.resume
// leading rows of A (and their tau) are final, the other rows the input.
// Over the set (as gels with m >= n), and out of core where one GPU cannot
// hold A**H and B: A**H formed in host memory and run as the m >= n case.
template <class T>
GelsResult gels_lq(bool trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, T *tau, const char **path);

// xORMQR/xUNMQR: C := op(Q) C (left) or C op(Q) (right), op(Q) = Q**H when
// `trans`. A and tau are only read. `ran` false: C's first r.resume columns
// (left) or rows (right) are final, the rest hold the input.
template <class T>
Result ormqr(bool left, bool trans, lint m, lint n, lint k, const T *a, lint lda, const T *tau, T *c, lint ldc,
             const char **path);

// xORGQR/xUNGQR: A := the first n columns of H(1)...H(k). `ran` false:
// columns r.resume..n-1 of A are final, columns 0..r.resume-1 hold the input.
template <class T> Result orgqr(lint m, lint n, lint k, T *a, lint lda, const T *tau, const char **path);

}  // namespace hqr::gpu

// ---- Level-3 BLAS on the GPUs (blas3_gpu.cu) --------------------------------
namespace hqr::gpu {

// Host memory in and out, column-major, Fortran semantics. The caller
// (host/blas3.cpp) has checked the arguments, taken the quick returns and
// the alpha == 0 case to the next BLAS, and chosen the GPU
// (choose_blas3_path). `ran` true: the result (C; B for trmm/trsm) is final
// (`why` non-null if the CPU finished part of it after a GPU failure).
// `ran` false: nothing was written; the caller runs the next BLAS.
// beta == 0 never reads C. Transposes are 'N', 'T' or 'C' (upper case).
// herm: xHEMM/xHERK/xHER2K (alpha of herk and beta of herk/her2k are real,
// passed with a zero imaginary part).
// Result::why of a product whose tiles no GPU's memory holds even at the
// smallest edge (pieces are an edge by the inner dimension): nothing was
// written; a shorter inner dimension may fit.
inline constexpr char kTilesTooLarge[] = "GPU memory too small for the tiles";
template <class T>
Result gemm(char transa, char transb, lint m, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb,
            T beta, T *c, lint ldc);
template <class T>
Result symm(bool left, bool upper, bool herm, lint m, lint n, T alpha, const T *a, lint lda, const T *b, lint ldb,
            T beta, T *c, lint ldc);
template <class T>
Result syrk(bool upper, char trans, bool herm, lint n, lint k, T alpha, const T *a, lint lda, T beta, T *c, lint ldc);
template <class T>
Result syr2k(bool upper, char trans, bool herm, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb,
             T beta, T *c, lint ldc);
template <class T>
Result trmm(bool left, bool upper, char transa, bool unit, lint m, lint n, T alpha, const T *a, lint lda, T *b,
            lint ldb);
template <class T>
Result trsm(bool left, bool upper, char transa, bool unit, lint m, lint n, T alpha, const T *a, lint lda, T *b,
            lint ldb);

}  // namespace hqr::gpu
