// REST request parameters; see rest_params.h.
#include "server/http/rest_params.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>

namespace buzz::server {

std::pair<std::string_view, std::string_view> split_id(std::string_view rest) {
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return {rest, {}};
  return {rest.substr(0, slash), rest.substr(slash)};
}

KeyParse parse_pubkey(std::string_view text, engine::Pubkey* out) {
  if (text.size() % 2 || text.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos) {
    return KeyParse::kNotHex;
  }
  if (text.size() != 64) return KeyParse::kWrongLength;
  return engine::from_hex_any_case(text, out->data(), out->size()) ? KeyParse::kOk : KeyParse::kNotHex;
}

bool has_query_param(const net::HttpRequest& req, std::string_view name) {
  std::string_view q = req.query;
  while (!q.empty()) {
    std::string_view pair = q.substr(0, q.find('&'));
    if (pair.substr(0, pair.find('=')) == name) return true;
    if (pair.size() == q.size()) break;
    q.remove_prefix(pair.size() + 1);
  }
  return false;
}

std::optional<int64_t> optional_query_int(const net::HttpRequest& req, std::string_view name, bool* bad) {
  if (!has_query_param(req, name)) return std::nullopt;
  const std::string text = req.query_param(name);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    *bad = true;
    return std::nullopt;
  }
  return v;
}

std::optional<int64_t> query_int(const net::HttpRequest& req, std::string_view name, int64_t fallback, int64_t min,
                                 int64_t max) {
  bool bad = false;
  std::optional<int64_t> v = optional_query_int(req, name, &bad);
  if (bad) return std::nullopt;
  return std::clamp(v.value_or(fallback), min, max);
}

std::optional<BodyError> parse_pubkeys_body(std::string_view body, std::vector<std::string>* out) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(body).get(root)) return BodyError{400, "request body must be JSON"};
  simdjson::dom::array keys;
  const BodyError shape{422, "request body must have a \"pubkeys\" array of strings"};
  if (root["pubkeys"].get(keys)) return shape;
  for (simdjson::dom::element k : keys) {
    std::string_view v;
    if (k.get(v)) return shape;
    out->emplace_back(v);
  }
  return std::nullopt;
}

}  // namespace buzz::server
