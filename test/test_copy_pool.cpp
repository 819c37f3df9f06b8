// hqr's copy pool and streaming copy (src/host/copy_pool.cpp, compiled into
// this program: libhqr keeps their symbols hidden). The pool moves the
// caller's arrays to and from the pinned staging of every GPU path, so it
// is tested here, where CI runs it: every piece of every run runs exactly
// once, back to back, for any number of pieces and threads; stream_copy
// copies every length at every alignment and writes nothing else.
#include "testing.hpp"

#include <atomic>
#include <thread>

#include "host/copy_pool.hpp"

static void every_piece_once(void **) {
  for (int threads : {1, 2, 3, 16}) {
    hqr::CopyPool pool(threads);
    std::vector<std::atomic<int>> hits(64);
    for (int run = 0; run < 2000; ++run) {
      const int pieces = 1 + int(testing::rng()() % 40);
      for (auto &h : hits) h = 0;
      pool.run(pieces, [&](int i) {
        hits[i].fetch_add(1);
        if (i % 5 == 0) std::this_thread::yield();  // stragglers
      });
      for (int i = 0; i < 64; ++i)
        if (hits[i].load() != (i < pieces ? 1 : 0))
          fail_msg("threads %d, run %d, %d pieces: piece %d ran %d times", threads, run, pieces, i, hits[i].load());
    }
  }
}

static void stream_copy_as_memcpy(void **) {
  std::vector<unsigned char> src(4096 + 64), dst(4096 + 64), want(4096 + 64);
  for (auto &x : src) x = static_cast<unsigned char>(testing::rng()());
  for (std::size_t so = 0; so < 16; so += 3)
    for (std::size_t d0 = 0; d0 < 16; ++d0)
      for (std::size_t bytes : {0, 1, 3, 4, 15, 16, 63, 64, 65, 100, 127, 128, 129, 1000, 4000}) {
        for (std::size_t k = 0; k < dst.size(); ++k) dst[k] = want[k] = static_cast<unsigned char>(k * 7);
        std::memcpy(want.data() + d0, src.data() + so, bytes);
        hqr::stream_copy(dst.data() + d0, src.data() + so, bytes);
        hqr::store_fence();
        if (dst != want) fail_msg("stream_copy of %zu bytes, source offset %zu, destination offset %zu", bytes, so, d0);
      }
}

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_piece_once),
      cmocka_unit_test(stream_copy_as_memcpy),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
