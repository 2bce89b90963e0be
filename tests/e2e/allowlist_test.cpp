// End-to-end tests of the legacy pubkey allow-list (docs/reference/protocol.md §6.2, §6.5,
// §7.1): `buzz admin allowlist-*` edit it offline; with
// BUZZ_PUBKEY_ALLOWLIST=true only listed pubkeys authenticate by key alone,
// while an API token still works; and the first start with no relay members
// copies the list into the member table.
#include <gtest/gtest.h>

#include <string>

#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tests/e2e/scratch_dir.h"

namespace buzz::test {
namespace {

using engine::Keypair;


class AllowlistTest : public ::testing::Test {
 protected:
  // `buzz admin <args> --data-dir <dir>`; the output, with the exit code checked.
  std::string admin(const std::string& args, int expected_status = 0) {
    int status = -1;
    std::string out = run_buzz("admin " + args + " --data-dir " + dir_, &status);
    EXPECT_EQ(status, expected_status) << args << ": " << out;
    return out;
  }
  std::unique_ptr<RelayProcess> start(std::vector<std::string> args) {
    std::string error;
    auto relay = RelayProcess::start(RelayOptions{std::move(args), {}, dir_}, &error);
    EXPECT_NE(relay, nullptr) << error;
    return relay;
  }
  const ScratchDir scratch_{"allowlist"};
  const std::string dir_ = scratch_ / "data";  // made by the first command
};

TEST_F(AllowlistTest, AdminCommandsEditTheListOffline) {
  Keypair a = engine::generate_keypair(), b = engine::generate_keypair();
  admin("allowlist-add --pubkey " + hex(a) + " --note ci");
  admin("allowlist-add --pubkey " + hex(b));
  std::string listed = admin("allowlist-list --json");
  EXPECT_NE(listed.find(R"("pubkey":")" + hex(a) + "\""), std::string::npos) << listed;
  EXPECT_NE(listed.find(R"("note":"ci")"), std::string::npos) << listed;
  admin("allowlist-remove --pubkey " + hex(b));
  EXPECT_EQ(admin("allowlist-list").find(hex(b)), std::string::npos);
  EXPECT_NE(admin("allowlist-remove --pubkey " + hex(b), 1).find("is not on the allow-list"), std::string::npos);
  admin("allowlist-add --pubkey nothex", 2);
}

TEST_F(AllowlistTest, OnlyListedPubkeysAuthenticateByKeyButTokensStillWork) {
  Keypair listed = engine::generate_keypair(), other = engine::generate_keypair();
  admin("allowlist-add --pubkey " + hex(listed));
  std::string minted = admin("mint-token --pubkey " + hex(other) + " --name t --scopes messages:read --json");
  const size_t at = minted.find("\"token\":\"");
  ASSERT_NE(at, std::string::npos) << minted;
  const std::string token = minted.substr(at + 9, 69);
  auto relay = start({"--open", "--pubkey-allowlist", "true"});
  ASSERT_TRUE(relay);
  std::string error;
  EXPECT_TRUE(NostrClient::connect_authed(*relay, listed, &error)) << error;
  auto c = NostrClient::connect(*relay, &error);
  ASSERT_TRUE(c) << error;
  OkReply refused = c->authenticate(other);
  EXPECT_FALSE(refused.accepted);
  EXPECT_EQ(refused.reason, "auth-required: verification failed");
  auto t = NostrClient::connect(*relay, &error);
  ASSERT_TRUE(t) << error;
  engine::Event with_token = client::auth_event(other, t->relay_url(), t->challenge(), token);
  OkReply by_token = t->send_auth(with_token);
  EXPECT_TRUE(by_token.accepted) << by_token.reason;
}

TEST_F(AllowlistTest, TheGateIsOffUnlessConfigured) {
  admin("allowlist-add --pubkey " + hex(engine::generate_keypair()));
  auto relay = start({"--open"});
  ASSERT_TRUE(relay);
  std::string error;
  EXPECT_TRUE(NostrClient::connect_authed(*relay, engine::generate_keypair(), &error)) << error;
}

TEST_F(AllowlistTest, FirstStartWithoutMembersCopiesTheListIn) {
  Keypair owner = engine::generate_keypair(), listed = engine::generate_keypair();
  admin("allowlist-add --pubkey " + hex(listed));
  {
    auto relay = start({"--owner", hex(owner)});
    ASSERT_TRUE(relay);
    std::string error;
    EXPECT_TRUE(NostrClient::connect_authed(*relay, listed, &error)) << "a copied member: " << error;
  }
  std::string members = admin("list-members");  // Part C: the pubkey padded to 66, two spaces, the role
  EXPECT_NE(members.find(hex(listed) + "    member"), std::string::npos) << members;
  EXPECT_NE(members.find(hex(owner) + "    owner"), std::string::npos) << members;
  // Once there are members, a later allow-list entry is not copied again.
  Keypair later = engine::generate_keypair();
  admin("allowlist-add --pubkey " + hex(later));
  { auto relay = start({"--owner", hex(owner)}); }
  EXPECT_EQ(admin("list-members").find(hex(later)), std::string::npos);
}

}  // namespace
}  // namespace buzz::test
