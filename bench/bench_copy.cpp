// Host <-> GPU transfer rates through pinned staging, as the hybrid
// routines move the caller's pageable matrix: how fast host threads fill
// pinned slots, how fast the DMA drains them, and both directions at once;
// and how fast the host alone writes zeros over, or reads, pageable memory.
// A program, not a test: medians of 5 after a warm-up.
//   bench_copy [MiB per transfer, default 2048]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "host/copy_pool.hpp"

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

using hqr::CopyPool;

struct Config {
  int threads;
  std::size_t slot;  // bytes per staging slot
  int slots;
  bool nt;           // non-temporal stores
};

static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// One direction of the staged pipeline over `bytes` of pageable memory.
// up: pageable -> pinned slot (threads) -> device; down: device -> pinned -> pageable.
struct Pipe {
  Config c;
  bool up;
  char *pageable, *pinned, *dev;
  std::size_t bytes;
  cudaStream_t stream;
  std::vector<cudaEvent_t> done;
  CopyPool pool;
  Pipe(Config c_, bool up_, char *pg, char *pin, char *d, std::size_t b)
      : c(c_), up(up_), pageable(pg), pinned(pin), dev(d), bytes(b), pool(c_.threads) {
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    done.resize(c.slots);
    for (auto &e : done) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  void copy(char *dst, const char *src, std::size_t n) {
    const int pieces = std::max<int>(1, std::min<int>(c.threads, int(n >> 18) + 1));
    pool.run(pieces, [&](int p) {
      std::size_t b0 = n * p / pieces, b1 = n * (p + 1) / pieces;
      if (c.nt) {
        hqr::stream_copy(dst + b0, src + b0, b1 - b0);
        hqr::store_fence();
      } else {
        std::memcpy(dst + b0, src + b0, b1 - b0);
      }
    });
  }
  void run_up() {
    int i = 0;
    for (std::size_t off = 0; off < bytes; off += c.slot, ++i) {
      const std::size_t n = std::min(c.slot, bytes - off);
      const int s = i % c.slots;
      CK(cudaEventSynchronize(done[s]));
      copy(pinned + s * c.slot, pageable + off, n);
      CK(cudaMemcpyAsync(dev + off, pinned + s * c.slot, n, cudaMemcpyHostToDevice, stream));
      CK(cudaEventRecord(done[s], stream));
    }
    CK(cudaStreamSynchronize(stream));
  }
  void run_down() {
    const std::size_t count = (bytes + c.slot - 1) / c.slot;
    std::size_t queued = 0, drained = 0;
    while (drained < count) {
      while (queued < count && queued - drained < std::size_t(c.slots)) {
        const std::size_t off = queued * c.slot, n = std::min(c.slot, bytes - off);
        const int s = int(queued % c.slots);
        CK(cudaMemcpyAsync(pinned + s * c.slot, dev + off, n, cudaMemcpyDeviceToHost, stream));
        CK(cudaEventRecord(done[s], stream));
        ++queued;
      }
      const std::size_t off = drained * c.slot, n = std::min(c.slot, bytes - off);
      const int s = int(drained % c.slots);
      CK(cudaEventSynchronize(done[s]));
      copy(pageable + off, pinned + s * c.slot, n);
      ++drained;
    }
  }
  // Host threads alone, pageable -> pinned ring (up) or back (down).
  void run_host_only() {
    int i = 0;
    for (std::size_t off = 0; off < bytes; off += c.slot, ++i) {
      const std::size_t n = std::min(c.slot, bytes - off);
      char *slot = pinned + (i % c.slots) * c.slot;
      if (up) copy(slot, pageable + off, n); else copy(pageable + off, slot, n);
    }
  }
};

template <class F> double median_rate(std::size_t bytes, F f) {
  std::vector<double> t;
  for (int r = 0; r < 6; ++r) {
    const double t0 = now();
    f();
    if (r) t.push_back(now() - t0);
  }
  std::sort(t.begin(), t.end());
  return bytes / t[t.size() / 2] * 1e-9;
}

int main(int argc, char **argv) {
  const std::size_t bytes = std::size_t(argc > 1 ? std::atoi(argv[1]) : 2048) << 20;
  char *up_src = static_cast<char *>(std::malloc(bytes)), *down_dst = static_cast<char *>(std::malloc(bytes));
  for (std::size_t i = 0; i < bytes; i += 4096) up_src[i] = char(i), down_dst[i] = char(i >> 12);
  std::memset(up_src, 1, bytes);
  std::memset(down_dst, 2, bytes);
  char *d_up, *d_down;
  CK(cudaMalloc(&d_up, bytes));
  CK(cudaMalloc(&d_down, bytes));
  const std::size_t pinned_bytes = std::size_t(96) << 20;
  char *pin_up, *pin_down;
  CK(cudaMallocHost(&pin_up, pinned_bytes));
  CK(cudaMallocHost(&pin_down, pinned_bytes));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %u host threads, %zu MiB each way; GB/s (1e9 B/s), median of 5\n", prop.name,
              std::thread::hardware_concurrency(), bytes >> 20);
  {
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    double r = median_rate(bytes, [&] {
      for (std::size_t off = 0; off < bytes; off += pinned_bytes)
        CK(cudaMemcpyAsync(d_up + off, pin_up, std::min(pinned_bytes, bytes - off), cudaMemcpyHostToDevice, s));
      CK(cudaStreamSynchronize(s));
    });
    std::printf("DMA only, pinned -> device: %.1f\n", r);
    r = median_rate(bytes, [&] {
      for (std::size_t off = 0; off < bytes; off += pinned_bytes)
        CK(cudaMemcpyAsync(pin_down, d_down + off, std::min(pinned_bytes, bytes - off), cudaMemcpyDeviceToHost, s));
      CK(cudaStreamSynchronize(s));
    });
    std::printf("DMA only, device -> pinned: %.1f\n", r);
  }
  // Host memory alone, no GPU: what writing zeros over part of a caller's
  // array (the QR updates clear R below its diagonal) or reading it costs
  // at best, split among host threads as the copy pool splits a copy.
  for (int threads : {8, 16}) {
    CopyPool pool(threads);
    std::vector<unsigned long long> sums(threads);  // keeps the reads
    auto split = [&](auto f) {
      pool.run(threads, [&](int p) { f(p, bytes * p / threads / 64 * 64, bytes * (p + 1) / threads / 64 * 64); });
    };
    const double zeros_nt = median_rate(bytes, [&] {
      split([&](int, std::size_t b0, std::size_t b1) {
#if defined(__x86_64__)
        for (std::size_t i = b0; i < b1; i += 16)
          _mm_stream_si128(reinterpret_cast<__m128i *>(down_dst + i), _mm_setzero_si128());
        _mm_sfence();
#else
        std::memset(down_dst + b0, 0, b1 - b0);
#endif
      });
    });
    const double zeros = median_rate(
        bytes, [&] { split([&](int, std::size_t b0, std::size_t b1) { std::memset(down_dst + b0, 0, b1 - b0); }); });
    const double read = median_rate(bytes, [&] {
      split([&](int p, std::size_t b0, std::size_t b1) {
        const unsigned long long *w = reinterpret_cast<const unsigned long long *>(up_src + b0);
        unsigned long long a = 0, b = 0, c = 0, d = 0;
        for (std::size_t i = 0; i < (b1 - b0) / 8; i += 4) a += w[i], b += w[i + 1], c += w[i + 2], d += w[i + 3];
        sums[p] = a + b + c + d;
      });
    });
    std::printf("host memory, %d threads: zeros with non-temporal stores %.1f, with memset %.1f; read %.1f\n", threads,
                zeros_nt, zeros, read);
  }
  std::printf("threads slot_MiB slots nt | host-up host-down | pipe-up pipe-down | both: up down\n");
  for (int threads : {8, 16})
    for (std::size_t slot_mib : {16, 4, 1})
      for (bool nt : {true, false}) {
        const int slots = int(std::min<std::size_t>(96 / slot_mib, 64));
        Config c{threads, slot_mib << 20, slots, nt};
        Pipe up(c, true, up_src, pin_up, d_up, bytes), down(c, false, down_dst, pin_down, d_down, bytes);
        const double hu = median_rate(bytes, [&] { up.run_host_only(); });
        const double hd = median_rate(bytes, [&] { down.run_host_only(); });
        const double pu = median_rate(bytes, [&] { up.run_up(); });
        const double pd = median_rate(bytes, [&] { down.run_down(); });
        double tu = 0, td = 0;
        std::vector<double> bu, bd;
        for (int r = 0; r < 6; ++r) {
          double t0 = now(), e_up = 0, e_down = 0;
          std::thread a([&] { up.run_up(); e_up = now(); });
          std::thread b([&] { down.run_down(); e_down = now(); });
          a.join();
          b.join();
          if (r) bu.push_back(e_up - t0), bd.push_back(e_down - t0);
        }
        std::sort(bu.begin(), bu.end());
        std::sort(bd.begin(), bd.end());
        tu = bu[bu.size() / 2], td = bd[bd.size() / 2];
        std::printf("%7d %8zu %5d %2d | %7.1f %9.1f | %7.1f %9.1f | %10.1f %5.1f\n", threads, slot_mib, slots, int(nt), hu,
                    hd, pu, pd, bytes / tu * 1e-9, bytes / td * 1e-9);
        std::fflush(stdout);
      }
}
