// xPOTRI, xTRTRI, xLAUUM: LAPACK's residual ratios (DPOT03, DTRT01 and a
// direct product check for lauum) for both uplo (and both diag), n in
// {0, 1, 2, 31, 64, 257, 500} (HQR_TEST_LARGE=1 adds 1000 and 2100, past
// the GPU recursion's leaf order so that its products split), lda = n
// and lda > n, each with the default block size and with HQR_NB = 32 (so the
// hybrid path, run with HQR_GPU_MIN_N=0 on a GPU machine, takes many blocks
// and a ragged last one); padding and unreferenced entries unchanged byte
// for byte; INFO for singular triangles equal to the reference LAPACK's;
// xPOTRI of one order called again and again (a GPU replays the small
// trip's graph).
// With HQR_GPU_MIN_N=0 on a GPU machine every call must end on a GPU path,
// and with several GPUs every GPU must work once the order spans a block
// for each (GpuPathCheck).
// Also hqr's own diagonal-block kernels (src/cpu/trti2, lauu2), which only
// the hybrid path calls, against the same ratios, and the CPU finishers that
// complete a GPU call stopped partway (src/host/inverse.hpp). And xLAUUM and
// xPOTRI on arrays that end where unmapped memory begins (at_mapping_end).
#include "testing.hpp"

// The kernels are internal to libhqr: compiled into this program instead,
// and so are the CPU finishers of a GPU call that stopped early (with the
// next-LAPACK lookup they call through, which skips libhqr's own exports,
// and the settings it reads).
#include "cpu/lauu2.cpp"
#include "cpu/trti2.cpp"
#include "host/config.cpp"
#include "host/inverse.hpp"
#include "host/inverse_halves.hpp"
#include "host/next_lapack.cpp"

using namespace testing;

namespace {

constexpr lint kPads[] = {0, 4};

std::vector<lint> sizes() {
  std::vector<lint> s = {0, 1, 2, 31, 64, 257, 500};
  if (std::getenv("HQR_TEST_LARGE")) s.insert(s.end(), {1000, 2100});
  return s;
}

// Runs `body` with hqr's default block size, then with HQR_NB = 32.
template <class F> void for_block_sizes(F &&body) {
  for (int nb : {0, 32}) {
    hqr_set_nb(nb);
    body(nb);
  }
  hqr_set_nb(0);
}

// The device-set schedule's blocks (inverse_node.cu): hqr_set_nb's, else
// HQR_NB's, else 512 lines.
lint node_block(int nb) {
  const char *env = std::getenv("HQR_NB");
  return nb ? nb : env ? std::atol(env) : 512;
}

template <class T> void scramble_other_triangle(Matrix<T> &a, char uplo) {
  for (lint j = 0; j < a.n; ++j)
    for (lint i = 0; i < a.m; ++i)
      if (i != j && !in_triangle(uplo, i, j)) a(i, j) = T(10) * random_value<T>();
}

template <class T> void assert_real_diagonal(const Matrix<T> &a, const std::string &ctx) {
  for (lint i = 0; i < a.n; ++i)
    if (std::imag(a(i, i)) != 0)
      fail_msg("%s: diagonal (%ld) has imaginary part %g; LAPACK's is exactly real", ctx.c_str(), long(i),
               double(std::imag(a(i, i))));
}

// ---- potri ------------------------------------------------------------------

// DPOT03: ||I - A*inv(A)||_1 / (n ||A||_1 ||inv(A)||_1 eps), for one
// fresh Hermitian positive definite matrix.
template <class T> void potri_case(char uplo, lint n, lint lda, int nb, const std::string &ctx) {
  Matrix<T> full = random_hpd<T>(n, lda);
  Matrix<T> a = full;
  scramble_other_triangle(a, uplo);
  const Matrix<T> a0 = a;
  assert_info(potrf<T>(uplo, n, a.ptr(), lda), 0, ctx + " (potrf)");
  const GpuPathCheck path;
  assert_info(potri<T>(uplo, n, a.ptr(), lda), 0, ctx);
  path.expect(n, node_block(nb), ctx.c_str());
  assert_unchanged_outside(a0, a, uplo, ctx);
  assert_real_diagonal(a, ctx);
  if (n == 0) return;
  Matrix<T> am = block(full, n, n);
  Matrix<T> inv = hermitian(block(a, n, n), uplo);
  Matrix<T> w = identity<T>(n);
  subtract_product(w, am, 'N', inv, 'N');
  assert_ratio(norm_one(w) / (double(n) * norm_one(am) * norm_one(inv) * eps<T>()), ctx);
}

template <class T, char Uplo> void potri_residual(void **) {
  for_block_sizes([](int nb) {
    for (lint n : sizes())
      for (lint pad : kPads) {
        const lint lda = std::max<lint>(1, n) + pad;
        potri_case<T>(Uplo, n, lda, nb,
                      context("%cpotri uplo=%c n=%ld lda=%ld nb=%d", prefix<T>(), Uplo, long(n), long(lda), nb));
      }
  });
}

// The same order again and again, both uplo: on a GPU the small trip's
// routine is captured as a graph at its second call and replayed from the
// third (one_trip.cuh, run_routine); each call's inverse is checked on its
// own fresh matrix, so a replay that kept anything of an earlier call fails.
template <class T> void potri_repeated(void **) {
  for (lint n : {64, 257})
    for (int k = 0; k < 4; ++k)
      for (char uplo : {'L', 'U'})
        potri_case<T>(uplo, n, n + k % 2, 0,
                      context("%cpotri uplo=%c n=%ld call %d", prefix<T>(), uplo, long(n), k + 1));
}

// A Cholesky factor with a zero on its diagonal: INFO = that position (the
// first one), as the reference LAPACK's trtri reports it, and A unchanged
// (LAPACK checks the diagonal before writing).
template <class T> void potri_singular_factor(void **) {
  for (char uplo : {'U', 'L'})
    for (lint n : {1, 31, 257})
      for (lint k : {lint(1), n / 2 + 1, n}) {
        const lint lda = n + 2;
        const std::string ctx = context("%cpotri uplo=%c n=%ld zero at %ld", prefix<T>(), uplo, long(n), long(k));
        Matrix<T> a = random_hpd<T>(n, lda);
        assert_info(potrf<T>(uplo, n, a.ptr(), lda), 0, ctx + " (potrf)");
        a(k - 1, k - 1) = T(0);
        if (k < n) a(n - 1, n - 1) = T(0);  // a later zero does not matter
        Matrix<T> mine = a, ref = a;
        const lint info = potri<T>(uplo, n, mine.ptr(), lda);
        // The reference potri would call back into hqr's trtri: compare with
        // the reference trtri, whose INFO potri returns.
        const lint rinfo = trtri<T>(uplo, 'N', n, ref.ptr(), lda, Lib::ref);
        assert_info(rinfo, k, ctx + " [reference LAPACK]");
        assert_info(info, rinfo, ctx);
        if (!same_bytes(a, mine)) fail_msg("%s: A changed although INFO = %ld", ctx.c_str(), long(info));
      }
}

// ---- trtri ------------------------------------------------------------------

// DTRT01: ||T*inv(T) - I||_1 / (n ||T||_1 ||inv(T)||_1 eps).
template <class T, char Uplo, char Diag> void trtri_residual(void **) {
  for_block_sizes([](int nb) {
    for (lint n : sizes())
      for (lint pad : kPads) {
        const lint lda = std::max<lint>(1, n) + pad;
        const std::string ctx =
            context("%ctrtri uplo=%c diag=%c n=%ld lda=%ld nb=%d", prefix<T>(), Uplo, Diag, long(n), long(lda), nb);
        Matrix<T> a = random_triangle<T>(n, lda, Uplo, Diag);
        const Matrix<T> a0 = a;
        const GpuPathCheck path;
        assert_info(trtri<T>(Uplo, Diag, n, a.ptr(), lda), 0, ctx);
        path.expect(n, node_block(nb), ctx.c_str());
        assert_unchanged_outside(a0, a, Uplo, ctx, Diag == 'U');
        if (n == 0) continue;
        Matrix<T> t = triangle(block(a0, n, n), Uplo, Diag);
        Matrix<T> inv = triangle(block(a, n, n), Uplo, Diag);
        Matrix<T> w = identity<T>(n);
        subtract_product(w, t, 'N', inv, 'N');
        assert_ratio(norm_one(w) / (double(n) * norm_one(t) * norm_one(inv) * eps<T>()), ctx);
      }
  });
}

// Zero on the diagonal (diag 'N'): INFO = the first such position, equal to
// the reference's, and A unchanged.
template <class T> void trtri_singular(void **) {
  for (char uplo : {'U', 'L'})
    for (lint n : {1, 2, 31, 64, 257})
      for (lint k : {lint(1), n / 2 + 1, n}) {
        const lint lda = n + 3;
        const std::string ctx = context("%ctrtri uplo=%c n=%ld zero at %ld", prefix<T>(), uplo, long(n), long(k));
        Matrix<T> a = random_triangle<T>(n, lda, uplo, 'N');
        a(k - 1, k - 1) = T(0);
        if (k < n) a(n - 1, n - 1) = T(0);
        Matrix<T> mine = a, ref = a;
        const lint info = trtri<T>(uplo, 'N', n, mine.ptr(), lda);
        const lint rinfo = trtri<T>(uplo, 'N', n, ref.ptr(), lda, Lib::ref);
        assert_info(rinfo, k, ctx + " [reference LAPACK]");
        assert_info(info, rinfo, ctx);
        if (!same_bytes(a, mine)) fail_msg("%s: A changed although INFO = %ld", ctx.c_str(), long(info));
      }
}

// NaN on the diagonal: INFO as the reference's (which tests for zero only).
template <class T> void trtri_nan_info(void **) {
  const real_t<T> nan = std::numeric_limits<real_t<T>>::quiet_NaN();
  for (char uplo : {'U', 'L'})
    for (lint n : {1, 31, 257})
      for (lint k : {lint(1), n / 2 + 1, n}) {
        const lint lda = n + 1;
        const std::string ctx = context("%ctrtri uplo=%c n=%ld NaN at %ld", prefix<T>(), uplo, long(n), long(k));
        Matrix<T> a = random_triangle<T>(n, lda, uplo, 'N');
        a(k - 1, k - 1) = T(nan);
        Matrix<T> mine = a, ref = a;
        const lint info = trtri<T>(uplo, 'N', n, mine.ptr(), lda);
        const lint rinfo = trtri<T>(uplo, 'N', n, ref.ptr(), lda, Lib::ref);
        assert_info(info, rinfo, ctx);
        assert_unchanged_outside(a, mine, uplo, ctx);
      }
}

// ---- lauum ------------------------------------------------------------------

// uplo 'U': U*U^H; 'L': L^H*L, compared with the product formed here:
// ||A_out - W||_1 / (n ||W||_1 eps).
template <class T, char Uplo> void lauum_product(void **) {
  for_block_sizes([](int nb) {
    for (lint n : sizes())
      for (lint pad : kPads) {
        const lint lda = std::max<lint>(1, n) + pad;
        const std::string ctx =
            context("%clauum uplo=%c n=%ld lda=%ld nb=%d", prefix<T>(), Uplo, long(n), long(lda), nb);
        Matrix<T> a = random_matrix<T>(n, n, lda);  // triangle and all else random
        // The complex LAUUM reads only the real part of the diagonal (its input
        // is a Cholesky factor).
        for (lint i = 0; i < n; ++i) a(i, i) = T(std::real(a(i, i)));
        const Matrix<T> a0 = a;
        const GpuPathCheck path;
        assert_info(lauum<T>(Uplo, n, a.ptr(), lda), 0, ctx);
        path.expect(n, node_block(nb), ctx.c_str());
        assert_unchanged_outside(a0, a, Uplo, ctx);
        assert_real_diagonal(a, ctx);
        assert_lauum_product(a0, a, Uplo, ctx);
      }
  });
}

// ---- at the end of a mapping ------------------------------------------------

// xLAUUM and xPOTRI on arrays that end at unmapped memory, checked as
// lauum_product and potri_case check them. OpenBLAS 0.3.21's complex xLAUUM
// 'U' reads up to a column past the array (inverse.hpp, cpu_lauum): on the
// CPU path these faulted before hqr formed the last columns itself.
template <class T> void at_mapping_end(void **) {
  for (lint n : {1, 33, 64, 200, 513})
    for (lint pad : {0, 3})
      for (char uplo : {'U', 'L'}) {
        const lint lda = n + pad;
        std::string ctx = context("%clauum uplo=%c n=%ld lda=%ld at a mapping's end", prefix<T>(), uplo, long(n),
                                  long(lda));
        Matrix<T> a0 = random_matrix<T>(n, n, lda);
        for (lint i = 0; i < n; ++i) a0(i, i) = T(std::real(a0(i, i)));
        AtMappingEnd<T> g(a0);
        assert_info(lauum<T>(uplo, n, g.ptr(), lda), 0, ctx);
        const Matrix<T> a = g.read(a0);
        assert_unchanged_outside(a0, a, uplo, ctx);
        assert_real_diagonal(a, ctx);
        assert_lauum_product(a0, a, uplo, ctx);

        ctx = context("%cpotri uplo=%c n=%ld lda=%ld at a mapping's end", prefix<T>(), uplo, long(n), long(lda));
        const Matrix<T> full = random_hpd<T>(n, lda);
        AtMappingEnd<T> h(full);
        assert_info(potrf<T>(uplo, n, h.ptr(), lda), 0, ctx + " (potrf)");
        assert_info(potri<T>(uplo, n, h.ptr(), lda), 0, ctx);
        const Matrix<T> inv = hermitian(block(h.read(full), n, n), uplo), am = block(full, n, n);
        Matrix<T> r = identity<T>(n);
        subtract_product(r, am, 'N', inv, 'N');
        assert_ratio(norm_one(r) / (double(n) * norm_one(am) * norm_one(inv) * eps<T>()), ctx);
      }
}

// ---- the diagonal-block kernels ------------------------------------------

// Orders around the kernels' tiles (16 rows, 4 columns, 32-column steps) and
// the hybrid path's block sizes.
constexpr lint kBlockOrders[] = {1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 47, 64, 100, 255, 256, 257, 512};

template <class T, char Uplo, char Diag> void cpu_trti2_residual(void **) {
  for (lint n : kBlockOrders)
    for (lint pad : {0, 3}) {
      const lint lda = n + pad;
      const std::string ctx =
          context("cpu::trti2<%c> uplo=%c diag=%c n=%ld lda=%ld", prefix<T>(), Uplo, Diag, long(n), long(lda));
      Matrix<T> a = random_triangle<T>(n, lda, Uplo, Diag);
      const Matrix<T> a0 = a;
      std::vector<T> work(std::size_t(n) * n);
      hqr::cpu::trti2<T>(Uplo == 'U', Diag == 'U', n, a.ptr(), lda, work.data());
      assert_unchanged_outside(a0, a, Uplo, ctx, Diag == 'U');
      Matrix<T> t = triangle(block(a0, n, n), Uplo, Diag);
      Matrix<T> inv = triangle(block(a, n, n), Uplo, Diag);
      Matrix<T> w = identity<T>(n);
      subtract_product(w, t, 'N', inv, 'N');
      assert_ratio(norm_one(w) / (double(n) * norm_one(t) * norm_one(inv) * eps<T>()), ctx);
    }
}

template <class T, char Uplo> void cpu_lauu2_product(void **) {
  for (lint n : kBlockOrders)
    for (lint pad : {0, 3}) {
      const lint lda = n + pad;
      const std::string ctx = context("cpu::lauu2<%c> uplo=%c n=%ld lda=%ld", prefix<T>(), Uplo, long(n), long(lda));
      Matrix<T> a = random_matrix<T>(n, n, lda);
      const Matrix<T> a0 = a;  // complex diagonal: only its real part may be read
      std::vector<T> work(std::size_t(n) * n);
      hqr::cpu::lauu2<T>(Uplo == 'U', n, a.ptr(), lda, work.data());
      assert_unchanged_outside(a0, a, Uplo, ctx);
      assert_real_diagonal(a, ctx);
      Matrix<T> t = triangle(block(a0, n, n), Uplo);
      for (lint i = 0; i < n; ++i) t(i, i) = T(std::real(t(i, i)));
      Matrix<T> w = Uplo == 'U' ? product(t, 'N', t, 'C') : product(t, 'C', t, 'N');
      Matrix<T> d = hermitian(block(a, n, n), Uplo);
      const double wn = norm_one(w);
      for (lint j = 0; j < n; ++j)
        for (lint i = 0; i < n; ++i) d(i, j) -= w(i, j);
      assert_ratio(norm_one(d) / (double(n) * wn * eps<T>()), ctx);
    }
}

// ---- cases with the reference's result ---------------------------------------

// The input of `op` ("trtri", "lauum" or "potri"): a well-conditioned
// triangle, a factor with a real diagonal (lauum: all the complex one
// reads), or the reference's Cholesky factor of a random HPD matrix.
template <class T> Matrix<T> case_input(const char *op, char uplo, char diag, lint n, lint lda) {
  Matrix<T> a = with_spare_column(op[0] == 'p' ? random_hpd<T>(n, lda) : random_triangle<T>(n, lda, uplo, diag));
  if (op[0] == 'l')
    for (lint i = 0; i < n; ++i) a(i, i) = T(std::real(a(i, i)));
  if (op[0] == 'p') assert_info(potrf<T>(uplo, a.n, a.ptr(), a.ld, Lib::ref), 0, "potrf");
  return a;
}
// The reference LAPACK's result of `op` on a.
template <class T> Matrix<T> reference_result(const char *op, char uplo, char diag, const Matrix<T> &a) {
  Matrix<T> want = a;
  const lint n = a.n, lda = a.ld;
  if (op[0] == 't') assert_info(trtri<T>(uplo, diag, n, want.ptr(), lda, Lib::ref), 0, "trtri");
  if (op[0] == 'l') assert_info(lauum<T>(uplo, n, want.ptr(), lda, Lib::ref), 0, "lauum");
  if (op[0] == 'p') assert_info(potri<T>(uplo, n, want.ptr(), lda, Lib::ref), 0, "potri");
  return want;
}

// ---- finishing on the CPU (gpu.hpp, Result::resume) -------------------------

// When the GPU path stops early, the caller's array holds `done` lines of
// the result where the GPU stores them first (trtri: leading columns for
// 'U', trailing columns for 'L'; lauum, potri: leading rows for 'U',
// leading columns for 'L') and the input elsewhere; the CPU finishes from
// there. Such an array, built from the reference result, must come out as
// the whole result, for every `done`.
template <class T> void finish_from_stored_lines(void **) {
  const lint n = 45, lda = n + 3;
  for (const char *op : {"trtri", "lauum", "potri"})
    for (char uplo : {'U', 'L'})
      for (char diag : {'N', 'U'}) {
        if (diag == 'U' && op[0] != 't') continue;
        const bool upper = uplo == 'U', unit = diag == 'U';
        const Matrix<T> a = case_input<T>(op, uplo, diag, n, lda), want = reference_result(op, uplo, diag, a);
        double scale = 0;
        for (lint j = 0; j < n; ++j)
          for (lint i = 0; i < n; ++i)
            if (in_triangle(uplo, i, j)) scale = std::max(scale, double(std::abs(want(i, j))));
        for (lint done : {lint(1), lint(17), n - 1}) {
          const std::string ctx = context("%c%s uplo=%c diag=%c n=%ld done=%ld", prefix<T>(), op, uplo, diag, long(n),
                                          long(done));
          // Which entries of the result are already stored.
          auto stored = [&](lint i, lint j) {
            if (!in_triangle(uplo, i, j) || (unit && i == j)) return false;
            if (op[0] == 't') return upper ? j < done : j >= n - done;
            return upper ? i < done : j < done;
          };
          Matrix<T> got = a;
          for (lint j = 0; j < n; ++j)
            for (lint i = 0; i < n; ++i)
              if (stored(i, j)) got(i, j) = want(i, j);
          if (op[0] == 't') hqr::finish_trtri<T>(upper, unit, n, done, got.ptr(), lda);
          if (op[0] == 'l') hqr::finish_lauum<T>(upper, n, done, got.ptr(), lda);
          if (op[0] == 'p') hqr::finish_potri<T>(upper, n, done, got.ptr(), lda);
          double worst = 0;
          for (lint j = 0; j < n; ++j)
            for (lint i = 0; i < n; ++i)
              if (in_triangle(uplo, i, j) && !(unit && i == j))
                worst = std::max(worst, double(std::abs(got(i, j) - want(i, j))));
          assert_ratio(worst / (double(n) * scale * eps<T>()), ctx);
          assert_unchanged_outside(a, got, uplo, ctx, unit);
        }
      }
}

// ---- the recursion by halves (host/inverse_halves.hpp) -----------------------

// The out-of-core recursion's algebra, with CPU pieces that take diagonal
// blocks of order <= 24 and triangles of order <= 16 whole (the GPU's take
// what its memory holds): potri, trtri and lauum through InverseByHalves
// against the reference LAPACK's results, elementwise, relative to the
// largest entry of the result, for both uplo, both diag, orders around the
// splits, lda > n. On a GPU machine the same recursion runs with GPU pieces
// (scripts/gpu-check.sh, part ooc).
template <class T> struct CpuPieces {
  bool upper, unit;
  int blocks = 0, products = 0;
  bool whole(bool, lint t) const { return t <= 24; }
  bool holds(lint t) const { return t <= 16; }
  void block(bool inverse, lint t, T *a, lint lda) {
    ++blocks;
    const char uplo = upper ? 'U' : 'L', diag = unit ? 'U' : 'N';
    assert_info(inverse ? trtri<T>(uplo, diag, t, a, lda, Lib::ref) : lauum<T>(uplo, t, a, lda, Lib::ref), 0, "block");
  }
  void trmm(bool left, char trans, lint m, lint n, T alpha, const T *a, lint lda, T *b, lint ldb) {
    ++products;
    hqr::blas::trmm<T>(left ? 'L' : 'R', upper ? 'U' : 'L', trans, unit ? 'U' : 'N', m, n, alpha, a, lda, b, ldb);
  }
  void gemm(char ta, char tb, lint m, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb, T *c,
            lint ldc) {
    ++products;
    hqr::blas::gemm<T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, T(1), c, ldc);
  }
  void herk(char trans, lint n, lint k, const T *a, lint lda, T *c, lint ldc) {
    ++products;
    hqr::blas::syrk<T>(hqr::is_complex<T>, upper ? 'U' : 'L', trans, n, k, T(1), a, lda, T(1), c, ldc);
  }
};

template <class T> void by_halves(void **) {
  for (const char *op : {"trtri", "lauum", "potri"})
    for (char uplo : {'U', 'L'})
      for (char diag : {'N', 'U'})
        for (lint n : {1, 17, 25, 64, 100, 257})
          for (lint pad : kPads) {
            if (diag == 'U' && op[0] != 't') continue;
            const lint lda = n + pad;
            const bool upper = uplo == 'U', unit = diag == 'U';
            const std::string ctx = context("%c%s by halves uplo=%c diag=%c n=%ld lda=%ld", prefix<T>(), op, uplo,
                                            diag, long(n), long(lda));
            const Matrix<T> a = case_input<T>(op, uplo, diag, n, lda), want = reference_result(op, uplo, diag, a);
            Matrix<T> got = a;
            CpuPieces<T> pieces{upper, unit};
            hqr::InverseByHalves<T, CpuPieces<T>> halves(pieces, upper);
            if (op[0] != 'l') halves.trtri(n, got.ptr(), lda);
            if (op[0] != 't') halves.lauum(n, got.ptr(), lda);
            if (n > 24 && pieces.blocks < 2) fail_msg("%s: did not split (%d blocks)", ctx.c_str(), pieces.blocks);
            double scale = 0, worst = 0;
            for (lint j = 0; j < n; ++j)
              for (lint i = 0; i < n; ++i)
                if (in_triangle(uplo, i, j)) {
                  scale = std::max(scale, double(std::abs(want(i, j))));
                  worst = std::max(worst, double(std::abs(got(i, j) - want(i, j))));
                }
            assert_ratio(worst / (double(n) * scale * eps<T>()), ctx);
            assert_unchanged_outside(a, got, uplo, ctx, unit);
          }
}

}  // namespace

#define ALL_TYPES(test)                                                                                  \
  cmocka_unit_test(test<float>), cmocka_unit_test(test<double>), cmocka_unit_test(test<std::complex<float>>), \
      cmocka_unit_test(test<std::complex<double>>)
#define PER_UPLO(test, T) cmocka_unit_test((test<T, 'U'>)), cmocka_unit_test((test<T, 'L'>))
#define ALL_TYPES_UPLO(test)                                                                        \
  PER_UPLO(test, float), PER_UPLO(test, double), PER_UPLO(test, std::complex<float>), \
      PER_UPLO(test, std::complex<double>)
#define PER_UPLO_DIAG(test, T)                                                              \
  cmocka_unit_test((test<T, 'U', 'N'>)), cmocka_unit_test((test<T, 'U', 'U'>)),                \
      cmocka_unit_test((test<T, 'L', 'N'>)), cmocka_unit_test((test<T, 'L', 'U'>))
#define ALL_TYPES_UPLO_DIAG(test)                                                                   \
  PER_UPLO_DIAG(test, float), PER_UPLO_DIAG(test, double), PER_UPLO_DIAG(test, std::complex<float>), \
      PER_UPLO_DIAG(test, std::complex<double>)

int main() {
  const struct CMUnitTest tests[] = {
      ALL_TYPES_UPLO(potri_residual),       ALL_TYPES(potri_repeated),        ALL_TYPES(potri_singular_factor),
      ALL_TYPES_UPLO_DIAG(trtri_residual),  ALL_TYPES(trtri_singular),        ALL_TYPES(trtri_nan_info),
      ALL_TYPES_UPLO(lauum_product),        ALL_TYPES(at_mapping_end),
      ALL_TYPES_UPLO_DIAG(cpu_trti2_residual), ALL_TYPES_UPLO(cpu_lauu2_product), ALL_TYPES(finish_from_stored_lines),
      ALL_TYPES(by_halves),
  };
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);  // e.g. sanitizer runs
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
