// The Nostr event (NIP-01) as the relay holds it after parsing.
//
// `raw` keeps the event object's JSON exactly as the client sent it: the store
// writes it as is and every reply copies it as is, so no event is ever
// re-serialized after ingest. The other fields are decoded views of the same data.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/hex.h"

namespace buzz::engine {

using Tag = std::vector<std::string>;

struct Event {
  Id id{};
  Pubkey pubkey{};
  Sig sig{};
  uint64_t created_at = 0;
  uint16_t kind = 0;
  std::vector<Tag> tags;
  std::string content;
  std::string raw;  // the event object's JSON as received (or as signed by the relay)

  // The first tag named `name` that has a value, or nullptr.
  const Tag* first_tag(std::string_view name) const;
  // Value of the first tag named `name` that has a value, or empty.
  std::string_view first_tag_value(std::string_view name) const;
  // The first tag named `name` whose value is a 64-hex pubkey (either case): a
  // p-tagged target.
  std::optional<Pubkey> first_pubkey_tag(std::string_view name = "p") const;
  std::string id_hex() const { return to_hex(id); }
  std::string pubkey_hex() const { return to_hex(pubkey); }
};

// A single-letter tag with its first value: all that NIP-01 tag filters look at.
struct TagRef {
  char name;
  std::string_view value;
};

// What a filter needs to decide a match. Built once per event on the live path
// (shared by every subscription it is offered to) and decoded straight from the
// stored record on the history path, so both paths run the same Filter::matches.
struct EventFields {
  const uint8_t* id = nullptr;      // 32 bytes
  const uint8_t* pubkey = nullptr;  // 32 bytes
  uint64_t created_at = 0;
  uint16_t kind = 0;
  std::string_view channel;         // canonical channel id, empty for global events
  std::vector<TagRef> tags;         // single-letter tags only, in event order

  void assign(const Event& e, std::string_view channel_id = {});
};

// The id a stored row points at, as a value that outlives the row.
inline Id id_of(const EventFields& f) {
  Id id;
  std::memcpy(id.data(), f.id, id.size());
  return id;
}

}  // namespace buzz::engine
