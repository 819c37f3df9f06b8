// Timing program (not a test) for the QR-updating routines on the CPU:
// median and minimum seconds of REPS calls, each on a fresh copy of the same
// Q and R (the copy is not timed), with the optimal LWORK from a query, or
// LW=<lwork> from the environment (the minimum runs the direct kernels).
//   bench_qrupd_cpu ROUTINE JOBQ M N P J [REPS] [d|s]
//   ROUTINE: addcols delcols addrows delrows; JOBQ U or N (ignored where the
//   routine has no JOBQ). HQR_VERBOSE=1 adds hqr's line per call (path,
//   GFLOP/s).
// Build: make bench (build/bench_qrupd_cpu).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "hqr.h"

namespace {

template <class T> struct L;
template <> struct L<double> {
  static constexpr auto addcols = dqrupd_addcols_;
  static constexpr auto delcols = dqrupd_delcols_;
  static constexpr auto addrows = dqrupd_addrows_;
  static constexpr auto delrows = dqrupd_delrows_;
};
template <> struct L<float> {
  static constexpr auto addcols = sqrupd_addcols_;
  static constexpr auto delcols = sqrupd_delcols_;
  static constexpr auto addrows = sqrupd_addrows_;
  static constexpr auto delrows = sqrupd_delrows_;
};

template <class T> int run(const std::string &what, char jobq, int m, int n, int p, int j, int reps) {
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> dist(-1, 1);
  const bool addrows = what == "addrows", addcols = what == "addcols";
  const int ld = addrows ? m + p : m;              // room for the new rows
  const int rcols = addcols ? n + p : n;           // room for the new columns
  // Timing only: Q and R are random (R upper trapezoidal), not the factors
  // of anything; the updates do the same work on them. test_qrupd checks
  // results. Factoring a real A would cost far more than the updates.
  std::vector<T> q(size_t(ld) * ld), r(size_t(ld) * std::max(rcols, 1), T(0)), u;
  for (auto &x : q) x = T(dist(gen));
  for (int c = 0; c < n; ++c)
    for (int i = 0; i <= std::min(c, m - 1); ++i) r[i + size_t(c) * ld] = T(dist(gen));
  const int urows = addrows ? std::max(p, 1) : ld, ucols = addrows ? n : p;
  u.resize(size_t(urows) * std::max(ucols, 1));
  for (auto &x : u) x = T(dist(gen));

  auto call = [&](T *qq, T *rr, T *uu, T *w, int lwork) {
    const char jq[2] = {jobq, 0};
    int inf = 0;
    if (what == "addcols")
      L<T>::addcols(&m, &n, &p, &j, qq, &ld, rr, &ld, uu, &urows, w, &lwork, &inf);
    else if (what == "delcols")
      L<T>::delcols(jq, &m, &n, &p, &j, qq, &ld, rr, &ld, w, &lwork, &inf, 1);
    else if (what == "addrows")
      L<T>::addrows(jq, &m, &n, &p, &j, qq, &ld, rr, &ld, uu, &urows, w, &lwork, &inf, 1);
    else
      L<T>::delrows(&m, &n, &p, &j, qq, &ld, rr, &ld, w, &lwork, &inf);
    return inf;
  };
  T wq = 0;
  if (call(q.data(), r.data(), u.data(), &wq, -1)) return std::fprintf(stderr, "bad arguments\n"), 1;
  if (const char *lw = std::getenv("LW")) wq = T(std::atol(lw));  // e.g. the documented minimum
  std::vector<T> w(std::max<size_t>(1, size_t(wq)));
  std::vector<double> times;
  for (int rep = 0; rep < reps; ++rep) {
    std::vector<T> q2 = q, r2 = r, u2 = u;
    const auto t0 = std::chrono::steady_clock::now();
    const int inf = call(q2.data(), r2.data(), u2.data(), w.data(), int(w.size()));
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (inf) return std::fprintf(stderr, "info %d\n", inf), 1;
  }
  std::sort(times.begin(), times.end());
  std::printf("%c%-8s jobq=%c m=%d n=%d p=%d j=%d lwork=%zu  median %.4fs (min %.4fs, %d reps)\n",
              sizeof(T) == 8 ? 'd' : 's', what.c_str(), jobq, m, n, p, j, w.size(), times[times.size() / 2], times[0],
              reps);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s addcols|delcols|addrows|delrows U|N M N P J [REPS] [d|s]\n", argv[0]);
    return 2;
  }
  const std::string what = argv[1];
  const char jobq = argv[2][0];
  const int m = std::atoi(argv[3]), n = std::atoi(argv[4]), p = std::atoi(argv[5]), j = std::atoi(argv[6]);
  const int reps = argc > 7 ? std::atoi(argv[7]) : 3;
  const bool single = argc > 8 && argv[8][0] == 's';
  return single ? run<float>(what, jobq, m, n, p, j, reps) : run<double>(what, jobq, m, n, p, j, reps);
}
