// `buzz admin` against agents-and-cli.md Part C: the original's output lines
// for generate-key, add-member and list-members, offline on a data directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>

#include "tests/e2e/relay_process.h"

namespace buzz::test {
namespace {

class AdminCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() / ("buzz-admin-cli-" + std::to_string(getpid()))).string();
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string admin(const std::string& args, int expected_status = 0) {
    int status = -1;
    std::string out = run_buzz("admin " + args + " --data-dir " + dir_, &status);
    EXPECT_EQ(status, expected_status) << out;
    return out;
  }
  std::string dir_;
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

}  // namespace
}  // namespace buzz::test
