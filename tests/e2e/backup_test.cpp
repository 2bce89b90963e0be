// End-to-end tests of `buzz backup`, `buzz backup verify` and `buzz restore`
// against the real binary (docs/storage.md, "Backup"): a backup taken while
// clients keep publishing holds every event acknowledged before it began, its
// audit chain verifies to the manifest's head, and the restored directory
// serves; a tampered file is found; restore writes only into a new directory;
// a stopped data directory is backed up without a relay.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/cli_process.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/e2e/media_fixture.h"
#include "tests/e2e/scratch_dir.h"

namespace buzz::test {
namespace {

namespace fs = std::filesystem;

struct Head {
  uint64_t seq = 0;
  std::string hash;
  bool operator==(const Head&) const = default;
};

Head manifest_head(const std::string& backup) {
  std::ifstream in(backup + "/manifest.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  Head h;
  if (parser.parse(text).get(root)) return ADD_FAILURE() << "manifest is not JSON: " << text, h;
  std::string_view hash;
  EXPECT_FALSE(root["audit_head"]["seq"].get(h.seq));
  EXPECT_FALSE(root["audit_head"]["hash"].get(hash));
  h.hash = hash;
  return h;
}

Head audit_head(const std::string& data_dir) {
  CliRun r = run_cli({"audit", "head", "--data-dir", data_dir});
  EXPECT_EQ(r.status, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  Head h;
  if (parser.parse(r.out).get(root)) return ADD_FAILURE() << r.out, h;
  std::string_view hash;
  EXPECT_FALSE(root["seq"].get(h.seq));
  EXPECT_FALSE(root["hash"].get(hash));
  h.hash = hash;
  return h;
}

// Which of `ids` the relay at `relay` serves, asked in filters of 100 ids.
std::set<std::string> stored(const RelayProcess& relay, const std::vector<std::string>& ids) {
  std::string error;
  auto c = NostrClient::connect_authed(relay, engine::generate_keypair(), &error);
  EXPECT_NE(c, nullptr) << error;
  std::set<std::string> found;
  if (!c) return found;
  for (size_t i = 0; i < ids.size(); i += 100) {
    std::string filter = "{\"ids\":[";
    for (size_t j = i; j < std::min(ids.size(), i + 100); ++j) filter += (j > i ? ",\"" : "\"") + ids[j] + "\"";
    filter += "]}";
    ReqResult r = c->req("b" + std::to_string(i), filter);
    EXPECT_TRUE(r.eose) << why(r);
    for (const engine::Event& e : r.events) found.insert(engine::to_hex(e.id));
  }
  return found;
}

class BackupTest : public MediaTest {
 protected:
  void SetUp() override {
    relay_ = start({"--open", "--rate-limits", "false"});
  }
  std::string path(const std::string& name) const { return scratch_ / name; }

  const ScratchDir scratch_{"backup-e2e"};
};

// Clients publishing without pause, each with up to 16 events in flight,
// recording every id that got OK true.
class Ingest {
 public:
  Ingest(const RelayProcess& relay, int connections) {
    for (int t = 0; t < connections; ++t) {
      threads_.emplace_back([this, &relay] {
        engine::Keypair key = engine::generate_keypair();
        std::string error;
        auto c = NostrClient::connect_authed(relay, key, &error);
        if (!c) return;
        size_t sent = 0, done = 0;
        while (!stop_ || done < sent) {
          while (!stop_ && sent - done < 16) c->send("[\"EVENT\"," + make_event(key, 1, "backup load " + std::to_string(sent++)).raw + "]");
          auto m = c->next_message(5000);
          if (!m) return;
          if (m->type != "OK") continue;
          ++done;
          std::lock_guard lock(mu_);
          if (m->accepted) acked_.push_back(m->id);
        }
      });
    }
  }
  ~Ingest() { finish(); }
  std::vector<std::string> acked() {
    std::lock_guard lock(mu_);
    return acked_;
  }
  void finish() {
    stop_ = true;
    for (auto& t : threads_) if (t.joinable()) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<std::string> acked_;
  std::vector<std::thread> threads_;
};

TEST_F(BackupTest, OnlineBackupDuringIngestRestoresEveryAcknowledgedEventAndTheAuditHead) {
  ASSERT_EQ(upload("a blob to back up", alice_).status, 200);
  Ingest ingest(*relay_, 3);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (ingest.acked().size() < 1000 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE(ingest.acked().size(), 1000u) << "the ingest does not get its OKs";
  const std::vector<std::string> before = ingest.acked();
  CliRun backup = run_cli({"backup", "--to", path("b"), "--data-dir", relay_->data_dir(), "--json"});
  const size_t during = ingest.acked().size() - before.size();
  ingest.finish();
  ASSERT_EQ(backup.status, 0) << backup.err << backup.out;
  EXPECT_NE(backup.out.find("\"online\":true"), std::string::npos) << backup.out;
  EXPECT_GT(during, 0u) << "ingest went on while the backup ran";
  // The relay dropped the staging files once the copy was done.
  for (const auto& e : fs::directory_iterator(relay_->data_dir())) {
    EXPECT_EQ(e.path().filename().string().rfind("backup-staging", 0), std::string::npos) << e.path();
  }
  EXPECT_TRUE(relay_->terminate());

  CliRun verify = run_cli({"backup", "verify", path("b")});
  EXPECT_EQ(verify.status, 0) << verify.err << verify.out;
  CliRun restore = run_cli({"restore", path("b"), "--data-dir", path("restored")});
  ASSERT_EQ(restore.status, 0) << restore.err << restore.out;
  const Head recorded = manifest_head(path("b"));
  EXPECT_GT(recorded.seq, before.size());
  EXPECT_EQ(audit_head(path("restored")), recorded);
  CliRun audit = run_cli({"audit", "verify", "--data-dir", path("restored")});
  EXPECT_EQ(audit.status, 0) << audit.out << audit.err;

  auto served = start({"--open"}, {}, path("restored"));
  ASSERT_TRUE(served);
  const std::set<std::string> found = stored(*served, before);
  EXPECT_EQ(found.size(), before.size()) << "events acknowledged before the backup began are missing";
  EXPECT_EQ(files_in("blobs", served.get()), files_in("blobs", relay_.get()));
  // Whatever the restored relay appends, the chain still holds the manifest's head.
  CliRun upto = run_cli({"audit", "verify", "--to", std::to_string(recorded.seq), "--data-dir", path("restored")});
  EXPECT_NE(upto.out.find("\"last_hash\":\"" + recorded.hash + "\""), std::string::npos) << upto.out;
}

TEST_F(BackupTest, VerifyFindsATamperedFileAndRestoreRefusesItAndAnyNonEmptyDirectory) {
  std::string error;
  auto c = NostrClient::connect_authed(*relay_, alice_, &error);
  ASSERT_TRUE(c) << error;
  ASSERT_TRUE(c->publish(make_event(alice_, 1, "kept")).accepted);
  ASSERT_EQ(run_cli({"backup", "--to", path("b"), "--data-dir", relay_->data_dir()}).status, 0);
  ASSERT_EQ(run_cli({"backup", "verify", path("b")}).status, 0);

  // Restore writes only into a new directory, even from a good backup.
  fs::create_directories(path("occupied"));
  std::ofstream(path("occupied") + "/something") << "x";
  CliRun occupied = run_cli({"restore", path("b"), "--data-dir", path("occupied")});
  EXPECT_EQ(occupied.status, 2) << occupied.err;
  EXPECT_NE(occupied.err.find("not empty"), std::string::npos) << occupied.err;

  // One byte of the audit segment changed: its digest and the chain both say so.
  std::string segment;
  for (const auto& e : fs::directory_iterator(path("b") + "/audit")) segment = e.path().string();
  ASSERT_FALSE(segment.empty());
  {
    std::fstream f(segment, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f.put('!');
  }
  CliRun verify = run_cli({"backup", "verify", path("b"), "--json"});
  EXPECT_EQ(verify.status, 1) << verify.out;
  EXPECT_NE(verify.out.find("SHA-256 differs"), std::string::npos) << verify.out;
  EXPECT_NE(verify.out.find(fs::path(segment).filename().string()), std::string::npos) << verify.out;
  CliRun restore = run_cli({"restore", path("b"), "--data-dir", path("new")});
  EXPECT_EQ(restore.status, 1) << restore.err;
  EXPECT_FALSE(fs::exists(path("new") + "/db")) << "nothing is restored from a damaged backup";

  // A file slipped in is found too.
  CliRun extra_backup = run_cli({"backup", "--to", path("c"), "--data-dir", relay_->data_dir()});
  ASSERT_EQ(extra_backup.status, 0) << extra_backup.err;
  std::ofstream(path("c") + "/db/000999.sst") << "not ours";
  CliRun extra = run_cli({"backup", "verify", path("c")});
  EXPECT_EQ(extra.status, 1);
  EXPECT_NE(extra.err.find("db/000999.sst: not in the manifest"), std::string::npos) << extra.err;
}

TEST_F(BackupTest, AStoppedDataDirectoryIsBackedUpOfflineAndRestoresToServe) {
  std::string error;
  std::vector<std::string> ids;
  {
    auto c = NostrClient::connect_authed(*relay_, alice_, &error);
    ASSERT_TRUE(c) << error;
    for (int i = 0; i < 20; ++i) {
      engine::Event e = make_event(alice_, 1, "offline " + std::to_string(i));
      ASSERT_TRUE(c->publish(e).accepted);
      ids.push_back(engine::to_hex(e.id));
    }
  }
  ASSERT_TRUE(relay_->terminate());
  EXPECT_FALSE(fs::exists(relay_->data_dir() + "/control.sock")) << "the relay removes its socket when it stops";
  CliRun backup = run_cli({"backup", "--to", path("b"), "--data-dir", relay_->data_dir(), "--json"});
  ASSERT_EQ(backup.status, 0) << backup.err << backup.out;
  EXPECT_NE(backup.out.find("\"online\":false"), std::string::npos) << backup.out;
  EXPECT_EQ(audit_head(relay_->data_dir()), manifest_head(path("b")));
  ASSERT_EQ(run_cli({"restore", path("b"), "--data-dir", path("restored")}).status, 0);
  auto served = start({"--open"}, {}, path("restored"));
  ASSERT_TRUE(served);
  EXPECT_EQ(stored(*served, ids).size(), ids.size());
  // The search index was rebuilt by restore.
  auto c = NostrClient::connect_authed(*served, alice_, &error);
  ASSERT_TRUE(c) << error;
  ReqResult found = c->req("s", R"({"search":"offline","kinds":[1]})");
  EXPECT_EQ(found.events.size(), ids.size()) << why(found);
}

TEST_F(BackupTest, TheControlSocketIsTheOwnersOnly) {
  struct stat st{};
  ASSERT_EQ(::stat((relay_->data_dir() + "/control.sock").c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

}  // namespace
}  // namespace buzz::test
