// GET /api/search (docs/reference/rest-api.md §3.6): full-text search within the caller's
// read scope (server/relay/history.h), newest first.
#include <algorithm>
#include <unordered_map>

#include "engine/event_parse.h"
#include "engine/json_text.h"
#include "server/common/api_error.h"
#include "server/common/log.h"
#include "server/http/http_api.h"
#include "server/http/rest_params.h"

namespace buzz::server {
namespace {

constexpr int64_t kDefaultRestLimit = 20, kMaxRestLimit = 100;

}  // namespace

net::HttpResponse HttpApi::get_search(const Caller& who, const net::HttpRequest& req) {
  if (!s_.history.search_index()) return api_error(503, "full-text search is not enabled on this relay");
  index::SearchQuery q = s_.history.search_scope(who.pubkey, who.grant);
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
  auto result = s_.history.search_index()->search(q);
  if (!result) {
    // A backend error degrades to no hits (docs/reference/rest-api.md §3.6); the reason goes to the log.
    log_info("search degraded to no hits", {{"error", result.error()}});
    return empty;
  }
  const Readable readable = s_.history.readable_to(who.grant, who.pubkey);
  std::vector<std::string> hits;
  std::unordered_map<engine::Id, float, engine::KeyBytesHash> scores;
  for (const index::SearchHit& h : result->hits) scores.emplace(h.id, h.score);
  for (const EventRow& row : s_.history.search_hits(*result, engine::Filter{}, readable)) {
    auto e = engine::parse_event_json(row.raw);
    if (!e) continue;
    auto ch = row.channel.empty() ? std::nullopt : s_.team.find_channel(row.channel);
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
