// The pubkey allow-list table; see pubkey_allowlist.h.
// Value: u8 has_added_by | added_by[32] | added_at u64 | note (the rest).
#include "engine/pubkey_allowlist.h"

#include <algorithm>
#include <cstring>

#include "engine/event_record.h"

namespace buzz::engine {
namespace {

constexpr size_t kAllowedFixedBytes = 1 + 32 + 8;

std::string encode(const AllowedPubkey& a) {
  std::string v(1, a.added_by ? 1 : 0);
  v.append(32, '\0');
  if (a.added_by) std::memcpy(v.data() + 1, a.added_by->data(), 32);
  put_u64(&v, a.added_at);
  return v + a.note;
}

bool decode(rocksdb::Slice key, rocksdb::Slice v, AllowedPubkey* a) {
  if (key.size() != 32 || v.size() < kAllowedFixedBytes || uint8_t(v[0]) > 1) return false;
  std::memcpy(a->pubkey.data(), key.data(), 32);
  if (v[0]) {
    a->added_by.emplace();
    std::memcpy(a->added_by->data(), v.data() + 1, 32);
  }
  a->added_at = get_u64(v.data() + 33);
  a->note.assign(v.data() + kAllowedFixedBytes, v.size() - kAllowedFixedBytes);
  return true;
}

}  // namespace

Result<std::vector<AllowedPubkey>> PubkeyAllowlist::list() const {
  std::vector<AllowedPubkey> out;
  std::unique_ptr<rocksdb::Iterator> it(db_.db()->NewIterator(rocksdb::ReadOptions(), db_.family(Family::kPubkeyAllowlist)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    AllowedPubkey a;
    if (!decode(it->key(), it->value(), &a)) {
      return Error{"error: unreadable allow-list entry " + to_hex(reinterpret_cast<const uint8_t*>(it->key().data()),
                                                                  std::min<size_t>(it->key().size(), 32))};
    }
    out.push_back(std::move(a));
  }
  if (!it->status().ok()) return Error{"error: reading the pubkey allow-list: " + it->status().ToString()};
  std::stable_sort(out.begin(), out.end(), [](const AllowedPubkey& a, const AllowedPubkey& b) { return a.added_at < b.added_at; });
  return out;
}

Status PubkeyAllowlist::put(const AllowedPubkey& entry) {
  auto s = db_.db()->Put(db_.write_options(), db_.family(Family::kPubkeyAllowlist), pubkey_bytes(entry.pubkey), encode(entry));
  if (!s.ok()) return Error{"error: writing the pubkey allow-list: " + s.ToString()};
  return {};
}

Result<bool> PubkeyAllowlist::remove(const Pubkey& pk) {
  std::string v;
  auto found = db_.db()->Get(rocksdb::ReadOptions(), db_.family(Family::kPubkeyAllowlist), pubkey_bytes(pk), &v);
  if (found.IsNotFound()) return false;
  if (!found.ok()) return Error{"error: reading the pubkey allow-list: " + found.ToString()};
  auto s = db_.db()->Delete(db_.write_options(), db_.family(Family::kPubkeyAllowlist), pubkey_bytes(pk));
  if (!s.ok()) return Error{"error: writing the pubkey allow-list: " + s.ToString()};
  return true;
}

}  // namespace buzz::engine
