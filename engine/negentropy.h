// Negentropy protocol v1: range-based set reconciliation of (created_at, id)
// items, the protocol NIP-77 carries in NEG-OPEN / NEG-MSG.
//
// A message is the version byte 0x61 then ranges; each range is an upper bound
// (timestamp varint, delta-coded within the message, 0 = infinity; then an id
// prefix), a mode and its payload: Skip, a Fingerprint of the range, or the
// range's IdList. A fingerprint is the first 16 bytes of
// sha256(sum of the ids as little-endian 256-bit integers mod 2^256 || varint(count)).
//
// Both sides hold an ItemSet. The initiator (client) sends initiate(), then
// feeds each reply to reconcile(), which says which ids only it has and which
// only the other side has, until it returns no next message. The other side
// (the relay) answers each message with reconcile() until the client stops.
// How ranges are split (SplitPolicy) is each sender's choice; any peer that
// speaks v1 understands the result.
//
// Hostile input: every length and count is checked against the bytes left, a
// varint longer than 64 bits is refused, and the output is cut at the frame
// limit (the rest of the range goes back as one fingerprint, as the protocol
// allows), so one message costs at most one pass over the set.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "engine/hex.h"
#include "engine/result.h"

namespace buzz::engine::negentropy {

inline constexpr uint8_t kProtocolVersion = 0x61;
inline constexpr uint64_t kInfinity = UINT64_MAX;  // the timestamp of the last bound
inline constexpr size_t kFingerprintBytes = 16;
// The smallest frame limit the protocol allows (the reference refuses less).
inline constexpr size_t kMinFrameLimit = 4096;

struct Item {
  uint64_t created_at = 0;
  Id id{};
  auto operator<=>(const Item&) const = default;
};

// A range's upper end: an item whose id is cut to `prefix_len` bytes (the rest zero).
struct Bound {
  Item item;
  size_t prefix_len = 0;
};

using Fingerprint = std::array<uint8_t, kFingerprintBytes>;

// The sum of ids mod 2^256, turned into a fingerprint with the count.
class Accumulator {
 public:
  void add(const Id& id);
  void add(const Accumulator& other);
  void subtract(const Accumulator& other);
  Fingerprint fingerprint(uint64_t count) const;

 private:
  std::array<uint64_t, 4> sum_{};  // little-endian limbs
};

// Varints (big-endian base 128, high bit = more follows).
void put_varint(std::string& out, uint64_t n);
// Reads one varint at `pos`, advancing it; false if it is cut short or overflows 64 bits.
bool get_varint(std::string_view in, size_t& pos, uint64_t& n);

// The items of one side, sorted by (created_at, id), no duplicates. The sum
// of the ids before every 64th item is kept (half a byte an item), so the
// fingerprint of any range costs at most 126 additions and one sha256, not a
// pass over the range: a round's work follows its message, not the set.
class ItemSet {
 public:
  ItemSet() = default;
  // Sorts and drops duplicates.
  explicit ItemSet(std::vector<Item> items);
  size_t size() const { return items_.size(); }
  const Item& operator[](size_t i) const { return items_[i]; }
  const std::vector<Item>& items() const { return items_; }
  Fingerprint fingerprint(size_t begin, size_t end) const;
  // The first index in [begin, end) whose item is not below `bound`.
  size_t lower_bound(size_t begin, size_t end, const Item& bound) const;

 private:
  Accumulator sum_before(size_t end) const;  // the ids of [0, end)

  std::vector<Item> items_;
  std::vector<Accumulator> block_sums_;  // [k]: the ids of [0, 64 k)
};

struct Outcome {
  std::string next;       // the message to send; empty when the initiator is done
  std::vector<Id> have;   // initiator only: ids only this side has
  std::vector<Id> need;   // initiator only: ids only the other side has
};

// How a side splits a range whose fingerprints differ. Protocol v1 leaves this
// to each sender, so it is ours to choose and the reference still agrees. The
// reference's 16 buckets down to 32-item id lists spends most bytes on lists:
// at 1 % scattered differences nearly every 15-item leaf holds one, and its
// list crosses the wire both ways. Wide splits while nearly every range
// differs, then four-way splits (`narrow_buckets`) down to single items, cost about 12
// fingerprints a difference instead (docs/performance.md has the ladder).
struct SplitPolicy {
  size_t wide_above = 1024;   // ranges of more items split into `wide_buckets`
  size_t wide_buckets = 16;
  size_t narrow_buckets = 4;
  size_t initiator_list_at_most = 1;  // the initiator's id lists are echoed back, so kept short
  size_t responder_list_at_most = 2;
  // The initiator's first message lists a set this small whole (one round).
  size_t initial_list_below = 32;
  // Where more than this share of items differ (estimated from the last
  // message's fingerprints), splitting finds no equal ranges: list instead.
  double list_all_above = 0.125;
};

// One side of a reconciliation.
//
// The responder (the relay) is stateless between messages, as the protocol
// expects: it answers each range, and when its answer would pass the frame
// limit it folds the rest into one fingerprint for the next round. An id list
// is cut where the frame ends, so every answer lists or splits something: a
// peer that asks again what was folded (the reference does) always moves on.
//
// The initiator keeps the ranges it still has to ask about and sends as many
// as fit a frame (and whose answers should fit one), the rest skipped. When an
// answer is folded anyway (another implementation, other limits), the ranges
// it did not reach are asked again as they were, not re-split from the top.
class Reconciler {
 public:
  // `frame_limit`: the most bytes one message this side writes may hold (0 = no limit).
  Reconciler(const ItemSet& set, size_t frame_limit, SplitPolicy policy = {})
      : set_(set), frame_limit_(frame_limit), policy_(policy) {}

  // The initiator's first message.
  std::string initiate();
  // One received message. The error is a short reason ("parse ends prematurely", …).
  Result<Outcome> reconcile(std::string_view message);

 private:
  // A range this side sends: items [lower, upper) of the set, between two bounds.
  struct Range {
    size_t lower = 0, upper = 0;
    Bound lower_bound, upper_bound;
    bool id_list = false;  // else a fingerprint
  };
  // One range as the message reader sees it.
  struct Incoming {
    Bound lower_bound, upper_bound;
    size_t lower = 0, upper = 0;
    uint64_t mode = 0;
    std::string_view payload;  // the fingerprint, or the ids of an id list
  };

  // The fingerprints compared in one message, for the share of items that differ.
  struct Tally {
    size_t ranges = 0, differing = 0, items = 0;
  };

  Result<Outcome> respond(std::string_view in);
  Result<Outcome> absorb(std::string_view in);
  bool read_range(std::string_view in, size_t& pos, Incoming& r);
  bool same_fingerprint(const Incoming& r, Tally& tally) const;
  void estimate_differing(const Tally& tally);
  void split_range(size_t lower, size_t upper, const Bound& lower_bound, const Bound& upper_bound,
                   std::vector<Range>& out) const;
  void put_range(std::string& out, const Range& r);
  void put_bound(std::string& out, const Bound& bound);
  std::string next_message();
  size_t reply_estimate(const Range& r) const;
  bool over_limit(size_t n) const { return frame_limit_ != 0 && n + 200 > frame_limit_; }

  const ItemSet& set_;
  const size_t frame_limit_;
  const SplitPolicy policy_;
  bool initiator_ = false;
  uint64_t last_in_ = 0;   // delta coding of timestamps, reset per message
  uint64_t last_out_ = 0;
  double differing_ = 0;  // estimated share of items that differ
  // Initiator only.
  std::deque<Range> pending_;   // still to ask, in order
  std::vector<Range> sent_;     // asked in the last message
  size_t max_ranges_ = SIZE_MAX;  // lowered when an answer is folded before its first range
};

// Binary ↔ the lowercase hex NIP-77 puts on the wire; false on bad hex.
std::string to_wire(std::string_view binary);
bool from_wire(std::string_view hex, std::string& binary);

}  // namespace buzz::engine::negentropy
