// The embedded event store; see rocks_event_store.h and docs/storage.md.
#include "engine/rocks_event_store.h"

#include <rocksdb/utilities/write_batch_with_index.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <queue>
#include <unordered_set>

#include "engine/clock.h"
#include "engine/event_record.h"
#include "engine/kinds.h"
#include "engine/write_rules.h"

namespace buzz::engine {
namespace {

// How many index entries one query or count may examine before it stops.
constexpr size_t kQueryScanBudget = 100'000;
constexpr size_t kCountScanBudget = 10'000'000;
// Above this many (author, kind) pairs the planner scans by author alone, and
// above this many (tag value, kind) pairs by tag alone: a cursor a pair.
constexpr size_t kMaxAuthorKindPairs = 256;
constexpr size_t kMaxTagKindPairs = 256;

rocksdb::Slice as_slice(const uint8_t* p, size_t n) { return {reinterpret_cast<const char*>(p), n}; }

// The key of a replaceable slot's pointer (docs/storage.md).
std::string pointer_key(const ReplaceSlot& slot) {
  std::string key = kind_prefix(slot.kind);
  key.append(reinterpret_cast<const char*>(slot.pubkey.data()), 32);
  key.append(slot.value);
  return key;
}

}  // namespace

// One write batch plus reads that see it (read-your-writes inside the batch).
class RocksEventStore::Batch {
 public:
  explicit Batch(RocksDatabase& db) : db_(db), wb_(rocksdb::BytewiseComparator(), 0, /*overwrite_key=*/true) {}

  bool get(Family f, rocksdb::Slice key, std::string* value) {
    return wb_.GetFromBatchAndDB(db_.db(), read_, db_.family(f), key, value).ok();
  }
  void put(Family f, rocksdb::Slice key, rocksdb::Slice value) { (void)wb_.Put(db_.family(f), key, value); }
  rocksdb::WriteBatch* batch() { return wb_.GetWriteBatch(); }

  // The batch to write: what it holds, then its index entries sorted by family
  // and key. A family's memtable inserts a key from the previous one of its
  // prefix (the insert hint, rocks_database.cpp), so in key order each insert
  // searches only the gap to the one before; in arrival order each landed at a
  // random place among the keys of the same second. The sort is stable: an
  // add then a removal of one key still apply in that order.
  rocksdb::WriteBatch* finish() {
    std::stable_sort(index_entries_.begin(), index_entries_.end(), [](const IndexEntry& a, const IndexEntry& b) {
      return a.family != b.family ? a.family < b.family : a.key < b.key;
    });
    rocksdb::WriteBatch* raw = batch();
    std::string kind_value;
    for (const IndexEntry& e : index_entries_) {
      if (!e.add) {
        (void)raw->Delete(db_.family(e.family), e.key);
        continue;
      }
      kind_value.clear();
      put_u16(&kind_value, e.kind);
      (void)raw->Put(db_.family(e.family), e.key, kind_value);
    }
    index_entries_.clear();
    return raw;
  }

  // The event_ids entry of an id, this batch's included.
  bool get_id(const uint8_t* id, std::string* entry) {
    Id key;
    std::memcpy(key.data(), id, 32);
    if (auto it = added_ids_.find(key); it != added_ids_.end()) {
      *entry = it->second;
      return true;
    }
    return db_.db()->Get(read_, db_.family(Family::kEventIds), as_slice(id, 32), entry).ok();
  }
  // Id entries skip the batch's read index (a skip list): a hash map answers
  // the reads of this batch's own ids.
  void add_id(const Id& id, std::string entry) {
    (void)batch()->Put(db_.family(Family::kEventIds), as_slice(id.data(), 32), entry);
    added_ids_.emplace(id, std::move(entry));
  }
  // Finds a stored record (this batch's included) through event_ids.
  bool find_record(const uint8_t* id, std::string* value, Family* where, std::string* key) {
    std::string entry;
    StorageFamily fam;
    if (!get_id(id, &entry) || !parse_event_id_entry(entry, id, &fam, key)) return false;
    *where = Family(fam);
    return get(*where, *key, value);
  }

  // Adds or removes every index entry of a record.
  void index(const EventFields& f, bool add) {
    std::string suffix;
    put_key_suffix(&suffix, f.created_at, f.id);
    // Index entries skip the batch's read index: nothing reads them back
    // before the write. Most of an event's keys are index entries, so this
    // spares most of the batch's own skip-list inserts. They wait for finish().
    auto apply = [&](Family fam, std::string key) {
      key += suffix;
      index_entries_.push_back({fam, f.kind, add, std::move(key)});
    };
    apply(Family::kIndexTime, {});
    apply(Family::kIndexKind, kind_prefix(f.kind));
    apply(Family::kIndexAuthor, author_prefix(f.pubkey));
    apply(Family::kIndexAuthorKind, author_kind_prefix(f.pubkey, f.kind));
    // Each tag twice: alone, and with the kind for the filters that name kinds
    // too, which then read only their matches (docs/storage.md).
    auto apply_tag = [&](char name, std::string_view value) {
      std::string key = tag_prefix(name, value);
      apply(Family::kIndexTag, key);
      put_u16(&key, f.kind);
      apply(Family::kIndexTagKind, std::move(key));
    };
    bool channel_tagged = false;
    for (const TagRef& t : f.tags) {
      apply_tag(t.name, t.value);
      channel_tagged |= t.name == 'h' && t.value == f.channel;
    }
    // #h matches the stored channel (Filter::matches), so index that channel
    // under h even when no h tag names it (kinds 5 and 7 inherit their target's).
    if (!channel_tagged && !f.channel.empty()) apply_tag('h', f.channel);
  }

  // True if the record exists and is not deleted.
  bool is_live(const uint8_t* id) {
    std::string value, key;
    Family fam;
    RecordView rec;
    return find_record(id, &value, &fam, &key) && decode_record(value, &rec) && !rec.deleted();
  }

  // Marks a stored event deleted and drops it from every index.
  void soft_delete(const uint8_t* id) {
    std::string value, key;
    Family fam;
    RecordView rec;
    if (!find_record(id, &value, &fam, &key) || !decode_record(value, &rec) || rec.deleted()) return;
    index(rec.fields, false);
    std::string updated = value;
    set_record_flags(&updated, rec.flags | kRecordDeleted);
    put(fam, key, updated);
  }

 private:
  RocksDatabase& db_;
  rocksdb::ReadOptions read_;
  rocksdb::WriteBatchWithIndex wb_;
  std::unordered_map<Id, std::string, KeyBytesHash> added_ids_;
  struct IndexEntry {
    Family family;
    uint16_t kind;  // the entry's value
    bool add;       // false: a removal
    std::string key;
  };
  std::vector<IndexEntry> index_entries_;  // in arrival order until finish()
};

// The write rules' view of a batch (write_rules.h).
class RocksEventStore::RulesView final : public WriteView {
 public:
  explicit RulesView(Batch& batch) : batch_(batch) {}

  Result<bool> contains(const Id& id) override {
    std::string entry;
    return batch_.get_id(id.data(), &entry);
  }
  Result<std::optional<Stored>> find(const Id& id) override {
    std::string value, key;
    Family fam;
    RecordView rec;
    if (!batch_.find_record(id.data(), &value, &fam, &key) || !decode_record(value, &rec)) return std::optional<Stored>{};
    Stored out;
    std::memcpy(out.pubkey.data(), rec.fields.pubkey, 32);
    out.live = !rec.deleted();
    return std::optional<Stored>{out};
  }
  Result<std::optional<Version>> current(const ReplaceSlot& slot) override {
    std::string pointer;
    if (!batch_.get(Family::kPointers, pointer_key(slot), &pointer) || pointer.size() != 40 ||
        !batch_.is_live(reinterpret_cast<const uint8_t*>(pointer.data()))) {
      return std::optional<Version>{};
    }
    Version v;
    std::memcpy(v.id.data(), pointer.data(), 32);
    v.created_at = get_u64(pointer.data() + 32);
    return std::optional<Version>{v};
  }
  void soft_delete(const Id& id) override { batch_.soft_delete(id.data()); }
  void add(const Event& e, std::string_view channel, const ReplaceSlot* slot) override {
    if (slot) {
      std::string pointer(reinterpret_cast<const char*>(e.id.data()), 32);
      put_u64(&pointer, e.created_at);
      batch_.put(Family::kPointers, pointer_key(*slot), pointer);
    }
    const StorageFamily fam = storage_family(e.kind);
    std::string value;
    encode_record(e, channel, 0, &value);
    batch_.put(Family(fam), record_key(e.created_at, e.id.data()), value);
    batch_.add_id(e.id, event_id_entry(fam, e.created_at));
    if (const std::optional<uint64_t> expires_at = expiration_of(e)) {
      std::string kind;
      put_u16(&kind, e.kind);
      batch_.put(Family::kIndexExpiry, expiry_key(*expires_at, e.created_at, e.id.data()), kind);
    }
    EventFields fields;
    fields.assign(e, channel);
    batch_.index(fields, true);
  }

 private:
  Batch& batch_;
};

Result<std::vector<WriteResult>> RocksEventStore::write(std::span<const WriteRequest> requests,
                                                        std::span<const StateWrite> state, const WriteFinisher& finish) {
  Batch batch(db_);
  RulesView view(batch);
  std::vector<WriteResult> results;
  results.reserve(requests.size());
  for (const WriteRequest& r : requests) {
    auto result = apply_write_rules(view, r);  // the view's reads cannot fail
    results.push_back(std::move(*result));
  }
  std::vector<StateWrite> finished;
  if (finish) finish(results, finished);
  add_state(batch.batch(), state);
  add_state(batch.batch(), finished);
  // The batch is durable (WAL) when Write returns: only then may the caller
  // send OK true for any event in it.
  rocksdb::Status s = db_.db()->Write(db_.write_options(), batch.finish());
  if (!s.ok()) return Error{"error: database write failed: " + s.ToString()};
  return results;
}

Status RocksEventStore::scan_records(StorageFamily first, std::string_view after,
                                     const std::function<bool(StorageFamily, const RecordView&)>& visit) {
  rocksdb::ReadOptions read;
  read.total_order_seek = true;  // the record families' memtables are hashed by key
  read.fill_cache = false;       // a pass over every record would only evict the hot blocks
  for (int f = int(first); f < kStorageFamilies; ++f) {
    std::unique_ptr<rocksdb::Iterator> it(db_.db()->NewIterator(read, db_.events(StorageFamily(f))));
    if (f == int(first) && !after.empty()) {
      it->Seek(rocksdb::Slice(after.data(), after.size()));
      if (it->Valid() && it->key().ToStringView() == after) it->Next();
    } else {
      it->SeekToFirst();
    }
    for (; it->Valid(); it->Next()) {
      RecordView rec;
      if (!decode_record(it->value().ToStringView(), &rec)) {
        return Error{"error: unreadable event record " + to_hex(reinterpret_cast<const uint8_t*>(it->key().data()), it->key().size())};
      }
      if (!visit(StorageFamily(f), rec)) return {};
    }
    if (!it->status().ok()) return Error{"error: database read failed: " + it->status().ToString()};
  }
  return {};
}

bool RocksEventStore::contains(const Id& id, uint16_t) {
  rocksdb::PinnableSlice entry;
  return db_.db()->Get(rocksdb::ReadOptions(), db_.family(Family::kEventIds), as_slice(id.data(), 32), &entry).ok();
}

std::optional<std::string> RocksEventStore::read_record(const Id& id) {
  std::string entry, key, value;
  StorageFamily fam;
  const rocksdb::ReadOptions read;
  if (!db_.db()->Get(read, db_.family(Family::kEventIds), as_slice(id.data(), 32), &entry).ok() ||
      !parse_event_id_entry(entry, id.data(), &fam, &key) || !db_.db()->Get(read, db_.events(fam), key, &value).ok()) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> RocksEventStore::get(const Id& id) {
  auto value = read_record(id);
  RecordView rec;
  if (!value || !decode_record(*value, &rec) || rec.hidden(unix_now())) return std::nullopt;
  return std::string(rec.raw);
}

std::optional<StoredEvent> RocksEventStore::lookup(const Id& id) {
  auto value = read_record(id);
  RecordView rec;
  if (!value || !decode_record(*value, &rec)) return std::nullopt;
  // An expired event reads as deleted: its removal is only waiting for the reaper.
  StoredEvent out{std::string(rec.raw), std::string(rec.fields.channel), {}, rec.fields.kind, rec.fields.created_at,
                  rec.hidden(unix_now())};
  std::memcpy(out.pubkey.data(), rec.fields.pubkey, 32);
  return out;
}

rocksdb::ColumnFamilyHandle* RocksEventStore::state_family(StateTable table) const {
  switch (table) {
    case StateTable::kChannels: return db_.family(Family::kChannels);
    case StateTable::kChannelMembers: return db_.family(Family::kChannelMembers);
    case StateTable::kThreads: return db_.family(Family::kThreads);
    case StateTable::kAuditPending: return db_.family(Family::kAuditPending);
    case StateTable::kApiTokens: return db_.family(Family::kApiTokens);
    case StateTable::kUsers: return db_.family(Family::kUsers);
    case StateTable::kWorkflows: return db_.family(Family::kWorkflows);
    case StateTable::kRelayPolicy: return db_.family(Family::kRelayPolicy);
  }
  return nullptr;
}

void RocksEventStore::add_state(rocksdb::WriteBatch* batch, std::span<const StateWrite> writes) const {
  for (const StateWrite& w : writes) {
    if (w.value.empty()) (void)batch->Delete(state_family(w.table), w.key);
    else (void)batch->Put(state_family(w.table), w.key, w.value);
  }
}

std::optional<std::string> RocksEventStore::get_state(StateTable table, std::string_view key) {
  std::string value;
  if (!db_.db()->Get(rocksdb::ReadOptions(), state_family(table), key, &value).ok()) return std::nullopt;
  return value;
}

Status RocksEventStore::scan_state(StateTable table,
                                   const std::function<void(std::string_view, std::string_view)>& visit) {
  std::unique_ptr<rocksdb::Iterator> it(db_.db()->NewIterator(rocksdb::ReadOptions(), state_family(table)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) visit(it->key().ToStringView(), it->value().ToStringView());
  if (!it->status().ok()) return Error{"error: database read failed: " + it->status().ToString()};
  return {};
}

Status RocksEventStore::put_state(StateTable table, std::string_view key, std::string_view value) {
  rocksdb::Status s = db_.db()->Put(db_.write_options(), state_family(table), key, value);
  if (!s.ok()) return Error{"error: database write failed: " + s.ToString()};
  return {};
}

Status RocksEventStore::scan_state_prefix(StateTable table, std::string_view prefix,
                                          const std::function<void(std::string_view, std::string_view)>& visit) {
  std::unique_ptr<rocksdb::Iterator> it(db_.db()->NewIterator(rocksdb::ReadOptions(), state_family(table)));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    visit(it->key().ToStringView(), it->value().ToStringView());
  }
  if (!it->status().ok()) return Error{"error: database read failed: " + it->status().ToString()};
  return {};
}

Status RocksEventStore::put_states(std::span<const StateWrite> writes) {
  rocksdb::WriteBatch batch;
  for (const StateWrite& w : writes) {
    rocksdb::Status s = w.value.empty() ? batch.Delete(state_family(w.table), w.key)
                                        : batch.Put(state_family(w.table), w.key, w.value);
    if (!s.ok()) return Error{"error: database write failed: " + s.ToString()};
  }
  rocksdb::Status s = db_.db()->Write(db_.write_options(), &batch);
  if (!s.ok()) return Error{"error: database write failed: " + s.ToString()};
  return {};
}

Status RocksEventStore::update_state(StateTable table, std::string_view key, const StateChange& change) {
  std::lock_guard lock(update_state_mu_);
  std::optional<std::string> next = change(get_state(table, key));
  return next ? put_state(table, key, *next) : Status{};
}

Status RocksEventStore::erase_state(StateTable table, std::string_view from, std::string_view to) {
  // Not synced: an erase lost to a power cut only replays what it erased, which
  // its reader skips (the audit feed's pending copies, audit_feed.h). The next
  // synced batch makes it durable anyway (the WAL is one file). Synced, it was
  // a third of the audit writer's CPU, in an fdatasync of its own.
  rocksdb::WriteOptions unsynced = db_.write_options();
  unsynced.sync = false;
  rocksdb::Status s = db_.db()->DeleteRange(unsynced, state_family(table), from, to);
  if (!s.ok()) return Error{"error: database write failed: " + s.ToString()};
  return {};
}

namespace {

constexpr size_t kFirstChunk = 8;
constexpr size_t kLastChunk = 128;

// Candidate record keys in index order, read together (RocksEventStore::scan).
class RecordChunk {
 public:
  void add(std::string_view key, rocksdb::ColumnFamilyHandle* family) {
    keys_bytes_.append(key);
    families_.push_back(family);
  }
  size_t size() const { return families_.size(); }

  // Visits each live record that matches, in the order added; false once
  // `visit` says stop. Leaves the chunk empty.
  bool read(rocksdb::DB* db, const rocksdb::ReadOptions& options, const Filter& filter, uint64_t now,
            const std::function<bool(const RecordView&)>& visit) {
    const size_t n = size();
    keys_.clear();
    for (size_t i = 0; i < n; ++i) keys_.emplace_back(keys_bytes_.data() + kKeySuffixBytes * i, kKeySuffixBytes);
    values_.resize(n);
    statuses_.resize(n);
    db->MultiGet(options, n, families_.data(), keys_.data(), values_.data(), statuses_.data());
    bool more = true;
    RecordView rec;
    for (size_t i = 0; i < n && more; ++i) {
      if (!statuses_[i].ok()) continue;
      const bool live = decode_record(std::string_view(values_[i].data(), values_[i].size()), &rec) && !rec.hidden(now);
      if (live && filter.matches(rec.fields)) more = visit(rec);
    }
    for (rocksdb::PinnableSlice& v : values_) v.Reset();  // unpins the blocks
    keys_bytes_.clear();
    families_.clear();
    return more;
  }

 private:
  std::string keys_bytes_;  // kKeySuffixBytes each
  std::vector<rocksdb::ColumnFamilyHandle*> families_;
  std::vector<rocksdb::Slice> keys_;
  std::vector<rocksdb::PinnableSlice> values_;
  std::vector<rocksdb::Status> statuses_;
};

}  // namespace

namespace {

// The index family and key prefixes that list a filter without tags: author ×
// kind when the pairs are few, else author, else kind, else time.
Family untagged_index(const Filter& filter, std::vector<std::string>* prefixes) {
  if (filter.authors && filter.kinds && filter.authors->size() * filter.kinds->size() <= kMaxAuthorKindPairs) {
    for (const Pubkey& a : *filter.authors) {
      for (uint16_t k : *filter.kinds) prefixes->push_back(author_kind_prefix(a.data(), k));
    }
    return Family::kIndexAuthorKind;
  }
  if (filter.authors) {
    for (const Pubkey& a : *filter.authors) prefixes->push_back(author_prefix(a.data()));
    return Family::kIndexAuthor;
  }
  if (filter.kinds) {
    for (uint16_t k : *filter.kinds) prefixes->push_back(kind_prefix(k));
    return Family::kIndexKind;
  }
  prefixes->emplace_back();
  return Family::kIndexTime;
}

}  // namespace

Status RocksEventStore::scan(const Filter& filter, size_t budget,
                             const std::function<bool(const RecordView&)>& visit) {
  if (filter.matches_nothing()) return {};
  rocksdb::ReadOptions read;
  const uint64_t now = unix_now();  // one clock read per query: expired records are skipped like deleted ones

  if (filter.ids) {
    // Point lookups, then newest-first order like every other plan.
    std::vector<std::string> found;
    for (const Id& id : *filter.ids) {
      if (auto v = read_record(id)) found.push_back(std::move(*v));
    }
    std::vector<RecordView> recs(found.size());
    size_t n = 0;
    for (const std::string& v : found) n += decode_record(v, &recs[n]) && !recs[n].hidden(now);
    recs.resize(n);
    std::sort(recs.begin(), recs.end(), [](const RecordView& a, const RecordView& b) {
      if (a.fields.created_at != b.fields.created_at) return a.fields.created_at > b.fields.created_at;
      return std::memcmp(a.fields.id, b.fields.id, 32) < 0;
    });
    for (const RecordView& r : recs) {
      if (filter.matches(r.fields) && !visit(r)) break;
    }
    return {};
  }

  // Choose one index family and the prefixes to scan in it.
  Family fam = Family::kIndexTime;
  std::vector<std::string> prefixes;
  const TagFilter* best_tag = nullptr;
  for (const TagFilter& t : filter.tags) {
    if (!best_tag || t.values.size() < best_tag->values.size()) best_tag = &t;
  }
  if (best_tag && filter.kinds && best_tag->values.size() * filter.kinds->size() <= kMaxTagKindPairs) {
    // Every entry scanned is a match but for the rare hash collision: the
    // tag's entries of other kinds are never passed over.
    fam = Family::kIndexTagKind;
    for (const std::string& v : best_tag->values) {
      for (uint16_t k : *filter.kinds) prefixes.push_back(tag_kind_prefix(best_tag->name, v, k));
    }
  } else if (best_tag) {
    fam = Family::kIndexTag;
    for (const std::string& v : best_tag->values) prefixes.push_back(tag_prefix(best_tag->name, v));
  } else {
    fam = untagged_index(filter, &prefixes);
  }

  // One cursor per prefix, merged by key suffix (~created_at, id): newest first.
  struct Cursor {
    std::unique_ptr<rocksdb::Iterator> it;
    const std::string* prefix;
    rocksdb::Slice suffix() const {
      rocksdb::Slice k = it->key();
      return {k.data() + prefix->size(), k.size() - prefix->size()};
    }
  };
  const uint64_t stop_inv = filter.since ? ~*filter.since : ~uint64_t(0);
  std::vector<Cursor> cursors;
  cursors.reserve(prefixes.size());
  auto valid = [&](const Cursor& c) {
    if (!c.it->Valid()) return false;
    rocksdb::Slice k = c.it->key();
    const std::string& prefix = *c.prefix;
    if (k.size() != prefix.size() + kKeySuffixBytes || !k.starts_with(prefix)) return false;
    return get_u64(k.data() + prefix.size()) <= stop_inv;
  };
  for (const std::string& p : prefixes) {
    Cursor c{std::unique_ptr<rocksdb::Iterator>(db_.db()->NewIterator(read, db_.family(fam))), &p};
    std::string start = p;
    if (filter.until) put_u64(&start, ~*filter.until);
    c.it->Seek(start);
    if (valid(c)) cursors.push_back(std::move(c));
  }
  auto later = [](const Cursor* a, const Cursor* b) { return a->suffix().compare(b->suffix()) > 0; };
  std::priority_queue<Cursor*, std::vector<Cursor*>, decltype(later)> heap(later);
  for (Cursor& c : cursors) heap.push(&c);

  // Records are read in chunks with one MultiGet: RocksDB then shares the
  // index seeks and block fetches that one Get per result repeats.
  // Chunks start small, since a REQ with a small limit reads few records.
  RecordChunk chunk;
  size_t chunk_size = kFirstChunk;
  const std::optional<std::vector<uint16_t>>& kinds = filter.kinds;
  std::string last_id;  // a multi-value tag scan can meet the same event twice in a row
  while (!heap.empty() && budget-- > 0) {
    Cursor* c = heap.top();
    heap.pop();
    rocksdb::Slice suffix = c->suffix();  // the record's key
    std::string_view id(suffix.data() + 8, 32);
    const uint16_t kind = get_u16(c->it->value().data());
    // The entry carries the kind: a record of another kind is never read. A
    // tag whose events are all of other kinds would otherwise read each one.
    const bool kind_wanted = !kinds || std::binary_search(kinds->begin(), kinds->end(), kind);
    if (kind_wanted && id != last_id) {
      last_id.assign(id);
      chunk.add(suffix.ToStringView(), db_.events(storage_family(kind)));
    }
    c->it->Next();
    if (valid(*c)) heap.push(c);
    if (chunk.size() == chunk_size || ((heap.empty() || budget == 0) && chunk.size() > 0)) {
      if (!chunk.read(db_.db(), read, filter, now, visit)) return {};
      chunk_size = std::min(chunk_size * 2, kLastChunk);
    }
  }
  return {};
}

Result<bool> RocksEventStore::scan_index_keys(const Filter& filter,
                                              const std::function<void(uint64_t created_at, const Id& id)>& sink) {
  if (filter.ids || !filter.tags.empty()) return false;
  if (filter.authors && filter.kinds && filter.authors->size() * filter.kinds->size() > kMaxAuthorKindPairs) return false;
  if (filter.matches_nothing()) return true;
  std::vector<std::string> prefixes;
  const Family fam = untagged_index(filter, &prefixes);
  const uint64_t stop_inv = filter.since ? ~*filter.since : ~uint64_t(0);
  rocksdb::ReadOptions read;
  read.fill_cache = false;  // one pass over the index: keep the cache for what follows
  Id id;
  for (const std::string& p : prefixes) {
    std::unique_ptr<rocksdb::Iterator> it(db_.db()->NewIterator(read, db_.family(fam)));
    std::string start = p;
    if (filter.until) put_u64(&start, ~*filter.until);
    for (it->Seek(start); it->Valid(); it->Next()) {
      rocksdb::Slice k = it->key();
      if (k.size() != p.size() + kKeySuffixBytes || !k.starts_with(p)) break;
      const uint64_t inv = get_u64(k.data() + p.size());
      if (inv > stop_inv) break;
      std::memcpy(id.data(), k.data() + p.size() + 8, 32);
      sink(~inv, id);
    }
    if (!it->status().ok()) return Error{it->status().ToString()};
  }
  return true;
}

Status RocksEventStore::query(const Filter& filter, const QueryOptions& options, const EventSink& sink) {
  size_t limit = std::min<size_t>(options.limit, filter.limit.value_or(options.limit));
  if (limit == 0) return {};
  size_t sent = 0;
  return scan(filter, kQueryScanBudget, [&](const RecordView& rec) {
    if (options.accept && !options.accept(rec.fields)) return true;
    sink(rec.raw, rec.fields);
    return ++sent < limit;
  });
}

Status RocksEventStore::scan_kind(uint16_t kind, const EventSink& sink) {
  Filter f;
  f.kinds = std::vector<uint16_t>{kind};
  return scan(f, std::numeric_limits<size_t>::max(), [&](const RecordView& rec) {
    sink(rec.raw, rec.fields);
    return true;
  });
}

Status RocksEventStore::scan_all(const Filter& filter, const QueryOptions& options, size_t max_events,
                                 const std::function<void(const EventFields&)>& sink) {
  const uint64_t limit = filter.limit.value_or(UINT64_MAX);
  uint64_t n = 0;
  bool too_many = false;
  auto take = [&](const RecordView& rec) {
    if (options.accept && !options.accept(rec.fields)) return true;
    if (n == max_events) return !(too_many = true);
    sink(rec.fields);
    return ++n < limit;
  };
  // A filter of time bounds alone matches most of the store: reading the
  // records in storage order is several times faster than looking each up
  // from the time index (a random read each, the records being keyed by id).
  const bool whole_store = !filter.limit && !filter.ids && !filter.authors && !filter.kinds && filter.tags.empty();
  const uint64_t now = unix_now();
  Status s = whole_store ? scan_records(StorageFamily::kRegular, {}, [&](StorageFamily, const RecordView& rec) {
                             return rec.hidden(now) || !filter.matches(rec.fields) || take(rec);
                           })
                         : scan(filter, std::numeric_limits<size_t>::max(), take);
  if (!s) return s;
  if (too_many) return Error{"blocked: more than " + std::to_string(max_events) + " events match, narrow the filter"};
  return {};
}

Result<uint64_t> RocksEventStore::count(std::span<const Filter> filters, const QueryOptions& options) {
  std::unordered_set<Id, KeyBytesHash> seen;
  uint64_t n = 0;
  for (const Filter& f : filters) {
    Status s = scan(f, kCountScanBudget, [&](const RecordView& rec) {
      if (options.accept && !options.accept(rec.fields)) return true;
      if (filters.size() == 1 || seen.insert(id_of(rec.fields)).second) ++n;
      return true;
    });
    if (!s) return Error{s.error()};
  }
  return n;
}

Result<std::vector<ExpiredEvent>> RocksEventStore::expired(uint64_t now, size_t max) {
  std::vector<ExpiredEvent> out;
  rocksdb::ReadOptions read;
  std::unique_ptr<rocksdb::Iterator> it(db_.db()->NewIterator(read, db_.family(Family::kIndexExpiry)));
  std::string value;
  for (it->SeekToFirst(); it->Valid() && out.size() < max; it->Next()) {
    rocksdb::Slice k = it->key();
    if (k.size() != kExpiryKeyBytes || it->value().size() != 2) continue;
    const uint64_t expires_at = get_u64(k.data());
    if (!has_expired(expires_at, now)) break;
    ExpiredEvent e;
    e.expires_at = expires_at;
    e.created_at = ~get_u64(k.data() + 8);
    std::memcpy(e.id.data(), k.data() + 16, 32);
    e.kind = get_u16(it->value().data());
    // The record names the author and channel for the audit entry; an index
    // entry whose record is gone is still returned, so that it is erased.
    RecordView rec;
    const rocksdb::Slice key(k.data() + 8, kKeySuffixBytes);
    if (db_.db()->Get(read, db_.events(storage_family(e.kind)), key, &value).ok() && decode_record(value, &rec)) {
      std::memcpy(e.pubkey.data(), rec.fields.pubkey, 32);
      e.channel.assign(rec.fields.channel);
    }
    out.push_back(std::move(e));
  }
  if (!it->status().ok()) return Error{"error: database read failed: " + it->status().ToString()};
  return out;
}

Status RocksEventStore::erase_expired(std::span<const ExpiredEvent> events, std::span<const StateWrite> state) {
  Batch batch(db_);
  rocksdb::WriteBatch* wb = batch.batch();
  for (const ExpiredEvent& e : events) {
    const std::string key = record_key(e.created_at, e.id.data());
    rocksdb::ColumnFamilyHandle* records = db_.events(storage_family(e.kind));
    std::string value;
    RecordView rec;
    // A deleted record's index entries went with its deletion.
    if (batch.get(Family(storage_family(e.kind)), key, &value) && decode_record(value, &rec) && !rec.deleted()) {
      batch.index(rec.fields, false);
    }
    (void)wb->Delete(records, key);
    (void)wb->Delete(db_.family(Family::kEventIds), as_slice(e.id.data(), 32));
    (void)wb->Delete(db_.family(Family::kIndexExpiry), expiry_key(e.expires_at, e.created_at, e.id.data()));
  }
  add_state(wb, state);
  rocksdb::Status s = db_.db()->Write(db_.write_options(), batch.finish());
  if (!s.ok()) return Error{"error: database write failed: " + s.ToString()};
  return {};
}

}  // namespace buzz::engine
