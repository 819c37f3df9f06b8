// Argument errors of every LAPACK routine hqr exports (potrf, potri, trtri,
// lauum, potrs, posv, geqrf, ormqr/unmqr, orgqr/ungqr, gels; s, d, c, z):
// each argument made illegal in turn (LAPACK 3.11's checks) must call XERBLA
// once, with LAPACK's routine name and the argument's position, set
// INFO = -position and leave the arrays unchanged. With several illegal
// arguments at once the first in LAPACK's order is reported. Every case is
// also run through the reference LAPACK, which must agree (so the table
// below is LAPACK's, not a guess). The QR-updating routines are tested in
// their own programs.
#include <functional>

#include "testing.hpp"

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

// One illegal call through `lib`: INFO = -pos, XERBLA once with `name` and
// pos, A/B/C/TAU unchanged (WORK may hold a size, as LAPACK's does).
template <class T>
void expect_error(const std::string &name, const Call<T> &call, const Args &args, int pos, const std::string &what,
                  Lib lib) {
  const std::string ctx = name + " " + what + (lib == Lib::ref ? " [reference LAPACK]" : " [hqr]");
  Arrays<T> arr;
  const Arrays<T> before = arr;
  xerbla_reset();
  const lint info = call(args, lib, arr);
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
      mut(6, "lda=m-1", [](Args &a) { a.lda = a.m - 1; }, true),
      mut(8, "ldb=max(m,n)-1", [](Args &a) { a.ldb = std::max(a.m, a.n) - 1; }, true),
      mut(10, "lwork=min-1", [](Args &a) { a.lwork -= 1; }, true),
      mut(10, "lwork=0", [](Args &a) { a.lwork = 0; }),
  };
  check_routine<T>(xerbla_name<T>("gels"), v, muts, call);
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
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
