// `buzz admin` against docs/reference/agents-and-cli.md Part C: the original's output lines
// for generate-key, add-member, list-members and reconcile-channels, offline
// on a data directory.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>

#include "engine/channel.h"
#include "engine/rocks_database.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "engine/team_state.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tests/e2e/scratch_dir.h"

namespace buzz::test {
namespace {

class AdminCliTest : public ::testing::Test {
 protected:
  std::string admin(const std::string& args, int expected_status = 0) {
    int status = -1;
    std::string out = run_buzz("admin " + args + " --data-dir " + dir_, &status);
    EXPECT_EQ(status, expected_status) << out;
    return out;
  }
  const ScratchDir scratch_{"admin-cli"};
  const std::string dir_ = scratch_ / "data";  // made by the first command
};

const std::string kAlice(64, 'a');
const std::string kBob = std::string(63, 'b') + "c";

TEST_F(AdminCliTest, GenerateKeyPrintsTheOriginalsLines) {
  int status = -1;
  const std::string out = run_buzz("admin generate-key", &status);
  EXPECT_EQ(status, 0);
  EXPECT_TRUE(std::regex_match(out, std::regex("Public key:  [0-9a-f]{64}\nSecret key:  [0-9a-f]{64}\n\n"
                                               "Set BUZZ_PRIVATE_KEY to the secret key to use this identity.\n")))
      << out;
}

TEST_F(AdminCliTest, AddMemberAndListMembers) {
  EXPECT_EQ(admin("list-members"), "No relay members found.\n");
  EXPECT_EQ(admin("add-member --pubkey " + kAlice), "Added " + kAlice + " as member to relay membership list.\n");
  // Uppercase hex is stored lowercased; a second add says it changed nothing.
  EXPECT_EQ(admin("add-member --pubkey " + std::string(64, 'A')), kAlice + " is already a relay member as member.\n");
  EXPECT_EQ(admin("add-member --pubkey " + kAlice + " --role admin"),
            "Changed " + kAlice + " from member to admin in relay membership list.\n");
  admin("add-member --pubkey " + kBob + " --role member");
  const std::string header = "Pubkey" + std::string(60, ' ') + "  Role      \n" + std::string(78, '-') + "\n";
  EXPECT_EQ(admin("list-members"), header + kAlice + "    admin     \n" + kBob + "    member    \n");
  EXPECT_NE(admin("add-member --pubkey abc", 2).find("pubkey must be 32 bytes (64 hex chars)"), std::string::npos);
}

const std::string kOpenId = "aaaaaaaa-0000-4000-8000-000000000001", kPrivateId = "aaaaaaaa-0000-4000-8000-000000000002";

// Team state with no group state events, as an import of an original
// deployment can leave it: an open channel, and a private one `owner` owns.
void write_channels_without_group_state(const std::string& dir, const engine::Keypair& owner) {
  std::filesystem::create_directories(dir);
  auto db = engine::RocksDatabase::open(dir + "/db", engine::DatabaseOptions{});
  ASSERT_TRUE(db) << db.error();
  engine::RocksEventStore store(**db);
  engine::TeamState team;
  ASSERT_TRUE(team.load(store));
  engine::Channel general;
  general.id = kOpenId;
  general.name = "general";
  engine::Channel secret = general;
  secret.id = kPrivateId;
  secret.name = "secret";
  secret.visibility = engine::Visibility::kPrivate;
  engine::ChannelMember member;
  member.pubkey = owner.pubkey;
  member.role = engine::ChannelRole::kOwner;
  member.join_seq = team.next_join_seq();
  const std::vector<engine::StateWrite> rows = {team.put_channel(general), team.put_channel(secret),
                                                team.put_member(kPrivateId, member)};
  ASSERT_TRUE(store.put_states(rows));
}

// The private channel's group state reaches its owner, signed by the relay's
// own key (NIP-11 self), and no one else.
void expect_private_group_state(const RelayProcess& relay, const engine::Keypair& owner) {
  std::string error;
  const std::string filter = R"({"kinds":[39000,39001,39002],"#d":[")" + kPrivateId + R"("]})";
  auto member = NostrClient::connect_authed(relay, owner, &error);
  ASSERT_TRUE(member) << error;
  // At start-up the relay reconciles on its writer once it serves: wait for it (up to 5 s).
  ReqResult got;
  for (int i = 0; i < 50 && (got = member->req("state" + std::to_string(i), filter)).events.size() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(got.events.size(), 3u);
  const std::string owner_hex = hex(owner), relay_pubkey = relay_self_pubkey(relay);
  for (const engine::Event& e : got.events) {
    EXPECT_EQ(engine::to_hex(e.pubkey), relay_pubkey) << e.kind;
    const std::vector<engine::Tag> want =
        e.kind == 39000   ? std::vector<engine::Tag>{{"d", kPrivateId}, {"name", "secret"}, {"private"}, {"closed"},
                                                     {"t", "stream"}}
        : e.kind == 39001 ? std::vector<engine::Tag>{{"d", kPrivateId}, {"p", owner_hex, "owner"}}
                          : std::vector<engine::Tag>{{"d", kPrivateId}, {"p", owner_hex, "", "owner"}};
    EXPECT_EQ(e.tags, want) << e.kind;
  }
  auto stranger = NostrClient::connect_authed(relay, engine::generate_keypair(), &error);
  ASSERT_TRUE(stranger) << error;
  EXPECT_TRUE(stranger->req("state", filter).events.empty()) << "a non-member sees a private channel's state";
}

// The key is the relay's own (the one `buzz serve` signs with, so clients
// trust the events), and a second run finds nothing to do.
TEST_F(AdminCliTest, ReconcileChannelsGivesImportedChannelsTheirGroupState) {
  const engine::Keypair owner = engine::generate_keypair();
  write_channels_without_group_state(dir_, owner);
  EXPECT_EQ(admin("reconcile-channels --json"), "{\"reconciled\":2,\"already\":0,\"total\":2}\n");
  EXPECT_EQ(admin("reconcile-channels"), "Reconciled 0 channels (2 already had events, 2 total).\n");
  EXPECT_NE(admin("reconcile-channels --relay-key nope", 2).find("--relay-key must be a 64-hex or nsec secret key"),
            std::string::npos);
  std::string error;
  auto relay = RelayProcess::start(RelayOptions{{"--open"}, {}, dir_}, &error);
  ASSERT_TRUE(relay) << error;
  expect_private_group_state(*relay, owner);
}

// docs/reference/compat-backends.md §6.4: the server does the same at start-up when asked.
TEST_F(AdminCliTest, ServerReconcilesChannelsAtStartUpWhenAsked) {
  const engine::Keypair owner = engine::generate_keypair();
  write_channels_without_group_state(dir_, owner);
  std::string error;
  auto relay = RelayProcess::start(RelayOptions{{"--open"}, {{"BUZZ_RECONCILE_CHANNELS", "1"}}, dir_}, &error);
  ASSERT_TRUE(relay) << error;
  expect_private_group_state(*relay, owner);
}

}  // namespace
}  // namespace buzz::test
