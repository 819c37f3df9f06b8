// The host steps of xQRUPD_ADDCOLS_ECON's GPU path (cpu::AddcolsEconHost,
// src/cpu/qrupd.cpp), which otherwise run only where there is a GPU: here
// the host's BLAS make the passes over Q and U that src/cuda/qrupd_econ.cu
// makes on the device, in the same order and with the same hand-offs:
//   G1 = U^H*U into gram1(); factor_gram1(); U1 = U*r1inv();
//   [W; G2] = [Q U1]^H*U1 into gram2(); finish(R): new_r() is the new R;
//   Qn = (U1 - Q*W)*f(); Q(:, j0:) = [Q Qn](:, j0:)*rotation() (J <= N;
//   for J = N+1, Qn is Q's new columns);
// and rows the "device" did not deliver (none, all, the last half) are
// updated by finish_rows() from the caller's Q and U, as after a GPU
// failure mid-stream. With the staircase left to the device
// (leave_staircase: R's passes replaced by a QR of what they reduce,
// here the reference LAPACK's xGEQRF and xORGQR), the same steps and
// finish_rows() multiplying by the product the "device" formed. And the
// GPU path's last way after a refusal on exactly degenerate columns (the
// CPU's block Gram-Schmidt, column by column, then the product). Checked
// on products (qrupd_testing.hpp) against the explicitly updated matrix, s/d/c/z, fresh random data (complex with
// nonzero imaginary parts); J at 1, inside and N+1, N = 0, P = 1 and past
// 64, odd M, padded storage; and the two refusals: U ill conditioned
// (factor_gram1() false) and U nearly in Q's range (finish() false), after
// which the CPU's own update must still give the right answer.
// The class is compiled in (libhqr keeps its symbols hidden).
#include "qrupd_testing.hpp"

#include <algorithm>

#include "cpu/blas.hpp"
#include "cpu/qrupd.hpp"

namespace {

using namespace qrupd_testing;
using testing::lint;
using testing::Matrix;

// Where the emulated device stops delivering Q's rows.
enum class Deliver { all, none, half };
const char *deliver_name(Deliver d) { return d == Deliver::all ? "all rows" : d == Deliver::none ? "no rows" : "half"; }

// The device's QR of the staircase (k-by-k, ld lds): S over it (with
// the reflectors below its diagonal, as the device leaves them), M into mprod.
template <class T> void factor_staircase(lint k, T *s, lint lds, T *mprod) {
  std::vector<T> tau(static_cast<std::size_t>(k)), work(static_cast<std::size_t>(64 * k + 64));
  const lint lw = lint(work.size());
  assert_int_equal(testing::geqrf<T>(k, k, s, lds, tau.data(), work.data(), lw, testing::Lib::ref), 0);
  for (lint c = 0; c < k; ++c) std::copy(s + c * lds, s + c * lds + k, mprod + c * k);
  assert_int_equal(testing::orgqr<T>(k, k, k, mprod, k, tau.data(), work.data(), lw, testing::Lib::ref), 0);
}

// The GPU path's steps on the caller's Q (m-by-n), R (n-by-n) and U
// (m-by-p): false where AddcolsEconHost declines (nothing of the caller's
// arrays changed then), else Q (m-by-n+p) and R (n+p-by-n+p) updated.
// After a refusal, with `orthogonalize`, the GPU path's last way: the
// CPU's block Gram-Schmidt (u destroyed, Qn into q's room), then the
// device multiplies by rotation().
template <class T>
bool emulated_gpu_path(lint m, lint n, lint p, lint j0, T *q, lint ldq, T *r, lint ldr, T *u, lint ldu,
                       Deliver deliver, int *refused_at, bool staircase = false, bool orthogonalize = false) {
  namespace blas = hqr::blas;
  const lint np = n + p, k = np - j0;
  hqr::cpu::AddcolsEconHost<T> host(n, p, j0, 3);
  host.leave_staircase(staircase && j0 < n);
  // The device's copy [Q U] (m-by-n+p, ld m): U, then U1, then Qn.
  std::vector<T> d(std::size_t(m) * np);
  for (lint c = 0; c < n; ++c) std::copy(q + c * ldq, q + c * ldq + m, d.data() + c * m);
  for (lint c = 0; c < p; ++c) std::copy(u + c * ldu, u + c * ldu + m, d.data() + (n + c) * m);
  T *dq = d.data(), *du = dq + n * m;
  auto refuse = [&](int step) {
    *refused_at = step;
    if (!orthogonalize) return false;
    host.leave_staircase(false);
    host.orthogonalize(m, q, ldq, u, ldu, r, ldr);
    host.copy_r(r, ldr);
    for (lint c = 0; c < p; ++c) std::copy(q + (n + c) * ldq, q + (n + c) * ldq + m, du + c * m);
    if (j0 < n) {
      std::vector<T> o(std::size_t(m) * k);
      blas::gemm<T>('N', 'N', m, k, k, T(1), dq + j0 * m, m, host.rotation(), k, T(0), o.data(), m);
      for (lint c = 0; c < k; ++c) std::copy(o.data() + c * m, o.data() + (c + 1) * m, q + (j0 + c) * ldq);
    }
    return true;
  };
  blas::gemm<T>('C', 'N', p, p, m, T(1), du, m, du, m, T(0), host.gram1(), p);
  if (!host.factor_gram1()) return refuse(1);
  blas::trmm<T>('R', 'U', 'N', 'N', m, p, T(1), host.r1inv(), p, du, m);
  std::vector<T> g(std::size_t(np) * p);  // [W; G2], as the device keeps it
  blas::gemm<T>('C', 'N', np, p, m, T(1), dq, m, du, m, T(0), g.data(), np);
  std::copy(g.begin(), g.end(), host.gram2());
  if (!host.finish(r, ldr)) return refuse(2);
  *refused_at = 0;
  if (staircase && j0 < n) {
    factor_staircase(k, host.staircase(), np, host.product_room());
    host.staircase_factored();
  }
  if (n > 0) blas::gemm<T>('N', 'N', m, p, n, T(-1), dq, m, g.data(), np, T(1), du, m);
  blas::trmm<T>('R', 'U', 'N', 'N', m, p, T(1), host.f(), p, du, m);
  host.copy_r(r, ldr);
  const lint rows = deliver == Deliver::all ? m : deliver == Deliver::none ? 0 : m / 2;
  if (rows > 0) {
    if (j0 < n) {  // the rows delivered: [Q Qn](0:rows-1, j0:)*M
      std::vector<T> o(std::size_t(rows) * k);
      blas::gemm<T>('N', 'N', rows, k, k, T(1), dq + j0 * m, m, host.rotation(), k, T(0), o.data(), rows);
      for (lint c = 0; c < k; ++c) std::copy(o.data() + c * rows, o.data() + (c + 1) * rows, q + (j0 + c) * ldq);
    } else {
      for (lint c = 0; c < p; ++c) std::copy(du + c * m, du + c * m + rows, q + (n + c) * ldq);
    }
  }
  host.finish_rows(m - rows, q + rows, ldq, u + rows, ldu);
  return true;
}

struct Shape {
  lint m, n, p, j;  // j: 1-based, as the ABI's J
};
// J = 1, inside, N+1; N = 0; P = 1 and past 64; odd M; passes over Q's rows
// on several threads (m*(n+p) past the passes' grain); R's old columns and
// the rotations' product in several blocks of lanes on two threads. Tall enough that
// random U keeps more than 1/sqrt(2) of its norm outside Q's range, which
// the host steps require (else they decline: refusals()).
const Shape kShapes[] = {{1001, 40, 10, 1},  {1001, 40, 10, 17}, {1001, 40, 10, 41}, {200, 0, 5, 1},
                         {397, 8, 3, 4},     {5003, 100, 70, 50}, {1250, 60, 1, 61}, {4001, 30, 12, 9},
                         {2000, 20, 33, 21}, {3001, 400, 30, 2}};

template <class T> void run(const Shape &s, Deliver deliver, lint pad, bool staircase) {
  const lint m = s.m, n = s.n, p = s.p, j0 = s.j - 1;
  const std::string ctx =
      testing::context("%c m=%ld n=%ld p=%ld j=%ld, %s delivered, pad %ld%s", testing::prefix<T>(), long(m), long(n),
                       long(p), long(s.j), deliver_name(deliver), long(pad), staircase ? ", staircase" : "");
  const Matrix<T> a = testing::random_matrix<T>(m, n), u0 = testing::random_matrix<T>(m, p);
  Factors<T> f = factor(a, n, m + pad, n + p + 1, n + p + pad, n + p + 1);
  Matrix<T> u = random_storage<T>(m + pad, p);
  for (lint c = 0; c < p; ++c)
    for (lint i = 0; i < m; ++i) u(i, c) = u0(i, c);
  scribble_lower(f.r, n, n, 0);  // R's strictly lower part is not referenced
  const Factors<T> f0 = f;
  const Matrix<T> uin = u;
  int refused = -1;
  if (!emulated_gpu_path<T>(m, n, p, j0, f.q.ptr(), f.q.ld, f.r.ptr(), f.r.ld, u.ptr(), u.ld, deliver, &refused,
                            staircase))
    fail_msg("%s: the host steps declined random columns (step %d)", ctx.c_str(), refused);
  check_qr(f.q, f.r, n + p, insert_cols(a, u0, j0), ctx.c_str());
  assert_rows_kept(f.q, f0.q, m, n + p + 1, ctx.c_str());
  assert_rows_kept(f.r, f0.r, n + p, n + p + 1, ctx.c_str());
  for (lint i = 0; i < f.q.ld; ++i) assert_true(std::memcmp(&f.q(i, n + p), &f0.q(i, n + p), sizeof(T)) == 0);
  assert_true(std::memcmp(u.ptr(), uin.data.data(), sizeof(T) * u.data.size()) == 0);  // the caller's U only read
}

template <class T> void shapes() {
  for (const Shape &s : kShapes)
    for (bool staircase : {false, true})
      for (Deliver d : {Deliver::all, Deliver::none, Deliver::half})
        run<T>(s, d, d == Deliver::half ? 3 : 0, staircase);
}

// The refusals, each followed by the CPU's own update of the same call
// (what the GPU path's caller then runs): U with two nearly equal columns
// (ill conditioned: factor_gram1() declines), U = A*C plus noise of
// relative size 1e3*eps (nearly in Q's range: finish() declines). The
// caller's arrays are untouched by a refusal.
template <class T> void refusals() {
  const lint m = 300, n = 30, p = 6, j0 = 11;
  for (int which : {1, 2}) {
    const std::string ctx = testing::context("%c refusal at step %d", testing::prefix<T>(), which);
    const Matrix<T> a = testing::random_matrix<T>(m, n);
    Matrix<T> u0 = testing::random_matrix<T>(m, p);
    if (which == 1) {
      for (lint i = 0; i < m; ++i) u0(i, p - 1) = u0(i, 0) + T(1e-3 * testing::eps<T>()) * testing::random_value<T>();
    } else {
      const Matrix<T> ac = testing::product(a, 'N', testing::random_matrix<T>(n, p), 'N');
      for (lint c = 0; c < p; ++c)
        for (lint i = 0; i < m; ++i) u0(i, c) = ac(i, c) + T(1e3 * testing::eps<T>()) * u0(i, c);
    }
    Factors<T> f = factor(a, n, m, n + p, n + p, n + p);
    Matrix<T> u = u0;
    const Factors<T> f0 = f;
    int refused = -1;
    if (emulated_gpu_path<T>(m, n, p, j0, f.q.ptr(), f.q.ld, f.r.ptr(), f.r.ld, u.ptr(), u.ld, Deliver::all,
                             &refused))
      fail_msg("%s: the host steps accepted", ctx.c_str());
    if (refused != which) fail_msg("%s: declined at step %d", ctx.c_str(), refused);
    assert_true(std::memcmp(f.q.ptr(), f0.q.data.data(), sizeof(T) * f.q.data.size()) == 0);
    assert_true(std::memcmp(f.r.ptr(), f0.r.data.data(), sizeof(T) * f.r.data.size()) == 0);
    std::vector<T> w(std::size_t(std::max<lint>(1, lwmin_addcols_econ(m, n, p))));
    assert_int_equal(addcols_econ<T>(m, n, p, j0 + 1, f.q.ptr(), f.q.ld, f.r.ptr(), f.r.ld, u.ptr(), u.ld, w.data(),
                                     lint(w.size())),
                     0);
    check_qr(f.q, f.r, n + p, insert_cols(a, u0, j0), ctx.c_str());
  }
}

// The GPU path's last way on exactly degenerate columns: Q = columns of
// the identity (random phases), U's first two columns twins outside Q's
// range and its third in it, so that CholeskyQR2 declines and the CPU's
// block Gram-Schmidt falls back to column by column (R's diagonal entries
// zero, unit vectors as Q's new columns) before the device multiplies.
template <class T> void degenerate() {
  for (lint m : {6, 9, 12})
    for (lint j0 = 0; j0 <= 3; ++j0) {
      const lint n = 3, p = 3;
      const std::string ctx = testing::context("%c m=%ld j=%ld: e4, e4, e1 with Q = I(:,1:3)", testing::prefix<T>(),
                                               long(m), long(j0 + 1));
      Matrix<T> a(m, n), u0(m, p);
      for (lint c = 0; c < n; ++c) a(c, c) = testing::random_value<T>();
      u0(3, 0) = testing::random_value<T>();
      u0(3, 1) = testing::random_value<T>();
      u0(0, 2) = testing::random_value<T>();
      Factors<T> f = factor(a, n, m, n + p, n + p, n + p);
      Matrix<T> u = u0;
      int refused = -1;
      assert_true(emulated_gpu_path<T>(m, n, p, j0, f.q.ptr(), f.q.ld, f.r.ptr(), f.r.ld, u.ptr(), u.ld,
                                       Deliver::all, &refused, false, true));
      check_qr(f.q, f.r, n + p, insert_cols(a, u0, j0), ctx.c_str());
    }
}

void shapes_s(void **) { shapes<float>(); }
void shapes_d(void **) { shapes<double>(); }
void shapes_c(void **) { shapes<std::complex<float>>(); }
void shapes_z(void **) { shapes<std::complex<double>>(); }
void degenerate_s(void **) { degenerate<float>(); }
void degenerate_d(void **) { degenerate<double>(); }
void degenerate_c(void **) { degenerate<std::complex<float>>(); }
void degenerate_z(void **) { degenerate<std::complex<double>>(); }
void refusals_s(void **) { refusals<float>(); }
void refusals_d(void **) { refusals<double>(); }
void refusals_c(void **) { refusals<std::complex<float>>(); }
void refusals_z(void **) { refusals<std::complex<double>>(); }

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(shapes_s),   cmocka_unit_test(shapes_d),   cmocka_unit_test(shapes_c),
      cmocka_unit_test(shapes_z),   cmocka_unit_test(refusals_s), cmocka_unit_test(refusals_d),
      cmocka_unit_test(refusals_c), cmocka_unit_test(refusals_z),   cmocka_unit_test(degenerate_s),
      cmocka_unit_test(degenerate_d), cmocka_unit_test(degenerate_c), cmocka_unit_test(degenerate_z),
  };
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);
  if (const char *f = std::getenv("HQR_TEST_SKIP")) cmocka_set_skip_filter(f);
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
