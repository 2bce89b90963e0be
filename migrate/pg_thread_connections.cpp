// Per-thread connections; see pg_thread_connections.h.
#include "migrate/pg_thread_connections.h"

#include <algorithm>
#include <atomic>
#include <unordered_map>

namespace buzz::migrate {
namespace {

std::atomic<uint64_t> next_generation{1};

// The live PgThreadConnections by generation, so that a thread that ends can
// hand its connections back to those still alive.
std::mutex registry_mu;
std::unordered_map<uint64_t, PgThreadConnections*> registry;

// This thread's connection of each PgThreadConnections it used, by generation.
// A thread that ends closes them: threads come and go (workflow runs, media
// workers), and connections must not pile up for the life of the process.
struct ThisThread {
  std::unordered_map<uint64_t, PgConnection*> by_generation;
  ~ThisThread() {
    std::lock_guard lock(registry_mu);
    for (const auto& [generation, conn] : by_generation) {
      if (auto it = registry.find(generation); it != registry.end()) it->second->release(conn);
    }
  }
};
thread_local ThisThread this_thread;

}  // namespace

PgThreadConnections::PgThreadConnections(std::string url)
    : url_(std::move(url)), generation_(next_generation.fetch_add(1)) {
  std::lock_guard lock(registry_mu);
  registry[generation_] = this;
}

PgThreadConnections::~PgThreadConnections() {
  std::lock_guard lock(registry_mu);
  registry.erase(generation_);
}

engine::Result<PgConnection*> PgThreadConnections::get() {
  auto& mine = this_thread.by_generation;
  if (auto it = mine.find(generation_); it != mine.end()) {
    if (!it->second->alive()) it->second->reset();
    return it->second;
  }
  auto c = PgConnection::connect(url_, "buzz-serve");
  if (!c) return engine::Error{c.error()};
  PgConnection* raw = c->get();
  {
    std::lock_guard lock(mu_);
    all_.push_back(std::move(*c));
  }
  mine[generation_] = raw;
  return raw;
}

void PgThreadConnections::release(PgConnection* conn) {
  std::lock_guard lock(mu_);
  std::erase_if(all_, [conn](const std::unique_ptr<PgConnection>& c) { return c.get() == conn; });
}

}  // namespace buzz::migrate
