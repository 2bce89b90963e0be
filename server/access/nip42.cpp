// The NIP-42 AUTH event check; see nip42.h.
#include "server/access/nip42.h"

#include <cstdlib>
#include <string>

#include "engine/clock.h"
#include "engine/kind_numbers.h"
#include "engine/signature.h"
#include "server/common/relay_url.h"

namespace buzz::server {

bool nip42_auth_valid(const engine::Event& e, std::string_view challenge_hex, std::string_view relay_url_normalized) {
  if (e.kind != kind::kAuth) return false;
  std::string reason;
  if (engine::check_event(e, &reason) != engine::EventCheck::kOk) return false;
  if (e.first_tag_value("challenge") != challenge_hex) return false;
  if (normalize_relay_url(e.first_tag_value("relay")) != relay_url_normalized) return false;
  return std::llabs(engine::seconds_from(engine::unix_now(), e.created_at)) <= 60;
}

}  // namespace buzz::server
