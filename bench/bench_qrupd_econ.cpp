// Benchmark (a program, not a test): the economy-form QR updates of issue
// 38, double, host arrays, hqr beside its peers in the same run. One row per
// case: median seconds of `reps` runs after one warm-up, each run on fresh
// copies of the inputs (the copies are not timed), and hqr's speed-up over
// each peer (peer time / hqr time):
//   hqr           dqrupd_*_econ_ with the optimal LWORK, on the path hqr
//                 chooses (adding columns: the GPU where its cost model
//                 says so; the others: the CPU); the HQR_VERBOSE line says
//                 which
//   hqr-cpu       adding columns: the same call held on the CPU
//                 (hqr_set_gpu_min_n past the size), its blocked path
//   refactor-hqr  the economy factors of the updated matrix from scratch:
//                 the exported dgeqrf_ + dorgqr_ (Q M-by-N'), so hqr's own
//                 dgeqrf/dorgqr, on the GPU where they have a path
//   qrupdate      Debian's libqrupdate1, one column or row at a time in its
//                 economy form (k = n): dqrinc, dqrdec; adding rows, which
//                 qrupdate has only for the full Q (dqrinr), as dqr1up with
//                 k = n on Q with a zero row appended (A + e_j*x^T). The
//                 first S of the P steps are timed and scaled by P/S (S in
//                 the row; QRUPDATE_STEPS sets it); dlopened from
//                 $QRUPDATE_LIB or libqrupdate.so.1
//   bound         reading and writing, with every thread, the bytes of Q
//                 and U that the update cannot avoid moving (listed in the
//                 row, each case's reason in run_case), timed in this
//                 run; "hqr/bound" is hqr's time over it. Adding rows must
//                 also multiply Q by an N-by-N triangle: that product alone
//                 (dtrmm on a copy of Q, on the CPU) is given as "trmm".
//   gpu-est       a lower bound for any GPU path, from the H200 hosts' staged
//                 link rates (bench/results/bounds-NVIDIA-H200-2026-11-27b.txt:
//                 54.6 GB/s one way, 53.2 GB/s both ways together): the
//                 bytes of Q and U that must go up and come back down.
// "check" is ||Q~R~ - A~||_F/||A~||_F and ||Q~^T Q~ - I||_F of hqr's last
// run against the updated matrix formed from A itself (A is random, its
// economy factors from dgeqrf + dorgqr: never zeros or identity columns).
//
//   bench_qrupd_econ [m=1000000] [n=200] [pc=10] [pr=1000] [reps=3]
//                    [cases=addcols-1,addcols-end,delcols-1,addrows]
// pc: columns added or deleted; pr: rows added. HQR_BENCH_HQR_ONLY=1: hqr
// and the bound alone (A/B runs of hqr's own versions). Cases: addcols-1 (J = 1),
// addcols-end (J = N+1), addcols-mid (J = N/2+1), delcols-1 (J = 1, JOBQ = 'U'), addrows (J = M+1,
// JOBQ = 'U'), addrows-1 (J = 1: every row of Q moves down by P).
// Memory: about 8 copies of an M-by-(N+P) double array at the peak
// (m = 1e6, n = 200: 14 GB). Threads: HQR_CPU_THREADS, else every core.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "hqr.h"
#include "qrupdate.hpp"
#include "timing.hpp"

extern "C" {
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);
void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, double *, const int *, size_t, size_t);
void dtrmm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *, size_t, size_t, size_t, size_t);
}

namespace {

using idx = std::ptrdiff_t;

// fn(t, r0, r1) on `threads` contiguous row ranges of [0, m), one thread each.
void parallel_rows(idx m, int threads, const std::function<void(int, idx, idx)> &fn) {
  std::vector<std::thread> pool;
  const idx per = (m + threads - 1) / threads;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back([&, t] { fn(t, std::min(m, t * per), std::min(m, (t + 1) * per)); });
  fn(0, 0, std::min(m, per));
  for (std::thread &th : pool) th.join();
}

// Fast uniform(-1, 1) fill, in parallel: the inputs are gigabytes.
void fill(double *x, idx count, uint64_t seed, int threads) {
  parallel_rows(count, threads, [&](int, idx r0, idx r1) {
    uint64_t s = (seed + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t(r0) * 0xD1B54A32D192ED03ull);
    for (idx i = r0; i < r1; ++i) {
      s ^= s << 13;
      s ^= s >> 7;
      s ^= s << 17;
      x[i] = double(s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    }
  });
}
// dst(0:rows, 0:cols) = src(...), in parallel by rows.
void copy_block(idx rows, idx cols, const double *src, idx lds, double *dst, idx ldd, int threads) {
  parallel_rows(rows, threads, [&](int, idx r0, idx r1) {
    for (idx c = 0; c < cols; ++c) std::memcpy(dst + r0 + c * ldd, src + r0 + c * lds, sizeof(double) * (r1 - r0));
  });
}

// ---- the bound: moving the bytes an update must move --------------------------

// One pass over rows 0..rows-1 of some columns: read them, or read and
// write them in place (x <- s*x, s = 1 from memory), or read a source and
// write a destination (dst <- s*src). Every thread takes a range of rows
// and runs down each column of it: the longest contiguous streams.
struct Stream {
  enum Mode { read, rmw, copy } mode;
  double *a;  // read / rmw: the columns; copy: the destination
  idx lda, cols;
  const double *src;  // copy only
  idx lds;
  idx shift;  // copy only: destination row = source row + shift
};
volatile double g_one = 1.0;
uint64_t g_sink;

double stream_pass(idx rows, const std::vector<Stream> &parts, int threads) {
  const double s = g_one;
  std::vector<uint64_t> sink(size_t(threads) * 8);
  const double t = seconds([&] {
    parallel_rows(rows, threads, [&](int t, idx r0, idx r1) {
      uint64_t x0 = 0, x1 = 0, x2 = 0, x3 = 0;
      for (const Stream &p : parts)
        for (idx c = 0; c < p.cols; ++c) {
          if (p.mode == Stream::read) {
            const uint64_t *v = reinterpret_cast<const uint64_t *>(p.a + c * p.lda);
            idx i = r0;
            for (; i + 4 <= r1; i += 4) x0 ^= v[i], x1 ^= v[i + 1], x2 ^= v[i + 2], x3 ^= v[i + 3];
            for (; i < r1; ++i) x0 ^= v[i];
          } else if (p.mode == Stream::rmw) {
            double *v = p.a + c * p.lda;
            for (idx i = r0; i < r1; ++i) v[i] *= s;
          } else {
            const double *v = p.src + c * p.lds;
            double *d = p.a + c * p.lda + p.shift;
            for (idx i = r0; i < r1; ++i) d[i] = s * v[i];
          }
        }
      sink[size_t(t) * 8] = x0 ^ x1 ^ x2 ^ x3;
    });
  });
  for (uint64_t v : sink) g_sink ^= v;
  return t;
}

// ---- qrupdate --------------------------------------------------------------------

using qrinc_t = void(const int *, const int *, const int *, double *, const int *, double *, const int *, const int *,
                     const double *, double *);
using qrdec_t = void(const int *, const int *, const int *, double *, const int *, double *, const int *, const int *,
                     double *);
using qr1up_t = void(const int *, const int *, const int *, double *, const int *, double *, const int *, double *,
                     double *, double *);
struct Qrupdate {
  qrinc_t *inc = nullptr;
  qrdec_t *dec = nullptr;
  qr1up_t *up1 = nullptr;
  bool load() {
    inc = qrupdate_symbol<qrinc_t>("dqrinc_");
    dec = qrupdate_symbol<qrdec_t>("dqrdec_");
    up1 = qrupdate_symbol<qr1up_t>("dqr1up_");
    return inc && dec && up1;
  }
};

// ---- the cases ---------------------------------------------------------------------

enum class Op { addcols, delcols, addrows };
struct Case {
  std::string name;
  Op op;
  int p, j;  // j: 1-based; 0 = N+1 (addcols) or M+1 (addrows)
};

struct Base {
  int m, n;
  std::vector<double> a, q, r;  // A (m-by-n), its economy Q (m-by-n), R (n-by-n)
};

// ||Q~*R~ - A~||_F / ||A~||_F and ||Q~^T*Q~ - I||_F, through the exported
// dgemm_/dsyrk_ (tmp: m-by-k).
void check(int m, int k, const double *q, int ldq, const double *r, int ldr, const double *at, int ldat,
           std::vector<double> &tmp, int threads, double &res, double &orth) {
  std::vector<double> rr(size_t(k) * k, 0.0);
  for (int c = 0; c < k; ++c)
    for (int i = 0; i <= c; ++i) rr[i + size_t(c) * k] = r[i + size_t(c) * ldr];
  copy_block(m, k, at, ldat, tmp.data(), m, threads);
  double anorm = 0;
  for (size_t i = 0; i < size_t(m) * k; ++i) anorm += tmp[i] * tmp[i];
  const double one = 1, mone = -1, zero = 0;
  dgemm_("N", "N", &m, &k, &k, &one, q, &ldq, rr.data(), &k, &mone, tmp.data(), &m, 1, 1);
  double e = 0;
  for (size_t i = 0; i < size_t(m) * k; ++i) e += tmp[i] * tmp[i];
  res = std::sqrt(e / anorm);
  std::vector<double> g(size_t(k) * k, 0.0);
  dsyrk_("U", "T", &k, &m, &one, q, &ldq, &zero, g.data(), &k, 1, 1);
  double o = 0;
  for (int c = 0; c < k; ++c)
    for (int i = 0; i <= c; ++i) {
      const double d = g[i + size_t(c) * k] - (i == c ? 1.0 : 0.0);
      o += (i == c ? 1 : 2) * d * d;
    }
  orth = std::sqrt(o);
}

void run_case(const Case &cs, const Base &b, int reps, int threads, const Qrupdate &qru) {
  const int m = b.m, n = b.n, p = cs.p;
  const bool addcols = cs.op == Op::addcols, delcols = cs.op == Op::delcols, addrows = cs.op == Op::addrows;
  const int j = cs.j > 0 ? cs.j : addrows ? m + 1 : n + 1;
  const int mt = addrows ? m + p : m;                     // rows after the update
  const int nt = addcols ? n + p : delcols ? n - p : n;   // columns after it
  const int ldq = addrows ? m + p : m, qcols = addcols ? n + p : n;
  const int ldr = addcols ? n + p : n;
  const int ldu = addrows ? p : m, ucols = addrows ? n : p;
  const char jobq = 'U';

  // The inputs, kept; the working copies restored before every run.
  std::vector<double> q0(size_t(ldq) * qcols, 0.0), r0(size_t(ldr) * ldr, 0.0), u0(size_t(ldu) * ucols);
  copy_block(m, n, b.q.data(), m, q0.data(), ldq, threads);
  for (int c = 0; c < n; ++c)
    for (int i = 0; i <= c; ++i) r0[i + size_t(c) * ldr] = b.r[i + size_t(c) * n];
  fill(u0.data(), idx(u0.size()), 7 + p, threads);
  std::vector<double> q(q0.size()), r(r0.size()), u(u0.size());

  // The updated matrix A~ (mt-by-nt) from A itself.
  std::vector<double> at(size_t(mt) * nt);
  if (addcols) {
    copy_block(m, j - 1, b.a.data(), m, at.data(), m, threads);
    copy_block(m, p, u0.data(), m, at.data() + size_t(j - 1) * m, m, threads);
    copy_block(m, n - j + 1, b.a.data() + size_t(j - 1) * m, m, at.data() + size_t(j - 1 + p) * m, m, threads);
  } else if (delcols) {
    copy_block(m, j - 1, b.a.data(), m, at.data(), m, threads);
    copy_block(m, n - j - p + 1, b.a.data() + size_t(j - 1 + p) * m, m, at.data() + size_t(j - 1) * m, m, threads);
  } else {
    copy_block(j - 1, n, b.a.data(), m, at.data(), mt, threads);
    for (int c = 0; c < n; ++c)
      for (int i = 0; i < p; ++i) at[size_t(j - 1 + i) + size_t(c) * mt] = u0[i + size_t(c) * p];
    copy_block(m - j + 1, n, b.a.data() + (j - 1), m, at.data() + (j - 1 + p), mt, threads);
  }

  auto call = [&](double *w, int lwork) {
    int info = 0;
    if (addcols)
      dqrupd_addcols_econ_(&m, &n, &p, &j, q.data(), &ldq, r.data(), &ldr, u.data(), &ldu, w, &lwork, &info);
    else if (delcols)
      dqrupd_delcols_econ_(&jobq, &m, &n, &p, &j, q.data(), &ldq, r.data(), &ldr, w, &lwork, &info, 1);
    else
      dqrupd_addrows_econ_(&jobq, &m, &n, &p, &j, q.data(), &ldq, r.data(), &ldr, u.data(), &ldu, w, &lwork, &info,
                           1);
    if (info != 0) std::fprintf(stderr, "%s: info %d\n", cs.name.c_str(), info), std::exit(1);
  };
  auto prep = [&] {
    copy_block(ldq, qcols, q0.data(), ldq, q.data(), ldq, threads);
    r = r0;
    copy_block(ldu, ucols, u0.data(), ldu, u.data(), ldu, threads);
  };
  prep();
  double wq = 0;
  call(&wq, -1);
  std::vector<double> w(std::max<size_t>(1, size_t(wq)));

  // hqr. Its HQR_VERBOSE lines go to the log unless HQR_VERBOSE rules.
  const bool own_verbose = !std::getenv("HQR_VERBOSE");
  if (own_verbose) hqr_set_verbose(1);
  const Timing t_hqr = median_timing(reps, prep, [&] { call(w.data(), int(w.size())); });
  if (own_verbose) hqr_set_verbose(0);
  double res = 0, orth = 0;
  double t_cpu = 0;
  if (addcols) {  // checked below from the hqr run's factors: run it again after this
    hqr_set_gpu_min_n(1L << 40);
    t_cpu = median_timing(reps, prep, [&] { call(w.data(), int(w.size())); }).s;
    hqr_set_gpu_min_n(-1);
    prep();
    call(w.data(), int(w.size()));
  }
  {
    std::vector<double> tmp(size_t(mt) * nt);
    check(mt, nt, q.data(), ldq, r.data(), ldr, at.data(), mt, tmp, threads, res, orth);
  }

  // The bound: the passes over Q and U the update cannot avoid (on the
  // working copies; s = 1 leaves them as they are).
  std::vector<std::vector<Stream>> passes;
  const idx rows = m;
  const idx jj = j - 1;
  double *qw = q.data(), *uw = u.data();
  std::string why;
  if (addcols) {
    // R's new columns are Q^T*U (and the norms of what is left): a sum over
    // all of Q's rows, which every rotation, and Q's new columns, depend
    // on. Q (far larger than the caches) is read once for it, and once
    // more to make the new columns and rotate columns J.. .
    passes.push_back({{Stream::read, qw, ldq, n, nullptr, 0, 0}, {Stream::read, uw, ldu, p, nullptr, 0, 0}});
    passes.push_back({{Stream::read, qw, ldq, jj, nullptr, 0, 0},
                      {Stream::rmw, qw + jj * ldq, ldq, n - jj, nullptr, 0, 0},
                      {Stream::copy, qw + size_t(n) * ldq, ldq, p, uw, ldu, 0}});
    why = "read Q,U; read Q,U, write Q(:,J:N+P)";
  } else if (delcols) {
    // The reflectors come from R alone: one pass reads Q's columns J..N
    // and writes columns J..N-P.
    passes.push_back({{Stream::rmw, qw + jj * ldq, ldq, n - p - jj, nullptr, 0, 0},
                      {Stream::read, qw + size_t(n - p) * ldq, ldq, p, nullptr, 0, 0}});
    why = "read Q(:,J:N), write Q(:,J:N-P)";
  } else {
    // The new Q is Q*Gt (Gt from R and U alone) with P rows inserted at J:
    // one pass reads Q and writes it (rows J.. P rows further down).
    passes.push_back({{Stream::rmw, qw, ldq, n, nullptr, 0, 0}});
    why = "read Q, write Q";
  }
  double bytes = 0;
  for (const auto &ps : passes)
    for (const Stream &s : ps)
      bytes += 8.0 * double(rows) * double(s.cols) * (s.mode == Stream::read ? 1 : 2);
  std::vector<double> tb;
  for (int rep = 0; rep < std::max(3, reps); ++rep) {
    double t = 0;
    for (const auto &ps : passes) t += stream_pass(rows, ps, threads);
    tb.push_back(t);
  }
  const double t_bound = median(tb);

  if (hqr_only()) {
    std::printf("%-12s m=%d n=%d p=%d j=%d | hqr %8.4f s | bound %8.4f (hqr/bound %.2f) | hqr-cpu %8.4f | check %.1e %.1e\n",
                cs.name.c_str(), m, n, p, j, t_hqr.s, t_bound, t_hqr.s / t_bound, t_cpu, res, orth);
    std::fflush(stdout);
    return;
  }

  // Adding rows: the product with the triangle alone, on the CPU.
  double t_trmm = 0;
  if (addrows) {
    std::vector<double> gt(size_t(n) * n, 0.0);
    for (int c = 0; c < n; ++c)
      for (int i = 0; i <= c; ++i) gt[i + size_t(c) * n] = r0[i + size_t(c) * ldr];
    const double one = 1;
    hqr_set_gpu_min_n(1L << 40);
    const Timing tt = median_timing(reps, prep, [&] { dtrmm_("R", "U", "N", "N", &m, &n, &one, gt.data(), &n, q.data(), &ldq, 1, 1, 1, 1); });
    hqr_set_gpu_min_n(-1);
    t_trmm = tt.s;
  }

  // Refactoring: dgeqrf + dorgqr of A~, economy.
  std::vector<double> a(at.size()), tau(size_t(std::max(1, nt)));
  double lw1 = 0, lw2 = 0;
  int info = 0, lwm1 = -1;
  dgeqrf_(&mt, &nt, a.data(), &mt, tau.data(), &lw1, &lwm1, &info);
  dorgqr_(&mt, &nt, &nt, a.data(), &mt, tau.data(), &lw2, &lwm1, &info);
  std::vector<double> wr(size_t(std::max(lw1, lw2)) + 1);
  const int lwr = int(wr.size());
  const Timing t_ref = median_timing(reps, [&] { copy_block(mt, nt, at.data(), mt, a.data(), mt, threads); }, [&] {
    dgeqrf_(&mt, &nt, a.data(), &mt, tau.data(), wr.data(), &lwr, &info);
    dorgqr_(&mt, &nt, &nt, a.data(), &mt, tau.data(), wr.data(), &lwr, &info);
  });
  std::vector<double>().swap(a);
  std::vector<double>().swap(at);

  // qrupdate, economy form, one column or row at a time: the first S of
  // the P steps, scaled by P/S.
  double t_qru = 0;
  int steps = 0;
  if (qru.inc) {
    const char *sv = std::getenv("QRUPDATE_STEPS");
    steps = std::max(1, std::min(p, sv ? std::atoi(sv) : delcols ? 10 : 2));
    prep();
    std::vector<double> wk(size_t(2) * (n + p) + 8), x(size_t(mt) + 1), v(static_cast<size_t>(n));
    const double s = seconds([&] {
      for (int i = 0; i < steps; ++i) {
        if (addcols) {
          const int ni = n + i, ji = j + i;
          qru.inc(&m, &ni, &ni, q.data(), &ldq, r.data(), &ldr, &ji, u.data() + size_t(i) * ldu, wk.data());
        } else if (delcols) {
          const int ni = n - i;
          qru.dec(&m, &ni, &ni, q.data(), &ldq, r.data(), &ldr, &j, wk.data());
        } else {  // a zero row m+i of Q, then A + e_(m+i) * U(i,:)
          const int mi = m + i + 1;
          for (int c = 0; c < n; ++c) q[size_t(m + i) + size_t(c) * ldq] = 0, v[c] = u[i + size_t(c) * ldu];
          std::fill(x.begin(), x.begin() + mi, 0.0);
          x[size_t(m + i)] = 1;
          qru.up1(&mi, &n, &n, q.data(), &ldq, r.data(), &ldr, x.data(), v.data(), wk.data());
        }
      }
    });
    t_qru = s * p / steps;
  }

  // A GPU path's floor: what must cross the link.
  const double gb = 1e-9 * 8.0;
  double up = 0, down = 0;
  if (addcols) up = gb * m * (n + p), down = gb * m * (n + p - jj);
  if (delcols) up = gb * m * (n - jj), down = gb * m * (n - p - jj);
  if (addrows) up = gb * m * n + gb * p * n, down = gb * (m + p) * n;
  const double t_gpu = std::max({(up + down) / 53.2, up / 54.6, down / 54.6});

  std::printf("%-12s m=%d n=%d p=%d j=%d | hqr %8.4f s | bound %8.4f (%s: %.2f GB, %.1f GB/s; hqr/bound %.2f)",
              cs.name.c_str(), m, n, p, j, t_hqr.s, t_bound, why.c_str(), bytes * 1e-9, bytes * 1e-9 / t_bound,
              t_hqr.s / t_bound);
  if (addrows)
    std::printf(" | trmm %8.4f (%.0f GFLOP/s; hqr/trmm %.2f)", t_trmm, 1e-9 * double(m) * n * n / t_trmm,
                t_hqr.s / t_trmm);
  if (addcols) std::printf(" | hqr-cpu %8.4f (x %6.2f)", t_cpu, t_cpu / t_hqr.s);
  std::printf(" | refactor-hqr %8.4f%s (x %6.2f)", t_ref.s, t_ref.once ? " 1x" : "", t_ref.s / t_hqr.s);
  if (qru.inc)
    std::printf(" | qrupdate %9.3f (S=%d, x %7.1f)", t_qru, steps, t_qru / t_hqr.s);
  else
    std::printf(" | qrupdate -");
  double best = t_ref.s;
  if (qru.inc) best = std::min(best, t_qru);
  std::printf(" | best-peer %8.4f (x %6.2f) | gpu-est >= %.4f (%.2f GB up, %.2f down) | check %.1e %.1e\n", best,
              best / t_hqr.s, t_gpu, up, down, res, orth);
  std::fflush(stdout);
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

}  // namespace

int main(int argc, char **argv) {
  int m = 1000000, n = 200, pc = 10, pr = 1000, reps = 3;
  std::string only = "addcols-1,addcols-end,delcols-1,addrows";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const size_t eq = a.find('=');
    const std::string k = a.substr(0, eq), v = eq == std::string::npos ? "" : a.substr(eq + 1);
    if (k == "m") m = std::atoi(v.c_str());
    else if (k == "n") n = std::atoi(v.c_str());
    else if (k == "pc") pc = std::atoi(v.c_str());
    else if (k == "pr") pr = std::atoi(v.c_str());
    else if (k == "reps") reps = std::atoi(v.c_str());
    else if (k == "cases") only = v;
    else {
      std::fprintf(stderr, "usage: %s [m=M] [n=N] [pc=P] [pr=P] [reps=R] [cases=a,b,...]\n", argv[0]);
      return 2;
    }
  }
  if (m < n + pc || pc > n || n < 1) return std::fprintf(stderr, "need n >= pc and m >= n + pc\n"), 2;
  const int threads = host_threads();
  const Case cases[] = {
      {"addcols-1", Op::addcols, pc, 1},
      {"addcols-end", Op::addcols, pc, 0},
      {"addcols-mid", Op::addcols, pc, n / 2 + 1},
      {"delcols-1", Op::delcols, pc, 1},
      {"addrows", Op::addrows, pr, 0},
      {"addrows-1", Op::addrows, pr, 1},
  };
  Qrupdate qru;
  if (!qru.load()) {
    std::fprintf(stderr, "qrupdate not found (QRUPDATE_LIB): its column is left empty\n");
    qru = Qrupdate{};
  }
  const char *ct = std::getenv("OPENBLAS_CORETYPE");
  std::printf("# device: %s (hqr_device=%d), hqr %s; double; reps %d\n", hqr_device_name(), hqr_device(),
              hqr_version(), reps);
  std::printf("# host: %s, %u cores, %d threads (HQR_CPU_THREADS), OPENBLAS_CORETYPE=%s\n", cpu_model().c_str(),
              std::thread::hardware_concurrency(), threads, ct ? ct : "(unset)");
  std::printf("# median of %d after a warm-up (1x: one run, over 2 s); (x r) = peer time / hqr time; hqr/bound = hqr "
              "time / the bound's\n"
              "# bound: every thread reading and writing only the bytes of Q and U the update must move (named in "
              "the row), this run\n"
              "# qrupdate: economy form, one column (dqrinc/dqrdec, k = n) or row (dqr1up, k = n, on Q with a zero "
              "row) at a time; the first S of the P steps timed, scaled by P/S\n"
              "# gpu-est: what must cross the link, at 54.6 GB/s one way, 53.2 GB/s both ways together (the H200 "
              "hosts' staged rates)\n",
              reps);
  std::fflush(stdout);

  // A random m-by-n A and its economy factors.
  Base b;
  b.m = m, b.n = n;
  b.a.resize(size_t(m) * n);
  fill(b.a.data(), idx(b.a.size()), 1, threads);
  b.q = b.a;
  b.r.assign(size_t(n) * n, 0.0);
  {
    std::vector<double> tau(static_cast<size_t>(n));
    double lw1 = 0, lw2 = 0;
    int info = 0, lwm1 = -1;
    dgeqrf_(&m, &n, b.q.data(), &m, tau.data(), &lw1, &lwm1, &info);
    dorgqr_(&m, &n, &n, b.q.data(), &m, tau.data(), &lw2, &lwm1, &info);
    std::vector<double> w(size_t(std::max(lw1, lw2)) + 1);
    const int lw = int(w.size());
    const double t = seconds([&] {
      dgeqrf_(&m, &n, b.q.data(), &m, tau.data(), w.data(), &lw, &info);
      for (int c = 0; c < n; ++c)
        for (int i = 0; i <= c; ++i) b.r[i + size_t(c) * n] = b.q[i + size_t(c) * m];
      dorgqr_(&m, &n, &n, b.q.data(), &m, tau.data(), w.data(), &lw, &info);
    });
    if (info != 0) return std::fprintf(stderr, "factoring A: info %d\n", info), 1;
    std::printf("# A: %d x %d uniform(-1,1), economy factors by dgeqrf + dorgqr in %.2f s\n", m, n, t);
    std::fflush(stdout);
  }
  for (const Case &c : cases)
    if (("," + only + ",").find("," + c.name + ",") != std::string::npos) run_case(c, b, reps, threads, qru);
  return 0;
}
