// Shared by the CMocka tests: random matrices, norms, LAPACK-style residual
// ratios, the reference LAPACK to compare INFO with, and an XERBLA that
// records what hqr reports. Each test program is one translation unit that
// includes this header once.
#pragma once

#include <dlfcn.h>
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <cstring>
#include <sys/mman.h>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

extern "C" {
#include <cmocka.h>
}
#include "hqr.h"

namespace testing {

using lint = lapack_int;
constexpr double kThreshold = 30.0;  // LAPACK's THRESH

template <class T> struct real_of { using type = T; };
template <class T> struct real_of<std::complex<T>> { using type = T; };
template <class T> using real_t = typename real_of<T>::type;
template <class T> constexpr bool is_complex_v = !std::is_same_v<T, real_t<T>>;
template <class T> real_t<T> eps() { return std::numeric_limits<real_t<T>>::epsilon() / 2; }  // LAPACK's 'E'

// Fresh random data every run; HQR_TEST_SEED reproduces a failing run.
inline std::mt19937_64 &rng() {
  static std::mt19937_64 g([] {
    const char *s = std::getenv("HQR_TEST_SEED");
    uint64_t seed = s ? std::strtoull(s, nullptr, 10) : std::random_device{}();
    std::fprintf(stderr, "HQR_TEST_SEED=%llu\n", (unsigned long long)seed);
    return seed;
  }());
  return g;
}
template <class T> T random_value() {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (is_complex_v<T>)
    return T(real_t<T>(u(rng())), real_t<T>(u(rng())));
  else
    return T(u(rng()));
}

// Column-major m-by-n matrix with leading dimension ld >= m.
template <class T> struct Matrix {
  lint m = 0, n = 0, ld = 1;
  std::vector<T> data;
  Matrix() = default;
  Matrix(lint m_, lint n_, lint ld_ = 0) : m(m_), n(n_), ld(std::max<lint>({ld_, m_, 1})), data(size_t(ld) * std::max<lint>(n_, 1)) {}
  T &operator()(lint i, lint j) { return data[size_t(i) + size_t(j) * ld]; }
  const T &operator()(lint i, lint j) const { return data[size_t(i) + size_t(j) * ld]; }
  T *ptr() { return data.data(); }
};

template <class T> Matrix<T> random_matrix(lint m, lint n, lint ld = 0) {
  Matrix<T> a(m, n, ld);
  for (auto &x : a.data) x = random_value<T>();  // padding rows random too
  return a;
}


template <class T> double norm_one(const Matrix<T> &a) {  // max column sum; NaN if any entry is NaN
  double r = 0;
  bool nan = false;
  for (lint j = 0; j < a.n; ++j) {
    double s = 0;
    for (lint i = 0; i < a.m; ++i) s += std::abs(std::complex<double>(a(i, j)));
    if (std::isnan(s)) nan = true;
    r = std::max(r, s);
  }
  return nan ? std::numeric_limits<double>::quiet_NaN() : r;
}
template <class T> double norm_fro(const Matrix<T> &a) {
  double s = 0;
  for (lint j = 0; j < a.n; ++j)
    for (lint i = 0; i < a.m; ++i) s += std::norm(std::complex<double>(a(i, j)));
  return std::sqrt(s);
}

// C = op(A) * op(B) in double-precision accumulation; op is 'N' or 'C'
// (conjugate transpose; plain transpose for real types).
template <class T> Matrix<T> multiply(const Matrix<T> &a, char opa, const Matrix<T> &b, char opb) {
  const lint m = opa == 'N' ? a.m : a.n, k = opa == 'N' ? a.n : a.m;
  const lint n = opb == 'N' ? b.n : b.m;
  Matrix<T> c(m, n);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i) {
      std::complex<double> s = 0;
      for (lint l = 0; l < k; ++l) {
        std::complex<double> x = opa == 'N' ? std::complex<double>(a(i, l)) : std::conj(std::complex<double>(a(l, i)));
        std::complex<double> y = opb == 'N' ? std::complex<double>(b(l, j)) : std::conj(std::complex<double>(b(j, l)));
        s += x * y;
      }
      if constexpr (is_complex_v<T>)
        c(i, j) = T(real_t<T>(s.real()), real_t<T>(s.imag()));
      else
        c(i, j) = T(s.real());
    }
  return c;
}

// The reference LAPACK (Debian's liblapack3), loaded beside hqr to compare
// INFO and results with. Its internal calls may still pass through hqr's
// exports; that is fine for INFO, which hqr must reproduce anyway.
inline void *reference_symbol(const char *name) {
  static void *h = dlopen(std::getenv("HQR_REFERENCE_LAPACK") ? std::getenv("HQR_REFERENCE_LAPACK")
                                                           : "/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3",
                          RTLD_NOW | RTLD_LOCAL);
  void *p = h ? dlsym(h, name) : nullptr;
  if (!p) fail_msg("reference LAPACK has no %s", name);
  return p;
}

// Complex conjugate that stays in T (std::conj of a real is complex).
template <class T> T cj(const T &x) {
  if constexpr (is_complex_v<T>) return std::conj(x);
  else return x;
}

// ---- BLAS for the tests' own products ------------------------------------
// The system BLAS (OpenBLAS), looked up in it directly: O(n^3) residuals
// cost milliseconds, not seconds, and do not pass through hqr's own level-3
// front (they would count in the path counters, and with HQR_GPU_MIN_N=0
// run on the GPU they are meant to check).
template <class T> constexpr char prefix() {
  if constexpr (std::is_same_v<T, float>) return 's';
  else if constexpr (std::is_same_v<T, double>) return 'd';
  else if constexpr (std::is_same_v<T, std::complex<float>>) return 'c';
  else return 'z';
}
inline void *system_blas() {
#ifdef HQR_ILP64
  static void *h = dlopen("libblas64.so.3", RTLD_NOW | RTLD_NOLOAD);  // libhqr64.so's
#else
  static void *h = dlopen("libblas.so.3", RTLD_NOW | RTLD_NOLOAD);  // libhqr.so's
#endif
  return h;
}
inline void *blas_symbol(const char *name) {
  void *p = system_blas() ? dlsym(system_blas(), name) : nullptr;
  if (!p) fail_msg("no BLAS symbol %s", name);
  return p;
}
// C = alpha*op(A)*op(B) + beta*C; op is 'N', 'T' or 'C'.
template <class T>
void gemm(char ta, char tb, lint m, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb, T beta,
          T *c, lint ldc) {
  using F = void(const char *, const char *, const lint *, const lint *, const lint *, const T *, const T *,
                 const lint *, const T *, const lint *, const T *, T *, const lint *, size_t, size_t);
  static F *const f = [] {
    char name[] = "?gemm_";
    name[0] = prefix<T>();
    return reinterpret_cast<F *>(blas_symbol(name));
  }();
  if (m == 0 || n == 0) return;
  f(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
}
// op(A)*op(B) as a fresh matrix.
template <class T> Matrix<T> product(const Matrix<T> &a, char opa, const Matrix<T> &b, char opb) {
  const lint m = opa == 'N' ? a.m : a.n, k = opa == 'N' ? a.n : a.m;
  const lint n = opb == 'N' ? b.n : b.m;
  Matrix<T> c(m, n);
  std::fill(c.data.begin(), c.data.end(), T(0));
  gemm<T>(opa, opb, m, n, k, T(1), a.data.data(), a.ld, b.data.data(), b.ld, T(0), c.ptr(), c.ld);
  return c;
}
// C := C - op(A)*op(B)
template <class T> void subtract_product(Matrix<T> &c, const Matrix<T> &a, char opa, const Matrix<T> &b, char opb) {
  const lint k = opa == 'N' ? a.n : a.m;
  gemm<T>(opa, opb, c.m, c.n, k, T(-1), a.data.data(), a.ld, b.data.data(), b.ld, T(1), c.ptr(), c.ld);
}

// Leading m-by-n block, tightly packed (drops padding).
template <class T> Matrix<T> block(const Matrix<T> &a, lint m, lint n, lint i0 = 0, lint j0 = 0) {
  Matrix<T> b(m, n);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < m; ++i) b(i, j) = a(i0 + i, j0 + j);
  return b;
}
template <class T> Matrix<T> identity(lint n) {
  Matrix<T> e(n, n);
  std::fill(e.data.begin(), e.data.end(), T(0));
  for (lint i = 0; i < n; ++i) e(i, i) = T(1);
  return e;
}
// The uplo triangle of a's leading n-by-n block, zeros elsewhere; diag 'U'
// puts ones on the diagonal (LAPACK's unit triangle).
template <class T> Matrix<T> triangle(const Matrix<T> &a, char uplo, char diag = 'N') {
  const lint n = a.n;
  Matrix<T> t(n, n);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < n; ++i) {
      const bool in = uplo == 'U' ? i <= j : i >= j;
      t(i, j) = in ? a(i, j) : T(0);
    }
  if (diag == 'U')
    for (lint i = 0; i < n; ++i) t(i, i) = T(1);
  return t;
}
// Whether (i, j) lies in the uplo triangle (the diagonal included).
inline bool in_triangle(char uplo, lint i, lint j) { return uplo == 'U' ? i <= j : i >= j; }

// Entries outside the uplo triangle (and the diagonal too when
// `diagonal_too`) and the padding are unchanged byte for byte.
template <class T>
void assert_unchanged_outside(const Matrix<T> &before, const Matrix<T> &after, char uplo,
                              const std::string &ctx, bool diagonal_too = false) {
  lint bi = -1, bj = -1;
  auto written = [&](lint i, lint j) { return in_triangle(uplo, i, j) && !(diagonal_too && i == j); };
  if (!unchanged_where(before, after, [&](lint i, lint j) { return !written(i, j); }, &bi, &bj))
    fail_msg("%s: A(%ld,%ld), which LAPACK does not write, was changed", ctx.c_str(), long(bi), long(bj));
}
// A random triangle that is well conditioned: diagonal of modulus in [1, 2]
// (random sign or phase), off-diagonal entries of modulus below 1/n. With
// diag 'U' the diagonal holds large random values (one of them zero), which
// the routine must neither read nor write.
template <class T> Matrix<T> random_triangle(lint n, lint lda, char uplo, char diag) {
  Matrix<T> a = random_matrix<T>(n, n, lda);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < n; ++i) {
      if (i == j) {
        T u = random_value<T>();
        const double mod = std::abs(std::complex<double>(u));
        a(i, i) = diag == 'U' ? T(100) * u : u * real_t<T>((1.0 + std::abs(double(std::real(u)))) / std::max(mod, 1e-3));
      } else if (in_triangle(uplo, i, j)) {
        a(i, j) = random_value<T>() / real_t<T>(n);
      } else {
        a(i, j) = T(10) * random_value<T>();
      }
    }
  if (diag == 'U' && n > 1) a(n / 2, n / 2) = T(0);
  return a;
}

// Upper trapezoid of an m-by-n matrix (R of a QR factorization).
template <class T> Matrix<T> upper_trapezoid(const Matrix<T> &a) {
  Matrix<T> r(a.m, a.n);
  for (lint j = 0; j < a.n; ++j)
    for (lint i = 0; i < a.m; ++i) r(i, j) = i <= j ? a(i, j) : T(0);
  return r;
}
// Full Hermitian matrix from the uplo triangle of a's leading n-by-n block.
template <class T> Matrix<T> hermitian(const Matrix<T> &a, char uplo) {
  const lint n = a.n;
  Matrix<T> h(n, n);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < n; ++i) {
      const bool in = uplo == 'U' ? i <= j : i >= j;
      h(i, j) = in ? a(i, j) : cj(a(j, i));
    }
  return h;
}

// DPOT01: ||L*L^H - A||_1 / (n ||A||_1 eps) (or U^H*U), with A the full
// Hermitian matrix and `f` holding the factor in its uplo triangle.
template <class T> double factor_ratio(const Matrix<T> &full, const Matrix<T> &f, char uplo) {
  const lint n = full.n;
  if (n == 0) return 0;
  Matrix<T> a = block(full, n, n);
  Matrix<T> r = a;
  Matrix<T> t = triangle(block(f, n, n), uplo);
  if (uplo == 'L')
    subtract_product(r, t, 'N', t, 'C');
  else
    subtract_product(r, t, 'C', t, 'N');
  return norm_one(r) / (double(n) * norm_one(a) * eps<T>());
}

// Hermitian positive definite: B*B^H + n*I, well conditioned, exactly
// Hermitian with a real diagonal. Padding rows (ld > n) are random.
template <class T> Matrix<T> random_hpd(lint n, lint ld = 0) {
  Matrix<T> b = random_matrix<T>(n, n);
  Matrix<T> a = random_matrix<T>(n, n, ld);
  gemm<T>('N', 'C', n, n, n, T(1), b.ptr(), b.ld, b.ptr(), b.ld, T(0), a.ptr(), a.ld);
  for (lint j = 0; j < n; ++j) {
    for (lint i = 0; i < j; ++i) a(i, j) = cj(a(j, i));
    a(j, j) = T(std::real(a(j, j)) + real_t<T>(n));
  }
  return a;
}

// Bytes of every entry of `after` for which keep(i, j) holds (padding rows
// i >= m always) equal those of `before`. Returns false and the first
// differing (i, j) otherwise.
template <class T, class Keep>
bool unchanged_where(const Matrix<T> &before, const Matrix<T> &after, Keep keep, lint *bi = nullptr,
                     lint *bj = nullptr) {
  for (lint j = 0; j < std::max<lint>(before.n, 1); ++j)
    for (lint i = 0; i < before.ld; ++i) {
      if (i < before.m && j < before.n && !keep(i, j)) continue;
      if (std::memcmp(&before(i, j), &after(i, j), sizeof(T)) != 0) {
        if (bi) *bi = i;
        if (bj) *bj = j;
        return false;
      }
    }
  return true;
}
// OpenBLAS's threads per call: returns the number before, and sets it to
// `set` if positive; 0 (and nothing set) where the BLAS is not OpenBLAS.
inline int blas_threads(int set) {
  using Get = int();
  using Set = void(int);
  auto *get = reinterpret_cast<Get *>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  auto *put = reinterpret_cast<Set *>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (!get || !put) return 0;
  const int before = get();
  if (set > 0) put(set);
  return before;
}

// A spare column after a matrix that the reference LAPACK's clauum/zlauum
// 'U' (or its c/zpotri) takes: OpenBLAS 0.3.21's complex dot kernels read one
// element past a strided vector, so through them it reads A(i, n+1), and on
// a heap block that ends at a page the test would crash for a reason that is
// not hqr's. (hqr's own CPU path keeps inside the array: test_inverse's
// at_mapping_end.)
template <class T> Matrix<T> with_spare_column(const Matrix<T> &a) {
  Matrix<T> b = a;
  b.data.resize(b.data.size() + size_t(b.ld));
  return b;
}

// A Fortran array (lda*n elements) whose last element ends a page, with more
// than a column's bytes of PROT_NONE pages after it: a routine that reads
// past the array faults, and cmocka fails the test. A cudaMallocHost array
// ends so (the driver reserves the range after it).
template <class T> class AtMappingEnd {
 public:
  explicit AtMappingEnd(const Matrix<T> &m) : count_(std::size_t(m.ld) * std::max<lint>(m.n, 1)) {
    const std::size_t page = 4096, bytes = count_ * sizeof(T);
    data_ = (bytes + page - 1) / page * page;
    total_ = data_ + (std::size_t(m.ld) + 1) * sizeof(T) / page * page + page;
    base_ = static_cast<char *>(mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    assert_true(base_ != MAP_FAILED);
    assert_int_equal(mprotect(base_ + data_, total_ - data_, PROT_NONE), 0);
    std::memcpy(ptr(), m.data.data(), bytes);
  }
  ~AtMappingEnd() { munmap(base_, total_); }
  AtMappingEnd(const AtMappingEnd &) = delete;
  AtMappingEnd &operator=(const AtMappingEnd &) = delete;
  T *ptr() { return reinterpret_cast<T *>(base_ + data_) - count_; }
  Matrix<T> read(Matrix<T> like) {
    std::memcpy(like.data.data(), ptr(), count_ * sizeof(T));
    return like;
  }

 private:
  std::size_t count_, data_ = 0, total_ = 0;
  char *base_ = nullptr;
};

template <class T> bool same_bytes(const Matrix<T> &a, const Matrix<T> &b) {
  return a.data.size() == b.data.size() && std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(T)) == 0;
}
template <class T> bool same_bytes(const std::vector<T> &a, const std::vector<T> &b) {
  // An empty vector's data() may be null, which memcmp must not get (UBSan).
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// ---- hqr's routines (and the reference's) called from templates ---------
// Lib::ref calls the same routine in the reference LAPACK (reference_symbol).
enum class Lib { hqr, ref };

template <class T>
using lapack_t = std::conditional_t<
    std::is_same_v<T, std::complex<float>>, lapack_complex_float,
    std::conditional_t<std::is_same_v<T, std::complex<double>>, lapack_complex_double, T>>;
template <class T> lapack_t<T> *lp(T *p) { return reinterpret_cast<lapack_t<T> *>(p); }
template <class T> const lapack_t<T> *lp(const T *p) { return reinterpret_cast<const lapack_t<T> *>(p); }

template <class T, class S, class D, class C, class Z> constexpr auto pick(S s, D d, C c, Z z) {
  if constexpr (std::is_same_v<T, float>) return s;
  else if constexpr (std::is_same_v<T, double>) return d;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return c;
  else return z;
}
// LAPACK's base names: ormqr/orgqr for real types, unmqr/ungqr for complex.
template <class T> const char *mqr_base() { return is_complex_v<T> ? "unmqr" : "ormqr"; }
template <class T> const char *gqr_base() { return is_complex_v<T> ? "ungqr" : "orgqr"; }
// The transpose LAPACK accepts: 'T' for real types, 'C' for complex.
template <class T> constexpr char trans_h() { return is_complex_v<T> ? 'C' : 'T'; }
// The name XERBLA receives: "DPOTRF", "ZUNMQR".
template <class T> std::string xerbla_name(const char *base) {
  std::string s(1, prefix<T>());
  s += base;
  for (char &c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
// A routine of hqr or of the reference LAPACK, ready to call. The reference
// LAPACK's own BLAS calls (ctrsm_ inside cpotrf2) resolve to hqr's exports,
// and with HQR_GPU_MIN_N=0 those run on the GPU, whose arithmetic on Inf
// differs from a CPU BLAS's (cuBLAS divides by a complex Inf to NaN, the
// reference BLAS to 0): the oracle would then answer for hqr's BLAS, not for
// LAPACK. So while a reference routine runs, hqr keeps every call on the CPU.
template <class F> struct Routine {
  F f;
  bool reference;
  template <class... A> auto operator()(A... args) const {
    struct CpuOnly {  // restores HQR_GPU_MIN_N as the environment set it
      bool on;
      explicit CpuOnly(bool o) : on(o) {
        if (on) hqr_set_gpu_min_n(std::numeric_limits<long>::max());
      }
      ~CpuOnly() {
        if (on) hqr_set_gpu_min_n(std::getenv("HQR_GPU_MIN_N") ? std::atol(std::getenv("HQR_GPU_MIN_N")) : -1);
      }
    } scope(reference);
    return f(args...);
  }
};
template <class T, class F> Routine<F> resolve(F own, Lib lib, const char *base) {
  if (lib == Lib::hqr) return {own, false};
  std::string name = std::string(1, prefix<T>()) + base + "_";
  return {reinterpret_cast<F>(reference_symbol(name.c_str())), true};
}
// Real part of WORK(1) after a LWORK = -1 query.
template <class T> lint work_size(const T &w) { return lint(std::real(w)); }

template <class T> lint potrf(char uplo, lint n, T *a, lint lda, Lib lib = Lib::hqr) {
  lint info = -999;
  resolve<T>(pick<T>(spotrf_, dpotrf_, cpotrf_, zpotrf_), lib, "potrf")(&uplo, &n, lp(a), &lda, &info, 1);
  return info;
}
template <class T> lint potri(char uplo, lint n, T *a, lint lda, Lib lib = Lib::hqr) {
  lint info = -999;
  resolve<T>(pick<T>(spotri_, dpotri_, cpotri_, zpotri_), lib, "potri")(&uplo, &n, lp(a), &lda, &info, 1);
  return info;
}
template <class T> lint lauum(char uplo, lint n, T *a, lint lda, Lib lib = Lib::hqr) {
  lint info = -999;
  resolve<T>(pick<T>(slauum_, dlauum_, clauum_, zlauum_), lib, "lauum")(&uplo, &n, lp(a), &lda, &info, 1);
  return info;
}
template <class T> lint trtri(char uplo, char diag, lint n, T *a, lint lda, Lib lib = Lib::hqr) {
  lint info = -999;
  resolve<T>(pick<T>(strtri_, dtrtri_, ctrtri_, ztrtri_), lib, "trtri")(&uplo, &diag, &n, lp(a), &lda, &info, 1, 1);
  return info;
}
template <class T>
lint potrs(char uplo, lint n, lint nrhs, const T *a, lint lda, T *b, lint ldb, Lib lib = Lib::hqr) {
  lint info = -999;
  resolve<T>(pick<T>(spotrs_, dpotrs_, cpotrs_, zpotrs_), lib, "potrs")(&uplo, &n, &nrhs, lp(a), &lda, lp(b), &ldb,
                                                                        &info, 1);
  return info;
}
template <class T> lint posv(char uplo, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, Lib lib = Lib::hqr) {
  lint info = -999;
  resolve<T>(pick<T>(sposv_, dposv_, cposv_, zposv_), lib, "posv")(&uplo, &n, &nrhs, lp(a), &lda, lp(b), &ldb, &info,
                                                                   1);
  return info;
}
template <class T> lint geqrf(lint m, lint n, T *a, lint lda, T *tau, T *work, lint lwork, Lib lib = Lib::hqr) {
  lint info = -999;
  resolve<T>(pick<T>(sgeqrf_, dgeqrf_, cgeqrf_, zgeqrf_), lib, "geqrf")(&m, &n, lp(a), &lda, lp(tau), lp(work),
                                                                        &lwork, &info);
  return info;
}
template <class T>
lint orgqr(lint m, lint n, lint k, T *a, lint lda, const T *tau, T *work, lint lwork, Lib lib = Lib::hqr) {
  lint info = -999;
  resolve<T>(pick<T>(sorgqr_, dorgqr_, cungqr_, zungqr_), lib, gqr_base<T>())(&m, &n, &k, lp(a), &lda, lp(tau),
                                                                              lp(work), &lwork, &info);
  return info;
}
template <class T>
lint ormqr(char side, char trans, lint m, lint n, lint k, const T *a, lint lda, const T *tau, T *c, lint ldc, T *work,
           lint lwork, Lib lib = Lib::hqr) {
  lint info = -999;
  resolve<T>(pick<T>(sormqr_, dormqr_, cunmqr_, zunmqr_), lib, mqr_base<T>())(
      &side, &trans, &m, &n, &k, lp(a), &lda, lp(tau), lp(c), &ldc, lp(work), &lwork, &info, 1, 1);
  return info;
}
template <class T>
lint gels(char trans, lint m, lint n, lint nrhs, T *a, lint lda, T *b, lint ldb, T *work, lint lwork,
          Lib lib = Lib::hqr) {
  lint info = -999;
  resolve<T>(pick<T>(sgels_, dgels_, cgels_, zgels_), lib, "gels")(&trans, &m, &n, &nrhs, lp(a), &lda, lp(b), &ldb,
                                                                   lp(work), &lwork, &info, 1);
  return info;
}

// Context of a failure, printed with it (sizes, uplo, ...).
template <class... A> std::string context(const char *fmt, A... a) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a...);
  return buf;
}

// XERBLA as a test suite supplies it: record, do not print or stop.
struct XerblaLog {
  int calls = 0;
  char name[32] = "";
  long info = 0;
};
inline XerblaLog &xerbla_log() {
  static thread_local XerblaLog log;
  return log;
}
inline void xerbla_reset() { xerbla_log() = XerblaLog{}; }

// Runs a program's tests with HQR_TEST_FILTER (one cmocka pattern) and
// HQR_TEST_SKIP (patterns separated by commas, * and ? as cmocka's), for a
// caller that leaves out several groups (test/valgrind.sh); cmocka's own
// skip filter takes one pattern.
template <std::size_t N> int run_group(const CMUnitTest (&tests)[N]) {
  std::vector<CMUnitTest> kept;
  const std::string skip = std::getenv("HQR_TEST_SKIP") ? std::getenv("HQR_TEST_SKIP") : "";
  for (const CMUnitTest &t : tests) {
    bool skipped = false;
    for (std::size_t at = 0; at <= skip.size() && !skip.empty() && !skipped;) {
      const std::size_t end = std::min(skip.find(',', at), skip.size());
      skipped = fnmatch(skip.substr(at, end - at).c_str(), t.name, 0) == 0;
      at = end + 1;
    }
    if (!skipped) kept.push_back(t);
  }
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);
  return _cmocka_run_group_tests("tests", kept.data(), kept.size(), nullptr, nullptr);
}

}  // namespace testing

extern "C" void xerbla_(const char *name, const lapack_int *info, size_t len) {
  auto &log = testing::xerbla_log();
  ++log.calls;
  size_t n = std::min(len, sizeof log.name - 1);
  std::memcpy(log.name, name, n);
  // LAPACK pads with blanks; OpenBLAS's BLAS passes sizeof("DGEMM "), its NUL too.
  while (n > 0 && (log.name[n - 1] == ' ' || log.name[n - 1] == '\0')) --n;
  log.name[n] = '\0';
  log.info = *info;
}

// Asserts that the last call reported argument `pos` of routine `name`.
#define assert_xerbla(routine, pos)                                  \
  do {                                                               \
    assert_int_equal(testing::xerbla_log().calls, 1);                \
    assert_string_equal(testing::xerbla_log().name, (routine));      \
    assert_int_equal(testing::xerbla_log().info, (pos));             \
    testing::xerbla_reset();                                         \
  } while (0)

// A LAPACK-style test ratio must be below the threshold (NaN fails).
// HQR_TEST_VERBOSE=1 prints every ratio.
#define assert_ratio(ratio, ctx)                                                                        \
  do {                                                                                                  \
    const double r_ = (ratio);                                                                          \
    if (std::getenv("HQR_TEST_VERBOSE"))                                                                \
      print_message("%s: %s = %.3g\n", std::string(ctx).c_str(), #ratio, r_);                          \
    if (!(r_ < testing::kThreshold))                                                                    \
      fail_msg("%s: %s = %g, threshold %g", std::string(ctx).c_str(), #ratio, r_, testing::kThreshold); \
  } while (0)
// INFO must equal the expected value.
#define assert_info(got, want, ctx)                                                                                  \
  do {                                                                                                               \
    const long g_ = (got), w_ = (want);                                                                              \
    if (g_ != w_) fail_msg("%s: INFO %ld, expected %ld (%s)", std::string(ctx).c_str(), g_, w_, #want);             \
  } while (0)

namespace testing {

// xLAUUM's check: the triangle `out` holds against U*U**H ('U') or L**H*L
// ('L') formed here from the input triangle of a0:
// ||out - W||_1 / (n ||W||_1 eps).
template <class T> void assert_lauum_product(const Matrix<T> &a0, const Matrix<T> &out, char uplo, const std::string &ctx) {
  const lint n = a0.n;
  if (n == 0) return;
  const Matrix<T> t = triangle(block(a0, n, n), uplo);
  const Matrix<T> w = uplo == 'U' ? product(t, 'N', t, 'C') : product(t, 'C', t, 'N');
  Matrix<T> d = hermitian(block(out, n, n), uplo);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < n; ++i) d(i, j) -= w(i, j);
  assert_ratio(norm_one(d) / (double(n) * norm_one(w) * eps<T>()), ctx);
}

// HQR_DEVICE_REPLICAS=k (a test knob): each GPU serves as k members of the
// device set, which the per-GPU counters cannot tell apart.
inline int device_replicas() {
  const char *r = std::getenv("HQR_DEVICE_REPLICAS");
  return std::min(8, std::max(1, r ? std::atoi(r) : 1));
}

// With HQR_GPU_MIN_N=0 and a GPU, every call must end on a GPU path (a CPU
// fallback proves nothing about the GPU code); with several GPUs, every GPU
// must have worked once the order spans a block of `panel` lines for each
// (the device-set schedules' block size). Not under HQR_FAULT, whose
// injected failures rightly send calls to the CPU. Construct it just before
// the call; expect() after it.
struct GpuPathCheck {
  long gpu = hqr_path_calls('g');
  long device[64] = {};
  GpuPathCheck() {
    for (int d = 0; d < 64; ++d) device[d] = hqr_device_calls(d);
  }
  static bool forced() {
    const char *v = std::getenv("HQR_GPU_MIN_N");
    return v && std::strcmp(v, "0") == 0 && hqr_device_count() > 0 && !std::getenv("HQR_FAULT");
  }
  void expect(lint n, lint panel, const char *what) const {
    if (!forced() || n == 0) return;
    if (hqr_path_calls('g') != gpu + 1) fail_msg("%s: the call did not end on a GPU path", what);
    const int members = hqr_device_count(), gpus = members / device_replicas();
    if (gpus < 2 || n < members * panel) return;
    int worked = 0;
    for (int d = 0; d < 64; ++d) worked += hqr_device_calls(d) > device[d];
    if (worked != gpus) fail_msg("%s: %d of %d GPUs worked", what, worked, gpus);
  }
};

}  // namespace testing
