// The orders the device set's schedules keep (src/host/set_order.hpp),
// tested here because CI has no GPU to run the schedules themselves:
// StoreTurn lets pieces store one at a time in order and none from a
// stopped one; RightToLeft lets xORGQR's members store last range first,
// and after a failure only the members after the failed one; the ranges
// of Q's columns cover every column once, none empty, of about equal work.
// Threads store in random order with random delays, many times. Also the
// host's A**H of xGELS with m < n over the set (src/host/transpose.hpp).
#include "testing.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "host/set_order.hpp"
#include "host/transpose.hpp"

namespace {

using hqr::lint;

void nap() {
  const unsigned r = unsigned(testing::rng()() % 4);
  if (r) std::this_thread::sleep_for(std::chrono::microseconds(r * 50));
}

// Pieces dealt to threads round-robin, each thread taking its pieces in
// order (as a member takes its block columns), the turn stopped at `stop`
// (none if past the last) or failed at `fail`.
void store_turn(void **) {
  for (int run = 0; run < 300; ++run) {
    const int pieces = 1 + int(testing::rng()() % 12), threads = 1 + int(testing::rng()() % 4);
    const int stop = int(testing::rng()() % (pieces + 3)), fail = int(testing::rng()() % (pieces + 3));
    hqr::StoreTurn turn;
    std::atomic<bool> failed{false};
    if (stop < pieces) turn.stop_at(stop);
    std::mutex m;
    std::vector<int> order;
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
      ts.emplace_back([&, t] {
        for (int k = t; k < pieces; k += threads) {
          nap();
          if (!turn.wait(k, failed)) return;
          if (k == fail) {  // this piece's store fails: nothing after it is stored
            failed = true;
            turn.wake();
            return;
          }
          {
            std::lock_guard<std::mutex> g(m);
            order.push_back(k);
          }
          turn.done(k);
        }
      });
    for (std::thread &t : ts) t.join();
    const int want = std::min({pieces, stop, fail});
    if (int(order.size()) != want) fail_msg("run %d: %zu pieces stored, expected %d", run, order.size(), want);
    for (int i = 0; i < int(order.size()); ++i)
      if (order[size_t(i)] != i) fail_msg("run %d: piece %d stored %d-th", run, order[size_t(i)], i);
  }
}

// Members 0..P-1 store right to left; member `fail` (none if >= P) fails
// before storing: the members after it still store, in order, and none
// before it does.
void right_to_left(void **) {
  for (int run = 0; run < 300; ++run) {
    const int P = 1 + int(testing::rng()() % 8), fail = int(testing::rng()() % (P + 2));
    hqr::RightToLeft order(P);
    std::mutex m;
    std::vector<int> stored;
    std::vector<char> refused(size_t(P), 0);
    std::vector<std::thread> ts;
    for (int d = 0; d < P; ++d)
      ts.emplace_back([&, d] {
        nap();
        if (d == fail) {
          order.done(d, false);
          return;
        }
        if (!order.wait(d)) {
          refused[size_t(d)] = 1;
          order.done(d, false);
          return;
        }
        nap();
        {
          std::lock_guard<std::mutex> g(m);
          stored.push_back(d);
        }
        order.done(d, true);
      });
    for (std::thread &t : ts) t.join();
    const int lowest = fail < P ? fail + 1 : 0;  // the members that store: lowest..P-1
    if (int(stored.size()) != P - lowest) fail_msg("run %d (P %d, fail %d): %zu stored", run, P, fail, stored.size());
    for (size_t i = 0; i < stored.size(); ++i)
      if (stored[i] != P - 1 - int(i)) fail_msg("run %d: member %d stored %zu-th", run, stored[i], i);
    for (int d = 0; d < P; ++d)
      if (fail < P && d < fail && !refused[size_t(d)]) fail_msg("run %d: member %d below the failed %d stored", run, d, fail);
  }
}

// Every column in exactly one range, none empty, and no range's work past
// an equal share by more than its last column's.
void column_ranges(void **) {
  for (int run = 0; run < 2000; ++run) {
    const lint n = 1 + lint(testing::rng()() % 300), m = n + lint(testing::rng()() % 300);
    const lint k = 1 + lint(testing::rng()() % n);
    const int P = 1 + int(testing::rng()() % std::min<lint>(n, 9));
    const std::vector<lint> r = hqr::q_column_ranges(m, n, k, P);
    if (r.size() != size_t(P) + 1 || r[0] != 0 || r[size_t(P)] != n)
      fail_msg("m %ld n %ld k %ld P %d: ranges do not cover 0..n", long(m), long(n), long(k), P);
    // Column j takes reflectors 1..min(k, j+1): kk*m - kk^2/2, the measure
    // q_column_ranges balances (the exact count of their elements is kk/2
    // more; with it, m 267 n 233 k 202 P 9 put a range 194 past the bound).
    auto work = [&](lint j) {
      const double kk = double(std::min(k, j + 1));
      return kk * double(m) - kk * kk / 2;
    };
    double total = 0;
    for (lint j = 0; j < n; ++j) total += work(j);
    for (int d = 0; d < P; ++d) {
      const lint a = r[size_t(d)], b = r[size_t(d) + 1];
      if (b <= a) fail_msg("m %ld n %ld k %ld P %d: range %d is [%ld, %ld)", long(m), long(n), long(k), P, d, long(a), long(b));
      double w = 0;
      for (lint j = a; j < b; ++j) w += work(j);
      if (w > total / P + work(b - 1) + 1e-9 * total)
        fail_msg("m %ld n %ld k %ld P %d: range %d has %.0f of %.0f", long(m), long(n), long(k), P, d, w, total);
    }
  }
}

// B = A**H exactly, on one thread and several (tiles of 64 split by
// threads, ragged edges), B's padding untouched; A**H of A**H is A.
template <class T> void transpose_of() {
  for (auto [m, n] : {std::pair<lint, lint>{1, 1}, {1, 70}, {70, 1}, {63, 65}, {130, 257}, {2100, 700}}) {
    const lint lda = m + 3, ldb = n + 2;
    testing::Matrix<T> a = testing::random_matrix<T>(m, n, lda);
    testing::Matrix<T> b = testing::random_matrix<T>(n, m, ldb), back = testing::random_matrix<T>(m, n, lda);
    const testing::Matrix<T> b0 = b;
    hqr::conj_transpose(m, n, a.ptr(), lda, b.ptr(), ldb);
    for (lint j = 0; j < m; ++j)
      for (lint i = 0; i < ldb; ++i)
        if (i < n ? !(b(i, j) == testing::cj(a(j, i))) : std::memcmp(&b(i, j), &b0(i, j), sizeof(T)) != 0)
          fail_msg("%ldx%ld: B(%ld,%ld) wrong", long(m), long(n), long(i), long(j));
    hqr::conj_transpose(n, m, b.ptr(), ldb, back.ptr(), lda);
    for (lint j = 0; j < n; ++j)
      for (lint i = 0; i < m; ++i)
        if (!(back(i, j) == a(i, j))) fail_msg("%ldx%ld: (A**H)**H differs at (%ld,%ld)", long(m), long(n), long(i), long(j));
  }
}
void transpose(void **) {
  transpose_of<float>();
  transpose_of<std::complex<double>>();
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(store_turn),
      cmocka_unit_test(right_to_left),
      cmocka_unit_test(column_ranges),
      cmocka_unit_test(transpose),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
