// Reading REST request parameters the same way in every handler: hex pubkeys
// in paths and bodies, integer query parameters, whether a parameter was sent
// at all, and the {"pubkeys": [...]} body several endpoints take. Failures are
// values; each handler words them for its endpoint (docs/reference/rest-api.md §0.1: a body
// that is not JSON is 400, one of the wrong shape 422).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/hex.h"
#include "net/http.h"

namespace buzz::server {

// "{id}/{sub…}" → (id, "/{sub…}"), the sub-path empty when there is none.
// Callers std::tie the pair: their lambdas capture both parts, and clang
// before 16 cannot capture a structured binding.
std::pair<std::string_view, std::string_view> split_id(std::string_view rest);

enum class KeyParse : uint8_t { kOk, kNotHex, kWrongLength };
// 64 hex characters of either case. Odd-length text or a non-hex character is
// kNotHex; whole bytes of the wrong count are kWrongLength.
KeyParse parse_pubkey(std::string_view text, engine::Pubkey* out);

// Whether the query string names this parameter, with or without a value.
bool has_query_param(const net::HttpRequest& req, std::string_view name);

// An integer query parameter that may be left out: nullopt when absent, and
// *bad set when it is present but not an integer.
std::optional<int64_t> optional_query_int(const net::HttpRequest& req, std::string_view name, bool* bad);

// An integer query parameter clamped to [min, max], `fallback` when absent;
// nullopt when it is present but not an integer.
std::optional<int64_t> query_int(const net::HttpRequest& req, std::string_view name, int64_t fallback, int64_t min,
                                 int64_t max);

struct BodyError {
  int status;
  std::string message;
};
// The strings of a JSON body's "pubkeys" array, as sent.
std::optional<BodyError> parse_pubkeys_body(std::string_view body, std::vector<std::string>* out);

}  // namespace buzz::server
