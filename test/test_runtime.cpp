// hqr's runtime API and the XERBLA route: reports reach the program's own
// XERBLA through the dynamic symbol table. The device tests set HQR_DEVICE
// and HQR_GPU_MIN_N through the API; each restores what the environment
// said when it ends (restore_settings), pass or fail, so that the tests
// after it are unaffected. With a GPU they check which GPUs serve; without
// one, the return values, that nothing serves, and the path counters.
// HQR_DEVICE=local-rank is also tested on hqr's own parser, compiled in
// (src/host/config.cpp; libhqr keeps its symbols hidden), with the MPI
// local-rank variables set and unset: the choice for any number of GPUs.
#include "testing.hpp"

#include "host/config.hpp"

using testing::lint;

// HQR_DEVICE and HQR_GPU_MIN_N as the environment gives them (the library
// reads them the same way: unset or empty HQR_DEVICE serves "all", an
// unreadable one none; an unreadable HQR_GPU_MIN_N is the crossover, -1).
static int restore_settings(void **) {
  const char *d = std::getenv("HQR_DEVICE");
  if (hqr_set_devices(d && *d ? d : "all") != 0) hqr_set_devices("none");
  const char *g = std::getenv("HQR_GPU_MIN_N");
  char *end = nullptr;
  const long n = g && *g ? std::strtol(g, &end, 10) : -1;
  hqr_set_gpu_min_n(g && *g && *end == '\0' ? n : -1);
  return 0;
}

// The variables that carry an MPI process's node-local rank, in the order
// hqr reads them, and their values when the program started.
static const char *const kRankVariables[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"};
static std::string rank_at_start[3];
static bool rank_set_at_start[3];
static void save_rank_environment() {
  for (int i = 0; i < 3; ++i) {
    const char *v = std::getenv(kRankVariables[i]);
    rank_set_at_start[i] = v != nullptr;
    rank_at_start[i] = v ? v : "";
  }
}
static void restore_rank_environment() {
  for (int i = 0; i < 3; ++i)
    if (rank_set_at_start[i])
      setenv(kRankVariables[i], rank_at_start[i].c_str(), 1);
    else
      unsetenv(kRankVariables[i]);
}
static void unset_ranks() {
  for (const char *v : kRankVariables) unsetenv(v);
}
static int restore_settings_and_ranks(void **state) {
  restore_rank_environment();
  return restore_settings(state);
}

// The devices that serve calls now: how many, the first, its name.
struct Serving {
  int count, first;
  std::string name;
};
static Serving serving() { return {hqr_device_count(), hqr_device(), hqr_device_name()}; }
static void assert_serving(const Serving &want, const char *ctx) {
  const Serving got = serving();
  if (got.count != want.count || got.first != want.first || got.name != want.name)
    fail_msg("%s: %d GPUs serve, the first %d (%s); expected %d, %d (%s)", ctx, got.count, got.first,
             got.name.c_str(), want.count, want.first, want.name.c_str());
}
static void assert_none_serves(const char *ctx) { assert_serving({0, -1, "none"}, ctx); }

static long device_calls_total() {
  long s = 0;
  for (int d = 0; d < 64; ++d) s += hqr_device_calls(d);
  return s;
}

static void version_is_semver(void **) {
  int a, b, c;
  assert_int_equal(std::sscanf(hqr_version(), "%d.%d.%d", &a, &b, &c), 3);
}

static void no_device_without_gpu(void **) {
  hqr_set_device(-1);
  assert_int_equal(hqr_device(), -1);
  assert_int_equal(hqr_device_count(), 0);
  assert_string_equal(hqr_device_name(), "none");
}

// hqr_set_devices takes "all", "none", "cpu", an ordinal and a list; each
// serves what it names and this process sees: one ordinal serves that GPU
// or none, a list the union of its ordinals, "all" at least as many.
static void set_devices_accepts(void **) {
  assert_int_equal(hqr_set_devices("all"), 0);
  const Serving all = serving();
  if ((all.count > 0) != (all.first >= 0))
    fail_msg("\"all\": %d GPUs serve, yet the first is %d", all.count, all.first);
  for (const char *none : {"none", "cpu"}) {
    assert_int_equal(hqr_set_devices(none), 0);
    assert_none_serves(none);
  }
  int count = 0, first = -1;
  for (int d : {0, 2, 3}) {
    const std::string one = std::to_string(d);
    assert_int_equal(hqr_set_devices(one.c_str()), 0);
    const Serving s = serving();
    if (s.count != 0 && s.count != testing::device_replicas()) fail_msg("\"%d\": %d GPUs serve", d, s.count);
    if (s.first != (s.count ? d : -1)) fail_msg("\"%d\": the first GPU serving is %d", d, s.first);
    if (d == 0 && (s.count != 0) != (all.first == 0))
      fail_msg("\"0\": %d GPUs serve, \"all\" starts at %d", s.count, all.first);
    count += s.count;
    if (first < 0 && s.count) first = d;
  }
  assert_int_equal(hqr_set_devices("0,2,3"), 0);
  const Serving list = serving();
  if (list.count != count || list.first != first)
    fail_msg("\"0,2,3\": %d GPUs serve, the first %d; its ordinals alone serve %d, the first %d", list.count,
             list.first, count, first);
  if (all.count < count) fail_msg("\"all\" serves %d GPUs, \"0,2,3\" %d", all.count, count);
  assert_int_equal(hqr_set_devices("all"), 0);
  assert_serving(all, "\"all\" again");
}

// Any other text returns -1 and leaves the setting as it was, from "none"
// and from "all" (with a GPU, the two differ).
static void set_devices_rejects(void **) {
  for (const char *start : {"none", "all"}) {
    assert_int_equal(hqr_set_devices(start), 0);
    const Serving before = serving();
    for (const char *bad : {"", "x", "1,,2", "-1", "64", "0;1", "0,"}) {
      const std::string ctx = std::string("\"") + bad + "\" after \"" + start + "\"";
      if (hqr_set_devices(bad) != -1) fail_msg("%s: accepted", ctx.c_str());
      assert_serving(before, ctx.c_str());
    }
  }
}

// With "none" a call runs on the CPU even where HQR_GPU_MIN_N=0 would send
// it to a GPU: one more 'c', no 'g' or 'r', no GPU's count changes. With a
// GPU, "all" then takes the same call there ('g'; on the first GPU).
static void none_runs_on_cpu(void **) {
  const lint n = 300;
  const testing::Matrix<double> a0 = testing::random_hpd<double>(n);
  auto factor = [&](const char *ctx) {
    testing::Matrix<double> a = a0;
    assert_info(testing::potrf<double>('L', n, a.ptr(), a.ld), 0, ctx);
    assert_ratio(testing::factor_ratio(a0, a, 'L'), ctx);
  };
  assert_int_equal(hqr_set_devices("none"), 0);
  assert_none_serves("none");
  hqr_set_gpu_min_n(0);
  long c = hqr_path_calls('c'), g = hqr_path_calls('g'), r = hqr_path_calls('r'), dev = device_calls_total();
  factor("dpotrf n=300 with \"none\"");
  assert_int_equal(hqr_path_calls('c'), c + 1);
  assert_int_equal(hqr_path_calls('g'), g);
  assert_int_equal(hqr_path_calls('r'), r);
  assert_int_equal(device_calls_total(), dev);

  assert_int_equal(hqr_set_devices("all"), 0);
  const char *fault = std::getenv("HQR_FAULT");
  const int first = hqr_device();
  if (hqr_device_count() == 0 || (fault && *fault)) return;  // the CPU again, or an injected failure
  c = hqr_path_calls('c'), g = hqr_path_calls('g'), r = hqr_path_calls('r'), dev = device_calls_total();
  const long on_first = hqr_device_calls(first);
  factor("dpotrf n=300 with \"all\" and HQR_GPU_MIN_N=0");
  assert_int_equal(hqr_path_calls('g'), g + 1);
  assert_int_equal(hqr_path_calls('c'), c);
  assert_int_equal(hqr_path_calls('r'), r);
  assert_int_equal(hqr_device_calls(first), on_first + 1);
  if (device_calls_total() - dev > hqr_device_count()) fail_msg("one call counted in more GPUs than serve");
}

// The local rank comes from the first of OMPI_COMM_WORLD_LOCAL_RANK,
// MPI_LOCALRANKID and SLURM_LOCALID that holds a non-negative integer; -1
// when none does.
static void local_rank_variables(void **) {
  unset_ranks();
  assert_int_equal(hqr::config::local_rank(), -1);
  setenv("SLURM_LOCALID", "5", 1);
  assert_int_equal(hqr::config::local_rank(), 5);
  setenv("MPI_LOCALRANKID", "2", 1);
  assert_int_equal(hqr::config::local_rank(), 2);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1);
  assert_int_equal(hqr::config::local_rank(), 3);
  for (const char *bad : {"", "x", "-1", "+1", " 1", "1x", "99999999999999999999"}) {
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", bad, 1);
    if (hqr::config::local_rank() != 2)
      fail_msg("OMPI_COMM_WORLD_LOCAL_RANK=\"%s\": rank %d, expected MPI_LOCALRANKID's 2", bad, hqr::config::local_rank());
  }
  unset_ranks();
  setenv("SLURM_LOCALID", "0", 1);
  assert_int_equal(hqr::config::local_rank(), 0);
}

// "local-rank" chooses the one GPU rank mod the visible count, for every
// count; with no rank variable set it is "all". Combined with anything
// else, it is not a setting.
static void local_rank_chooses_one_gpu(void **) {
  using hqr::config::Devices;
  using hqr::config::device_mask;
  using hqr::config::parse_devices;
  unset_ranks();
  Devices d{0, -1};
  assert_true(parse_devices("local-rank", &d));
  assert_int_equal(d.rank, -1);
  for (int visible : {0, 1, 4, 64})
    if (device_mask(d, visible) != hqr::config::kDevicesAll) fail_msg("no rank, %d GPUs: not \"all\"", visible);
  for (int rank : {0, 1, 3, 6, 63, 64, 130}) {
    const std::string r = std::to_string(rank);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", r.c_str(), 1);
    assert_true(parse_devices("local-rank", &d));
    assert_int_equal(d.rank, rank);
    assert_true(device_mask(d, 0) == 0);  // no GPU: the CPU
    for (int visible : {1, 2, 3, 4, 8, 64}) {
      const std::uint64_t want = std::uint64_t(1) << (rank % visible);
      if (device_mask(d, visible) != want)
        fail_msg("rank %d, %d GPUs: mask %#llx, expected GPU %d", rank, visible,
                 (unsigned long long)device_mask(d, visible), rank % visible);
    }
  }
  // Another setting replaces the rank; a rejected one leaves it.
  assert_true(parse_devices("0,2", &d));
  assert_int_equal(d.rank, -1);
  assert_true(device_mask(d, 4) == 5);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  assert_true(parse_devices("local-rank", &d));
  for (const char *bad : {"local-rank,0", "0,local-rank", "local_rank", "localrank", "Local-rank", "local-rank "}) {
    if (parse_devices(bad, &d)) fail_msg("\"%s\": accepted", bad);
    assert_int_equal(d.rank, 1);
  }
}

// Through the runtime API: hqr_set_devices("local-rank") serves the GPU
// rank mod the GPUs "all" serves (none without a GPU), and as "all" with no
// rank variable set.
static void set_devices_local_rank(void **) {
  assert_int_equal(hqr_set_devices("all"), 0);
  const Serving all = serving();
  for (int rank : {0, 1, 2, 5}) {
    unset_ranks();
    const std::string r = std::to_string(rank);
    setenv(kRankVariables[rank % 3], r.c_str(), 1);  // each variable in turn
    assert_int_equal(hqr_set_devices("local-rank"), 0);
    const std::string ctx = std::string("local-rank, ") + kRankVariables[rank % 3] + "=" + r;
    if (all.count == 0) {
      assert_none_serves(ctx.c_str());
      continue;
    }
    const Serving s = serving();
    const int k = testing::device_replicas(), gpus = all.count / k;  // k members per GPU
    if (s.count != k || s.first != rank % gpus)
      fail_msg("%s: %d GPUs serve, the first %d; expected GPU %d alone", ctx.c_str(), s.count, s.first, rank % gpus);
  }
  unset_ranks();
  assert_int_equal(hqr_set_devices("local-rank"), 0);
  assert_serving(all, "local-rank with no rank variable set");
  assert_int_equal(hqr_set_devices("local-rank,0"), -1);
  assert_serving(all, "\"local-rank,0\" rejected");
}

// The counters answer -1 for a letter other than 'c', 'g' and 'r' and for
// an ordinal outside 0..63; the others are counts.
static void path_counters_range(void **) {
  for (char p : {'c', 'g', 'r'}) assert_true(hqr_path_calls(p) >= 0);
  for (char p : {'x', 'G', '\0'}) assert_int_equal(hqr_path_calls(p), -1);
  for (int d : {0, 1, 63}) assert_true(hqr_device_calls(d) >= 0);
  for (int d : {-1, 64, 1000}) assert_int_equal(hqr_device_calls(d), -1);
}

static void xerbla_reaches_program(void **) {
  testing::xerbla_reset();
  lapack_int n = 4, lda = 4, info = 0;
  std::vector<double> a(16, 1.0);
  dpotrf_("X", &n, a.data(), &lda, &info, 1);
  assert_int_equal(info, -1);
  assert_xerbla("DPOTRF", 1);
  for (double x : a) assert_true(x == 1.0);  // untouched
}

int main() {
  save_rank_environment();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(version_is_semver),
      cmocka_unit_test_teardown(no_device_without_gpu, restore_settings),
      cmocka_unit_test_teardown(set_devices_accepts, restore_settings),
      cmocka_unit_test_teardown(set_devices_rejects, restore_settings),
      cmocka_unit_test_teardown(local_rank_variables, restore_settings_and_ranks),
      cmocka_unit_test_teardown(local_rank_chooses_one_gpu, restore_settings_and_ranks),
      cmocka_unit_test_teardown(set_devices_local_rank, restore_settings_and_ranks),
      cmocka_unit_test_teardown(none_runs_on_cpu, restore_settings),
      cmocka_unit_test(path_counters_range),
      cmocka_unit_test(xerbla_reaches_program),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
