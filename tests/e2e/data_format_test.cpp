// End-to-end tests of the data directory's format version (engine/data_format.h,
// docs/storage.md "Format version") against the real binary, on a directory
// written by the binary of format 2 and kept as a fixture (fixtures/data-format-2,
// made by its make.sh: a channel and five messages): upgraded to format 4 and served, its messages read; without its format
// record (a format-1 directory) it is upgraded in place through 2 and 3 to 4; at a higher format
// than the binary's it is refused with the version it needs. A format-2 directory holding
// events with NIP-40 expirations (fixtures/data-format-2-expiration) has them indexed by
// the upgrade: the expired one is never served and the reaper erases it. Format 3's
// fixture gains its tags by kind (index.tag_kind), which the messages' query by kind and
// channel reads; format 4's is served as it is.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/cli_process.h"
#include "engine/event_parse.h"
#include "engine/hex.h"
#include "engine/signature.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/e2e/scratch_dir.h"

namespace buzz::test {
namespace {

namespace fs = std::filesystem;

class DataFormatTest : public ::testing::Test {
 protected:
  // The directory the test starts from: format 2's, unless a suite below says otherwise.
  virtual std::string fixture() const { return BUZZ_DATA_FORMAT_FIXTURE; }

  void SetUp() override {
    dir_ = root_ / "data";
    fs::copy(fixture() + "/data", dir_, fs::copy_options::recursive);
    std::ifstream in(fixture() + "/ids.txt");
    for (std::string id; std::getline(in, id);) if (!id.empty()) ids_.push_back(id);
    ASSERT_EQ(ids_.size(), 5u);
    std::ifstream key(fixture() + "/key.txt"), channel(fixture() + "/channel.txt");
    std::string secret_hex;
    ASSERT_TRUE(std::getline(key, secret_hex) && std::getline(channel, channel_));
    engine::SecretKey secret;
    ASSERT_TRUE(engine::from_hex(secret_hex, &secret));
    auto pair = engine::keypair_from_secret(secret);
    ASSERT_TRUE(pair);
    key_ = *pair;
  }

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

  const ScratchDir root_{"format-e2e"};
  std::string dir_, channel_;
  std::vector<std::string> ids_;
  engine::Keypair key_;
};

TEST_F(DataFormatTest, TheFormat2FixtureIsUpgradedAndServed) {
  EXPECT_NE(version_json().find(dir_format(2) + ",\"written_by\":\"0.1.0\"},\"data_format\":4,"), std::string::npos)
      << version_json();
  expect_served();
  EXPECT_NE(version_json().find(dir_format(4)), std::string::npos);
  expect_served();  // and again, as format 4
}

TEST_F(DataFormatTest, ADirectoryWithoutItsFormatRecordIsUpgradedInPlace) {
  edit_format({}, {"data_format", "data_format_written_by", "record_layout"});
  EXPECT_NE(version_json().find(dir_format(1) + ",\"written_by\":null}"), std::string::npos) << version_json();
  expect_served();
  EXPECT_NE(version_json().find(dir_format(4)), std::string::npos) << version_json();
}

TEST_F(DataFormatTest, ANewerFormatIsRefusedWithTheVersionItNeeds) {
  edit_format({{"data_format", "99"}, {"data_format_written_by", "9.9.9"}}, {});
  EXPECT_NE(version_json().find(dir_format(99) + ",\"written_by\":\"9.9.9\"}"), std::string::npos) << version_json();
  int status = 0;
  std::string out = run_buzz("serve --open --bind 127.0.0.1:0 --data-dir " + dir_, &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("format 99 (written by buzz 9.9.9)"), std::string::npos) << out;
  EXPECT_NE(out.find("reads format 4 or older"), std::string::npos) << out;
  // Offline commands refuse it the same way, and nothing was changed.
  out = run_buzz("reindex --data-dir " + dir_, &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("format 99"), std::string::npos) << out;
  EXPECT_NE(version_json().find(dir_format(99)), std::string::npos);
}

class DataFormat3Test : public DataFormatTest {
 protected:
  std::string fixture() const override { return BUZZ_DATA_FORMAT_3_FIXTURE; }
};

// Its messages are asked by kind and channel, which reads index.tag_kind
// alone: served only if the 3 -> 4 step wrote their entries (engine/tag_kind_upgrade.h).
TEST_F(DataFormat3Test, TheFormat3FixtureGainsItsTagsByKindAndIsServed) {
  EXPECT_NE(version_json().find(dir_format(3) + ",\"written_by\":\"0.1.0\"},\"data_format\":4,"), std::string::npos)
      << version_json();
  expect_served();
  EXPECT_NE(version_json().find(dir_format(4)), std::string::npos);
}

class DataFormat4Test : public DataFormatTest {
 protected:
  std::string fixture() const override { return BUZZ_DATA_FORMAT_4_FIXTURE; }
};

TEST_F(DataFormat4Test, TheCurrentFormatsFixtureIsServedAsItIs) {
  EXPECT_NE(version_json().find(dir_format(4) + ",\"written_by\":\"0.1.0\"},\"data_format\":4,"), std::string::npos)
      << version_json();
  expect_served();
  EXPECT_NE(version_json().find(dir_format(4)), std::string::npos);
}

// Format 2 stored events with an expiration tag as any other; the upgrade to 3
// finds them and indexes their expirations (engine/expiry_upgrade.h).
TEST(DataFormatExpirationTest, TheUpgradeIndexesFormat2sExpirations) {
  const ScratchDir root("format-e2e");
  const std::string dir = root / "data", fixture = BUZZ_EXPIRATION_FIXTURE;
  fs::copy(fixture + "/data", dir, fs::copy_options::recursive);
  std::ifstream in(fixture + "/events.jsonl");
  std::vector<engine::Event> notes;  // expiring in 2100, expired in 2023, none, malformed
  for (std::string line; std::getline(in, line);) {
    auto e = engine::parse_event_json(line);
    ASSERT_TRUE(e) << line;
    notes.push_back(std::move(*e));
  }
  ASSERT_EQ(notes.size(), 4u);
  std::string error;
  auto relay = RelayProcess::start(RelayOptions{{"--open", "--reaper-interval", "1"}, {}, dir}, &error);
  ASSERT_TRUE(relay) << error;
  auto c = NostrClient::connect_authed(*relay, engine::generate_keypair(), &error);
  ASSERT_TRUE(c) << error;
  ReqResult r = c->req("f", R"({"authors":[")" + engine::to_hex(notes[0].pubkey) + R"("]})");
  std::vector<std::string> got = ids_of(r.events), want = {notes[3].id_hex(), notes[2].id_hex(), notes[0].id_hex()};
  EXPECT_EQ(got, want) << why(r);
  // Erased: its id is no longer stored, so publishing it again is no longer a
  // duplicate (its created_at is long past the clock window now).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(6);
  OkReply again;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    again = c->publish(notes[1]);
  } while (again.reason == "duplicate:" && std::chrono::steady_clock::now() < until);
  EXPECT_FALSE(again.accepted);
  EXPECT_NE(again.reason, "duplicate:");
  EXPECT_TRUE(relay->terminate());
}

}  // namespace
}  // namespace buzz::test
