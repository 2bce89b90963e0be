// The events of the REST API (docs/reference/rest-api.md §3.4).
//
// POST /api/events runs the very pipeline of a WebSocket EVENT (Relay::ingest)
// with the caller's identity and grant; when the store writer decides, the
// HTTP answer is deferred and sent through answer_event() like an OK frame.
//
// GET /api/events/{id}: every way of not being allowed to see an event answers
// exactly like a missing one (404), so the endpoint never reveals that a
// private event exists.
#include <algorithm>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/event_parse.h"
#include "engine/kind_numbers.h"
#include "server/common/api_error.h"
#include "server/http/http_api.h"

namespace buzz::server {
namespace {

// Global kinds a REST caller may read by id, and the scope each needs; any
// other global kind is 404.
std::optional<Scope> global_read_scope(uint16_t kind) {
  switch (kind) {
    case kind::kProfile:
    case kind::kContactList:
    case kind::kReadState:
    case kind::kUserStatus: return Scope::kUsersRead;
    case kind::kTextNote:
    case kind::kLongFormArticle: return Scope::kMessagesRead;
    default: return std::nullopt;
  }
}

// Refusals that are about who is asking rather than the event answer 403 (§3.4).
bool is_authorization_refusal(std::string_view reason) {
  for (std::string_view prefix : {"invalid: event pubkey does not match", "restricted: insufficient scope",
                                  "restricted: token does not have access", "restricted: channel-scoped tokens",
                                  "restricted: relay admin commands require", "restricted: leave requests require"}) {
    if (reason.starts_with(prefix)) return true;
  }
  return false;
}

}  // namespace

net::HttpResponse HttpApi::event_response(const engine::Id& id, const Verdict& v) {
  (v.accepted ? s_.stats.events_accepted : s_.stats.events_rejected).fetch_add(1, std::memory_order_relaxed);
  if (v.busy) return api_error(503, v.reason);
  if (v.accepted || v.reason.starts_with("duplicate:")) {
    return net::HttpResponse::json(200, json_object({{"event_id", json_string(engine::to_hex(id))},
                                                     {"accepted", v.accepted ? "true" : "false"},
                                                     {"message", json_string(v.reason)}}));
  }
  if (v.reason.starts_with("rate-limited:")) {
    net::HttpResponse r = api_error(429, v.reason);
    r.headers.emplace_back("Retry-After", std::to_string(std::max<uint64_t>(1, v.retry_after)));
    return r;
  }
  if (v.reason.starts_with("error:")) return api_error(v.reason.find("retry") != std::string::npos ? 503 : 500, v.reason);
  return api_error(is_authorization_refusal(v.reason) ? 403 : 400, v.reason);
}

std::optional<net::HttpResponse> HttpApi::post_event(const Caller& who, net::Connection& conn,
                                                   const net::HttpRequest& req) {
  auto parsed = engine::parse_event_json(req.body);
  if (!parsed) return api_error(400, "invalid event JSON: " + parsed.error());
  const engine::Id id = parsed->id;
  Relay::Submitter submitter{conn.id(), who.pubkey, who.grant, true};
  std::optional<Verdict> v = relay_.ingest(submitter, std::move(*parsed));
  if (!v) return std::nullopt;  // the writer answers (on_write_batch)
  return event_response(id, *v);
}

net::HttpResponse HttpApi::get_event(const Caller& who, std::string_view id_hex) {
  engine::Id id;
  if (!engine::from_hex(id_hex, &id)) return api_error(400, "invalid event ID");
  auto stored = s_.store.lookup(id);
  if (!stored || stored->deleted || !readable_event(who, *stored)) return api_error(404, "event not found");
  return net::HttpResponse::json(200, stored->raw);
}

bool HttpApi::readable_event(const Caller& who, const engine::StoredEvent& stored) {
  if (stored.channel.empty()) {
    std::optional<Scope> need = global_read_scope(stored.kind);
    return need && who.grant.has(*need);
  }
  return who.grant.has(Scope::kMessagesRead) && !check_channel(who, stored.channel);
}

}  // namespace buzz::server
