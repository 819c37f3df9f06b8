#include "host/copy_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace hqr {

CopyPool::~CopyPool() {
  {
    std::lock_guard<std::mutex> g(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto &t : workers_) t.join();
}

void CopyPool::start() {
  for (int i = 1; i < threads_; ++i) workers_.emplace_back([this] { worker(); });
}

void CopyPool::worker() {
  unsigned seen = 0;
  std::unique_lock<std::mutex> g(mutex_);
  for (;;) {
    wake_.wait(g, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    while (next_ < pieces_) {
      const int i = next_++;
      const auto *job = job_;
      g.unlock();
      (*job)(i);
      g.lock();
      if (++finished_ == pieces_) done_.notify_all();
    }
  }
}

void CopyPool::run(int pieces, const std::function<void(int)> &fn) {
  if (pieces <= 0) return;
  if (pieces == 1 || threads_ == 1) {
    for (int i = 0; i < pieces; ++i) fn(i);
    return;
  }
  std::unique_lock<std::mutex> g(mutex_);
  if (workers_.empty()) start();  // threads start on first use
  job_ = &fn;
  pieces_ = pieces;
  next_ = finished_ = 0;
  ++generation_;
  // With fewer pieces than threads, only as many workers as there are
  // pieces beside the caller's first: the others would only wake to
  // contend for the lock, the caller's included.
  if (pieces >= threads_)
    wake_.notify_all();
  else
    for (int i = pieces - 1; i > 0; --i) wake_.notify_one();
  while (next_ < pieces_) {
    const int i = next_++;
    g.unlock();
    fn(i);
    g.lock();
    ++finished_;
  }
  done_.wait(g, [&] { return finished_ == pieces_; });
  job_ = nullptr;
  pieces_ = 0;
}

// memcpy with non-temporal stores: staging and result copies are written
// once and read by the DMA engine or the caller much later, so bypassing the
// cache saves the read-for-ownership of every destination line (a quarter of
// the memory traffic of a pageable <-> pinned copy). SSE2 is baseline x86-64.
void stream_copy(void *dst, const void *src, std::size_t bytes) {
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
#if defined(__x86_64__)
  const std::size_t head = (16 - reinterpret_cast<std::uintptr_t>(d) % 16) % 16;
  if (bytes < head + 64) {
    std::memcpy(d, s, bytes);
    return;
  }
  std::memcpy(d, s, head);
  d += head, s += head, bytes -= head;
  std::size_t i = 0;
  for (; i + 64 <= bytes; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i *>(d + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i *>(d + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i *>(d + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i *>(d + i + 48), e);
  }
  std::memcpy(d + i, s + i, bytes - i);
#else
  std::memcpy(d, s, bytes);
#endif
}

void store_fence() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

void copy_block(CopyPool &pool, std::size_t elem, std::size_t m, std::size_t n, const void *src, std::size_t lds,
                void *dst, std::size_t ldd) {
  const std::size_t col = m * elem;
  // One piece per thread, split by bytes (so that a few long columns still
  // spread over every thread), and none under ~256 KiB so that hand-off
  // stays cheap: one round, no stragglers. Non-temporal stores: with
  // results streaming out at the same time they measured faster on the H200
  // host (bench/bench_copy.cpp, 16 threads each way: 22 GB/s each way
  // against 20 with ordinary stores; alone, ordinary stores win, 54 to 42).
  const std::size_t total = col * n;
  std::size_t pieces = std::min<std::size_t>(pool.threads(), (total >> 18) + 1);
  pool.run(static_cast<int>(pieces), [&](int p) {
    const std::size_t b0 = total * std::size_t(p) / pieces, b1 = total * std::size_t(p + 1) / pieces;
    const char *s = static_cast<const char *>(src);
    char *d = static_cast<char *>(dst);
    for (std::size_t j = b0 / col; j * col < b1; ++j) {
      const std::size_t lo = std::max(b0, j * col) - j * col, hi = std::min(b1, (j + 1) * col) - j * col;
      stream_copy(d + j * ldd * elem + lo, s + j * lds * elem + lo, hi - lo);
    }
    store_fence();  // the streamed stores are visible before the DMA starts
  });
}

}  // namespace hqr
