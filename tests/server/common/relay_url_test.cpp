// Unit tests for server/relay_url: the NIP-42 relay-tag normalization of
// docs/reference/protocol.md §6.2 — lowercase scheme and host, default ports dropped,
// localhost and ::1 mapped to 127.0.0.1, trailing slashes stripped, path case
// kept, IPv6 literals re-bracketed, non-URLs returned unchanged — and that the
// configured default and the usual client spellings compare equal; and the
// host that serves as the NIP-05 domain.
#include <gtest/gtest.h>

#include "server/common/relay_url.h"

namespace buzz::server {
namespace {

TEST(RelayUrl, LowercasesSchemeAndHost) {
  EXPECT_EQ(normalize_relay_url("WSS://Relay.Example.COM"), "wss://relay.example.com");
  EXPECT_EQ(normalize_relay_url("Ws://HOST:7000"), "ws://host:7000");
}

TEST(RelayUrl, KeepsPathCase) {
  EXPECT_EQ(normalize_relay_url("wss://Relay.Example.com/Nostr/Path/"), "wss://relay.example.com/Nostr/Path");
}

TEST(RelayUrl, DropsTheSchemeDefaultPortOnly) {
  EXPECT_EQ(normalize_relay_url("wss://relay.example.com:443"), "wss://relay.example.com");
  EXPECT_EQ(normalize_relay_url("ws://relay.example.com:80/"), "ws://relay.example.com");
  EXPECT_EQ(normalize_relay_url("https://relay.example.com:443/x"), "https://relay.example.com/x");
  EXPECT_EQ(normalize_relay_url("http://relay.example.com:80"), "http://relay.example.com");
  EXPECT_EQ(normalize_relay_url("wss://relay.example.com:80"), "wss://relay.example.com:80");
  EXPECT_EQ(normalize_relay_url("ws://relay.example.com:443"), "ws://relay.example.com:443");
  EXPECT_EQ(normalize_relay_url("ws://relay.example.com:3000"), "ws://relay.example.com:3000");
}

TEST(RelayUrl, MapsLoopbackNamesTo127001) {
  EXPECT_EQ(normalize_relay_url("ws://localhost:3000"), "ws://127.0.0.1:3000");
  EXPECT_EQ(normalize_relay_url("ws://LOCALHOST:3000/"), "ws://127.0.0.1:3000");
  EXPECT_EQ(normalize_relay_url("ws://[::1]:3000"), "ws://127.0.0.1:3000");
  EXPECT_EQ(normalize_relay_url("ws://[::1]"), "ws://127.0.0.1");
  EXPECT_EQ(normalize_relay_url("ws://127.0.0.1:3000"), "ws://127.0.0.1:3000");
  EXPECT_EQ(normalize_relay_url("wss://localhost"), "wss://127.0.0.1");
}

TEST(RelayUrl, StripsTrailingSlashes) {
  EXPECT_EQ(normalize_relay_url("wss://relay.example.com/"), "wss://relay.example.com");
  EXPECT_EQ(normalize_relay_url("wss://relay.example.com///"), "wss://relay.example.com");
  EXPECT_EQ(normalize_relay_url("wss://relay.example.com/a/b/"), "wss://relay.example.com/a/b");
}

TEST(RelayUrl, Ipv6Literals) {
  EXPECT_EQ(normalize_relay_url("ws://[2001:DB8::1]:8080/x/"), "ws://[2001:db8::1]:8080/x");
  EXPECT_EQ(normalize_relay_url("wss://[2001:db8::1]:443"), "wss://[2001:db8::1]");
}

TEST(RelayUrl, NonUrlsAreUnchanged) {
  EXPECT_EQ(normalize_relay_url(""), "");
  EXPECT_EQ(normalize_relay_url("not a url"), "not a url");
  EXPECT_EQ(normalize_relay_url("Relay.Example.com/"), "Relay.Example.com/");
  EXPECT_EQ(normalize_relay_url("://host"), "://host");
  EXPECT_EQ(normalize_relay_url("ws://"), "ws://");
  EXPECT_EQ(normalize_relay_url("ws://[::1"), "ws://[::1");
}

TEST(RelayUrl, EquivalentSpellingsCompareEqual) {
  const std::string configured = normalize_relay_url("ws://localhost:3000");  // the RELAY_URL default
  for (const char* tag : {"ws://localhost:3000", "ws://localhost:3000/", "WS://LocalHost:3000", "ws://127.0.0.1:3000/",
                          "ws://[::1]:3000"}) {
    EXPECT_EQ(normalize_relay_url(tag), configured) << tag;
  }
  EXPECT_NE(normalize_relay_url("ws://localhost:3001"), configured);
  EXPECT_NE(normalize_relay_url("wss://localhost:3000"), configured);
  EXPECT_NE(normalize_relay_url("ws://localhost:3000/relay"), configured);
}

TEST(RelayUrl, IsIdempotent) {
  for (const char* url : {"WSS://Relay.Example.COM:443/Path/", "ws://[::1]:80", "ws://[2001:DB8::1]:8080/x/",
                          "not a url"}) {
    std::string once = normalize_relay_url(url);
    EXPECT_EQ(normalize_relay_url(once), once) << url;
  }
}

// A host or port that is not one is not taken apart: the text is compared as
// it is. (relay_url_fuzz found "ws://\x1c[::1]:80…" normalizing to a form that
// normalized differently again.)
TEST(RelayUrl, MalformedAuthoritiesAreNotUrls) {
  for (const char* url : {"ws://\x1c[::1]:80/p", "ws://a b:3000", "ws://host:30x0", "ws://[::1]x:80",
                          "ws://[::1", "ws://[]:80", "ws://user@host:3000", "ws://ho[st]:1"}) {
    EXPECT_EQ(normalize_relay_url(url), url) << url;
    EXPECT_EQ(url_host(url), "") << url;
  }
  EXPECT_EQ(normalize_relay_url("ws://host:"), "ws://host");  // an empty port is no port (RFC 3986 §6.2.3)
  EXPECT_EQ(normalize_relay_url("ws://relay-1.example_x.com:3000/"), "ws://relay-1.example_x.com:3000");
}

// The NIP-05 domain (docs/reference/rest-api.md §3.15): scheme, port and path stripped, lowercased.
TEST(RelayUrl, HostIsTheNip05Domain) {
  EXPECT_EQ(url_host("wss://Relay.Example.COM:443/nostr/"), "relay.example.com");
  EXPECT_EQ(url_host("ws://localhost:3000"), "localhost");
  EXPECT_EQ(url_host("https://team.example.org?x=1"), "team.example.org");
  EXPECT_EQ(url_host("ws://[::1]:80"), "::1");
  EXPECT_EQ(url_host("not a url"), "");
}

}  // namespace
}  // namespace buzz::server
