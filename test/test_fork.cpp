// Fork (ABI.md, "Threads, fork and sanitizers"). A process that has used hqr
// -- the GPU, on a machine that has one and with HQR_GPU_MIN_N=0 -- forks:
// the child's calls still give right answers, on the CPU path (CUDA state
// does not survive fork(); src/cuda/context.cu marks the child in a
// pthread_atfork handler), the child reports no device and exits normally;
// the parent's calls go on as before, on the path they took before the fork
// and with the same device. Then forks while another thread is inside hqr
// (holding the GPU, where there is one): each child must finish its own
// calls instead of waiting for a lock that the other thread held.
// Without a GPU both tests still check the children's calls and exits.
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "testing.hpp"

using namespace testing;

namespace {

// The HQR_VERBOSE lines that `f` writes to stderr; `f` must be the only
// thing running in hqr meanwhile.
template <class F> std::string traced(F &&f) {
  std::fflush(stderr);
  FILE *log = std::tmpfile();
  const int saved = dup(2);
  if (!log || saved < 0) fail_msg("no temporary file for stderr");
  dup2(fileno(log), 2);
  hqr_set_verbose(1);
  f();
  hqr_set_verbose(0);
  dup2(saved, 2);
  close(saved);
  std::string text;
  std::rewind(log);
  for (int c; (c = std::fgetc(log)) != EOF;) text += char(c);
  std::fclose(log);
  return text;
}

// The path an HQR_VERBOSE line names ("cpu", "gpu-hybrid"), "" if none.
std::string path_of(const std::string &line) {
  const size_t at = line.find("path=");
  if (at == std::string::npos) return "";
  const size_t end = line.find_first_of(" \n", at);
  return line.substr(at + 5, end - at - 5);
}

// xPOTRF (uplo 'L') of a0: the residual ratio ||L*L^H - A||_1 /
// (n ||A||_1 eps), infinity when INFO != 0.
template <class T> double potrf_ratio(const Matrix<T> &a0) {
  const lint n = a0.n;
  Matrix<T> a = a0;
  if (potrf<T>('L', n, a.ptr(), a.ld) != 0) return HUGE_VAL;
  const Matrix<T> l = triangle(block(a, n, n), 'L');
  Matrix<T> d = hermitian(block(a0, n, n), 'L');
  subtract_product(d, l, 'N', l, 'C');
  return norm_one(d) / (double(n) * norm_one(hermitian(block(a0, n, n), 'L')) * eps<T>());
}
template <class T> double potrf_ratio(lint n) { return potrf_ratio(random_hpd<T>(n, n + 1)); }

// xGEQRF then xGELS on a consistent system: ||B - A*X||_1 /
// (m ||A||_1 ||X||_1 eps) (DQRT16); infinity when INFO != 0.
template <class T> double gels_ratio(lint m, lint n) {
  const Matrix<T> a0 = random_matrix<T>(m, n);
  const Matrix<T> b0 = product(a0, 'N', random_matrix<T>(n, 1), 'N');
  Matrix<T> a = a0, b = b0;
  std::vector<T> work(size_t(64) * (m + n));
  if (gels<T>('N', m, n, 1, a.ptr(), m, b.ptr(), m, work.data(), lint(work.size())) != 0) return HUGE_VAL;
  const Matrix<T> x = block(b, n, 1);
  Matrix<T> r = b0;
  subtract_product(r, a0, 'N', x, 'N');
  return norm_one(r) / (double(m) * norm_one(a0) * norm_one(x) * eps<T>());
}

// The child's exit status: one bit per check that failed. 1 is left to
// whatever else ends a child with status 1 (a sanitizer's report).
enum ChildFailure {
  kChildHasDevice = 2,  // hqr_device() >= 0 in the child
  kChildNotCpu = 4,     // the child's dpotrf did not say path=cpu
  kChildDpotrf = 8,     // wrong factor
  kChildZpotrf = 16,
  kChildGels = 32,
  kChildSpotri = 64,    // spotri: wrong INFO
};
std::string describe(int status) {
  if (WIFSIGNALED(status)) return context("killed by signal %d (SIGALRM: it hung)", WTERMSIG(status));
  if (!WIFEXITED(status)) return "did not exit";
  const int code = WEXITSTATUS(status);
  std::string s = context("exit status %d:", code);
  if (code & kChildHasDevice) s += " reports a GPU;";
  if (code & kChildNotCpu) s += " dpotrf not on the CPU path;";
  if (code & kChildDpotrf) s += " dpotrf wrong;";
  if (code & kChildZpotrf) s += " zpotrf wrong;";
  if (code & kChildGels) s += " dgels wrong;";
  if (code & kChildSpotri) s += " spotri INFO wrong;";
  return s;
}

// What a child of a process that used hqr checks; returns ChildFailure bits.
int child_checks(lint n) {
  int failed = 0;
  if (hqr_device() >= 0) failed |= kChildHasDevice;
  double ratio = HUGE_VAL;
  const std::string line = traced([&] { ratio = potrf_ratio<double>(n); });
  if (path_of(line) != "cpu") failed |= kChildNotCpu;
  if (!(ratio < kThreshold)) failed |= kChildDpotrf;
  if (!(potrf_ratio<std::complex<double>>(n / 2) < kThreshold)) failed |= kChildZpotrf;
  if (!(gels_ratio<double>(n, n / 3) < kThreshold)) failed |= kChildGels;
  // A singular factor: INFO = the zero's position, as LAPACK.
  Matrix<float> f = random_hpd<float>(40);
  if (potrf<float>('U', 40, f.ptr(), f.ld) != 0) failed |= kChildSpotri;
  f(17, 17) = 0;
  if (potri<float>('U', 40, f.ptr(), f.ld) != 18) failed |= kChildSpotri;
  return failed;
}

pid_t fork_flushed() {
  std::fflush(stdout);  // else the child's exit() writes the parent's buffered output again
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) fail_msg("fork failed");
  return pid;
}

void child_after_parent_used_hqr(void **) {
  const lint n = 300;
  const int device = hqr_device();  // creates the GPU context where there is one
  double ratio = HUGE_VAL;
  const std::string before = path_of(traced([&] { ratio = potrf_ratio<double>(n); }));
  assert_ratio(ratio, "parent dpotrf before fork");
  print_message("parent: device %d, dpotrf path=%s\n", device, before.c_str());
  const char *forced = std::getenv("HQR_GPU_MIN_N");
  if (device >= 0 && forced && std::atol(forced) == 0 && before.compare(0, 3, "gpu") != 0)
    fail_msg("a GPU serves and HQR_GPU_MIN_N=0, yet the parent's dpotrf took path=%s", before.c_str());

  const pid_t pid = fork_flushed();
  if (pid == 0) {
    alarm(120);  // a hang shows as SIGALRM in the parent
    std::exit(child_checks(n));  // exit(), not _exit(): a child's normal exit must work too
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) fail_msg("waitpid failed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail_msg("child: %s", describe(status).c_str());

  assert_int_equal(hqr_device(), device);
  const std::string after = path_of(traced([&] { ratio = potrf_ratio<double>(n); }));
  assert_ratio(ratio, "parent dpotrf after fork");
  if (after != before) fail_msg("parent's dpotrf took path=%s before the fork, path=%s after", before.c_str(), after.c_str());
}

// OpenBLAS's pthreads build shuts its thread pool down in its own
// pthread_atfork handler, which is not for a fork while another thread's
// call is using that pool; this test is about hqr's state, so OpenBLAS runs
// each call on the calling thread here (other BLAS libraries are left alone).
// (blas_threads, in testing.hpp, sets that.)

// One thread factors a matrix over and over (checking every factor) while
// the main thread forks five children, each of which makes its own calls
// and exits.
void fork_while_another_thread_calls(void **) {
  const int blas_before = blas_threads(1);
  const Matrix<double> a0 = random_hpd<double>(400);  // made here: testing::rng() is not for threads
  std::atomic<bool> stop{false};
  std::atomic<int> calls{0}, wrong{0};
  std::thread busy([&] {
    while (!stop.load()) {
      if (!(potrf_ratio(a0) < kThreshold)) wrong.fetch_add(1);
      calls.fetch_add(1);
    }
  });
  std::string failures;
  for (int k = 0; k < 5; ++k) {
    const int seen = calls.load();
    while (calls.load() == seen) std::this_thread::yield();  // the other thread is between calls: busy again soon
    const pid_t pid = fork_flushed();
    if (pid == 0) {
      alarm(120);
      // _exit(): the other thread does not exist in the child, so what it
      // had allocated is lost there, which a leak checker at exit() reports.
      _exit(child_checks(200));
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) fail_msg("waitpid failed");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failures += context(" child %d: ", k) + describe(status);
  }
  stop.store(true);
  busy.join();
  if (blas_before > 0) blas_threads(blas_before);
  print_message("the other thread made %d calls meanwhile\n", calls.load());
  if (!failures.empty()) fail_msg("%s", failures.c_str());
  assert_int_equal(wrong.load(), 0);
}

}  // namespace

int main() {
  testing::rng();  // prints HQR_TEST_SEED now, not into a stderr that traced() captures
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(child_after_parent_used_hqr),
      cmocka_unit_test(fork_while_another_thread_calls),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
