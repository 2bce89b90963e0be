// Full-text search: NIP-50 `search` filters in REQ (protocol.md §9.8) and
// GET /api/search (rest-api.md §3.6), both over the SearchIndex.
//
// Security: the channels a caller may read (and its token may reach) go into
// the index query itself, so a private hit never counts, ranks or shows
// (index/search_index.h). Every hit is then re-read from the store and
// re-checked — live, still readable, and matching the rest of the filter —
// before it is sent, so an index that lags a deletion never resurrects it.
#include <cstring>
#include <unordered_map>

#include "engine/canonical.h"
#include "engine/event_parse.h"
#include "server/json_text.h"
#include "server/log.h"
#include "server/read_access.h"
#include "server/relay.h"
#include "server/rest_params.h"

namespace buzz::server {
namespace {

constexpr int64_t kDefaultRestLimit = 20, kMaxRestLimit = 100;

}  // namespace

index::SearchQuery Relay::search_scope(const engine::Pubkey& who, const Grant& grant) const {
  index::SearchQuery q;
  for (std::string& id : team_.readable_channels(who)) {
    if (grant.allows_channel(id)) q.channels.push_back(std::move(id));
  }
  // A channel-scoped token never sees global events through search (protocol.md §6.5).
  q.include_global = !grant.channel_restricted();
  return q;
}

std::vector<Relay::EventRow> Relay::search_hits(const index::SearchResult& result, engine::Filter rest,
                                                const Readable& readable) {
  std::vector<EventRow> out;
  if (result.hits.empty()) return out;
  rest.search.reset();
  rest.limit.reset();
  rest.ids.emplace();
  for (const index::SearchHit& h : result.hits) rest.ids->push_back(h.id);
  rest.normalize();
  std::unordered_map<engine::Id, EventRow, engine::KeyBytesHash> found;
  engine::QueryOptions opts;
  opts.limit = result.hits.size();
  opts.accept = readable;
  (void)store_.query(rest, opts, [&](std::string_view raw, const engine::EventFields& f) {
    const engine::Id id = engine::id_of(f);
    found.emplace(id, EventRow{id, std::string(raw), std::string(f.channel)});
  });
  for (const index::SearchHit& h : result.hits) {  // back in the index's order
    auto it = found.find(h.id);
    if (it != found.end()) out.push_back(std::move(it->second));
  }
  return out;
}

engine::Result<std::vector<Relay::EventRow>> Relay::filter_rows(const engine::Filter& f, const engine::Pubkey& who,
                                                                  const Grant& grant, const Readable& readable) {
  std::vector<EventRow> rows;
  if (!f.search) {
    engine::QueryOptions opts;
    opts.accept = readable;
    engine::Status s = store_.query(f, opts, [&](std::string_view raw, const engine::EventFields& e) {
      rows.push_back({engine::id_of(e), std::string(raw), std::string(e.channel)});
    });
    if (!s) return engine::Error{"error: " + s.error()};
    return rows;
  }
  if (!search_) return engine::Error{"error: full-text search is not enabled on this relay"};
  // An empty search is skipped (protocol.md §9.8).
  if (f.search->find_first_not_of(" \t\r\n") == std::string::npos) return rows;
  index::SearchQuery q = search_scope(who, grant);
  q.text = *f.search;
  if (const engine::TagFilter* h = f.tag('h')) {  // #h narrows the scope, never widens it
    std::erase_if(q.channels, [&](const std::string& ch) {
      return std::find(h->values.begin(), h->values.end(), ch) == h->values.end();
    });
    q.include_global = false;
  }
  if (f.kinds) q.kinds = *f.kinds;
  if (f.authors) q.authors = *f.authors;
  q.since = f.since;
  q.until = f.until;
  q.limit = std::min<size_t>(f.limit.value_or(index::kMaxSearchLimit), index::kMaxSearchLimit);  // default = max = the cap
  auto result = search_->search(q);
  if (!result) return engine::Error{"invalid: " + result.error()};
  return search_hits(*result, f, readable);
}

void Relay::handle_search_req(Context& c, const ReqMessage& req) {
  std::unordered_set<engine::Id, engine::KeyBytesHash> sent;  // a hit of two filters is sent once
  const Readable readable = readable_to(c.session.grant, c.session.pubkey);
  std::string prefix = "[\"EVENT\",";
  engine::append_json_string(prefix, req.sub_id);
  prefix += ",";
  for (const engine::Filter& f : req.filters) {
    auto rows = filter_rows(f, c.session.pubkey, c.session.grant, readable);
    if (!rows) return send_closed(c, req.sub_id, rows.error());
    for (const EventRow& row : *rows) {
      // A full send queue ends the replay, without EOSE (protocol.md §5.4).
      if (sent.insert(row.id).second && !c.loop.send_history(c.conn, prefix + row.raw + "]")) return;
    }
  }
  std::string eose = "[\"EOSE\",";
  engine::append_json_string(eose, req.sub_id);
  c.loop.send_text(c.conn, eose + "]");
}

net::HttpResponse Relay::get_search(const Caller& who, const net::HttpRequest& req) {
  if (!search_) return api_error(503, "full-text search is not enabled on this relay");
  index::SearchQuery q = search_scope(who.pubkey, who.grant);
  q.text = req.query_param("q");
  q.order = index::SearchOrder::kNewest;  // sort_by=created_at:desc (§3.6)
  std::optional<int64_t> limit = query_int(req, "limit", kDefaultRestLimit, 1, kMaxRestLimit);
  if (!limit) return api_error(400, "limit must be an integer");
  q.limit = size_t(*limit);
  const net::HttpResponse empty = net::HttpResponse::json(200, R"({"found":0,"hits":[]})");
  if (std::string channel = req.query_param("channel_id"); !channel.empty()) {
    if (std::find(q.channels.begin(), q.channels.end(), channel) == q.channels.end()) return empty;
    q.channels = {channel};
    q.include_global = false;
  }
  if (q.channels.empty() && !q.include_global) return empty;
  auto result = search_->search(q);
  if (!result) {
    // A backend error degrades to no hits (rest-api.md §3.6); the reason goes to the log.
    log_info("search degraded to no hits", {{"error", result.error()}});
    return empty;
  }
  const Readable readable = readable_to(who.grant, who.pubkey);
  std::vector<std::string> hits;
  std::unordered_map<engine::Id, float, engine::KeyBytesHash> scores;
  for (const index::SearchHit& h : result->hits) scores.emplace(h.id, h.score);
  for (const EventRow& row : search_hits(*result, engine::Filter{}, readable)) {
    auto e = engine::parse_event_json(row.raw);
    if (!e) continue;
    auto ch = row.channel.empty() ? std::nullopt : team_.find_channel(row.channel);
    hits.push_back(json_object({{"event_id", json_string(e->id_hex())},
                                {"content", json_string(e->content)},
                                {"kind", std::to_string(e->kind)},
                                {"pubkey", json_string(e->pubkey_hex())},
                                {"channel_id", ch ? json_string(ch->id) : "null"},
                                {"channel_name", ch ? json_string(ch->name) : "null"},
                                {"created_at", std::to_string(e->created_at)},
                                {"score", std::to_string(scores[e->id])}}));
  }
  // `found` is the number of hits returned, as upstream answers (§7 item 7).
  return net::HttpResponse::json(200, json_object({{"hits", json_array(hits)}, {"found", std::to_string(hits.size())}}));
}

}  // namespace buzz::server
