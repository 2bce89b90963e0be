// Admission beyond membership; see gatekeeper.h.
#include "server/access/gatekeeper.h"

#include "server/common/log.h"

namespace buzz::server {

void Gatekeeper::restrict_to(const std::vector<engine::AllowedPubkey>& allowed) {
  allowlist_.emplace();
  for (const engine::AllowedPubkey& a : allowed) allowlist_->insert(a.pubkey);
}

bool Gatekeeper::vouched_by_owner(const std::optional<OwnerAttestation>& a, const engine::Pubkey& agent,
                                 const AttestedUse& use) {
  if (!allow_nip_oa_ || !a || !membership_.role(a->owner) || !attestation_valid(*a, agent, use)) return false;
  // First write wins: an agent already owned by someone else keeps that owner.
  if (auto claimed = profiles_.claim_owner(agent, a->owner); !claimed) {
    log_warn("NIP-OA owner link not recorded", {{"error", claimed.error()}});
  }
  return true;
}

bool Gatekeeper::admitted(const engine::Pubkey& pk) const {
  if (!membership_.enforced() || membership_.role(pk)) return true;
  if (!allow_nip_oa_) return false;
  std::optional<Profile> profile = profiles_.find(pk);
  return profile && profile->agent_owner && membership_.role(*profile->agent_owner);
}

Gatekeeper::HeaderVouch Gatekeeper::vouched_by_header(const net::HttpRequest& req, const engine::Pubkey& agent,
                                                        const AttestedUse& use) {
  std::optional<std::string_view> header;
  for (const auto& [name, value] : req.headers) {
    if (name != "x-auth-tag") continue;
    if (header) return HeaderVouch::kMultipleHeaders;
    header = value;
  }
  if (!header) return HeaderVouch::kNot;
  auto parsed = parse_attestation_json(*header);
  std::optional<OwnerAttestation> a;
  if (parsed) a = std::move(*parsed);
  return vouched_by_owner(a, agent, use) ? HeaderVouch::kVouched : HeaderVouch::kNot;
}

}  // namespace buzz::server
