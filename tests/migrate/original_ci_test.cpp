// `buzz serve --store postgres://…` set up the way the original's desktop CI
// sets up its relay (issue 35 §1): a database made from the original's schema
// alone (no audit_log table: the original's relay creates it when it starts),
// BUZZ_REQUIRE_AUTH_TOKEN=false and BUZZ_RECONCILE_CHANNELS=true, team rows
// inserted into the tables a few seconds after the start, and a client that
// reads over WebSocket and over the HTTP bridge with an X-Pubkey header.
// Denied case first: a first start that fails adopts nothing and publishes
// nothing, so the retry starts afresh.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <thread>

#include "engine/signature.h"
#include "migrate/pg_schema.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tests/migrate/pg_test_db.h"

namespace buzz::test {
namespace {

using engine::Keypair;

constexpr const char* kGeneral = "6f1c2a10-3b4d-4e5f-8a9b-0c1d2e3f4a01";
constexpr const char* kAliceTyler = "6f1c2a10-3b4d-4e5f-8a9b-0c1d2e3f4a04";

// The original's schema.sql: our copy of its HEAD schema (migrate/pg_schema.h)
// without what its relay adds at start-up (audit_log) and our own tables.
void create_original_schema(migrate::PgConnection& c) {
  ASSERT_TRUE(c.exec(migrate::head_schema_sql() + migrate::event_index_sql()));
  ASSERT_TRUE(c.exec("DROP TABLE audit_log; DROP TABLE buzz_event_raw; DROP TABLE buzz_migrate_progress"));
}

struct People {
  Keypair tyler = engine::generate_keypair(), alice = engine::generate_keypair(), bob = engine::generate_keypair(),
          agent = engine::generate_keypair(), outsider = engine::generate_keypair();
};

// tests/migrate/fixtures/desktop_team.sql with the people's pubkeys.
std::string team_sql(const People& p) {
  std::ifstream in(std::string(BUZZ_TEST_FIXTURES) + "/desktop_team.sql");
  std::stringstream text;
  text << in.rdbuf();
  std::string sql = text.str();
  EXPECT_FALSE(sql.empty());
  const std::pair<const char*, const Keypair*> names[] = {
      {"${TYLER}", &p.tyler}, {"${ALICE}", &p.alice}, {"${BOB}", &p.bob}, {"${AGENT}", &p.agent}};
  for (const auto& [name, key] : names) {
    for (size_t at; (at = sql.find(name)) != std::string::npos;) sql.replace(at, std::strlen(name), hex(*key));
  }
  return sql;
}

// A bridge /query with the development header: the events' (kind, d tag) pairs.
std::set<std::pair<int64_t, std::string>> query_as(const RelayProcess& relay, const Keypair& who, const std::string& filters,
                                                   int* status = nullptr) {
  HttpReply r = http_call(relay.port(), "POST", "/query", {{"X-Pubkey", hex(who)}, {"Content-Type", "application/json"}}, filters);
  if (status) *status = r.status;
  std::set<std::pair<int64_t, std::string>> out;
  simdjson::dom::parser parser;
  simdjson::dom::array events;
  if (r.status != 200 || parser.parse(r.body).get_array().get(events)) return out;
  for (simdjson::dom::element e : events) {
    std::string d;
    simdjson::dom::array tags;
    if (e["tags"].get_array().get(tags)) continue;
    for (simdjson::dom::element t : tags) {
      simdjson::dom::array tag = t.get_array().value_unsafe();
      if (tag.size() >= 2 && tag.at(0).get_string().value_unsafe() == "d") d = std::string(tag.at(1).get_string().value_unsafe());
    }
    out.insert({e["kind"].get_int64().value_unsafe(), d});
  }
  return out;
}

std::unique_ptr<RelayProcess> serve_like_original_ci(const PgTestDb& pg, const std::string& data_dir = "") {
  RelayOptions opts;
  opts.extra_args = {"--store", pg.url(), "--open"};
  opts.env = {{"BUZZ_REQUIRE_AUTH_TOKEN", "false"}, {"BUZZ_RECONCILE_CHANNELS", "true"}};
  opts.data_dir = data_dir;
  std::string error;
  auto relay = RelayProcess::start(opts, &error);
  EXPECT_TRUE(relay) << error;
  return relay;
}

// A REQ's stored events, on a subscription of its own (an earlier one stays
// open and would take the live copies).
std::vector<engine::Event> stored(NostrClient& c, const std::string& filter) {
  static int n = 0;
  return c.req("s" + std::to_string(++n), filter).events;
}

// Polls `done` every 200 ms for up to `seconds`.
bool within(int seconds, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return true;
}

TEST(OriginalCiSetUp, AFailedFirstStartAdoptsAndPublishesNothingAndARetryServes) {
  PgTestDb pg("original_ci_retry");
  create_original_schema(*pg.connect());
  People p;
  ASSERT_TRUE(pg.connect()->exec(team_sql(p)));
  char tmpl[] = "/tmp/buzz-original-ci.XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  // The start fails after the store opened (Redis is not there).
  int status = -1;
  const std::string out = run_buzz("serve --data-dir " + dir + " --bind 127.0.0.1:0 --open --reconcile-channels true --store '" +
                                       pg.url() + "' --pubsub redis://127.0.0.1:1",
                                   &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM events WHERE kind BETWEEN 39000 AND 39002"), "0") << out;
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM buzz_serve_meta WHERE key = 'team_state_adopted'"), "0");
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM buzz_state"), "0");
  // The retry, as the original's CI starts it: the audit table is created, the team adopted, the channels served.
  auto relay = serve_like_original_ci(pg, dir);
  ASSERT_TRUE(relay);
  EXPECT_EQ(pg.scalar("SELECT to_regclass('audit_log') IS NOT NULL"), "t");
  std::string error;
  auto tyler = NostrClient::connect_authed(*relay, p.tyler, &error);
  ASSERT_TRUE(tyler) << error;
  const std::string general = std::string(R"({"kinds":[39000],"#d":[")") + kGeneral + R"("]})";
  EXPECT_TRUE(within(10, [&] { return stored(*tyler, general).size() == 1; }));
  relay.reset();
  std::filesystem::remove_all(dir);
}

TEST(OriginalCiSetUp, TeamRowsSeededAfterStartBecomeChannelsOverReqAndTheBridge) {
  PgTestDb pg("original_ci_seeded");
  create_original_schema(*pg.connect());
  People p;
  auto relay = serve_like_original_ci(pg);
  ASSERT_TRUE(relay);
  HttpReply ready = http_get(relay->port(), "/_readiness");
  EXPECT_EQ(ready.body, R"({"status":"ready","storage":"postgres"})");
  // As the original's CI: the relay is up, then the script inserts the rows.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  ASSERT_TRUE(pg.connect()->exec(team_sql(p)));
  const auto seeded = std::chrono::steady_clock::now();

  std::string error;
  auto tyler = NostrClient::connect_authed(*relay, p.tyler, &error);
  ASSERT_TRUE(tyler) << error;
  const std::string general = std::string(R"({"kinds":[39000],"#d":[")") + kGeneral + R"("]})";
  // The next attempt, at most 5 s later, adopts them and publishes their group state.
  ASSERT_TRUE(within(15, [&] { return stored(*tyler, general).size() == 1; }));
  EXPECT_LT(std::chrono::steady_clock::now() - seeded, std::chrono::seconds(8));
  std::vector<engine::Event> meta = stored(*tyler, general);
  ASSERT_EQ(meta.size(), 1u);
  EXPECT_EQ(meta[0].first_tag_value("name"), "general");

  // The desktop bridge's own reads: its channels by 39002 #p, every 39000.
  const std::string mine = R"([{"kinds":[39002],"#p":[")" + hex(p.tyler) + R"("],"limit":1000}])";
  auto memberships = query_as(*relay, p.tyler, mine);
  EXPECT_EQ(memberships.size(), 4u);
  EXPECT_TRUE(memberships.count({39002, kGeneral}));
  EXPECT_TRUE(memberships.count({39002, kAliceTyler}));
  auto all = query_as(*relay, p.tyler, R"([{"kinds":[39000],"limit":200}])");
  EXPECT_TRUE(all.count({39000, kGeneral}));
  EXPECT_TRUE(all.count({39000, kAliceTyler}));
  // The private DM's state stays with its members.
  auto outside = query_as(*relay, p.outsider, R"([{"kinds":[39000],"limit":200}])");
  EXPECT_TRUE(outside.count({39000, kGeneral}));
  EXPECT_FALSE(outside.count({39000, kAliceTyler}));
  EXPECT_TRUE(query_as(*relay, p.outsider, R"([{"kinds":[39002],"#p":[")" + hex(p.outsider) + R"("]}])").empty());

  // And its writes: a message to #general over /events, read back by another member.
  engine::Event hello = make_event(p.alice, 9, "hello from the bridge", {{"h", kGeneral}});
  HttpReply posted = http_call(relay->port(), "POST", "/events", {{"X-Pubkey", hex(p.alice)}, {"Content-Type", "application/json"}},
                               hello.raw);
  EXPECT_EQ(posted.status, 200) << posted.body;
  EXPECT_EQ(stored(*tyler, std::string(R"({"kinds":[9],"#h":[")") + kGeneral + R"("]})").size(), 1u);
  // Every use of the header is logged.
  EXPECT_NE(relay->stderr_text().find("X-Pubkey development authentication"), std::string::npos);
}

}  // namespace
}  // namespace buzz::test
