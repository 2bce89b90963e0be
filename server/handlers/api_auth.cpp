// Who is calling the REST API: NIP-98 (rest-api.md §1.3) with its replay cache,
// then the relay-membership gate of a closed relay (§1.5). Bearer API tokens
// join here when they exist.
#include "engine/clock.h"
#include "server/nip98.h"
#include "server/relay.h"

namespace buzz::server {

std::optional<net::HttpResponse> Relay::authenticate_http(const net::HttpRequest& req, engine::Pubkey* who) {
  if (req.header("authorization").empty()) return api_error(401, "authentication required");
  Nip98Request nip98{req.header("authorization"), req.method, req.target, req.body, false};
  auto signer = verify_nip98(nip98, nip98_base_url(config_.effective_relay_url()), engine::unix_now());
  if (!signer) return api_error(401, signer.error());
  if (!nip98_replays_.first_use(signer->event_id, engine::unix_now())) return api_error(401, "NIP-98: replay detected");
  if (membership_.enforced() && !membership_.role(signer->pubkey)) {
    return net::HttpResponse::json(
        403, R"({"error":"relay_membership_required","message":"You must be a relay member to access this relay"})");
  }
  *who = signer->pubkey;
  return std::nullopt;
}

}  // namespace buzz::server
