// Stored event values and index keys; see event_record.h.
#include "engine/event_record.h"

#include <xxhash.h>

#include <cstring>

namespace buzz::engine {
namespace {

constexpr size_t kFixedHeader = 1 + 1 + 32 + 32 + 8 + 2;

}  // namespace

void put_u16(std::string* out, uint16_t v) {
  char b[2] = {char(v >> 8), char(v)};
  out->append(b, 2);
}

void put_u32(std::string* out, uint32_t v) {
  char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  out->append(b, 4);
}

void put_u64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = char(v >> (56 - 8 * i));
  out->append(b, 8);
}

uint16_t get_u16(const char* p) {
  auto u = reinterpret_cast<const uint8_t*>(p);
  return uint16_t(u[0] << 8 | u[1]);
}

uint32_t get_u32(const char* p) {
  auto u = reinterpret_cast<const uint8_t*>(p);
  return uint32_t(u[0]) << 24 | uint32_t(u[1]) << 16 | uint32_t(u[2]) << 8 | u[3];
}

uint64_t get_u64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | uint8_t(p[i]);
  return v;
}

void encode_record(const Event& e, std::string_view channel, uint8_t flags, std::string* out) {
  out->reserve(out->size() + kFixedHeader + 64 + e.raw.size());
  const std::optional<uint64_t> expires_at = expiration_of(e);
  flags = uint8_t(expires_at ? flags | kRecordExpires : flags & ~kRecordExpires);
  out->push_back(char(kRecordVersion));
  out->push_back(char(flags));
  out->append(reinterpret_cast<const char*>(e.id.data()), 32);
  out->append(reinterpret_cast<const char*>(e.pubkey.data()), 32);
  put_u64(out, e.created_at);
  put_u16(out, e.kind);
  if (expires_at) put_u64(out, *expires_at);
  put_u16(out, uint16_t(channel.size()));
  out->append(channel);
  uint32_t ntags = 0;
  for (const Tag& t : e.tags) ntags += t.size() >= 2 && t[0].size() == 1;
  put_u32(out, ntags);
  for (const Tag& t : e.tags) {
    if (t.size() < 2 || t[0].size() != 1) continue;
    out->push_back(t[0][0]);
    put_u32(out, uint32_t(t[1].size()));
    out->append(t[1]);
  }
  out->append(e.raw);
}

bool decode_record(std::string_view v, RecordView* out) {
  if (v.size() < kFixedHeader + 6 || uint8_t(v[0]) != kRecordVersion) return false;
  const char* p = v.data();
  const char* end = v.data() + v.size();
  out->flags = uint8_t(p[1]);
  EventFields& f = out->fields;
  f.id = reinterpret_cast<const uint8_t*>(p + 2);
  f.pubkey = reinterpret_cast<const uint8_t*>(p + 34);
  f.created_at = get_u64(p + 66);
  f.kind = get_u16(p + 74);
  p += kFixedHeader;
  out->expires_at = kNeverExpires;
  if (out->flags & kRecordExpires) {
    if (end - p < 8 + 6) return false;
    out->expires_at = get_u64(p);
    p += 8;
  }
  size_t chan_len = get_u16(p);
  p += 2;
  if (size_t(end - p) < chan_len + 4) return false;
  f.channel = std::string_view(p, chan_len);
  p += chan_len;
  uint32_t ntags = get_u32(p);
  p += 4;
  f.tags.clear();
  for (uint32_t i = 0; i < ntags; ++i) {
    if (end - p < 5) return false;
    char name = p[0];
    uint32_t len = get_u32(p + 1);
    p += 5;
    if (size_t(end - p) < len) return false;
    f.tags.push_back({name, std::string_view(p, len)});
    p += len;
  }
  out->raw = std::string_view(p, size_t(end - p));
  return true;
}

void set_record_flags(std::string* value, uint8_t flags) {
  const uint8_t layout = uint8_t((*value)[1]) & kRecordExpires;
  (*value)[1] = char((flags & ~kRecordExpires) | layout);
}

void put_key_suffix(std::string* out, uint64_t created_at, const uint8_t* id) {
  put_u64(out, ~created_at);
  out->append(reinterpret_cast<const char*>(id), 32);
}

std::string record_key(uint64_t created_at, const uint8_t* id) {
  std::string key;
  key.reserve(kKeySuffixBytes);
  put_key_suffix(&key, created_at, id);
  return key;
}

std::string event_id_entry(StorageFamily family, uint64_t created_at) {
  std::string entry(1, char(family));
  put_u64(&entry, ~created_at);
  return entry;
}

bool parse_event_id_entry(std::string_view entry, const uint8_t* id, StorageFamily* family, std::string* key) {
  if (entry.size() != kEventIdEntryBytes || uint8_t(entry[0]) >= kStorageFamilies) return false;
  *family = StorageFamily(uint8_t(entry[0]));
  key->assign(entry.substr(1));
  key->append(reinterpret_cast<const char*>(id), 32);
  return true;
}

std::string expiry_key(uint64_t expires_at, uint64_t created_at, const uint8_t* id) {
  std::string key;
  key.reserve(kExpiryKeyBytes);
  put_u64(&key, expires_at);
  put_key_suffix(&key, created_at, id);
  return key;
}

std::string kind_prefix(uint16_t kind) {
  std::string k;
  put_u16(&k, kind);
  return k;
}

std::string author_prefix(const uint8_t* pubkey) { return std::string(reinterpret_cast<const char*>(pubkey), 32); }

std::string author_kind_prefix(const uint8_t* pubkey, uint16_t kind) {
  std::string k = author_prefix(pubkey);
  put_u16(&k, kind);
  return k;
}

// Tag values are unbounded in length, so the key holds a 64-bit hash of the
// value; Filter::matches on the decoded record removes the rare collision.
std::string tag_prefix(char name, std::string_view value) {
  std::string k(1, name);
  put_u64(&k, XXH3_64bits(value.data(), value.size()));
  return k;
}

std::string tag_kind_prefix(char name, std::string_view value, uint16_t kind) {
  std::string k = tag_prefix(name, value);
  put_u16(&k, kind);
  return k;
}

}  // namespace buzz::engine
