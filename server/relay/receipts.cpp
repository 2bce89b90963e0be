// Receipts; see receipts.h.
#include "server/relay/receipts.h"

#include <algorithm>
#include <charconv>
#include <cstring>
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

std::vector<Receipt> ReceiptReader::of(std::span<const engine::Id> ids, const engine::Pubkey& caller, const Grant& grant) {
  std::vector<Receipt> out(ids.size());
  // The live messages among them (a deleted or expired one has no receipt), in one query.
  engine::Filter f;
  f.ids = std::vector<engine::Id>(ids.begin(), ids.end());
  std::sort(f.ids->begin(), f.ids->end());
  f.ids->erase(std::unique(f.ids->begin(), f.ids->end()), f.ids->end());
  struct Message {
    std::string channel;
    engine::Pubkey author{};
    uint64_t created_at = 0;
  };
  std::unordered_map<engine::Id, Message, engine::KeyBytesHash> messages;
  engine::QueryOptions options;
  options.limit = f.ids->size();
  (void)store_.query(f, options, [&](std::string_view, const engine::EventFields& fields) {
    Message& m = messages[engine::id_of(fields)];
    m.channel = fields.channel;
    std::memcpy(m.author.data(), fields.pubkey, m.author.size());
    m.created_at = fields.created_at;
  });
  std::vector<engine::DeliveredQuery> shown;  // the receipts shown, in `out`'s order
  std::vector<size_t> shown_at;
  for (size_t i = 0; i < ids.size(); ++i) {
    Receipt& r = out[i];
    r.id = ids[i];
    auto it = messages.find(ids[i]);
    // Only a channel message the caller may read has receipts to ask about.
    if (it == messages.end() || it->second.channel.empty() || !grant.allows_channel(it->second.channel)) continue;
    const Message& m = it->second;
    const engine::ChannelAccess access = team_.access(m.channel, caller);
    if (!access.can_read()) continue;
    const bool manages = access.role && *access.role >= engine::ChannelRole::kAdmin;
    if (m.author != caller && !manages) {
      r.access = Receipt::Access::kNotYours;
      continue;
    }
    r.access = Receipt::Access::kShown;
    r.channel = m.channel;
    r.author = m.author;
    r.created_at = m.created_at;
    shown.push_back({r.id, r.created_at});
    shown_at.push_back(i);
  }
  auto sent = log_.delivered_to_each(shown);  // unreadable: counted as delivered to none
  for (size_t k = 0; k < shown.size(); ++k) {
    Receipt& r = out[shown_at[k]];
    static const std::vector<engine::Pubkey> none;
    const std::vector<engine::Pubkey>& to = sent ? (*sent)[k] : none;
    const Positions& read = positions(r.channel);
    for (const engine::ChannelMember& m : team_.members_of(r.channel)) {
      if (m.pubkey == r.author) continue;
      ++r.members;
      if (std::binary_search(to.begin(), to.end(), m.pubkey)) ++r.delivered;
      auto at = read.find(m.pubkey);
      if (at != read.end() && at->second >= r.created_at) ++r.read;
    }
  }
  return out;
}

std::string receipt_json(const Receipt& r) {
  return json_object({{"event_id", json_string(engine::to_hex(r.id))},
                      {"channel_id", json_string(r.channel)},
                      {"members", std::to_string(r.members)},
                      {"delivered", std::to_string(r.delivered)},
                      {"read", std::to_string(r.read)}});
}

}  // namespace buzz::server
