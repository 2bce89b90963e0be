// The channel and presence reads of the REST API (docs/reference/rest-api.md §3.2, §3.8):
// GET /api/channels, /api/channels/{id}, /api/channels/{id}/members,
// /api/channels/{id}/canvas, and GET / PUT /api/presence. A channel the caller may
// not read answers 403 whether or not it exists.
#include <simdjson.h>

#include <algorithm>

#include "engine/clock.h"
#include "engine/event_parse.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "server/common/api_error.h"
#include "server/http/http_api.h"

namespace buzz::server {
namespace {

constexpr size_t kMaxPresenceKeys = 200;
constexpr size_t kMaxListedChannels = 1000;

// The list's order: streams, then forums, then DMs, then the rest; by name within each.
int type_rank(engine::ChannelType t) {
  switch (t) {
    case engine::ChannelType::kStream: return 0;
    case engine::ChannelType::kForum: return 1;
    case engine::ChannelType::kDm: return 2;
    default: return 3;
  }
}

std::string text_or_null(const std::string& s) { return s.empty() ? "null" : json_string(s); }
std::string key_or_null(const engine::Pubkey& pk, uint64_t when) { return when ? json_string(engine::to_hex(pk)) : "null"; }

using Fields = std::vector<std::pair<std::string, std::string>>;

// The fields the channel list and the channel detail share (docs/reference/rest-api.md §3.2).
Fields channel_fields(const engine::Channel& c, size_t member_count) {
  return {
      {"id", json_string(c.id)},
      {"name", json_string(c.name)},
      {"channel_type", json_string(engine::channel_type_name(c.type))},
      {"visibility", json_string(engine::visibility_name(c.visibility))},
      {"topic", text_or_null(c.topic)},
      {"purpose", text_or_null(c.purpose)},
      {"created_by", json_string(engine::to_hex(c.created_by))},
      {"created_at", json_time_or_null(c.created_at)},
      {"updated_at", json_time_or_null(c.updated_at())},
      {"archived_at", json_time_or_null(c.archived_at)},
      {"member_count", std::to_string(member_count)},
      {"ttl_seconds", c.ttl_seconds ? std::to_string(c.ttl_seconds) : "null"},
      {"ttl_deadline", c.ttl_seconds ? json_time_or_null(c.ttl_deadline) : "null"},
  };
}

std::string channel_json(const engine::Channel& c, size_t member_count) {
  Fields f = channel_fields(c, member_count);
  f.insert(f.end(), {
                        {"description", text_or_null(c.description)},  // nullable here, "" in the list (upstream)
                        {"topic_set_by", key_or_null(c.topic_set_by, c.topic_set_at)},
                        {"topic_set_at", json_time_or_null(c.topic_set_at)},
                        {"purpose_set_by", key_or_null(c.purpose_set_by, c.purpose_set_at)},
                        {"purpose_set_at", json_time_or_null(c.purpose_set_at)},
                        {"topic_required", "false"},
                        {"max_members", "null"},
                        {"nip29_group_id", "null"},
                    });
  return json_object(std::move(f));
}

}  // namespace

net::HttpResponse HttpApi::get_channel(const Caller& who, std::string_view id, bool members) {
  if (!engine::is_canonical_uuid(id)) return api_error(400, "invalid channel_id");
  if (auto refused = check_channel(who, id)) return *refused;
  auto channel = s_.team.find_channel(id);
  if (!channel) return api_error(404, "channel not found");
  std::vector<engine::ChannelMember> active = s_.team.members_of(id);
  if (!members) return net::HttpResponse::json(200, channel_json(*channel, active.size()));
  std::string list = "[";
  for (const engine::ChannelMember& m : active) {
    if (list.size() > 1) list += ',';
    list += json_object({{"pubkey", json_string(engine::to_hex(m.pubkey))},
                         {"role", json_string(engine::channel_role_name(m.role))},
                         {"joined_at", json_time_or_null(m.joined_at)},
                         {"display_name", json_string_or_null(s_.profiles.display_name(m.pubkey))}});
  }
  return net::HttpResponse::json(200, json_object({{"members", list + "]"}, {"next_cursor", "null"}}));
}

net::HttpResponse HttpApi::list_channels(const Caller& who, const net::HttpRequest& req) {
  const std::string visibility = req.query_param("visibility");
  const bool members_only = req.query_param("member") == "true";
  struct Row {
    engine::Channel channel;
    std::vector<engine::ChannelMember> members;
    bool is_member = false;
  };
  std::vector<Row> rows;
  for (const std::string& id : s_.team.readable_channels(who.pubkey)) {
    if (!who.grant.allows_channel(id)) continue;
    auto channel = s_.team.find_channel(id);
    if (!channel) continue;
    Row row{std::move(*channel), s_.team.members_of(id), false};
    auto self = std::find_if(row.members.begin(), row.members.end(), [&](const auto& m) { return m.pubkey == who.pubkey; });
    row.is_member = self != row.members.end();
    if (row.is_member && self->hidden_at) continue;  // a hidden DM leaves the list, not the access set
    if (members_only && !row.is_member) continue;
    if (!visibility.empty() && visibility != engine::visibility_name(row.channel.visibility)) continue;
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::pair(type_rank(a.channel.type), a.channel.name) < std::pair(type_rank(b.channel.type), b.channel.name);
  });
  if (rows.size() > kMaxListedChannels) rows.resize(kMaxListedChannels);
  std::string out = "[";
  for (const Row& r : rows) {
    const engine::Channel& c = r.channel;
    const bool dm = c.type == engine::ChannelType::kDm;
    std::string names = "[", keys = "[";
    for (const engine::ChannelMember& m : r.members) {
      if (!dm) break;
      std::string hex = engine::to_hex(m.pubkey);
      if (keys.size() > 1) {
        names += ',';
        keys += ',';
      }
      std::string name = s_.profiles.display_name(m.pubkey);
      names += json_string(name.empty() ? hex.substr(0, 8) : name);  // the documented fallback
      keys += json_string(hex);
    }
    if (out.size() > 1) out += ',';
    Fields f = channel_fields(c, r.members.size());
    f.insert(f.end(), {
                          {"description", json_string(c.description)},
                          {"last_message_at", "null"},
                          {"participants", names + "]"},
                          {"participant_pubkeys", keys + "]"},
                          {"is_member", r.is_member ? "true" : "false"},
                      });
    out += json_object(std::move(f));
  }
  return net::HttpResponse::json(200, out + "]");
}

net::HttpResponse HttpApi::get_canvas(const Caller& who, std::string_view id) {
  if (!engine::is_canonical_uuid(id)) return api_error(400, "invalid channel UUID");
  if (auto refused = check_channel(who, id)) return *refused;
  engine::Filter newest;
  newest.kinds = std::vector<uint16_t>{kind::kCanvas};
  newest.tags.push_back({'h', {std::string(id)}});
  engine::QueryOptions one;
  one.limit = 1;
  std::string body = R"({"content":null})";
  (void)s_.store.query(newest, one, [&](std::string_view raw, const engine::EventFields&) {
    auto e = engine::parse_event_json(raw);
    if (!e) return;
    // A relay-signed canvas names its human author in its first p tag.
    std::string_view author = e->first_tag_value("p");
    body = json_object({{"content", json_string(e->content)},
                        {"updated_at", std::to_string(e->created_at)},
                        {"author", json_string(author.empty() ? e->pubkey_hex() : std::string(author))}});
  });
  return net::HttpResponse::json(200, body);
}

net::HttpResponse HttpApi::get_typing(const Caller& who, std::string_view id) {
  if (!engine::is_canonical_uuid(id)) return api_error(400, "invalid channel UUID");
  // Those who may read the channel, as its 20002s reach them live; anyone else
  // is answered as for a channel that does not exist.
  if (auto refused = check_channel(who, id)) return *refused;
  std::vector<std::string> typers;
  for (const engine::Pubkey& pk : s_.presence.typing(id, engine::unix_now())) {
    typers.push_back(json_string(engine::to_hex(pk)));
  }
  std::sort(typers.begin(), typers.end());
  return net::HttpResponse::json(200, json_object({{"channel_id", json_string(id)},
                                                   {"typing", json_array(typers)},
                                                   {"window_seconds", std::to_string(engine::kTypingWindowSecs)}}));
}

bool HttpApi::sees_presence(const Caller& who, const std::unordered_set<engine::Pubkey, engine::KeyBytesHash>& audience,
                            const engine::Pubkey& pk, uint64_t now) const {
  if (audience.count(pk)) return true;
  for (const std::string& ch : s_.presence.guest_channels(pk, now)) {
    if (who.grant.allows_channel(ch) && s_.team.is_member(ch, who.pubkey)) return true;
  }
  return false;
}

net::HttpResponse HttpApi::get_presence(const Caller& who, const net::HttpRequest& req) {
  std::vector<std::pair<std::string, std::string>> statuses;
  // Presence is visible to those sharing a channel; anyone else reads as offline.
  const auto audience = s_.team.co_members(who.pubkey);
  std::string keys = req.query_param("pubkeys");
  const uint64_t now = engine::unix_now();
  size_t taken = 0;
  for (size_t start = 0; start <= keys.size() && taken < kMaxPresenceKeys;) {
    size_t end = std::min(keys.find(',', start), keys.size());
    std::string key = keys.substr(start, end - start);
    start = end + 1;
    key.erase(0, key.find_first_not_of(" \t"));
    key.erase(key.find_last_not_of(" \t") + 1);
    if (key.empty()) continue;
    ++taken;
    engine::Pubkey pk;
    if (!engine::from_hex_any_case(key, pk.data(), pk.size())) continue;  // invalid keys are dropped silently
    std::string hex = engine::to_hex(pk);
    auto status = sees_presence(who, audience, pk, now) ? s_.presence.status(pk, now) : std::nullopt;
    statuses.emplace_back(hex, json_string(status.value_or("offline")));
  }
  return net::HttpResponse::json(200, json_object(std::move(statuses)));
}

net::HttpResponse HttpApi::put_presence(const Caller& who, const net::HttpRequest& req) {
  simdjson::dom::parser parser;
  simdjson::dom::element body;
  if (parser.parse(req.body).get(body)) return api_error(400, "request body must be JSON");
  std::string_view status;
  if (body["status"].get(status) || (status != "online" && status != "away" && status != "offline")) {
    return api_error(422, "status must be \"online\", \"away\" or \"offline\"");
  }
  s_.presence.set_status(who.pubkey, status, engine::unix_now());
  const bool offline = status == "offline";
  return net::HttpResponse::json(
      200, json_object({{"status", json_string(status)}, {"ttl_seconds", offline ? "0" : std::to_string(kPresenceTtlSecs)}}));
}

}  // namespace buzz::server
