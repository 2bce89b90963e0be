// The Nostr HTTP bridge of upstream HEAD (docs/reference/rest-api.md §6, docs/reference/protocol.md §17):
// POST /events, /query and /count for clients that sign requests with NIP-98
// instead of holding a WebSocket (the agent harness and CLI do).
//
// NIP-98 only (no bearer tokens; X-Pubkey in the development mode of
// api_auth.cpp), then the relay-membership gate with
// X-Auth-Tag; the caller holds every scope and no channel list. /events is the
// pipeline of a WebSocket EVENT; /query and /count read under the rules REQ
// and COUNT obey (server/access/read_access.h), plus the bridge's extension keys.
#include <simdjson.h>

#include <cstring>
#include <unordered_set>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "engine/signature.h"
#include "server/access/read_access.h"
#include "server/common/api_error.h"
#include "server/common/log.h"
#include "server/http/feed_selection.h"
#include "server/http/http_api.h"

namespace buzz::server {
namespace {

constexpr size_t kMaxFilters = 10;  // as a REQ (NIP-11 max_filters)
constexpr uint64_t kDefaultThreadLimit = 100, kMaxThreadLimit = 500;
constexpr uint64_t kDefaultFeedLimit = 20, kMaxFeedLimit = 100;
constexpr uint64_t kDefaultSearchLimit = 100;

engine::Result<BridgeFilter> parse_bridge_filter(simdjson::dom::element el) {
  auto parsed = engine::parse_filter(el);
  if (!parsed) return engine::Error{"invalid filter: " + parsed.error()};
  BridgeFilter bf{std::move(*parsed), {}, {}, {}};
  simdjson::dom::object obj = el.get_object().value_unsafe();  // parse_filter accepted an object
  simdjson::dom::element v;
  if (!obj["before_id"].get(v)) {
    std::string_view hex;
    engine::Id id;
    if (v.get_string().get(hex) || !engine::from_hex(hex, &id)) return engine::Error{"before_id must be 64 hex characters"};
    if (!bf.filter.until) return engine::Error{"before_id requires until to be set"};
    bf.before_id = id;
  }
  if (!obj["depth_limit"].get(v)) {
    uint64_t depth;
    if (v.get_uint64().get(depth)) return engine::Error{"depth_limit must be a non-negative integer"};
    const engine::TagFilter* e = bf.filter.tag('e');
    if (!e || e->values.size() != 1) return engine::Error{"depth_limit requires exactly one #e value"};
    bf.depth_limit = depth;
  }
  if (!obj["feed_types"].get(v)) {
    simdjson::dom::array types;
    if (v.get_array().get(types)) return engine::Error{"feed_types must be an array of strings"};
    for (simdjson::dom::element t : types) {
      std::string_view name;
      if (t.get_string().get(name) || !feed_selection(name)) {
        return engine::Error{"feed_types may hold mentions, needs_action, activity and agent_activity"};
      }
      bf.feed_types.emplace_back(name);
    }
  }
  return bf;
}

engine::Result<std::vector<BridgeFilter>> parse_bridge_filters(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::dom::array arr;
  if (parser.parse(body.data(), body.size()).get_array().get(arr)) {
    return engine::Error{"body must be a JSON array of filters"};
  }
  std::vector<BridgeFilter> out;
  for (simdjson::dom::element el : arr) {
    if (out.size() == kMaxFilters) return engine::Error{"too many filters (max " + std::to_string(kMaxFilters) + ")"};
    auto bf = parse_bridge_filter(el);
    if (!bf) return engine::Error{bf.error()};
    out.push_back(std::move(*bf));
  }
  return out;
}

// The one channel a filter names in #h, or empty.
std::string_view single_channel(const engine::Filter& f) {
  const engine::TagFilter* h = f.tag('h');
  return h && h->values.size() == 1 ? std::string_view(h->values[0]) : std::string_view();
}

// A presence lookup: exactly one kind, 20001 or 40902, and some authors.
bool asks_presence(const engine::Filter& f) {
  return f.kinds && f.kinds->size() == 1 &&
         ((*f.kinds)[0] == kind::kPresence || (*f.kinds)[0] == kind::kPresenceSnapshot) && f.authors &&
         !f.authors->empty();
}

// A filter without the bridge's extension keys, search or a presence lookup:
// /query lists exactly what a store count counts.
bool plain(const BridgeFilter& bf) {
  return !bf.filter.search && bf.feed_types.empty() && !bf.before_id && !bf.depth_limit && !asks_presence(bf.filter);
}

// A query the index refuses is the caller's (400); anything else is ours, and
// its details stay in the log (docs/reference/rest-api.md §0.1).
net::HttpResponse bridge_failure(const std::string& reason) {
  if (reason.starts_with("invalid:")) return api_error(400, reason);
  log_warn("bridge query failed", {{"error", reason}});
  return api_error(500, "internal server error");
}

}  // namespace

bool HttpApi::is_bridge_path(std::string_view path) { return path == "/events" || path == "/query" || path == "/count"; }

std::optional<net::HttpResponse> HttpApi::route_bridge(net::Connection& conn, const net::HttpRequest& req) {
  if (req.method != "POST") return api_error(405, "method not allowed");
  Caller who;
  if (auto refused = authenticate_http(req, std::nullopt, &who, AuthMode::kNip98Only)) return refused;
  if (req.path == "/events") return post_event(who, conn, req);
  auto filters = parse_bridge_filters(req.body);
  if (!filters) return api_error(400, filters.error());
  return req.path == "/query" ? bridge_query(who, *filters) : bridge_count(who, *filters);
}

net::HttpResponse HttpApi::bridge_count(const Caller& who, const std::vector<BridgeFilter>& filters) {
  const Readable readable = s_.history.readable_to(who.grant, who.pubkey);
  engine::QueryOptions options;
  options.accept = readable;
  uint64_t total = 0;  // summed over the filters (docs/reference/rest-api.md §6)
  for (const BridgeFilter& bf : filters) {
    std::string_view channel = single_channel(bf.filter);
    if (!channel.empty() && !s_.team.can_read(channel, who.pubkey)) continue;  // skipped silently
    if (plain(bf)) {
      auto n = s_.store.count(std::span(&bf.filter, 1), options);
      if (!n) return bridge_failure(n.error());
      total += *n;
      continue;
    }
    auto rows = bridge_rows(who, bf, readable);
    if (!rows) return bridge_failure(rows.error());
    total += rows->size();
  }
  return net::HttpResponse::json(200, json_object({{"count", std::to_string(total)}}));
}

net::HttpResponse HttpApi::bridge_query(const Caller& who, const std::vector<BridgeFilter>& filters) {
  const Readable readable = s_.history.readable_to(who.grant, who.pubkey);
  std::unordered_set<engine::Id, engine::KeyBytesHash> sent;  // an event two filters match is listed once
  std::vector<std::string> out;
  for (const BridgeFilter& bf : filters) {
    std::string_view channel = single_channel(bf.filter);
    if (!channel.empty() && !s_.team.can_read(channel, who.pubkey)) continue;  // skipped silently
    auto rows = bridge_rows(who, bf, readable);
    if (!rows) return bridge_failure(rows.error());
    for (EventRow& row : *rows) {
      if (sent.insert(row.id).second) out.push_back(std::move(row.raw));
    }
  }
  return net::HttpResponse::json(200, json_array(out));
}

engine::Result<std::vector<EventRow>> HttpApi::bridge_rows(const Caller& who, const BridgeFilter& bf,
                                                           const Readable& readable) {
  const engine::Filter& f = bf.filter;
  if (!bf.feed_types.empty()) return feed_events(who, bf);
  if (asks_presence(f)) {
    std::vector<EventRow> out;
    for (engine::Event& e : presence_events(who, f)) out.push_back({e.id, std::move(e.raw), ""});
    return out;
  }
  Readable accept = readable;
  engine::Filter query = f;
  if (f.search && !f.limit) query.limit = kDefaultSearchLimit;  // a single page (docs/reference/protocol.md §17)
  if (bf.before_id) {
    const uint64_t until = *f.until;
    const engine::Id before = *bf.before_id;
    // Newest first, ids ascending within a second (docs/reference/protocol.md §9.4): what
    // follows the cursor is older, or as old with a greater id.
    accept = [&, until, before](const engine::EventFields& e) {
      return (e.created_at < until || std::memcmp(e.id, before.data(), before.size()) > 0) && readable(e);
    };
  }
  if (bf.depth_limit) {
    engine::Id root;
    if (!engine::from_hex(f.tag('e')->values[0], &root)) return std::vector<EventRow>{};  // no thread has that root
    query.limit = std::min(f.limit.value_or(kDefaultThreadLimit), kMaxThreadLimit);
    const uint64_t depth = *bf.depth_limit;
    accept = [&, root, depth](const engine::EventFields& e) {
      auto row = thread_row(id_of(e));
      return row && row->depth > 0 && row->root == root && row->depth <= depth && readable(e);
    };
  }
  return s_.history.rows(query, who.pubkey, who.grant, accept);
}

// The feed types in the order given, newest first within each, until the
// filter's limit (docs/reference/channels.md §13); channel events the caller may read only.
std::vector<EventRow> HttpApi::feed_events(const Caller& who, const BridgeFilter& bf) {
  const size_t limit = std::min(bf.filter.limit.value_or(kDefaultFeedLimit), kMaxFeedLimit);
  const std::string me = engine::to_hex(who.pubkey);
  const Readable readable = s_.history.readable_to(who.grant, who.pubkey);
  std::unordered_set<engine::Id, engine::KeyBytesHash> seen;
  std::vector<EventRow> out;
  for (const std::string& type : bf.feed_types) {
    if (out.size() >= limit) break;
    engine::QueryOptions opts;
    opts.limit = limit - out.size();
    opts.accept = [&](const engine::EventFields& e) {
      return !e.channel.empty() && readable(e) && !seen.count(id_of(e));
    };
    (void)s_.store.query(feed_filter(*feed_selection(type), me, bf.filter.since), opts,
                       [&](std::string_view raw, const engine::EventFields& e) {
                         const engine::Id id = id_of(e);
                         seen.insert(id);
                         out.push_back({id, std::string(raw), std::string(e.channel)});
                       });
  }
  return out;
}

// Presence as relay-signed kind 20001 events (content = the status, ["p",
// author]), for the authors the caller may see: itself and those sharing a
// channel with it, as GET /api/presence shows them. Offline authors have none.
std::vector<engine::Event> HttpApi::presence_events(const Caller& who, const engine::Filter& f) {
  const uint64_t now = engine::unix_now();
  const auto audience = s_.team.co_members(who.pubkey);
  std::vector<engine::Event> out;
  for (const engine::Pubkey& pk : *f.authors) {
    if (pk != who.pubkey && !sees_presence(who, audience, pk, now)) continue;
    std::optional<std::string> status = s_.presence.status(pk, now);
    if (!status) continue;
    out.push_back(engine::signed_event(key_, kind::kPresence, now, {{"p", engine::to_hex(pk)}}, std::move(*status)));
  }
  return out;
}

}  // namespace buzz::server
