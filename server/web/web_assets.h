// The web client's files, built into the binary (web_assets.cpp is generated
// at build time by embed.cmake from the esbuild output; see README.md).
#pragma once

#include <string_view>

namespace buzz::server {

struct WebAsset {
  std::string_view path;          // as requested: "/app/app.js"
  std::string_view hashed_path;   // the same by its content hash: "/app/app-0123456789ab.js" (index.html's own path for it)
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view body;
  std::string_view brotli;        // body, compressed at build time
  std::string_view gzip;
  std::string_view etag;          // of body, unquoted: "<sha256 prefix>" (a compressed copy's gets "-br"/"-gz")
};

// The asset served at this path (by its name or its hashed name), or nullptr.
// "/index.html" is the page itself.
const WebAsset* find_web_asset(std::string_view path);

}  // namespace buzz::server
