// End-to-end tests of the data directory's format version (engine/data_format.h,
// docs/storage.md "Format version") against the real binary, on a directory
// written by the binary of format 2 and kept as a fixture (fixtures/data-format-2,
// made by its make.sh: a channel and five messages): served as it is, its messages read; without its format
// record (a format-1 directory) it is upgraded in place; at a higher format
// than the binary's it is refused with the version it needs.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/e2e/cli_process.h"
#include "engine/hex.h"
#include "engine/signature.h"
#include "tests/e2e/e2e_helpers.h"

namespace buzz::test {
namespace {

namespace fs = std::filesystem;

class DataFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = "/tmp/buzz_format_e2e_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    dir_ = root_ + "/data";
    fs::copy(std::string(BUZZ_DATA_FORMAT_FIXTURE) + "/data", dir_, fs::copy_options::recursive);
    std::ifstream in(std::string(BUZZ_DATA_FORMAT_FIXTURE) + "/ids.txt");
    for (std::string id; std::getline(in, id);) if (!id.empty()) ids_.push_back(id);
    ASSERT_EQ(ids_.size(), 5u);
    std::ifstream key(std::string(BUZZ_DATA_FORMAT_FIXTURE) + "/key.txt"), channel(std::string(BUZZ_DATA_FORMAT_FIXTURE) + "/channel.txt");
    std::string secret_hex;
    ASSERT_TRUE(std::getline(key, secret_hex) && std::getline(channel, channel_));
    engine::SecretKey secret;
    ASSERT_TRUE(engine::from_hex(secret_hex, &secret));
    auto pair = engine::keypair_from_secret(secret);
    ASSERT_TRUE(pair);
    key_ = *pair;
  }
  void TearDown() override { fs::remove_all(root_); }

  // Edits the default family of the copy as an older or newer binary would have left it.
  void edit_format(const std::vector<std::pair<std::string, std::string>>& puts, const std::vector<std::string>& deletes) {
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir_ + "/db", &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const auto& n : names) families.emplace_back(n, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::DBOptions(), dir_ + "/db", families, &handles, &db).ok());
    for (const auto& [k, v] : puts) ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), handles[0], k, v).ok());
    for (const auto& k : deletes) ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), handles[0], k).ok());
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
    delete db;
  }

  // `buzz version --json`'s words for the copy's format.
  std::string dir_format(int format) const {
    return "\"data_dir\":{\"data_format\":" + std::to_string(format) + ",\"path\":\"" + dir_ + "\"";
  }

  std::string version_json() {
    CliRun r = run_cli({"version", "--json", "--data-dir", dir_});
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  }

  void expect_served() {
    std::string error;
    auto relay = RelayProcess::start(RelayOptions{{"--open"}, {}, dir_}, &error);
    ASSERT_TRUE(relay) << error;
    auto c = NostrClient::connect_authed(*relay, key_, &error);
    ASSERT_TRUE(c) << error;
    ReqResult r = c->req("f", R"({"kinds":[9],"#h":[")" + channel_ + R"("]})");
    std::vector<std::string> got;
    for (const auto& e : r.events) got.push_back(engine::to_hex(e.id));
    std::sort(got.begin(), got.end());
    std::vector<std::string> want = ids_;
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << why(r);
    EXPECT_TRUE(relay->terminate());
    CliRun audit = run_cli({"audit", "verify", "--data-dir", dir_});
    EXPECT_EQ(audit.status, 0) << audit.out;
  }

  std::string root_, dir_, channel_;
  std::vector<std::string> ids_;
  engine::Keypair key_;
};

TEST_F(DataFormatTest, TheCurrentFormatsFixtureIsServedAsItIs) {
  EXPECT_NE(version_json().find(dir_format(2) + ",\"written_by\":\"0.1.0\"},\"data_format\":2,"), std::string::npos)
      << version_json();
  expect_served();
  EXPECT_NE(version_json().find(dir_format(2)), std::string::npos);
}

TEST_F(DataFormatTest, ADirectoryWithoutItsFormatRecordIsUpgradedInPlace) {
  edit_format({}, {"data_format", "data_format_written_by", "record_layout"});
  EXPECT_NE(version_json().find(dir_format(1) + ",\"written_by\":null}"), std::string::npos) << version_json();
  expect_served();
  EXPECT_NE(version_json().find(dir_format(2)), std::string::npos) << version_json();
}

TEST_F(DataFormatTest, ANewerFormatIsRefusedWithTheVersionItNeeds) {
  edit_format({{"data_format", "99"}, {"data_format_written_by", "9.9.9"}}, {});
  EXPECT_NE(version_json().find(dir_format(99) + ",\"written_by\":\"9.9.9\"}"), std::string::npos) << version_json();
  int status = 0;
  std::string out = run_buzz("serve --open --bind 127.0.0.1:0 --data-dir " + dir_, &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("format 99 (written by buzz 9.9.9)"), std::string::npos) << out;
  EXPECT_NE(out.find("reads format 2 or older"), std::string::npos) << out;
  // Offline commands refuse it the same way, and nothing was changed.
  out = run_buzz("reindex --data-dir " + dir_, &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("format 99"), std::string::npos) << out;
  EXPECT_NE(version_json().find(dir_format(99)), std::string::npos);
}

}  // namespace
}  // namespace buzz::test
