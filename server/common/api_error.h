// The REST error body (docs/reference/rest-api.md §0.1), shared by every room that answers
// HTTP: the API, media, and the rate limits' 429.
#pragma once

#include <string_view>

#include "net/http.h"

namespace buzz::server {

// {"error": message} with the status.
net::HttpResponse api_error(int status, std::string_view message);
// {"error": code, "message": message}: the coded form of auth and token errors.
net::HttpResponse api_error(int status, std::string_view code, std::string_view message);

}  // namespace buzz::server
