// What the hybrid paths' host threads (uploader, factor loop, downloader)
// share: the rectangle a transfer moves, how a block of the caller's array
// goes up, the counter by which one thread tells another how many block
// columns are ready, and the order in which late block columns catch up
// with the updates (geqrf).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "cuda/context.hpp"
#include "host/common.hpp"
#include "host/fault.hpp"

namespace hqr::gpu {

// A rectangle of the matrix: rows r0..r0+m-1, columns c0..c0+n-1.
struct Rect {
  lint r0, c0, m, n;
};

// Caller -> device: an m-by-n block of elem-byte elements (leading
// dimensions lds, ldd) on `stream`. Straight from the caller by DMA where
// its memory is pinned (pinned.hpp); else through the next upload slot
// (`slot` counts them): wait for the slot's last DMA, copy into it, DMA.
// check(status, point) is the path's step check; the slot's event record
// counts as `record` for HQR_FAULT.
template <class Check>
bool upload_block(Context &c, bool pinned, int &slot, std::size_t elem, lint m, lint n, const void *src, lint lds,
                  void *dst, lint ldd, cudaStream_t stream, Check &&check,
                  fault::Point record = fault::Point::copy) {
  if (pinned)
    return check(cudaMemcpy2DAsync(dst, ldd * elem, src, lds * elem, m * elem, n, cudaMemcpyHostToDevice, stream),
                 fault::Point::copy);
  StagingSlot &s = c.upload_slots[slot++ % Context::kSlots];
  if (!check(cudaEventSynchronize(s.dma_done), fault::Point::sync)) return false;
  copy_block(c.upload_copies, elem, m, n, src, lds, s.host, m);
  return check(cudaMemcpy2DAsync(dst, ldd * elem, s.host, m * elem, m * elem, n, cudaMemcpyHostToDevice, stream),
               fault::Point::copy) &&
         check(cudaEventRecord(s.dma_done, stream), record);
}

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

// The updates that bring block columns j0..j1-1 up to date with block
// reflectors 0..p, where applied[j] counts those column j has had already
// and does not grow with j (columns join the updates in the order they
// arrive): reflector q goes to the trailing run of columns that have had
// at most q, a run that grows with q. Calls apply(q, first column of the
// run) for each q in order, then marks the columns as having had p+1.
template <class F> bool catch_up_plan(std::vector<lint> &applied, lint j0, lint j1, lint p, F apply) {
  if (j0 >= j1) return true;
  for (lint q = applied[j1 - 1]; q <= p; ++q) {
    lint j = j0;
    while (applied[j] > q) ++j;
    if (!apply(q, j)) return false;
  }
  std::fill(applied.begin() + j0, applied.begin() + j1, p + 1);
  return true;
}

}  // namespace hqr::gpu
