// Backing up a relay that serves PostgreSQL, as the README says (issue 34 §2):
// `buzz audit head`, then `pg_dump` while the relay keeps writing, restored
// with `pg_restore` into an empty database. The restored chain verifies, its
// entry at the recorded seq carries the recorded hash, and a relay serving the
// restored database serves every event acknowledged before the head was read.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tests/migrate/pg_test_db.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

// The PostgreSQL client programs of the cluster's own version (Debian keeps
// them beside the server's; /usr/bin/pg_dump is a wrapper that picks one).
std::string pg_program(const std::string& name) {
  std::string newest;
  for (const auto& dir : std::filesystem::directory_iterator("/usr/lib/postgresql")) {
    const std::string path = dir.path().string() + "/bin/" + name;
    if (std::filesystem::exists(path) && path > newest) newest = path;
  }
  return newest;
}

// The value of "key":"…" or "key":N in a one-line JSON answer.
std::string backup_field(const std::string& json, const std::string& key) {
  const std::string at = "\"" + key + "\":";
  size_t i = json.find(at);
  if (i == std::string::npos) return {};
  i += at.size();
  if (json[i] == '"') return json.substr(i + 1, json.find('"', i + 1) - i - 1);
  return json.substr(i, json.find_first_of(",}", i) - i);
}

TEST(PgBackupTest, ADumpTakenWhileTheRelayWritesRestoresWithTheAuditHeadItRecorded) {
  const std::string pg_dump = pg_program("pg_dump"), pg_restore = pg_program("pg_restore");
  ASSERT_FALSE(pg_dump.empty() || pg_restore.empty()) << "PostgreSQL's client programs are not installed";
  PgTestDb source("pg_backup_source"), restored("pg_backup_restored");
  Keypair alice = engine::generate_keypair();
  char tmpl[] = "/tmp/buzz-pg-backup.XXXXXX";
  const std::string data_dir = mkdtemp(tmpl);

  RelayOptions opts;
  opts.extra_args = {"--store", source.url(), "--open"};
  opts.data_dir = data_dir;
  std::string error;
  auto relay = RelayProcess::start(opts, &error);
  ASSERT_TRUE(relay) << error;
  auto client = NostrClient::connect_authed(*relay, alice, &error);
  ASSERT_TRUE(client) << error;
  std::vector<Event> before;
  for (int i = 0; i < 30; ++i) {
    before.push_back(make_event(alice, 1, "before the dump " + std::to_string(i)));
    ASSERT_TRUE(client->publish(before.back()).accepted);
  }

  // Writes go on through the head's reading and the whole dump.
  std::atomic<bool> writing{true};
  std::atomic<int> written{0};
  std::thread writer([&] {
    auto w = NostrClient::connect_authed(*relay, alice, nullptr);
    for (int i = 0; w && writing; ++i) written += w->publish(make_event(alice, 1, "during " + std::to_string(i))).accepted;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  int status = -1;
  const std::string head = run_buzz("audit head --store '" + source.url() + "'", &status);
  ASSERT_EQ(status, 0) << head;
  const std::string dump = data_dir + "/buzz.dump";
  int dumped = -1;
  const std::string out = run_command(pg_dump + " --format=custom --file " + dump + " --dbname '" + source.url() + "'", &dumped);
  writing = false;
  writer.join();
  ASSERT_EQ(dumped, 0) << out;
  EXPECT_GT(written.load(), 0) << "nothing was written during the dump";
  relay.reset();

  int restored_status = -1;
  const std::string restore_out = run_command(pg_restore + " --no-owner --dbname '" + restored.url() + "' " + dump, &restored_status);
  ASSERT_EQ(restored_status, 0) << restore_out;
  const std::string whole = run_buzz("audit verify --store '" + restored.url() + "'", &status);
  EXPECT_EQ(status, 0) << whole;
  EXPECT_EQ(backup_field(whole, "ok"), "true") << whole;
  const std::string seq = backup_field(head, "seq");
  ASSERT_FALSE(seq.empty()) << head;
  const std::string upto = run_buzz("audit verify --store '" + restored.url() + "' --to " + seq, &status);
  EXPECT_EQ(status, 0) << upto;
  EXPECT_EQ(backup_field(upto, "last_seq"), seq) << upto;
  EXPECT_EQ(backup_field(upto, "last_hash"), backup_field(head, "hash")) << "head at the dump: " << head << "\nrestored: " << upto;

  // A relay on the restored database serves what was acknowledged before.
  opts.extra_args = {"--store", restored.url(), "--open"};
  opts.data_dir = data_dir;
  relay = RelayProcess::start(opts, &error);
  ASSERT_TRUE(relay) << error;
  client = NostrClient::connect_authed(*relay, alice, &error);
  ASSERT_TRUE(client) << error;
  std::string ids;
  for (const Event& e : before) ids += (ids.empty() ? "\"" : ",\"") + e.id_hex() + "\"";
  EXPECT_EQ(client->req("r", "{\"ids\":[" + ids + "]}").events.size(), before.size());
  relay.reset();
  std::filesystem::remove_all(data_dir);
}

}  // namespace
}  // namespace buzz::test
