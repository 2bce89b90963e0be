// Opening the embedded database; see rocks_database.h.
#include "engine/rocks_database.h"

#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/checkpoint.h>
#include <rocksdb/write_buffer_manager.h>

#include <optional>

#include "engine/event_record.h"
#include "engine/data_format.h"

namespace buzz::engine {
namespace {

// Column family names, in Family order. Renaming one orphans its data.
constexpr const char* kFamilyNames[] = {
    "events.regular", "events.replaceable", "events.addressable", "events.buzz",
    "index.time",     "index.kind",         "index.author",       "index.author_kind",
    "index.tag",      "pointers",           "relay_members",      "channels",
    "channel_members", "threads",           "audit_pending",
    "api_tokens",     "users",              "pubkey_allowlist",   "workflows",
    "event_ids",      "relay_policy",       "index.expiry",       "index.tag_kind",
};
static_assert(std::size(kFamilyNames) == size_t(Family::kCount));

// Bytes before the ~created_at | id suffix of an index family's keys, as the
// key builders of event_record.h lay them out; none for other families.
std::optional<size_t> index_prefix_bytes(Family f) {
  const uint8_t pubkey[32] = {};
  switch (f) {
    case Family::kIndexTime: return 0;
    case Family::kIndexKind: return kind_prefix(0).size();
    case Family::kIndexAuthor: return author_prefix(pubkey).size();
    case Family::kIndexAuthorKind: return author_kind_prefix(pubkey, 0).size();
    case Family::kIndexTag: return tag_prefix('t', "").size();
    case Family::kIndexTagKind: return tag_kind_prefix('t', "", 0).size();
    default: return std::nullopt;
  }
}

constexpr size_t kHashMemtableBuckets = 1 << 16;  // ~2 records per bucket in a full 64 MiB memtable

}  // namespace

Result<std::unique_ptr<RocksDatabase>> RocksDatabase::open(const std::string& path, const DatabaseOptions& options) {
  rocksdb::Options db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.IncreaseParallelism(2);
  // Compactions yield the cores to the loops and the store writer (thread_role.h);
  // flushes keep normal priority, since writes stall when memtables cannot drain.
  db_options.env->LowerThreadPoolCPUPriority(rocksdb::Env::Priority::LOW, rocksdb::CpuPriority::kLow);
  db_options.max_open_files = 512;
  db_options.allow_concurrent_memtable_write = false;  // hash memtables (below) need it; one thread writes anyway

  auto memtable_budget = std::make_shared<rocksdb::WriteBufferManager>(options.memtable_budget_bytes);
  db_options.write_buffer_manager = memtable_budget;

  auto cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  table.cache_index_and_filter_blocks = true;
  rocksdb::BlockBasedTableOptions point_table = table;
  point_table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));  // most lookups by id at ingest miss

  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  rocksdb::ColumnFamilyOptions base(db_options);
  base.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, base);
  for (size_t i = 0; i < size_t(Family::kCount); ++i) {
    rocksdb::ColumnFamilyOptions cf(db_options);
    const bool records = i <= size_t(Family::kEventsBuzz);
    const bool ids = i == size_t(Family::kEventIds);
    const bool by_id = ids || i == size_t(Family::kPointers) || i == size_t(Family::kThreads);
    cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(by_id ? point_table : table));
    if (const std::optional<size_t> prefix = index_prefix_bytes(Family(i))) {
      // Index keys arrive newest first within their prefix (~created_at):
      // inserting next to the previous key of the same prefix skips most of
      // the memtable skip-list search.
      cf.memtable_insert_with_hint_prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(*prefix));
    }
    if (by_id) {
      // Most id lookups at ingest are misses (new events): a memtable bloom
      // filter answers them without searching the memtable.
      cf.memtable_prefix_bloom_size_ratio = 0.05;
      cf.memtable_whole_key_filtering = true;
    }
    if (ids || records) {
      // Read in memory only by whole key (an id; a record's key from an index
      // entry or event_ids): a hash memtable on the whole key inserts and finds
      // in O(1), where a skip list pays a full search per insert and per read.
      // The keys get sorted at flush instead, on RocksDB's thread rather than
      // the store writer's. Iterating these families needs total_order_seek.
      // Capped, not fixed: a record family may still hold the first layout's
      // 32-byte keys until record_key_upgrade has moved them.
      cf.prefix_extractor.reset(ids ? rocksdb::NewFixedPrefixTransform(sizeof(Id))
                                    : rocksdb::NewCappedPrefixTransform(kKeySuffixBytes));
      cf.memtable_factory.reset(rocksdb::NewHashLinkListRepFactory(kHashMemtableBuckets));
    }
    descriptors.emplace_back(kFamilyNames[i], cf);
  }

  rocksdb::DB* raw = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::Status s = rocksdb::DB::Open(db_options, path, descriptors, &handles, &raw);
  if (!s.ok()) {
    if (s.IsIOError() && s.ToString().find("lock") != std::string::npos) {
      return Error{"the data directory is in use by another buzz process (" + s.ToString() + ")"};
    }
    // A family this binary does not know: a newer format says so in words.
    if (s.IsInvalidArgument()) {
      if (Result<DataFormat> f = read_data_format(path); f && f->version > kDataFormatVersion) {
        return Error{newer_format_refusal(*f)};
      }
    }
    return Error{"cannot open the database at " + path + ": " + s.ToString()};
  }
  std::unique_ptr<RocksDatabase> out(new RocksDatabase());
  out->db_.reset(raw);
  // handles[0] is the default family; Family values index the rest.
  out->default_handle_ = handles[0];
  out->handles_.assign(handles.begin() + 1, handles.end());
  out->write_options_.sync = options.sync_writes;
  out->block_cache_ = cache;
  out->memtable_budget_ = memtable_budget;
  if (Status s = upgrade_data_format(*out); !s) return Error{s.error()};
  return out;
}

StoreMemory RocksDatabase::memory() const {
  StoreMemory m;
  m.block_cache = block_cache_->GetUsage();
  m.memtables = memtable_budget_->memory_usage();
  uint64_t readers = 0;
  for (auto* h : handles_) {
    if (db_->GetIntProperty(h, rocksdb::DB::Properties::kEstimateTableReadersMem, &readers)) m.table_readers += readers;
  }
  return m;
}

Status RocksDatabase::flush() {
  rocksdb::FlushOptions options;
  options.allow_write_stall = true;  // the writer may go on meanwhile
  std::vector<rocksdb::ColumnFamilyHandle*> all(handles_);
  all.push_back(default_handle_);
  rocksdb::Status s = db_->Flush(options, all);
  if (!s.ok()) return Error{"cannot flush the store: " + s.ToString()};
  return {};
}

Status RocksDatabase::checkpoint(const std::string& dir) const {
  rocksdb::Checkpoint* raw = nullptr;
  rocksdb::Status s = rocksdb::Checkpoint::Create(db_.get(), &raw);
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // Never flush inside: the log since the last flush is copied instead.
  if (s.ok()) s = checkpoint->CreateCheckpoint(dir, /*log_size_for_flush=*/UINT64_MAX);
  if (!s.ok()) return Error{"cannot checkpoint the store into " + dir + ": " + s.ToString()};
  return {};
}

RocksDatabase::~RocksDatabase() {
  if (!db_) return;
  for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h);
  db_->DestroyColumnFamilyHandle(default_handle_);
  db_->Close();
}

}  // namespace buzz::engine
