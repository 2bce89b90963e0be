// API tokens over REST (docs/reference/rest-api.md §3.1): mint (NIP-98 bootstrap or a child
// of a bearer token), list, revoke one, revoke all. A token is shown once, at
// mint; the registry keeps only its hash (engine/api_tokens.h).
#include <simdjson.h>

#include <algorithm>

#include "engine/channel.h"
#include "engine/clock.h"
#include "engine/json_text.h"
#include "server/common/api_error.h"
#include "server/common/log.h"
#include "server/http/http_api.h"
#include "server/http/rest_params.h"

namespace buzz::server {
namespace {

constexpr uint64_t kSecsPerDay = 86400;
constexpr Scope kControllability[] = {Scope::kUsersRead, Scope::kMessagesRead, Scope::kMessagesWrite,
                                      Scope::kChannelsRead};


std::string token_json(const engine::ApiToken& t) {
  return json_object({{"id", json_string(t.id)},
                      {"name", json_string(t.name)},
                      {"scopes", json_string_array(t.scopes)},
                      {"channel_ids", json_string_array(t.channels.value_or(std::vector<std::string>{}))},
                      {"created_at", json_time_or_null(t.created_at)},
                      {"expires_at", json_time_or_null(t.expires_at)},
                      {"last_used_at", json_time_or_null(t.last_used_at)},
                      {"revoked_at", json_time_or_null(t.revoked_at)}});
}

// The body of POST /api/tokens, parsed and shape-checked.
struct MintRequest {
  std::string name;
  std::vector<std::string> scopes;
  bool has_channel_ids = false;  // (not an optional<vector>: GCC 12 warns falsely about it)
  std::vector<std::string> channel_ids;
  std::optional<int64_t> expires_in_days;
  std::optional<std::string> owner_pubkey;
};

std::optional<std::string> parse_mint(std::string_view body, MintRequest* out) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(body).get(root)) return "body is not JSON";
  simdjson::dom::object obj;
  if (root.get(obj)) return "body must be a JSON object";
  std::string_view name;
  if (obj["name"].get(name)) return "missing field `name`";
  out->name = name;
  simdjson::dom::array scopes;
  if (obj["scopes"].get(scopes)) return "missing field `scopes`";
  for (simdjson::dom::element s : scopes) {
    std::string_view v;
    if (s.get(v)) return "scopes must be strings";
    out->scopes.emplace_back(v);
  }
  simdjson::dom::element channels;
  if (!obj["channel_ids"].get(channels) && !channels.is_null()) {
    simdjson::dom::array list;
    if (channels.get(list)) return "channel_ids must be an array";
    out->has_channel_ids = true;
    for (simdjson::dom::element c : list) {
      std::string_view v;
      if (c.get(v)) return "channel_ids must be strings";
      out->channel_ids.emplace_back(v);
    }
  }
  simdjson::dom::element days;
  if (!obj["expires_in_days"].get(days) && !days.is_null()) {
    int64_t d;
    if (days.get(d)) return "expires_in_days must be an integer";
    out->expires_in_days = d;
  }
  simdjson::dom::element owner;
  if (!obj["owner_pubkey"].get(owner) && !owner.is_null()) {
    std::string_view v;
    if (owner.get(v)) return "owner_pubkey must be a string";
    out->owner_pubkey = std::string(v);
  }
  return std::nullopt;
}

// A revoked token ends at once everywhere it is in use (docs/access.md): the
// owner's WebSocket sessions that authenticated with one of her revoked
// tokens close. Requests over HTTP look each token up anew.
void end_revoked_sessions(const engine::ApiTokens& tokens, Relay& relay, const engine::Pubkey& owner) {
  auto owned = tokens.owned_by(owner);
  if (!owned) return log_warn("revoked tokens' sessions not closed", {{"error", owned.error()}});
  std::vector<engine::TokenHash> revoked;
  for (const engine::ApiToken& t : *owned) {
    if (t.revoked_at) revoked.push_back(t.hash);
  }
  if (!revoked.empty()) relay.end_token_sessions(owner, std::move(revoked));
}

}  // namespace

net::HttpResponse HttpApi::mint_token(const Caller& who, const net::HttpRequest& req) {
  MintRequest m;
  if (auto bad = parse_mint(req.body, &m)) return api_error(400, "invalid request body: " + *bad);
  if (m.name.empty() || m.name.size() > 100) return api_error(400, "invalid_name: name must be 1–100 characters");
  if (m.scopes.empty()) return api_error(400, "invalid_scopes: scopes must not be empty");
  Scopes scopes;
  std::vector<std::string> names;
  for (const std::string& s : m.scopes) {
    std::optional<Scope> scope = parse_scope(s);
    if (!scope) return api_error(400, "invalid_scopes", "unknown scope: " + s);
    if (!self_mintable(*scope)) return api_error(400, "invalid_scopes", "scope requires admin: " + s);
    if (scopes.has(*scope)) continue;
    scopes.add(*scope);
    names.push_back(s);
  }
  const bool child = who.token.has_value();
  if (child) {
    for (const std::string& s : names) {
      if (!who.grant.has(*parse_scope(s))) {
        return api_error(403, "scope_escalation", "Cannot mint scope '" + s + "' — not in your token's scopes");
      }
    }
    if (who.grant.channel_restricted()) {
      if (!m.has_channel_ids) {
        return api_error(403, "channel_escalation",
                     "Your token is channel-restricted; minted tokens must also specify channel_ids (subset of yours)");
      }
      for (const std::string& c : m.channel_ids) {
        if (!who.grant.allows_channel(c)) {
          return api_error(403, "channel_escalation", "Cannot mint access to channel " + c + " — not in your token's channel_ids");
        }
      }
    }
  }
  const uint64_t now = engine::unix_now();
  if (uint64_t wait = mint_limiter_.acquire(who.pubkey, now)) {
    s_.throttle.note_rate_limited(who.pubkey, RateLimit::kMint, "");
    std::string message = "Mint limit exceeded: " + std::to_string(options_.mint_rate_limit) +
                          " per hour. Try again in " + std::to_string(wait) + " seconds.";
    return net::HttpResponse::json(429, json_object({{"error", json_string("rate_limited")},
                                                     {"message", json_string(message)},
                                                     {"retry_after_seconds", std::to_string(wait)}}));
  }
  if (m.has_channel_ids && m.channel_ids.empty()) {
    if (who.grant.channel_restricted()) {
      return api_error(403, "channel_escalation",
                   "Your token is channel-restricted; minted tokens must specify non-empty channel_ids (subset of yours)");
    }
    m.has_channel_ids = false;  // [] means "no restriction" at mint time
  }
  if (m.has_channel_ids) {
    for (const std::string& c : m.channel_ids) {
      if (!engine::parses_as_uuid(c) || !engine::is_canonical_uuid(c)) {
        return api_error(400, "invalid_channel_ids", "malformed UUID: " + c);
      }
      auto channel = s_.team.find_channel(c);
      if (!channel || channel->deleted()) return api_error(400, "invalid_channel_ids", "channel not found: " + c);
      if (!s_.team.is_member(c, who.pubkey)) return api_error(403, "not_channel_member", "not a member of channel: " + c);
    }
    std::sort(m.channel_ids.begin(), m.channel_ids.end());
    m.channel_ids.erase(std::unique(m.channel_ids.begin(), m.channel_ids.end()), m.channel_ids.end());
  }
  std::optional<engine::Pubkey> owner;
  if (m.owner_pubkey) {
    if (child) return api_error(403, "owner_pubkey can only be set via NIP-98 auth (bootstrap mint)");
    owner.emplace();
    switch (parse_pubkey(*m.owner_pubkey, &*owner)) {
      case KeyParse::kOk: break;
      case KeyParse::kNotHex: return api_error(400, "invalid owner_pubkey hex");
      case KeyParse::kWrongLength: return api_error(400, "owner_pubkey must be 32 bytes (64 hex chars)");
    }
  }
  if (m.expires_in_days && (*m.expires_in_days < 1 || *m.expires_in_days > 365)) {
    return api_error(400, "invalid expires_in_days: must be 1–365");
  }
  // An owned agent's token must let its owner see and steer it.
  if (owner || s_.profiles.add_rule(who.pubkey).owner) {
    for (Scope s : kControllability) {
      if (!scopes.has(s)) {
        return api_error(400, "owned agents require the '" + std::string(scope_name(s)) + "' scope for controllability");
      }
    }
  }
  if (owner) {  // the first bootstrap mint that names an owner records it (docs/reference/rest-api.md §3.1)
    auto claim = s_.profiles.claim_owner(who.pubkey, *owner);
    if (!claim) return api_error(500, "internal server error");
    if (*claim == ProfileDirectory::OwnerClaim::kOwnedByOther) return api_error(409, "agent already has a different owner");
  }

  auto [secret, hash] = engine::generate_token();
  engine::ApiToken t;
  t.id = engine::random_uuid();
  t.hash = hash;
  t.owner = who.pubkey;
  t.name = m.name;
  t.scopes = names;
  if (m.has_channel_ids) t.channels = m.channel_ids;
  t.created_at = now;
  t.expires_at = m.expires_in_days ? now + uint64_t(*m.expires_in_days) * kSecsPerDay : 0;
  t.self_minted = true;
  auto inserted = s_.tokens.insert(t, now);
  if (!inserted) return api_error(500, "internal server error");
  if (!*inserted) return api_error(409, "token_limit_exceeded", "Maximum of 10 active tokens per pubkey");
  return net::HttpResponse::json(201, json_object({{"id", json_string(t.id)},
                                                   {"token", json_string(secret)},
                                                   {"name", json_string(t.name)},
                                                   {"scopes", json_string_array(t.scopes)},
                                                   {"channel_ids", json_string_array(t.channels.value_or(std::vector<std::string>{}))},
                                                   {"created_at", json_time_or_null(t.created_at)},
                                                   {"expires_at", json_time_or_null(t.expires_at)}}));
}

net::HttpResponse HttpApi::list_tokens(const Caller& who) {
  if (!who.token) return api_error(401, "Bearer token required to list tokens");
  auto tokens = s_.tokens.owned_by(who.pubkey);
  if (!tokens) return api_error(500, "internal server error");
  std::vector<std::string> rows;
  for (const engine::ApiToken& t : *tokens) rows.push_back(token_json(t));
  return net::HttpResponse::json(200, json_object({{"tokens", json_array(rows)}}));
}

net::HttpResponse HttpApi::revoke_token(const Caller& who, std::string_view id) {
  if (!who.token) return api_error(401, "Bearer token required to revoke tokens");
  if (!engine::parses_as_uuid(id)) return api_error(400, "invalid token id");
  auto outcome = s_.tokens.revoke(id, who.pubkey, engine::unix_now());
  if (!outcome) return api_error(500, "internal server error");
  switch (*outcome) {
    case engine::RevokeOutcome::kRevoked:
      end_revoked_sessions(s_.tokens, relay_, who.pubkey);
      return net::HttpResponse{204, "", "", {}, {}};
    case engine::RevokeOutcome::kAlreadyRevoked: return api_error(409, "already_revoked", "Token is already revoked");
    case engine::RevokeOutcome::kNotFound: break;
  }
  return api_error(404, "not_found", "Token not found or not owned by caller");
}

net::HttpResponse HttpApi::revoke_all_tokens(const Caller& who) {
  if (!who.token) return api_error(401, "Bearer token required to revoke tokens");
  auto n = s_.tokens.revoke_all(who.pubkey, engine::unix_now());
  if (!n) return api_error(500, "internal server error");
  if (*n) end_revoked_sessions(s_.tokens, relay_, who.pubkey);
  return net::HttpResponse::json(200, json_object({{"revoked_count", std::to_string(*n)}}));
}

}  // namespace buzz::server
