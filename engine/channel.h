// Channels and channel memberships (docs/reference/channels.md §2–§3): the records the
// team model keeps, their names on the wire, and their stored encoding.
//
// A channel is named by its canonical lowercase UUID text (36 chars) everywhere:
// in h tags, in the store and in memory. Records are encoded as a version byte
// followed by fixed-order fields (strings length-prefixed, integers big-endian).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/hex.h"

namespace buzz::engine {

enum class ChannelType : uint8_t { kStream, kForum, kDm, kWorkflow };
enum class Visibility : uint8_t { kOpen, kPrivate };
// Values are the ranks of docs/reference/channels.md §3.2 (bot sits outside the ladder at 0).
enum class ChannelRole : uint8_t { kBot = 0, kGuest = 1, kMember = 2, kAdmin = 3, kOwner = 4 };

std::string_view channel_type_name(ChannelType t);
std::optional<ChannelType> parse_channel_type(std::string_view s);
std::string_view visibility_name(Visibility v);
std::optional<Visibility> parse_visibility(std::string_view s);
std::string_view channel_role_name(ChannelRole r);
std::optional<ChannelRole> parse_channel_role(std::string_view s);
inline bool is_elevated(ChannelRole r) { return r == ChannelRole::kOwner || r == ChannelRole::kAdmin; }

struct Channel {
  std::string id;  // canonical UUID text
  std::string name;
  std::string description;
  std::string topic, purpose, canvas;
  Pubkey topic_set_by{}, purpose_set_by{};
  uint64_t topic_set_at = 0, purpose_set_at = 0;
  ChannelType type = ChannelType::kStream;
  Visibility visibility = Visibility::kOpen;
  Pubkey created_by{};
  uint64_t created_at = 0;
  uint64_t archived_at = 0;  // 0 = not archived
  uint64_t deleted_at = 0;   // 0 = live
  uint32_t ttl_seconds = 0;  // 0 = no TTL
  uint64_t ttl_deadline = 0;
  std::string participant_hash;  // DMs only: hex SHA-256 of the sorted participant set

  bool archived() const { return archived_at != 0; }
  // The channel record's last change (REST updated_at): creation, topic, purpose or archiving.
  uint64_t updated_at() const { return std::max({created_at, topic_set_at, purpose_set_at, archived_at}); }
  bool deleted() const { return deleted_at != 0; }
  bool is_private() const { return visibility == Visibility::kPrivate; }
};

struct ChannelMember {
  Pubkey pubkey{};
  ChannelRole role = ChannelRole::kMember;
  uint64_t joined_at = 0;
  uint64_t join_seq = 0;  // orders the 39001 / 39002 lists ("join order")
  Pubkey invited_by{};
  uint64_t removed_at = 0;  // 0 = active (removal is a soft delete)
  Pubkey removed_by{};
  uint64_t hidden_at = 0;  // DMs: hidden by this member

  bool active() const { return removed_at == 0; }
};

std::string encode_channel(const Channel& c);
bool decode_channel(std::string_view value, Channel* out);
std::string encode_member(const ChannelMember& m);
bool decode_member(std::string_view value, ChannelMember* out);

// Store keys: channels by id; members by channel id | pubkey (32 raw bytes).
std::string member_key(std::string_view channel, const Pubkey& pk);

// The 36-char lowercase hyphenated form (docs/reference/channels.md §1), not the nil UUID.
bool is_canonical_uuid(std::string_view s);
// Whether s parses as a UUID in any form upstream accepts (hyphenated or 32
// hex, any case, {…}, urn:uuid:…): such an h tag names a channel, but only the
// canonical form is accepted.
bool parses_as_uuid(std::string_view s);
std::string random_uuid();
// "2026-05-01T10:00:00+00:00" for a unix time in seconds (39000 ttl_deadline).
std::string rfc3339(uint64_t unix_seconds);

}  // namespace buzz::engine
