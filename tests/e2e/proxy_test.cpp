// End-to-end tests of `proxy:submit` (docs/reference/protocol.md §6.5–6.6, docs/reference/proxy.md §4): a
// session authenticated with an operator-minted proxy token may submit events
// signed by other keys (the proxy's shadow keys), outside the clock window and
// into channels those keys are not members of; never relay admin commands.
// The same events from the shadow keys' own sessions are refused.
#include <gtest/gtest.h>

#include <string>

#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tests/e2e/scratch_dir.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;


TEST(ProxySubmitTest, AProxyTokenSubmitsForShadowKeysButNoAdminCommands) {
  const ScratchDir scratch("proxy");
  const std::string dir = scratch / "data";
  Keypair proxy = engine::generate_keypair(), owner = engine::generate_keypair(), shadow = engine::generate_keypair();
  int status = -1;
  std::string minted = run_buzz("admin mint-token --data-dir " + dir + " --pubkey " + hex(proxy) +
                                    " --name proxy --scopes proxy:submit,channels:read,messages:read --json",
                                &status);
  ASSERT_EQ(status, 0) << minted;
  const size_t at = minted.find("\"token\":\"");
  ASSERT_NE(at, std::string::npos) << minted;
  const std::string token = minted.substr(at + 9, 69);
  {
    std::string error;
    auto relay = RelayProcess::start(RelayOptions{{"--open"}, {}, dir}, &error);
    ASSERT_NE(relay, nullptr) << error;
    auto o = NostrClient::connect_authed(*relay, owner, &error);
    ASSERT_TRUE(o) << error;
    const std::string ch = "e0000000-0000-4000-8000-" + hex(owner).substr(0, 12);
    ASSERT_TRUE(o->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "bridged"}, {"visibility", "private"}})).accepted);
    ASSERT_TRUE(o->publish(make_event(owner, 9000, "", {{"h", ch}, {"p", hex(proxy)}})).accepted);  // the proxy reads it

    auto p = NostrClient::connect(*relay, &error);
    ASSERT_TRUE(p) << error;
    OkReply auth = p->send_auth(client::auth_event(proxy, p->relay_url(), p->challenge(), token));
    ASSERT_TRUE(auth.accepted) << auth.reason;

    Event bridged = make_event(shadow, 9, "from a NIP-28 guest", {{"h", ch}}, unix_now() - 7200);
    OkReply ok = p->publish(bridged);
    EXPECT_TRUE(ok.accepted) << ok.reason;
    std::vector<Event> seen = o->req("seen", R"({"kinds":[9],"#h":[")" + ch + R"("]})").events;
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].id_hex(), bridged.id_hex());
    EXPECT_EQ(p->publish(make_event(shadow, 9030, "", {{"p", hex(shadow)}})).reason,
              "invalid: relay admin commands cannot be submitted via proxy");

    // The shadow key on its own is bound by every rule the proxy skipped.
    auto s = NostrClient::connect_authed(*relay, shadow, &error);
    ASSERT_TRUE(s) << error;
    EXPECT_EQ(s->publish(make_event(shadow, 9, "direct", {{"h", ch}})).reason, "restricted: not a channel member");
    EXPECT_EQ(s->publish(make_event(shadow, 9, "stale", {{"h", ch}}, unix_now() - 7200)).reason,
              "invalid: event timestamp too far from server time");
  }
}

}  // namespace
}  // namespace buzz::test
