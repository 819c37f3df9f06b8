// What the hybrid paths' host threads (uploader, factor loop, downloader)
// share: the rectangle a transfer moves, and the counter by which one thread
// tells another how many block columns are ready.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "host/common.hpp"

namespace hqr::gpu {

// A rectangle of the matrix: rows r0..r0+m-1, columns c0..c0+n-1.
struct Rect {
  lint r0, c0, m, n;
};

// Counts block columns (panels) handed from one thread to another.
class Progress {
 public:
  void publish(lint k) {
    {
      std::lock_guard<std::mutex> g(m_);
      done_ = k;
    }
    cv_.notify_all();
  }
  // Waits until more than k are published or `stop` is set; false when
  // stopped first.
  bool wait_past(lint k, const std::atomic<bool> &stop) {
    std::unique_lock<std::mutex> g(m_);
    cv_.wait(g, [&] { return done_ > k || stop.load(); });
    return done_ > k;
  }
  lint done() {
    std::lock_guard<std::mutex> g(m_);
    return done_;
  }
  // Takes the lock so that a waiter between its check and its sleep cannot
  // miss the wake-up.
  void wake() {
    { std::lock_guard<std::mutex> g(m_); }
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  lint done_ = 0;
};

}  // namespace hqr::gpu
