#include "server/access/nip_oa.h"

#include <simdjson.h>

#include <charconv>

#include "engine/canonical.h"
#include "engine/json_text.h"

namespace buzz::server {
namespace {

std::optional<OwnerAttestation> from_parts(std::string_view owner, std::string_view conditions, std::string_view sig) {
  OwnerAttestation a;
  if (!engine::from_hex_any_case(owner, a.owner.data(), a.owner.size())) return std::nullopt;
  if (!engine::from_hex_any_case(sig, a.sig.data(), a.sig.size())) return std::nullopt;
  a.conditions = std::string(conditions);
  return a;
}

engine::Id statement_digest(const engine::Pubkey& agent, std::string_view conditions) {
  const std::string statement = "nostr:agent-auth:" + engine::to_hex(agent) + ":" + std::string(conditions);
  engine::Id digest;
  engine::sha256(statement.data(), statement.size(), digest.data());
  return digest;
}

bool parse_u64(std::string_view s, uint64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

// NIP-26's rules: any one of the kind clauses, and every created_at bound.
// An unknown or malformed clause fails the whole attestation.
bool conditions_hold(std::string_view text, const AttestedUse& use) {
  bool any_kind = false, kind_matched = false;
  while (!text.empty()) {
    size_t amp = text.find('&');
    std::string_view clause = text.substr(0, amp);
    text = amp == std::string_view::npos ? std::string_view() : text.substr(amp + 1);
    uint64_t n;
    if (clause.starts_with("kind=")) {
      if (!parse_u64(clause.substr(5), &n)) return false;
      any_kind = true;
      kind_matched |= use.kind && *use.kind == n;
    } else if (clause.starts_with("created_at<")) {
      if (!parse_u64(clause.substr(11), &n) || !(use.created_at < n)) return false;
    } else if (clause.starts_with("created_at>")) {
      if (!parse_u64(clause.substr(11), &n) || !(use.created_at > n)) return false;
    } else {
      return false;
    }
  }
  return !any_kind || kind_matched;
}

}  // namespace

std::optional<OwnerAttestation> attestation_of(const engine::Event& e) {
  const engine::Tag* found = nullptr;
  for (const engine::Tag& t : e.tags) {
    if (t.empty() || t[0] != "auth") continue;
    if (found) return std::nullopt;  // two or more count as none
    found = &t;
  }
  if (!found || found->size() < 4) return std::nullopt;
  return from_parts((*found)[1], (*found)[2], (*found)[3]);
}

engine::Result<OwnerAttestation> parse_attestation_json(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::array arr;
  if (parser.parse(json.data(), json.size()).get_array().get(arr)) return engine::Error{"X-Auth-Tag is not a JSON array"};
  std::string_view parts[4];
  size_t n = 0;
  for (simdjson::dom::element el : arr) {
    if (n == 4 || el.get_string().get(parts[n])) return engine::Error{"X-Auth-Tag must be [\"auth\", owner, conditions, sig]"};
    ++n;
  }
  if (n != 4 || parts[0] != "auth") return engine::Error{"X-Auth-Tag must be [\"auth\", owner, conditions, sig]"};
  auto a = from_parts(parts[1], parts[2], parts[3]);
  if (!a) return engine::Error{"X-Auth-Tag owner or signature is not hex"};
  return *a;
}

bool attestation_valid(const OwnerAttestation& a, const engine::Pubkey& agent, const AttestedUse& use) {
  return conditions_hold(a.conditions, use) && engine::verify_signature(statement_digest(agent, a.conditions), a.owner, a.sig);
}

OwnerAttestation sign_attestation(const engine::Keypair& owner, const engine::Pubkey& agent, std::string conditions) {
  OwnerAttestation a{owner.pubkey, std::move(conditions), {}};
  a.sig = engine::sign_digest(owner, statement_digest(agent, a.conditions));
  return a;
}

std::string attestation_json(const OwnerAttestation& a) {
  return json_string_array(
      std::vector<std::string>{"auth", engine::to_hex(a.owner), a.conditions, engine::to_hex(a.sig)});
}

}  // namespace buzz::server
