// The stored form of an event and the keys that index it (docs/storage.md).
//
// Value: a fixed header with the fields filters need, the single-letter tags,
// then the raw event JSON, so a history reply is a copy of the value's tail and
// a filter runs on the header without parsing JSON:
//   u8 version | u8 flags | id[32] | pubkey[32] | created_at u64 | kind u16 |
//   [expires_at u64, when flags has kRecordExpires] |
//   u16 channel_len | channel | u32 ntags | { u8 name | u32 len | value }* | raw JSON
// All integers are big-endian. Index keys end in (~created_at, id) so a forward
// scan yields newest first with ties broken by the lowest id (docs/reference/protocol.md §9.4).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/event.h"
#include "engine/expiration.h"
#include "engine/kinds.h"

namespace buzz::engine {

inline constexpr uint8_t kRecordVersion = 1;
inline constexpr uint8_t kRecordDeleted = 0x01;  // soft-deleted or superseded
// The event has a NIP-40 expiration, stored after the fixed header (data format 3).
inline constexpr uint8_t kRecordExpires = 0x02;

// Appends the stored value for e (kRecordExpires is set here, from e's tags).
void encode_record(const Event& e, std::string_view channel, uint8_t flags, std::string* out);

// A decoded view into a stored value (valid while the value is).
struct RecordView {
  uint8_t flags = 0;
  EventFields fields;
  std::string_view raw;
  uint64_t expires_at = kNeverExpires;
  bool deleted() const { return flags & kRecordDeleted; }
  // Whether a reader must no longer see it: deleted, or expired (NIP-40).
  bool hidden(uint64_t now) const { return deleted() || has_expired(expires_at, now); }
};

// False if the value is not a record this version understands.
bool decode_record(std::string_view value, RecordView* out);

// Sets the flags byte of an encoded value in place; kRecordExpires, which
// says how the header is laid out, is kept as it is.
void set_record_flags(std::string* value, uint8_t flags);

// Big-endian helpers used by every key layout.
void put_u16(std::string* out, uint16_t v);
void put_u32(std::string* out, uint32_t v);
void put_u64(std::string* out, uint64_t v);
uint16_t get_u16(const char* p);
uint32_t get_u32(const char* p);
uint64_t get_u64(const char* p);

// The shared key suffix: ~created_at (8) | id (32).
inline constexpr size_t kKeySuffixBytes = 40;
void put_key_suffix(std::string* out, uint64_t created_at, const uint8_t* id);

// A record's key is the suffix alone, so the records of the newest events sit
// together (docs/storage.md), and an index entry's suffix is its record's key.
std::string record_key(uint64_t created_at, const uint8_t* id);
// The event_ids entry of an id: its storage family (1) | ~created_at (8).
inline constexpr size_t kEventIdEntryBytes = 9;
std::string event_id_entry(StorageFamily family, uint64_t created_at);
// The family and record key an event_ids entry points to; false if malformed.
bool parse_event_id_entry(std::string_view entry, const uint8_t* id, StorageFamily* family, std::string* key);

// Index key prefixes (everything before the suffix).
std::string kind_prefix(uint16_t kind);
std::string author_prefix(const uint8_t* pubkey);
std::string author_kind_prefix(const uint8_t* pubkey, uint16_t kind);
std::string tag_prefix(char name, std::string_view value);
std::string tag_kind_prefix(char name, std::string_view value, uint16_t kind);

// The index.expiry key of a record: expires_at (8, not inverted: the earliest
// first) | the record's key (~created_at | id).
inline constexpr size_t kExpiryKeyBytes = 8 + kKeySuffixBytes;
std::string expiry_key(uint64_t expires_at, uint64_t created_at, const uint8_t* id);

}  // namespace buzz::engine
