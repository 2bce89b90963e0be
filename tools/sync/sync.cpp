// `buzz sync`; see sync.h.
#include "tools/sync/sync.h"

#include <chrono>
#include <cstdio>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "tools/sync/local_relay.h"

namespace buzz::sync {
namespace {

constexpr size_t kBatch = 500;  // events fetched, then published, at a time

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

std::string json_text(std::string_view s) {
  std::string out;
  engine::append_json_string(out, s);
  return out;
}

void report(const SyncOptions& o, const std::string& to, size_t listed, const ReconcileResult& r, const Copied& down,
            const Copied& up, double seconds) {
  if (o.json) {
    std::printf(
        "{\"from\":\"%s\",\"to\":\"%s\",\"destination_events\":%zu,\"missing_on_destination\":%zu,"
        "\"missing_on_source\":%zu,\"rounds\":%zu,\"neg_bytes_up\":%zu,\"neg_bytes_down\":%zu,"
        "\"downloaded\":%zu,\"stored_down\":%zu,\"refused_down\":%zu,\"uploaded\":%zu,\"stored_up\":%zu,"
        "\"refused_up\":%zu,\"last_refusal_down\":%s,\"last_refusal_up\":%s,\"seconds\":%.3f}\n",
        o.from.c_str(), to.c_str(), listed, r.need.size(), r.have.size(), r.rounds, r.bytes_up, r.bytes_down,
        down.fetched, down.stored, down.refused, up.fetched, up.stored, up.refused, json_text(down.last_refusal).c_str(),
        json_text(up.last_refusal).c_str(), seconds);
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
  std::unique_ptr<LocalRelay> local;
  std::string to_url = o.to;
  if (!o.data_dir.empty()) {
    auto started_local = LocalRelay::start(o.data_dir);
    if (!started_local) return fail(started_local.error());
    local = std::move(*started_local);
    to_url = local->url();
  }
  auto from = RelayLink::open(o.from, o.from_identity);
  if (!from) return fail(from.error());
  auto to = RelayLink::open(to_url, o.to_identity);
  if (!to) return fail(to.error());

  if (o.progress) std::fprintf(stderr, "listing %s…\n", to_url.c_str());
  auto items = (*to)->list(o.filter);
  if (!items) return fail(to_url + ": " + items.error());
  const size_t listed = items->size();
  if (o.progress) std::fprintf(stderr, "reconciling %zu events with %s…\n", listed, o.from.c_str());
  auto diff = (*from)->reconcile(o.filter, engine::negentropy::ItemSet(std::move(*items)));
  if (!diff) return fail(o.from + ": " + diff.error());

  Copied down, up;
  if (o.direction != Direction::kUp) {
    auto c = copy(**from, **to, diff->need, "down", o.progress);
    if (!c) return fail(c.error());
    down = *c;
  }
  if (o.direction != Direction::kDown) {
    auto c = copy(**to, **from, diff->have, "up", o.progress);
    if (!c) return fail(c.error());
    up = *c;
  }
  report(o, to_url, listed, *diff, down, up, seconds_since(started));
  std::fflush(stdout);
  if (!o.watch) return 0;

  // Live: everything from the source since this run began (what the
  // reconciliation saw may repeat; the destination answers "duplicate:").
  if (o.progress) std::fprintf(stderr, "watching %s…\n", o.from.c_str());
  engine::Status s = (*from)->follow(o.filter, started_unix, [&](engine::Event&& e) {
    auto tally = (*to)->publish({e});
    if (!tally) return false;
    if (o.json) {
      std::printf("{\"event\":\"%s\",\"stored\":%s}\n", e.id_hex().c_str(), tally->accepted ? "true" : "false");
    } else {
      std::printf("%s %s%s\n", e.id_hex().c_str(), tally->accepted ? "stored" : "refused: ", tally->last_refusal.c_str());
    }
    std::fflush(stdout);
    return true;
  });
  return fail("watch ended: " + (s ? std::string("by request") : s.error()));
}

}  // namespace buzz::sync
