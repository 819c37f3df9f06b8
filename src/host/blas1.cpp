// Level-1 BLAS xCOPY (s, d, c, z): y := x, N elements, x(i) at X(1 +
// (i-1)*INCX) for INCX > 0, at X(1 + (N-i)*|INCX|) for INCX < 0, the same for
// y; INCX = 0 copies X(1) to every element; N <= 0 is a quick return (the
// reference BLAS 3.11's contract; it reports no illegal argument).
//
// Why hqr answers it: pip's numpy copies every matrix into and out of its
// LAPACK calls one row at a time (numpy's linearize/delinearize in
// _umath_linalg, through the wheel's `scipy_dcopy_64_`), each row a copy
// whose source or destination steps a whole row (16384 elements apart at
// 16384 x 16384). Every element of such a copy lies in a page and a cache line
// of its own, and one thread waits for them one after another: 16384 such
// copies took OpenBLAS 6.6 s (source strided) and 9.8 s (destination
// strided) per pass on the H200 host, where hqr's dpotrf of that matrix
// takes 0.06 s (bench/results/blas1-copy-NVIDIA-H200-2026-12-04.txt). So
// long strided copies are split over a pool of threads (StripePool), the
// t-th range of elements always on thread t: numpy's next row touches the
// same pages and cache lines again, in the same core's TLB and caches. 16
// threads there: 1.0 s and 1.5 s per pass (np.linalg.cholesky of 16384: 2.8
// s against 21.5). Short or contiguous copies run on the calling thread.
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <complex>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "common.hpp"
#include "config.hpp"

namespace hqr {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

// Persistent threads that run part t of a job on thread t (0: the caller).
// A worker spins for a while after each part before it sleeps, because
// numpy's copies come one after another, each a few tens of microseconds
// apart; a sleeping worker costs a futex wake-up per copy. A job reaches
// the spinning workers through one atomic word (its generation and part
// count): had each worker taken a mutex to read the job, 15 of them would
// queue on it at every copy, each waiting for the last to be woken. A part
// is claimed before it runs, and the caller, done with part 0, runs every
// part whose thread has not claimed it yet: on a busy host a descheduled
// worker would otherwise hold up each copy for a scheduler time slice. The
// pool lives as long as the process (stripe_pool), so its threads are never
// joined.
class StripePool {
 public:
  // As many threads as the system gives, up to `threads` (the caller is one).
  explicit StripePool(int threads) {
    try {
      for (; threads_ < threads; ++threads_) std::thread([this, t = threads_] { work(t); }).detach();
    } catch (...) {  // no more threads: the parts are fewer
    }
  }
  StripePool(const StripePool &) = delete;
  StripePool &operator=(const StripePool &) = delete;

  int threads() const { return threads_; }
  // fn(0) .. fn(parts-1), parts <= threads(); false where another caller
  // holds the pool (the caller then does the work itself).
  bool run(int parts, const std::function<void(int)> &fn) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    // Read by this job's parts only, which all finish before run returns.
    job_ = &fn;
    finished_.store(0, std::memory_order_relaxed);
    const std::uint64_t next =
        ((state_.load(std::memory_order_relaxed) >> kPartBits) + 1) << kPartBits | std::uint64_t(parts);
    {
      std::lock_guard<std::mutex> g(sleep_);  // a worker about to sleep reads state_ under it
      state_.store(next, std::memory_order_release);
    }
    if (sleepers_.load(std::memory_order_acquire) > 0) wake_.notify_all();
    fn(0);
    for (int t = 1; t < parts; ++t)
      if (claim(t, generation(next))) {
        fn(t);
        finished_.fetch_add(1, std::memory_order_release);
      }
    // The other parts take about as long as this one: spin, do not sleep.
    while (finished_.load(std::memory_order_acquire) != parts - 1) cpu_relax();
    return true;
  }

 private:
  static constexpr std::chrono::microseconds kSpin{200};
  static constexpr int kPartBits = 8;  // parts <= 64
  static std::uint64_t generation(std::uint64_t state) { return state >> kPartBits; }
  // Part t of job `gen`, for whoever comes first. A job ends only when all
  // its parts are claimed (and done), so a claim that succeeds is for the
  // job in progress, whose job_ is still the caller's.
  bool claim(int t, std::uint64_t gen) {
    std::uint64_t had = claimed_[t].gen.load(std::memory_order_relaxed);
    while (had < gen)
      if (claimed_[t].gen.compare_exchange_weak(had, gen, std::memory_order_acq_rel)) return true;
    return false;
  }
  void work(int t) {
    std::uint64_t seen = 0, now_state = 0;
    for (;;) {
      const auto until = std::chrono::steady_clock::now() + kSpin;
      while (generation(now_state = state_.load(std::memory_order_acquire)) == generation(seen) &&
             std::chrono::steady_clock::now() < until)
        for (int i = 0; i < 8; ++i) cpu_relax();
      if (generation(now_state) == generation(seen)) {
        std::unique_lock<std::mutex> g(sleep_);
        sleepers_.fetch_add(1, std::memory_order_acq_rel);
        wake_.wait(g, [&] {
          return generation(now_state = state_.load(std::memory_order_acquire)) != generation(seen);
        });
        sleepers_.fetch_sub(1, std::memory_order_acq_rel);
      }
      // A worker late for a job finds its part taken (claim), or sees a
      // later job's word and takes its part there.
      seen = now_state;
      if (t < int(now_state & ((1u << kPartBits) - 1)) && claim(t, generation(now_state))) {
        (*job_)(t);
        finished_.fetch_add(1, std::memory_order_release);
      }
    }
  }

  int threads_ = 1;
  std::mutex busy_;   // one caller at a time
  std::mutex sleep_;  // workers going to sleep, and the job word's store
  std::condition_variable wake_;
  std::atomic<std::uint64_t> state_{0};  // generation << kPartBits | parts
  struct alignas(64) Claim {
    std::atomic<std::uint64_t> gen{0};  // the last job whose part this is claimed in
  } claimed_[64];
  std::atomic<int> finished_{0}, sleepers_{0};
  const std::function<void(int)> *job_ = nullptr;
};

// The process's pool, created on first use, then found with one atomic load
// (no lock, no getpid() system call on each copy). A child of fork() has none
// of its parent's threads: the atfork handler forgets the parent's pool there
// (left alone, never used again: its mutexes may have been held at the fork),
// and the child's first striped copy makes its own.
std::atomic<StripePool *> the_pool{nullptr};
std::mutex the_pool_mutex;
StripePool *stripe_pool() {
  if (StripePool *pool = the_pool.load(std::memory_order_acquire)) return pool;
  std::lock_guard<std::mutex> g(the_pool_mutex);
  if (StripePool *pool = the_pool.load(std::memory_order_relaxed)) return pool;
  static const bool registered = pthread_atfork(nullptr, nullptr, [] {
    new (&the_pool_mutex) std::mutex;  // held by a parent thread at the fork, perhaps
    the_pool.store(nullptr, std::memory_order_relaxed);
  }) == 0;
  if (!registered) return nullptr;  // a child could not tell its parent's pool: copy alone
  const int cores = int(std::thread::hardware_concurrency());
  const int limit = config::cpu_threads();
  StripePool *pool = new (std::nothrow) StripePool(std::min(limit > 0 ? limit : cores, 64));  // never deleted: see above
  the_pool.store(pool, std::memory_order_release);
  return pool;  // null: no memory; the caller copies alone (and the next copy tries again)
}

// Copies shorter than this, or with both strides 1, stay on the calling
// thread (as do copies that overlap themselves): a strided element costs a cache (and TLB) miss, ~20-50 ns, so at
// 4096 elements the copy outlasts the pool's hand-off several times.
constexpr lint kStripedMin = 4096;
constexpr lint kStripeMin = 512;  // elements per part

// Whether the n elements of x and of y (element 0 at x0, y0) lie in
// disjoint address ranges.
template <class T> bool apart(lint n, const T *x0, lint incx, const T *y0, lint incy) {
  auto span = [n](const T *p, lint inc) {
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p),
                         b = reinterpret_cast<std::uintptr_t>(p + std::ptrdiff_t(n - 1) * inc);
    return std::make_pair(std::min(a, b), std::max(a, b) + sizeof(T));
  };
  const auto [xa, xb] = span(x0, incx);
  const auto [ya, yb] = span(y0, incy);
  return xb <= ya || yb <= xa;
}

// Elements i0..i1-1 in order (memmove where both strides are 1: overlapping
// vectors, which the BLAS leaves undefined, at least copy as a whole).
template <class T> void copy_range(lint i0, lint i1, const T *x, lint incx, T *y, lint incy) {
  if (incx == 1 && incy == 1) {
    std::memmove(y + i0, x + i0, std::size_t(i1 - i0) * sizeof(T));
    return;
  }
  // Four loads before their stores, so that four misses are in flight;
  // indices, so that no pointer steps past a vector's ends (ptrdiff_t: LP64's
  // int products would overflow past 2^31 elements).
  const std::ptrdiff_t ix = incx, iy = incy;
  std::ptrdiff_t i = i0;
  for (; i + 4 <= i1; i += 4) {
    const T *xs = x + i * ix;
    const T a0 = xs[0], a1 = xs[ix], a2 = xs[2 * ix], a3 = xs[3 * ix];
    T *ys = y + i * iy;
    ys[0] = a0, ys[iy] = a1, ys[2 * iy] = a2, ys[3 * iy] = a3;
  }
  for (; i < i1; ++i) y[i * iy] = x[i * ix];
}

}  // namespace

template <class T> void copy(const lint *n_, const T *x, const lint *incx_, T *y, const lint *incy_) {
  const lint n = *n_, incx = *incx_, incy = *incy_;
  if (n <= 0) return;
  // Element i of a vector with a negative increment lies at (i - (n-1)) * inc.
  const T *x0 = incx < 0 ? x - std::ptrdiff_t(n - 1) * incx : x;
  T *y0 = incy < 0 ? y - std::ptrdiff_t(n - 1) * incy : y;
  // Striped only where the order of the element copies cannot matter: y's
  // elements distinct (INCY = 0 leaves the last x) and apart from x's.
  const bool strided = (incx != 1 && incx != 0) || incy != 1;
  if (n >= kStripedMin && strided && incy != 0 && apart(n, x0, incx, y0, incy)) {
    StripePool *pool = stripe_pool();
    const int parts = pool ? int(std::min<lint>(pool->threads(), n / kStripeMin)) : 1;
    if (parts > 1 && pool->run(parts, [&](int t) {
          copy_range(lint(std::int64_t(n) * t / parts), lint(std::int64_t(n) * (t + 1) / parts), x0, incx, y0, incy);
        }))
      return;
  }
  copy_range<T>(0, n, x0, incx, y0, incy);
}

template void copy(const lint *, const float *, const lint *, float *, const lint *);
template void copy(const lint *, const double *, const lint *, double *, const lint *);
template void copy(const lint *, const std::complex<float> *, const lint *, std::complex<float> *, const lint *);
template void copy(const lint *, const std::complex<double> *, const lint *, std::complex<double> *, const lint *);

}  // namespace hqr

#pragma GCC visibility push(default)
extern "C" {
void scopy_(const lapack_int *n, const float *x, const lapack_int *incx, float *y, const lapack_int *incy) {
  hqr::copy(n, x, incx, y, incy);
}
void dcopy_(const lapack_int *n, const double *x, const lapack_int *incx, double *y, const lapack_int *incy) {
  hqr::copy(n, x, incx, y, incy);
}
void ccopy_(const lapack_int *n, const lapack_complex_float *x, const lapack_int *incx, lapack_complex_float *y,
            const lapack_int *incy) {
  hqr::copy(n, hqr::cx(x), incx, hqr::cx(y), incy);
}
void zcopy_(const lapack_int *n, const lapack_complex_double *x, const lapack_int *incx, lapack_complex_double *y,
            const lapack_int *incy) {
  hqr::copy(n, hqr::cx(x), incx, hqr::cx(y), incy);
}
}
#pragma GCC visibility pop
