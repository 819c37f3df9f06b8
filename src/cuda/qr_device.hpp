// A QR factorization that the hybrid geqrf leaves on the device for a
// routine that goes on using it (xGELS applies its Q**H to B there and
// solves with its R). Valid while the caller holds the context's lock, until
// the next reservation of the context's buffers.
#pragma once

#include <cstddef>

#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "cuda/node.hpp"
#include "host/config.hpp"

namespace hqr::gpu {

template <class T> struct DeviceQR {
  T *a = nullptr;  // ldda by n: R and the reflectors, as in the caller's A
  lint ldda = 0;
  T *tau = nullptr;  // min(m,n)
  T *t = nullptr;    // panel p's T (xLARFT, forward, columnwise) at t + p*nb*nb, leading dimension nb
  lint nb = 0;
  void *extra = nullptr;              // the caller's extra bytes of workspace
  unsigned long long *amax = nullptr;  // max |a_ij| of the input as the bits of a double (xLANGE 'M')
};

// geqrf_hybrid.cu: the hybrid geqrf, A and tau stored in the caller's arrays
// exactly as gpu::geqrf stores them, the factor left on the device in *out
// when `ran`. conj_transposed: the caller's array (lda) holds an n-by-m
// matrix B and the m-by-n matrix factored is B**H; what comes back is the
// factor's conjugate transpose, in B's rows (Result::resume counts rows).
// The caller holds c.lock and has made c's device current.
template <class T>
Result geqrf_on_device(Context &c, lint m, lint n, T *a, lint lda, T *tau, std::size_t extra_bytes, DeviceQR<T> *out,
                       const char **path, bool conj_transposed = false);

// The same factorization of a matrix already on the device (m by n at a,
// leading dimension ldda), in place, ordered after the work queued on c's
// compute stream: A as xGEQRF leaves it, tau (min(m,n), device memory) its
// tau; nothing travels, and the streams are idle on return. Its scratch is
// c.inner_workspace, so the caller's c.matrix and c.workspace stay valid
// (the QR updates factor inside them). `ran` false: a CUDA error, A and
// tau undefined. `kept`, where given, receives the panels' T's (t, nb; a,
// ldda and tau as given; no amax or extra bytes), in c.inner_workspace
// until its next reservation. The caller holds c.lock and has made c's
// device current.
template <class T>
Result geqrf_device(Context &c, lint m, lint n, T *a, lint ldda, T *tau, DeviceQR<T> *kept = nullptr);
// The block size (kept->nb) geqrf_device takes for n columns.
lint geqrf_device_block(lint n);

// qr_apply.cu: xGEQRF out of core, left-looking in windows of w columns
// (w < n), each factored by geqrf_device; A, tau and the Result as
// gpu::geqrf's (`resume`: the leading columns final). *windows: how many;
// amax (unless null): max |a_ij| of the input, as the bits of a double
// (for xGELS). The caller holds c.lock and has made c's device current.
template <class T>
Result geqrf_out_of_core(Context &c, lint m, lint n, T *a, lint lda, T *tau, lint w, int *windows,
                         unsigned long long *amax = nullptr);

// geqrf_hybrid.cu: the columns the in-core schedule may hold at once (n
// where an m-by-n matrix and its workspace fit what the GPU may plan with,
// else a window of whole panels, at least one).
template <class T> lint geqrf_window(Context &c, lint m, lint n);

// qr_one_trip.cu: small problems in one trip to cuSOLVER, results exactly
// as the gpu:: routine of the same name returns them (gpu.hpp). Each
// returns false, having done nothing, where the one trip does not serve;
// else *r holds the call's result. The caller holds c.lock and has made c's
// device current.
template <class T> bool geqrf_one_trip(Context &c, lint m, lint n, T *a, lint lda, T *tau, Result *r);
template <class T>
bool ormqr_one_trip(Context &c, bool left, bool trans, lint m, lint n, lint k, const T *a, lint lda, const T *tau,
                    T *cc, lint ldc, Result *r);
template <class T> bool orgqr_one_trip(Context &c, lint m, lint n, lint k, T *a, lint lda, const T *tau, Result *r);
template <class T>
bool gels_one_trip(Context &c, bool trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, T *tau,
                   GelsResult *g);

}  // namespace hqr::gpu
