// client::split_url (tools/client/url.h): the URLs the project's own clients take apart.
#include <gtest/gtest.h>

#include "tools/client/url.h"

namespace buzz::client {
namespace {

TEST(SplitUrl, HostPortAndTarget) {
  auto u = split_url("http://relay.example:3000/api/x?y=1#frag", "http://");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->authority, "relay.example:3000");
  EXPECT_EQ(u->host, "relay.example");
  EXPECT_EQ(u->port, 3000);
  EXPECT_EQ(u->target, "/api/x?y=1");
  u = split_url("ws://127.0.0.1", "ws://");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->port, 80);
  EXPECT_EQ(u->target, "/");
  u = split_url("http://h?q", "http://");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->target, "/?q");
}

TEST(SplitUrl, AnIpv6LiteralLosesItsBrackets) {
  auto u = split_url("http://[::1]:8080/", "http://");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->authority, "[::1]:8080");
  EXPECT_EQ(u->port, 8080);
}

TEST(SplitUrl, RefusesWhatItDoesNotTake) {
  for (const char* bad : {"https://h/", "http://", "http://user:pw@h/", "http://h:0/", "http://h:65536/", "http://h:x/",
                          "http://h:/", "http://[::1/", "http://:80/"}) {
    EXPECT_FALSE(split_url(bad, "http://")) << bad;
  }
}

}  // namespace
}  // namespace buzz::client
