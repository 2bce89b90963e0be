// The web client's files, built into the binary (web_assets.cpp is generated
// at build time by embed.cmake from the esbuild output; see README.md).
#pragma once

#include <string_view>

namespace buzz::server {

struct WebAsset {
  std::string_view path;          // as requested: "/app/app.js"
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view body;
  std::string_view etag;          // quoted strong validator: "\"<sha256 prefix>\""
};

// The asset served at this path, or nullptr. "/index.html" is the page itself.
const WebAsset* find_web_asset(std::string_view path);

}  // namespace buzz::server
