// BannedEventsStore: the event store as every reader sees it once NIP-86 has
// banned events (RelayPolicy): a banned event reads as deleted on every path —
// REQ and COUNT, NIP-77, REST, the bridge, search (whose hits are re-read from
// the store) — without each path asking. Writes and team state pass through.
//
// While nothing is banned, each call costs one atomic load, not one per row.
// Any thread, as the store it wraps.
#pragma once

#include "engine/event_store.h"
#include "server/access/relay_policy.h"

namespace buzz::server {

class BannedEventsStore final : public engine::EventStore {
 public:
  BannedEventsStore(engine::EventStore& store, const RelayPolicy& policy) : store_(store), policy_(policy) {}

  engine::Result<std::vector<engine::WriteResult>> write(std::span<const engine::WriteRequest> requests,
                                                         std::span<const engine::StateWrite> state,
                                                         const engine::WriteFinisher& finish) override {
    return store_.write(requests, state, finish);
  }
  bool contains(const engine::Id& id, uint16_t kind) override { return store_.contains(id, kind); }
  engine::Status query(const engine::Filter& filter, const engine::QueryOptions& options,
                       const engine::EventSink& sink) override {
    return store_.query(filter, screened(options), sink);
  }
  engine::Status scan_kind(uint16_t kind, const engine::EventSink& sink) override;
  engine::Status scan_all(const engine::Filter& filter, const engine::QueryOptions& options, size_t max_events,
                          const std::function<void(const engine::EventFields&)>& sink) override {
    return store_.scan_all(filter, screened(options), max_events, sink);
  }
  engine::Result<uint64_t> count(std::span<const engine::Filter> filters, const engine::QueryOptions& options) override {
    return store_.count(filters, screened(options));
  }
  std::optional<std::string> get(const engine::Id& id) override {
    if (policy_.event_banned(id)) return std::nullopt;
    return store_.get(id);
  }
  std::optional<engine::StoredEvent> lookup(const engine::Id& id) override;
  engine::Result<std::vector<engine::ExpiredEvent>> expired(uint64_t now, size_t max) override {
    return store_.expired(now, max);
  }
  engine::Status erase_expired(std::span<const engine::ExpiredEvent> events,
                               std::span<const engine::StateWrite> state) override {
    return store_.erase_expired(events, state);
  }

  std::optional<std::string> get_state(engine::StateTable table, std::string_view key) override {
    return store_.get_state(table, key);
  }
  engine::Status scan_state(engine::StateTable table,
                            const std::function<void(std::string_view, std::string_view)>& visit) override {
    return store_.scan_state(table, visit);
  }
  engine::Status scan_state_prefix(engine::StateTable table, std::string_view prefix,
                                   const std::function<void(std::string_view, std::string_view)>& visit) override {
    return store_.scan_state_prefix(table, prefix, visit);
  }
  engine::Status put_state(engine::StateTable table, std::string_view key, std::string_view value) override {
    return store_.put_state(table, key, value);
  }
  engine::Status put_states(std::span<const engine::StateWrite> writes) override { return store_.put_states(writes); }
  engine::Status update_state(engine::StateTable table, std::string_view key, const engine::StateChange& change) override {
    return store_.update_state(table, key, change);
  }
  engine::Status erase_state(engine::StateTable table, std::string_view from, std::string_view to) override {
    return store_.erase_state(table, from, to);
  }
  engine::Result<engine::TeamChanges> team_changes(uint64_t since) override { return store_.team_changes(since); }
  engine::Status lock_team() override { return store_.lock_team(); }
  void unlock_team() override { store_.unlock_team(); }
  engine::Status with_table_lock(engine::StateTable table, const std::function<engine::Status()>& section) override {
    return store_.with_table_lock(table, section);
  }

 private:
  // The options with banned events refused before they count: the same
  // options while nothing is banned.
  engine::QueryOptions screened(const engine::QueryOptions& options) const;

  engine::EventStore& store_;
  const RelayPolicy& policy_;
};

}  // namespace buzz::server
