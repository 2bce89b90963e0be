// The kind registry (docs/reference/kinds.md): every kind the relay accepts, emits or
// refuses by name, with its storage class, channel rule and token scope.
//
// The pipeline asks find_kind() once per event; a kind that is not here is
// refused with "restricted: unknown event kind". Relay-signed kinds are listed
// so the relay can emit them, and clients can still never submit them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "engine/kind_numbers.h"

namespace buzz::engine {

enum class KindClass : uint8_t {
  kRegular,      // stored once per id
  kReplaceable,  // newest per (kind, pubkey, channel): 0, 3, 41, 10000–19999
  kAddressable,  // newest per (kind, pubkey, d): 30000–39999
  kEphemeral,    // 20000–29999, never stored
};

// The column family an event is stored in: one per kind range (design.md).
enum class StorageFamily : uint8_t { kRegular = 0, kReplaceable = 1, kAddressable = 2, kBuzz = 3 };
inline constexpr int kStorageFamilies = 4;

// Who may submit a kind over EVENT.
enum class Sender : uint8_t {
  kClient,     // any authenticated user, subject to the kind's own rules
  kRelay,      // emitted by the relay only; clients get "restricted: unknown event kind"
  kRelayOnly,  // emitted by the relay only; clients get "restricted: relay-only kind"
};

// Where the event's channel comes from (docs/reference/kinds.md "Ch" column).
enum class ChannelRule : uint8_t {
  kGlobal,    // any h tag is ignored; stored with no channel
  kRequired,  // needs an h tag naming an existing channel
  kTarget,    // the channel of the event it points at (5, 7)
  kOptional,  // special handling (9007's optional client-chosen id)
};

// Extra handling the pipeline gives a kind beyond store-and-fan-out.
enum class KindRole : uint8_t {
  kPlain,
  kCommand,      // run by the command executor; OK carries a result; not fanned out
  kRelayAdmin,   // NIP-43 9030–9032: executed, not stored
  kRelayLeave,   // NIP-43 28936: executed, not stored
  kNip29Admin,   // 9000–9022 group administration
};

struct KindInfo {
  uint16_t kind;
  std::string_view name;
  Sender sender;
  ChannelRule channel;
  KindRole role;
  std::string_view scope;  // token scope needed to submit it (empty for relay kinds)
};

// nullptr for kinds the relay neither accepts nor emits.
const KindInfo* find_kind(uint16_t kind);
std::span<const KindInfo> all_kinds();

constexpr KindClass kind_class(uint16_t kind) {
  if (kind == 0 || kind == 3 || kind == 41 || (kind >= 10000 && kind < 20000)) return KindClass::kReplaceable;
  if (kind >= 20000 && kind < 30000) return KindClass::kEphemeral;
  if (kind >= 30000 && kind < 40000) return KindClass::kAddressable;
  return KindClass::kRegular;
}

constexpr StorageFamily storage_family(uint16_t kind) {
  switch (kind_class(kind)) {
    case KindClass::kReplaceable: return StorageFamily::kReplaceable;
    case KindClass::kAddressable: return StorageFamily::kAddressable;
    default: return kind >= 40000 && kind < 50000 ? StorageFamily::kBuzz : StorageFamily::kRegular;
  }
}

std::string_view kind_class_name(KindClass c);

// Kinds readable only by the pubkeys in their p tags (docs/reference/protocol.md §9.3; 41001 per docs/reference/kinds.md §4.6).
constexpr bool is_p_gated(uint16_t kind) {
  return kind == kind::kGiftWrap || kind == kind::kDmCreated || kind == kind::kMemberAddedNotification ||
         kind == kind::kMemberRemovedNotification || kind == kind::kDmVisibility;
}

}  // namespace buzz::engine
