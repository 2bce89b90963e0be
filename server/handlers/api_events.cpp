// GET /api/events/{id} (rest-api.md §3.4): one stored event by id, for a caller
// authenticated with NIP-98. Every way of not being allowed to see an event
// answers exactly like a missing one (404), so the endpoint never reveals that
// a private event exists.
#include <algorithm>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "server/nip98.h"
#include "server/relay.h"

namespace buzz::server {
namespace {

// Global kinds a REST caller may read by id; any other global kind is 404.
constexpr uint16_t kReadableGlobalKinds[] = {0, 1, 3, 30023, 30078, 30315};

net::HttpResponse error(int status, std::string_view text) {
  std::string body = "{\"error\":";
  engine::append_json_string(body, text);
  return net::HttpResponse::json(status, body + "}");
}

}  // namespace

std::optional<net::HttpResponse> Relay::authenticate_http(const net::HttpRequest& req, engine::Pubkey* who) {
  if (req.header("authorization").empty()) return error(401, "authentication required");
  Nip98Request nip98{req.header("authorization"), req.method, req.target, req.body, false};
  auto signer = verify_nip98(nip98, nip98_base_url(config_.effective_relay_url()), engine::unix_now());
  if (!signer) return error(401, signer.error());
  if (!nip98_replays_.first_use(signer->event_id, engine::unix_now())) return error(401, "NIP-98: replay detected");
  if (membership_.enforced() && !membership_.role(signer->pubkey)) {
    return net::HttpResponse::json(
        403, R"({"error":"relay_membership_required","message":"You must be a relay member to access this relay"})");
  }
  *who = signer->pubkey;
  return std::nullopt;
}

net::HttpResponse Relay::get_event(const net::HttpRequest& req, std::string_view id_hex) {
  engine::Pubkey who;
  if (auto refused = authenticate_http(req, &who)) return *refused;
  engine::Id id;
  if (!engine::from_hex(id_hex, &id)) return error(400, "invalid event ID");
  auto stored = store_.lookup(id);
  const net::HttpResponse not_found = error(404, "event not found");
  if (!stored || stored->deleted) return not_found;
  if (stored->channel.empty()) {
    if (std::find(std::begin(kReadableGlobalKinds), std::end(kReadableGlobalKinds), stored->kind) ==
        std::end(kReadableGlobalKinds)) {
      return not_found;
    }
  } else if (!team_.can_read(stored->channel, who)) {
    return not_found;
  }
  return net::HttpResponse::json(200, stored->raw);
}

}  // namespace buzz::server
