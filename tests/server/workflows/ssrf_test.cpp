// server/workflows/ssrf.cpp: every spelling of an internal address is refused
// (docs/reference/workflows.md §9.5), and the save-time check words each case as the spec does.
#include "server/workflows/ssrf.h"

#include <gtest/gtest.h>

#include "server/workflows/outbound_http.h"
#include "tests/e2e/http_receiver.h"

namespace buzz::server {
namespace {

bool blocked(std::string_view host) {
  auto ip = parse_ip_literal(host);
  EXPECT_TRUE(ip.has_value()) << host;
  return ip && is_private_address(*ip);
}

TEST(Ssrf, EverySpellingOfAnInternalAddress) {
  for (const char* host : {"127.0.0.1", "127.1", "2130706433", "0177.0.0.1", "0x7f.0.0.1", "0x7f000001", "0.0.0.0", "0",
                           "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "2852039166",
                           "100.64.0.1", "198.18.0.1", "255.255.255.255", "224.0.0.1", "240.0.0.1", "192.0.0.1", "::1",
                           "[::1]", "::", "[::ffff:127.0.0.1]", "::ffff:169.254.169.254", "::ffff:7f00:1", "::127.0.0.1",
                           "fc00::1", "fd12:3456::1", "fe80::1", "fe80::1%eth0", "ff02::1", "2001:db8::1",
                           "64:ff9b::a9fe:a9fe", "2002:7f00:1::"}) {
    EXPECT_TRUE(blocked(host)) << host;
  }
}

TEST(Ssrf, PublicAddressesPass) {
  for (const char* host : {"93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "[2606:4700::1111]",
                           "::ffff:8.8.8.8"}) {
    EXPECT_FALSE(blocked(host)) << host;
  }
  EXPECT_FALSE(parse_ip_literal("example.com").has_value());
  EXPECT_FALSE(parse_ip_literal("1.2.3.4.example.com").has_value());
}

TEST(Ssrf, SaveTimeMessages) {
  const std::vector<std::string> none;
  EXPECT_EQ(*check_webhook_url("ftp://example.com/x", "s", none),
            "webhook URL scheme 'ftp' not allowed in step 's' (only http/https)");
  EXPECT_EQ(*check_webhook_url("http://localhost:8080/x", "s", none), "webhook URL in step 's' targets loopback address");
  EXPECT_EQ(*check_webhook_url("http://[::1]/x", "s", none), "webhook URL in step 's' targets loopback address");
  EXPECT_EQ(*check_webhook_url("http://169.254.169.254/latest", "s", none),
            "webhook URL in step 's' targets cloud metadata endpoint");
  EXPECT_EQ(*check_webhook_url("http://metadata.google.internal/", "s", none),
            "webhook URL in step 's' targets cloud metadata endpoint");
  for (const char* url : {"http://10.0.0.1/", "http://[::ffff:127.0.0.1]/", "http://100.64.1.1/", "http://[fe80::1]/"}) {
    EXPECT_EQ(*check_webhook_url(url, "s", none), "webhook URL in step 's' targets private/internal network") << url;
  }
  // Other spellings of 127.0.0.1 are normalized first (as upstream's URL parser does): loopback.
  for (const char* url : {"http://2130706433/", "http://0x7f.0.0.1/", "http://0177.0.0.1/", "http://127.1/"}) {
    EXPECT_EQ(*check_webhook_url(url, "s", none), "webhook URL in step 's' targets loopback address") << url;
  }
  EXPECT_EQ(*check_webhook_url("http://2852039166/", "s", none), "webhook URL in step 's' targets cloud metadata endpoint");
  EXPECT_EQ(check_webhook_url("https://{{trigger.host}}/x", "s", none)->rfind("invalid webhook URL in step 's': ", 0), 0u);
  EXPECT_EQ(check_webhook_url("not a url", "s", none)->rfind("invalid webhook URL in step 's': ", 0), 0u);
  // The operator's allow-list lets exactly the named host through.
  EXPECT_FALSE(check_webhook_url("http://127.0.0.1:9/x", "s", {"127.0.0.1"}).has_value());
  EXPECT_FALSE(check_webhook_url("http://127.1:9/x", "s", {"127.0.0.1"}).has_value());  // the same host, normalized
  EXPECT_TRUE(check_webhook_url("http://127.0.0.2:9/x", "s", {"127.0.0.1"}).has_value());
  EXPECT_TRUE(check_webhook_url("http://localhost:9/x", "s", {"127.0.0.1"}).has_value());
  EXPECT_FALSE(check_webhook_url("https://93.184.216.34/x", "s", none).has_value());
}

TEST(OutboundHttp, RefusesInternalAddressesAtRunTimeInEverySpelling) {
  OutboundHttp http({});
  for (const char* url : {"http://localhost:1/", "http://127.1:1/", "http://2130706433:1/", "http://0x7f.0.0.1:1/",
                          "http://[::ffff:127.0.0.1]:1/", "http://[::1]:1/", "http://169.254.169.254/latest",
                          "http://10.0.0.1/"}) {
    auto r = http.send({"POST", url, {}, "", 0});
    ASSERT_FALSE(r.ok()) << url;
    EXPECT_EQ(r.error().rfind("webhook error: SSRF blocked: '", 0), 0u) << url << ": " << r.error();
  }
  auto bad = http.send({"POST", "gopher://example.com/", {}, "", 0});
  EXPECT_EQ(bad.error().rfind("webhook error: invalid URL: ", 0), 0u) << bad.error();
}

TEST(OutboundHttp, AllowListedReceiverGetsTheRequestAndTheCapHolds) {
  test::HttpReceiver receiver;
  receiver.respond(418, std::string(64, 'x') + "\xff");
  OutboundHttp http({10000, 1 << 20, {"127.0.0.1"}});
  auto r = http.send({"PUT", receiver.url("/x"), {{"X-A", "1"}}, "payload", 0});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->status, 418);
  EXPECT_EQ(r->body, std::string(64, 'x') + "\xEF\xBF\xBD");  // invalid UTF-8 replaced
  ASSERT_TRUE(receiver.wait_for(1));
  auto got = receiver.received()[0];
  EXPECT_EQ(got.method, "PUT");
  EXPECT_EQ(got.body, "payload");
  EXPECT_EQ(got.head.find("Content-Type"), std::string::npos);  // no default Content-Type
  OutboundHttp small({10000, 10, {"127.0.0.1"}});
  auto capped = small.send({"GET", receiver.url("/y"), {}, "", 0});
  ASSERT_FALSE(capped.ok());
  EXPECT_EQ(capped.error(), "webhook error: response body exceeds 10 byte limit");
}

TEST(OutboundHttp, SanitizesUtf8) {
  EXPECT_EQ(sanitize_utf8("h\xc3\xa9"), "h\xc3\xa9");
  EXPECT_EQ(sanitize_utf8("\xc0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");    // overlong
  EXPECT_EQ(sanitize_utf8("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
}

}  // namespace
}  // namespace buzz::server
