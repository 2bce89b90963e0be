// `buzz sync`; see sync.h.
#include "tools/sync/sync.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/json_text.h"
#include "tools/sync/local_relay.h"
#include "tools/sync/store_items.h"

namespace buzz::sync {
namespace {

constexpr size_t kBatch = 5000;  // events fetched (several REQs in flight), then published, at a time

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

struct Copied {
  size_t fetched = 0;   // found on the source and verified
  size_t stored = 0;    // accepted by the destination (or already there)
  size_t refused = 0;   // refused by the destination's rules
  std::string last_refusal;
};

// Fetches `ids` from src and publishes them to dst, a batch at a time.
engine::Result<Copied> copy(RelayLink& src, RelayLink& dst, const std::vector<engine::Id>& ids, const char* label,
                            bool progress) {
  Copied c;
  for (size_t start = 0; start < ids.size(); start += kBatch) {
    std::vector<engine::Id> batch(ids.begin() + long(start), ids.begin() + long(std::min(ids.size(), start + kBatch)));
    auto events = src.fetch(batch);
    if (!events) return engine::Error{src.url() + ": " + events.error()};
    c.fetched += events->size();
    auto tally = dst.publish(*events);
    if (!tally) return engine::Error{dst.url() + ": " + tally.error()};
    c.stored += tally->accepted;
    c.refused += tally->refused;
    if (!tally->last_refusal.empty()) c.last_refusal = tally->last_refusal;
    if (progress) {
      std::fprintf(stderr, "\r%s %zu/%zu (%zu%%), refused %zu   ", label, start + batch.size(), ids.size(),
                   (start + batch.size()) * 100 / ids.size(), c.refused);
    }
  }
  if (progress && !ids.empty()) std::fputc('\n', stderr);
  return c;
}

// Wall-clock seconds of each step, for the report (docs/performance.md).
struct Phases {
  double list = 0, reconcile = 0, down = 0, up = 0;
};

void report(const SyncOptions& o, const std::string& to, size_t listed, const ReconcileResult& r, const Copied& down,
            const Copied& up, const Phases& p, double seconds) {
  if (o.json) {
    const std::string line = JsonFields()
                                 .string("from", o.from)
                                 .string("to", to)
                                 .number("destination_events", listed)
                                 .number("missing_on_destination", r.need.size())
                                 .number("missing_on_source", r.have.size())
                                 .number("rounds", r.rounds)
                                 .number("neg_bytes_up", r.bytes_up)
                                 .number("neg_bytes_down", r.bytes_down)
                                 .number("downloaded", down.fetched)
                                 .number("stored_down", down.stored)
                                 .number("refused_down", down.refused)
                                 .number("uploaded", up.fetched)
                                 .number("stored_up", up.stored)
                                 .number("refused_up", up.refused)
                                 .string("last_refusal_down", down.last_refusal)
                                 .string("last_refusal_up", up.last_refusal)
                                 .decimal("seconds", seconds, 3)
                                 .decimal("seconds_list", p.list, 3)
                                 .decimal("seconds_reconcile", p.reconcile, 3)
                                 .decimal("seconds_first_reply", r.first_reply_seconds, 3)
                                 .decimal("seconds_down", p.down, 3)
                                 .decimal("seconds_up", p.up, 3)
                                 .str();
    std::printf("%s\n", line.c_str());
    return;
  }
  std::printf("reconciled %zu events on %s with %s in %zu rounds (%zu bytes up, %zu down)\n", listed, to.c_str(),
              o.from.c_str(), r.rounds, r.bytes_up, r.bytes_down);
  std::printf("missing on %s: %zu; stored %zu, refused %zu\n", to.c_str(), r.need.size(), down.stored, down.refused);
  std::printf("missing on %s: %zu; stored %zu, refused %zu\n", o.from.c_str(), r.have.size(), up.stored, up.refused);
  for (const Copied* c : {&down, &up}) {
    if (!c->last_refusal.empty()) std::printf("a refusal: %s\n", c->last_refusal.c_str());
  }
  std::printf("done in %.2f s\n", seconds);
}

}  // namespace

int run_sync(const SyncOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  const uint64_t started_unix = engine::unix_now();
  auto fail = [](const std::string& why) {
    std::fprintf(stderr, "buzz sync: %s\n", why.c_str());
    return 1;
  };
  // With --data-dir (on the embedded store), the destination's set is read
  // from its store, and its relay starts while the source reconciles.
  std::unique_ptr<LocalRelay> local;
  std::optional<std::vector<engine::negentropy::Item>> items;
  std::string to_url = o.to;
  if (!o.data_dir.empty()) {
    if (const char* store = std::getenv("BUZZ_STORE"); !store || !*store) {
      if (o.progress) std::fprintf(stderr, "reading %s…\n", o.data_dir.c_str());
      auto read = list_store_items(o.data_dir, o.filter);
      if (!read) return fail(o.data_dir + ": " + read.error());
      items = std::move(*read);
    }
    auto spawned = LocalRelay::spawn(o.data_dir);
    if (!spawned) return fail(spawned.error());
    local = std::move(*spawned);
    to_url = local->url();
  }
  std::unique_ptr<RelayLink> to;
  auto open_to = [&]() -> engine::Status {
    if (local) {
      if (engine::Status s = local->wait_ready(); !s) return s;
    }
    auto link = RelayLink::open(to_url, o.to_identity);
    if (!link) return engine::Error{link.error()};
    to = std::move(*link);
    return {};
  };
  auto from = RelayLink::open(o.from, o.from_identity);
  if (!from) return fail(from.error());
  if (!items) {
    if (engine::Status s = open_to(); !s) return fail(s.error());
    if (o.progress) std::fprintf(stderr, "listing %s…\n", to_url.c_str());
    auto listed = to->list(o.filter);
    if (!listed) return fail(to_url + ": " + listed.error());
    items = std::move(*listed);
  }
  Phases phases;
  phases.list = seconds_since(started);
  const size_t listed = items->size();
  if (o.progress) std::fprintf(stderr, "reconciling %zu events with %s…\n", listed, o.from.c_str());
  auto diff = (*from)->reconcile(o.filter, engine::negentropy::ItemSet(std::move(*items)));
  if (!diff) return fail(o.from + ": " + diff.error());
  phases.reconcile = seconds_since(started) - phases.list;
  if (!to) {
    if (engine::Status s = open_to(); !s) return fail(s.error());
  }

  Copied down, up;
  auto step = std::chrono::steady_clock::now();
  if (o.direction != Direction::kUp) {
    auto c = copy(**from, *to, diff->need, "down", o.progress);
    if (!c) return fail(c.error());
    down = *c;
  }
  phases.down = seconds_since(step);
  step = std::chrono::steady_clock::now();
  if (o.direction != Direction::kDown) {
    auto c = copy(*to, **from, diff->have, "up", o.progress);
    if (!c) return fail(c.error());
    up = *c;
  }
  phases.up = seconds_since(step);
  report(o, to_url, listed, *diff, down, up, phases, seconds_since(started));
  std::fflush(stdout);
  if (!o.watch) return 0;

  // Live: everything from the source since this run began (what the
  // reconciliation saw may repeat; the destination answers "duplicate:").
  if (o.progress) std::fprintf(stderr, "watching %s…\n", o.from.c_str());
  engine::Status s = (*from)->follow(o.filter, started_unix, [&](engine::Event&& e) {
    auto tally = to->publish({e});
    if (!tally) return false;
    if (o.json) {
      std::printf("%s\n", JsonFields().string("event", e.id_hex()).boolean("stored", tally->accepted).str().c_str());
    } else {
      std::printf("%s %s%s\n", e.id_hex().c_str(), tally->accepted ? "stored" : "refused: ", tally->last_refusal.c_str());
    }
    std::fflush(stdout);
    return true;
  });
  return fail("watch ended: " + (s ? std::string("by request") : s.error()));
}

}  // namespace buzz::sync
