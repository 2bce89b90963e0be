// PgEventStore: the EventStore on PostgreSQL, over the upstream HEAD schema
// (docs/reference/compat-backends.md §1), so an original deployment's database is served as
// it is, and several `buzz serve --store postgres://…` nodes share one store.
//
// Events are the upstream `events` rows (soft deletes in deleted_at, d_tag,
// event_mentions); an event whose exact bytes the columns would not rebuild
// keeps them in buzz_event_raw, as `buzz migrate export` does. The team state
// the embedded store keeps beside the events (channels, members, threads,
// tokens, users, workflows, audit_pending) lives in buzz_state as the same
// (key, value) records, changed in the same transaction as the events; on the
// first start over an original's database it is adopted from the upstream
// tables (channels, channel_members, users, thread_metadata, api_tokens). The
// channels, members and workflows are written to the original's tables as well,
// in the same transaction, so an original relay on the database reads them.
// audit_pending rows belong to one node (its own tickets), the rest is shared.
//
// Threads: as EventStore says. Each thread has its own connection
// (pg_thread_connections.h); write() runs one transaction on the writer's.
// Replaceable keys take upstream's transaction-level advisory lock, so two
// nodes never both keep a version; a duplicate another node inserted first
// is answered kDuplicate.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/event_store.h"
#include "migrate/pg_connection.h"
#include "migrate/pg_thread_connections.h"

namespace buzz::migrate {

class PgEventStore final : public engine::EventStore {
 public:
  // Connects, creates the HEAD schema in an empty database (refuses a seed-era
  // or unknown one), and adds what is missing: the audit table (upstream's
  // schema.sql has none), the store's own tables and indexes; all in one
  // transaction. `node` names this process's audit_pending rows.
  static engine::Result<std::unique_ptr<PgEventStore>> open(const std::string& url, const std::string& node);
  // Once per database: an original's team tables become the team state
  // (pg_import.h), in one transaction with the mark that they did. `buzz serve`
  // calls it once everything else it opens has opened, so a start that fails
  // leaves nothing adopted.
  engine::Status adopt_original_team_state();
  // The rows of the original's channels and channel_members tables as state
  // records, read again (BUZZ_RECONCILE_CHANNELS, server/app/team_reconciler.h).
  engine::Result<std::vector<engine::StateWrite>> original_channels();

  engine::Result<std::vector<engine::WriteResult>> write(std::span<const engine::WriteRequest> requests,
                                                         std::span<const engine::StateWrite> state = {},
                                                         const engine::WriteFinisher& finish = {}) override;
  bool contains(const engine::Id& id, uint16_t kind) override;
  engine::Status query(const engine::Filter& filter, const engine::QueryOptions& options,
                       const engine::EventSink& sink) override;
  engine::Status scan_kind(uint16_t kind, const engine::EventSink& sink) override;
  engine::Status scan_all(const engine::Filter& filter, const engine::QueryOptions& options, size_t max_events,
                          const std::function<void(const engine::EventFields&)>& sink) override;
  engine::Result<uint64_t> count(std::span<const engine::Filter> filters, const engine::QueryOptions& options) override;
  std::optional<std::string> get(const engine::Id& id) override;
  std::optional<engine::StoredEvent> lookup(const engine::Id& id) override;
  engine::Result<std::vector<engine::ExpiredEvent>> expired(uint64_t now, size_t max) override;
  engine::Status erase_expired(std::span<const engine::ExpiredEvent> events,
                               std::span<const engine::StateWrite> state) override;
  std::optional<std::string> get_state(engine::StateTable table, std::string_view key) override;
  engine::Status scan_state(engine::StateTable table,
                            const std::function<void(std::string_view, std::string_view)>& visit) override;
  engine::Status scan_state_prefix(engine::StateTable table, std::string_view prefix,
                                   const std::function<void(std::string_view, std::string_view)>& visit) override;
  engine::Status put_state(engine::StateTable table, std::string_view key, std::string_view value) override;
  engine::Status put_states(std::span<const engine::StateWrite> writes) override;
  // One transaction: the row is read FOR UPDATE, so another node's update of
  // it waits for this COMMIT and then reads what this one wrote.
  engine::Status update_state(engine::StateTable table, std::string_view key, const engine::StateChange& change) override;
  engine::Status erase_state(engine::StateTable table, std::string_view from, std::string_view to) override;
  // The channels whose records any node's batch changed after `since`: each
  // write() that changes channels or members bumps buzz_serve_meta's
  // team_version and notes them in buzz_team_changes, in its transaction.
  engine::Result<engine::TeamChanges> team_changes(uint64_t since) override;
  // A session-level advisory lock on the writer's connection: it outlives the
  // batch's transaction, and PostgreSQL drops it if the node dies holding it.
  engine::Status lock_team() override;
  void unlock_team() override;
  // A session-level advisory lock per table on this thread's connection,
  // which `section`'s queries use too.
  engine::Status with_table_lock(engine::StateTable table, const std::function<engine::Status()>& section) override;

  // The per-thread connections, shared with the other live backends on this database.
  PgThreadConnections& connections() { return conns_; }

  // One write transaction with what it has read and changed (pg_event_store.cpp).
  class Batch;

 private:
  PgEventStore(const std::string& url, std::string node) : url_(url), conns_(url), node_(std::move(node)) {}

  // Visits matching live rows newest first (created_at desc, id asc), a page at
  // a time, until `visit` says stop or `budget` rows were examined.
  engine::Status scan(const engine::Filter& filter, size_t page, size_t budget,
                      const std::function<bool(std::string_view raw, const engine::EventFields&)>& visit);
  std::optional<engine::StoredEvent> read_one(const engine::Id& id, bool live_only);
  // The node column of a state table's rows.
  const std::string& node_of(engine::StateTable table) const;
  // Inside write()'s transaction, sent with its COMMIT: the state rows (the
  // last write of each key), and the next team version for the channels
  // these writes change.
  // With `mirror`, the channels, members and workflows among them go to the
  // original's tables too (pg_team_rows.h, pg_workflow_rows.h), so an
  // original relay on this database reads the same team.
  std::vector<PgConnection::Statement> state_statements(std::span<const engine::StateWrite> writes,
                                                        bool mirror = true) const;
  static void append_mirror(std::vector<PgConnection::Statement>& out, std::span<const engine::StateWrite> writes);
  // The channel, member and workflow records of buzz_state, for the one-time mirror.
  engine::Result<std::vector<engine::StateWrite>> mirrored_state(PgConnection& pg) const;
  static std::optional<PgConnection::Statement> team_change_statement(std::span<const engine::StateWrite> writes);

  const std::string url_;
  PgThreadConnections conns_;
  const std::string node_;
};

}  // namespace buzz::migrate
