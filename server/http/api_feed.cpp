// GET /api/feed (docs/reference/rest-api.md §3.7): what needs the caller's eye, in three
// index scans kept current at ingest — mentions (the p-tag index), items
// needing action (the p-tag index) and channel activity (the kind index) —
// each newest first, capped at 100 rows in the store and `limit` per
// category, and each restricted inside the scan to channels the caller may
// read (so a private channel never shapes the page of a non-member).
#include <unordered_map>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/event_parse.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "server/common/api_error.h"
#include "server/http/feed_selection.h"
#include "server/http/http_api.h"
#include "server/http/rest_params.h"

namespace buzz::server {
namespace {

constexpr uint64_t kDefaultWindowSecs = 7 * 86400;
constexpr int64_t kDefaultPerCategory = 20, kMaxPerCategory = 50;
constexpr size_t kStoreCap = 100;  // FEED_MAX_LIMIT: rows one category query may return

bool is_job_kind(uint16_t kind) { return kind >= kind::kJobRequest && kind <= kind::kJobError; }

}  // namespace

net::HttpResponse HttpApi::get_feed(const Caller& who, const net::HttpRequest& req) {
  const uint64_t now = engine::unix_now();
  const int64_t week_ago = int64_t(now > kDefaultWindowSecs ? now - kDefaultWindowSecs : 0);
  std::optional<int64_t> since_param = query_int(req, "since", week_ago, 0, INT64_MAX);
  std::optional<int64_t> limit_param = query_int(req, "limit", kDefaultPerCategory, 1, kMaxPerCategory);
  if (!since_param || !limit_param) return api_error(400, "since and limit must be integers");
  const uint64_t since = uint64_t(*since_param);
  const size_t limit = size_t(*limit_param);
  std::vector<std::string> shown = {"mentions", "needs_action", "activity", "agent_activity"};
  if (std::string types = req.query_param("types"); !types.empty()) {
    shown.clear();
    for (size_t start = 0; start <= types.size();) {
      size_t end = std::min(types.find(',', start), types.size());
      shown.push_back(types.substr(start, end - start));
      start = end + 1;
    }
  }

  // The channels this caller may read (and its token may reach), with what the rows show of them.
  std::unordered_map<std::string, engine::Channel> readable;
  for (const std::string& id : s_.team.readable_channels(who.pubkey)) {
    if (!who.grant.allows_channel(id)) continue;
    if (auto ch = s_.team.find_channel(id)) readable.emplace(id, std::move(*ch));
  }
  std::unordered_map<std::string, std::vector<std::string>> rows;
  const std::string me = engine::to_hex(who.pubkey);
  auto scan = [&](std::string_view type, auto&& category_of) -> bool {
    if (readable.empty()) return true;
    const engine::Filter f = feed_filter(*feed_selection(type), me, since);
    engine::QueryOptions opts;
    opts.limit = std::min(kStoreCap, limit);
    opts.accept = [&](const engine::EventFields& e) { return !e.channel.empty() && readable.count(std::string(e.channel)); };
    engine::Status s = s_.store.query(f, opts, [&](std::string_view raw, const engine::EventFields& fields) {
      auto e = engine::parse_event_json(raw);
      if (!e) return;
      const engine::Channel& ch = readable.at(std::string(fields.channel));
      std::string category = category_of(e->kind);
      std::string tags;
      engine::append_json_tags(tags, e->tags);
      rows[category == "mention" ? "mentions" : category].push_back(json_object({
          {"id", json_string(e->id_hex())},
          {"kind", std::to_string(e->kind)},
          {"pubkey", json_string(e->pubkey_hex())},
          {"content", json_string(e->content)},
          {"created_at", std::to_string(e->created_at)},
          {"channel_id", json_string(ch.id)},
          {"channel_name", json_string(ch.name)},
          {"channel_type", json_string(engine::channel_type_name(ch.type))},
          {"tags", tags},
          {"category", json_string(category)},
      }));
    });
    return bool(s);
  };
  bool ok = scan("mentions", [](uint16_t) { return "mention"; }) &&
            scan("needs_action", [](uint16_t) { return "needs_action"; }) &&
            // One query for both activity lists: they share its limit (§3.7).
            scan("activity", [](uint16_t k) { return is_job_kind(k) ? "agent_activity" : "activity"; });
  if (!ok) return api_error(500, "internal server error");

  std::vector<std::pair<std::string, std::string>> feed;
  size_t total = 0;
  for (const char* name : {"mentions", "needs_action", "activity", "agent_activity"}) {
    if (std::find(shown.begin(), shown.end(), name) == shown.end()) continue;
    total += rows[name].size();
    feed.emplace_back(name, json_array(rows[name]));
  }
  return net::HttpResponse::json(
      200, json_object({{"feed", json_object(std::move(feed))},
                        {"meta", json_object({{"since", std::to_string(since)},
                                              {"total", std::to_string(total)},
                                              {"generated_at", std::to_string(now)}})}}));
}

}  // namespace buzz::server
