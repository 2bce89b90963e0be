// Link previews (GET /api/link-preview, docs/web-client.md): a page on a
// test HTTP server, fetched by the relay through the workflows' SSRF-safe
// request. Loopback is a private address, so the allowed case runs on the
// workflow suites' relay, whose allow-list names 127.0.0.1 (as the webhook
// tests do); a relay without it refuses loopback and every other private
// address, before connecting, and so does a redirect to one.
#include <gtest/gtest.h>

#include "tests/e2e/workflow_fixture.h"

namespace buzz::test {
namespace {

// A 1×1 PNG, the page's picture.
const std::string kPng(
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
    "\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\xda\x63\xfc\xcf\xc0\x50\x0f\x00\x04\x85\x01\x80\x84\xa9"
    "\x8c\x21\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82",
    70);

std::string preview_path(const std::string& url) {
  std::string q;
  for (char c : url) {
    if (std::isalnum(uint8_t(c)) || c == '-' || c == '.' || c == '_') {
      q += c;
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", uint8_t(c));
      q += hex;
    }
  }
  return "/api/link-preview?url=" + q;
}

TEST_F(WorkflowTest, LinkPreviewShowsAPagesTitleDescriptionAndPicture) {
  HttpReceiver page, picture, moved;
  picture.respond(200, kPng, "Content-Type: image/png\r\n");
  page.respond(200,
               "<!doctype html><html><head><title>Fallback title</title>"
               "<meta property=\"og:title\" content=\"Q3 &amp; the plan\">"
               "<meta property='og:description' content='What we ship, and when.'>"
               "<meta property=\"og:site_name\" content=\"Example Docs\">"
               "<meta property=\"og:image\" content=\"" + picture.url("/card.png") + "\">"
               "</head><body>…</body></html>",
               "Content-Type: text/html; charset=utf-8\r\n");
  Peer reader = user();
  HttpReply r = rest(reader.key, "GET", preview_path(page.url("/plan")));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_str(r.body, "title"), "Q3 & the plan");
  EXPECT_EQ(json_str(r.body, "description"), "What we ship, and when.");
  EXPECT_EQ(json_str(r.body, "site_name"), "Example Docs");
  EXPECT_EQ(json_str(r.body, "url"), page.url("/plan"));
  // The picture comes shrunk into a data: URL: the page's CSP allows no other site.
  EXPECT_EQ(json_str(r.body, "image").rfind("data:image/jpeg;base64,/9j/", 0), 0u) << r.body;
  // Asked again: the cached answer; the page was fetched once.
  EXPECT_EQ(rest(reader.key, "GET", preview_path(page.url("/plan"))).body, r.body);
  EXPECT_EQ(page.received().size(), 1u);
  EXPECT_EQ(picture.received().size(), 1u);
  // A redirect is followed (checked again at each hop).
  moved.respond(301, "", "Location: " + page.url("/plan") + "\r\n");
  HttpReply via = rest(reader.key, "GET", preview_path(moved.url("/old")));
  ASSERT_EQ(via.status, 200) << via.body;
  EXPECT_EQ(json_str(via.body, "url"), page.url("/plan"));
  // Members only, as the other REST reads; an http(s) address only.
  EXPECT_EQ(http_call(relay().port(), "GET", preview_path(page.url("/plan")), {}, "").status, 401);
  EXPECT_EQ(rest(reader.key, "GET", preview_path("file:///etc/passwd")).status, 400);
}

TEST_F(WorkflowTest, LinkPreviewRefusesARedirectToAPrivateAddress) {
  HttpReceiver moved;
  moved.respond(302, "", "Location: http://10.1.2.3/admin\r\n");
  Peer reader = user();
  HttpReply r = rest(reader.key, "GET", preview_path(moved.url("/go")));
  EXPECT_EQ(r.status, 502);
  EXPECT_NE(r.body.find("SSRF blocked"), std::string::npos) << r.body;
}

TEST_F(WorkflowTest, LinkPreviewRefusesPrivateAddressesWithoutTheAllowList) {
  // No webhook allow-list; the test clock, as the suite's relay may have been moved.
  auto relay = start_relay(RelayOptions{{"--open", "--rate-limits", "false"}, {{"BUZZ_TEST_CLOCK", "1"}}, ""});
  ASSERT_NE(relay, nullptr);
  Peer reader = make_peer(*relay);
  HttpReceiver page;
  page.respond(200, "<title>internal</title>", "Content-Type: text/html\r\n");
  for (const std::string& url : {page.url("/"), std::string("http://169.254.169.254/latest/meta-data/"),
                                 std::string("http://[::1]:8080/"), std::string("http://0x7f000001/")}) {
    HttpReply r = rest(reader.key, "GET", preview_path(url), "", relay.get());
    EXPECT_EQ(r.status, 502) << url;
    EXPECT_NE(r.body.find("no preview: SSRF blocked"), std::string::npos) << url << ": " << r.body;
  }
  EXPECT_TRUE(page.received().empty()) << "the relay never connects to a private address";
}

}  // namespace
}  // namespace buzz::test
