// NIP-98 verification; see nip98.h.
#include "server/access/nip98.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/event_parse.h"
#include "engine/signature.h"
#include "engine/base64.h"
#include "server/common/relay_url.h"

namespace buzz::server {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::string nip98_base_url(std::string_view relay_url) {
  size_t b = relay_url.find_first_not_of(" \t\r\n"), e = relay_url.find_last_not_of(" \t\r\n");
  std::string url = b == std::string_view::npos ? "" : std::string(relay_url.substr(b, e - b + 1));
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.starts_with("wss://")) url.replace(0, 3, "https");
  else if (url.starts_with("ws://")) url.replace(0, 2, "http");
  return url;
}

engine::Result<Nip98Signer> verify_nip98(const Nip98Request& r, std::string_view base_url, uint64_t now) {
  std::string_view header = r.authorization;
  if (header.size() < 6 || !equals_ignoring_case(header.substr(0, 6), "Nostr ")) return engine::Error{"missing Nostr auth"};
  auto json = engine::decode_base64(header.substr(6));
  if (!json) return engine::Error{"invalid base64 in Nostr auth"};
  auto event = engine::parse_event_json(*json);
  if (!event) return engine::Error{"invalid NIP-98 event JSON"};
  const engine::Event& e = *event;
  if (e.kind != kind::kHttpAuth) return engine::Error{"NIP-98: kind must be 27235"};
  std::string why;
  if (engine::check_event(e, &why) != engine::EventCheck::kOk) return engine::Error{"NIP-98: " + why};
  if (std::llabs(engine::seconds_from(now, e.created_at)) > kNip98MaxSkewSecs) return engine::Error{"NIP-98: event too old or too new"};
  const engine::Tag* u = e.first_tag("u");
  if (!u || normalize_relay_url((*u)[1]) != normalize_relay_url(std::string(base_url) + std::string(r.path))) {
    return engine::Error{"NIP-98: u tag does not match the request URL"};
  }
  const engine::Tag* method = e.first_tag("method");
  if (!method || !equals_ignoring_case((*method)[1], r.method)) return engine::Error{"NIP-98: method tag does not match the request"};
  const engine::Tag* payload = e.first_tag("payload");
  if (!payload && r.payload_required) return engine::Error{"NIP-98: payload tag required"};
  if (payload && !r.body.empty()) {
    uint8_t digest[32];
    engine::sha256(r.body.data(), r.body.size(), digest);
    if (!equals_ignoring_case((*payload)[1], engine::to_hex(digest, sizeof digest))) {
      return engine::Error{"NIP-98: payload hash does not match the body"};
    }
  }
  return Nip98Signer{e.pubkey, e.id, e.created_at};
}

Nip98ReplayCache::Use Nip98ReplayCache::first_use(const Nip98Signer& signer, uint64_t now) {
  // verify_nip98 accepted it, so created_at lies within 60 s of now: no overflow.
  const uint64_t last_valid = signer.created_at + kNip98MaxSkewSecs;
  std::lock_guard lock(mu_);
  while (!order_.empty() && order_.front().first < now) {
    seen_.erase(order_.front().second);
    order_.pop_front();
  }
  if (seen_.count(signer.event_id)) return Use::kReplay;
  if (order_.size() >= kCapacity) return Use::kFull;
  seen_.insert(signer.event_id);
  order_.emplace_back(last_valid, signer.event_id);
  return Use::kFirst;
}

}  // namespace buzz::server
