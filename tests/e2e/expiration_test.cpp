// End-to-end tests of NIP-40 expiration (docs/reference/kinds.md §7, docs/storage.md
// "Expiration") against the real binary, on RocksDB and (ctest's pg: run) PostgreSQL:
// an event already expired is refused; one that expires is served until then, then
// hidden from every read path (REQ by id and by channel, COUNT, NIP-50 and REST search,
// GET /api/events, the feed, NIP-77), and the reaper erases it and audits the removal.
// A non-member never sees a private channel's expiring event, before or after.
#include <gtest/gtest.h>

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "engine/negentropy.h"
#include "tests/e2e/api_fixture.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/e2e/pg_test_store.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;
using namespace std::chrono_literals;

class ExpirationTest : public ApiFixture<ExpirationTest> {
 public:
  // The reaper's pass every second, so the erasure comes within the test's wait.
  static std::vector<std::string> relay_args() { return {"--rate-limits", "false", "--reaper-interval", "1"}; }

 protected:

  // Waits (up to `limit`) until `done` holds; false if it never did.
  static bool eventually(const std::function<bool()>& done, std::chrono::milliseconds limit = 6000ms) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(100ms);
    }
    return true;
  }

  // The ids a NIP-77 session over `filter` says the relay has (this side starts empty).
  static std::vector<std::string> neg_ids(NostrClient& c, const std::string& filter) {
    engine::negentropy::ItemSet none;
    engine::negentropy::Reconciler reconciler(none, 0);
    std::string message = reconciler.initiate();
    EXPECT_TRUE(c.send(R"(["NEG-OPEN","n",)" + filter + R"(,")" + engine::to_hex(reinterpret_cast<const uint8_t*>(message.data()), message.size()) + R"("])"));
    std::vector<std::string> ids;
    for (;;) {
      auto m = c.wait_for([](const RelayMessage& r) { return r.type == "NEG-MSG" || r.type == "NEG-ERR"; });
      if (!m || m->type != "NEG-MSG") {
        ADD_FAILURE() << "NEG: " << (m ? m->raw : "no answer");
        break;
      }
      simdjson::dom::parser parser;
      std::string_view payload;
      EXPECT_FALSE(parser.parse(m->raw).at(2).get_string().get(payload)) << m->raw;
      std::string bytes(payload.size() / 2, '\0');
      EXPECT_TRUE(engine::hex_decode(payload, reinterpret_cast<uint8_t*>(bytes.data()), bytes.size()));
      auto out = reconciler.reconcile(bytes);
      if (!out) {
        ADD_FAILURE() << out.error();
        break;
      }
      for (const engine::Id& id : out->need) ids.push_back(engine::to_hex(id));
      if (out->next.empty()) break;
      EXPECT_TRUE(c.send(R"(["NEG-MSG","n",")" + engine::to_hex(reinterpret_cast<const uint8_t*>(out->next.data()), out->next.size()) + R"("])"));
    }
    EXPECT_TRUE(c.send(R"(["NEG-CLOSE","n"])"));
    return ids;
  }

  static int64_t count_of(NostrClient& c, const std::string& filter) {
    auto m = c.count("c", filter);
    return m ? m->count : -1;
  }
};

TEST_F(ExpirationTest, AnExpiredEventIsRefusedAtIngest) {
  Keypair alice = engine::generate_keypair();
  auto c = client(alice);
  OkReply past = c->publish(make_event(alice, 1, "too late", {{"expiration", std::to_string(unix_now() - 10)}}));
  EXPECT_FALSE(past.accepted);
  EXPECT_EQ(past.reason, "invalid: event has expired");
  OkReply bad = c->publish(make_event(alice, 1, "when?", {{"expiration", "tomorrow"}}));
  EXPECT_FALSE(bad.accepted);
  EXPECT_EQ(bad.reason, "invalid: expiration tag must be a Unix timestamp");
  // Over REST too: the same ingest.
  Event late = make_event(alice, 1, "too late by post", {{"expiration", std::to_string(unix_now() - 1)}});
  HttpReply posted = signed_call(alice, "POST", "/api/events", late.raw);
  EXPECT_NE(posted.body.find("invalid: event has expired"), std::string::npos) << posted.status << " " << posted.body;
  EXPECT_TRUE(c->req("r", R"({"authors":[")" + hex(alice) + R"("]})").events.empty());
}

TEST_F(ExpirationTest, AnExpiringMessageIsServedThenHiddenEverywhereThenErasedAndAudited) {
  Keypair owner = engine::generate_keypair(), outsider = engine::generate_keypair();
  auto c = client(owner);
  auto o = client(outsider);
  const std::string secret = "e1000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", secret}, {"name", "vanish"}, {"visibility", "private"}})).accepted);
  Event keeps = make_event(owner, 9, "the quetzal stays", {{"h", secret}, {"p", hex(owner)}}, unix_now() - 2);
  const uint64_t expires_at = unix_now() + 4;
  Event goes = make_event(owner, 9, "the quetzal vanishes", {{"h", secret}, {"p", hex(owner)}, {"expiration", std::to_string(expires_at)}});
  ASSERT_TRUE(c->publish(keeps).accepted);
  OkReply ok = c->publish(goes);
  ASSERT_TRUE(ok.accepted) << ok.reason;
  const std::string by_id = R"({"ids":[")" + goes.id_hex() + R"("]})";
  const std::string in_channel = R"({"kinds":[9],"#h":[")" + secret + R"("]})";

  // Served before it expires: to the member on every path, never to the outsider.
  EXPECT_EQ(ids_of(c->req("a", by_id).events), std::vector<std::string>{goes.id_hex()});
  EXPECT_EQ(ids_of(c->req("b", in_channel).events), (std::vector<std::string>{goes.id_hex(), keeps.id_hex()}));
  EXPECT_EQ(count_of(*c, in_channel), 2);
  EXPECT_EQ(get(owner, "/api/events/" + goes.id_hex()).status, 200);
  EXPECT_TRUE(eventually([&] { return get(owner, "/api/search?q=quetzal").body.find(goes.id_hex()) != std::string::npos; }, 2000ms));
  const std::vector<std::string> negged = neg_ids(*c, in_channel);
  EXPECT_NE(std::find(negged.begin(), negged.end(), goes.id_hex()), negged.end());
  EXPECT_TRUE(o->req("x", by_id).events.empty());
  EXPECT_EQ(get(outsider, "/api/events/" + goes.id_hex()).status, 404);
  ASSERT_LT(unix_now(), expires_at) << "the checks before expiry took too long";

  // Hidden once expired, on every path, though the reaper may not have run yet.
  ASSERT_TRUE(eventually([&] { return c->req("a", by_id).events.empty(); })) << "still served after its expiration";
  EXPECT_EQ(ids_of(c->req("b", in_channel).events), std::vector<std::string>{keeps.id_hex()});
  EXPECT_EQ(count_of(*c, in_channel), 1);
  EXPECT_EQ(get(owner, "/api/events/" + goes.id_hex()).status, 404);
  const std::string found = get(owner, "/api/search?q=quetzal").body;
  EXPECT_EQ(found.find(goes.id_hex()), std::string::npos) << found;
  EXPECT_NE(found.find(keeps.id_hex()), std::string::npos) << found;
  EXPECT_TRUE(c->req("s", R"({"kinds":[9],"search":"vanishes"})").events.empty());
  EXPECT_EQ(get(owner, "/api/feed").body.find(goes.id_hex()), std::string::npos);
  EXPECT_EQ(neg_ids(*c, in_channel), std::vector<std::string>{keeps.id_hex()});
  EXPECT_TRUE(o->req("x", by_id).events.empty());

  // Erased by the reaper: the id is no longer known, so the event is no longer
  // a duplicate but refused as expired.
  EXPECT_TRUE(eventually([&] { return c->publish(goes).reason == "invalid: event has expired"; }))
      << "not erased: " << c->publish(goes).reason;
  // The removal is in the audit chain, the author's, as a deletion.
  std::string store, error;
  ASSERT_TRUE(pg_test_store_for(relay_->data_dir(), &store, &error)) << error;
  const std::string where = store.empty() ? "--data-dir " + relay_->data_dir() : "--store '" + store + "'";
  std::string tail;
  EXPECT_TRUE(eventually([&] {
    int status = 0;
    tail = run_buzz("audit tail -n 50 " + where, &status);
    return tail.find(R"("event_id":")" + goes.id_hex()) != std::string::npos &&
           tail.find(R"("action":"event_deleted")") != std::string::npos;
  })) << tail;
  const std::string entry = R"("event_id":")" + goes.id_hex() + R"(","kind":9)";
  const size_t at = tail.rfind(entry);
  ASSERT_NE(at, std::string::npos) << tail;
  const std::string line = tail.substr(tail.rfind('\n', at) + 1, tail.find('\n', at) - tail.rfind('\n', at) - 1);
  EXPECT_NE(line.find(R"("action":"event_deleted")"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("actor":")" + hex(owner) + "\""), std::string::npos) << line;
  EXPECT_NE(line.find(R"("expired_at":)" + std::to_string(expires_at)), std::string::npos) << line;
  int status = 0;
  const std::string verified = run_buzz("audit verify " + where, &status);
  EXPECT_EQ(status, 0) << verified;
}

}  // namespace
}  // namespace buzz::test
