// Fuzz target: the base64 in `Authorization: Nostr …` headers (NIP-98, Blossom).
//
// The lenient decoder must accept everything either strict one accepts, with
// the same bytes, and no decoder may produce more than 3 bytes per 4 characters.
// Every input, encoded either way, decodes back to itself.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/base64.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto lenient = buzz::engine::decode_base64(text);
  auto url = buzz::engine::decode_base64url_unpadded(text);
  auto padded = buzz::engine::decode_base64_padded(text);
  for (const auto* decoded : {&lenient, &url, &padded})
    if (*decoded) FUZZ_CHECK((*decoded)->size() <= (size + 3) / 4 * 3);
  if (url) FUZZ_CHECK(lenient && *lenient == *url);
  if (padded) FUZZ_CHECK(lenient && *lenient == *padded);
  FUZZ_CHECK(buzz::engine::decode_base64_padded(buzz::engine::encode_base64(text)) == text);
  FUZZ_CHECK(buzz::engine::decode_base64url_unpadded(buzz::engine::encode_base64url_unpadded(text)) == text);
  return 0;
}
