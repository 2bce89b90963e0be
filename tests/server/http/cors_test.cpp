// Unit tests for server/cors: any origin by default, exactly the listed ones
// otherwise, none when the list holds nothing usable, and preflights that
// tell a refused origin nothing.
#include <gtest/gtest.h>

#include "server/http/cors.h"

namespace buzz::server {
namespace {

std::string allowed(const CorsPolicy& p, std::string_view origin) {
  net::HttpResponse r;
  p.apply(origin, r);
  for (const auto& [name, value] : r.headers) {
    if (name == "Access-Control-Allow-Origin") return value;
  }
  return "";
}

TEST(CorsPolicyTest, EmptyConfigurationAllowsEveryOrigin) {
  CorsPolicy any("");
  EXPECT_EQ(allowed(any, "https://anything.example"), "*");
  EXPECT_EQ(allowed(any, ""), "*");
}

TEST(CorsPolicyTest, AListAllowsExactlyItsOrigins) {
  CorsPolicy list(" https://App.Example/ , http://localhost:5173");
  EXPECT_EQ(allowed(list, "https://app.example"), "https://app.example");
  EXPECT_EQ(allowed(list, "http://localhost:5173"), "http://localhost:5173");
  EXPECT_EQ(allowed(list, "https://evil.example"), "");
  EXPECT_EQ(allowed(list, "https://app.example.evil"), "");
  EXPECT_EQ(allowed(list, ""), "");
}

TEST(CorsPolicyTest, AListWithNothingUsableAllowsNone) {
  CorsPolicy typo("app.example, ftp://x");
  EXPECT_EQ(allowed(typo, "https://app.example"), "");
  EXPECT_EQ(allowed(typo, "app.example"), "");
}

TEST(CorsPolicyTest, PreflightNamesMethodsAndHeadersOnlyForAllowedOrigins) {
  CorsPolicy list("https://app.example");
  net::HttpResponse ok = list.preflight("https://app.example");
  EXPECT_EQ(ok.status, 204);
  EXPECT_EQ(ok.headers.size(), 5u);
  net::HttpResponse refused = list.preflight("https://evil.example");
  EXPECT_EQ(refused.status, 204);
  EXPECT_TRUE(refused.headers.empty());
}

}  // namespace
}  // namespace buzz::server
