// PgThreadConnections: one PostgreSQL connection per thread that uses a live
// backend, opened on the thread's first call, reopened after the server went
// away, and closed when the thread ends. The live store's contract is the embedded one's: any thread may read at
// any time, so no thread ever waits for another's connection (no pool lock on
// the loops' path), and a transaction never spans two threads.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/result.h"
#include "migrate/pg_connection.h"

namespace buzz::migrate {

class PgThreadConnections {
 public:
  explicit PgThreadConnections(std::string url);
  ~PgThreadConnections();
  PgThreadConnections(const PgThreadConnections&) = delete;
  PgThreadConnections& operator=(const PgThreadConnections&) = delete;

  // This thread's connection; an error when it cannot connect.
  engine::Result<PgConnection*> get();
  const std::string& url() const { return url_; }
  // Closes a connection whose thread ended (called from that thread's exit).
  void release(PgConnection* conn);

 private:
  const std::string url_;
  const uint64_t generation_;  // tells this object's connections from an earlier one's at the same address
  std::mutex mu_;              // guards all_ (taken only when a thread connects)
  std::vector<std::unique_ptr<PgConnection>> all_;
};

// Runs `op` on this thread's connection; once more on a fresh connection when
// the first try failed because the server went away (a restart, an idle cut).
// For reads and for single statements that are safe to repeat.
template <typename Op>
auto with_connection(PgThreadConnections& conns, Op&& op) -> decltype(op(std::declval<PgConnection&>())) {
  auto c = conns.get();
  if (!c) return engine::Error{c.error()};
  auto r = op(**c);
  if (r || (*c)->alive() || !(*c)->reset()) return r;
  return op(**c);
}

}  // namespace buzz::migrate
