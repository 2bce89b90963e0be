// `buzz serve --store postgres://…` against a real PostgreSQL (the ctest fixture
// `postgres`): a database the original wrote is served as it is (its channel's
// privacy held by every path), the audit chain continues from the original's
// rows and verifies, data survives a restart, two nodes share one store and one
// chain, and a store that cannot be served stops the start with a clear message.
// (The relay's whole end-to-end behaviour on PostgreSQL: the `pg:` ctest entries.)
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tests/migrate/original_db.h"
#include "tests/migrate/pg_test_db.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

std::string buzz_cli(const std::string& args, int expect_status) {
  int status = -1;
  std::string out = run_buzz(args, &status);
  EXPECT_EQ(status, expect_status) << "buzz " << args << "\n" << out;
  return out;
}

// `buzz audit verify --store`, once the chain holds at least `min_entries`
// (the writer appends after the OKs); its "entries" count, or 0 if it failed.
uint64_t verified_entries(const std::string& url, uint64_t min_entries) {
  uint64_t entries = 0;
  for (int i = 0; i < 50 && entries < min_entries; ++i) {
    if (i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::string out = buzz_cli("audit verify --store '" + url + "'", 0);
    const std::string ok = "\"ok\":true,\"entries\":";
    const size_t at = out.find(ok);
    if (at == std::string::npos) return 0;
    entries = std::strtoull(out.c_str() + at + ok.size(), nullptr, 10);
  }
  return entries;
}

std::unique_ptr<RelayProcess> serve(const std::string& url, const std::string& data_dir = "") {
  RelayOptions opts;
  opts.extra_args = {"--store", url, "--open"};
  opts.data_dir = data_dir;
  std::string error;
  auto relay = RelayProcess::start(opts, &error);
  EXPECT_TRUE(relay) << error;
  return relay;
}

HttpReply get_signed(const RelayProcess& relay, const Keypair& key, const std::string& path) {
  const std::string url = "http://127.0.0.1:" + std::to_string(relay.port()) + path;
  return http_call(relay.port(), "GET", path, {{"Authorization", nip98_header(key, url, "GET")}});
}

TEST(ServeOnPostgres, ServesADatabaseTheOriginalWroteAsItIs) {
  PgTestDb pg("served_original");
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  const OriginalDb original = write_original_db(*pg.connect(), alice, false);
  const std::string filter = R"({"#h":[")" + original.channel + R"("]})";
  char tmpl[] = "/tmp/buzz-serve-pg.XXXXXX";
  const std::string data_dir = mkdtemp(tmpl);
  Event reply;
  {
    auto relay = serve(pg.url(), data_dir);
    ASSERT_TRUE(relay);
    std::string error;
    auto a = NostrClient::connect_authed(*relay, alice, &error);
    auto b = NostrClient::connect_authed(*relay, bob, &error);
    ASSERT_TRUE(a && b) << error;
    // The member reads the original's message, byte for byte.
    ReqResult mine = a->req("h", filter);
    ASSERT_EQ(mine.events.size(), 1u) << (mine.closed ? *mine.closed : "");
    EXPECT_EQ(mine.events[0].raw, original.message.raw);
    // The non-member gets it by no path: REQ, ids, COUNT, search, REST.
    ReqResult theirs = b->req("h", filter);
    EXPECT_TRUE(theirs.events.empty());
    EXPECT_TRUE(theirs.closed && theirs.closed->rfind("restricted:", 0) == 0) << (theirs.closed ? *theirs.closed : "no CLOSED");
    EXPECT_TRUE(b->req("i", R"({"ids":[")" + original.message.id_hex() + R"("]})").events.empty());
    auto counted = b->count("c", filter);
    ASSERT_TRUE(counted);
    EXPECT_TRUE(counted->type == "CLOSED" || counted->count == 0) << counted->raw;
    EXPECT_TRUE(b->req("s", R"({"search":"original"})").events.empty());
    EXPECT_EQ(get_signed(*relay, bob, "/api/events/" + original.message.id_hex()).status, 404);
    EXPECT_EQ(get_signed(*relay, alice, "/api/events/" + original.message.id_hex()).status, 200);
    // A search by the member finds it (PostgreSQL full text, inside her channels).
    EXPECT_EQ(a->req("s", R"({"search":"original"})").events.size(), 1u);
    // The chain goes on from the original's row (hashed over nanoseconds).
    reply = make_event(alice, 9, "answered on buzz", {{"h", original.channel}});
    ASSERT_TRUE(a->publish(reply).accepted);
  }
  // Row 1 is the original's (hashed over nanoseconds), then the relay's own entries.
  EXPECT_GE(verified_entries(pg.url(), 2), 2u);
  EXPECT_EQ(buzz_cli("audit head --store '" + pg.url() + "'", 0).find("{\"seq\":1,"), std::string::npos);
  // A restart on the same database keeps everything.
  {
    auto relay = serve(pg.url(), data_dir);
    ASSERT_TRUE(relay);
    std::string error;
    auto a = NostrClient::connect_authed(*relay, alice, &error);
    ASSERT_TRUE(a) << error;
    ReqResult both = a->req("h", filter);
    ASSERT_EQ(both.events.size(), 2u);
    // Newest first; in the same second the lower id comes first (docs/reference/protocol.md §9.4).
    EXPECT_TRUE(both.events[0].raw == reply.raw || both.events[1].raw == reply.raw);
  }
  std::filesystem::remove_all(data_dir);
}

TEST(ServeOnPostgres, TwoNodesShareTheStoreAndOneAuditChain) {
  PgTestDb pg("two_nodes");
  auto a = serve(pg.url());
  auto b = serve(pg.url());
  ASSERT_TRUE(a && b);
  Keypair alice = engine::generate_keypair();
  std::string error;
  auto on_a = NostrClient::connect_authed(*a, alice, &error);
  auto on_b = NostrClient::connect_authed(*b, alice, &error);
  ASSERT_TRUE(on_a && on_b) << error;
  // Both nodes append at once: the chain stays one line.
  constexpr int kEach = 40;
  std::thread other([&] {
    for (int i = 0; i < kEach; ++i) EXPECT_TRUE(on_b->publish(make_event(alice, 1, "from b " + std::to_string(i))).accepted);
  });
  for (int i = 0; i < kEach; ++i) EXPECT_TRUE(on_a->publish(make_event(alice, 1, "from a " + std::to_string(i))).accepted);
  other.join();
  EXPECT_EQ(on_a->req("all", R"({"kinds":[1]})").events.size(), size_t(2 * kEach));
  EXPECT_EQ(on_b->req("all", R"({"kinds":[1]})").events.size(), size_t(2 * kEach));
  EXPECT_GE(verified_entries(pg.url(), 2 * kEach), uint64_t(2 * kEach));
}

TEST(ServeOnPostgres, AStoreItCannotServeStopsTheStartWithAClearMessage) {
  char tmpl[] = "/tmp/buzz-serve-pg.XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  auto start = [&](const std::string& url, int status) {
    return buzz_cli("serve --data-dir " + dir + " --bind 127.0.0.1:0 --open --store '" + url + "'", status);
  };
  std::string out = start("postgres://buzz:secret@127.0.0.1:1/none", 1);
  EXPECT_NE(out.find("cannot connect"), std::string::npos) << out;
  EXPECT_EQ(out.find("secret"), std::string::npos) << "the password is not printed";
  PgTestDb pg("cannot_serve");
  out = start(pg.url("wrong"), 1);
  EXPECT_NE(out.find("password authentication failed"), std::string::npos) << out;
  ASSERT_TRUE(pg.connect()->exec("CREATE TABLE events (id INT, body TEXT)"));
  out = start(pg.url(), 1);
  EXPECT_NE(out.find("unknown schema version"), std::string::npos) << out;
  PgTestDb seed("seed_era");
  write_original_db(*seed.connect(), engine::generate_keypair(), true);
  out = start(seed.url(), 1);
  EXPECT_NE(out.find("seed-era schema"), std::string::npos) << out;
  out = start("mysql://buzz:secret@host/db", 2);
  EXPECT_NE(out.find("expected postgres://"), std::string::npos) << out;
  EXPECT_EQ(out.find("secret"), std::string::npos) << "the password is not printed";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace buzz::test
