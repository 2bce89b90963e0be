#include "tools/proxy/admin_api.h"

#include <simdjson.h>

#include "engine/canonical.h"
#include "engine/channel.h"
#include "engine/hex.h"
#include "engine/json_text.h"
#include "engine/text.h"
#include "tools/proxy/translate.h"

namespace buzz::proxy {

namespace {

net::HttpResponse error(int status, std::string_view text) {
  return net::HttpResponse::json(status, json_object({{"error", json_string(text)}}));
}

// The pubkey field: 64 hex characters; the error follows "invalid pubkey: ".
std::optional<std::string> pubkey_problem(std::string_view pk) {
  if (pk.size() != 64) return "expected 64 hex characters, got " + std::to_string(pk.size());
  if (!engine::is_hex64(pk)) return std::string("not hex");
  return std::nullopt;
}

}  // namespace

bool AdminApi::authorized(const net::HttpRequest& req) const {
  if (!secret_) return true;
  std::string_view h = req.header("authorization");
  if (!h.starts_with("Bearer ")) return false;
  h.remove_prefix(7);
  // Both sides hashed, then compared without an early exit.
  uint8_t a[32], b[32];
  engine::sha256(h.data(), h.size(), a);
  engine::sha256(secret_->data(), secret_->size(), b);
  uint8_t diff = 0;
  for (size_t i = 0; i < 32; ++i) diff |= uint8_t(a[i] ^ b[i]);
  return diff == 0;
}

std::optional<net::HttpResponse> AdminApi::handle(const net::HttpRequest& req, uint64_t now) {
  if (!req.path.starts_with("/admin/")) return std::nullopt;
  if (!authorized(req)) return error(401, "unauthorized: missing or invalid Authorization header");
  if (req.path == "/admin/guests") {
    if (req.method == "POST") return add_guest(req.body);
    if (req.method == "DELETE") return remove_guest(req.body);
    if (req.method == "GET") return list_guests();
    return error(405, "method not allowed");
  }
  if (req.path == "/admin/invite") {
    if (req.method == "POST") return create_invite(req.body, now);
    return error(405, "method not allowed");
  }
  return error(404, "not found");
}

net::HttpResponse AdminApi::add_guest(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc) || !doc.is_object()) return error(400, "invalid JSON body");
  std::string_view pk, channels_csv;
  if (doc["pubkey"].get_string().get(pk)) return error(400, "invalid pubkey: missing");
  if (auto problem = pubkey_problem(pk)) return error(400, "invalid pubkey: " + *problem);
  if (doc["channels"].get_string().get(channels_csv)) channels_csv = {};
  std::vector<std::string> channels = parse_channel_list_csv(channels_csv);
  if (channels.empty()) return error(400, "at least one valid channel UUID required");
  book_.add_guest(engine::lower(pk), channels);
  return net::HttpResponse::json(200, JsonFields().string("pubkey", pk).json("channels", json_string_array(channels)).str());
}

net::HttpResponse AdminApi::remove_guest(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc) || !doc.is_object()) return error(400, "invalid JSON body");
  std::string_view pk;
  if (doc["pubkey"].get_string().get(pk)) return error(400, "invalid pubkey: missing");
  if (auto problem = pubkey_problem(pk)) return error(400, "invalid pubkey: " + *problem);
  const std::string key = engine::lower(pk);
  if (!book_.remove_guest(key)) return error(404, "pubkey not registered");
  if (on_revoke_) on_revoke_(key);
  return net::HttpResponse::json(200, JsonFields().boolean("revoked", true).str());
}

net::HttpResponse AdminApi::list_guests() const {
  std::vector<std::string> guests;
  for (const auto& [pk, channels] : book_.guests()) {
    guests.push_back(JsonFields().string("pubkey", pk).json("channels", json_string_array(channels)).str());
  }
  return net::HttpResponse::json(200, json_object({{"guests", json_array(guests)}}));
}

net::HttpResponse AdminApi::create_invite(const std::string& body, uint64_t now) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc) || !doc.is_object()) return error(400, "invalid JSON body");
  std::string_view channels_csv;
  if (doc["channels"].get_string().get(channels_csv)) channels_csv = {};
  std::vector<std::string> channels = parse_channel_list_csv(channels_csv);
  if (channels.empty()) return error(400, "at least one valid channel UUID required");
  int64_t hours = 24, max_uses = 10;
  auto number = [&](const char* key, int64_t* out) {
    simdjson::dom::element v;
    if (doc[key].get(v)) return true;  // absent: the default
    return !v.get_int64().get(*out);
  };
  if (!number("hours", &hours) || !number("max_uses", &max_uses) || hours <= 0 || max_uses <= 0 ||
      hours > 24 * 365 * 100 || max_uses > 0xffffffffLL) {
    return error(400, "hours and max_uses must be > 0");
  }
  const uint64_t expires = now + uint64_t(hours) * 3600;
  std::string token = book_.create_invite(channels, expires, uint32_t(max_uses));
  return net::HttpResponse::json(200, JsonFields()
                                          .string("token", token)
                                          .json("channels", json_string_array(channels))
                                          .string("expires_at", engine::rfc3339(expires))
                                          .number("max_uses", max_uses)
                                          .str());
}

}  // namespace buzz::proxy
