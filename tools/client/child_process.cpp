// start_child; see child_process.h. Two ways to the same child: posix_spawn,
// and fork with exec where a death signal is asked for.
#include "tools/client/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

extern char** environ;

namespace buzz::client {
namespace {

// execve wants mutable, null-terminated char* arrays; `strings` must outlive it.
std::vector<char*> c_array(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::vector<std::string> environment(const ChildSpec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view kv(*e);
    const std::string_view name = kv.substr(0, kv.find('='));
    if (!spec.drop_prefix.empty() && name.starts_with(spec.drop_prefix)) continue;
    const bool replaced =
        std::any_of(spec.env.begin(), spec.env.end(), [&](const auto& p) { return p.first == name; });
    if (!replaced) env.emplace_back(kv);
  }
  for (const auto& [name, value] : spec.env) env.push_back(name + "=" + value);
  return env;
}

// The child's three streams: a descriptor to dup2 onto each, or -1 to keep ours.
struct Streams {
  int fd[3] = {-1, -1, -1};
  ~Streams() {
    for (int i = 0; i < 3; ++i) {
      if (fd[i] >= 0 && (i == 0 || fd[i] != fd[i - 1])) ::close(fd[i]);
    }
  }
};

bool open_streams(const ChildSpec& spec, Streams* s, std::string* error) {
  const int out_flags = O_WRONLY | O_CREAT | O_CLOEXEC | (spec.append ? O_APPEND : O_TRUNC);
  const std::string* paths[3] = {&spec.stdin_path, &spec.stdout_path, &spec.stderr_path};
  for (int i = 0; i < 3; ++i) {
    if (paths[i]->empty()) continue;
    if (i == 2 && s->fd[1] >= 0 && *paths[2] == *paths[1]) {
      s->fd[2] = s->fd[1];
      continue;
    }
    s->fd[i] = ::open(paths[i]->c_str(), i == 0 ? O_RDONLY | O_CLOEXEC : out_flags, 0644);
    if (s->fd[i] < 0) {
      *error = "cannot open " + *paths[i] + ": " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

constexpr int kDefaultSignals[] = {SIGTERM, SIGINT, SIGPIPE, SIGCHLD};

// posix_spawn: glibc's runs the child on the parent's memory until its exec
// (a vfork), so its cost does not grow with the caller's size, and `buzz-load
// cli` times a CLI run from the spawn. 2-4x faster than fork() from buzz-load.
pid_t spawn(std::vector<char*>& argv, std::vector<char*>& envp, const Streams& streams, std::string* error) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (int i = 0; i < 3; ++i) {
    if (streams.fd[i] >= 0) posix_spawn_file_actions_adddup2(&actions, streams.fd[i], i);
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : kDefaultSignals) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (rc == 0) return pid;
  *error = std::string("cannot run ") + argv[0] + ": " + std::strerror(rc);
  return -1;
}

// fork and exec, for a child that must get a signal when its parent goes: only
// the child itself can ask for that, between the two. The exec's failure comes
// back through a close-on-exec pipe: the parent reads EOF (the program runs)
// or the child's errno.
pid_t fork_exec(std::vector<char*>& argv, std::vector<char*>& envp, const Streams& streams, int death_signal,
                std::string* error) {
  int exec_error[2];
  if (::pipe2(exec_error, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, death_signal);
    if (::getppid() != parent) ::_exit(127);  // the parent went before the prctl
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : kDefaultSignals) ::sigaction(sig, &dfl, nullptr);
    for (int i = 0; i < 3; ++i) {
      if (streams.fd[i] >= 0) ::dup2(streams.fd[i], i);
    }
    ::execve(argv[0], argv.data(), envp.data());
    const int e = errno;
    (void)!::write(exec_error[1], &e, sizeof e);
    ::_exit(127);
  }
  const int fork_errno = errno;
  ::close(exec_error[1]);
  if (pid < 0) {
    ::close(exec_error[0]);
    *error = std::string("fork: ") + std::strerror(fork_errno);
    return -1;
  }
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(exec_error[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  ::close(exec_error[0]);
  if (n != sizeof exec_errno) return pid;
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  *error = std::string("cannot run ") + argv[0] + ": " + std::strerror(exec_errno);
  return -1;
}

}  // namespace

pid_t start_child(const ChildSpec& spec, std::string* error) {
  std::vector<std::string> args = spec.args, env = environment(spec);
  std::vector<char*> argv = c_array(args), envp = c_array(env);
  Streams streams;
  if (!open_streams(spec, &streams, error)) return -1;
  return spec.death_signal == 0 ? spawn(argv, envp, streams, error)
                                : fork_exec(argv, envp, streams, spec.death_signal, error);
}

}  // namespace buzz::client
