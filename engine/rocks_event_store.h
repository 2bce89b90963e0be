// RocksEventStore: the embedded EventStore on RocksDB (docs/storage.md).
//
// Writes go through a WriteBatchWithIndex so that events later in one batch
// see the effects of earlier ones (a replaceable event followed by a newer one,
// a deletion of an event stored in the same batch). Reads scan one index family
// chosen per filter and merge its per-value ranges newest first.
#pragma once

#include <mutex>

#include "engine/event_store.h"
#include "engine/event_record.h"
#include "engine/rocks_database.h"

namespace buzz::engine {

class RocksEventStore final : public EventStore {
 public:
  explicit RocksEventStore(RocksDatabase& db) : db_(db) {}

  Result<std::vector<WriteResult>> write(std::span<const WriteRequest> requests,
                                         std::span<const StateWrite> state = {},
                                         const WriteFinisher& finish = {}) override;
  bool contains(const Id& id, uint16_t kind) override;
  Status query(const Filter& filter, const QueryOptions& options, const EventSink& sink) override;
  Status scan_kind(uint16_t kind, const EventSink& sink) override;
  Status scan_all(const Filter& filter, const QueryOptions& options, size_t max_events,
                  const std::function<void(const EventFields&)>& sink) override;
  Result<uint64_t> count(std::span<const Filter> filters, const QueryOptions& options) override;
  std::optional<std::string> get(const Id& id) override;
  std::optional<StoredEvent> lookup(const Id& id) override;
  Result<std::vector<ExpiredEvent>> expired(uint64_t now, size_t max) override;
  Status erase_expired(std::span<const ExpiredEvent> events, std::span<const StateWrite> state) override;
  std::optional<std::string> get_state(StateTable table, std::string_view key) override;
  Status scan_state(StateTable table,
                    const std::function<void(std::string_view key, std::string_view value)>& visit) override;
  Status put_state(StateTable table, std::string_view key, std::string_view value) override;
  Status put_states(std::span<const StateWrite> writes) override;
  Status scan_state_prefix(StateTable table, std::string_view prefix,
                           const std::function<void(std::string_view, std::string_view)>& visit) override;
  Status update_state(StateTable table, std::string_view key, const StateChange& change) override;
  Status erase_state(StateTable table, std::string_view from, std::string_view to) override;

  // For offline tools (`buzz sync --data-dir`, before its relay opens the
  // store): the (created_at, id) of every event of `filter` read from one
  // index alone, no record read, so deleted events are included (a deletion
  // keeps its index keys). False, having called nothing, when the index
  // cannot answer the filter alone (ids, tags, too many author × kind pairs).
  Result<bool> scan_index_keys(const Filter& filter, const std::function<void(uint64_t created_at, const Id& id)>& sink);

  // For offline tools (`buzz migrate`), not the relay. Every stored record,
  // deleted ones included, family by family in key order (newest first);
  // visit returns false to stop. `after` resumes after that record key
  // (record_key) within the first family given.
  Status scan_records(StorageFamily first, std::string_view after,
                      const std::function<bool(StorageFamily, const RecordView&)>& visit);

 private:
  class Batch;
  class RulesView;  // the write rules' view of a Batch (write_rules.h)
  // Scans candidates newest first; visit returns false to stop.
  Status scan(const Filter& filter, size_t budget, const std::function<bool(const RecordView&)>& visit);

  rocksdb::ColumnFamilyHandle* state_family(StateTable table) const;
  // Adds the state writes (an empty value deletes) to a batch.
  void add_state(rocksdb::WriteBatch* batch, std::span<const StateWrite> writes) const;
  // The stored value of an event by id, deleted or not: its event_ids entry, then its record.
  std::optional<std::string> read_record(const Id& id);

  RocksDatabase& db_;
  std::mutex update_state_mu_;  // one process owns the database: a mutex makes update_state atomic
};

}  // namespace buzz::engine
