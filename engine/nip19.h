// NIP-19 bech32 keys: `npub1…` and `nsec1…` (BIP-173 bech32, 32-byte payload),
// as the original's CLI, harness and admin tool accept them beside hex.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/signature.h"

namespace buzz::engine {

std::string encode_npub(const Pubkey& pk);
std::string encode_nsec(const SecretKey& sk);

// The 32 bytes of a bech32 string with this prefix ("npub", "nsec"); nullopt if
// the prefix, the checksum, the padding or the length is wrong. Either case,
// not mixed (BIP-173).
std::optional<std::array<uint8_t, 32>> decode_bech32_key(std::string_view text, std::string_view prefix);

// A secret key given as 64 hex characters (either case) or as nsec1….
std::optional<Keypair> parse_secret_key(std::string_view text);

}  // namespace buzz::engine
