// The REST error body; see api_error.h.
#include "server/common/api_error.h"

#include <string>

#include "engine/canonical.h"

namespace buzz::server {

net::HttpResponse api_error(int status, std::string_view message) {
  std::string body = "{\"error\":";
  engine::append_json_string(body, message);
  return net::HttpResponse::json(status, body + "}");
}

net::HttpResponse api_error(int status, std::string_view code, std::string_view message) {
  std::string body = "{\"error\":";
  engine::append_json_string(body, code);
  body += ",\"message\":";
  engine::append_json_string(body, message);
  return net::HttpResponse::json(status, body + "}");
}

}  // namespace buzz::server
