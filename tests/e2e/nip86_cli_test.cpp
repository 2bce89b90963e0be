// `buzz admin` against a running relay (through NIP-86) and on the stopped
// data directory, with the same commands and the same output either way: the
// relay found from the data directory it holds (<data-dir>/serving and the
// owner key it made), or named with --relay and --key.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {
namespace {

std::string admin(const std::string& args, int expected_status = 0) {
  int status = -1;
  std::string out = run_buzz("admin " + args, &status);
  EXPECT_EQ(status, expected_status) << args << ": " << out;
  return out;
}

TEST(Nip86CliTest, AdminCommandsGiveTheSameOutputOnARunningRelayAndOffline) {
  std::string error;
  auto relay = RelayProcess::start(RelayOptions{{"--threads", "1"}, {}, ""}, &error);
  ASSERT_NE(relay, nullptr) << error;
  const std::string dir = " --data-dir " + relay->data_dir();
  const std::string member = hex(engine::generate_keypair()), banned = hex(engine::generate_keypair());

  // The relay holds the directory: the commands reach it, as its owner (the key it made).
  EXPECT_EQ(admin("add-member --pubkey " + member + dir), "Added " + member + " as member to relay membership list.\n");
  EXPECT_EQ(admin("ban-pubkey --pubkey " + banned + " --reason spam" + dir), "banned " + banned + "\n");
  EXPECT_EQ(admin("block-ip --ip 192.0.2.7 --json" + dir), "{\"blocked\":\"192.0.2.7\"}\n");
  EXPECT_EQ(admin("set-relay-info --name Ops" + dir), "name set to \"Ops\"\n");
  EXPECT_NE(http_get(relay->port(), "/info").body.find(R"("name":"Ops")"), std::string::npos);
  // Offline-only commands say why they cannot run.
  EXPECT_NE(admin("allowlist-list" + dir, 1).find("needs a stopped relay"), std::string::npos);

  const char* reads[] = {"list-members", "list-members --json", "list-banned-pubkeys", "list-banned-pubkeys --json",
                         "list-blocked-ips --json", "list-banned-events --json"};
  std::vector<std::string> online;
  for (const char* read : reads) online.push_back(admin(std::string(read) + dir));
  EXPECT_NE(online[1].find("{\"pubkey\":\"" + member + "\",\"role\":\"member\""), std::string::npos) << online[1];
  EXPECT_EQ(online[3], "[{\"pubkey\":\"" + banned + "\",\"reason\":\"spam\"}]\n");

  // --relay and --key name a relay anywhere.
  std::string owner_key;
  std::ifstream(relay->data_dir() + "/owner.key") >> owner_key;
  const std::string remote = " --relay " + relay->relay_url() + " --key " + owner_key;
  EXPECT_EQ(admin("list-banned-pubkeys --json" + remote), online[3]);
  const std::string stranger = engine::to_hex(engine::generate_keypair().secret);
  EXPECT_NE(admin("list-banned-pubkeys --relay " + relay->relay_url() + " --key " + stranger, 1)
                .find("only the relay owner and admins"),
            std::string::npos);

  ASSERT_TRUE(relay->terminate());
  for (size_t i = 0; i < std::size(reads); ++i) EXPECT_EQ(admin(std::string(reads[i]) + dir), online[i]) << reads[i];
  EXPECT_EQ(admin("unban-pubkey --pubkey " + banned + dir), "unbanned " + banned + "\n");
  EXPECT_EQ(admin("list-banned-pubkeys --json" + dir), "[]\n");
}

}  // namespace
}  // namespace buzz::test
