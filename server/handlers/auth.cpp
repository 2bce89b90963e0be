// AUTH (NIP-42, protocol.md §6.2): the challenge-response that every client
// must pass before EVENT, REQ or COUNT. Every failure is final for the connection.
#include <cstdlib>

#include "engine/clock.h"
#include "engine/signature.h"
#include "server/relay.h"
#include "server/relay_url.h"

namespace buzz::server {

void Relay::handle_auth(Context& c, const engine::Event& e) {
  Session& s = c.session;
  if (s.auth == Session::Auth::kAuthenticated) return send_ok(c, e.id, false, "auth-required: already authenticated");
  if (s.auth == Session::Auth::kFailed) return send_ok(c, e.id, false, "auth-required: authentication already failed");

  auto verified = [&] {
    if (e.kind != 22242) return false;
    std::string reason;
    if (engine::check_event(e, &reason) != engine::EventCheck::kOk) return false;
    if (e.first_tag_value("challenge") != s.challenge_hex()) return false;
    if (normalize_relay_url(e.first_tag_value("relay")) != relay_url_normalized_) return false;
    return std::llabs(engine::seconds_from(engine::unix_now(), e.created_at)) <= 60;
  };
  if (!verified()) {
    s.auth = Session::Auth::kFailed;
    return send_ok(c, e.id, false, "auth-required: verification failed");
  }
  if (membership_.enforced() && !membership_.role(e.pubkey)) {
    s.auth = Session::Auth::kFailed;
    return send_ok(c, e.id, false, "restricted: not a relay member");
  }
  s.auth = Session::Auth::kAuthenticated;
  s.pubkey = e.pubkey;
  send_ok(c, e.id, true, "");
}

}  // namespace buzz::server
