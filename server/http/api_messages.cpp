// Messages, threads and reactions over REST (docs/reference/rest-api.md §3.3, §3.5):
// GET /api/channels/{id}/messages, /api/channels/{id}/threads/{event_id} and
// GET /api/messages/{event_id}/reactions. Everything is read from the store's
// indexes and the `threads` table (engine/thread_row.h): a page costs one
// channel-index scan, one row lookup per message and one reaction query for
// the whole page.
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <unordered_map>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/event_parse.h"
#include "engine/event_record.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "engine/thread_row.h"
#include "server/common/api_error.h"
#include "server/http/http_api.h"
#include "server/http/rest_params.h"
#include "server/relay/receipts.h"

namespace buzz::server {
namespace {

using engine::Id;

constexpr int64_t kDefaultMessages = 50, kMaxMessages = 200;
constexpr int64_t kDefaultReplies = 100, kMaxReplies = 500;
constexpr int64_t kDefaultReactionGroups = 50, kMaxReactionGroups = 200;
// Newest-first scans that must return the oldest rows read at most this many.
constexpr size_t kMaxAscendingScan = 10000;
constexpr size_t kMaxReactionsPerPage = 20000;

// One emoji on one message: who reacted, in reaction order.
struct ReactionGroup {
  std::vector<std::pair<engine::Pubkey, Id>> users;  // (author, reaction event id)
};
using Reactions = std::map<std::string, ReactionGroup>;  // by emoji

}  // namespace

std::optional<engine::ThreadRow> HttpApi::thread_row(const Id& id) {
  auto v = s_.store.get_state(engine::StateTable::kThreads, engine::thread_key(id));
  return v ? engine::ThreadRow::decode(*v) : std::nullopt;
}

namespace {

// Live reactions on each target: one kind-7 query for the whole set. The
// target, author and id come from the index fields; only the emoji is read
// from the stored JSON.
std::unordered_map<Id, Reactions, engine::KeyBytesHash> reactions_on(engine::EventStore& store, const std::vector<Id>& targets) {
  std::unordered_map<Id, Reactions, engine::KeyBytesHash> out;
  if (targets.empty()) return out;
  engine::Filter f;
  f.kinds = std::vector<uint16_t>{kind::kReaction};
  engine::TagFilter e{'e', {}};
  for (const Id& id : targets) e.values.push_back(engine::to_hex(id));
  f.tags.push_back(std::move(e));
  f.normalize();
  engine::QueryOptions opts;
  opts.limit = kMaxReactionsPerPage;
  struct Found {
    Id target, id;
    engine::Pubkey author;
    std::string emoji;
  };
  std::vector<Found> found;  // newest first
  thread_local simdjson::dom::parser parser;
  (void)store.query(f, opts, [&](std::string_view raw, const engine::EventFields& fields) {
    // The target is the last e tag (docs/reference/kinds.md §2.2), as the pipeline resolved it.
    std::optional<Id> target;
    for (const engine::TagRef& t : fields.tags) {
      Id id;
      if (t.name == 'e' && engine::from_hex(t.value, &id)) target = id;
    }
    std::string_view content;
    if (!target || parser.parse(raw)["content"].get(content)) return;
    Found r{*target, id_of(fields), {}, content.empty() ? "+" : std::string(content)};
    std::memcpy(r.author.data(), fields.pubkey, 32);
    found.push_back(std::move(r));
  });
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    if (std::find(targets.begin(), targets.end(), it->target) == targets.end()) continue;
    out[it->target][it->emoji].users.emplace_back(it->author, it->id);
  }
  return out;
}

std::string reaction_counts_json(const Reactions& r) {
  std::vector<std::string> groups;
  for (const auto& [emoji, g] : r) {
    groups.push_back(json_object({{"emoji", json_string(emoji)}, {"count", std::to_string(g.users.size())}}));
  }
  return json_array(groups);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> HttpApi::MessageView::fields(std::string_view channel) const {
  return {{"event_id", json_string(engine::to_hex(id))},   {"pubkey", json_string(engine::to_hex(author))},
          {"content", content_json},                        {"kind", std::to_string(kind)},
          {"created_at", std::to_string(created_at)},       {"channel_id", json_string(channel)},
          {"tags", tags_json}};
}

namespace {

std::string summary_json(const engine::ThreadRow& row) {
  std::vector<std::string> who;
  for (const engine::Pubkey& pk : row.participants) who.push_back(json_string(engine::to_hex(pk)));
  return json_object({{"reply_count", std::to_string(row.reply_count)},
                      {"descendant_count", std::to_string(row.descendant_count)},
                      {"last_reply_at", std::to_string(row.last_reply_at)},
                      {"participants", json_array(who)}});
}

}  // namespace

// A row of a page, read from the stored JSON (content and tags copied as JSON
// text) and the index fields, without decoding the event.
std::optional<HttpApi::MessageView> HttpApi::view_message(std::string_view raw, const engine::EventFields& f) const {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element event;
  if (parser.parse(raw).get(event)) return std::nullopt;
  simdjson::dom::element content, tags;
  if (event["content"].get(content) || event["tags"].get(tags)) return std::nullopt;
  MessageView v;
  v.id = id_of(f);
  std::memcpy(v.author.data(), f.pubkey, 32);
  // A relay-signed message names its human in its first p tag (docs/reference/rest-api.md §3.3).
  if (v.author == key_.pubkey) {
    for (const engine::TagRef& t : f.tags) {
      if (t.name == 'p' && engine::from_hex(t.value, &v.author)) break;
    }
  }
  v.created_at = f.created_at;
  v.kind = f.kind;
  v.content_json = simdjson::to_string(content);
  v.tags_json = simdjson::to_string(tags);
  return v;
}

net::HttpResponse HttpApi::get_messages(const Caller& who, std::string_view channel, const net::HttpRequest& req) {
  if (!engine::is_canonical_uuid(channel)) return api_error(400, "invalid channel UUID");
  if (auto refused = check_channel(who, channel)) return *refused;
  bool bad = false;
  const std::optional<int64_t> limit = query_int(req, "limit", kDefaultMessages, 1, kMaxMessages);
  const std::optional<int64_t> before = optional_query_int(req, "before", &bad), since = optional_query_int(req, "since", &bad);
  if (bad || !limit) return api_error(400, "invalid query parameter: limit, before and since are integers");
  engine::Filter f;
  f.tags.push_back({'h', {std::string(channel)}});
  if (std::string kinds = req.query_param("kinds"); !kinds.empty()) {
    f.kinds.emplace();
    for (size_t start = 0; start <= kinds.size();) {
      size_t end = std::min(kinds.find(',', start), kinds.size());
      uint16_t k = 0;
      auto [p, ec] = std::from_chars(kinds.data() + start, kinds.data() + end, k);
      if (ec != std::errc() || p != kinds.data() + end) {
        return api_error(400, "Invalid 'kinds' parameter — expected comma-separated integers (e.g. '45001' or '9,45001')");
      }
      f.kinds->push_back(k);
      start = end + 1;
    }
  }
  if (before) {
    if (*before <= 0) return net::HttpResponse::json(200, R"({"messages":[],"next_cursor":null})");
    f.until = uint64_t(*before - 1);
  }
  if (since) f.since = uint64_t(std::max<int64_t>(*since, -1)) + 1;  // unsigned: since=INT64_MAX must not overflow
  f.normalize();
  // With only `since`, the page is the oldest rows after it, oldest first.
  const bool ascending = since && !before;

  // Top level: no thread row, depth 0, or a depth-1 reply broadcast to the channel.
  struct Row {
    MessageView message;
    std::optional<engine::ThreadRow> thread;
  };
  std::vector<Row> rows;
  engine::QueryOptions opts;
  opts.limit = ascending ? kMaxAscendingScan : size_t(*limit);
  std::optional<engine::ThreadRow> row;  // of the event accept() just passed to the sink
  opts.accept = [&](const engine::EventFields& fields) {
    row = thread_row(id_of(fields));
    return !row || row->depth == 0 || (row->depth == 1 && row->broadcast);
  };
  auto collect = [&](const engine::Filter& window) {
    return s_.store.query(window, opts, [&](std::string_view raw, const engine::EventFields& fields) {
      if (auto view = view_message(raw, fields)) rows.push_back({std::move(*view), std::move(row)});
    });
  };
  if (!ascending) {
    if (!collect(f)) return api_error(500, "internal server error");
  } else {
    // The store reads newest first, so the oldest rows after `since` are found
    // window by window forward in time: a window holding a whole scan's worth
    // is halved and read again, one holding less is taken (oldest first) and
    // the next one doubles, until the page is full or the clock window ends.
    uint64_t lo = *f.since, span = 3600;
    // Events may be dated up to the ingest clock window ahead, so the walk ends there.
    const uint64_t end = engine::unix_now() + engine::kIngestClockSkewSecs;
    while (rows.size() < size_t(*limit) && lo <= end) {
      engine::Filter window = f;
      window.since = lo;
      window.until = lo + std::min(span, end - lo + 1) - 1;
      const size_t before_window = rows.size();
      if (!collect(window)) return api_error(500, "internal server error");
      if (rows.size() - before_window == kMaxAscendingScan && span > 1) {
        rows.resize(before_window);
        span /= 2;
        continue;
      }
      std::reverse(rows.begin() + long(before_window), rows.end());
      lo = *window.until + 1;
      span *= 2;
    }
    if (rows.size() > size_t(*limit)) rows.resize(size_t(*limit));
  }
  std::vector<Id> ids;
  for (const Row& r : rows) ids.push_back(r.message.id);
  auto reactions = reactions_on(s_.store, ids);
  std::vector<std::string> out;
  for (const Row& r : rows) {
    std::vector<std::pair<std::string, std::string>> fields = r.message.fields(channel);
    if (r.thread && r.thread->reply_count) fields.emplace_back("thread_summary", summary_json(*r.thread));
    if (auto it = reactions.find(r.message.id); it != reactions.end()) {
      fields.emplace_back("reactions", reaction_counts_json(it->second));
    }
    out.push_back(json_object(std::move(fields)));
  }
  std::string cursor = rows.empty() ? "null" : std::to_string(rows.back().message.created_at);
  return net::HttpResponse::json(200, json_object({{"messages", json_array(out)}, {"next_cursor", cursor}}));
}

net::HttpResponse HttpApi::get_thread(const Caller& who, std::string_view channel, std::string_view root_hex,
                                    const net::HttpRequest& req) {
  if (!engine::is_canonical_uuid(channel)) return api_error(400, "invalid channel UUID");
  if (auto refused = check_channel(who, channel)) return *refused;
  Id root;
  if (!engine::from_hex(root_hex, &root)) return api_error(400, "invalid event_id hex");
  auto stored = s_.store.lookup(root);
  if (!stored || stored->deleted) return api_error(404, "event not found");
  if (stored->channel != channel) {
    // Said only to one who may read the event; to others it is absent (docs/access.md).
    if (!readable_event(who, *stored)) return api_error(404, "event not found");
    return api_error(400, "event belongs to a different channel");
  }
  bool bad = false;
  const std::optional<int64_t> limit = query_int(req, "limit", kDefaultReplies, 1, kMaxReplies);
  const std::optional<int64_t> depth_limit = optional_query_int(req, "depth_limit", &bad);
  if (bad || !limit) return api_error(400, "invalid query parameter: limit and depth_limit are integers");
  uint64_t after = 0;
  bool has_cursor = false;
  if (std::string cursor = req.query_param("cursor"); !cursor.empty()) {
    std::array<uint8_t, 8> bytes;
    if (cursor.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos || cursor.size() % 2) {
      return api_error(400, "invalid cursor hex");
    }
    if (cursor.size() != 16 || !engine::from_hex_any_case(cursor, bytes.data(), 8)) {
      return api_error(400, "cursor must be 8 bytes (timestamp)");
    }
    after = engine::get_u64(reinterpret_cast<const char*>(bytes.data()));
    has_cursor = true;
  }
  auto root_event = engine::parse_event_json(stored->raw);
  if (!root_event) return api_error(500, "internal server error");
  engine::EventFields root_fields_view;
  root_fields_view.assign(*root_event, stored->channel);
  auto root_view = view_message(stored->raw, root_fields_view);
  if (!root_view) return api_error(500, "internal server error");
  const std::optional<engine::ThreadRow> root_row = thread_row(root);

  // Every descendant carries an e tag naming the root (docs/reference/channels.md §7); its
  // own thread row says it belongs to this thread.
  struct Reply {
    MessageView message;
    engine::ThreadRow row;
  };
  std::vector<Reply> replies;
  engine::Filter f;
  f.tags.push_back({'h', {std::string(channel)}});
  f.tags.push_back({'e', {engine::to_hex(root)}});
  if (has_cursor) f.since = after + 1;
  f.normalize();
  engine::QueryOptions opts;
  opts.limit = kMaxAscendingScan;
  std::optional<engine::ThreadRow> row;  // of the event accept() just passed to the sink
  opts.accept = [&](const engine::EventFields& fields) {
    row = thread_row(id_of(fields));
    return row && row->depth > 0 && row->root == root && !(depth_limit && int64_t(row->depth) > *depth_limit);
  };
  engine::Status scanned = s_.store.query(f, opts, [&](std::string_view raw, const engine::EventFields& fields) {
    if (auto view = view_message(raw, fields)) replies.push_back({std::move(*view), std::move(*row)});
  });
  if (!scanned) return api_error(500, "internal server error");
  std::reverse(replies.begin(), replies.end());  // oldest first
  if (replies.size() > size_t(*limit)) replies.resize(size_t(*limit));

  std::vector<Id> ids{root};
  for (const Reply& r : replies) ids.push_back(r.message.id);
  auto reactions = reactions_on(s_.store, ids);
  auto with_reactions = [&](std::vector<std::pair<std::string, std::string>>& fields, const Id& id) {
    if (auto it = reactions.find(id); it != reactions.end()) fields.emplace_back("reactions", reaction_counts_json(it->second));
  };
  std::vector<std::pair<std::string, std::string>> root_fields = root_view->fields(channel);
  root_fields.emplace_back("thread_summary", root_row && root_row->reply_count ? summary_json(*root_row) : "null");
  with_reactions(root_fields, root);
  std::vector<std::string> out;
  for (const Reply& r : replies) {
    std::vector<std::pair<std::string, std::string>> fields = r.message.fields(channel);
    fields.insert(fields.end(), {{"parent_event_id", json_string(engine::to_hex(r.row.parent))},
                                 {"root_event_id", json_string(engine::to_hex(r.row.root))},
                                 {"depth", std::to_string(r.row.depth)},
                                 {"broadcast", r.row.broadcast ? "true" : "false"}});
    with_reactions(fields, r.message.id);
    out.push_back(json_object(std::move(fields)));
  }
  std::string cursor = "null";
  if (!replies.empty()) {
    std::string be;
    engine::put_u64(&be, replies.back().message.created_at);
    cursor = json_string(engine::to_hex(reinterpret_cast<const uint8_t*>(be.data()), 8));
  }
  return net::HttpResponse::json(
      200, json_object({{"root", json_object(std::move(root_fields))},
                        {"replies", json_array(out)},
                        {"total_replies", std::to_string(root_row ? root_row->descendant_count : 0)},
                        {"next_cursor", cursor}}));
}

namespace {

// The {event_id} of /api/messages/{event_id}/…: nullopt, or the 400 that refuses it.
std::optional<net::HttpResponse> parse_event_id(std::string_view hex, Id* out) {
  if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos || hex.size() % 2) {
    return api_error(400, "invalid event_id: not valid hex");
  }
  if (!engine::from_hex_any_case(hex, out->data(), out->size()) || hex.size() != 64) {
    return api_error(400, "invalid event_id: must be 32 bytes (64 hex chars)");
  }
  return std::nullopt;
}

}  // namespace

net::HttpResponse HttpApi::get_reactions(const Caller& who, std::string_view target_hex, const net::HttpRequest& req) {
  Id target;
  if (auto refused = parse_event_id(target_hex, &target)) return *refused;
  auto stored = s_.store.lookup(target);
  // An event the caller may not read answers as a missing one (docs/access.md).
  if (!stored || stored->deleted || !readable_event(who, *stored)) return api_error(404, "event not found");
  const std::optional<int64_t> limit = query_int(req, "limit", kDefaultReactionGroups, 1, kMaxReactionGroups);
  if (!limit) return api_error(400, "invalid query parameter: limit is an integer");
  auto reactions = reactions_on(s_.store, {target});
  std::vector<std::string> groups;
  for (const auto& [emoji, g] : reactions[target]) {
    if (groups.size() == size_t(*limit)) break;
    std::vector<std::string> users;
    for (const auto& [pk, id] : g.users) {
      std::string hex = engine::to_hex(pk);
      std::string name = s_.profiles.display_name(pk);  // the first 8 hex characters when there is none (§3.5)
      users.push_back(json_object({{"pubkey", json_string(hex)},
                                   {"display_name", json_string(name.empty() ? hex.substr(0, 8) : name)},
                                   {"reaction_event_id", json_string(engine::to_hex(id))}}));
    }
    groups.push_back(json_object(
        {{"emoji", json_string(emoji)}, {"count", std::to_string(g.users.size())}, {"users", json_array(users)}}));
  }
  return net::HttpResponse::json(200, json_object({{"reactions", json_array(groups)}, {"next_cursor", "null"}}));
}

net::HttpResponse HttpApi::get_receipts(const Caller& who, std::string_view id_hex) {
  Id id;
  if (auto refused = parse_event_id(id_hex, &id)) return *refused;
  DeliveryRecorder* deliveries = relay_.deliveries();
  if (!deliveries) return api_error(503, "delivery receipts are not recorded on this relay");
  const Receipt r = ReceiptReader(s_.store, s_.team, deliveries->log()).of(id, who.pubkey, who.grant);
  switch (r.access) {
    case Receipt::Access::kShown: return net::HttpResponse::json(200, receipt_json(r));
    case Receipt::Access::kNotYours: return api_error(403, "forbidden: only the author or a channel admin sees receipts");
    case Receipt::Access::kHidden: break;
  }
  return api_error(404, "event not found");  // as a missing one (docs/access.md)
}

}  // namespace buzz::server
