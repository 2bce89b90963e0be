// The one target of a NIP-09 deletion (kind 5; docs/reference/protocol.md §11), read the same
// way by every EventStore: exactly one e or a tag; an a tag's "kind:pubkey:d"
// must name the deleter's own pubkey. Whether the target exists, and an e
// target's author, are the store's to check.
#pragma once

#include <string>

#include "engine/event.h"
#include "engine/result.h"

namespace buzz::engine {

struct DeletionTarget {
  bool by_id = false;  // an e tag: `id`; else an a tag: kind, pubkey, d
  Id id{};
  uint16_t kind = 0;
  Pubkey pubkey{};
  std::string d;
};

// The target, or the wire reason ("invalid: …") the deletion is refused for.
Result<DeletionTarget> parse_deletion_target(const Event& e);

}  // namespace buzz::engine
