// Receipts; see receipts.h.
#include "server/relay/receipts.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "engine/event_parse.h"
#include "engine/json_text.h"
#include "engine/kinds.h"

namespace buzz::server {
namespace {

constexpr std::string_view kMarkerPrefix = "buzz:read:";

}  // namespace

std::string read_marker_d(std::string_view channel) { return std::string(kMarkerPrefix) + std::string(channel); }

std::optional<uint64_t> read_until(const engine::Event& marker) {
  if (marker.kind != kind::kReadState || !marker.first_tag_value("d").starts_with(kMarkerPrefix)) return {};
  std::string_view v = marker.first_tag_value("read_until");
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || v.empty()) return {};
  return n;
}

// Each member's read position in the channel: one query on the markers' d tag.
const ReceiptReader::Positions& ReceiptReader::positions(const std::string& channel) {
  auto [it, fresh] = positions_.try_emplace(channel);
  if (!fresh) return it->second;
  engine::Filter f;
  f.kinds = std::vector<uint16_t>{kind::kReadState};
  f.tags.push_back({'d', {read_marker_d(channel)}});
  (void)store_.query(f, {}, [&](std::string_view raw, const engine::EventFields& fields) {
    auto marker = engine::parse_event_json(raw);
    if (!marker) return;
    if (std::optional<uint64_t> until = read_until(*marker)) {
      engine::Pubkey pk;
      std::memcpy(pk.data(), fields.pubkey, pk.size());
      it->second[pk] = *until;
    }
  });
  return it->second;
}

Receipt ReceiptReader::of(const engine::Id& id, const engine::Pubkey& caller, const Grant& grant) {
  Receipt r;
  r.id = id;
  std::optional<engine::StoredEvent> stored = store_.lookup(id);
  // Only a live channel message the caller may read has receipts to ask about.
  if (!stored || stored->deleted || stored->channel.empty()) return r;
  if (!grant.allows_channel(stored->channel)) return r;
  const engine::ChannelAccess access = team_.access(stored->channel, caller);
  if (!access.can_read()) return r;
  const bool manages = access.role && *access.role >= engine::ChannelRole::kAdmin;
  if (stored->pubkey != caller && !manages) {
    r.access = Receipt::Access::kNotYours;
    return r;
  }
  r.access = Receipt::Access::kShown;
  r.channel = stored->channel;
  r.author = stored->pubkey;
  r.created_at = stored->created_at;
  std::vector<engine::Pubkey> sent;
  if (auto got = log_.delivered_to(id, stored->created_at)) sent = std::move(*got);
  const Positions& read = positions(stored->channel);
  for (const engine::ChannelMember& m : team_.members_of(stored->channel)) {
    if (m.pubkey == stored->pubkey) continue;
    ++r.members;
    if (std::binary_search(sent.begin(), sent.end(), m.pubkey)) ++r.delivered;
    auto at = read.find(m.pubkey);
    if (at != read.end() && at->second >= stored->created_at) ++r.read;
  }
  return r;
}

std::string receipt_json(const Receipt& r) {
  return json_object({{"event_id", json_string(engine::to_hex(r.id))},
                      {"channel_id", json_string(r.channel)},
                      {"members", std::to_string(r.members)},
                      {"delivered", std::to_string(r.delivered)},
                      {"read", std::to_string(r.read)}});
}

}  // namespace buzz::server
