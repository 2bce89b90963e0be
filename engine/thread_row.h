// ThreadRow: where a reply hangs in its thread and what has followed a
// message (docs/reference/channels.md §7), kept in the `threads` table under the event id.
// A top-level message gets a row (depth 0) once it has replies, for its
// counters; the REST thread summary reads them without scanning replies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/hex.h"

namespace buzz::engine {

inline constexpr size_t kMaxThreadParticipants = 10;

struct ThreadRow {
  Id parent{}, root{};
  uint32_t depth = 0;  // 0 = top-level (a row kept only for its counters)
  uint64_t reply_count = 0, descendant_count = 0, last_reply_at = 0;
  bool broadcast = false;
  std::vector<Pubkey> participants;  // distinct reply authors, most recent first, at most 10

  // Moves `author` to the front of participants.
  void add_participant(const Pubkey& author);
  std::string encode() const;
  // Also reads rows written before participants were kept.
  static std::optional<ThreadRow> decode(std::string_view value);
};

// The table key of an event's row.
inline std::string_view thread_key(const Id& id) { return {reinterpret_cast<const char*>(id.data()), id.size()}; }

}  // namespace buzz::engine
