#include "tools/proxy/kind_map.h"

#include "engine/kind_numbers.h"

namespace buzz::proxy {

uint16_t to_buzz(uint16_t kind) {
  switch (kind) {
    case kind::kTextNote:
    case kind::kChannelCreation:
    case kind::kChannelMessage: return kind::kStreamMessage;
    case kind::kEncryptedDirectMessage: return kind::kDmCreated;
    case kind::kChannelMetadata:
    case kind::kMuteUser: return kind::kMessageEdit;
    case kind::kHideMessage: return kind::kDeleteEvent;
    default: return kind;
  }
}

uint16_t to_standard(uint16_t kind) {
  switch (kind) {
    case kind::kStreamMessage:
    case kind::kStreamMessageV2: return kind::kChannelMessage;
    case kind::kMessageEdit: return kind::kChannelMetadata;
    case kind::kDmCreated: return kind::kEncryptedDirectMessage;
    case kind::kDeleteEvent: return kind::kHideMessage;
    default: return kind;
  }
}

bool accepted_inbound(uint16_t kind) {
  return kind == kind::kTextNote || kind == kind::kReaction || kind == kind::kChannelMetadata ||
         kind == kind::kChannelMessage;
}
bool is_outbound_message(uint16_t kind) {
  return kind == kind::kStreamMessage || kind == kind::kStreamMessageV2 || kind == kind::kMessageEdit;
}
bool is_outbound_target(uint16_t kind) { return kind == kind::kReaction || kind == kind::kDeletion; }

}  // namespace buzz::proxy
