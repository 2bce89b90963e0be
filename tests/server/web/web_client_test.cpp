// What the embedded web client answers (server/web/web_client.h): the page for
// a browser at "/" and nothing for anyone else there, its scripts by name and
// by content hash (cached for good only by the hash), the coding the browser
// accepts, a 304 on the ETag of that coding, and a Content-Security-Policy
// that names the request's host only when it is a plain host.
#include "server/web/web_client.h"

#include <gtest/gtest.h>

#include <string>

#include "server/web/web_assets.h"

namespace buzz::server {
namespace {

net::HttpRequest web_get(std::string path, std::vector<std::pair<std::string, std::string>> headers = {}) {
  net::HttpRequest r;
  r.method = "GET";
  r.target = path;
  r.path = std::move(path);
  r.headers = std::move(headers);
  return r;
}

std::string header_of(const net::HttpResponse& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

TEST(WebClient, TheRootIsThePageForABrowserAndNothingForOthers) {
  auto page = web_client_response(web_get("/", {{"accept", "text/html,*/*"}, {"host", "relay.example:8080"}}));
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->content_type, "text/html; charset=utf-8");
  EXPECT_EQ(header_of(*page, "Cache-Control"), "no-cache");
  EXPECT_EQ(header_of(*page, "Vary"), "Accept, Accept-Encoding");
  EXPECT_NE(header_of(*page, "Content-Security-Policy").find("connect-src 'self' ws://relay.example:8080 wss://relay.example:8080;"),
            std::string::npos);
  // NIP-11 and the API keep their paths.
  EXPECT_FALSE(web_client_response(web_get("/", {{"accept", "application/nostr+json"}})));
  EXPECT_FALSE(web_client_response(web_get("/api/channels", {{"accept", "text/html"}})));
}

TEST(WebClient, AHostThatIsNotPlainGetsNoWebSocketSource) {
  auto page = web_client_response(web_get("/", {{"accept", "text/html"}, {"host", "evil; script-src *"}}));
  ASSERT_TRUE(page);
  const std::string csp = header_of(*page, "Content-Security-Policy");
  EXPECT_NE(csp.find("connect-src 'self';"), std::string::npos) << csp;
  EXPECT_EQ(csp.find("evil"), std::string::npos) << csp;
}

TEST(WebClient, AScriptByItsHashIsCachedForGoodAndByItsNameRevalidated) {
  const WebAsset* script = find_web_asset("/app/app.js");
  ASSERT_NE(script, nullptr);
  ASSERT_NE(script->hashed_path, script->path);
  auto hashed = web_client_response(web_get(std::string(script->hashed_path)));
  ASSERT_TRUE(hashed);
  EXPECT_EQ(header_of(*hashed, "Cache-Control"), "public, max-age=31536000, immutable");
  EXPECT_EQ(hashed->body, script->body);  // no Accept-Encoding: the bytes themselves
  EXPECT_EQ(header_of(*hashed, "Content-Encoding"), "");
  auto named = web_client_response(web_get("/app/app.js"));
  ASSERT_TRUE(named);
  EXPECT_EQ(header_of(*named, "Cache-Control"), "no-cache");
  auto missing = web_client_response(web_get("/app/none.js"));
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

TEST(WebClient, TheAcceptedCodingIsSentAndItsETagAnswers304) {
  const WebAsset* script = find_web_asset("/app/app.js");
  ASSERT_NE(script, nullptr);
  auto br = web_client_response(web_get("/app/app.js", {{"accept-encoding", "gzip, deflate, br"}}));
  ASSERT_TRUE(br);
  EXPECT_EQ(header_of(*br, "Content-Encoding"), "br");
  EXPECT_EQ(br->body, script->brotli);
  auto gzip = web_client_response(web_get("/app/app.js", {{"accept-encoding", "gzip, br;q=0"}}));
  ASSERT_TRUE(gzip);
  EXPECT_EQ(header_of(*gzip, "Content-Encoding"), "gzip");
  EXPECT_EQ(gzip->body, script->gzip);
  const std::string etag = header_of(*gzip, "ETag");
  EXPECT_EQ(etag, "\"" + std::string(script->etag) + "-gzip\"");
  EXPECT_NE(etag, header_of(*br, "ETag"));

  auto again = web_client_response(web_get("/app/app.js", {{"accept-encoding", "gzip, br;q=0.0"}, {"if-none-match", etag}}));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());
  // The same ETag names another representation when the coding differs: sent in full.
  auto other = web_client_response(web_get("/app/app.js", {{"if-none-match", etag}}));
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 200);
}

}  // namespace
}  // namespace buzz::server
