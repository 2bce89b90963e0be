// AgentProcess; see agent_process.h.
#include "tools/acp/agent_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace buzz::acp {
namespace {

constexpr size_t kMaxLine = 10'000'000;
constexpr auto kWriteTimeout = std::chrono::seconds(30);

int ms_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : left > 60'000 ? 60'000 : int(left);
}

}  // namespace

bool AgentProcess::start(const std::string& command, const std::vector<std::string>& args, std::string* error) {
  stop();
  int to_child[2], from_child[2], exec_error[2];
  if (pipe2(to_child, O_CLOEXEC) || pipe2(from_child, O_CLOEXEC) || pipe2(exec_error, O_CLOEXEC)) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(command.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // its own group: stop() kills what it spawned too
    dup2(to_child[0], 0);
    dup2(from_child[1], 1);
    signal(SIGPIPE, SIG_DFL);
    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);  // the relay socket and the rest stay the harness's
    execvp(argv[0], argv.data());
    const int e = errno;
    (void)!write(exec_error[1], &e, sizeof e);
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  close(exec_error[1]);
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    close(to_child[1]);
    close(from_child[0]);
    close(exec_error[0]);
    return false;
  }
  setpgid(pid, pid);  // both sides set it, so it holds before either goes on
  int exec_errno = 0;
  const bool exec_failed = read(exec_error[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(exec_error[0]);
  pid_ = pid;
  in_ = to_child[1];
  out_ = from_child[0];
  fcntl(in_, F_SETFL, fcntl(in_, F_GETFL) | O_NONBLOCK);
  fcntl(out_, F_SETFL, fcntl(out_, F_GETFL) | O_NONBLOCK);
  buffered_.clear();
  scanned_ = 0;
  if (exec_failed) {
    stop();
    *error = "cannot run " + command + ": " + std::strerror(exec_errno);
    return false;
  }
  return true;
}

void AgentProcess::stop() {
  if (in_ >= 0) close(in_);
  if (out_ >= 0) close(out_);
  in_ = out_ = -1;
  if (pid_ <= 0) return;
  kill(-pid_, SIGKILL);  // a live group keeps its id from being reused, reaped leader or not
  if (!reaped_) {
    kill(pid_, SIGKILL);
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    while (waitpid(pid_, nullptr, WNOHANG) == 0 && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  pid_ = -1;
  reaped_ = false;
}

bool AgentProcess::leader_exited() {
  if (!reaped_ && pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == pid_) reaped_ = true;
  return reaped_;
}

bool AgentProcess::write_line(const std::string& line) {
  if (in_ < 0) return false;
  std::string data = line + "\n";
  size_t done = 0;
  const auto deadline = Clock::now() + kWriteTimeout;
  while (done < data.size()) {
    const ssize_t n = write(in_, data.data() + done, data.size() - done);
    if (n > 0) {
      done += size_t(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
    if (Clock::now() >= deadline) return false;
    pollfd p{in_, POLLOUT, 0};
    poll(&p, 1, ms_until(deadline));
  }
  return true;
}

AgentProcess::Read AgentProcess::read_line(std::string* line, Clock::time_point deadline, int wake_fd) {
  for (;;) {
    if (size_t nl = buffered_.find('\n', scanned_); nl != std::string::npos) {
      line->assign(buffered_, 0, nl);
      if (!line->empty() && line->back() == '\r') line->pop_back();
      buffered_.erase(0, nl + 1);
      scanned_ = 0;
      return Read::kLine;
    }
    scanned_ = buffered_.size();
    if (buffered_.size() > kMaxLine) return Read::kTooLong;
    if (out_ < 0) return Read::kEof;
    pollfd p[2] = {{out_, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    const int n = poll(p, wake_fd >= 0 ? 2 : 1, ms_until(std::min(deadline, Clock::now() + liveness_)));
    if (n == 0 && leader_exited()) return Read::kEof;
    if (n < 0 && errno != EINTR) return Read::kEof;
    if (wake_fd >= 0 && (p[1].revents & POLLIN)) return Read::kWoken;
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      char chunk[65536];
      const ssize_t got = read(out_, chunk, sizeof chunk);
      if (got == 0) return Read::kEof;
      if (got < 0 && errno != EAGAIN && errno != EINTR) return Read::kEof;
      if (got > 0) buffered_.append(chunk, size_t(got));
      continue;
    }
    if (Clock::now() >= deadline) return Read::kTimeout;
  }
}

}  // namespace buzz::acp
