// A small pool of persistent host threads for splitting one copy between
// pageable and pinned memory into pieces that run at once. The thread that
// calls run() works too and returns when every piece is done.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hqr {

class CopyPool {
 public:
  explicit CopyPool(int threads) : threads_(threads > 1 ? threads : 1) {}
  ~CopyPool();
  CopyPool(const CopyPool &) = delete;
  CopyPool &operator=(const CopyPool &) = delete;

  int threads() const { return threads_; }
  // Runs fn(0) ... fn(pieces-1), spread over the pool and the caller.
  void run(int pieces, const std::function<void(int)> &fn);

 private:
  void start();
  void worker();

  const int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)> *job_ = nullptr;
  int pieces_ = 0, next_ = 0, finished_ = 0;
  unsigned generation_ = 0;
  bool stop_ = false;
};

// memcpy with non-temporal stores, for data the CPU will not read soon; a
// thread calls store_fence() after its last one, before others may read.
void stream_copy(void *dst, const void *src, std::size_t bytes);
void store_fence();

// Copies an m-by-n column-major block between two leading dimensions with
// `pool`, in pieces split by bytes, with non-temporal stores; for filling
// staging that a DMA reads next.
void copy_block(CopyPool &pool, std::size_t elem, std::size_t m, std::size_t n, const void *src, std::size_t lds,
                void *dst, std::size_t ldd);

}  // namespace hqr
