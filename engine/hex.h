// Lowercase hex encoding for ids, pubkeys and signatures.
// Nostr writes every binary field as lowercase hex; decoding here is strict
// (uppercase is refused) so one byte string has exactly one text form.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace buzz::engine {

using Id = std::array<uint8_t, 32>;
using Pubkey = std::array<uint8_t, 32>;
using Sig = std::array<uint8_t, 64>;

// Hash for ids and pubkeys in unordered containers: their bytes are already
// uniformly distributed, so the first eight are the hash.
struct KeyBytesHash {
  template <size_t N>
  size_t operator()(const std::array<uint8_t, N>& a) const {
    static_assert(N >= sizeof(size_t));
    size_t h;
    std::memcpy(&h, a.data(), sizeof h);
    return h;
  }
};

// A pubkey's 32 raw bytes, as a store key or a record field.
inline std::string_view pubkey_bytes(const Pubkey& pk) { return {reinterpret_cast<const char*>(pk.data()), pk.size()}; }

// Writes 2*len lowercase hex characters to out.
void hex_encode(const uint8_t* data, size_t len, char* out);
std::string to_hex(const uint8_t* data, size_t len);
template <size_t N>
std::string to_hex(const std::array<uint8_t, N>& a) {
  return to_hex(a.data(), N);
}

// Decodes exactly 2*len lowercase hex characters; false on any other input
// (out is then unspecified).
bool hex_decode(std::string_view text, uint8_t* out, size_t len);
template <size_t N>
bool from_hex(std::string_view text, std::array<uint8_t, N>* out) {
  return text.size() == 2 * N && hex_decode(text, out->data(), N);
}

// True if text is exactly 2*len lowercase hex characters: what hex_decode accepts.
bool is_lower_hex(std::string_view text, size_t len);

// True if text is 64 hex characters in either case: an id or a pubkey as a person, a
// config file or another relay may write it (compare after engine::lower).
bool is_hex64(std::string_view text);

// Like from_hex but accepts either case (config values, CLI input).
bool from_hex_any_case(std::string_view text, uint8_t* out, size_t len);

}  // namespace buzz::engine
