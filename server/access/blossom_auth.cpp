// Blossom kind-24242 upload authorization; see blossom_auth.h.
#include "server/access/blossom_auth.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "engine/clock.h"
#include "engine/event_parse.h"
#include "engine/signature.h"
#include "engine/base64.h"

namespace buzz::server {
namespace {

bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); });
}

bool has_tag(const engine::Event& e, std::string_view name, std::string_view value) {
  return std::any_of(e.tags.begin(), e.tags.end(),
                     [&](const engine::Tag& t) { return t.size() >= 2 && t[0] == name && t[1] == value; });
}

// An expiration that does not parse as an integer counts as 0: expired.
int64_t expiration_of(std::string_view text) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && p == text.data() + text.size() ? v : 0;
}

}  // namespace

std::string blossom_server_authority(std::string_view media_server_domain, std::string_view relay_url) {
  if (!media_server_domain.empty()) return std::string(media_server_domain);
  std::string_view default_port;
  if (relay_url.starts_with("wss://")) {
    relay_url.remove_prefix(6);
    default_port = "443";
  } else if (relay_url.starts_with("ws://")) {
    relay_url.remove_prefix(5);
    default_port = "80";
  } else {
    return "";
  }
  std::string authority(relay_url.substr(0, relay_url.find_first_of("/?#")));
  std::transform(authority.begin(), authority.end(), authority.begin(), [](unsigned char c) { return std::tolower(c); });
  size_t colon = authority.rfind(':');
  if (colon != std::string::npos && authority.find(']', colon) == std::string::npos &&
      std::string_view(authority).substr(colon + 1) == default_port) {
    authority.resize(colon);
  }
  return authority;
}

namespace {

// Steps 1–11 for the verb (docs/reference/media.md §2.2): the event, or the reason.
engine::Result<engine::Event> verify_blossom_event(std::string_view authorization, std::string_view verb,
                                                   std::string_view server_authority, uint64_t now, uint64_t max_age_secs) {
  constexpr std::string_view kScheme = "Nostr ";
  if (authorization.empty()) return engine::Error{"missing authorization header"};
  if (!authorization.starts_with(kScheme)) return engine::Error{"invalid authorization scheme"};
  std::string_view token = authorization.substr(kScheme.size());
  std::optional<std::string> json = engine::decode_base64url_unpadded(token);
  if (!json) json = engine::decode_base64_padded(token);
  if (!json) return engine::Error{"invalid base64 encoding"};
  auto parsed = engine::parse_event_json(*json);
  if (!parsed) return engine::Error{"invalid auth event"};
  engine::Event& e = *parsed;
  std::string why;
  if (engine::check_event(e, &why) != engine::EventCheck::kOk) return engine::Error{"invalid signature"};
  if (e.kind != kind::kBlossomAuth) return engine::Error{"invalid auth event kind"};
  if (is_blank(e.content)) return engine::Error{"invalid auth event"};

  bool has_verb = false;
  for (const engine::Tag& t : e.tags) {
    if (t.size() < 2 || t[0] != "t") continue;
    if (t[1] != verb) return engine::Error{"invalid auth verb"};
    has_verb = true;
  }
  if (!has_verb) return engine::Error{"missing required tag: t"};

  const engine::Tag* expiration = e.first_tag("expiration");
  if (!expiration) return engine::Error{"missing required tag: expiration"};
  if (expiration_of((*expiration)[1]) <= int64_t(now)) return engine::Error{"token expired"};
  int64_t age = -engine::seconds_from(now, e.created_at);
  if (age < -kBlossomFutureSkewSecs || age > int64_t(max_age_secs)) {
    return engine::Error{"timestamp out of window"};
  }

  bool any_server = e.first_tag("server") != nullptr;
  if (any_server && (server_authority.empty() || !has_tag(e, "server", server_authority))) return engine::Error{"server mismatch"};
  return std::move(e);
}

}  // namespace

engine::Result<engine::Pubkey> verify_blossom_upload(const BlossomUpload& u, std::string_view server_authority,
                                                     uint64_t now, uint64_t max_age_secs) {
  auto checked = verify_blossom_event(u.authorization, "upload", server_authority, now, max_age_secs);
  if (!checked) return engine::Error{checked.error()};
  const engine::Event& e = *checked;
  if (u.declared_sha256.empty()) return engine::Error{"missing required tag: x-sha-256"};
  if (!engine::is_lower_hex(u.declared_sha256, 32) || !has_tag(e, "x", u.declared_sha256)) return engine::Error{"hash mismatch"};
  if (!u.body_sha256.empty() && !has_tag(e, "x", u.body_sha256)) return engine::Error{"hash mismatch"};
  return e.pubkey;
}

engine::Result<engine::Pubkey> verify_blossom_get(std::string_view authorization, std::string_view sha256,
                                                  std::string_view server_authority, uint64_t now) {
  auto checked = verify_blossom_event(authorization, "get", server_authority, now, kBlossomMaxAgeBeforeBody);
  if (!checked) return engine::Error{checked.error()};
  if (!has_tag(*checked, "x", sha256)) return engine::Error{"hash mismatch"};
  return checked->pubkey;
}

}  // namespace buzz::server
