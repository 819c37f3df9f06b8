// Argument errors of every LAPACK routine hqr exports (potrf, potri, trtri,
// lauum, potrs, posv, geqrf, ormqr/unmqr, orgqr/ungqr, gels; s, d, c, z):
// each argument made illegal in turn (LAPACK 3.11's checks) must call XERBLA
// once, with LAPACK's routine name and the argument's position, set
// INFO = -position, leave the arrays unchanged and write nothing to stdout
// or stderr. With several illegal arguments at once the first in LAPACK's
// order is reported. Every case is also run through the reference LAPACK,
// which must agree (so the table below is LAPACK's, not a guess). The
// QR-updating routines' single illegal arguments (s, d, c, z, and the economy
// form) are tested in test_qrupd.cpp and test_qrupd_econ.cpp; here, several
// at once and the silence.
//
// NaN and Inf input: INFO as the reference LAPACK's for trtri, potri, lauum,
// posv, geqrf, orgqr, ormqr and gels (potrf with NaN and Inf, posv with NaN
// and trtri with a NaN diagonal are in test_cholesky.cpp and
// test_inverse.cpp), and INFO = 0 with the NaN or Inf carried into R for the
// QR updates, which document no numerical failure.
#include <unistd.h>

#include <functional>

#include "testing.hpp"
#include "host/nonfinite.hpp"

using namespace testing;

namespace {

// Every scalar argument of the routines under test.
struct Args {
  char side = 'L', trans = 'N', uplo = 'U', diag = 'N';
  lint m = 0, n = 0, k = 0, nrhs = 0, lda = 1, ldb = 1, ldc = 1, lwork = 1;
};

// The arrays: large enough for every valid call below, random contents.
constexpr lint kDim = 16;
template <class T> struct Arrays {
  Matrix<T> a = random_matrix<T>(kDim, kDim), b = random_matrix<T>(kDim, kDim), c = random_matrix<T>(kDim, kDim);
  std::vector<T> tau = random_vector(kDim), work = random_vector(512);
  static std::vector<T> random_vector(lint n) {
    std::vector<T> v(static_cast<size_t>(n));
    for (auto &x : v) x = random_value<T>();
    return v;
  }
};

struct Mutation {
  int pos;           // the argument's position, 1-based
  const char *what;  // for messages
  std::function<void(Args &)> apply;
  bool primary;  // used in the several-at-once test (one per position)
};

template <class T> using Call = std::function<lint(const Args &, Lib, Arrays<T> &)>;

// Everything written to file descriptors 1 and 2 while `f` runs.
template <class F> std::string output_of(F &&f) {
  std::fflush(stdout);
  std::fflush(stderr);
  FILE *log = std::tmpfile();
  const int out = dup(1), err = dup(2);
  if (!log || out < 0 || err < 0) fail_msg("no temporary file for stdout and stderr");
  dup2(fileno(log), 1);
  dup2(fileno(log), 2);
  f();
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(out, 1);
  dup2(err, 2);
  close(out);
  close(err);
  std::string text;
  std::rewind(log);
  for (int c; (c = std::fgetc(log)) != EOF;) text += char(c);
  std::fclose(log);
  return text;
}

// One illegal call through `lib`: INFO = -pos, XERBLA once with `name` and
// pos, A/B/C/TAU unchanged (WORK may hold a size, as LAPACK's does), and
// nothing printed (the tests' XERBLA only records).
template <class T>
void expect_error(const std::string &name, const Call<T> &call, const Args &args, int pos, const std::string &what,
                  Lib lib) {
  const std::string ctx = name + " " + what + (lib == Lib::ref ? " [reference LAPACK]" : " [hqr]");
  Arrays<T> arr;
  const Arrays<T> before = arr;
  xerbla_reset();
  lint info = 0;
  const std::string printed = output_of([&] { info = call(args, lib, arr); });
  if (!printed.empty()) fail_msg("%s: printed \"%s\"", ctx.c_str(), printed.c_str());
  assert_info(info, -pos, ctx);
  const XerblaLog &log = xerbla_log();
  if (log.calls != 1 || name != log.name || log.info != pos)
    print_message("%s: XERBLA called %d times, last with (\"%s\", %ld)\n", ctx.c_str(), log.calls, log.name,
                  long(log.info));
  assert_xerbla(name.c_str(), pos);
  if (!same_bytes(arr.a, before.a) || !same_bytes(arr.b, before.b) || !same_bytes(arr.c, before.c) ||
      !same_bytes(arr.tau, before.tau))
    fail_msg("%s: an array changed on an argument error", ctx.c_str());
}

template <class T>
void check_routine(const std::string &name, const Args &valid, const std::vector<Mutation> &muts, const Call<T> &call) {
  for (Lib lib : {Lib::hqr, Lib::ref}) {
    // The valid arguments are valid: no XERBLA, INFO >= 0.
    {
      Arrays<T> arr;
      xerbla_reset();
      const lint info = call(valid, lib, arr);
      if (info < 0 || xerbla_log().calls != 0)
        fail_msg("%s valid arguments%s: INFO %ld, %d XERBLA calls", name.c_str(),
                 lib == Lib::ref ? " [reference LAPACK]" : "", long(info), xerbla_log().calls);
    }
    // One illegal argument at a time.
    for (const Mutation &mu : muts) {
      Args args = valid;
      mu.apply(args);
      expect_error<T>(name, call, args, mu.pos, mu.what, lib);
    }
    // Several at once: the first illegal one in LAPACK's order is reported.
    std::vector<const Mutation *> prim;
    for (const Mutation &mu : muts)
      if (mu.primary) prim.push_back(&mu);
    for (size_t s = 0; s < prim.size(); ++s) {
      Args args = valid;
      std::string what = "together:";
      for (size_t t = s; t < prim.size(); ++t) {
        prim[t]->apply(args);
        what += std::string(" ") + prim[t]->what;
      }
      expect_error<T>(name, call, args, prim[s]->pos, what, lib);
    }
  }
}

Mutation mut(int pos, const char *what, std::function<void(Args &)> f, bool primary = false) {
  return Mutation{pos, what, std::move(f), primary};
}

// ---- uplo, n, a, lda: potrf, potri, lauum ------------------------------------

enum class UploN { potrf, potri, lauum };

template <class T, UploN R> void uplo_n_errors(void **) {
  const char *base = R == UploN::potrf ? "potrf" : R == UploN::potri ? "potri" : "lauum";
  Call<T> call = [](const Args &x, Lib lib, Arrays<T> &arr) {
    if constexpr (R == UploN::potrf) return potrf<T>(x.uplo, x.n, arr.a.ptr(), x.lda, lib);
    else if constexpr (R == UploN::potri) return potri<T>(x.uplo, x.n, arr.a.ptr(), x.lda, lib);
    else return lauum<T>(x.uplo, x.n, arr.a.ptr(), x.lda, lib);
  };
  Args v;
  v.uplo = 'L', v.n = 6, v.lda = 7;
  const std::vector<Mutation> muts = {
      mut(1, "uplo='X'", [](Args &a) { a.uplo = 'X'; }, true),
      mut(1, "uplo='N'", [](Args &a) { a.uplo = 'N'; }),
      mut(1, "uplo=' '", [](Args &a) { a.uplo = ' '; }),
      mut(2, "n=-1", [](Args &a) { a.n = -1; }, true),
      mut(2, "n=INT_MIN", [](Args &a) { a.n = std::numeric_limits<lint>::min(); }),
      mut(4, "lda=n-1", [](Args &a) { a.lda = 5; }, true),
      mut(4, "n=0 lda=0", [](Args &a) { a.n = 0, a.lda = 0; }),
      mut(4, "n=1 lda=0", [](Args &a) { a.n = 1, a.lda = 0; }),
  };
  check_routine<T>(xerbla_name<T>(base), v, muts, call);
}

// ---- trtri --------------------------------------------------------------------

template <class T> void trtri_errors(void **) {
  Call<T> call = [](const Args &x, Lib lib, Arrays<T> &arr) {
    return trtri<T>(x.uplo, x.diag, x.n, arr.a.ptr(), x.lda, lib);
  };
  Args v;
  v.uplo = 'U', v.diag = 'N', v.n = 6, v.lda = 6;
  // A well-conditioned triangle for the valid call is not needed: any INFO >= 0.
  const std::vector<Mutation> muts = {
      mut(1, "uplo='X'", [](Args &a) { a.uplo = 'X'; }, true),
      mut(2, "diag='X'", [](Args &a) { a.diag = 'X'; }, true),
      mut(2, "diag='L'", [](Args &a) { a.diag = 'L'; }),
      mut(3, "n=-1", [](Args &a) { a.n = -1; }, true),
      mut(5, "lda=n-1", [](Args &a) { a.lda = 5; }, true),
      mut(5, "n=0 lda=0", [](Args &a) { a.n = 0, a.lda = 0; }),
  };
  check_routine<T>(xerbla_name<T>("trtri"), v, muts, call);
}

// ---- potrs, posv --------------------------------------------------------------

template <class T, bool Posv> void solve_errors(void **) {
  Call<T> call = [](const Args &x, Lib lib, Arrays<T> &arr) {
    if constexpr (Posv) return posv<T>(x.uplo, x.n, x.nrhs, arr.a.ptr(), x.lda, arr.b.ptr(), x.ldb, lib);
    else return potrs<T>(x.uplo, x.n, x.nrhs, arr.a.ptr(), x.lda, arr.b.ptr(), x.ldb, lib);
  };
  Args v;
  v.uplo = 'U', v.n = 6, v.nrhs = 3, v.lda = 8, v.ldb = 7;
  const std::vector<Mutation> muts = {
      mut(1, "uplo='X'", [](Args &a) { a.uplo = 'X'; }, true),
      mut(2, "n=-1", [](Args &a) { a.n = -1; }, true),
      mut(3, "nrhs=-1", [](Args &a) { a.nrhs = -1; }, true),
      mut(5, "lda=n-1", [](Args &a) { a.lda = 5; }, true),
      mut(5, "n=0 lda=0", [](Args &a) { a.n = 0, a.lda = 0, a.ldb = 1; }),
      mut(7, "ldb=n-1", [](Args &a) { a.ldb = 5; }, true),
      mut(7, "n=0 ldb=0", [](Args &a) { a.n = 0, a.lda = 1, a.ldb = 0; }),
  };
  check_routine<T>(xerbla_name<T>(Posv ? "posv" : "potrs"), v, muts, call);
}

// ---- geqrf --------------------------------------------------------------------

template <class T> void geqrf_errors(void **) {
  Call<T> call = [](const Args &x, Lib lib, Arrays<T> &arr) {
    return geqrf<T>(x.m, x.n, arr.a.ptr(), x.lda, arr.tau.data(), arr.work.data(), x.lwork, lib);
  };
  Args v;
  v.m = 8, v.n = 6, v.lda = 9, v.lwork = 6;  // LAPACK's minimum: N
  const std::vector<Mutation> muts = {
      mut(1, "m=-1", [](Args &a) { a.m = -1; }, true),
      mut(1, "m=INT_MIN", [](Args &a) { a.m = std::numeric_limits<lint>::min(); }),
      mut(2, "n=-1", [](Args &a) { a.n = -1; }, true),
      mut(4, "lda=m-1", [](Args &a) { a.lda = 7; }, true),
      mut(4, "m=0 lda=0", [](Args &a) { a.m = 0, a.lda = 0; }),
      mut(7, "lwork=n-1", [](Args &a) { a.lwork = 5; }, true),
      mut(7, "lwork=0", [](Args &a) { a.lwork = 0; }),
      mut(7, "lwork=-2", [](Args &a) { a.lwork = -2; }),
  };
  check_routine<T>(xerbla_name<T>("geqrf"), v, muts, call);
}

// ---- orgqr / ungqr ------------------------------------------------------------

template <class T> void orgqr_errors(void **) {
  Call<T> call = [](const Args &x, Lib lib, Arrays<T> &arr) {
    return orgqr<T>(x.m, x.n, x.k, arr.a.ptr(), x.lda, arr.tau.data(), arr.work.data(), x.lwork, lib);
  };
  Args v;
  v.m = 8, v.n = 6, v.k = 4, v.lda = 9, v.lwork = 6;  // LAPACK's minimum: N
  const std::vector<Mutation> muts = {
      mut(1, "m=-1", [](Args &a) { a.m = -1; }, true),
      mut(2, "n=-1", [](Args &a) { a.n = -1; }, true),
      mut(2, "n=m+1", [](Args &a) { a.n = 9, a.lwork = 9; }),
      mut(3, "k=-1", [](Args &a) { a.k = -1; }, true),
      mut(3, "k=n+1", [](Args &a) { a.k = 7; }),
      mut(5, "lda=m-1", [](Args &a) { a.lda = 7; }, true),
      mut(8, "lwork=n-1", [](Args &a) { a.lwork = 5; }, true),
      mut(8, "lwork=0", [](Args &a) { a.lwork = 0; }),
  };
  check_routine<T>(xerbla_name<T>(gqr_base<T>()), v, muts, call);
}

// ---- ormqr / unmqr ------------------------------------------------------------

template <class T, char Side> void ormqr_errors(void **) {
  Call<T> call = [](const Args &x, Lib lib, Arrays<T> &arr) {
    return ormqr<T>(x.side, x.trans, x.m, x.n, x.k, arr.a.ptr(), x.lda, arr.tau.data(), arr.c.ptr(), x.ldc,
                    arr.work.data(), x.lwork, lib);
  };
  // C is m x n; Q has order nq = m (side L) or n (side R); LWORK >= max(1, n)
  // (side L) or max(1, m) (side R).
  Args v;
  v.side = Side, v.trans = trans_h<T>();
  if (Side == 'L')
    v.m = 8, v.n = 5, v.k = 6, v.lda = 8, v.ldc = 9, v.lwork = 5;
  else
    v.m = 5, v.n = 8, v.k = 6, v.lda = 8, v.ldc = 6, v.lwork = 5;
  std::vector<Mutation> muts = {
      mut(1, "side='X'", [](Args &a) { a.side = 'X'; }, true),
      mut(1, "side='T'", [](Args &a) { a.side = 'T'; }),
      mut(2, "trans='X'", [](Args &a) { a.trans = 'X'; }, true),
      // 'C' is not a transpose for the real routines, 'T' not for the complex.
      mut(2, is_complex_v<T> ? "trans='T'" : "trans='C'", [](Args &a) { a.trans = is_complex_v<T> ? 'T' : 'C'; }),
      mut(3, "m=-1", [](Args &a) { a.m = -1; }, true),
      mut(4, "n=-1", [](Args &a) { a.n = -1; }, true),
      mut(5, "k=-1", [](Args &a) { a.k = -1; }, true),
      mut(5, "k=INT_MIN", [](Args &a) { a.k = std::numeric_limits<lint>::min(); }),
      mut(5, "k=nq+1", [](Args &a) { a.k = 9; }),
      mut(7, "lda=nq-1", [](Args &a) { a.lda = 7; }, true),
      mut(10, "ldc=m-1", [](Args &a) { a.ldc = a.m - 1; }, true),
      mut(12, "lwork=nw-1", [](Args &a) { a.lwork = 4; }, true),
      mut(12, "lwork=0", [](Args &a) { a.lwork = 0; }),
  };
  check_routine<T>(xerbla_name<T>(mqr_base<T>()), v, muts, call);
}

// ---- gels ---------------------------------------------------------------------

template <class T, bool Wide> void gels_errors(void **) {
  Call<T> call = [](const Args &x, Lib lib, Arrays<T> &arr) {
    return gels<T>(x.trans, x.m, x.n, x.nrhs, arr.a.ptr(), x.lda, arr.b.ptr(), x.ldb, arr.work.data(), x.lwork, lib);
  };
  // LWORK >= max(1, MN + max(MN, NRHS)), MN = min(M, N); LDB >= max(1, M, N).
  Args v;
  v.trans = Wide ? trans_h<T>() : 'N';
  if (Wide)
    v.m = 5, v.n = 8, v.nrhs = 2, v.lda = 6, v.ldb = 8, v.lwork = 10;
  else
    v.m = 8, v.n = 5, v.nrhs = 7, v.lda = 8, v.ldb = 9, v.lwork = 12;
  std::vector<Mutation> muts = {
      mut(1, "trans='X'", [](Args &a) { a.trans = 'X'; }, true),
      mut(1, is_complex_v<T> ? "trans='T'" : "trans='C'", [](Args &a) { a.trans = is_complex_v<T> ? 'T' : 'C'; }),
      mut(2, "m=-1", [](Args &a) { a.m = -1; }, true),
      mut(3, "n=-1", [](Args &a) { a.n = -1; }, true),
      mut(4, "nrhs=-1", [](Args &a) { a.nrhs = -1; }, true),
      mut(4, "nrhs=INT_MIN", [](Args &a) { a.nrhs = std::numeric_limits<lint>::min(); }),
      mut(6, "lda=m-1", [](Args &a) { a.lda = a.m - 1; }, true),
      mut(8, "ldb=max(m,n)-1", [](Args &a) { a.ldb = std::max(a.m, a.n) - 1; }, true),
      mut(10, "lwork=min-1", [](Args &a) { a.lwork -= 1; }, true),
      mut(10, "lwork=0", [](Args &a) { a.lwork = 0; }),
  };
  check_routine<T>(xerbla_name<T>("gels"), v, muts, call);
}


// ---- QR updates: several illegal arguments at once, nothing printed -------------

// The scalar arguments of the four QR updates (positions differ per routine).
struct UpdArgs {
  char jobq = 'U';
  lint m = 6, n = 4, p = 2, j = 2, ldq = 8, ldr = 8, ldu = 8, lwork = 400;
};
struct UpdMutation {
  int pos;
  const char *what;
  std::function<void(UpdArgs &)> apply;
};

// Each mutation applied on top of all the later ones: the first illegal
// argument in order is reported, once, nothing is written or printed.
template <class T>
void qrupd_several_at_once(const char *base, const std::vector<UpdMutation> &muts,
                           const std::function<lint(const UpdArgs &, Arrays<T> &)> &call) {
  const std::string name = xerbla_name<T>(base);
  for (size_t s = 0; s < muts.size(); ++s) {
    UpdArgs args;
    std::string what = "together:";
    for (size_t t = s; t < muts.size(); ++t) {
      muts[t].apply(args);
      what += std::string(" ") + muts[t].what;
    }
    const std::string ctx = name + " " + what;
    Arrays<T> arr;
    const Arrays<T> before = arr;
    xerbla_reset();
    lint info = 0;
    const std::string printed = output_of([&] { info = call(args, arr); });
    if (!printed.empty()) fail_msg("%s: printed \"%s\"", ctx.c_str(), printed.c_str());
    assert_info(info, -muts[s].pos, ctx);
    assert_xerbla(name.c_str(), muts[s].pos);
    if (!same_bytes(arr.a, before.a) || !same_bytes(arr.b, before.b) || !same_bytes(arr.c, before.c) ||
        !same_bytes(arr.work, before.work))
      fail_msg("%s: an array changed on an argument error", ctx.c_str());
  }
}

// Q in a, R in b, U in c (16 x 16 each, ample for the sizes above).
template <class T> void qrupd_errors(void **) {
  qrupd_several_at_once<T>(
      "qrupd_addcols",
      {{1, "m=-1", [](UpdArgs &a) { a.m = -1; }},
       {2, "n=-1", [](UpdArgs &a) { a.n = -1; }},
       {3, "p=-1", [](UpdArgs &a) { a.p = -1; }},
       {4, "j=0", [](UpdArgs &a) { a.j = 0; }},
       {6, "ldq=m-1", [](UpdArgs &a) { a.ldq = 5; }},
       {8, "ldr=m-1", [](UpdArgs &a) { a.ldr = 5; }},
       {10, "ldu=m-1", [](UpdArgs &a) { a.ldu = 5; }},
       {12, "lwork=0", [](UpdArgs &a) { a.lwork = 0; }}},
      [](const UpdArgs &x, Arrays<T> &arr) {
        lint info = -99;
        pick<T>(sqrupd_addcols_, dqrupd_addcols_, cqrupd_addcols_, zqrupd_addcols_)(
            &x.m, &x.n, &x.p, &x.j, lp(arr.a.ptr()), &x.ldq, lp(arr.b.ptr()), &x.ldr, lp(arr.c.ptr()), &x.ldu, lp(arr.work.data()),
            &x.lwork, &info);
        return info;
      });
  qrupd_several_at_once<T>(
      "qrupd_delcols",
      {{1, "jobq='X'", [](UpdArgs &a) { a.jobq = 'X'; }},
       {2, "m=-1", [](UpdArgs &a) { a.m = -1; }},
       {3, "n=-1", [](UpdArgs &a) { a.n = -1; }},
       {4, "p=-1", [](UpdArgs &a) { a.p = -1; }},
       {5, "j=0", [](UpdArgs &a) { a.j = 0; }},
       {7, "ldq=m-1", [](UpdArgs &a) { a.ldq = 5; }},
       {9, "ldr=m-1", [](UpdArgs &a) { a.ldr = 5; }},
       {11, "lwork=0", [](UpdArgs &a) { a.lwork = 0; }}},
      [](const UpdArgs &x, Arrays<T> &arr) {
        lint info = -99;
        pick<T>(sqrupd_delcols_, dqrupd_delcols_, cqrupd_delcols_, zqrupd_delcols_)(&x.jobq, &x.m, &x.n, &x.p, &x.j, lp(arr.a.ptr()),
                                                                     &x.ldq, lp(arr.b.ptr()), &x.ldr, lp(arr.work.data()),
                                                                     &x.lwork, &info, 1);
        return info;
      });
  qrupd_several_at_once<T>(
      "qrupd_addrows",
      {{1, "jobq='X'", [](UpdArgs &a) { a.jobq = 'X'; }},
       {2, "m=-1", [](UpdArgs &a) { a.m = -1; }},
       {3, "n=-1", [](UpdArgs &a) { a.n = -1; }},
       {4, "p=-1", [](UpdArgs &a) { a.p = -1; }},
       {5, "j=0", [](UpdArgs &a) { a.j = 0; }},
       {7, "ldq=m+p-1", [](UpdArgs &a) { a.ldq = 7; }},
       {9, "ldr=m+p-1", [](UpdArgs &a) { a.ldr = 7; }},
       {11, "ldu=p-1", [](UpdArgs &a) { a.ldu = 1; }},
       {13, "lwork=0", [](UpdArgs &a) { a.lwork = 0; }}},
      [](const UpdArgs &x, Arrays<T> &arr) {
        lint info = -99;
        pick<T>(sqrupd_addrows_, dqrupd_addrows_, cqrupd_addrows_, zqrupd_addrows_)(
            &x.jobq, &x.m, &x.n, &x.p, &x.j, lp(arr.a.ptr()), &x.ldq, lp(arr.b.ptr()), &x.ldr, lp(arr.c.ptr()), &x.ldu,
            lp(arr.work.data()), &x.lwork, &info, 1);
        return info;
      });
  qrupd_several_at_once<T>(
      "qrupd_delrows",
      {{1, "m=-1", [](UpdArgs &a) { a.m = -1; }},
       {2, "n=-1", [](UpdArgs &a) { a.n = -1; }},
       {3, "p=-1", [](UpdArgs &a) { a.p = -1; }},
       {4, "j=0", [](UpdArgs &a) { a.j = 0; }},
       {6, "ldq=m-1", [](UpdArgs &a) { a.ldq = 5; }},
       {8, "ldr=m-1", [](UpdArgs &a) { a.ldr = 5; }},
       {10, "lwork=0", [](UpdArgs &a) { a.lwork = 0; }}},
      [](const UpdArgs &x, Arrays<T> &arr) {
        lint info = -99;
        pick<T>(sqrupd_delrows_, dqrupd_delrows_, cqrupd_delrows_, zqrupd_delrows_)(&x.m, &x.n, &x.p, &x.j, lp(arr.a.ptr()), &x.ldq,
                                                                     lp(arr.b.ptr()), &x.ldr, lp(arr.work.data()), &x.lwork,
                                                                     &info);
        return info;
      });
  // The economy form: Q M-by-N, R N-by-N (LDR >= N+P for adding columns).
  qrupd_several_at_once<T>(
      "qrupd_addcols_econ",
      {{1, "m=-1", [](UpdArgs &a) { a.m = -1; }},
       {2, "n=-1", [](UpdArgs &a) { a.n = -1; }},
       {3, "p=m-n+1", [](UpdArgs &a) { a.p = 3; }},
       {4, "j=0", [](UpdArgs &a) { a.j = 0; }},
       {6, "ldq=m-1", [](UpdArgs &a) { a.ldq = 5; }},
       {8, "ldr=n+p-1", [](UpdArgs &a) { a.ldr = 5; }},
       {10, "ldu=m-1", [](UpdArgs &a) { a.ldu = 5; }},
       {12, "lwork=0", [](UpdArgs &a) { a.lwork = 0; }}},
      [](const UpdArgs &x, Arrays<T> &arr) {
        lint info = -99;
        pick<T>(sqrupd_addcols_econ_, dqrupd_addcols_econ_, cqrupd_addcols_econ_, zqrupd_addcols_econ_)(
            &x.m, &x.n, &x.p, &x.j, lp(arr.a.ptr()), &x.ldq, lp(arr.b.ptr()), &x.ldr, lp(arr.c.ptr()), &x.ldu,
            lp(arr.work.data()), &x.lwork, &info);
        return info;
      });
  qrupd_several_at_once<T>(
      "qrupd_delcols_econ",
      {{1, "jobq='X'", [](UpdArgs &a) { a.jobq = 'X'; }},
       {2, "m=-1", [](UpdArgs &a) { a.m = -1; }},
       {3, "n=m+1", [](UpdArgs &a) { a.n = 7; }},
       {4, "p=-1", [](UpdArgs &a) { a.p = -1; }},
       {5, "j=0", [](UpdArgs &a) { a.j = 0; }},
       {7, "ldq=m-1", [](UpdArgs &a) { a.ldq = 5; }},
       {9, "ldr=n-1", [](UpdArgs &a) { a.ldr = 3; }},
       {11, "lwork=0", [](UpdArgs &a) { a.lwork = 0; }}},
      [](const UpdArgs &x, Arrays<T> &arr) {
        lint info = -99;
        pick<T>(sqrupd_delcols_econ_, dqrupd_delcols_econ_, cqrupd_delcols_econ_, zqrupd_delcols_econ_)(
            &x.jobq, &x.m, &x.n, &x.p, &x.j, lp(arr.a.ptr()), &x.ldq, lp(arr.b.ptr()), &x.ldr, lp(arr.work.data()),
            &x.lwork, &info, 1);
        return info;
      });
  qrupd_several_at_once<T>(
      "qrupd_addrows_econ",
      {{1, "jobq='X'", [](UpdArgs &a) { a.jobq = 'X'; }},
       {2, "m=-1", [](UpdArgs &a) { a.m = -1; }},
       {3, "n=-1", [](UpdArgs &a) { a.n = -1; }},
       {4, "p=-1", [](UpdArgs &a) { a.p = -1; }},
       {5, "j=0", [](UpdArgs &a) { a.j = 0; }},
       {7, "ldq=m+p-1", [](UpdArgs &a) { a.ldq = 7; }},
       {9, "ldr=n-1", [](UpdArgs &a) { a.ldr = 3; }},
       {11, "ldu=p-1", [](UpdArgs &a) { a.ldu = 1; }},
       {13, "lwork=0", [](UpdArgs &a) { a.lwork = 0; }}},
      [](const UpdArgs &x, Arrays<T> &arr) {
        lint info = -99;
        pick<T>(sqrupd_addrows_econ_, dqrupd_addrows_econ_, cqrupd_addrows_econ_, zqrupd_addrows_econ_)(
            &x.jobq, &x.m, &x.n, &x.p, &x.j, lp(arr.a.ptr()), &x.ldq, lp(arr.b.ptr()), &x.ldr, lp(arr.c.ptr()),
            &x.ldu, lp(arr.work.data()), &x.lwork, &info, 1);
        return info;
      });
}

// ---- NaN and Inf input ------------------------------------------------------------

// NaN, +Inf, -Inf in turn.
template <class T> T nonfinite(int kind) {
  using R = real_t<T>;
  const R v = kind == 0 ? std::numeric_limits<R>::quiet_NaN()
                        : kind == 1 ? std::numeric_limits<R>::infinity() : -std::numeric_limits<R>::infinity();
  return T(v);
}
const char *nonfinite_name(int kind) { return kind == 0 ? "NaN" : kind == 1 ? "+Inf" : "-Inf"; }

void compare_info(const std::string &ctx, lint info, lint ref, int *mismatches) {
  if (info == ref) return;
  print_message("%s: INFO %ld, reference LAPACK %ld\n", ctx.c_str(), long(info), long(ref));
  ++*mismatches;
}

// The triangle routines, a NaN or Inf at a diagonal (or off-diagonal)
// position k of the referenced triangle: trtri and lauum against the
// reference's own, potri (of a Cholesky factor) against the reference trtri,
// whose INFO potri returns (the reference potri would call back into hqr).
template <class T> void triangle_nonfinite(void **) {
  int mismatches = 0;
  for (char uplo : {'U', 'L'})
    for (lint n : {1, 7, 64})
      for (lint k : {lint(1), n / 2 + 1, n})
        for (int kind = 0; kind < 3; ++kind)
          for (bool diagonal : {true, false}) {
            if (!diagonal && k == 1) continue;
            lint i = k - 1, j = diagonal ? k - 1 : 0;
            if (uplo == 'U') std::swap(i, j);
            const std::string where = context("uplo=%c n=%ld %s at (%ld,%ld)", uplo, long(n), nonfinite_name(kind),
                                              long(i + 1), long(j + 1));
            Matrix<T> t = random_matrix<T>(n, n, n + 1);
            for (lint d = 0; d < n; ++d) t(d, d) += T(2);
            t(i, j) = nonfinite<T>(kind);
            Matrix<T> mine = with_spare_column(t), ref = with_spare_column(t);
            compare_info(prefix<T>() + std::string("trtri ") + where, trtri<T>(uplo, 'N', n, mine.ptr(), mine.ld),
                            trtri<T>(uplo, 'N', n, ref.ptr(), ref.ld, Lib::ref), &mismatches);
            mine = with_spare_column(t), ref = with_spare_column(t);
            compare_info(prefix<T>() + std::string("lauum ") + where, lauum<T>(uplo, n, mine.ptr(), mine.ld),
                            lauum<T>(uplo, n, ref.ptr(), ref.ld, Lib::ref), &mismatches);

            Matrix<T> f = with_spare_column(random_hpd<T>(n, n + 1));
            if (potrf<T>(uplo, n, f.ptr(), f.ld) != 0) fail_msg("potrf of a positive definite matrix failed");
            f(i, j) = nonfinite<T>(kind);
            mine = f, ref = f;
            compare_info(prefix<T>() + std::string("potri ") + where, potri<T>(uplo, n, mine.ptr(), mine.ld),
                            trtri<T>(uplo, 'N', n, ref.ptr(), ref.ld, Lib::ref), &mismatches);
          }
  if (mismatches) fail_msg("%d NaN/Inf inputs gave an INFO other than the reference LAPACK's", mismatches);
}

// posv with an Inf on the diagonal (or off it), geqrf/orgqr/ormqr/gels with
// a NaN or Inf in A (or B, C): INFO as the reference's.
template <class T> void solve_and_qr_nonfinite(void **) {
  int mismatches = 0;
  const lint m = 12, n = 8, nrhs = 2;
  std::vector<T> work(512), work_ref(512), tau(n), tau_ref(n);
  const lint lw = lint(work.size());
  for (int kind = 0; kind < 3; ++kind)
    for (lint k : {lint(1), lint(4), n}) {
      const std::string what = context(" %s at (%ld,%ld)", nonfinite_name(kind), long(k), long(k));
      for (char uplo : {'U', 'L'}) {
        Matrix<T> a = random_hpd<T>(n, n);
        a(k - 1, k - 1) = nonfinite<T>(kind);
        Matrix<T> b = random_matrix<T>(n, nrhs), a2 = a, b2 = b;
        compare_info(prefix<T>() + context("posv uplo=%c", uplo) + what,
                        posv<T>(uplo, n, nrhs, a.ptr(), n, b.ptr(), n),
                        posv<T>(uplo, n, nrhs, a2.ptr(), n, b2.ptr(), n, Lib::ref), &mismatches);
      }
      Matrix<T> a = random_matrix<T>(m, n);
      a(k - 1, k - 1) = nonfinite<T>(kind);
      Matrix<T> q = a, q_ref = a;
      compare_info(prefix<T>() + std::string("geqrf") + what, geqrf<T>(m, n, q.ptr(), m, tau.data(), work.data(), lw),
                      geqrf<T>(m, n, q_ref.ptr(), m, tau_ref.data(), work_ref.data(), lw, Lib::ref), &mismatches);
      Matrix<T> c = random_matrix<T>(m, nrhs);
      c(k - 1, 0) = nonfinite<T>(kind);
      Matrix<T> c_ref = c;
      compare_info(std::string(1, prefix<T>()) + mqr_base<T>() + what,
                      ormqr<T>('L', trans_h<T>(), m, nrhs, n, q.ptr(), m, tau.data(), c.ptr(), m, work.data(), lw),
                      ormqr<T>('L', trans_h<T>(), m, nrhs, n, q_ref.ptr(), m, tau_ref.data(), c_ref.ptr(), m,
                               work_ref.data(), lw, Lib::ref),
                      &mismatches);
      compare_info(std::string(1, prefix<T>()) + gqr_base<T>() + what,
                      orgqr<T>(m, n, n, q.ptr(), m, tau.data(), work.data(), lw),
                      orgqr<T>(m, n, n, q_ref.ptr(), m, tau_ref.data(), work_ref.data(), lw, Lib::ref), &mismatches);
      for (bool in_b : {false, true}) {
        Matrix<T> g = random_matrix<T>(m, n), h = random_matrix<T>(m, nrhs);
        (in_b ? h(k - 1, 0) : g(k - 1, k - 1)) = nonfinite<T>(kind);
        Matrix<T> g_ref = g, h_ref = h;
        compare_info(prefix<T>() + std::string("gels") + (in_b ? " B" : " A") + what,
                        gels<T>('N', m, n, nrhs, g.ptr(), m, h.ptr(), m, work.data(), lw),
                        gels<T>('N', m, n, nrhs, g_ref.ptr(), m, h_ref.ptr(), m, work_ref.data(), lw, Lib::ref),
                        &mismatches);
      }
    }
  if (mismatches) fail_msg("%d NaN/Inf inputs gave an INFO other than the reference LAPACK's", mismatches);
}

// hqr's scan that keeps NaN/Inf input of gels off the GPU (host/nonfinite.hpp):
// a finite block with NaN in its padding rows is clean; a NaN or +-Inf (for
// complex, in the imaginary part too) at a random place is found, in blocks
// small enough for one thread and large enough for several, on its own
// threads and through a runner (as the GPU path's copy pool runs it; here
// the pieces last first on this thread).
template <class T> bool any_nonfinite_both(lint m, lint n, const T *a, lint lda) {
  const bool own = hqr::any_nonfinite(m, n, a, lda);
  const bool run = hqr::any_nonfinite(m, n, a, lda, 4, [](int pieces, const std::function<void(int)> &fn) {
    for (int p = pieces - 1; p >= 0; --p) fn(p);
  });
  if (own != run) fail_msg("m=%ld n=%ld: the scan's two ways disagree", long(m), long(n));
  return own;
}
template <class T> void nonfinite_scan(void **) {
  constexpr lint per_col = is_complex_v<T> ? 2 : 1;  // reals per element
  for (lint m : {lint(1), lint(37), lint(2048 / per_col)}) {
    const lint n = m == 1 ? 3 : m < 100 ? 11 : 2049, ld = m + 3;  // 2048 x 2049 reals: past the threaded size
    Matrix<T> a = random_matrix<T>(m, n, ld);
    for (lint j = 0; j < n; ++j)
      for (lint i = m; i < ld; ++i) a(i, j) = nonfinite<T>(0);  // padding LAPACK never reads
    if (any_nonfinite_both(m, n, a.ptr(), a.ld)) fail_msg("m=%ld n=%ld: a finite block reported", long(m), long(n));
    for (int kind = 0; kind < (is_complex_v<T> ? 4 : 3); ++kind) {
      const lint i = lint(rng()() % std::uint64_t(m)), j = lint(rng()() % std::uint64_t(n));
      const T keep = a(i, j);
      if constexpr (is_complex_v<T>)
        a(i, j) = kind < 3 ? nonfinite<T>(kind) : T(std::real(keep), std::numeric_limits<real_t<T>>::infinity());
      else
        a(i, j) = nonfinite<T>(kind);
      if (!any_nonfinite_both(m, n, a.ptr(), a.ld))
        fail_msg("m=%ld n=%ld: %s at (%ld,%ld) missed", long(m), long(n), kind < 3 ? nonfinite_name(kind) : "imaginary Inf",
                 long(i), long(j));
      a(i, j) = keep;
    }
  }
}

// The QR updates document no numerical failure: a NaN or Inf in what is
// inserted (U) or in the factors gives INFO = 0, and it shows in the new R.
template <class T> void qrupd_nonfinite(void **) {
  const lint m = 10, n = 6, p = 2, j = 3, ld = 16, lw = 1000;
  std::vector<T> w(lw);
  auto has_nonfinite = [](const Matrix<T> &r, lint rows, lint cols) {
    for (lint c = 0; c < cols; ++c)
      for (lint i = 0; i < rows; ++i)
        if (!std::isfinite(r(i, c))) return true;
    return false;
  };
  for (int kind = 0; kind < 3; ++kind) {
    const std::string what = nonfinite_name(kind);
    // Any Q and R will do for INFO: the routines never test their values.
    Matrix<T> q = random_matrix<T>(ld, ld), r = random_matrix<T>(ld, ld), u = random_matrix<T>(ld, ld);
    u(1, 1) = nonfinite<T>(kind);
    lint info = -99;
    pick<T>(sqrupd_addcols_, dqrupd_addcols_, nullptr, nullptr)(&m, &n, &p, &j, q.ptr(), &ld, r.ptr(), &ld, u.ptr(),
                                                                 &ld, w.data(), &lw, &info);
    assert_info(info, 0, "addcols, " + what + " in U");
    if (!has_nonfinite(r, m, n + p)) fail_msg("addcols, %s in U: R is all finite", what.c_str());

    r = random_matrix<T>(ld, ld), u = random_matrix<T>(ld, ld);
    u(1, 4) = nonfinite<T>(kind);
    const char jobq = 'U';
    pick<T>(sqrupd_addrows_, dqrupd_addrows_, nullptr, nullptr)(&jobq, &m, &n, &p, &j, q.ptr(), &ld, r.ptr(), &ld,
                                                                 u.ptr(), &ld, w.data(), &lw, &info, 1);
    assert_info(info, 0, "addrows, " + what + " in U");
    if (!has_nonfinite(r, m + p, n)) fail_msg("addrows, %s in U: R is all finite", what.c_str());

    r = random_matrix<T>(ld, ld);
    r(0, 5) = nonfinite<T>(kind);  // in a column that moves
    pick<T>(sqrupd_delcols_, dqrupd_delcols_, nullptr, nullptr)(&jobq, &m, &n, &p, &j, q.ptr(), &ld, r.ptr(), &ld,
                                                                 w.data(), &lw, &info, 1);
    assert_info(info, 0, "delcols, " + what + " in R");
    if (!has_nonfinite(r, m, n - p)) fail_msg("delcols, %s in R: R is all finite", what.c_str());

    q = random_matrix<T>(ld, ld), r = random_matrix<T>(ld, ld);
    q(j - 1, 5) = nonfinite<T>(kind);  // in a deleted row
    pick<T>(sqrupd_delrows_, dqrupd_delrows_, nullptr, nullptr)(&m, &n, &p, &j, q.ptr(), &ld, r.ptr(), &ld, w.data(),
                                                                 &lw, &info);
    // Only INFO is LAPACK's business here: the update's rotations carry the
    // value into R, while refactoring (chosen by cost) rebuilds the matrix
    // without the deleted rows, where R is rightly finite.
    assert_info(info, 0, "delrows, " + what + " in Q");
  }
}

}  // namespace

#define ALL_TYPES(test)                                                                                  \
  cmocka_unit_test(test<float>), cmocka_unit_test(test<double>), cmocka_unit_test(test<std::complex<float>>), \
      cmocka_unit_test(test<std::complex<double>>)
#define ALL_TYPES_2(test, x)                                                                       \
  cmocka_unit_test((test<float, x>)), cmocka_unit_test((test<double, x>)),                            \
      cmocka_unit_test((test<std::complex<float>, x>)), cmocka_unit_test((test<std::complex<double>, x>))

int main() {
  const struct CMUnitTest tests[] = {
      ALL_TYPES_2(uplo_n_errors, UploN::potrf), ALL_TYPES_2(uplo_n_errors, UploN::potri),
      ALL_TYPES_2(uplo_n_errors, UploN::lauum), ALL_TYPES(trtri_errors),
      ALL_TYPES_2(solve_errors, false),         ALL_TYPES_2(solve_errors, true),
      ALL_TYPES(geqrf_errors),                  ALL_TYPES(orgqr_errors),
      ALL_TYPES_2(ormqr_errors, 'L'),           ALL_TYPES_2(ormqr_errors, 'R'),
      ALL_TYPES_2(gels_errors, false),          ALL_TYPES_2(gels_errors, true),
      cmocka_unit_test(qrupd_errors<float>),    cmocka_unit_test(qrupd_errors<double>),
      cmocka_unit_test(qrupd_errors<std::complex<float>>), cmocka_unit_test(qrupd_errors<std::complex<double>>),
      ALL_TYPES(triangle_nonfinite),            ALL_TYPES(solve_and_qr_nonfinite), ALL_TYPES(nonfinite_scan),
      cmocka_unit_test(qrupd_nonfinite<float>), cmocka_unit_test(qrupd_nonfinite<double>),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
