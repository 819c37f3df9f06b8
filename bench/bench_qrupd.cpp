// Benchmark (a program, not a test): the QR updates of issue 6, double,
// host to host, hqr beside its peers in the same run. One row per case:
// median seconds of `reps` runs after one warm-up (each run on fresh copies
// of the inputs; the copies are not timed), and hqr's speed-up over each
// peer (peer time / hqr time):
//   hqr            dqrupd_* with the optimal LWORK, hqr's own choice of path
//                  (HQR_VERBOSE line in the log says which ran)
//   hqr-cpu        the same with the GPU switched off (hqr_set_gpu_min_n)
//   refactor-hqr   the updated matrix factored from scratch through the
//                  exported dgeqrf_ (+ dorgqr_ for the full Q where the
//                  update returns Q), so hqr's GPU geqrf is used where it has one
//   refactor-cusolver  cusolverDnDgeqrf (+ Dorgqr) on data already on the
//                  device (no transfers: a lower bound for any refactoring)
//   qrupdate       the qrupdate library (dqrinc/dqrdec/dqrinr/dqrder, one
//                  column or row at a time, full Q); dlopened from
//                  $QRUPDATE_LIB. A P-step loop takes minutes here, so the
//                  first S steps are timed and scaled by P/S (S in the table)
// Peers slower than 2 s are timed once (marked "1x"). Inputs are random (Q
// is not orthogonal): the work is the same, and test_qrupd checks results;
// "check" compares R's column norms between hqr and hqr-cpu (not for
// delrows, see run_case; invariant under
// the update's orthogonal transformations).
//   bench_qrupd [reps] [case,...]   cases: delcols addcols-end addcols-1 addrows delrows addrows-q
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "hqr.h"
#include "timing.hpp"

using idx = std::ptrdiff_t;

namespace {



// Times run() after prep() (untimed): a warm-up, then the median of reps;
// a peer whose warm-up takes over 2 s is timed once (that run).
struct Timing {
  double s;
  bool once;
};
Timing timed(int reps, const std::function<void()> &prep, const std::function<void()> &run) {
  prep();
  const double first = seconds(run);
  if (first > 2.0) return {first, true};
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    prep();
    t.push_back(seconds(run));
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], false};
}

// Fast uniform(-1, 1) fill: the inputs are gigabytes.
void fill(std::vector<double> &v, uint64_t seed) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (double &x : v) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x = double(s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
}
void copy(std::vector<double> &dst, const std::vector<double> &src) {
  std::memcpy(dst.data(), src.data(), src.size() * sizeof(double));
}

enum class Op { delcols, addcols, addrows, delrows };
struct Case {
  const char *name;
  Op op;
  char jobq;
  int m, n, p, j;
};

// qrupdate's Fortran entry points.
using qrinc_t = void(const int *, const int *, const int *, double *, const int *, double *, const int *, const int *,
                     const double *, double *);
using qrdec_t = void(const int *, const int *, const int *, double *, const int *, double *, const int *, const int *,
                     double *);
using qrinr_t = void(const int *, const int *, double *, const int *, double *, const int *, const int *, double *,
                     double *);
using qrder_t = void(const int *, const int *, double *, const int *, double *, const int *, const int *, double *);
struct Qrupdate {
  qrinc_t *inc = nullptr;
  qrdec_t *dec = nullptr;
  qrinr_t *inr = nullptr;
  qrder_t *der = nullptr;
  bool load() {
    const char *path = std::getenv("QRUPDATE_LIB");
    void *h = dlopen(path ? path : "libqrupdate.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return false;
    inc = reinterpret_cast<qrinc_t *>(dlsym(h, "dqrinc_"));
    dec = reinterpret_cast<qrdec_t *>(dlsym(h, "dqrdec_"));
    inr = reinterpret_cast<qrinr_t *>(dlsym(h, "dqrinr_"));
    der = reinterpret_cast<qrder_t *>(dlsym(h, "dqrder_"));
    return inc && dec && inr && der;
  }
};

// R's column norms, for the consistency check.
std::vector<double> col_norms(const std::vector<double> &r, int ld, int rows, int cols) {
  std::vector<double> out(cols);
  for (int c = 0; c < cols; ++c) {
    double s = 0;
    for (int i = 0; i < rows; ++i) s += r[i + size_t(c) * ld] * r[i + size_t(c) * ld];
    out[c] = std::sqrt(s);
  }
  return out;
}

void run_case(const Case &cs, int reps, cusolverDnHandle_t solver, const Qrupdate &qru) {
  const int m = cs.m, n = cs.n, p = cs.p, j = cs.j;
  const bool wantq = cs.jobq == 'U';
  const bool addrows = cs.op == Op::addrows, addcols = cs.op == Op::addcols;
  const int ld = addrows ? m + p : m;  // Q and R: room for the new rows
  const int rcols = addcols ? n + p : n;
  // The updated matrix's shape (what refactoring factors).
  const int mu = addrows ? m + p : cs.op == Op::delrows ? m - p : m;
  const int nu = addcols ? n + p : cs.op == Op::delcols ? n - p : n;

  std::vector<double> q0(size_t(ld) * ld), r0(size_t(ld) * rcols, 0.0), u0;
  fill(q0, 1);
  {
    std::vector<double> col(ld);
    for (int c = 0; c < n; ++c) {
      fill(col, 100 + c);
      for (int i = 0; i <= std::min(c, m - 1); ++i) r0[i + size_t(c) * ld] = col[i];
    }
  }
  const int urows = addrows ? p : m, ucols = addrows ? n : p;
  u0.resize(size_t(urows) * ucols);
  fill(u0, 2);
  std::vector<double> q(q0.size()), r(r0.size()), u(u0.size());

  auto call = [&](double *w, int lwork) {
    int info = 0;
    const char jq = cs.jobq;
    switch (cs.op) {
      case Op::addcols:
        dqrupd_addcols_(&m, &n, &p, &j, q.data(), &ld, r.data(), &ld, u.data(), &urows, w, &lwork, &info);
        break;
      case Op::delcols:
        dqrupd_delcols_(&jq, &m, &n, &p, &j, q.data(), &ld, r.data(), &ld, w, &lwork, &info, 1);
        break;
      case Op::addrows:
        dqrupd_addrows_(&jq, &m, &n, &p, &j, q.data(), &ld, r.data(), &ld, u.data(), &urows, w, &lwork, &info, 1);
        break;
      case Op::delrows:
        dqrupd_delrows_(&m, &n, &p, &j, q.data(), &ld, r.data(), &ld, w, &lwork, &info);
        break;
    }
    if (info != 0) std::fprintf(stderr, "%s: info %d\n", cs.name, info), std::exit(1);
  };
  double wq = 0;
  copy(q, q0), copy(r, r0), copy(u, u0);
  call(&wq, -1);
  std::vector<double> w(std::max<size_t>(1, size_t(wq)));
  // Only what the routine reads is restored (Q is not referenced with 'N').
  auto prep = [&] {
    if (wantq || cs.op == Op::addcols || cs.op == Op::delrows) copy(q, q0);
    copy(r, r0);
    copy(u, u0);
  };
  auto go = [&] { call(w.data(), int(w.size())); };

  // Every update has a GPU path now (addcols, delrows and addrows with Q
  // since issue 6's second part). The check needs R to depend on the input
  // only through orthogonal transformations: not so for delrows, whose new
  // R depends on how the (here non-orthogonal) Q's deleted rows are cleared.
  const bool has_gpu = true, has_check = cs.op != Op::delrows;
  // The paths taken go to the log; HQR_VERBOSE, when set, rules instead
  // (HQR_VERBOSE=2 adds the GPU path's phases).
  const bool own_verbose = !std::getenv("HQR_VERBOSE");
  if (own_verbose) hqr_set_verbose(1);
  const Timing t_hqr = timed(reps, prep, go);
  if (own_verbose) hqr_set_verbose(0);
  const int out_rows = std::min(mu, ld), out_cols = nu;
  const std::vector<double> norms_hqr = col_norms(r, ld, out_rows, out_cols);
  if (std::getenv("HQR_BENCH_HQR_ONLY")) {  // A/B of hqr's own versions: no peers
    std::printf("%-12s jobq=%c m=%d n=%d p=%d j=%d | hqr %8.4f s\n", cs.name, cs.jobq, m, n, p, j, t_hqr.s);
    std::fflush(stdout);
    return;
  }
  Timing t_cpu{0, false};
  double check = 0;
  if (has_gpu) {
    hqr_set_gpu_min_n(1L << 40);
    t_cpu = timed(reps, prep, go);
    hqr_set_gpu_min_n(-1);
    const std::vector<double> norms_cpu = col_norms(r, ld, out_rows, out_cols);
    for (int c = 0; c < out_cols; ++c)
      check = std::max(check, std::abs(norms_hqr[c] - norms_cpu[c]) / std::max(1e-300, norms_cpu[c]));
  }

  // Refactoring through the exported LAPACK symbols (hqr's geqrf/orgqr).
  const int kq = std::min(mu, nu);
  const size_t abuf = wantq ? size_t(mu) * mu : size_t(mu) * nu;
  std::vector<double> a0(abuf), a(abuf), tau(std::max(1, kq)), rsave(size_t(kq) * nu);
  fill(a0, 3);
  double lwq = 0;
  int info = 0, lwm1 = -1;
  dgeqrf_(&mu, &nu, a.data(), &mu, tau.data(), &lwq, &lwm1, &info);
  double lwq2 = 0;
  if (wantq) dorgqr_(&mu, &mu, &kq, a.data(), &mu, tau.data(), &lwq2, &lwm1, &info);
  std::vector<double> wr(size_t(std::max(lwq, lwq2)) + 1);
  const int lwr = int(wr.size());
  const Timing t_ref = timed(reps, [&] { copy(a, a0); }, [&] {
    dgeqrf_(&mu, &nu, a.data(), &mu, tau.data(), wr.data(), &lwr, &info);
    if (wantq) {  // keep R, then the full Q from the reflectors
      for (int c = 0; c < nu; ++c)
        std::memcpy(rsave.data() + size_t(c) * kq, a.data() + size_t(c) * mu, sizeof(double) * std::min(c + 1, kq));
      dorgqr_(&mu, &mu, &kq, a.data(), &mu, tau.data(), wr.data(), &lwr, &info);
    }
  });

  // cuSOLVER, device data.
  double *dA = nullptr, *dA0 = nullptr, *dtau = nullptr, *dw = nullptr;
  int *dinfo = nullptr, lw1 = 0, lw2 = 0;
  CK(cudaMalloc(&dA, abuf * sizeof(double)));
  CK(cudaMalloc(&dA0, abuf * sizeof(double)));
  CK(cudaMalloc(&dtau, std::max(1, kq) * sizeof(double)));
  CK(cudaMalloc(&dinfo, sizeof(int)));
  CK(cudaMemcpy(dA0, a0.data(), abuf * sizeof(double), cudaMemcpyHostToDevice));
  CK(cusolverDnDgeqrf_bufferSize(solver, mu, nu, dA, mu, &lw1));
  if (wantq) CK(cusolverDnDorgqr_bufferSize(solver, mu, mu, kq, dA, mu, dtau, &lw2));
  CK(cudaMalloc(&dw, size_t(std::max(lw1, lw2) + 1) * sizeof(double)));
  const Timing t_cus = timed(
      reps, [&] { CK(cudaMemcpy(dA, dA0, abuf * sizeof(double), cudaMemcpyDeviceToDevice)); },
      [&] {
        CK(cusolverDnDgeqrf(solver, mu, nu, dA, mu, dtau, dw, std::max(lw1, lw2), dinfo));
        if (wantq) CK(cusolverDnDorgqr(solver, mu, mu, kq, dA, mu, dtau, dw, std::max(lw1, lw2), dinfo));
        CK(cudaDeviceSynchronize());
      });
  cudaFree(dA), cudaFree(dA0), cudaFree(dtau), cudaFree(dw), cudaFree(dinfo);

  // qrupdate: the first S of the P steps, scaled.
  double t_qru = 0;
  int steps = 0;
  if (qru.inc) {
    const char *sv = std::getenv("QRUPDATE_STEPS");
    steps = std::min(p, sv ? std::atoi(sv) : (cs.op == Op::delcols ? 10 : 2));
    copy(q, q0), copy(r, r0), copy(u, u0);
    std::vector<double> x(std::max(m, n) + p + 1), wk(size_t(2) * (ld + n + p) + 8);
    const double s = seconds([&] {
      for (int i = 0; i < steps; ++i) {
        switch (cs.op) {
          case Op::addcols: {
            const int ni = n + i, ji = j + i;
            qru.inc(&m, &ni, &m, q.data(), &ld, r.data(), &ld, &ji, u.data() + size_t(i) * m, wk.data());
            break;
          }
          case Op::delcols: {
            const int ni = n - i;
            qru.dec(&m, &ni, &m, q.data(), &ld, r.data(), &ld, &j, wk.data());
            break;
          }
          case Op::addrows: {
            const int mi = m + i, ji = j + i;
            for (int c = 0; c < n; ++c) x[c] = u[i + size_t(c) * p];
            qru.inr(&mi, &n, q.data(), &ld, r.data(), &ld, &ji, x.data(), wk.data());
            break;
          }
          case Op::delrows: {
            const int mi = m - i;
            qru.der(&mi, &n, q.data(), &ld, r.data(), &ld, &j, wk.data());
            break;
          }
        }
      }
    });
    t_qru = s * p / std::max(1, steps);
  }

  auto ratio = [&](const char *name, const Timing &t, bool show) {
    if (!show) return std::printf(" | %s -", name), void();
    std::printf(" | %s %8.4f%s (x %6.2f)", name, t.s, t.once ? " 1x" : "", t.s / t_hqr.s);
  };
  std::printf("%-12s jobq=%c m=%d n=%d p=%d j=%d | hqr %8.4f s", cs.name, cs.jobq, m, n, p, j, t_hqr.s);
  ratio("hqr-cpu", t_cpu, has_gpu);
  ratio("refactor-hqr", t_ref, true);
  ratio("refactor-cusolver-device", t_cus, true);
  if (qru.inc)
    std::printf(" | qrupdate %8.3f (S=%d, x %7.1f)", t_qru, steps, t_qru / t_hqr.s);
  else
    std::printf(" | qrupdate -");
  double best = std::min(t_ref.s, t_cus.s);
  if (has_gpu) best = std::min(best, t_cpu.s);
  if (qru.inc) best = std::min(best, t_qru);
  std::printf(" | best-peer %8.4f (x %6.2f)", best, best / t_hqr.s);
  if (has_gpu && has_check) std::printf(" | check %.1e", check);
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char **argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 3;
  const std::string only = argc > 2 ? argv[2] : "";
  const Case cases[] = {
      {"delcols", Op::delcols, 'N', 16384, 4096, 100, 2049},
      {"addcols-end", Op::addcols, 'U', 16384, 4096, 100, 3997},
      {"addcols-1", Op::addcols, 'U', 16384, 4096, 100, 1},
      {"addrows", Op::addrows, 'N', 16384, 4096, 512, 8193},
      {"delrows", Op::delrows, 'U', 16384, 4096, 64, 1},
      // Beyond the five: adding rows with Q (its GPU path).
      {"addrows-q", Op::addrows, 'U', 16384, 4096, 512, 8193},
  };
  cusolverDnHandle_t solver;
  CK(cusolverDnCreate(&solver));
  Qrupdate qru;
  if (!qru.load()) {
    std::fprintf(stderr, "qrupdate not found (QRUPDATE_LIB): its column is left empty\n");
    qru = Qrupdate{};
  }
  std::printf("# device: %s (hqr_device=%d), hqr %s; double; reps %d\n", hqr_device_name(), hqr_device(),
              hqr_version(), reps);
  for (const Case &c : cases)
    if (only.empty() || ("," + only + ",").find(std::string(",") + c.name + ",") != std::string::npos)
      run_case(c, reps, solver, qru);
  cusolverDnDestroy(solver);
  return 0;
}
