// Delivery receipts: "delivered to N of M members, read by K" for one channel
// message, shown only to its author and the channel's admins and owners
// (docs/reference/rest-api.md "Receipts", docs/access.md).
//
// M: the channel's active members but the author. N: those of them whose
// sessions this node sent the message to (engine/delivery_log.h). K: those of
// them whose read marker (kind 30078, `d` = buzz:read:<channel>, docs/reference/kinds.md)
// reads until the message's created_at or later.
//
// Any thread: the store, the team state and the delivery log take their own locks.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/delivery_log.h"
#include "engine/event.h"
#include "engine/event_store.h"
#include "engine/team_state.h"
#include "server/access/grant.h"

namespace buzz::server {

// A read marker's d tag for a channel, and where it reads until (its
// `read_until` tag, unix seconds); nullopt for any other 30078.
std::string read_marker_d(std::string_view channel);
std::optional<uint64_t> read_until(const engine::Event& marker);

struct Receipt {
  enum class Access : uint8_t {
    kShown,
    kHidden,    // no such message, or one the caller may not read: 404, like a missing one
    kNotYours,  // the caller reads it but is neither its author nor an admin or owner: 403
  };
  Access access = Access::kHidden;
  engine::Id id{};
  std::string channel;
  engine::Pubkey author{};
  uint64_t created_at = 0;
  uint32_t members = 0, delivered = 0, read = 0;
};

// Reads receipts. A channel's read positions (all its markers) are read once a
// reader: a REQ asks up to 100 receipts, mostly of one channel.
class ReceiptReader {
 public:
  ReceiptReader(engine::EventStore& store, const engine::TeamState& team, engine::DeliveryLog& log)
      : store_(store), team_(team), log_(log) {}
  // Each message's receipt, in the order asked: the messages in one store
  // query, their deliveries in one read of the log (DeliveryLog::delivered_to_each).
  std::vector<Receipt> of(std::span<const engine::Id> ids, const engine::Pubkey& caller, const Grant& grant);
  Receipt of(const engine::Id& id, const engine::Pubkey& caller, const Grant& grant) {
    return std::move(of({&id, 1}, caller, grant).front());
  }

 private:
  using Positions = std::unordered_map<engine::Pubkey, uint64_t, engine::KeyBytesHash>;
  const Positions& positions(const std::string& channel);

  engine::EventStore& store_;
  const engine::TeamState& team_;
  engine::DeliveryLog& log_;
  std::unordered_map<std::string, Positions> positions_;  // channel -> member -> read until
};

// {"event_id","channel_id","members","delivered","read"}: the REST body and the kind's content.
std::string receipt_json(const Receipt& r);

}  // namespace buzz::server
