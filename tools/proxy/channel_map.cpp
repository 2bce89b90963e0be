#include "tools/proxy/channel_map.h"

#include <simdjson.h>

#include <ctime>

#include "engine/json_text.h"
#include "engine/kind_numbers.h"

namespace buzz::proxy {

std::optional<uint64_t> parse_rfc3339(std::string_view t) {
  std::tm tm{};
  int offset_sign = 0, oh = 0, om = 0;
  auto digits = [&](size_t at, size_t n, int* out) {
    if (at + n > t.size()) return false;
    int v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (t[i] < '0' || t[i] > '9') return false;
      v = v * 10 + (t[i] - '0');
    }
    *out = v;
    return true;
  };
  if (!digits(0, 4, &tm.tm_year) || t.size() < 20 || t[4] != '-' || !digits(5, 2, &tm.tm_mon) || t[7] != '-' ||
      !digits(8, 2, &tm.tm_mday) || (t[10] != 'T' && t[10] != 't' && t[10] != ' ') || !digits(11, 2, &tm.tm_hour) ||
      t[13] != ':' || !digits(14, 2, &tm.tm_min) || t[16] != ':' || !digits(17, 2, &tm.tm_sec)) {
    return std::nullopt;
  }
  size_t at = 19;
  if (at < t.size() && t[at] == '.') {
    ++at;
    while (at < t.size() && t[at] >= '0' && t[at] <= '9') ++at;
  }
  if (at < t.size() && (t[at] == 'Z' || t[at] == 'z')) {
    ++at;
  } else if (at < t.size() && (t[at] == '+' || t[at] == '-')) {
    offset_sign = t[at] == '+' ? 1 : -1;
    if (!digits(at + 1, 2, &oh) || at + 3 >= t.size() || t[at + 3] != ':' || !digits(at + 4, 2, &om)) return std::nullopt;
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != t.size()) return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const int64_t utc = int64_t(timegm(&tm)) - offset_sign * (oh * 3600 + om * 60);
  if (utc < 0) return std::nullopt;
  return uint64_t(utc);
}

engine::Result<std::vector<ChannelInfo>> parse_channel_list(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json.data(), json.size()).get(doc)) return engine::Error{"the channel list is not JSON"};
  simdjson::dom::array rows;
  if (doc.get_array().get(rows)) return engine::Error{"the channel list is not a JSON array"};
  std::vector<ChannelInfo> out;
  for (simdjson::dom::element row : rows) {
    std::string_view id, created, name, description;
    if (row["id"].get_string().get(id) || row["created_at"].get_string().get(created)) continue;
    auto at = parse_rfc3339(created);
    if (!at) continue;
    ChannelInfo c{std::string(id), *at, "", ""};
    if (!row["name"].get_string().get(name)) c.name = name;
    if (!row["description"].get_string().get(description)) c.description = description;
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

// {"about":…,"name":…,"picture":""}: the keys sorted, as NIP-28 clients see them.
std::string channel_content(std::string_view about, std::string_view name) {
  return json_object({{"about", json_string(about)}, {"name", json_string(name)}, {"picture", json_string("")}});
}

}  // namespace

engine::Event channel_create_event(const engine::Keypair& key, const ChannelInfo& c) {
  // The UUID, not the name: the id survives renames.
  return engine::signed_event(key, kind::kChannelCreation, c.created_at, {}, channel_content("", c.uuid));
}

engine::Event channel_metadata_event(const engine::Keypair& key, const ChannelInfo& c, const std::string& create_id) {
  return engine::signed_event(key, kind::kChannelMetadata, c.created_at, {{"e", create_id}},
                              channel_content(c.description, c.name));
}

size_t ChannelMap::update(const std::vector<ChannelInfo>& rows) {
  std::unordered_map<std::string, NipChannel> next;
  size_t changed = 0;
  for (const ChannelInfo& row : rows) {
    auto old = channels_.find(row.uuid);
    if (old != channels_.end() && old->second.info.created_at == row.created_at) {
      NipChannel c = std::move(old->second);
      if (c.info.name != row.name || c.info.description != row.description) {
        c.info = row;
        c.metadata = channel_metadata_event(key_, row, c.id);
        ++changed;
      }
      next.emplace(row.uuid, std::move(c));
      continue;
    }
    NipChannel c;
    c.info = row;
    c.create = channel_create_event(key_, row);
    c.id = c.create.id_hex();
    c.metadata = channel_metadata_event(key_, row, c.id);
    next.emplace(row.uuid, std::move(c));
    ++changed;
  }
  channels_ = std::move(next);
  by_id_.clear();
  for (const auto& [uuid, c] : channels_) by_id_.emplace(c.id, uuid);
  return changed;
}

const NipChannel* ChannelMap::by_uuid(std::string_view uuid) const {
  auto it = channels_.find(std::string(uuid));
  return it == channels_.end() ? nullptr : &it->second;
}

const NipChannel* ChannelMap::by_create_id(std::string_view id) const {
  auto it = by_id_.find(std::string(id));
  return it == by_id_.end() ? nullptr : by_uuid(it->second);
}

}  // namespace buzz::proxy
