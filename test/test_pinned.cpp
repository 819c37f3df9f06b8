// Callers whose arrays lie in pinned memory (src/cuda/pinned.hpp): xPOTRF,
// xPOTRI, xTRTRI, xLAUUM, xGEQRF and xGELS, s/d/c/z, with the arrays in cudaMallocHost
// memory and in cudaHostRegister'ed memory, at orders that take the one trip
// (default block size) and the hybrids (a block size of 64, several panels),
// both uplo, lda > n, odd sizes: LAPACK's residual ratios, the unreferenced
// triangle and the padding unchanged byte for byte, INFO equal to the
// reference LAPACK's for non-SPD and NaN input with the leading factor as
// LAPACK leaves it; xPOTRF and xPOTRI at 4096, past the staged trip, take
// the pinned one (GPU only). Memory the direct paths must not take (a range
// registered only in part, cudaMallocManaged memory, a registration the
// device may only read) gives the same answers through the staging.
//
// With HQR_GPU_MIN_N=0 and one GPU, every call must end on a GPU path
// (GpuPathCheck) and HQR_VERBOSE's line must say "pinned caller" exactly
// where the memory allows a direct path (HQR_TEST_MEMORY picks one kind). The CUDA runtime that allocates the
// memory is loaded only where hqr has a GPU (libhqr keeps its own runtime
// inside); elsewhere only ordinary memory runs, and the checks still test
// the CPU path. Under HQR_FAULT (scripts/gpu-check.sh) the answers must stay
// LAPACK's; the path checks are off.
#include <dlfcn.h>
#include <unistd.h>

#include <memory>

#include "testing.hpp"

using namespace testing;

namespace {

// ---- the caller's memory ------------------------------------------------------

// The CUDA runtime's few functions the test needs, from the shared library
// (the build's, else the loader's search).
struct Cudart {
  using Err = int;
  Err (*malloc_host)(void **, size_t) = nullptr;
  Err (*free_host)(void *) = nullptr;
  Err (*host_register)(void *, size_t, unsigned) = nullptr;
  Err (*host_unregister)(void *) = nullptr;
  Err (*malloc_managed)(void **, size_t, unsigned) = nullptr;
  Err (*free)(void *) = nullptr;
  Err (*get_last_error)() = nullptr;
  bool loaded = false;
};
const Cudart &cudart() {
  static const Cudart c = [] {
    Cudart r;
    if (hqr_device_count() <= 0) return r;  // no GPU: never load it (nor its allocations under the sanitizers)
    void *h = nullptr;
#ifdef HQR_TEST_CUDART
    h = dlopen(HQR_TEST_CUDART, RTLD_NOW | RTLD_LOCAL);
#endif
    for (const char *name : {"libcudart.so", "libcudart.so.13", "libcudart.so.12"})
      if (!h) h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      std::fprintf(stderr, "test_pinned: no libcudart found; pinned memory not tested\n");
      return r;
    }
    auto get = [&](auto &f, const char *name) { f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(h, name)); };
    get(r.malloc_host, "cudaMallocHost");
    get(r.free_host, "cudaFreeHost");
    get(r.host_register, "cudaHostRegister");
    get(r.host_unregister, "cudaHostUnregister");
    get(r.malloc_managed, "cudaMallocManaged");
    get(r.free, "cudaFree");
    get(r.get_last_error, "cudaGetLastError");
    r.loaded = r.malloc_host && r.free_host && r.host_register && r.host_unregister && r.malloc_managed && r.free &&
               r.get_last_error;
    return r;
  }();
  return c;
}

enum class Memory { pageable, host_alloc, registered, part_registered, managed, read_only };
const char *name(Memory k) {
  switch (k) {
    case Memory::pageable: return "pageable";
    case Memory::host_alloc: return "cudaMallocHost";
    case Memory::registered: return "cudaHostRegister";
    case Memory::part_registered: return "registered-in-part";
    case Memory::managed: return "cudaMallocManaged";
    case Memory::read_only: return "registered-read-only";
  }
  return "?";
}
// The kinds to run: ordinary memory always, the others where a GPU and the
// runtime are there (read-only registration has a test of its own, last).
// HQR_TEST_MEMORY=<name> runs that kind alone (scripts/gpu-check.sh: the
// injected faults then land in its paths).
std::vector<Memory> kinds() {
  std::vector<Memory> all = {Memory::pageable};
  if (cudart().loaded)
    all.insert(all.end(), {Memory::host_alloc, Memory::registered, Memory::part_registered, Memory::managed});
  if (const char *only = std::getenv("HQR_TEST_MEMORY")) {
    for (Memory k : all)
      if (std::strcmp(only, name(k)) == 0) return {k};
    // A kind this machine lacks runs nothing; a name of no kind is an error
    // (it would run nothing and pass).
    for (Memory k : {Memory::host_alloc, Memory::registered, Memory::part_registered, Memory::managed,
                     Memory::read_only})
      if (std::strcmp(only, name(k)) == 0) return {};
    fail_msg("HQR_TEST_MEMORY=%s names no kind: pageable, cudaMallocHost, cudaHostRegister, registered-in-part, "
             "cudaMallocManaged, registered-read-only", only);
  }
  return all;
}

// Bytes of one kind of memory (at least two pages, page-aligned).
class Buffer {
 public:
  Buffer(Memory kind, size_t bytes) : kind_(kind) {
    const size_t page = 4096;
    bytes_ = std::max<size_t>(2 * page, (bytes + page - 1) / page * page);
    const Cudart &c = cudart();
    switch (kind) {
      case Memory::host_alloc:
        if (c.malloc_host(&p_, bytes_) != 0) p_ = nullptr;
        break;
      case Memory::managed:
        if (c.malloc_managed(&p_, bytes_, 1 /* cudaMemAttachGlobal */) != 0) p_ = nullptr;
        break;
      default:
        if (posix_memalign(&p_, page, bytes_) != 0) p_ = nullptr;
        if (!p_ || kind == Memory::pageable) break;
        // In part: the last page only, so the array's first byte lies outside.
        registered_ = (kind == Memory::part_registered
                           ? c.host_register(static_cast<char *>(p_) + bytes_ - page, page, 0)
                           : c.host_register(p_, bytes_, kind == Memory::read_only ? 8 /* cudaHostRegisterReadOnly */ : 0)) == 0;
        if (!registered_) {
          c.get_last_error();
          std::free(p_);
          p_ = nullptr;
        }
    }
    if (!p_) fail_msg("could not allocate %zu bytes of %s memory", bytes_, name(kind));
  }
  ~Buffer() {
    if (!p_) return;
    const Cudart &c = cudart();
    if (kind_ == Memory::host_alloc) {
      c.free_host(p_);
    } else if (kind_ == Memory::managed) {
      c.free(p_);
    } else {
      if (registered_) c.host_unregister(kind_ == Memory::part_registered ? static_cast<char *>(p_) + bytes_ - 4096 : p_);
      std::free(p_);
    }
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  void *get() const { return p_; }

 private:
  Memory kind_;
  void *p_ = nullptr;
  size_t bytes_ = 0;
  bool registered_ = false;
};

// A matrix as the caller holds it in memory of one kind; checks copy it out.
template <class T> struct Held {
  Buffer buf;
  lint m, n, ld;
  Held(Memory kind, const Matrix<T> &a)
      : buf(kind, sizeof(T) * size_t(a.ld) * size_t(std::max<lint>(a.n, 1))), m(a.m), n(a.n), ld(a.ld) {
    std::memcpy(ptr(), a.data.data(), a.data.size() * sizeof(T));
  }
  T *ptr() { return static_cast<T *>(buf.get()); }
  Matrix<T> matrix() {
    Matrix<T> a(m, n, ld);
    std::memcpy(a.data.data(), ptr(), a.data.size() * sizeof(T));
    return a;
  }
};

// ---- what the call did -----------------------------------------------------------

bool one_gpu_forced() { return GpuPathCheck::forced() && hqr_device_count() == 1; }

// The HQR_VERBOSE lines a call writes (stderr captured into a file, then
// passed on), where the path is checked; else "" (the call runs as is).
template <class F> std::string verbose_lines(F &&call) {
  if (!one_gpu_forced()) {
    call();
    return "";
  }
  std::fflush(stderr);
  FILE *tmp = std::tmpfile();
  const int saved = tmp ? dup(2) : -1;
  if (saved < 0 || dup2(fileno(tmp), 2) < 0) {
    if (tmp) std::fclose(tmp);
    call();
    return "";
  }
  // hqr_set_verbose switches level 1 on and off; HQR_VERBOSE=2 (the trips'
  // phase lines in the log) is left as it is.
  const bool quiet = !std::getenv("HQR_VERBOSE") || std::atoi(std::getenv("HQR_VERBOSE")) == 0;
  if (quiet) hqr_set_verbose(1);
  call();
  if (quiet) hqr_set_verbose(0);
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  std::rewind(tmp);
  char line[1024];
  while (std::fgets(line, sizeof line, tmp)) text += line;
  std::fclose(tmp);
  std::fputs(text.c_str(), stderr);
  return text;
}

// The call's own line ("hqr: dpotrf ... path=..."), of routine `routine`.
std::string call_line(const std::string &text, const std::string &routine) {
  const std::string head = "hqr: " + routine + " ";
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at);
    const std::string l = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (l.compare(0, head.size(), head) == 0) return l;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return "";
}

// Runs `call` (one hqr routine on arrays of memory `kind`); with the GPU
// forced on one GPU, checks that it ended on a GPU path and that its line
// says "pinned caller" exactly where a direct path may serve: pinned memory
// the device may write, or (the hybrids, which only read it by DMA) may read.
// Returns the call's line ("" where the path is not checked).
template <class F>
std::string expect_path(Memory kind, bool hybrid, const std::string &routine, const std::string &ctx, F &&call) {
  const GpuPathCheck path;
  const std::string line = call_line(verbose_lines(call), routine);
  path.expect(1, 1, ctx.c_str());
  if (!one_gpu_forced()) return line;
  const bool noted = line.find("pinned caller") != std::string::npos;
  const bool want = kind == Memory::host_alloc || kind == Memory::registered || (kind == Memory::read_only && hybrid);
  if (want != noted)
    fail_msg("%s: HQR_VERBOSE line %s \"pinned caller\": %s", ctx.c_str(), want ? "lacks" : "has", line.c_str());
  return line;
}

// One call of routine `base` (its T-prefixed name's line) checked as
// expect_path does; its INFO must be 0.
template <class T, class F>
void call_ok(Memory kind, bool hybrid, const char *base, const std::string &ctx, F &&call) {
  lint info = -99;
  expect_path(kind, hybrid, std::string(1, prefix<T>()) + base, ctx, [&] { info = call(); });
  assert_info(info, 0, ctx);
}

// The schedules: the default (one trip at these orders) and the hybrid at
// every order (a block size of 64); the second only where a GPU serves.
template <class F> void each_schedule(F &&f) {
  f(false);
  if (hqr_device() < 0) return;
  hqr_set_nb(64);
  f(true);
  const char *env = std::getenv("HQR_NB");
  hqr_set_nb(env ? std::atoi(env) : 0);
}

// Hermitian positive definite with a random other triangle and padding.
template <class T> Matrix<T> hpd(lint n, lint lda, char uplo) {
  Matrix<T> a = random_hpd<T>(n, lda);
  for (lint j = 0; j < n; ++j)
    for (lint i = 0; i < n; ++i)
      if (!in_triangle(uplo, i, j)) a(i, j) = T(7) * random_value<T>();
  return a;
}

constexpr lint kOrders[] = {1, 37, 300, 513};

// ---- potrf --------------------------------------------------------------------------

// DPOT01 on the factor, the other triangle untouched, the path.
template <class T> void potrf_pinned(void **) {
  for (Memory kind : kinds())
    each_schedule([&](bool hybrid) {
      for (lint n : kOrders)
        for (char uplo : {'L', 'U'})
          for (lint pad : {lint(0), lint(3)}) {
            const lint lda = n + pad;
            const std::string ctx = context("%cpotrf uplo=%c n=%ld lda=%ld %s%s", prefix<T>(), uplo, long(n), long(lda),
                                            name(kind), hybrid ? " nb=64" : "");
            const Matrix<T> a0 = hpd<T>(n, lda, uplo);
            Held<T> a(kind, a0);
            call_ok<T>(kind, hybrid, "potrf", ctx, [&] { return potrf<T>(uplo, n, a.ptr(), lda); });
            const Matrix<T> f = a.matrix();
            assert_unchanged_outside(a0, f, uplo, ctx);
            assert_ratio(factor_ratio(hermitian(block(a0, n, n), uplo), f, uplo), ctx);
          }
    });
}

// A(p,p) negative or NaN: INFO as the reference LAPACK's (p+1), the leading
// p-by-p block the factor of A's leading minor (as LAPACK leaves it), the
// other triangle untouched.
template <class T> void potrf_failures(void **) {
  const lint n = 300;
  for (Memory kind : kinds())
    each_schedule([&](bool hybrid) {
      for (char uplo : {'L', 'U'})
        for (lint p : {lint(0), lint(64), lint(150), n - 1})
          for (bool nan : {false, true}) {
            const std::string ctx = context("%cpotrf uplo=%c n=%ld A(%ld,%ld)=%s %s%s", prefix<T>(), uplo, long(n),
                                            long(p), long(p), nan ? "NaN" : "-1", name(kind), hybrid ? " nb=64" : "");
            Matrix<T> a0 = hpd<T>(n, n + 2, uplo);
            a0(p, p) = nan ? T(std::numeric_limits<real_t<T>>::quiet_NaN()) : T(-1);
            Matrix<T> r = a0;
            const lint ref = potrf<T>(uplo, n, r.ptr(), r.ld, Lib::ref);
            Held<T> a(kind, a0);
            const lint info = potrf<T>(uplo, n, a.ptr(), a0.ld);
            assert_info(info, ref, ctx);
            assert_info(info, p + 1, ctx);
            const Matrix<T> f = a.matrix();
            assert_unchanged_outside(a0, f, uplo, ctx);
            if (p > 0) assert_ratio(factor_ratio(hermitian(block(a0, p, p), uplo), block(f, p, p), uplo), ctx + " leading");
          }
    });
}

// ---- potri --------------------------------------------------------------------------

// potri's results: inv, from the factor f of the Hermitian full (its uplo
// triangle), has the other triangle and the padding as f had them, and
// DPOT03's ||I - A*inv(A)||_1 / (n ||A||_1 ||inv(A)||_1 eps) passes.
template <class T>
void assert_inverse(const Matrix<T> &full, const Matrix<T> &f, const Matrix<T> &inv, char uplo, const std::string &ctx) {
  const lint n = full.n;
  assert_unchanged_outside(f, inv, uplo, ctx);
  const Matrix<T> h = hermitian(block(full, n, n), uplo), x = hermitian(block(inv, n, n), uplo);
  Matrix<T> r = identity<T>(n);
  subtract_product(r, h, 'N', x, 'N');
  assert_ratio(norm_one(r) / (double(n) * norm_one(h) * norm_one(x) * eps<T>()), ctx);
}

// DPOT03 from the reference LAPACK's factor.
template <class T> void potri_pinned(void **) {
  for (Memory kind : kinds())
    each_schedule([&](bool hybrid) {
      for (lint n : kOrders)
        for (char uplo : {'L', 'U'}) {
          const lint lda = n + 2;
          const std::string ctx =
              context("%cpotri uplo=%c n=%ld lda=%ld %s%s", prefix<T>(), uplo, long(n), long(lda), name(kind),
                      hybrid ? " nb=64" : "");
          const Matrix<T> full = hpd<T>(n, lda, uplo);
          Matrix<T> f0 = full;
          assert_info(potrf<T>(uplo, n, f0.ptr(), lda, Lib::ref), 0, ctx + " (reference potrf)");
          Held<T> a(kind, f0);
          call_ok<T>(kind, hybrid, "potri", ctx, [&] { return potri<T>(uplo, n, a.ptr(), lda); });
          assert_inverse(full, f0, a.matrix(), uplo, ctx);
        }
    });
}

// Order 4096 from pinned memory, past the staged trip: zpotri's packed
// triangle (134 MB) fits the 201 MB staging once but not both ways, and
// potrf's staged trip stops at 3072; a pinned caller's trip, whose results
// go home from the device, takes zpotri and single precision's potrf
// (potrf_hybrid.cu kOneTripPinned, one_trip.cuh triangle_trip_fits); the
// other kinds, and zpotrf, take the hybrids. Runs only where a GPU serves
// (on the CPU it would test nothing the orders above do not); the paths
// are checked as expect_path's, under HQR_GPU_MIN_N=0 on one GPU.
template <class T> void pinned_trip_4096(void **) {
  if (!cudart().loaded) skip();
  const lint n = 4096, lda = n + 1;
  for (Memory kind : kinds())
    for (char uplo : {'L', 'U'}) {
      const bool direct = kind == Memory::host_alloc || kind == Memory::registered;
      const std::string ctx = context("%cpotrf/%cpotri uplo=%c n=%ld lda=%ld %s", prefix<T>(), prefix<T>(), uplo,
                                      long(n), long(lda), name(kind));
      auto expect_trip = [&](bool trip, const std::string &line) {
        if (one_gpu_forced() && direct && trip != (line.find("path=gpu-one-trip") != std::string::npos))
          fail_msg("%s: %s the one trip: %s", ctx.c_str(), trip ? "not" : "unexpectedly", line.c_str());
      };
      const Matrix<T> full = hpd<T>(n, lda, uplo);
      Held<T> a(kind, full);
      lint info = -99;
      const std::string pre(1, prefix<T>());
      expect_trip(sizeof(real_t<T>) == 4,
                  expect_path(kind, false, pre + "potrf", ctx, [&] { info = potrf<T>(uplo, n, a.ptr(), lda); }));
      assert_info(info, 0, ctx);
      const Matrix<T> f = a.matrix();
      assert_unchanged_outside(full, f, uplo, ctx);
      assert_ratio(factor_ratio(hermitian(block(full, n, n), uplo), f, uplo), ctx);
      expect_trip(true, expect_path(kind, false, pre + "potri", ctx, [&] { info = potri<T>(uplo, n, a.ptr(), lda); }));
      assert_info(info, 0, ctx);
      assert_inverse(full, f, a.matrix(), uplo, ctx);
    }
}

// ---- trtri, lauum -------------------------------------------------------------------

// ||I - T*inv(T)||_1 / (n ||T||_1 ||inv(T)||_1 eps); with diag 'U' the
// diagonal neither read nor written.
template <class T> void trtri_pinned(void **) {
  for (Memory kind : kinds())
    each_schedule([&](bool hybrid) {
      for (lint n : kOrders)
        for (char uplo : {'L', 'U'})
          for (char diag : {'N', 'U'}) {
            const lint lda = n + 2;
            const std::string ctx = context("%ctrtri uplo=%c diag=%c n=%ld lda=%ld %s%s", prefix<T>(), uplo, diag,
                                            long(n), long(lda), name(kind), hybrid ? " nb=64" : "");
            const Matrix<T> a0 = random_triangle<T>(n, lda, uplo, diag);
            Held<T> a(kind, a0);
            call_ok<T>(kind, hybrid, "trtri", ctx, [&] { return trtri<T>(uplo, diag, n, a.ptr(), lda); });
            const Matrix<T> inv = a.matrix();
            assert_unchanged_outside(a0, inv, uplo, ctx, diag == 'U');
            const Matrix<T> t = triangle(block(a0, n, n), uplo, diag), x = triangle(block(inv, n, n), uplo, diag);
            Matrix<T> r = identity<T>(n);
            subtract_product(r, t, 'N', x, 'N');
            assert_ratio(norm_one(r) / (double(n) * norm_one(t) * norm_one(x) * eps<T>()), ctx);
          }
    });
}

// The product U U**H or L**H L against its definition, relative to its norm.
template <class T> void lauum_pinned(void **) {
  for (Memory kind : kinds())
    each_schedule([&](bool hybrid) {
      for (lint n : kOrders)
        for (char uplo : {'L', 'U'}) {
          const lint lda = n + 2;
          const std::string ctx = context("%clauum uplo=%c n=%ld lda=%ld %s%s", prefix<T>(), uplo, long(n), long(lda),
                                          name(kind), hybrid ? " nb=64" : "");
          Matrix<T> a0 = random_matrix<T>(n, n, lda);
          for (lint i = 0; i < n; ++i) a0(i, i) = T(std::real(a0(i, i)));  // a factor's real diagonal
          Held<T> a(kind, a0);
          call_ok<T>(kind, hybrid, "lauum", ctx, [&] { return lauum<T>(uplo, n, a.ptr(), lda); });
          const Matrix<T> got = a.matrix();
          assert_unchanged_outside(a0, got, uplo, ctx);
          assert_lauum_product(a0, got, uplo, ctx);
        }
    });
}

// ---- geqrf --------------------------------------------------------------------------

struct Shape {
  lint m, n;
};
constexpr Shape kShapes[] = {{1, 1}, {37, 20}, {20, 37}, {300, 129}, {129, 300}, {513, 513}};

// DQRT01 with Q formed by the reference LAPACK: ||R - Q^H A||_1 /
// (m ||A||_1 eps) and ||I - Q^H Q||_1 / (m eps); the padding untouched.
template <class T> void geqrf_pinned(void **) {
  for (Memory kind : kinds())
    each_schedule([&](bool hybrid) {
      for (const Shape &s : kShapes) {
        const lint m = s.m, n = s.n, k = std::min(m, n), lda = m + 3;
        const std::string ctx =
            context("%cgeqrf m=%ld n=%ld lda=%ld %s%s", prefix<T>(), long(m), long(n), long(lda), name(kind),
                    hybrid ? " nb=64" : "");
        const Matrix<T> a0 = random_matrix<T>(m, n, lda);
        Held<T> a(kind, a0);
        Matrix<T> tau0 = random_matrix<T>(k, 1);
        Held<T> tau(kind, tau0);
        T w = T(0);
        assert_info(geqrf<T>(m, n, a.ptr(), lda, tau.ptr(), &w, -1), 0, ctx + " (query)");
        std::vector<T> work(size_t(std::max<lint>(lint(std::real(w)), n)));
        call_ok<T>(kind, hybrid, "geqrf", ctx,
                   [&] { return geqrf<T>(m, n, a.ptr(), lda, tau.ptr(), work.data(), lint(work.size())); });
        const Matrix<T> qr = a.matrix();
        lint bi, bj;
        if (!unchanged_where(a0, qr, [](lint, lint) { return false; }, &bi, &bj))
          fail_msg("%s: padding A(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
        const Matrix<T> t = tau.matrix();
        std::vector<T> tv(t.data.begin(), t.data.begin() + k);
        Matrix<T> q(m, m);
        for (lint j = 0; j < m; ++j)
          for (lint i = 0; i < m; ++i) q(i, j) = j < k ? qr(i, j) : T(0);
        std::vector<T> qwork(size_t(64) * size_t(m));
        assert_info(orgqr<T>(m, m, k, q.ptr(), q.ld, tv.data(), qwork.data(), lint(qwork.size()), Lib::ref), 0,
                    ctx + " (reference orgqr)");
        Matrix<T> r = upper_trapezoid(block(qr, m, n));
        subtract_product(r, q, 'C', block(a0, m, n), 'N');
        assert_ratio(norm_one(r) / (double(m) * norm_one(block(a0, m, n)) * eps<T>()), ctx + " R - Q^H A");
        Matrix<T> e = identity<T>(m);
        subtract_product(e, q, 'C', q, 'N');
        assert_ratio(norm_one(e) / (double(m) * eps<T>()), ctx + " I - Q^H Q");
      }
    });
}

// ---- gels ---------------------------------------------------------------------------

// trans 'N' and 'T'/'C', m >= n and m < n, a consistent right-hand side:
// DQRT16 ||B - op(A) X||_1 / (max(m,n) ||A||_1 ||X||_1 eps); the padding
// untouched.
template <class T> void gels_pinned(void **) {
  for (Memory kind : kinds())
    each_schedule([&](bool hybrid) {
      for (const Shape &s : kShapes)
        for (char trans : {'N', trans_h<T>()}) {
          const lint m = s.m, n = s.n, nrhs = 3, lda = m + 2, ldb = std::max(m, n) + 1;
          const lint p = trans == 'N' ? m : n, q = trans == 'N' ? n : m;  // op(A) is p by q
          const char op = trans == 'N' ? 'N' : 'C';
          const std::string ctx = context("%cgels trans=%c m=%ld n=%ld nrhs=%ld %s%s", prefix<T>(), trans, long(m),
                                          long(n), long(nrhs), name(kind), hybrid ? " nb=64" : "");
          const Matrix<T> a0 = random_matrix<T>(m, n, lda), am = block(a0, m, n);
          Matrix<T> b0 = random_matrix<T>(std::max(m, n), nrhs, ldb);
          if (p > q) {
            const Matrix<T> bx = product(am, op, random_matrix<T>(q, nrhs), 'N');
            for (lint j = 0; j < nrhs; ++j)
              for (lint i = 0; i < p; ++i) b0(i, j) = bx(i, j);
          }
          Held<T> a(kind, a0), b(kind, b0);
          T w = T(0);
          assert_info(gels<T>(trans, m, n, nrhs, a.ptr(), lda, b.ptr(), ldb, &w, -1), 0, ctx + " (query)");
          std::vector<T> work(size_t(std::max<lint>(lint(std::real(w)), 1)));
          call_ok<T>(kind, hybrid, "gels", ctx, [&] {
            return gels<T>(trans, m, n, nrhs, a.ptr(), lda, b.ptr(), ldb, work.data(), lint(work.size()));
          });
          lint bi, bj;
          const Matrix<T> af = a.matrix(), bf = b.matrix();
          if (!unchanged_where(a0, af, [](lint, lint) { return false; }, &bi, &bj))
            fail_msg("%s: padding A(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
          if (!unchanged_where(b0, bf, [](lint, lint) { return false; }, &bi, &bj))
            fail_msg("%s: padding B(%ld,%ld) was changed", ctx.c_str(), long(bi), long(bj));
          const Matrix<T> x = block(bf, q, nrhs);
          Matrix<T> r = block(b0, p, nrhs);
          subtract_product(r, am, op, x, 'N');
          assert_ratio(norm_one(r) / (double(std::max(m, n)) * norm_one(am) * norm_one(x) * eps<T>()), ctx + " DQRT16");
        }
    });
}

// A NaN in A: INFO as the reference LAPACK's, and NaN in the solution as
// there (the GPU paths hand such calls to the CPU, which scales as LAPACK).
template <class T> void gels_nan(void **) {
  for (Memory kind : kinds())
    each_schedule([&](bool hybrid) {
      for (const Shape &s : {Shape{300, 129}, Shape{129, 300}}) {
        const lint m = s.m, n = s.n, nrhs = 2, ldb = std::max(m, n);
        const std::string ctx = context("%cgels m=%ld n=%ld NaN %s%s", prefix<T>(), long(m), long(n), name(kind),
                                        hybrid ? " nb=64" : "");
        Matrix<T> a0 = random_matrix<T>(m, n);
        a0(m / 2, n / 3) = T(std::numeric_limits<real_t<T>>::quiet_NaN());
        const Matrix<T> b0 = random_matrix<T>(ldb, nrhs);
        Matrix<T> ra = a0, rb = b0;
        std::vector<T> work(size_t(64) * size_t(m + n + nrhs));
        const lint ref = gels<T>('N', m, n, nrhs, ra.ptr(), m, rb.ptr(), ldb, work.data(), lint(work.size()), Lib::ref);
        Held<T> a(kind, a0), b(kind, b0);
        assert_info(gels<T>('N', m, n, nrhs, a.ptr(), m, b.ptr(), ldb, work.data(), lint(work.size())), ref, ctx);
        const Matrix<T> x = b.matrix();
        bool any_nan = false;
        for (lint i = 0; i < std::min(m, n); ++i) any_nan = any_nan || std::isnan(std::real(x(i, 0)));
        if (!any_nan) fail_msg("%s: no NaN in the solution", ctx.c_str());
      }
    });
}

// ---- the same address, pinned or not ---------------------------------------------------

// One array registered, unregistered and registered again between calls:
// each call sees it as it is then (nothing cached from the call before).
template <class T> void registered_then_not(void **) {
  if (!cudart().loaded) skip();
  const lint n = 300;
  const char uplo = 'L';
  const Matrix<T> a0 = hpd<T>(n, n, uplo);
  Held<T> a(Memory::pageable, a0);
  const size_t bytes = sizeof(T) * size_t(n) * size_t(n);
  for (int round = 0; round < 3; ++round) {
    const bool pinned = round != 1;
    const std::string ctx = context("%cpotrf n=%ld %s", prefix<T>(), long(n), pinned ? "registered" : "unregistered");
    if (pinned && cudart().host_register(a.ptr(), bytes, 0) != 0) fail_msg("%s: cudaHostRegister failed", ctx.c_str());
    std::memcpy(a.ptr(), a0.data.data(), bytes);
    call_ok<T>(pinned ? Memory::registered : Memory::pageable, false, "potrf", ctx,
               [&] { return potrf<T>(uplo, n, a.ptr(), n); });
    if (pinned) cudart().host_unregister(a.ptr());
    assert_ratio(factor_ratio(hermitian(a0, uplo), a.matrix(), uplo), ctx);
  }
}

// ---- memory the device may only read ------------------------------------------------

// Registered with cudaHostRegisterReadOnly (where the device supports it):
// potrf's one trip, which stores through the device, must not take it (a
// device write there is a fatal fault for the whole process, so this runs
// last); the hybrid only reads it by DMA and takes it.
template <class T> void read_only_registration(void **) {
  if (!cudart().loaded) skip();
  {  // supported here?
    void *probe = nullptr;
    if (posix_memalign(&probe, 4096, 8192) != 0) fail_msg("posix_memalign");
    const bool supported = cudart().host_register(probe, 8192, 8 /* cudaHostRegisterReadOnly */) == 0;
    if (supported) cudart().host_unregister(probe);
    cudart().get_last_error();
    std::free(probe);
    if (!supported) skip();
  }
  const lint n = 300;
  each_schedule([&](bool hybrid) {
    for (char uplo : {'L', 'U'}) {
      const std::string ctx = context("%cpotrf uplo=%c n=%ld %s%s", prefix<T>(), uplo, long(n), name(Memory::read_only),
                                      hybrid ? " nb=64" : "");
      const Matrix<T> a0 = hpd<T>(n, n + 1, uplo);
      auto a = std::make_unique<Held<T>>(Memory::read_only, a0);
      call_ok<T>(Memory::read_only, hybrid, "potrf", ctx, [&] { return potrf<T>(uplo, n, a->ptr(), a0.ld); });
      const Matrix<T> f = a->matrix();
      assert_unchanged_outside(a0, f, uplo, ctx);
      assert_ratio(factor_ratio(hermitian(block(a0, n, n), uplo), f, uplo), ctx);
    }
  });
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(potrf_pinned<float>),
      cmocka_unit_test(potrf_pinned<double>),
      cmocka_unit_test(potrf_pinned<std::complex<float>>),
      cmocka_unit_test(potrf_pinned<std::complex<double>>),
      cmocka_unit_test(potrf_failures<double>),
      cmocka_unit_test(potrf_failures<std::complex<float>>),
      cmocka_unit_test(potri_pinned<float>),
      cmocka_unit_test(potri_pinned<double>),
      cmocka_unit_test(potri_pinned<std::complex<float>>),
      cmocka_unit_test(potri_pinned<std::complex<double>>),
      cmocka_unit_test(pinned_trip_4096<float>),
      cmocka_unit_test(pinned_trip_4096<std::complex<double>>),
      cmocka_unit_test(trtri_pinned<float>),
      cmocka_unit_test(trtri_pinned<double>),
      cmocka_unit_test(trtri_pinned<std::complex<float>>),
      cmocka_unit_test(trtri_pinned<std::complex<double>>),
      cmocka_unit_test(lauum_pinned<double>),
      cmocka_unit_test(lauum_pinned<std::complex<float>>),
      cmocka_unit_test(geqrf_pinned<float>),
      cmocka_unit_test(geqrf_pinned<double>),
      cmocka_unit_test(geqrf_pinned<std::complex<float>>),
      cmocka_unit_test(geqrf_pinned<std::complex<double>>),
      cmocka_unit_test(gels_pinned<float>),
      cmocka_unit_test(gels_pinned<double>),
      cmocka_unit_test(gels_pinned<std::complex<float>>),
      cmocka_unit_test(gels_pinned<std::complex<double>>),
      cmocka_unit_test(gels_nan<double>),
      cmocka_unit_test(registered_then_not<double>),
      cmocka_unit_test(read_only_registration<double>),
  };
  if (const char *f = std::getenv("HQR_TEST_FILTER")) cmocka_set_test_filter(f);
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
