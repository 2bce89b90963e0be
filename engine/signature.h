// BIP-340 Schnorr signatures over event ids (libsecp256k1).
//
// verify() is the most expensive step of ingest (~35 µs); parsing the x-only
// key adds ~5 µs, so each thread keeps a cache of recently parsed keys.
// Thread-safe: the secp256k1 context is read-only after creation and the key
// cache is thread_local.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/event.h"

namespace buzz::engine {

using SecretKey = std::array<uint8_t, 32>;

// True if pubkey is a valid BIP-340 x-only point.
bool is_valid_pubkey(const Pubkey& pubkey);

// Checks sig against id and pubkey.
bool verify_signature(const Id& id, const Pubkey& pubkey, const Sig& sig);

// What check_event() found wrong; the text is the exact wire reason.
enum class EventCheck { kOk, kBadId, kBadSignature };
EventCheck check_event(const Event& e, std::string* reason);

struct Keypair {
  SecretKey secret{};
  Pubkey pubkey{};
};

// A fresh keypair from the OS CSPRNG.
Keypair generate_keypair();
// The keypair for a secret; nullopt if the secret is not a valid key.
std::optional<Keypair> keypair_from_secret(const SecretKey& secret);

// A BIP-340 signature over a 32-byte digest (an event id, or NIP-OA's hash).
Sig sign_digest(const Keypair& key, const Id& digest);

// Fills id, pubkey, sig and raw of e from its created_at, kind, tags and content.
void sign_event(const Keypair& key, Event* e);

// A new event of key's: kind, created_at, tags and content as given, signed by
// sign_event. created_at is the caller's to choose: the relay and the tools stamp
// engine::unix_now() (engine/clock.h, which a test relay runs ahead), a
// translated or replayed event keeps its source's.
Event signed_event(const Keypair& key, uint16_t kind, uint64_t created_at, std::vector<Tag> tags = {},
                   std::string content = {});

// The event object as compact JSON with fields in NIP-01 order.
std::string serialize_event(const Event& e);

// 32 random bytes from the OS CSPRNG.
void random_bytes(uint8_t* out, size_t len);

}  // namespace buzz::engine
