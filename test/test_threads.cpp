// Many threads calling hqr at once (ABI.md, "Threads, fork and sanitizers").
// 8 threads start together and make 50 calls each; every call is a random
// routine (potrf, potri, trtri, posv, geqrf + orgqr/ungqr, ormqr/unmqr, gels,
// the four QR updates), precision (s, d, c, z; s, d for the QR updates) and
// size (random padding), on fresh random data. The worker that made a call
// checks its result with LAPACK's residual ratio; a Cholesky factorization
// whose leading minor k is not positive definite must return INFO = k, and
// an illegal argument must reach XERBLA on the calling thread (the tests'
// XERBLA keeps a log per thread). Two runs: orders up to 600 with OpenBLAS
// at one thread per call, and orders up to 64 with OpenBLAS's own threads
// (blas_threads() says why). Under HQR_GPU_MIN_N=0 on a GPU machine the
// potrf calls share the GPU while the rest run on the CPU. HQR_TEST_MAX_N
// lowers the largest order (valgrind runs use 40).
//
// That CPU-path calls are not serialised is tested structurally by
// test/cpu_concurrency.sh; this program is about right answers.
#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

#include "testing.hpp"

using namespace testing;

namespace {

constexpr int kThreads = 8;
constexpr int kCallsPerThread = 50;

lint env_max_order() {
  const char *v = std::getenv("HQR_TEST_MAX_N");
  return v && std::atol(v) > 0 ? lint(std::atol(v)) : 600;
}

// testing::rng() is one generator for the whole program and must not be
// shared between threads: each worker draws from its own, seeded from it
// before the threads start, so HQR_TEST_SEED still reproduces the data.
class Random {
 public:
  Random(uint64_t seed, lint max_n) : gen_(seed), max_n_(max_n) {}
  lint below(lint n) { return lint(gen_() % uint64_t(n)); }     // 0 .. n-1
  lint between(lint lo, lint hi) { return lo + below(hi - lo + 1); }
  template <class T> T value() {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    if constexpr (is_complex_v<T>) {
      const double re = u(gen_);
      return T(real_t<T>(re), real_t<T>(u(gen_)));
    } else {
      return T(u(gen_));
    }
  }
  template <class T> Matrix<T> matrix(lint m, lint n, lint ld = 0) {
    Matrix<T> a(m, n, ld);
    for (auto &x : a.data) x = value<T>();  // padding random too
    return a;
  }
  // A random order, small ones more often than large ones.
  lint order() {
    static const lint sizes[] = {0, 1, 2, 5, 17, 31, 64, 100, 150, 257, 400, 600};
    lint n;
    do n = sizes[below(sizeof sizes / sizeof sizes[0])];
    while (n > max_n_);
    return n;
  }
  lint pad() { return below(3) == 0 ? 0 : between(1, 5); }
  lint max_order() const { return max_n_; }

 private:
  std::mt19937_64 gen_;
  lint max_n_;
};

// Hermitian positive definite: B*B^H + n*I, exactly Hermitian, real diagonal.
template <class T> Matrix<T> hpd(Random &rnd, lint n, lint ld) {
  Matrix<T> b = rnd.matrix<T>(n, n);
  Matrix<T> a = rnd.matrix<T>(n, n, ld);
  gemm<T>('N', 'C', n, n, n, T(1), b.ptr(), b.ld, b.ptr(), b.ld, T(0), a.ptr(), a.ld);
  for (lint j = 0; j < n; ++j) {
    for (lint i = 0; i < j; ++i) a(i, j) = cj(a(j, i));
    a(j, j) = T(std::real(a(j, j)) + real_t<T>(n));
  }
  return a;
}

// What a check found wrong, or "" when the call was right.
using Outcome = std::string;

Outcome ratio_outcome(const std::string &ctx, const char *what, double ratio) {
  if (ratio < kThreshold) return "";
  return ctx + ": " + what + " = " + std::to_string(ratio) + " (threshold 30)";
}
Outcome info_outcome(const std::string &ctx, lint info, lint want) {
  if (info == want) return "";
  return ctx + ": INFO " + std::to_string(long(info)) + ", expected " + std::to_string(long(want));
}
// The first failure of several checks.
Outcome first(std::initializer_list<Outcome> outcomes) {
  for (const Outcome &o : outcomes)
    if (!o.empty()) return o;
  return "";
}

template <class T> lint query_lwork(const std::function<lint(T *, lint)> &call) {
  T w{};
  call(&w, -1);
  return std::max<lint>(1, work_size(w));
}

// ---- one call of each kind ------------------------------------------------------

// xPOTRF: ||L*L^H - A||_1 / (n ||A||_1 eps) (U^H*U for uplo 'U').
template <class T> Outcome check_potrf(Random &rnd) {
  const lint n = rnd.order(), lda = std::max<lint>(1, n) + rnd.pad();
  const char uplo = rnd.below(2) ? 'U' : 'L';
  const std::string ctx = context("%cpotrf uplo=%c n=%ld lda=%ld", prefix<T>(), uplo, long(n), long(lda));
  const Matrix<T> a0 = hpd<T>(rnd, n, lda);
  Matrix<T> a = a0;
  const lint info = potrf<T>(uplo, n, a.ptr(), lda);
  if (info != 0 || n == 0) return info_outcome(ctx, info, 0);
  const Matrix<T> f = triangle(block(a, n, n), uplo);
  Matrix<T> d = block(a0, n, n);
  for (lint j = 0; j < n; ++j)  // the full Hermitian matrix
    for (lint i = 0; i < n; ++i)
      if (uplo == 'U' ? i > j : i < j) d(i, j) = cj(d(j, i));
  if (uplo == 'U')
    subtract_product(d, f, 'C', f, 'N');
  else
    subtract_product(d, f, 'N', f, 'C');
  return ratio_outcome(ctx, "||LL^H - A|| ratio", norm_one(d) / (double(n) * norm_one(block(a0, n, n)) * eps<T>()));
}

// xPOTRF of a matrix whose leading minor of order k is not positive
// definite (A(k,k) = -1): INFO = k.
template <class T> Outcome check_potrf_failure(Random &rnd) {
  const lint n = std::max<lint>(1, rnd.order()), k = rnd.between(1, n);
  const char uplo = rnd.below(2) ? 'U' : 'L';
  const std::string ctx = context("%cpotrf uplo=%c n=%ld minor %ld not positive definite", prefix<T>(), uplo, long(n),
                                  long(k));
  Matrix<T> a = hpd<T>(rnd, n, n);
  a(k - 1, k - 1) = T(-1);
  return info_outcome(ctx, potrf<T>(uplo, n, a.ptr(), n), k);
}

// xPOTRF + xPOTRI: ||I - A*inv(A)||_1 / (n ||A||_1 ||inv(A)||_1 eps).
template <class T> Outcome check_potri(Random &rnd) {
  const lint n = std::max<lint>(1, rnd.order()), lda = n + rnd.pad();
  const char uplo = rnd.below(2) ? 'U' : 'L';
  const std::string ctx = context("%cpotri uplo=%c n=%ld lda=%ld", prefix<T>(), uplo, long(n), long(lda));
  const Matrix<T> a0 = hpd<T>(rnd, n, lda);
  // A spare column after A: OpenBLAS 0.3.21's complex dot kernels read one
  // element past a strided vector, so its clauum/zlauum with uplo 'U' (and
  // through them c/zpotri), where hqr's CPU path goes, read A(i, n+1) and
  // crash when A ends where a mapping does, which 8 threads' allocations
  // make likely. That is the system library's bug, not this test's subject.
  Matrix<T> a = a0;
  a.data.resize(a.data.size() + size_t(lda));
  if (Outcome o = info_outcome(ctx + " (potrf)", potrf<T>(uplo, n, a.ptr(), lda), 0); !o.empty()) return o;
  if (Outcome o = info_outcome(ctx, potri<T>(uplo, n, a.ptr(), lda), 0); !o.empty()) return o;
  const Matrix<T> full = hermitian(block(a0, n, n), uplo), inv = hermitian(block(a, n, n), uplo);
  Matrix<T> w = identity<T>(n);
  subtract_product(w, full, 'N', inv, 'N');
  return ratio_outcome(ctx, "DPOT03 ratio",
                       norm_one(w) / (double(n) * norm_one(full) * norm_one(inv) * eps<T>()));
}

// xTRTRI of a well-conditioned triangle: ||T*inv(T) - I||_1 / (n ||T||_1
// ||inv(T)||_1 eps).
template <class T> Outcome check_trtri(Random &rnd) {
  const lint n = std::max<lint>(1, rnd.order()), lda = n + rnd.pad();
  const char uplo = rnd.below(2) ? 'U' : 'L', diag = rnd.below(2) ? 'U' : 'N';
  const std::string ctx = context("%ctrtri uplo=%c diag=%c n=%ld lda=%ld", prefix<T>(), uplo, diag, long(n), long(lda));
  Matrix<T> a = rnd.matrix<T>(n, n, lda);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < n; ++i)
      if (i == j)
        a(i, i) = T(real_t<T>(rnd.below(2) ? 1.5 : -1.5)) + rnd.value<T>() / real_t<T>(2);
      else if (uplo == 'U' ? i < j : i > j)
        a(i, j) = rnd.value<T>() / real_t<T>(n);
  const Matrix<T> t = triangle(block(a, n, n), uplo, diag);
  if (Outcome o = info_outcome(ctx, trtri<T>(uplo, diag, n, a.ptr(), lda), 0); !o.empty()) return o;
  const Matrix<T> inv = triangle(block(a, n, n), uplo, diag);
  Matrix<T> w = identity<T>(n);
  subtract_product(w, t, 'N', inv, 'N');
  return ratio_outcome(ctx, "DTRT01 ratio", norm_one(w) / (double(n) * norm_one(t) * norm_one(inv) * eps<T>()));
}

// xPOSV: ||B - A*X||_1 / (n ||A||_1 ||X||_1 eps).
template <class T> Outcome check_posv(Random &rnd) {
  const lint n = std::max<lint>(1, rnd.order()), nrhs = rnd.between(1, 4);
  const lint lda = n + rnd.pad(), ldb = n + rnd.pad();
  const char uplo = rnd.below(2) ? 'U' : 'L';
  const std::string ctx = context("%cposv uplo=%c n=%ld nrhs=%ld", prefix<T>(), uplo, long(n), long(nrhs));
  const Matrix<T> a0 = hpd<T>(rnd, n, lda), b0 = rnd.matrix<T>(n, nrhs, ldb);
  Matrix<T> a = a0, b = b0;
  if (Outcome o = info_outcome(ctx, posv<T>(uplo, n, nrhs, a.ptr(), lda, b.ptr(), ldb), 0); !o.empty()) return o;
  const Matrix<T> full = hermitian(block(a0, n, n), uplo), x = block(b, n, nrhs);
  Matrix<T> r = block(b0, n, nrhs);
  subtract_product(r, full, 'N', x, 'N');
  return ratio_outcome(ctx, "DPOT06 ratio", norm_one(r) / (double(n) * norm_one(full) * norm_one(x) * eps<T>()));
}

// xGEQRF + xORGQR (xUNGQR), m >= n: ||A - Q*R||_1 / (m ||A||_1 eps) and
// ||I - Q^H*Q||_1 / (m eps).
template <class T> Outcome check_geqrf(Random &rnd) {
  const lint n = rnd.order(), m = n + rnd.between(0, 40), lda = std::max<lint>(1, m) + rnd.pad();
  const std::string ctx = context("%cgeqrf+%s m=%ld n=%ld lda=%ld", prefix<T>(), gqr_base<T>(), long(m), long(n),
                                  long(lda));
  const Matrix<T> a0 = rnd.matrix<T>(m, n, lda);
  Matrix<T> a = a0;
  std::vector<T> tau(std::max<lint>(1, n));
  std::vector<T> work(query_lwork<T>([&](T *w, lint lw) { return geqrf<T>(m, n, a.ptr(), lda, tau.data(), w, lw); }));
  if (Outcome o = info_outcome(ctx, geqrf<T>(m, n, a.ptr(), lda, tau.data(), work.data(), lint(work.size())), 0);
      !o.empty())
    return o;
  if (n == 0) return "";
  const Matrix<T> r = upper_trapezoid(block(a, n, n));
  work.resize(
      query_lwork<T>([&](T *w, lint lw) { return orgqr<T>(m, n, n, a.ptr(), lda, tau.data(), w, lw); }));
  if (Outcome o = info_outcome(ctx + " (orgqr)",
                               orgqr<T>(m, n, n, a.ptr(), lda, tau.data(), work.data(), lint(work.size())), 0);
      !o.empty())
    return o;
  const Matrix<T> q = block(a, m, n);
  Matrix<T> d = block(a0, m, n);
  subtract_product(d, q, 'N', r, 'N');
  Matrix<T> o = identity<T>(n);
  subtract_product(o, q, 'C', q, 'N');
  return first({ratio_outcome(ctx, "||A - QR|| ratio", norm_one(d) / (double(m) * norm_one(block(a0, m, n)) * eps<T>())),
                ratio_outcome(ctx, "||I - Q^H Q|| ratio", norm_one(o) / (double(m) * eps<T>()))});
}

// xGEQRF + xORMQR (xUNMQR) applying Q^H to A itself: the result is R, with
// exact zeros below the diagonal up to rounding: ||Q^H A - R||_1 / (m ||A||_1 eps).
template <class T> Outcome check_ormqr(Random &rnd) {
  const lint n = std::max<lint>(1, rnd.order()), m = n + rnd.between(0, 40), lda = m + rnd.pad();
  const std::string ctx = context("%cgeqrf+%s side=L trans=%c m=%ld n=%ld", prefix<T>(), mqr_base<T>(), trans_h<T>(),
                                  long(m), long(n));
  const Matrix<T> a0 = rnd.matrix<T>(m, n, lda);
  Matrix<T> a = a0, c = a0;
  std::vector<T> tau(n);
  std::vector<T> work(query_lwork<T>([&](T *w, lint lw) { return geqrf<T>(m, n, a.ptr(), lda, tau.data(), w, lw); }));
  if (Outcome o = info_outcome(ctx, geqrf<T>(m, n, a.ptr(), lda, tau.data(), work.data(), lint(work.size())), 0);
      !o.empty())
    return o;
  auto apply = [&](T *w, lint lw) {
    return ormqr<T>('L', trans_h<T>(), m, n, n, a.ptr(), lda, tau.data(), c.ptr(), lda, w, lw);
  };
  work.resize(query_lwork<T>(apply));
  if (Outcome o = info_outcome(ctx + " (ormqr)", apply(work.data(), lint(work.size())), 0); !o.empty()) return o;
  Matrix<T> d = block(c, m, n);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i <= j; ++i) d(i, j) -= a(i, j);
  return ratio_outcome(ctx, "||Q^H A - R|| ratio", norm_one(d) / (double(m) * norm_one(block(a0, m, n)) * eps<T>()));
}

// xGELS, trans 'N', m >= n, consistent B = A*X0: ||B - A*X||_1 /
// (max(m,n) ||A||_1 ||X||_1 eps) (DQRT16).
template <class T> Outcome check_gels(Random &rnd) {
  const lint n = std::max<lint>(1, rnd.order()), m = n + rnd.between(0, 40), nrhs = rnd.between(1, 3);
  const lint lda = m + rnd.pad(), ldb = m + rnd.pad();
  const std::string ctx = context("%cgels m=%ld n=%ld nrhs=%ld", prefix<T>(), long(m), long(n), long(nrhs));
  const Matrix<T> a0 = rnd.matrix<T>(m, n, lda), am = block(a0, m, n);
  Matrix<T> b0 = rnd.matrix<T>(m, nrhs, ldb);
  const Matrix<T> bx = product(am, 'N', rnd.matrix<T>(n, nrhs), 'N');
  for (lint j = 0; j < nrhs; ++j)
    for (lint i = 0; i < m; ++i) b0(i, j) = bx(i, j);
  Matrix<T> a = a0, b = b0;
  auto call = [&](T *w, lint lw) { return gels<T>('N', m, n, nrhs, a.ptr(), lda, b.ptr(), ldb, w, lw); };
  std::vector<T> work(query_lwork<T>(call));
  if (Outcome o = info_outcome(ctx, call(work.data(), lint(work.size())), 0); !o.empty()) return o;
  const Matrix<T> x = block(b, n, nrhs);
  Matrix<T> r = block(b0, m, nrhs);
  subtract_product(r, am, 'N', x, 'N');
  return ratio_outcome(ctx, "DQRT16 ratio",
                       norm_one(r) / (double(m) * norm_one(am) * norm_one(x) * eps<T>()));
}

// An illegal LDA: INFO = -4, and XERBLA called once, on this thread, with
// this routine's name; A unchanged.
template <class T> Outcome check_illegal(Random &rnd) {
  const lint n = std::max<lint>(2, rnd.order());
  const std::string ctx = context("%cpotrf n=%ld lda=%ld (illegal)", prefix<T>(), long(n), long(n - 1));
  const Matrix<T> a0 = rnd.matrix<T>(n, n);
  Matrix<T> a = a0;
  xerbla_reset();
  const lint info = potrf<T>('L', n, a.ptr(), n - 1);
  const XerblaLog log = xerbla_log();
  xerbla_reset();
  if (Outcome o = info_outcome(ctx, info, -4); !o.empty()) return o;
  if (log.calls != 1 || xerbla_name<T>("potrf") != log.name || log.info != 4)
    return ctx + ": this thread's XERBLA saw " + std::to_string(log.calls) + " call(s), last (" + log.name + ", " +
           std::to_string(log.info) + ")";
  return same_bytes(a, a0) ? "" : ctx + ": A changed";
}

// ---- the QR updates (s, d) --------------------------------------------------------

template <class T> lint qrupd_addcols(lint m, lint n, lint p, lint j, Matrix<T> &q, Matrix<T> &r, Matrix<T> &u, T *w,
                                      lint lw) {
  lint info = -99;
  pick<T>(sqrupd_addcols_, dqrupd_addcols_, nullptr, nullptr)(&m, &n, &p, &j, q.ptr(), &q.ld, r.ptr(), &r.ld, u.ptr(),
                                                               &u.ld, w, &lw, &info);
  return info;
}
template <class T> lint qrupd_delcols(lint m, lint n, lint p, lint j, Matrix<T> &q, Matrix<T> &r, T *w, lint lw) {
  lint info = -99;
  const char jobq = 'U';
  pick<T>(sqrupd_delcols_, dqrupd_delcols_, nullptr, nullptr)(&jobq, &m, &n, &p, &j, q.ptr(), &q.ld, r.ptr(), &r.ld,
                                                               w, &lw, &info, 1);
  return info;
}
template <class T> lint qrupd_addrows(lint m, lint n, lint p, lint j, Matrix<T> &q, Matrix<T> &r, Matrix<T> &u, T *w,
                                      lint lw) {
  lint info = -99;
  const char jobq = 'U';
  pick<T>(sqrupd_addrows_, dqrupd_addrows_, nullptr, nullptr)(&jobq, &m, &n, &p, &j, q.ptr(), &q.ld, r.ptr(), &r.ld,
                                                               u.ptr(), &u.ld, w, &lw, &info, 1);
  return info;
}
template <class T> lint qrupd_delrows(lint m, lint n, lint p, lint j, Matrix<T> &q, Matrix<T> &r, T *w, lint lw) {
  lint info = -99;
  pick<T>(sqrupd_delrows_, dqrupd_delrows_, nullptr, nullptr)(&m, &n, &p, &j, q.ptr(), &q.ld, r.ptr(), &r.ld, w, &lw,
                                                               &info);
  return info;
}

// One random update of a full QR factorization (from hqr's geqrf + orgqr)
// of a random m x n A, checked against the explicitly updated matrix Ã:
// ||Q*R - Ã||_1 / (||Ã||_1 max(m,n) eps), ||Q^T*Q - I||_1 / (m eps), and R
// exactly zero below the diagonal.
template <class T> Outcome check_qrupd(Random &rnd) {
  const lint cap = std::min<lint>(rnd.max_order(), 200);
  const lint m = rnd.between(1, cap), n = rnd.between(1, m + 20), p = rnd.between(1, 8);
  const int op = int(rnd.below(4));
  static const char *const names[] = {"addcols", "delcols", "addrows", "delrows"};
  const lint mq = op == 2 ? m + p : m, nr = op == 0 ? n + p : n;  // room the update needs
  // Delete at most what is there.
  const lint pd = op == 1 ? std::min(p, n) : op == 3 ? std::min(p, m) : p;
  const lint j = rnd.between(1, op == 0 ? n + 1 : op == 1 ? n - pd + 1 : op == 2 ? m + 1 : m - pd + 1);
  const std::string ctx =
      context("%cqrupd_%s m=%ld n=%ld p=%ld j=%ld", prefix<T>(), names[op], long(m), long(n), long(pd), long(j));

  // The factorization to start from.
  const Matrix<T> a = rnd.matrix<T>(m, n);
  Matrix<T> f = a, q = rnd.matrix<T>(mq, mq), r = rnd.matrix<T>(mq, nr);
  const lint k = std::min(m, n);
  std::vector<T> tau(k), work(size_t(64) * (mq + nr));
  const lint lw = lint(work.size());
  if (Outcome o = info_outcome(ctx + " (geqrf)", geqrf<T>(m, n, f.ptr(), f.ld, tau.data(), work.data(), lw), 0);
      !o.empty())
    return o;
  for (lint c = 0; c < n; ++c)
    for (lint i = 0; i < m; ++i) r(i, c) = i <= c ? f(i, c) : T(0);
  for (lint c = 0; c < k; ++c)
    for (lint i = 0; i < m; ++i) q(i, c) = f(i, c);
  if (Outcome o = info_outcome(ctx + " (orgqr)", orgqr<T>(m, m, k, q.ptr(), q.ld, tau.data(), work.data(), lw), 0);
      !o.empty())
    return o;

  // The update, and Ã formed explicitly.
  Matrix<T> at;
  lint info = -99, mt = m, nt = n;
  if (op == 0) {
    Matrix<T> u = rnd.matrix<T>(m, pd);
    at = Matrix<T>(m, n + pd);
    for (lint c = 0; c < n + pd; ++c)
      for (lint i = 0; i < m; ++i)
        at(i, c) = c < j - 1 ? a(i, c) : c < j - 1 + pd ? u(i, c - j + 1) : a(i, c - pd);
    info = qrupd_addcols<T>(m, n, pd, j, q, r, u, work.data(), lw);
    nt = n + pd;
  } else if (op == 1) {
    at = Matrix<T>(m, n - pd);
    for (lint c = 0; c < n - pd; ++c)
      for (lint i = 0; i < m; ++i) at(i, c) = a(i, c < j - 1 ? c : c + pd);
    info = qrupd_delcols<T>(m, n, pd, j, q, r, work.data(), lw);
    nt = n - pd;
  } else if (op == 2) {
    Matrix<T> u = rnd.matrix<T>(pd, n);
    at = Matrix<T>(m + pd, n);
    for (lint c = 0; c < n; ++c)
      for (lint i = 0; i < m + pd; ++i)
        at(i, c) = i < j - 1 ? a(i, c) : i < j - 1 + pd ? u(i - j + 1, c) : a(i - pd, c);
    info = qrupd_addrows<T>(m, n, pd, j, q, r, u, work.data(), lw);
    mt = m + pd;
  } else {
    at = Matrix<T>(m - pd, n);
    for (lint c = 0; c < n; ++c)
      for (lint i = 0; i < m - pd; ++i) at(i, c) = a(i < j - 1 ? i : i + pd, c);
    info = qrupd_delrows<T>(m, n, pd, j, q, r, work.data(), lw);
    mt = m - pd;
  }
  if (Outcome o = info_outcome(ctx, info, 0); !o.empty()) return o;
  if (mt == 0 || nt == 0) return "";
  const Matrix<T> qn = block(q, mt, mt), rn = block(r, mt, nt);
  for (lint c = 0; c < nt; ++c)
    for (lint i = c + 1; i < mt; ++i)
      if (rn(i, c) != T(0)) return ctx + context(": R(%ld,%ld) is not zero", long(i + 1), long(c + 1));
  Matrix<T> d = at;
  subtract_product(d, qn, 'N', rn, 'N');
  Matrix<T> o = identity<T>(mt);
  subtract_product(o, qn, 'C', qn, 'N');
  return first({ratio_outcome(ctx, "||QR - Ã|| ratio",
                              norm_one(d) / (norm_one(at) * double(std::max(mt, nt)) * eps<T>())),
                ratio_outcome(ctx, "||Q^T Q - I|| ratio", norm_one(o) / (double(mt) * eps<T>()))});
}

// ---- the workers --------------------------------------------------------------------

enum Kind { kPotrf, kPotrfFailure, kPotri, kTrtri, kPosv, kGeqrf, kOrmqr, kGels, kIllegal, kQrupd, kKinds };

template <class T> Outcome check(Kind kind, Random &rnd) {
  switch (kind) {
    case kPotrf: return check_potrf<T>(rnd);
    case kPotrfFailure: return check_potrf_failure<T>(rnd);
    case kPotri: return check_potri<T>(rnd);
    case kTrtri: return check_trtri<T>(rnd);
    case kPosv: return check_posv<T>(rnd);
    case kGeqrf: return check_geqrf<T>(rnd);
    case kOrmqr: return check_ormqr<T>(rnd);
    case kGels: return check_gels<T>(rnd);
    case kIllegal: return check_illegal<T>(rnd);
    case kQrupd:
      if constexpr (is_complex_v<T>) return "";  // not reached: the updates are real only
      else return check_qrupd<T>(rnd);
    default: return "unknown kind";
  }
}

Outcome random_call(Random &rnd, int *kind_out) {
  const Kind kind = Kind(rnd.below(kKinds));
  const lint type = rnd.below(kind == kQrupd ? 2 : 4);
  *kind_out = kind;
  switch (type) {
    case 0: return check<float>(kind, rnd);
    case 1: return check<double>(kind, rnd);
    case 2: return check<std::complex<float>>(kind, rnd);
    default: return check<std::complex<double>>(kind, rnd);
  }
}

// kThreads workers, started together, kCallsPerThread random calls each.
void run_workers(lint max_n) {
  std::vector<uint64_t> seeds(kThreads);
  for (auto &s : seeds) s = rng()();
  std::mutex failures_lock;
  std::vector<std::string> failures;
  std::atomic<int> ready{0}, calls{0};
  std::atomic<int> per_kind[kKinds] = {};
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t)
    workers.emplace_back([&, t] {
      Random rnd(seeds[t], max_n);
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      for (int c = 0; c < kCallsPerThread; ++c) {
        int kind = 0;
        const Outcome o = random_call(rnd, &kind);
        per_kind[kind].fetch_add(1);
        calls.fetch_add(1);
        if (!o.empty()) {
          std::lock_guard<std::mutex> g(failures_lock);
          failures.push_back(context("thread %d call %d: ", t, c) + o);
        }
      }
    });
  for (auto &w : workers) w.join();
  for (const std::string &f : failures) print_message("%s\n", f.c_str());
  std::string mix;
  for (int k = 0; k < kKinds; ++k) mix += " " + std::to_string(per_kind[k].load());
  print_message("%d calls by %d threads, orders up to %ld; per kind (potrf, potrf failure, potri, trtri, posv, "
                "geqrf, ormqr, gels, illegal, qrupd):%s\n",
                calls.load(), kThreads, long(max_n), mix.c_str());
  assert_int_equal(calls.load(), kThreads * kCallsPerThread);
  if (!failures.empty()) fail_msg("%zu of %d calls gave a wrong answer", failures.size(), calls.load());
}

// OpenBLAS's pthreads build runs every call on one shared pool of threads
// that spin while they wait for work; with 8 callers on 2 cores that turns
// this test's second into a minute and a half (OpenMathLib/OpenBLAS#731,
// #3187; the same without hqr). The large run therefore asks OpenBLAS for one
// thread per call, as OpenBLAS advises for threaded programs; the small run
// below keeps OpenBLAS's own threads. Other BLAS libraries are left alone.
// (blas_threads, in testing.hpp, sets that.)

void mixed_calls_orders_to_600(void **) {
  const int before = blas_threads(1);
  run_workers(std::min<lint>(600, env_max_order()));
  if (before > 0) blas_threads(before);
}

void mixed_calls_with_blas_threads(void **) { run_workers(std::min<lint>(64, env_max_order())); }

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mixed_calls_orders_to_600),
      cmocka_unit_test(mixed_calls_with_blas_threads),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
