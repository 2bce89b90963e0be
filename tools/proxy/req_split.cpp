#include "tools/proxy/req_split.h"

#include <algorithm>
#include <cctype>

#include "engine/json_text.h"
#include "engine/text.h"
#include "tools/proxy/kind_map.h"

namespace buzz::proxy {

namespace {

std::string json_of(simdjson::dom::element v) { return simdjson::minify(v); }

engine::Result<std::vector<std::string>> strings_of(simdjson::dom::element v, std::string_view key) {
  simdjson::dom::array a;
  if (v.get_array().get(a)) return engine::Error{"invalid: " + std::string(key) + " must be an array"};
  std::vector<std::string> out;
  for (simdjson::dom::element x : a) {
    std::string_view s;
    if (x.get_string().get(s)) return engine::Error{"invalid: " + std::string(key) + " values must be strings"};
    out.emplace_back(s);
  }
  return out;
}

// One filter, split into its local part and its upstream filters.
engine::Status split_filter(simdjson::dom::element filter, const ChannelMap& channels, IdCaches& ids,
                            const ChannelSet& allowed, SplitReq* out) {
  simdjson::dom::object obj;
  if (filter.get_object().get(obj)) return engine::Error{"invalid: filter must be an object"};

  std::optional<std::vector<uint16_t>> kinds;
  std::optional<std::vector<std::string>> e_values;
  std::vector<std::pair<std::string, std::string>> rest;  // other keys, as sent (#h is dropped: the proxy sets it)
  LocalFilter local;
  for (auto field : obj) {
    const std::string key(field.key);
    if (key == "kinds") {
      simdjson::dom::array a;
      if (field.value.get_array().get(a)) return engine::Error{"invalid: kinds must be an array"};
      kinds.emplace();
      for (simdjson::dom::element k : a) {
        uint64_t v;
        if (k.get_uint64().get(v) || v > 65535) return engine::Error{"invalid: kinds must be integers"};
        kinds->push_back(uint16_t(v));
      }
    } else if (key == "#e") {
      auto v = strings_of(field.value, key);
      if (!v) return engine::Error{v.error()};
      e_values = std::move(*v);
    } else if (key == "#h") {
      continue;
    } else {
      if (key == "ids" || key == "authors") {
        auto v = strings_of(field.value, key);
        if (!v) return engine::Error{v.error()};
        std::set<std::string> values;
        for (auto& s : *v) values.insert(engine::lower(s));
        (key == "ids" ? local.ids : local.authors) = values;
        if (key == "ids") {
          // An id the client has seen is the relay's under another name.
          for (auto& s : *v) {
            if (auto internal = ids.external_to_internal.get(engine::lower(s))) s = *internal;
          }
          rest.emplace_back(key, json_string_array(*v));
          continue;
        }
      } else if (key == "since" || key == "until" || key == "limit") {
        uint64_t v;
        if (field.value.get_uint64().get(v)) return engine::Error{"invalid: " + key + " must be a non-negative integer"};
        (key == "since" ? local.since : key == "until" ? local.until : local.limit) = v;
      }
      rest.emplace_back(key, json_of(field.value));
    }
  }

  // Which kinds are local, which go upstream.
  std::optional<std::vector<uint16_t>> upstream_kinds;
  bool upstream = true;
  if (!kinds) {
    local.kinds = {40, 41};
  } else {
    upstream_kinds.emplace();
    for (uint16_t k : *kinds) {
      if (k == 40 || k == 41) local.kinds.insert(k);
      if (k != 40) {
        const uint16_t b = to_buzz(k);
        if (std::find(upstream_kinds->begin(), upstream_kinds->end(), b) == upstream_kinds->end()) {
          upstream_kinds->push_back(b);
        }
      }
    }
    upstream = !upstream_kinds->empty();
  }
  const std::optional<uint64_t> local_since = local.since, local_limit = local.limit;
  if (!local.kinds.empty()) {
    if (e_values) local.channel_ids = std::set<std::string>(e_values->begin(), e_values->end());
    out->local.push_back(std::move(local));
  }
  if (!upstream) return {};

  // #e: channel ids become #h; other ids stay, under the relay's names.
  std::vector<std::string> named_channels, other_e;
  bool named_any_channel = false;
  if (e_values) {
    for (const std::string& v : *e_values) {
      if (const NipChannel* c = channels.by_create_id(engine::lower(v))) {
        named_any_channel = true;
        if (allowed.count(c->info.uuid)) named_channels.push_back(c->info.uuid);
      } else {
        auto internal = ids.external_to_internal.get(engine::lower(v));
        other_e.push_back(internal ? *internal : v);
      }
    }
  }
  std::vector<std::string> h;
  if (named_any_channel) {
    h = named_channels;
  } else {
    h.assign(allowed.begin(), allowed.end());
  }
  std::sort(h.begin(), h.end());
  h.erase(std::unique(h.begin(), h.end()), h.end());
  // Nothing this session may see: the spec sends the nil UUID upstream, which
  // matches nothing; not asking at all gives the same answer without a round trip.
  if (h.empty()) return {};

  for (const std::string& channel : h) {
    UpstreamFilter f;
    f.since = local_since;
    f.wants_history = local_limit != 0;
    if (upstream_kinds) {
      std::vector<std::string> kinds;
      for (auto k : *upstream_kinds) kinds.push_back(std::to_string(k));
      f.fields.emplace_back("kinds", json_array(kinds));
    }
    for (const auto& kv : rest) f.fields.push_back(kv);
    if (!other_e.empty()) f.fields.emplace_back("#e", json_string_array(other_e));
    f.fields.emplace_back("#h", json_string_array(std::vector{channel}));
    out->upstream[channel].push_back(std::move(f));
  }
  return {};
}

}  // namespace

namespace {

std::string render(const UpstreamFilter& f, bool live, std::optional<uint64_t> catch_up_from) {
  JsonFields out;
  for (const auto& [k, v] : f.fields) {
    if (live && (k == "limit" || (catch_up_from && k == "since"))) continue;
    out.json(k, v);
  }
  if (live && catch_up_from) {
    out.number("since", std::max(*catch_up_from, f.since.value_or(0)));
  } else if (live) {
    out.number("limit", 0);
  }
  return out.str();
}

}  // namespace

std::string UpstreamFilter::history() const { return render(*this, false, std::nullopt); }
std::string UpstreamFilter::live(std::optional<uint64_t> catch_up_from) const { return render(*this, true, catch_up_from); }

std::string join_history(const std::vector<UpstreamFilter>& filters) {
  std::string out;
  for (const auto& f : filters) {
    if (f.wants_history) out += (out.empty() ? "" : ",") + f.history();
  }
  return out;
}

std::string join_live(const std::vector<UpstreamFilter>& filters, std::optional<uint64_t> catch_up_from) {
  std::string out;
  for (const auto& f : filters) out += (out.empty() ? "" : ",") + f.live(catch_up_from);
  return out;
}

engine::Result<SplitReq> split_req(const std::vector<simdjson::dom::element>& filters, const ChannelMap& channels,
                                   IdCaches& ids, const ChannelSet& allowed) {
  SplitReq out;
  for (simdjson::dom::element f : filters) {
    if (auto s = split_filter(f, channels, ids, allowed, &out); !s) return engine::Error{s.error()};
  }
  return out;
}

std::vector<const engine::Event*> local_events(const LocalFilter& f, const ChannelMap& channels,
                                               const ChannelSet& allowed, const std::string& server_pubkey) {
  std::vector<const engine::Event*> out;
  if (f.authors && !f.authors->count(server_pubkey)) return out;
  if (f.limit && *f.limit == 0) return out;
  // A stable order: oldest channel first.
  std::vector<const NipChannel*> visible;
  for (const auto& [uuid, c] : channels.all()) {
    if (!allowed.count(uuid)) continue;
    if (f.channel_ids && !f.channel_ids->count(c.id)) continue;
    if (f.since && c.info.created_at < *f.since) continue;
    if (f.until && c.info.created_at > *f.until) continue;
    visible.push_back(&c);
  }
  std::sort(visible.begin(), visible.end(), [](const NipChannel* a, const NipChannel* b) {
    return a->info.created_at != b->info.created_at ? a->info.created_at < b->info.created_at : a->id < b->id;
  });
  for (const NipChannel* c : visible) {
    for (const engine::Event* e : {&c->create, &c->metadata}) {
      if (!f.kinds.count(e->kind)) continue;
      if (f.ids && !f.ids->count(e->id_hex())) continue;
      if (f.limit && out.size() >= *f.limit) return out;
      out.push_back(e);
    }
  }
  return out;
}

}  // namespace buzz::proxy
