// Schnorr signatures; see signature.h.
#include "engine/signature.h"

#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>
#include <sys/random.h>

#include <cstring>
#include <memory>
#include <utility>

#include "engine/canonical.h"

namespace buzz::engine {
namespace {

const secp256k1_context* context() {
  static const secp256k1_context* ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  return ctx;
}

// A direct-mapped cache of parsed x-only keys: chat traffic comes from a small
// set of active authors, and a slot costs 96 bytes.
class KeyCache {
 public:
  const secp256k1_xonly_pubkey* get(const Pubkey& pk) {
    uint64_t h;
    std::memcpy(&h, pk.data(), sizeof h);  // pubkeys are uniformly distributed
    Slot& slot = slots_[h % kSlots];
    if (slot.valid && slot.pubkey == pk) return &slot.parsed;
    if (!secp256k1_xonly_pubkey_parse(context(), &slot.parsed, pk.data())) {
      slot.valid = false;
      return nullptr;
    }
    slot.pubkey = pk;
    slot.valid = true;
    return &slot.parsed;
  }

 private:
  static constexpr size_t kSlots = 4096;
  struct Slot {
    Pubkey pubkey;
    secp256k1_xonly_pubkey parsed;
    bool valid = false;
  };
  Slot slots_[kSlots];
};

KeyCache& key_cache() {
  thread_local auto cache = std::make_unique<KeyCache>();
  return *cache;
}

}  // namespace

void random_bytes(uint8_t* out, size_t len) {
  while (len > 0) {
    ssize_t n = getrandom(out, len, 0);
    if (n > 0) {
      out += n;
      len -= size_t(n);
    }
  }
}

bool is_valid_pubkey(const Pubkey& pubkey) { return key_cache().get(pubkey) != nullptr; }

bool verify_signature(const Id& id, const Pubkey& pubkey, const Sig& sig) {
  const secp256k1_xonly_pubkey* pk = key_cache().get(pubkey);
  return pk && secp256k1_schnorrsig_verify(context(), sig.data(), id.data(), id.size(), pk) == 1;
}

EventCheck check_event(const Event& e, std::string* reason) {
  Id computed = compute_id(e);
  if (computed != e.id) {
    *reason = "invalid: invalid event id: computed " + to_hex(computed) + ", got " + to_hex(e.id);
    return EventCheck::kBadId;
  }
  if (!verify_signature(e.id, e.pubkey, e.sig)) {
    *reason = "invalid: invalid schnorr signature";
    return EventCheck::kBadSignature;
  }
  return EventCheck::kOk;
}

std::optional<Keypair> keypair_from_secret(const SecretKey& secret) {
  secp256k1_keypair kp;
  if (!secp256k1_keypair_create(context(), &kp, secret.data())) return std::nullopt;
  secp256k1_xonly_pubkey xonly;
  Keypair out;
  out.secret = secret;
  if (!secp256k1_keypair_xonly_pub(context(), &xonly, nullptr, &kp) ||
      !secp256k1_xonly_pubkey_serialize(context(), out.pubkey.data(), &xonly)) {
    return std::nullopt;
  }
  return out;
}

Keypair generate_keypair() {
  for (;;) {
    SecretKey secret;
    random_bytes(secret.data(), secret.size());
    if (auto kp = keypair_from_secret(secret)) return *kp;
  }
}

std::string serialize_event(const Event& e) {
  std::string out;
  out.reserve(256 + e.content.size());
  out.append("{\"id\":\"").append(to_hex(e.id));
  out.append("\",\"pubkey\":\"").append(to_hex(e.pubkey));
  out.append("\",\"created_at\":").append(std::to_string(e.created_at));
  out.append(",\"kind\":").append(std::to_string(e.kind));
  out.append(",\"tags\":");
  append_json_tags(out, e.tags);
  out.append(",\"content\":");
  append_json_string(out, e.content);
  out.append(",\"sig\":\"").append(to_hex(e.sig)).append("\"}");
  return out;
}

Sig sign_digest(const Keypair& key, const Id& digest) {
  secp256k1_keypair kp;
  bool created = secp256k1_keypair_create(context(), &kp, key.secret.data());
  uint8_t aux[32];
  random_bytes(aux, sizeof aux);
  Sig sig;
  bool signed_ok = created && secp256k1_schnorrsig_sign32(context(), sig.data(), digest.data(), &kp, aux);
  if (!signed_ok) std::abort();  // a Keypair always holds a valid secret
  return sig;
}

void sign_event(const Keypair& key, Event* e) {
  e->pubkey = key.pubkey;
  e->id = compute_id(*e);
  e->sig = sign_digest(key, e->id);
  e->raw = serialize_event(*e);
}

Event signed_event(const Keypair& key, uint16_t kind, uint64_t created_at, std::vector<Tag> tags, std::string content) {
  Event e;
  e.kind = kind;
  e.created_at = created_at;
  e.tags = std::move(tags);
  e.content = std::move(content);
  sign_event(key, &e);
  return e;
}

}  // namespace buzz::engine
