#include "host/copy_pool.hpp"

#include <cstring>

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
  wake_.notify_all();
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

void copy_block(CopyPool &pool, std::size_t elem, std::size_t m, std::size_t n, const void *src, std::size_t lds,
                void *dst, std::size_t ldd) {
  const std::size_t col = m * elem;
  // Pieces of at least ~1 MiB so that thread hand-off stays cheap.
  const std::size_t per = col >= (std::size_t(1) << 20) ? 1 : ((std::size_t(1) << 20) + col - 1) / col;
  std::size_t pieces = (n + per - 1) / per;
  const std::size_t max_pieces = std::size_t(pool.threads()) * 4;
  if (pieces > max_pieces) pieces = max_pieces;
  const std::size_t cols_per = (n + pieces - 1) / pieces;
  pool.run(static_cast<int>(pieces), [&](int p) {
    const std::size_t j0 = std::size_t(p) * cols_per;
    const std::size_t j1 = j0 + cols_per < n ? j0 + cols_per : n;
    const char *s = static_cast<const char *>(src);
    char *d = static_cast<char *>(dst);
    for (std::size_t j = j0; j < j1; ++j) std::memcpy(d + j * ldd * elem, s + j * lds * elem, col);
  });
}

}  // namespace hqr
