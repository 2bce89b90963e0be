// The embedded database: one RocksDB instance in <data-dir>/db with a column
// family per kind range, per index and per kind of team state (docs/storage.md).
//
// Opened once per process. RocksDB takes a lock file, so a second process on
// the same data directory (a `buzz admin` while the server runs) gets a clear
// error instead of two writers.
#pragma once

#include <rocksdb/db.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/kinds.h"
#include "engine/result.h"

namespace buzz::engine {

enum class Family : uint8_t {
  // Event records, by kind range: ~created_at | id -> record (engine/event_record.h),
  // newest first, so the newest events of a kind, author or tag share blocks.
  kEventsRegular,
  kEventsReplaceable,
  kEventsAddressable,
  kEventsBuzz,
  kIndexTime,        // ~created_at | id
  kIndexKind,        // kind | ~created_at | id
  kIndexAuthor,      // pubkey | ~created_at | id
  kIndexAuthorKind,  // pubkey | kind | ~created_at | id
  kIndexTag,         // letter | xxh3(value) | ~created_at | id
  kPointers,         // replaceable: kind | pubkey | channel ; addressable: kind | pubkey | d  -> id | created_at
  kRelayMembers,     // pubkey -> member record
  kChannels,         // channel id -> channel record (engine/channel.h)
  kChannelMembers,   // channel id | pubkey -> member record
  kThreads,          // event id -> thread row (parent, root, depth, counters)
  kAuditPending,     // ticket u64 -> audit record not yet in the chain
  kApiTokens,        // SHA-256(token) -> token record (engine/api_tokens.h)
  kUsers,            // pubkey -> what REST set for a user (server/team/profile_directory.h)
  kPubkeyAllowlist,  // pubkey -> legacy allow-list entry (engine/pubkey_allowlist.h)
  kWorkflows,        // workflows, their runs and approvals, by key prefix (engine/workflow_records.h)
  kEventIds,         // id -> storage family (1) | ~created_at (8): where an event's record is
  kRelayPolicy,      // bans, blocked addresses, the relay's own NIP-11 texts (server/access/relay_policy.h)
  kIndexExpiry,      // expires_at | ~created_at | id -> kind: NIP-40's reaper, earliest first (data format 3)
  kIndexTagKind,     // letter | xxh3(value) | kind | ~created_at | id: a tag asked with kinds (data format 4)
  kCount,
};

struct DatabaseOptions {
  bool sync_writes = false;  // fsync the WAL on every batch (power-loss durability)
  size_t block_cache_bytes = 256 << 20;
  // All memtables together, over every family: past it RocksDB flushes the
  // largest. Without it each of the ~20 families may hold two 64 MiB memtables,
  // and the relay's memory would grow with the number of families, not the load.
  size_t memtable_budget_bytes = 64 << 20;
};

// Where the store's memory is, for /metrics: the two bounded pools of
// DatabaseOptions and the table readers (index and filter blocks not in the cache).
struct StoreMemory {
  uint64_t block_cache = 0;
  uint64_t memtables = 0;  // active, immutable and being flushed
  uint64_t table_readers = 0;
};

class RocksDatabase {
 public:
  static Result<std::unique_ptr<RocksDatabase>> open(const std::string& path, const DatabaseOptions& options);
  ~RocksDatabase();

  rocksdb::DB* db() const { return db_.get(); }
  rocksdb::ColumnFamilyHandle* family(Family f) const { return handles_[size_t(f)]; }
  rocksdb::ColumnFamilyHandle* events(StorageFamily f) const { return handles_[size_t(f)]; }
  rocksdb::ColumnFamilyHandle* defaults() const { return default_handle_; }
  const rocksdb::WriteOptions& write_options() const { return write_options_; }
  // Any thread; takes RocksDB's property locks, so not for a hot path.
  StoreMemory memory() const;

  // For a backup (docs/storage.md, "Backup"). flush() writes every memtable to
  // a table file and waits, while writers go on; checkpoint() then makes `dir`
  // (which must not exist) an openable copy of the store as of this moment:
  // table files hard-linked when `dir` is on the same file system, and the
  // write-ahead log since the last flush copied, never flushed, so a writer is
  // held up only by that copy. Any thread.
  Status flush();
  Status checkpoint(const std::string& dir) const;
  // The sequence number of the last write, for the backup's manifest.
  uint64_t sequence() const { return db_->GetLatestSequenceNumber(); }

 private:
  RocksDatabase() = default;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::ColumnFamilyHandle* default_handle_ = nullptr;
  rocksdb::WriteOptions write_options_;
  std::shared_ptr<rocksdb::Cache> block_cache_;
  std::shared_ptr<rocksdb::WriteBufferManager> memtable_budget_;
};

}  // namespace buzz::engine
