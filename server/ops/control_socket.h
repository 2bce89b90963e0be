// ControlSocket: the relay's local control path, a Unix socket in the data
// directory (<data-dir>/control.sock), as PostgreSQL and Redis offer theirs.
// Only the relay's own user reaches it: the socket file is owner-only (0600)
// and every peer's uid is checked (SO_PEERCRED) against the relay's, or root.
// `buzz backup` asks through it for a backup point while the relay serves.
//
// Requests are rare, so one blocking thread serves them one connection at a
// time: a request line in, the handler's reply lines out; the handler may keep
// the connection until the peer closes it (a backup keeps its staging files
// until then). It is never on a loop's path.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "engine/result.h"

namespace buzz::server {

class ControlSocket {
 public:
  // Runs on the socket's thread with the request line (no newline) and the
  // connection, which it answers with write_line and may read from;
  // `stop_fd` becomes readable when the relay stops (see wait_for_close).
  using Handler = std::function<void(std::string_view request, int fd, int stop_fd)>;

  // Binds `path` (start-up only), replacing a socket file a previous run left.
  static engine::Result<std::unique_ptr<ControlSocket>> open(const std::string& path, Handler handler);
  ~ControlSocket();
  ControlSocket(const ControlSocket&) = delete;
  ControlSocket& operator=(const ControlSocket&) = delete;

  void start();
  // Finishes the request in hand, then closes and removes the socket.
  void stop();

 private:
  ControlSocket() = default;
  void run();

  std::string path_;
  Handler handler_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;  // an eventfd: written once by stop()
  std::thread thread_;
};

// Both sides: writes `line` and a newline; false if the peer is gone.
bool write_line(int fd, std::string_view line);
// Both sides: reads up to a newline (not kept); false at the end or on an error.
bool read_line(int fd, std::string* line);
// Until the peer closes the connection (or `stop_fd`, if not -1, is written, or
// `timeout_ms`, if not -1, has passed).
void wait_for_close(int fd, int stop_fd = -1, int timeout_ms = -1);

// The client side: says it is done (a half-close) and waits, at most `timeout_ms`, for the
// relay to close in turn, which it does once it has dropped what it kept for this
// connection (a backup's staging files); then closes `fd`.
void hang_up(int fd, int timeout_ms);

// The client side: a connection to the control socket at `path`, or -1 with
// errno as connect(2) left it (ENOENT or ECONNREFUSED: no relay listens there).
int connect_control_socket(const std::string& path);

}  // namespace buzz::server
