// xTRTRI, xLAUUM and xPOTRI past one GPU's memory: host/inverse_halves.hpp's
// recursion by halves on the caller's array, with these pieces. A diagonal
// block whose in-core schedule fits the GPU's budget runs in core on the
// set's first GPU (inverse_one_gpu: the block up once, its result down
// once); the products run host to host over the whole set through the
// level-3 BLAS's tiles (blas3_gpu.cu: herk/syrk and gemm at any size; its
// trmm keeps the triangle whole on each GPU, so a triangle past half the
// budget splits again around a gemm).
// What this costs over in core: each level moves its off-diagonal block up
// and down once per product (two for trtri, two for lauum) and its
// triangles up once, about n**2 elements a level, where in core each
// element crosses once each way.
//
// Failures: every piece stands alone, the caller's array holding the input
// where a piece has not run and the result where it has. A diagonal block
// the GPU did not finish the CPU finishes from what was stored
// (host/inverse.hpp); a product the GPU did not finish the next BLAS
// computes (blas3_gpu.cu stores whole tiles and finishes the rest on the
// CPU, or writes nothing). So the call always completes; its path says
// "cpu-resumed" when any piece needed the CPU.
#include <algorithm>
#include <cstdio>

#include "cpu/blas.hpp"
#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "cuda/node.hpp"
#include "host/inverse.hpp"
#include "host/inverse_halves.hpp"
#include "host/next_lapack.hpp"

namespace hqr::gpu {
namespace {

using Op = InverseOp;

// InverseByHalves's pieces on the GPUs, each completed on the CPU where the
// GPU did not finish it, with the count of pieces for the trace.
template <class T> class GpuPieces {
 public:
  GpuPieces(const DeviceSet &set, bool upper, bool unit, std::size_t budget)
      : c_(*set.member[0]), upper_(upper), unit_(unit), budget_(budget) {}

  bool whole(bool inverse, lint t) const {
    return t <= 64 || inverse_in_core_bytes<T>(inverse ? Op::trtri : Op::lauum, t, 0) <= double(budget_);
  }
  // blas3's trmm keeps the triangle whole on each GPU beside its tiles.
  bool holds(lint t) const { return t <= 64 || double(sizeof(T)) * double(t) * double(t) <= double(budget_) / 2; }

  void block(bool inverse, lint t, T *a, lint lda) {
    ++blocks_;
    const Result r = inverse_one_gpu(c_, inverse ? Op::trtri : Op::lauum, upper_, unit_, t, a, lda);
    if (r.ran) {  // (its `why` names a pinned caller at most)
      devices_ |= r.devices;
      return;
    }
    fell(r.why);
    const char uplo = upper_ ? 'U' : 'L', diag = unit_ ? 'U' : 'N';
    lint info = 0;
    if (inverse) {
      if (r.resume > 0) return finish_trtri(upper_, unit_, t, r.resume, a, lda);
      return next::trtri(&uplo, &diag, &t, a, &lda, &info);
    }
    if (r.resume > 0) return finish_lauum(upper_, t, r.resume, a, lda);
    cpu_lauum(upper_, t, a, lda);
  }

  void trmm(bool left, char trans, lint m, lint n, T alpha, const T *a, lint lda, T *b, lint ldb) {
    if (ran(gpu::trmm(left, upper_, trans, unit_, m, n, alpha, a, lda, b, ldb))) return;
    blas::trmm<T>(left ? 'L' : 'R', upper_ ? 'U' : 'L', trans, unit_ ? 'U' : 'N', m, n, alpha, a, lda, b, ldb);
  }
  // C += alpha*op(A)*op(B); where no GPU holds its tiles (a long k in a
  // small budget), as the sum of products over halves of k.
  void gemm(char ta, char tb, lint m, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb, T *c,
            lint ldc) {
    const Result r = gpu::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, T(1), c, ldc);
    if (too_large(r, k)) {
      const lint h = k / 2;
      gemm(ta, tb, m, n, h, alpha, a, lda, b, ldb, c, ldc);
      return gemm(ta, tb, m, n, k - h, alpha, ta == 'N' ? a + std::size_t(h) * lda : a + h, lda,
                  tb == 'N' ? b + h : b + std::size_t(h) * ldb, ldb, c, ldc);
    }
    if (ran(r)) return;
    blas::gemm<T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, T(1), c, ldc);
  }
  void herk(char trans, lint n, lint k, const T *a, lint lda, T *c, lint ldc) {
    const Result r = gpu::syrk(upper_, trans, is_complex<T>, n, k, T(1), a, lda, T(1), c, ldc);
    if (too_large(r, k)) {
      const lint h = k / 2;
      herk(trans, n, h, a, lda, c, ldc);
      return herk(trans, n, k - h, trans == 'N' ? a + std::size_t(h) * lda : a + h, lda, c, ldc);
    }
    if (ran(r)) return;
    blas::syrk<T>(is_complex<T>, upper_ ? 'U' : 'L', trans, n, k, T(1), a, lda, T(1), c, ldc);
  }

  // The trace's account of the call.
  Result result() const {
    thread_local char text[120];
    int gpus = 0;
    for (std::uint64_t m = devices_ | 1; m; m >>= 1) gpus += int(m & 1);
    if (cpu_pieces_ == 0)
      std::snprintf(text, sizeof text, "gpu-node (%d GPU%s, out of core: %d blocks in core, %d products)", gpus,
                    gpus > 1 ? "s" : "", blocks_, products_);
    else
      std::snprintf(text, sizeof text, "cpu-resumed");
    Result r{true, 0, cpu_pieces_ ? why_ : nullptr, 0};
    r.devices = devices_ | 1;
    r.path = text;
    return r;
  }

 private:
  // A product's outcome: false where the CPU must compute it (nothing
  // written); `why` with `ran` means the CPU finished some of its tiles.
  bool ran(const Result &r) {
    ++products_;
    devices_ |= r.devices;
    if (r.why) fell(r.why);
    return r.ran;
  }
  static bool too_large(const Result &r, lint k) { return !r.ran && r.why == kTilesTooLarge && k > 32; }
  void fell(const char *why) {
    ++cpu_pieces_;
    why_ = why;
  }

  Context &c_;
  const bool upper_, unit_;
  const std::size_t budget_;
  int blocks_ = 0, products_ = 0, cpu_pieces_ = 0;
  std::uint64_t devices_ = 0;
  const char *why_ = nullptr;
};

}  // namespace

template <class T>
Result inverse_out_of_core(const DeviceSet &set, InverseOp op, bool upper, bool unit, lint n, T *a, lint lda,
                           std::size_t budget) {
  // unit is false for lauum and potri (the caller passes it so): their
  // products use the diagonal as it stands.
  GpuPieces<T> pieces(set, upper, unit, budget);
  InverseByHalves<T, GpuPieces<T>> halves(pieces, upper);
  if (op != Op::lauum) halves.trtri(n, a, lda);
  if (op != Op::trtri) halves.lauum(n, a, lda);
  return pieces.result();
}

#define HQR_INSTANTIATE(T)                                                                                         \
  template Result inverse_out_of_core(const DeviceSet &, InverseOp, bool, bool, lint, T *, lint, std::size_t);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
