// The orders in which a device set's members share and store a call's
// work (node.hpp's schedules), apart from CUDA so that CI tests them
// (test/test_set_order.cpp): which member stores when, and how xORGQR's
// columns are dealt out.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <vector>

#include "host/common.hpp"

namespace hqr {

// Whose turn it is to store into the caller's array: panels in order, and
// none from the first one whose pivot failed.
class StoreTurn {
 public:
  // Waits until panel k may be stored; false when it never will be.
  bool wait(lint k, const std::atomic<bool> &failed) {
    std::unique_lock<std::mutex> g(m_);
    cv_.wait(g, [&] { return next_ == k || k >= stop_at_ || failed.load(); });
    return next_ == k && k < stop_at_ && !failed.load();
  }
  void done(lint k) {
    {
      std::lock_guard<std::mutex> g(m_);
      next_ = k + 1;
    }
    cv_.notify_all();
  }
  // Panel k's pivot failed: nothing from k on is stored.
  void stop_at(lint k) {
    {
      std::lock_guard<std::mutex> g(m_);
      stop_at_ = std::min(stop_at_, k);
    }
    cv_.notify_all();
  }
  void wake() {
    { std::lock_guard<std::mutex> g(m_); }
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  lint next_ = 0, stop_at_ = std::numeric_limits<lint>::max();
};

// The order in which the members store: the last range first. A member's
// columns hold reflectors every later range needs until that range is
// stored (or, after a failure, until the CPU has formed it), so member d
// stores once every member after it has stored all its columns, and never
// once one of them failed.
class RightToLeft {
 public:
  explicit RightToLeft(int members) : next_(members - 1) {}
  // Waits until member d may store (true), or never will (false: a member
  // after it failed). Each member calls done() once, stored or not.
  bool wait(int d) {
    std::unique_lock<std::mutex> g(m_);
    cv_.wait(g, [&] { return next_ == d || failed_at_ > d; });
    return next_ == d && failed_at_ < d;
  }
  void done(int d, bool fine) {
    {
      std::lock_guard<std::mutex> g(m_);
      if (!fine)
        failed_at_ = std::max(failed_at_, d);
      else if (next_ == d)
        next_ = d - 1;
    }
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int next_, failed_at_ = -1;
};

// Q's columns in one contiguous range per member, ranges[d]..ranges[d+1]-1,
// of about equal work: column j takes reflectors 1..min(k, j+1), each
// costing about its length, so the ranges narrow to the right. 1 <= P <= n.
inline std::vector<lint> q_column_ranges(lint m, lint n, lint k, int P) {
  auto work = [&](lint j) {
    const double kk = double(std::min(k, j + 1));
    return kk * double(m) - kk * kk / 2;
  };
  double total = 0;
  for (lint j = 0; j < n; ++j) total += work(j);
  std::vector<lint> r(static_cast<std::size_t>(P) + 1, n);
  r[0] = 0;
  double sum = 0;
  int d = 1;
  for (lint j = 0; j < n && d < P; ++j) {
    sum += work(j);
    // at least one column each: the range closes at its share or where the
    // members after it need the columns left
    if (sum >= total * d / P || n - (j + 1) == P - d) r[std::size_t(d++)] = j + 1;
  }
  return r;
}

}  // namespace hqr
