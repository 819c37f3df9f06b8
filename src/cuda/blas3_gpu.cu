// Level-3 BLAS from host memory to host memory over the device set:
// xGEMM, xSYMM/xHEMM, xSYRK/xHERK, xSYR2K/xHER2K, xTRMM, xTRSM.
//
// Algorithm. The result (C; B for trmm/trsm) is cut into tiles; a tile is a
// product of pieces of the operands: rectangles of the caller's A and B
// ("kind" 0 and 1), each uploaded whole into a slot on the device and kept
// there for the next tile that needs it. gemm's tile (i, j) needs op(A)'s
// row panel i and op(B)'s column slab j; syrk's needs op(A)'s panels i and
// j (cuBLAS's syrk on diagonal tiles, gemm elsewhere, only the referenced
// triangle's tiles); syr2k's A's and B's panels i and j; symm, trmm and
// trsm keep A whole on the device (cuBLAS's symm/trmm/trsm) and tile the
// other operand by column slabs (side 'L') or row panels (side 'R'), so a
// tile reads only its own part of an output it overwrites.
// The tiles are dealt to the set's GPUs in contiguous runs of columns of
// tiles (rows for side 'R'), balanced by flops. Each GPU runs two host
// threads: the uploader (pieces and, where read, C's tile through the
// context's pinned staging, then the tile's cuBLAS call on the compute
// stream) and the downloader (each finished tile through pinned staging
// into the caller's array, as soon as it is done). A GPU keeps every piece
// resident when its memory allows (each byte of A and B crosses the link
// once; the tiles then run in growing squares, so that compute starts
// after the first two pieces); otherwise the operand that does not fit
// streams through two or three slots, the tiles ordered so that the
// resident operand's pieces are read once and the other's once per pass;
// where not even that fits (a piece is an edge by the inner dimension),
// the tiles' edge halves (down to 32). So gemm, syrk and syr2k run out of
// core at any size that fits in host memory; symm, trmm and trsm keep A
// whole on each GPU, and an A that does not fit runs on the CPU.
// Measured (4 H200s, 64 host cores, bench/results/blas3-NVIDIA-H200-x4-
// 2026-11-28.txt): dgemm 16384 host to host 0.222 s on one GPU, 0.176 on
// four; the device-only cuBLAS product on one GPU takes 0.154.
// beta == 0 never reads C; a diagonal tile of syrk/syr2k always goes up
// and comes back whole, so the other triangle's entries return unchanged.
//
// Failure: tiles stored in the caller's array are final; a GPU failure
// (or an injected fault, HQR_FAULT) leaves the rest as they came, and the
// CPU computes those tiles with the next BLAS (`ran` true, `why` says so);
// a failure before any tile was stored returns `ran` false (nothing
// written), and the caller runs the next BLAS.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <deque>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "cpu/blas.hpp"
#include "cuda/blas.cuh"
#include "cuda/context.hpp"
#include "cuda/gpu.hpp"
#include "cuda/handoff.hpp"
#include "cuda/node.hpp"
#include "host/config.hpp"
#include "host/copy_pool.hpp"
#include "host/fault.hpp"
#include "host/next_lapack.hpp"

namespace hqr::gpu {
namespace {

using fault::Point;

// ---- cuBLAS's symmetric and Hermitian products (64-bit API) -----------------
template <class T> struct CuBlas3;
#define HQR_CUBLAS3(T, P, SYMM, HEMM, SYRK, HERK, SYR2K, HER2K)                                                     \
  template <> struct CuBlas3<T> {                                                                                   \
    using R = typename Prec<T>::real;                                                                               \
    static cublasStatus_t symm(cublasHandle_t h, bool herm, cublasSideMode_t s, cublasFillMode_t u, int64_t m,      \
                               int64_t n, T al, const T *a, int64_t lda, const T *b, int64_t ldb, T be, T *c,      \
                               int64_t ldc) {                                                                       \
      return (herm ? HEMM : SYMM)(h, s, u, m, n, blas::cu(&al), blas::cu(a), lda, blas::cu(b), ldb, blas::cu(&be),  \
                                  blas::cu(c), ldc);                                                                \
    }                                                                                                               \
    static cublasStatus_t syrk(cublasHandle_t h, bool herm, cublasFillMode_t u, cublasOperation_t t, int64_t n,     \
                               int64_t k, T al, const T *a, int64_t lda, T be, T *c, int64_t ldc) {                \
      if (herm) {                                                                                                   \
        const R ra = std::real(al), rb = std::real(be);                                                             \
        return HERK(h, u, t, n, k, &ra, blas::cu(a), lda, &rb, blas::cu(c), ldc);                                   \
      }                                                                                                             \
      return SYRK(h, u, t, n, k, blas::cu(&al), blas::cu(a), lda, blas::cu(&be), blas::cu(c), ldc);                 \
    }                                                                                                               \
    static cublasStatus_t syr2k(cublasHandle_t h, bool herm, cublasFillMode_t u, cublasOperation_t t, int64_t n,    \
                                int64_t k, T al, const T *a, int64_t lda, const T *b, int64_t ldb, T be, T *c,     \
                                int64_t ldc) {                                                                      \
      if (herm) {                                                                                                   \
        const R rb = std::real(be);                                                                                 \
        return HER2K(h, u, t, n, k, blas::cu(&al), blas::cu(a), lda, blas::cu(b), ldb, &rb, blas::cu(c), ldc);      \
      }                                                                                                             \
      return SYR2K(h, u, t, n, k, blas::cu(&al), blas::cu(a), lda, blas::cu(b), ldb, blas::cu(&be), blas::cu(c),    \
                   ldc);                                                                                            \
    }                                                                                                               \
  };
// The real types have no Hermitian variants: herm is false for them, and
// the ternaries name the symmetric routine twice.
namespace real_herm {
inline cublasStatus_t ssyrk_r(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int64_t n, int64_t k,
                              const float *al, const float *a, int64_t lda, const float *be, float *c, int64_t ldc) {
  return cublasSsyrk_64(h, u, t, n, k, al, a, lda, be, c, ldc);
}
inline cublasStatus_t dsyrk_r(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int64_t n, int64_t k,
                              const double *al, const double *a, int64_t lda, const double *be, double *c,
                              int64_t ldc) {
  return cublasDsyrk_64(h, u, t, n, k, al, a, lda, be, c, ldc);
}
inline cublasStatus_t ssyr2k_r(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int64_t n, int64_t k,
                               const float *al, const float *a, int64_t lda, const float *b, int64_t ldb,
                               const float *be, float *c, int64_t ldc) {
  return cublasSsyr2k_64(h, u, t, n, k, al, a, lda, b, ldb, be, c, ldc);
}
inline cublasStatus_t dsyr2k_r(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int64_t n, int64_t k,
                               const double *al, const double *a, int64_t lda, const double *b, int64_t ldb,
                               const double *be, double *c, int64_t ldc) {
  return cublasDsyr2k_64(h, u, t, n, k, al, a, lda, b, ldb, be, c, ldc);
}
}  // namespace real_herm
HQR_CUBLAS3(float, S, cublasSsymm_64, cublasSsymm_64, cublasSsyrk_64, real_herm::ssyrk_r, cublasSsyr2k_64,
            real_herm::ssyr2k_r)
HQR_CUBLAS3(double, D, cublasDsymm_64, cublasDsymm_64, cublasDsyrk_64, real_herm::dsyrk_r, cublasDsyr2k_64,
            real_herm::dsyr2k_r)
HQR_CUBLAS3(std::complex<float>, C, cublasCsymm_64, cublasChemm_64, cublasCsyrk_64, cublasCherk_64,
            cublasCsyr2k_64, cublasCher2k_64)
HQR_CUBLAS3(std::complex<double>, Z, cublasZsymm_64, cublasZhemm_64, cublasZsyrk_64, cublasZherk_64,
            cublasZsyr2k_64, cublasZher2k_64)
#undef HQR_CUBLAS3

cublasOperation_t op_of(char t) { return t == 'N' ? CUBLAS_OP_N : t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C; }
cublasFillMode_t fill(bool upper) { return upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }

// ---- the tiles ---------------------------------------------------------------

// A rectangle of one of the caller's operands, uploaded whole into a slot
// (leading dimension m on the device).
template <class T> struct HostRect {
  const T *p;
  lint ld, r0, c0, m, n;
  const T *at() const { return p + r0 + std::size_t(c0) * ld; }
  std::size_t bytes() const { return sizeof(T) * std::size_t(m) * n; }
};
struct Need {
  int kind;    // 0: a piece of A, 1: of B
  lint index;  // which one
};
struct Tile {
  lint i0, j0, mi, nj;  // the result's rows i0.., columns j0..
  lint ti, tj;          // the tile's place in the grid (ordering)
  Need need[4];
  int needs = 0;
  bool read_c;   // C's tile goes up first (beta != 0, an in-place operand, a diagonal tile)
  double flops;  // for dealing tiles to GPUs
};

// What a routine tells the engine: its tiles, the rectangle of a piece,
// the tile's product on the device and on the CPU.
template <class T> struct Routine {
  virtual ~Routine() = default;
  virtual HostRect<T> piece(int kind, lint index) const = 0;
  // pieces[q] is need[q]'s slot on the device (leading dimension lds[q]).
  virtual cublasStatus_t gpu(cublasHandle_t h, const Tile &t, const T *const *pieces, const lint *lds, T *c,
                             lint ldc) const = 0;
  // The tile on the CPU from its line `from` on (columns; rows where
  // by_rows), the earlier ones being final in the caller's array.
  virtual void cpu(const Tile &t, lint from) const = 0;
  std::vector<Tile> tiles;
  T *out = nullptr;  // the result, in the caller's memory
  lint ldo = 0;
  // Side 'R': tiles are row panels whose columns depend on each other, so
  // they are dealt to GPUs by runs of rows and stored by rows; else by
  // columns.
  bool by_rows = false;
};

constexpr int kC = 3;  // C tiles on a device at once: one computing, one going down, one coming up

// RAII for the call's events.
struct Events {
  std::vector<cudaEvent_t> e;
  bool make(std::size_t n) {
    e.resize(n, nullptr);
    for (cudaEvent_t &x : e)
      if (!ok(cudaEventCreateWithFlags(&x, cudaEventDisableTiming))) return false;
    return true;
  }
  ~Events() {
    for (cudaEvent_t x : e)
      if (x) cudaEventDestroy(x);
  }
};

template <class T> class TileEngine {
 public:
  TileEngine(const Routine<T> &r) : r_(r) {}

  Result run(const DeviceSet &set, int gpus) {
    const std::size_t nt = r_.tiles.size();
    stored_ = std::make_unique<std::atomic<lint>[]>(nt);
    for (std::size_t t = 0; t < nt; ++t) stored_[t] = 0;
    deal(gpus);
    std::vector<std::unique_ptr<Member>> plan;
    for (int d = 0; d < gpus; ++d) {
      auto m = std::make_unique<Member>();
      m->c = set.member[d];
      m->tiles = dealt_[d];
      if (!m->tiles.empty()) plan.push_back(std::move(m));
    }
    // Plan every member before data moves: a member whose memory holds no
    // schedule leaves the call untouched.
    for (auto &m : plan)
      if (!this->plan(*m)) return {false, 0, kTilesTooLarge, 0};
    // Pieces are shared between GPUs where every GPU keeps its kind whole.
    for (int k = 0; k < 2 && plan.size() > 1; ++k) {
      shared_[k] = true;
      for (auto &m : plan) shared_[k] = shared_[k] && m->keeps[k];
      if (!shared_[k]) continue;
      for (auto &m : plan)
        for (int t : m->tiles)
          for (int q = 0; q < r_.tiles[t].needs; ++q)
            if (r_.tiles[t].need[q].kind == k) shared_pieces_[k][r_.tiles[t].need[q].index];
    }
    std::vector<std::thread> threads;
    for (auto &m : plan) {
      Member *p = m.get();
      threads.emplace_back([this, p] {
        if (check(cudaSetDevice(p->c->device), Point::sync)) upload(*p);
        p->launched.publish(lint(p->tiles.size()) + 1);  // wakes the downloader
      });
      threads.emplace_back([this, p] {
        if (check(cudaSetDevice(p->c->device), Point::sync)) download(*p);
        p->queued.publish(lint(p->tiles.size()) + 1);
      });
    }
    for (std::thread &t : threads) t.join();
    std::uint64_t mask = 0;
    for (int d = 0; d < gpus; ++d)
      if (!dealt_[d].empty()) mask |= std::uint64_t(1) << d;
    if (!failed_) return {true, 0, nullptr, 0, 0, 0, mask};
    for (auto &m : plan) {
      // Quiesce before the buffers serve the next call.
      cudaSetDevice(m->c->device);
      const cudaStream_t streams[] = {m->c->compute_stream, m->c->upload_stream, m->c->download_stream};
      for (cudaStream_t s : streams) cudaStreamSynchronize(s);
      (void)cudaGetLastError();
    }
    lint done = 0;
    for (std::size_t t = 0; t < nt; ++t) done += stored_[t];
    if (done == 0) return {false, 0, "a GPU step failed before any tile was stored", 0};
    for (std::size_t t = 0; t < nt; ++t) {
      const Tile &tile = r_.tiles[t];
      if (stored_[t] < (r_.by_rows ? tile.mi : tile.nj)) r_.cpu(tile, stored_[t]);
    }
    return {true, 0, "a GPU step failed; the CPU computed what was not yet stored", 0, 0, 0, mask};
  }

 private:
  struct Slot {
    T *d = nullptr;
    lint index = -1;
    unsigned long long used = 0;  // the uploader's clock at its last use
    cudaEvent_t ready = nullptr, last_use = nullptr;
  };
  struct Member {
    Context *c = nullptr;
    std::vector<int> tiles;
    std::vector<Slot> slots[2];
    std::size_t piece_bytes[2] = {0, 0};
    T *cbuf[kC] = {};
    lint ldc = 0;
    Events events;
    cudaEvent_t done[kC] = {}, freed[kC] = {};
    Progress launched, queued;  // tiles whose product is queued; whose download is queued
    unsigned long long clock = 0;  // the uploader's, for least-recently-used slots
    bool keeps[2] = {false, false};  // every piece of the kind it needs stays on the GPU
  };

  template <class S> bool check(S status, Point p) {
    if (!ok(status) || fault::hit(p)) stop();
    return !failed_;
  }
  void stop() {
    failed_ = true;
    for (Member *m : members_) {
      m->launched.wake();
      m->queued.wake();
    }
    for (auto &kind : shared_pieces_)
      for (auto &[index, sh] : kind) {
        { std::lock_guard<std::mutex> g(sh.m); }
        sh.cv.notify_all();
      }
  }

  // Contiguous runs of tile columns (rows for by_rows), balanced by flops.
  void deal(int gpus) {
    std::vector<int> order(r_.tiles.size());
    for (std::size_t t = 0; t < order.size(); ++t) order[t] = int(t);
    auto major = [&](const Tile &t) { return r_.by_rows ? t.ti : t.tj; };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return major(r_.tiles[a]) < major(r_.tiles[b]); });
    double total = 0;
    for (const Tile &t : r_.tiles) total += t.flops;
    dealt_.assign(gpus, {});
    double acc = 0;
    int d = 0;
    for (std::size_t q = 0; q < order.size();) {
      // A whole column (row) of tiles goes to one GPU.
      const lint key = major(r_.tiles[order[q]]);
      double w = 0;
      std::size_t e = q;
      for (; e < order.size() && major(r_.tiles[order[e]]) == key; ++e) w += r_.tiles[order[e]].flops;
      if (d + 1 < gpus && acc > 0 && acc + w / 2 > total * (d + 1) / gpus) ++d;
      for (; q < e; ++q) dealt_[d].push_back(order[q]);
      acc += w;
    }
  }


  // Slots for each kind of piece (all of the member's pieces where memory
  // allows) and the member's tile order; allocates and makes the events.
  bool plan(Member &m) {
    members_.push_back(&m);
    std::vector<lint> distinct[2];
    int most[2] = {0, 0};  // pieces of a kind that one tile needs
    std::size_t cbytes = 0;
    for (int t : m.tiles) {
      const Tile &tile = r_.tiles[t];
      int count[2] = {0, 0};
      for (int q = 0; q < tile.needs; ++q) {
        const Need &n = tile.need[q];
        distinct[n.kind].push_back(n.index);
        m.piece_bytes[n.kind] = std::max(m.piece_bytes[n.kind], r_.piece(n.kind, n.index).bytes());
        ++count[n.kind];
      }
      for (int k = 0; k < 2; ++k) most[k] = std::max(most[k], count[k]);
      cbytes = std::max(cbytes, sizeof(T) * std::size_t(tile.mi) * tile.nj);
      m.ldc = std::max(m.ldc, tile.mi);
    }
    std::size_t full[2], few[2];
    for (int k = 0; k < 2; ++k) {
      std::sort(distinct[k].begin(), distinct[k].end());
      full[k] = std::size_t(std::unique(distinct[k].begin(), distinct[k].end()) - distinct[k].begin());
      few[k] = std::min(full[k], std::size_t(most[k]) + 1);
    }
    auto round = [](std::size_t b) { return (b + 255) / 256 * 256; };
    cbytes = round(cbytes);
    const std::size_t have = plan_budget(*m.c, std::size_t(512) << 20);
    auto need = [&](std::size_t s0, std::size_t s1) {
      return kC * cbytes + s0 * round(m.piece_bytes[0]) + s1 * round(m.piece_bytes[1]);
    };
    // Preference: everything resident; else the larger operand streams.
    const bool a_larger = full[0] * m.piece_bytes[0] >= full[1] * m.piece_bytes[1];
    const std::size_t options[4][2] = {{full[0], full[1]},
                                       {a_larger ? few[0] : full[0], a_larger ? full[1] : few[1]},
                                       {a_larger ? full[0] : few[0], a_larger ? few[1] : full[1]},
                                       {few[0], few[1]}};
    int pick = -1;
    for (int o = 0; o < 4 && pick < 0; ++o)
      if (need(options[o][0], options[o][1]) <= have) pick = o;
    if (pick < 0 || fault::hit(Point::alloc) || !m.c->matrix.reserve(need(options[pick][0], options[pick][1])))
      return false;
    char *p = static_cast<char *>(m.c->matrix.get());
    std::size_t events = 2 * kC;
    for (int k = 0; k < 2; ++k) {
      m.slots[k].resize(options[pick][k]);
      events += 2 * m.slots[k].size();
    }
    if (!m.events.make(events)) return false;
    std::size_t e = 0;
    for (int i = 0; i < kC; ++i, p += cbytes) {
      m.cbuf[i] = reinterpret_cast<T *>(p);
      m.done[i] = m.events.e[e++];
      m.freed[i] = m.events.e[e++];
    }
    for (int k = 0; k < 2; ++k)
      for (Slot &s : m.slots[k]) {
        s.d = reinterpret_cast<T *>(p);
        p += round(m.piece_bytes[k]);
        s.ready = m.events.e[e++];
        s.last_use = m.events.e[e++];
      }
    // The order: growing squares when both kinds stay; else the streamed
    // kind's pieces outermost, so that each is read once per pass.
    const bool keep0 = m.slots[0].size() == full[0], keep1 = m.slots[1].size() == full[1];
    m.keeps[0] = keep0;
    m.keeps[1] = keep1;
    auto key = [&](const Tile &t) -> std::tuple<lint, lint, lint> {
      if (keep0 && keep1) return {std::max(t.ti, t.tj), t.tj, t.ti};
      if (keep0 || !keep1) return {t.tj, t.ti, 0};
      return {t.ti, t.tj, 0};
    };
    std::stable_sort(m.tiles.begin(), m.tiles.end(),
                     [&](int a, int b) { return key(r_.tiles[a]) < key(r_.tiles[b]); });
    return true;
  }

  // Caller's rectangle -> pinned slots -> device (dst, leading dimension
  // ldd), whole columns a slot at a time, on the member's upload stream.
  bool upload_rect(Member &m, int &slot, const HostRect<T> &r, T *dst, lint ldd) {
    const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(r.m) * sizeof(T))));
    for (lint j = 0; j < r.n && !failed_; j += per) {
      const lint w = std::min(per, r.n - j);
      StagingSlot &s = m.c->upload_slots[slot++ % Context::kSlots];
      if (!check(cudaEventSynchronize(s.dma_done), Point::sync)) return false;
      copy_block(m.c->upload_copies, sizeof(T), r.m, w, r.at() + std::size_t(j) * r.ld, r.ld, s.host, r.m);
      if (!check(cudaMemcpy2DAsync(dst + std::size_t(j) * ldd, ldd * sizeof(T), s.host, r.m * sizeof(T),
                                   r.m * sizeof(T), w, cudaMemcpyHostToDevice, m.c->upload_stream),
                 Point::copy) ||
          !check(cudaEventRecord(s.dma_done, m.c->upload_stream), Point::copy))
        return false;
    }
    return !failed_;
  }

  // The slot that holds piece (kind, index), uploading it into the least
  // recently used slot that the tile does not need when it is not there.
  Slot *acquire(Member &m, int &slot, const Tile &tile, int kind, lint index) {
    std::vector<Slot> &slots = m.slots[kind];
    for (Slot &s : slots)
      if (s.index == index) return &s;
    Slot *victim = nullptr;
    for (Slot &s : slots) {
      bool needed = false;
      for (int q = 0; q < tile.needs; ++q)
        needed |= tile.need[q].kind == kind && tile.need[q].index == s.index && s.index >= 0;
      if (!needed && (!victim || s.used < victim->used)) victim = &s;
    }
    if (!victim) {  // plan() gives every kind a slot more than a tile needs
      stop();
      return nullptr;
    }
    const HostRect<T> r = r_.piece(kind, index);
    // The slot's last reader must be done before its new content lands.
    if (!check(cudaStreamWaitEvent(m.c->upload_stream, victim->last_use, 0), Point::sync)) return nullptr;
    // Every needed index was entered before the threads started: only found here.
    Shared *sh = shared_[kind] ? &shared_pieces_[kind].find(index)->second : nullptr;
    const Shared *from = nullptr;
    if (sh) {
      // The first GPU to need the piece uploads it; the others copy it from
      // there, GPU to GPU, once it is there (an upload waits on nothing
      // else, so no two GPUs can wait on each other).
      std::unique_lock<std::mutex> g(sh->m);
      if (sh->state == Shared::none) {
        sh->state = Shared::uploading;
      } else {
        sh->cv.wait(g, [&] { return sh->state != Shared::uploading || failed_; });
        if (sh->state != Shared::there) {
          // stop() takes every Shared's mutex, this one's included: never
          // with it held (std::mutex is not recursive; HQR_FAULT=copy:200
          // hung a call on 4 GPUs so).
          g.unlock();
          stop();
          return nullptr;
        }
        from = sh;
      }
    }
    if (from) {
      if (!check(cudaStreamWaitEvent(m.c->upload_stream, from->ready, 0), Point::sync) ||
          !check(cudaMemcpyPeerAsync(victim->d, m.c->device, from->ptr, from->device, r.bytes(), m.c->upload_stream),
                 Point::copy))
        return nullptr;
    } else if (!upload_rect(m, slot, r, victim->d, r.m)) {
      if (sh) publish(*sh, Shared::failed, nullptr, -1, nullptr);
      return nullptr;
    }
    if (!check(cudaEventRecord(victim->ready, m.c->upload_stream), Point::copy)) {
      if (sh && !from) publish(*sh, Shared::failed, nullptr, -1, nullptr);
      return nullptr;
    }
    if (sh && !from) publish(*sh, Shared::there, victim->d, m.c->device, victim->ready);
    victim->index = index;
    return victim;
  }

  // A piece that every GPU keeps whole (all its kind resident on each):
  // uploaded once, by the first GPU that needs it.
  struct Shared {
    enum State { none, uploading, there, failed };
    std::mutex m;
    std::condition_variable cv;
    State state = none;
    const T *ptr = nullptr;
    int device = -1;
    cudaEvent_t ready = nullptr;
  };
  void publish(Shared &sh, typename Shared::State st, const T *ptr, int device, cudaEvent_t ready) {
    {
      std::lock_guard<std::mutex> g(sh.m);
      sh.state = st;
      sh.ptr = ptr;
      sh.device = device;
      sh.ready = ready;
    }
    sh.cv.notify_all();
  }

  void upload(Member &m) {
    int slot = 0;
    const cudaStream_t cs = m.c->compute_stream;
    for (std::size_t q = 0; q < m.tiles.size() && !failed_; ++q) {
      const Tile &tile = r_.tiles[m.tiles[q]];
      const int cb = int(q % kC);
      // C's buffer is free once the download of the tile kC before is done.
      if (q >= std::size_t(kC) && !m.queued.wait_past(lint(q) - kC, failed_)) return;
      const T *pieces[4];
      lint lds[4];
      for (int n = 0; n < tile.needs; ++n) {
        Slot *s = acquire(m, slot, tile, tile.need[n].kind, tile.need[n].index);
        if (!s) return;
        s->used = ++m.clock;
        pieces[n] = s->d;
        lds[n] = r_.piece(tile.need[n].kind, tile.need[n].index).m;
        if (!check(cudaStreamWaitEvent(cs, s->ready, 0), Point::sync)) return;
      }
      if (tile.read_c) {
        const HostRect<T> c{r_.out, r_.ldo, tile.i0, tile.j0, tile.mi, tile.nj};
        if (!check(cudaStreamWaitEvent(m.c->upload_stream, m.freed[cb], 0), Point::sync) ||
            !upload_rect(m, slot, c, m.cbuf[cb], tile.mi) ||
            !check(cudaEventRecord(m.done[cb], m.c->upload_stream), Point::copy) ||
            !check(cudaStreamWaitEvent(cs, m.done[cb], 0), Point::sync))
          return;
      } else if (!check(cudaStreamWaitEvent(cs, m.freed[cb], 0), Point::sync)) {
        return;
      }
      if (!check(r_.gpu(m.c->blas, tile, pieces, lds, m.cbuf[cb], tile.mi), Point::kernel) ||
          !check(cudaEventRecord(m.done[cb], cs), Point::kernel))
        return;
      for (int n = 0; n < tile.needs; ++n)
        for (Slot &s : m.slots[tile.need[n].kind])
          if (s.index == tile.need[n].index && !check(cudaEventRecord(s.last_use, cs), Point::kernel)) return;
      m.launched.publish(lint(q) + 1);
    }
  }

  // Each finished tile through the pinned slots into the caller's array,
  // in pieces of whole columns (rows where by_rows), a slot each, several
  // on their way down while the host stores the first.
  void download(Member &m) {
    const cudaStream_t ds = m.c->download_stream;
    const bool rows = r_.by_rows;
    int slot = 0;
    struct Chunk {
      StagingSlot *s;
      lint l, w;  // lines l..l+w-1
    };
    for (std::size_t q = 0; q < m.tiles.size() && !failed_; ++q) {
      if (!m.launched.wait_past(lint(q), failed_)) return;
      const Tile &tile = r_.tiles[m.tiles[q]];
      const int cb = int(q % kC);
      if (!check(cudaStreamWaitEvent(ds, m.done[cb], 0), Point::sync)) return;
      const lint lines = rows ? tile.mi : tile.nj, across = rows ? tile.nj : tile.mi;
      const lint per = std::max<lint>(1, lint(Context::kSlotBytes / (std::size_t(across) * sizeof(T))));
      std::deque<Chunk> pending;
      lint next = 0;
      auto queue_one = [&]() {
        const lint w = std::min(per, lines - next);
        StagingSlot &s = m.c->download_slots[slot++ % Context::kSlots];
        const T *src = m.cbuf[cb] + (rows ? next : std::size_t(next) * tile.mi);
        const lint h = rows ? w : tile.mi, cols = rows ? tile.nj : w;
        if (!check(cudaMemcpy2DAsync(s.host, h * sizeof(T), src, tile.mi * sizeof(T), h * sizeof(T), cols,
                                     cudaMemcpyDeviceToHost, ds),
                   Point::copy) ||
            !check(cudaEventRecord(s.dma_done, ds), Point::copy))
          return false;
        pending.push_back({&s, next, w});
        next += w;
        return true;
      };
      while (next < lines && int(pending.size()) < Context::kSlots)
        if (!queue_one()) return;
      bool freed = false;
      while (!pending.empty()) {
        if (next >= lines && !freed) {
          // Every piece of the tile is on its way down: C's buffer is free
          // for the tile kC later once those copies are done.
          if (!check(cudaEventRecord(m.freed[cb], ds), Point::copy)) return;
          m.queued.publish(lint(q) + 1);
          freed = true;
        }
        const Chunk c = pending.front();
        pending.pop_front();
        if (!check(cudaEventSynchronize(c.s->dma_done), Point::sync)) return;
        const lint h = rows ? c.w : tile.mi, cols = rows ? tile.nj : c.w;
        T *dst = r_.out + tile.i0 + (rows ? c.l : 0) + std::size_t(tile.j0 + (rows ? 0 : c.l)) * r_.ldo;
        copy_block(m.c->download_copies, sizeof(T), h, cols, c.s->host, h, dst, r_.ldo);
        stored_[m.tiles[q]] = c.l + c.w;
        if (next < lines && !queue_one()) return;
      }
    }
  }

  const Routine<T> &r_;
  std::vector<std::vector<int>> dealt_;
  std::vector<Member *> members_;
  std::unique_ptr<std::atomic<lint>[]> stored_;  // per tile, its leading lines final in the caller's array
  std::atomic<bool> failed_{false};
  bool shared_[2] = {false, false};
  std::map<lint, Shared> shared_pieces_[2];  // filled before the threads start, then only looked up
};

// ---- the routines ------------------------------------------------------------

// The tile edge: tiles of 2048 keep cuBLAS near its peak (k in the
// thousands) while the first tile waits for two pieces only. HQR_NB sets
// it (tests: many tiles at small orders).
lint tile_edge() { return config::nb() > 0 ? config::nb() : 2048; }
// A dimension of n cut into tiles: whole up to 1.5 edges, else edges.
lint tile_of(lint n, lint e) { return n <= e * 3 / 2 ? n : e; }
lint count(lint n, lint b) { return (n + b - 1) / b; }

template <class T> struct Gemm final : Routine<T> {
  char ta, tb;
  lint m, n, k;
  T alpha, beta;
  const T *a, *b;
  lint lda, ldb;
  lint mb, nb;
  Gemm(char ta_, char tb_, lint m_, lint n_, lint k_, T al, const T *a_, lint lda_, const T *b_, lint ldb_, T be,
       T *c, lint ldc, lint edge)
      : ta(ta_), tb(tb_), m(m_), n(n_), k(k_), alpha(al), beta(be), a(a_), b(b_), lda(lda_), ldb(ldb_) {
    this->out = c;
    this->ldo = ldc;
    mb = tile_of(m, edge);
    nb = tile_of(n, edge);
    for (lint j = 0; j < count(n, nb); ++j)
      for (lint i = 0; i < count(m, mb); ++i) {
        Tile t{i * mb, j * nb, std::min(mb, m - i * mb), std::min(nb, n - j * nb), i, j};
        t.need[t.needs++] = {0, i};
        t.need[t.needs++] = {1, j};
        t.read_c = beta != T(0);
        t.flops = 2.0 * t.mi * t.nj * k;
        this->tiles.push_back(t);
      }
  }
  HostRect<T> piece(int kind, lint index) const override {
    if (kind == 0) {
      const lint r0 = index * mb, rows = std::min(mb, m - r0);
      return ta == 'N' ? HostRect<T>{a, lda, r0, 0, rows, k} : HostRect<T>{a, lda, 0, r0, k, rows};
    }
    const lint c0 = index * nb, cols = std::min(nb, n - c0);
    return tb == 'N' ? HostRect<T>{b, ldb, 0, c0, k, cols} : HostRect<T>{b, ldb, c0, 0, cols, k};
  }
  cublasStatus_t gpu(cublasHandle_t h, const Tile &t, const T *const *p, const lint *ld, T *c,
                     lint ldc) const override {
    return blas::gemm(h, op_of(ta), op_of(tb), t.mi, t.nj, k, alpha, p[0], ld[0], p[1], ld[1], beta, c, ldc);
  }
  void cpu(const Tile &t, lint from) const override {
    const lint j0 = t.j0 + from;
    const T *pa = piece(0, t.ti).at(), *pb = tb == 'N' ? b + std::size_t(j0) * ldb : b + j0;
    hqr::blas::gemm<T>(ta, tb, t.mi, t.nj - from, k, alpha, pa, lda, pb, ldb, beta,
                  this->out + t.i0 + std::size_t(j0) * this->ldo, this->ldo);
  }
};

// syrk/herk and syr2k/her2k: the referenced triangle's square tiles.
template <class T> struct RankK final : Routine<T> {
  bool two, herm, upper;
  char trans;
  lint n, k;
  T alpha, beta;
  const T *a, *b;
  lint lda, ldb, nb;
  RankK(bool two_, bool herm_, bool upper_, char trans_, lint n_, lint k_, T al, const T *a_, lint lda_,
        const T *b_, lint ldb_, T be, T *c, lint ldc, lint edge)
      : two(two_), herm(herm_), upper(upper_), trans(trans_), n(n_), k(k_), alpha(al), beta(be), a(a_), b(b_),
        lda(lda_), ldb(ldb_) {
    this->out = c;
    this->ldo = ldc;
    nb = tile_of(n, edge);
    const lint nt = count(n, nb);
    for (lint j = 0; j < nt; ++j)
      for (lint i = upper ? 0 : j; i < (upper ? j + 1 : nt); ++i) {
        Tile t{i * nb, j * nb, std::min(nb, n - i * nb), std::min(nb, n - j * nb), i, j};
        t.need[t.needs++] = {0, i};
        if (two) t.need[t.needs++] = {1, j};
        if (i != j) {
          t.need[t.needs++] = {0, j};
          if (two) t.need[t.needs++] = {1, i};
        }
        t.read_c = beta != T(0) || i == j;
        t.flops = (two ? 4.0 : 2.0) * t.mi * t.nj * k / (i == j ? 2 : 1);
        this->tiles.push_back(t);
      }
  }
  HostRect<T> piece(int kind, lint index) const override {
    const T *p = kind == 0 ? a : b;
    const lint ld = kind == 0 ? lda : ldb, r0 = index * nb, rows = std::min(nb, n - r0);
    return trans == 'N' ? HostRect<T>{p, ld, r0, 0, rows, k} : HostRect<T>{p, ld, 0, r0, k, rows};
  }
  // Which of the tile's pieces is (kind, index).
  static int find(const Tile &t, int kind, lint index) {
    for (int q = 0; q < t.needs; ++q)
      if (t.need[q].kind == kind && t.need[q].index == index) return q;
    return 0;
  }
  cublasStatus_t gpu(cublasHandle_t h, const Tile &t, const T *const *p, const lint *ld, T *c,
                     lint ldc) const override {
    const cublasOperation_t tr = op_of(trans);
    // op(X_i) op(Y_j)**H as a gemm: trans 'N' X_i * Y_j**H; else X_i**H * Y_j.
    const cublasOperation_t g1 = trans == 'N' ? CUBLAS_OP_N : tr, g2 = trans == 'N' ? (herm ? CUBLAS_OP_C : CUBLAS_OP_T) : CUBLAS_OP_N;
    const int ai = find(t, 0, t.ti), aj = find(t, 0, t.tj);
    if (t.ti == t.tj) {
      if (two)
        return CuBlas3<T>::syr2k(h, herm, fill(upper), tr, t.mi, k, alpha, p[ai], ld[ai], p[find(t, 1, t.tj)],
                                 ld[find(t, 1, t.tj)], beta, c, ldc);
      return CuBlas3<T>::syrk(h, herm, fill(upper), tr, t.mi, k, alpha, p[ai], ld[ai], beta, c, ldc);
    }
    // The off-diagonal tile of a Hermitian update: beta is real there too.
    const T be = herm ? T(std::real(beta)) : beta;
    if (!two) {
      const T al = herm ? T(std::real(alpha)) : alpha;
      return blas::gemm(h, g1, g2, t.mi, t.nj, k, al, p[ai], ld[ai], p[aj], ld[aj], be, c, ldc);
    }
    const int bi = find(t, 1, t.ti), bj = find(t, 1, t.tj);
    const cublasStatus_t s = blas::gemm(h, g1, g2, t.mi, t.nj, k, alpha, p[ai], ld[ai], p[bj], ld[bj], be, c, ldc);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    return blas::gemm(h, g1, g2, t.mi, t.nj, k, herm ? conj_of(alpha) : alpha, p[bi], ld[bi], p[aj], ld[aj], T(1),
                      c, ldc);
  }
  // Columns from..nj-1 of the tile: an off-diagonal tile's are a product
  // of op(A)'s (op(B)'s) panel i and the columns' rows of panel j; a
  // diagonal tile's are a smaller diagonal tile and, for 'U', the block
  // above it.
  void cpu(const Tile &t, lint from) const override {
    const lint j0 = t.j0 + from, w = t.nj - from;
    T *c = this->out + t.i0 + std::size_t(j0) * this->ldo;
    auto rows_of = [&](const T *p, lint ld, lint r) { return trans == 'N' ? p + r : p + std::size_t(r) * ld; };
    const char g1 = trans == 'N' ? 'N' : trans, g2 = trans == 'N' ? (herm ? 'C' : 'T') : 'N';
    const T be = herm ? T(std::real(beta)) : beta;
    const T al1 = herm && !two ? T(std::real(alpha)) : alpha;
    // C(r0:r0+h, j0:j0+w) by gemm(s).
    auto block = [&](lint r0, lint h, T *cc) {
      hqr::blas::gemm<T>(g1, g2, h, w, k, al1, rows_of(a, lda, r0), lda, rows_of(two ? b : a, two ? ldb : lda, j0),
                    two ? ldb : lda, be, cc, this->ldo);
      if (two)
        hqr::blas::gemm<T>(g1, g2, h, w, k, herm ? conj_of(alpha) : alpha, rows_of(b, ldb, r0), ldb, rows_of(a, lda, j0),
                      lda, T(1), cc, this->ldo);
    };
    if (t.ti != t.tj) {
      block(t.i0, t.mi, c);
      return;
    }
    const char u = upper ? 'U' : 'L';
    if (upper && from > 0) block(t.i0, from, c);
    T *d = c + from;
    if (two)
      hqr::blas::syr2k<T>(herm, u, trans, w, k, alpha, rows_of(a, lda, j0), lda, rows_of(b, ldb, j0), ldb, beta, d,
                   this->ldo);
    else
      hqr::blas::syrk<T>(herm, u, trans, w, k, alpha, rows_of(a, lda, j0), lda, beta, d, this->ldo);
  }
};

// symm/hemm, trmm and trsm: A (order na) whole on the device; the other
// operand (B, m-by-n) in column slabs (side 'L') or row panels ('R').
enum class Side3 { symm, trmm, trsm };
template <class T> struct WholeA final : Routine<T> {
  Side3 what;
  bool left, upper, herm, unit;
  char transa;
  lint m, n, na;
  T alpha, beta;
  const T *a, *b;
  lint lda, ldb, width;
  WholeA(Side3 w, bool left_, bool upper_, bool herm_, char ta, bool unit_, lint m_, lint n_, T al, const T *a_,
         lint lda_, const T *b_, lint ldb_, T be, T *c, lint ldc, lint edge)
      : what(w), left(left_), upper(upper_), herm(herm_), unit(unit_), transa(ta), m(m_), n(n_), alpha(al),
        beta(be), a(a_), b(b_), lda(lda_), ldb(ldb_) {
    this->out = c;
    this->ldo = ldc;
    this->by_rows = !left;
    na = left ? m : n;
    const lint other = left ? n : m;
    width = tile_of(other, edge);
    for (lint s = 0; s < count(other, width); ++s) {
      const lint s0 = s * width, sw = std::min(width, other - s0);
      Tile t = left ? Tile{0, s0, m, sw, 0, s} : Tile{s0, 0, sw, n, s, 0};
      t.need[t.needs++] = {0, 0};
      if (what == Side3::symm) t.need[t.needs++] = {1, s};
      t.read_c = what != Side3::symm || beta != T(0);
      t.flops = (what == Side3::symm ? 2.0 : 1.0) * t.mi * t.nj * na;
      this->tiles.push_back(t);
    }
  }
  HostRect<T> piece(int kind, lint index) const override {
    if (kind == 0) return {a, lda, 0, 0, na, na};
    const lint s0 = index * width;
    return left ? HostRect<T>{b, ldb, 0, s0, m, std::min(width, n - s0)}
                : HostRect<T>{b, ldb, s0, 0, std::min(width, m - s0), n};
  }
  cublasStatus_t gpu(cublasHandle_t h, const Tile &t, const T *const *p, const lint *ld, T *c,
                     lint ldc) const override {
    const cublasSideMode_t side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
    const cublasDiagType_t diag = unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    switch (what) {
      case Side3::symm:
        return CuBlas3<T>::symm(h, herm, side, fill(upper), t.mi, t.nj, alpha, p[0], ld[0], p[1], ld[1], beta, c,
                                ldc);
      case Side3::trmm:
        return blas::trmm(h, side, fill(upper), op_of(transa), diag, t.mi, t.nj, alpha, p[0], ld[0], c, ldc, c,
                          ldc);
      case Side3::trsm:
        return blas::trsm(h, side, fill(upper), op_of(transa), diag, t.mi, t.nj, alpha, p[0], ld[0], c, ldc);
    }
    return CUBLAS_STATUS_INTERNAL_ERROR;
  }
  // Lines from.. of the tile: columns of a slab (side 'L') or rows of a
  // panel ('R'), each independent of the others.
  void cpu(const Tile &t, lint from) const override {
    const lint i0 = t.i0 + (left ? 0 : from), j0 = t.j0 + (left ? from : 0);
    const lint mi = left ? t.mi : t.mi - from, nj = left ? t.nj - from : t.nj;
    T *c = this->out + i0 + std::size_t(j0) * this->ldo;
    const char side = left ? 'L' : 'R', u = upper ? 'U' : 'L', d = unit ? 'U' : 'N';
    switch (what) {
      case Side3::symm:
        hqr::blas::symm<T>(herm, side, u, mi, nj, alpha, a, lda, b + i0 + std::size_t(j0) * ldb, ldb, beta, c, this->ldo);
        return;
      case Side3::trmm:
        hqr::blas::trmm<T>(side, u, transa, d, mi, nj, alpha, a, lda, c, this->ldo);
        return;
      case Side3::trsm:
        hqr::blas::trsm<T>(side, u, transa, d, mi, nj, alpha, a, lda, c, this->ldo);
        return;
    }
  }
};

// How many GPUs: one per 200 GFLOP of work (a smaller share costs more in
// setup and in reading A on every GPU than it saves), every member of the
// set under HQR_GPU_MIN_N.
int gpus_for(const DeviceSet &set, double flops) {
  if (config::gpu_min_n() >= 0) return set.count;
  return int(std::max(1.0, std::min<double>(set.count, flops / 2e11)));
}

template <class T> Result run(const Routine<T> &r, double flops) {
  const DeviceSet set = device_set();
  if (!set.count) return {false, 0, context_error(), 0};
  int g = gpus_for(set, flops);
  // Columns (rows) of tiles are dealt whole: no more GPUs than those.
  lint lines = 0;
  for (const Tile &t : r.tiles) lines = std::max(lines, (r.by_rows ? t.ti : t.tj) + 1);
  g = int(std::min<lint>(g, lines));
  DeviceSet used;
  used.count = g;
  for (int d = 0; d < g; ++d) used.member[d] = set.member[d];
  SetLock lock(used);
  TileEngine<T> engine(r);
  Result res = engine.run(used, g);
  if (res.ran) res.path = g > 1 ? "gpu-tiles (several GPUs)" : "gpu-tiles";
  return res;
}

// The routine's tiles at the default edge, then at half as long an edge
// while a GPU's memory holds no schedule for them (pieces are an edge by
// the inner dimension): small memory (HQR_GPU_MEMORY) or a long k.
template <class R, class... A> Result shrinking(double flops, A... args) {
  for (lint edge = tile_edge();; edge /= 2) {
    const R r(args..., edge);
    const Result res = run(r, flops);
    if (res.ran || res.why != kTilesTooLarge || edge <= 32) return res;
  }
}

}  // namespace

template <class T>
Result gemm(char transa, char transb, lint m, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb,
            T beta, T *c, lint ldc) {
  return shrinking<Gemm<T>>(2.0 * m * n * k, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
template <class T>
Result symm(bool left, bool upper, bool herm, lint m, lint n, T alpha, const T *a, lint lda, const T *b, lint ldb,
            T beta, T *c, lint ldc) {
  return shrinking<WholeA<T>>(2.0 * m * n * (left ? m : n), Side3::symm, left, upper, herm, 'N', false, m, n, alpha,
                              a, lda, b, ldb, beta, c, ldc);
}
template <class T>
Result syrk(bool upper, char trans, bool herm, lint n, lint k, T alpha, const T *a, lint lda, T beta, T *c, lint ldc) {
  return shrinking<RankK<T>>(1.0 * n * n * k, false, herm, upper, trans, n, k, alpha, a, lda, a, lda, beta, c, ldc);
}
template <class T>
Result syr2k(bool upper, char trans, bool herm, lint n, lint k, T alpha, const T *a, lint lda, const T *b, lint ldb,
             T beta, T *c, lint ldc) {
  return shrinking<RankK<T>>(2.0 * n * n * k, true, herm, upper, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
template <class T>
Result trmm(bool left, bool upper, char transa, bool unit, lint m, lint n, T alpha, const T *a, lint lda, T *b,
            lint ldb) {
  return shrinking<WholeA<T>>(1.0 * m * n * (left ? m : n), Side3::trmm, left, upper, false, transa, unit, m, n,
                              alpha, a, lda, static_cast<const T *>(b), ldb, T(0), b, ldb);
}
template <class T>
Result trsm(bool left, bool upper, char transa, bool unit, lint m, lint n, T alpha, const T *a, lint lda, T *b,
            lint ldb) {
  return shrinking<WholeA<T>>(1.0 * m * n * (left ? m : n), Side3::trsm, left, upper, false, transa, unit, m, n,
                              alpha, a, lda, static_cast<const T *>(b), ldb, T(0), b, ldb);
}

#define HQR_INSTANTIATE(T)                                                                                       \
  template Result gemm(char, char, lint, lint, lint, T, const T *, lint, const T *, lint, T, T *, lint);         \
  template Result symm(bool, bool, bool, lint, lint, T, const T *, lint, const T *, lint, T, T *, lint);         \
  template Result syrk(bool, char, bool, lint, lint, T, const T *, lint, T, T *, lint);                          \
  template Result syr2k(bool, char, bool, lint, lint, T, const T *, lint, const T *, lint, T, T *, lint);        \
  template Result trmm(bool, bool, char, bool, lint, lint, T, const T *, lint, T *, lint);                       \
  template Result trsm(bool, bool, char, bool, lint, lint, T, const T *, lint, T *, lint);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

}  // namespace hqr::gpu
