// GET /.well-known/nostr.json?name=<local> (NIP-05, docs/reference/rest-api.md §3.15): the
// pubkey holding "<local>@<relay host>" and the relay to find it on. No
// authentication; every miss is the same empty document with status 200.
#include <cctype>

#include "engine/json_text.h"
#include "server/http/http_api.h"

namespace buzz::server {

net::HttpResponse HttpApi::nip05_names(const net::HttpRequest& req) const {
  std::string name = req.query_param("name");
  for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
  std::optional<engine::Pubkey> pk;
  if (!name.empty()) pk = s_.profiles.by_nip05(name + "@" + s_.profiles.nip05_domain());
  if (!pk) return net::HttpResponse::json(200, R"({"names":{},"relays":{}})");
  const std::string hex = engine::to_hex(*pk);
  return net::HttpResponse::json(
      200, json_object({{"names", json_object({{name, json_string(hex)}})},
                        {"relays", json_object({{hex, json_string_array(std::vector{options_.relay_url})}})}}));
}

}  // namespace buzz::server
