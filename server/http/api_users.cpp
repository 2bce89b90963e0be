// Users over REST (docs/reference/rest-api.md §3.11): profiles (one, the caller's, a batch),
// search, the caller's channel_add_policy — all from the ProfileDirectory —
// and a user's global notes (kind 1) and contact list (kind 3), read from the
// store. Every event these return is global: no channel is ever consulted.
#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <unordered_set>

#include "engine/clock.h"
#include "engine/event_parse.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "engine/text.h"
#include "server/common/api_error.h"
#include "server/http/http_api.h"
#include "server/http/rest_params.h"

namespace buzz::server {
namespace {

constexpr size_t kMaxBatchKeys = 200;
constexpr size_t kMaxSearchBytes = 200;
constexpr int64_t kSearchLimit = 8, kMaxSearchLimit = 50;
constexpr int64_t kNotesLimit = 50, kMaxNotesLimit = 100;

// A pubkey named in a path, or the 400 that refuses it.
std::optional<net::HttpResponse> path_pubkey(std::string_view text, engine::Pubkey* out) {
  switch (parse_pubkey(text, out)) {
    case KeyParse::kOk: return std::nullopt;
    case KeyParse::kNotHex: return api_error(400, "invalid pubkey hex");
    case KeyParse::kWrongLength: break;
  }
  return api_error(400, "pubkey must be 32 bytes");
}

// The fields a batch entry and a search hit share.
std::vector<std::pair<std::string, std::string>> summary_fields(const Profile& p) {
  return {{"display_name", json_string_or_null(p.display_name)},
          {"avatar_url", json_string_or_null(p.avatar_url)},
          {"nip05_handle", json_string_or_null(p.nip05_handle)}};
}

std::string profile_json(const Profile& p) {
  auto f = summary_fields(p);
  f.insert(f.end(), {{"pubkey", json_string(engine::to_hex(p.pubkey))},
                     {"about", json_string_or_null(p.about)},
                     {"agent_owner_pubkey", p.agent_owner ? json_string(engine::to_hex(*p.agent_owner)) : "null"}});
  return json_object(std::move(f));
}

}  // namespace

net::HttpResponse HttpApi::get_profile(const Caller& who, std::string_view id) {
  engine::Pubkey pk = who.pubkey;
  if (id != "me") {
    if (auto bad = path_pubkey(id, &pk)) return *bad;
  }
  std::optional<Profile> p = s_.profiles.find(pk);
  // The caller is a user of this relay even before any profile of theirs exists.
  if (!p && pk == who.pubkey) {
    p.emplace();
    p->pubkey = pk;
  }
  if (!p) return api_error(404, "user not found");
  return net::HttpResponse::json(200, profile_json(*p));
}

net::HttpResponse HttpApi::batch_profiles(const Caller&, const net::HttpRequest& req) {
  std::vector<std::string> asked;
  if (auto bad = parse_pubkeys_body(req.body, &asked)) return api_error(bad->status, bad->message);
  if (asked.size() > kMaxBatchKeys) return api_error(400, "max 200 pubkeys per request");
  std::vector<std::pair<std::string, std::string>> found;
  std::vector<std::string> missing;
  std::unordered_set<engine::Pubkey, engine::KeyBytesHash> seen;
  for (const std::string& raw : asked) {
    engine::Pubkey pk;
    if (parse_pubkey(raw, &pk) != KeyParse::kOk) {
      missing.push_back(raw);  // reported as sent
      continue;
    }
    if (!seen.insert(pk).second) continue;
    if (auto p = s_.profiles.find(pk)) {
      found.emplace_back(engine::to_hex(pk), json_object(summary_fields(*p)));
    } else {
      missing.push_back(engine::to_hex(pk));
    }
  }
  return net::HttpResponse::json(
      200, json_object({{"profiles", json_object(std::move(found))}, {"missing", json_string_array(missing)}}));
}

net::HttpResponse HttpApi::search_users(const Caller&, const net::HttpRequest& req) {
  if (!has_query_param(req, "q")) return api_error(400, "Failed to deserialize query string: missing field `q`");
  const std::string q(engine::trim(req.query_param("q")));
  if (q.size() > kMaxSearchBytes) return api_error(400, "search query too long (max 200 characters)");
  std::optional<int64_t> limit = query_int(req, "limit", kSearchLimit, 1, kMaxSearchLimit);
  if (!limit) return api_error(400, "invalid limit");
  std::vector<std::string> users;
  for (const Profile& p : s_.profiles.search(q, size_t(*limit))) {
    auto f = summary_fields(p);
    f.emplace_back("pubkey", json_string(engine::to_hex(p.pubkey)));
    users.push_back(json_object(std::move(f)));
  }
  return net::HttpResponse::json(200, json_object({{"users", json_array(users)}}));
}

net::HttpResponse HttpApi::put_channel_add_policy(const Caller& who, const net::HttpRequest& req) {
  simdjson::dom::parser parser;
  simdjson::dom::element body;
  if (parser.parse(req.body).get(body)) return api_error(400, "request body must be JSON");
  std::string_view value;
  if (body["channel_add_policy"].get(value)) return api_error(422, "missing field `channel_add_policy`");
  std::optional<AddPolicy> policy = parse_add_policy(value);
  if (!policy) return api_error(400, "channel_add_policy must be 'anyone', 'owner_only', or 'nobody'");
  engine::Result<Profile> p = s_.profiles.set_add_policy(who.pubkey, *policy, engine::unix_now_ms());
  if (!p) return api_error(500, "internal server error");
  return net::HttpResponse::json(
      200, json_object({{"channel_add_policy", json_string(add_policy_name(p->channel_add_policy))},
                        {"agent_owner_pubkey", p->agent_owner ? json_string(engine::to_hex(*p->agent_owner)) : "null"}}));
}

net::HttpResponse HttpApi::get_notes(const Caller&, std::string_view id, const net::HttpRequest& req) {
  engine::Pubkey pk;
  if (auto bad = path_pubkey(id, &pk)) return *bad;
  std::optional<int64_t> limit = query_int(req, "limit", kNotesLimit, 1, kMaxNotesLimit);
  if (!limit) return api_error(400, "invalid limit");
  std::optional<int64_t> before = query_int(req, "before", 0, 0, INT64_MAX);
  if (!before) return api_error(400, "invalid before timestamp");
  std::optional<engine::Id> before_id;
  if (has_query_param(req, "before_id")) {
    engine::Id id_bytes;
    std::string text = req.query_param("before_id");
    if (text.size() != 64 || !engine::from_hex_any_case(text, id_bytes.data(), id_bytes.size())) {
      return api_error(400, "invalid before_id hex");
    }
    before_id = id_bytes;
  }
  const bool has_before = has_query_param(req, "before");
  if (before_id && !has_before) return api_error(400, "before_id requires before");

  engine::Filter f;
  f.kinds = std::vector<uint16_t>{kind::kTextNote};
  f.authors = std::vector<engine::Pubkey>{pk};
  engine::QueryOptions options;
  options.limit = size_t(*limit);
  if (has_before && !before_id) {
    if (*before == 0) return net::HttpResponse::json(200, R"({"next_cursor":null,"notes":[]})");
    f.until = uint64_t(*before) - 1;
  } else if (before_id) {
    // Keyset on (created_at desc, id asc): older, or as old with a later id.
    f.until = uint64_t(*before);
    options.accept = [&](const engine::EventFields& e) {
      return e.created_at < uint64_t(*before) || std::memcmp(e.id, before_id->data(), 32) > 0;
    };
  }
  std::vector<std::string> notes;
  std::string cursor = "null";
  (void)s_.store.query(f, options, [&](std::string_view raw, const engine::EventFields&) {
    auto e = engine::parse_event_json(raw);
    if (!e) return;
    notes.push_back(json_object({{"id", json_string(e->id_hex())},
                                 {"pubkey", json_string(e->pubkey_hex())},
                                 {"created_at", std::to_string(e->created_at)},
                                 {"content", json_string(e->content)}}));
    cursor = json_object({{"before", std::to_string(e->created_at)}, {"before_id", json_string(e->id_hex())}});
  });
  if (notes.size() < size_t(*limit)) cursor = "null";  // a cursor only after a full page
  return net::HttpResponse::json(200, json_object({{"notes", json_array(notes)}, {"next_cursor", cursor}}));
}

net::HttpResponse HttpApi::get_contact_list(const Caller&, std::string_view id) {
  engine::Pubkey pk;
  if (auto bad = path_pubkey(id, &pk)) return *bad;
  engine::Filter f;
  f.kinds = std::vector<uint16_t>{kind::kContactList};
  f.authors = std::vector<engine::Pubkey>{pk};
  engine::QueryOptions newest;
  newest.limit = 1;
  std::optional<net::HttpResponse> found;
  (void)s_.store.query(f, newest, [&](std::string_view raw, const engine::EventFields&) {
    auto e = engine::parse_event_json(raw);
    if (!e) return;
    std::vector<std::string> tags;
    for (const engine::Tag& t : e->tags) tags.push_back(json_string_array(t));
    // The event without its signature (docs/reference/rest-api.md §3.11).
    found = net::HttpResponse::json(200, json_object({{"id", json_string(e->id_hex())},
                                                      {"pubkey", json_string(e->pubkey_hex())},
                                                      {"created_at", std::to_string(e->created_at)},
                                                      {"tags", json_array(tags)},
                                                      {"content", json_string(e->content)}}));
  });
  return found ? *found : api_error(404, "contact list not found");
}

}  // namespace buzz::server
