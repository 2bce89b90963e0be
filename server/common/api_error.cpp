// The REST error body; see api_error.h.
#include "server/common/api_error.h"

#include <string>

#include "engine/json_text.h"

namespace buzz::server {

net::HttpResponse api_error(int status, std::string_view message) {
  return net::HttpResponse::json(status, json_object({{"error", json_string(message)}}));
}

net::HttpResponse api_error(int status, std::string_view code, std::string_view message) {
  return net::HttpResponse::json(status,
                                 json_object({{"error", json_string(code)}, {"message", json_string(message)}}));
}

}  // namespace buzz::server
