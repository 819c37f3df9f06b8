// Benchmark (a program, not a test): the QR updates of issue 6, double or
// complex double, host to host, hqr beside its peers in the same run. One
// row per case: median seconds of `reps` runs after one warm-up (each run on
// fresh copies of the inputs; the copies are not timed), and hqr's speed-up
// over each peer (peer time / hqr time):
//   hqr            dqrupd_* (zqrupd_*) with the optimal LWORK, hqr's own
//                  choice of path (HQR_VERBOSE line in the log says which ran)
//   hqr-cpu        the same with the GPU switched off (hqr_set_gpu_min_n)
//   refactor-hqr   the updated matrix factored from scratch through the
//                  exported dgeqrf_ (+ dorgqr_ for the full Q where the
//                  update returns Q; zgeqrf_ + zungqr_), so hqr's GPU geqrf
//                  is used where it has one
//   refactor-cusolver  cusolverDnDgeqrf (+ Dorgqr; Zgeqrf + Zungqr) on data
//                  already on the device (no transfers: a lower bound for
//                  any refactoring)
//   qrupdate       the qrupdate library (dqrinc/dqrdec/dqrinr/dqrder;
//                  zqrinc/zqrdec/zqrinr/zqrder, one column or row at a time,
//                  full Q); dlopened from $QRUPDATE_LIB. A P-step loop takes
//                  minutes here, so the first S steps are timed and scaled by
//                  P/S (S in the table)
// Peers slower than 2 s are timed once (marked "1x"). Inputs are random (Q
// is not orthogonal): the work is the same, and test_qrupd checks results;
// "check" compares R's column norms between hqr and hqr-cpu (not for
// delrows, see run_case; invariant under
// the update's orthogonal transformations).
// The z table adds hqr's double time for the same case in the same run
// (d-hqr) and z's flop rate relative to d's, 4 * d time / z time (a complex
// operation counts four real ones, as LAPACK counts them): the target is
// 80% or more.
//   bench_qrupd [reps] [d|z] [case,...]   cases: delcols addcols-end addcols-1 addrows delrows addrows-q
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <complex>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "hqr.h"
#include "qrupdate.hpp"
#include "timing.hpp"

using idx = std::ptrdiff_t;

namespace {

using zc = std::complex<double>;

// Fast uniform(-1, 1) fill (both parts of a complex number): the inputs are
// gigabytes.
template <class T> void fill(std::vector<T> &v, uint64_t seed) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  double *x = reinterpret_cast<double *>(v.data());
  for (std::size_t i = 0; i < v.size() * sizeof(T) / sizeof(double); ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x[i] = double(s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
}
template <class T> void copy(std::vector<T> &dst, const std::vector<T> &src) {
  std::memcpy(dst.data(), src.data(), src.size() * sizeof(T));
}

enum class Op { delcols, addcols, addrows, delrows };
struct Case {
  const char *name;
  Op op;
  char jobq;
  int m, n, p, j;
};

// qrupdate's Fortran entry points: x = d or z, rw its real workspace (w in
// the real routines), and zqrder's complex one w.
template <class T> struct Qrupdate {
  using inc_t = void(const int *, const int *, const int *, T *, const int *, T *, const int *, const int *, const T *,
                     double *);
  using dec_t = void(const int *, const int *, const int *, T *, const int *, T *, const int *, const int *, double *);
  using inr_t = void(const int *, const int *, T *, const int *, T *, const int *, const int *, T *, double *);
  using dder_t = void(const int *, const int *, T *, const int *, T *, const int *, const int *, T *);
  using zder_t = void(const int *, const int *, T *, const int *, T *, const int *, const int *, T *, double *);
  using der_t = std::conditional_t<std::is_same_v<T, zc>, zder_t, dder_t>;
  inc_t *inc = nullptr;
  dec_t *dec = nullptr;
  inr_t *inr = nullptr;
  der_t *der = nullptr;
  bool load() {
    const std::string x = std::is_same_v<T, zc> ? "z" : "d";
    inc = qrupdate_symbol<inc_t>((x + "qrinc_").c_str());
    dec = qrupdate_symbol<dec_t>((x + "qrdec_").c_str());
    inr = qrupdate_symbol<inr_t>((x + "qrinr_").c_str());
    der = qrupdate_symbol<der_t>((x + "qrder_").c_str());
    return inc && dec && inr && der;
  }
};

// hqr's exported routines and cuSOLVER's refactoring by element type.
template <class T> struct Lib;
template <> struct Lib<double> {
  static constexpr const char *name = "double";
  static constexpr auto addcols = dqrupd_addcols_;
  static constexpr auto delcols = dqrupd_delcols_;
  static constexpr auto addrows = dqrupd_addrows_;
  static constexpr auto delrows = dqrupd_delrows_;
  static constexpr auto geqrf = dgeqrf_;
  static constexpr auto orgqr = dorgqr_;
  static double *lp(double *x) { return x; }
  static double *cu(double *x) { return x; }
  static constexpr auto geqrf_work = cusolverDnDgeqrf_bufferSize;
  static constexpr auto orgqr_work = cusolverDnDorgqr_bufferSize;
  static constexpr auto dgeqrf = cusolverDnDgeqrf;
  static constexpr auto dorgqr = cusolverDnDorgqr;
};
template <> struct Lib<zc> {
  static constexpr const char *name = "complex double (z)";
  static constexpr auto addcols = zqrupd_addcols_;
  static constexpr auto delcols = zqrupd_delcols_;
  static constexpr auto addrows = zqrupd_addrows_;
  static constexpr auto delrows = zqrupd_delrows_;
  static constexpr auto geqrf = zgeqrf_;
  static constexpr auto orgqr = zungqr_;
  static lapack_complex_double *lp(zc *x) { return reinterpret_cast<lapack_complex_double *>(x); }
  static cuDoubleComplex *cu(zc *x) { return reinterpret_cast<cuDoubleComplex *>(x); }
  static constexpr auto geqrf_work = cusolverDnZgeqrf_bufferSize;
  static constexpr auto orgqr_work = cusolverDnZungqr_bufferSize;
  static constexpr auto dgeqrf = cusolverDnZgeqrf;
  static constexpr auto dorgqr = cusolverDnZungqr;
};

// R's column norms, for the consistency check.
template <class T> std::vector<double> col_norms(const std::vector<T> &r, int ld, int rows, int cols) {
  std::vector<double> out(cols);
  for (int c = 0; c < cols; ++c) {
    double s = 0;
    for (int i = 0; i < rows; ++i) s += std::norm(r[i + size_t(c) * ld]);
    out[c] = std::sqrt(s);
  }
  return out;
}

// One case: its row of the table, or with `time_only` nothing printed and
// no peers. Returns hqr's time. t_double: hqr's time for the same case in
// double (the z table's last columns), or < 0.
template <class T>
double run_case(const Case &cs, int reps, cusolverDnHandle_t solver, const Qrupdate<T> &qru, bool time_only = false,
                double t_double = -1) {
  using L = Lib<T>;
  const int m = cs.m, n = cs.n, p = cs.p, j = cs.j;
  const bool wantq = cs.jobq == 'U';
  const bool addrows = cs.op == Op::addrows, addcols = cs.op == Op::addcols;
  const int ld = addrows ? m + p : m;  // Q and R: room for the new rows
  const int rcols = addcols ? n + p : n;
  // The updated matrix's shape (what refactoring factors).
  const int mu = addrows ? m + p : cs.op == Op::delrows ? m - p : m;
  const int nu = addcols ? n + p : cs.op == Op::delcols ? n - p : n;

  std::vector<T> q0(size_t(ld) * ld), r0(size_t(ld) * rcols, T(0)), u0;
  fill(q0, 1);
  {
    std::vector<T> col(ld);
    for (int c = 0; c < n; ++c) {
      fill(col, 100 + c);
      for (int i = 0; i <= std::min(c, m - 1); ++i) r0[i + size_t(c) * ld] = col[i];
    }
  }
  const int urows = addrows ? p : m, ucols = addrows ? n : p;
  u0.resize(size_t(urows) * ucols);
  fill(u0, 2);
  std::vector<T> q(q0.size()), r(r0.size()), u(u0.size());

  auto call = [&](T *w, int lwork) {
    int info = 0;
    const char jq = cs.jobq;
    switch (cs.op) {
      case Op::addcols:
        L::addcols(&m, &n, &p, &j, L::lp(q.data()), &ld, L::lp(r.data()), &ld, L::lp(u.data()), &urows, L::lp(w),
                   &lwork, &info);
        break;
      case Op::delcols:
        L::delcols(&jq, &m, &n, &p, &j, L::lp(q.data()), &ld, L::lp(r.data()), &ld, L::lp(w), &lwork, &info, 1);
        break;
      case Op::addrows:
        L::addrows(&jq, &m, &n, &p, &j, L::lp(q.data()), &ld, L::lp(r.data()), &ld, L::lp(u.data()), &urows,
                   L::lp(w), &lwork, &info, 1);
        break;
      case Op::delrows:
        L::delrows(&m, &n, &p, &j, L::lp(q.data()), &ld, L::lp(r.data()), &ld, L::lp(w), &lwork, &info);
        break;
    }
    if (info != 0) std::fprintf(stderr, "%s: info %d\n", cs.name, info), std::exit(1);
  };
  T wq = 0;
  copy(q, q0), copy(r, r0), copy(u, u0);
  call(&wq, -1);
  std::vector<T> w(std::max<size_t>(1, size_t(std::real(wq))));
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
  const Timing t_hqr = median_timing(reps, prep, go);
  if (own_verbose) hqr_set_verbose(0);
  const int out_rows = std::min(mu, ld), out_cols = nu;
  const std::vector<double> norms_hqr = col_norms(r, ld, out_rows, out_cols);
  if (time_only) return t_hqr.s;
  if (hqr_only()) {
    std::printf("%-12s jobq=%c m=%d n=%d p=%d j=%d | hqr %8.4f s\n", cs.name, cs.jobq, m, n, p, j, t_hqr.s);
    std::fflush(stdout);
    return t_hqr.s;
  }
  Timing t_cpu{0, false};
  double check = 0;
  if (has_gpu) {
    hqr_set_gpu_min_n(1L << 40);
    t_cpu = median_timing(reps, prep, go);
    hqr_set_gpu_min_n(-1);
    const std::vector<double> norms_cpu = col_norms(r, ld, out_rows, out_cols);
    for (int c = 0; c < out_cols; ++c)
      check = std::max(check, std::abs(norms_hqr[c] - norms_cpu[c]) / std::max(1e-300, norms_cpu[c]));
  }

  // Refactoring through the exported LAPACK symbols (hqr's geqrf/orgqr).
  const int kq = std::min(mu, nu);
  const size_t abuf = wantq ? size_t(mu) * mu : size_t(mu) * nu;
  std::vector<T> a0(abuf), a(abuf), tau(std::max(1, kq)), rsave(size_t(kq) * nu);
  fill(a0, 3);
  T lwq = 0;
  int info = 0, lwm1 = -1;
  L::geqrf(&mu, &nu, L::lp(a.data()), &mu, L::lp(tau.data()), L::lp(&lwq), &lwm1, &info);
  T lwq2 = 0;
  if (wantq) L::orgqr(&mu, &mu, &kq, L::lp(a.data()), &mu, L::lp(tau.data()), L::lp(&lwq2), &lwm1, &info);
  std::vector<T> wr(size_t(std::max(std::real(lwq), std::real(lwq2))) + 1);
  const int lwr = int(wr.size());
  const Timing t_ref = median_timing(reps, [&] { copy(a, a0); }, [&] {
    L::geqrf(&mu, &nu, L::lp(a.data()), &mu, L::lp(tau.data()), L::lp(wr.data()), &lwr, &info);
    if (wantq) {  // keep R, then the full Q from the reflectors
      for (int c = 0; c < nu; ++c)
        std::memcpy(rsave.data() + size_t(c) * kq, a.data() + size_t(c) * mu, sizeof(T) * std::min(c + 1, kq));
      L::orgqr(&mu, &mu, &kq, L::lp(a.data()), &mu, L::lp(tau.data()), L::lp(wr.data()), &lwr, &info);
    }
  });

  // cuSOLVER, device data.
  T *dA = nullptr, *dA0 = nullptr, *dtau = nullptr, *dw = nullptr;
  int *dinfo = nullptr, lw1 = 0, lw2 = 0;
  CK(cudaMalloc(&dA, abuf * sizeof(T)));
  CK(cudaMalloc(&dA0, abuf * sizeof(T)));
  CK(cudaMalloc(&dtau, std::max(1, kq) * sizeof(T)));
  CK(cudaMalloc(&dinfo, sizeof(int)));
  CK(cudaMemcpy(dA0, a0.data(), abuf * sizeof(T), cudaMemcpyHostToDevice));
  CK(L::geqrf_work(solver, mu, nu, L::cu(dA), mu, &lw1));
  if (wantq) CK(L::orgqr_work(solver, mu, mu, kq, L::cu(dA), mu, L::cu(dtau), &lw2));
  CK(cudaMalloc(&dw, size_t(std::max(lw1, lw2) + 1) * sizeof(T)));
  const Timing t_cus = median_timing(
      reps, [&] { CK(cudaMemcpy(dA, dA0, abuf * sizeof(T), cudaMemcpyDeviceToDevice)); },
      [&] {
        CK(L::dgeqrf(solver, mu, nu, L::cu(dA), mu, L::cu(dtau), L::cu(dw), std::max(lw1, lw2), dinfo));
        if (wantq)
          CK(L::dorgqr(solver, mu, mu, kq, L::cu(dA), mu, L::cu(dtau), L::cu(dw), std::max(lw1, lw2), dinfo));
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
    std::vector<T> x(std::max(m, n) + p + 1), wz(size_t(ld) + 8);
    std::vector<double> wk(size_t(2) * (ld + n + p) + 8);
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
            if constexpr (std::is_same_v<T, zc>)
              qru.der(&mi, &n, q.data(), &ld, r.data(), &ld, &j, wz.data(), wk.data());
            else
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
  if (t_double >= 0) std::printf(" | d-hqr %8.4f s | rate vs d %5.1f%%", t_double, 100 * 4 * t_double / t_hqr.s);
  std::printf("\n");
  std::fflush(stdout);
  return t_hqr.s;
}

template <class T> void table(const Case *cases, int count, const std::string &only, int reps) {
  cusolverDnHandle_t solver;
  CK(cusolverDnCreate(&solver));
  Qrupdate<T> qru;
  if (!qru.load()) {
    std::fprintf(stderr, "qrupdate not found (QRUPDATE_LIB): its column is left empty\n");
    qru = Qrupdate<T>{};
  }
  std::printf("# device: %s (hqr_device=%d), hqr %s; %s; reps %d\n", hqr_device_name(), hqr_device(),
              hqr_version(), Lib<T>::name, reps);
  if (std::is_same_v<T, zc>)
    std::printf("# d-hqr: hqr's double time for the case; rate vs d: z's flop rate over d's, 4 x d-hqr / hqr\n");
  for (int i = 0; i < count; ++i) {
    const Case &c = cases[i];
    if (!only.empty() && ("," + only + ",").find(std::string(",") + c.name + ",") == std::string::npos) continue;
    double t_double = -1;
    if constexpr (std::is_same_v<T, zc>) {
      Qrupdate<double> none;
      t_double = run_case<double>(c, reps, solver, none, true);
    }
    run_case<T>(c, reps, solver, qru, false, t_double);
  }
  cusolverDnDestroy(solver);
}

}  // namespace

int main(int argc, char **argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 3;
  // The precision, if given, comes before the cases.
  int next = 2;
  std::string prec = "d";
  if (argc > 2 && (std::string(argv[2]) == "d" || std::string(argv[2]) == "z")) prec = argv[next++];
  const std::string only = argc > next ? argv[next] : "";
  const Case cases[] = {
      {"delcols", Op::delcols, 'N', 16384, 4096, 100, 2049},
      {"addcols-end", Op::addcols, 'U', 16384, 4096, 100, 3997},
      {"addcols-1", Op::addcols, 'U', 16384, 4096, 100, 1},
      {"addrows", Op::addrows, 'N', 16384, 4096, 512, 8193},
      {"delrows", Op::delrows, 'U', 16384, 4096, 64, 1},
      // Beyond the five: adding rows with Q (its GPU path).
      {"addrows-q", Op::addrows, 'U', 16384, 4096, 512, 8193},
  };
  const int count = int(sizeof cases / sizeof cases[0]);
  if (prec == "z")
    table<zc>(cases, count, only, reps);
  else
    table<double>(cases, count, only, reps);
  return 0;
}
