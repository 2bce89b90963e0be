// Serves the embedded web client: the page at GET / for browsers (Accept
// containing text/html) and its assets under /app/, with ETags and a
// Content-Security-Policy that allows only this origin and its WebSocket.
#pragma once

#include <optional>

#include "net/http.h"

namespace buzz::server {

// The answer for a GET/HEAD the web client owns, or nullopt when the request
// is not the client's (NIP-11 and the API keep their paths).
std::optional<net::HttpResponse> web_client_response(const net::HttpRequest& req);

}  // namespace buzz::server
