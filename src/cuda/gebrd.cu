// The bidiagonal form of xGELSD's n-by-n stage on the device (gpu.hpp):
// R's upper triangle comes in through the upload slots, cuSOLVER's xGEBRD
// reduces it, and what xGEBRD leaves in A streams back by rows into the
// caller's V (Update::stream_rows), then D, E, TAUQ and TAUP. The CPU's
// xGEBRD spends half its flops in matrix-vector products over the trailing
// matrix, bound by the host's memory: at n = 2048 the whole n-by-n stage
// (next LAPACK's xGELSD on R) took 1.6-1.7 s of numpy's lstsq of a
// 32768 x 2048 matrix on the H200 host, where the device's memory serves
// those products (bench/results/python-NVIDIA-H200-2026-12-04.txt).
// R is only read: a failure leaves the CPU its input.
#include <vector>

#include "cuda/blas.cuh"
#include "cuda/qr_kernels.cuh"
#include "cuda/qrupd_gpu.cuh"

namespace hqr::gpu {
namespace {

template <class T> using Real = typename Prec<T>::real;

// (gebrd_work's first argument only picks the type.)
#define HQR_CUSOLVER_GEBRD(T, P)                                                                                     \
  inline cusolverStatus_t gebrd_work(const T *, cusolverDnHandle_t h, int m, int n, int *lwork) {                  \
    return cusolverDn##P##gebrd_bufferSize(h, m, n, lwork);                                                         \
  }                                                                                                                 \
  inline cusolverStatus_t gebrd(cusolverDnHandle_t h, int m, int n, T *a, int lda, Real<T> *d, Real<T> *e, T *tauq, \
                                T *taup, T *w, int lwork, int *info) {                                              \
    return cusolverDn##P##gebrd(h, m, n, blas::cu(a), lda, d, e, blas::cu(tauq), blas::cu(taup), blas::cu(w),       \
                                lwork, info);                                                                       \
  }
HQR_CUSOLVER_GEBRD(float, S)
HQR_CUSOLVER_GEBRD(double, D)
HQR_CUSOLVER_GEBRD(std::complex<float>, C)
HQR_CUSOLVER_GEBRD(std::complex<double>, Z)
#undef HQR_CUSOLVER_GEBRD

}  // namespace

template <class T>
Result gebrd(lint n_, const T *r, lint ldr_, T *v, lint ldv_, Real<T> *d, Real<T> *e, T *tauq, T *taup) {
  const idx n = n_, ldr = ldr_, ldv = ldv_, lda = (n + 31) / 32 * 32;
  Context *ctx = context();
  if (!ctx) return {false, 0, context_error(), 0};
  // cuSOLVER's xGEBRD takes int orders; past 2^31 elements its offsets are
  // not documented to hold (n = 46340; the CPU then serves).
  if (double(lda) * double(n) > 2147483647.0) return {false, 0, "order beyond cuSOLVER's 32-bit xGEBRD", 0};
  const std::vector<Piece> rin = pieces(0, 0, n, sizeof(T), [](idx c) { return c + 1; });
  return run_locked<T>(*ctx, [&](Update<T> &u) -> Result {
    Context &c = u.c_;
    int lwork = 0;
    if (!u.check(gebrd_work(r, c.solver, int(n), int(n), &lwork), Point::kernel)) return {false, 0, u.why(), 0};
    // d and e (real) in elements of T, and the INFO word in one more.
    if (!u.reserve(std::size_t(lda) * n, std::size_t(lwork) + 4 * std::size_t(n) + 64)) return {false, 0, u.why(), 0};
    T *dA = u.take_matrix(std::size_t(lda) * n), *dwork = u.take_work(std::size_t(lwork));
    T *dtauq = u.take_work(std::size_t(n)), *dtaup = u.take_work(std::size_t(n));
    Real<T> *dd = reinterpret_cast<Real<T> *>(u.take_work(std::size_t(n)));
    Real<T> *de = reinterpret_cast<Real<T> *>(u.take_work(std::size_t(n)));
    int *dinfo = reinterpret_cast<int *>(u.take_work(1));
    if (!u.upload(rin, r, ldr, dA, lda, 0, 0) || !u.check(cudaStreamSynchronize(c.upload_stream), Point::sync))
      return {false, 0, u.why(), 0};
    u.mark("uploaded");
    zero_below<<<grid_cols(n, n), 256, 0, c.compute_stream>>>(dv(dA), lda, n, n, 0);
    if (!u.launched() ||
        !u.check(gebrd(c.solver, int(n), int(n), dA, int(lda), dd, de, dtauq, dtaup, dwork, lwork, dinfo),
                 Point::kernel))
      return {false, 0, u.why(), 0};
    cudaEvent_t done = c.download_slots[0].dma_done;
    if (!u.check(cudaEventRecord(done, c.compute_stream), Point::kernel) ||
        !u.check(cudaStreamWaitEvent(c.download_stream, done, 0), Point::sync))
      return {false, 0, u.why(), 0};
    if (u.stream_rows(dA, lda, v, ldv, n, n) != n) return {false, 0, u.why(), 0};
    u.mark("reduced and downloaded");
    int info = 0;
    const cudaStream_t s = c.download_stream;
    const std::size_t rb = std::size_t(n) * sizeof(Real<T>), tb = std::size_t(n) * sizeof(T);
    if (!u.check(cudaMemcpyAsync(d, dd, rb, cudaMemcpyDeviceToHost, s), Point::copy) ||
        (n > 1 && !u.check(cudaMemcpyAsync(e, de, rb - sizeof(Real<T>), cudaMemcpyDeviceToHost, s), Point::copy)) ||
        !u.check(cudaMemcpyAsync(tauq, dtauq, tb, cudaMemcpyDeviceToHost, s), Point::copy) ||
        !u.check(cudaMemcpyAsync(taup, dtaup, tb, cudaMemcpyDeviceToHost, s), Point::copy) ||
        !u.check(cudaMemcpyAsync(&info, dinfo, sizeof info, cudaMemcpyDeviceToHost, s), Point::copy) ||
        !u.land())
      return {false, 0, u.why(), 0};
    if (info != 0) return {false, 0, "cuSOLVER's xGEBRD returned an error", 0};
    return u.done("gebrd");
  });
}

#define HQR_INSTANTIATE(T) \
  template Result gebrd(lint, const T *, lint, T *, lint, Real<T> *, Real<T> *, T *, T *);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
