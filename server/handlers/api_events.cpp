// GET /api/events/{id} (rest-api.md §3.4): one stored event by id, for a caller
// authenticated with NIP-98. Every way of not being allowed to see an event
// answers exactly like a missing one (404), so the endpoint never reveals that
// a private event exists.
#include <algorithm>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "server/relay.h"

namespace buzz::server {
namespace {

// Global kinds a REST caller may read by id; any other global kind is 404.
constexpr uint16_t kReadableGlobalKinds[] = {0, 1, 3, 30023, 30078, 30315};

}  // namespace

net::HttpResponse Relay::get_event(const net::HttpRequest& req, std::string_view id_hex) {
  engine::Pubkey who;
  if (auto refused = authenticate_http(req, &who)) return *refused;
  engine::Id id;
  if (!engine::from_hex(id_hex, &id)) return api_error(400, "invalid event ID");
  auto stored = store_.lookup(id);
  const net::HttpResponse not_found = api_error(404, "event not found");
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
