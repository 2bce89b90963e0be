// The proof of a key over HTTP; see key_proof.h.
#include "server/access/key_proof.h"

#include "engine/kind_numbers.h"

namespace buzz::server {

std::variant<KeyProof, ProofError> KeyProver::prove_token(std::string_view token, uint64_t now) {
  if (!token.starts_with(engine::kTokenPrefix)) return ProofError{ProofFailure::kNotAnApiToken, "not an API token"};
  auto found = tokens_.find(engine::hash_token(token));
  if (!found) return ProofError{ProofFailure::kTokenStore, found.error()};
  const std::optional<engine::ApiToken>& t = *found;
  if (!t) return ProofError{ProofFailure::kUnknownToken, "unknown API token"};
  if (t->revoked_at) return ProofError{ProofFailure::kRevokedToken, "revoked API token"};
  if (t->expires_at && t->expires_at < now) return ProofError{ProofFailure::kExpiredToken, "expired API token"};
  tokens_.touch(*t, now);
  return KeyProof{.pubkey = t->owner, .grant = grant_of(*t), .token = t->hash};
}

std::variant<KeyProof, ProofError> KeyProver::prove(const net::HttpRequest& req, const SignedRequestRules& rules,
                                                    uint64_t now) {
  const std::string_view auth = req.header("authorization");
  if (auth.empty()) return ProofError{ProofFailure::kNoAuthorization, "no authorization"};
  if (auth.starts_with("Bearer ")) return prove_token(auth.substr(7), now);
  if (!auth.starts_with("Nostr ")) return ProofError{ProofFailure::kUnknownScheme, "unknown authorization scheme"};
  // The URL signed is one the configuration names, never one the request claims.
  const Nip98Request request{auth, req.method, req.target, rules.body, rules.payload_required};
  auto signer = verify_nip98(request, rules.url, now);
  if (!signer && !rules.other_url.empty() && rules.other_url != rules.url) {
    signer = verify_nip98(request, rules.other_url, now);
  }
  if (!signer) return ProofError{ProofFailure::kSignature, signer.error()};
  return KeyProof{.pubkey = signer->pubkey, .signed_request = *signer, .event_kind = kind::kHttpAuth};
}

KeyProver::Standing KeyProver::standing(const net::HttpRequest& req, const KeyProof& proof, uint64_t now,
                                        bool membership_gate) {
  if (gatekeeper_.banned(proof.pubkey)) return Standing::kBanned;
  if (!membership_gate || !membership_.enforced() || membership_.role(proof.pubkey)) return Standing::kAdmitted;
  switch (gatekeeper_.vouched_by_header(req, proof.pubkey, {proof.event_kind, now})) {
    case Gatekeeper::HeaderVouch::kVouched: return Standing::kAdmitted;
    case Gatekeeper::HeaderVouch::kMultipleHeaders: return Standing::kMultipleVouchHeaders;
    case Gatekeeper::HeaderVouch::kNot: break;
  }
  return Standing::kNotMember;
}

}  // namespace buzz::server
