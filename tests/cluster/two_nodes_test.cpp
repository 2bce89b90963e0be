// Two `buzz serve` processes sharing one Redis (issue 17 §4), each test twice:
// /Embedded, each node on its own embedded store, so what crosses between
// them is exactly what Redis carries; /Postgres, both nodes on one PostgreSQL
// database (`--store postgres://…`), as a deployment runs them. Fan-out
// (exactly once, p99 publish→delivery), presence, the rate-limit windows, and
// a node killed with -9 leaving the other serving. The cases only a shared
// store has (a membership change on A applied on B at once) are
// SharedStoreTest's, and the lag queue's overflow is RemoteLagTest's.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include <unistd.h>

#include "engine/signature.h"
#include "tests/cluster/redis_test_server.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/e2e/nostr_client.h"
#include "tests/migrate/pg_test_db.h"

namespace buzz::test {
namespace {

using Clock = std::chrono::steady_clock;
using engine::Keypair;

enum class Store { kEmbedded, kPostgres };

std::unique_ptr<NostrClient> authed(const RelayProcess& relay, const Keypair& key) {
  std::string error;
  auto c = NostrClient::connect_authed(relay, key, &error);
  EXPECT_NE(c, nullptr) << error;
  return c;
}

HttpReply signed_call(const RelayProcess& relay, const Keypair& key, const std::string& method,
                      const std::string& path, const std::string& body = "") {
  const std::string url = "http://127.0.0.1:" + std::to_string(relay.port()) + path;
  return http_call(relay.port(), method, path,
                   {{"Authorization", nip98_header(key, url, method, body)}, {"Content-Type", "application/json"}},
                   body);
}

// The same signed events on both nodes: on embedded stores a channel the test
// needs on both is created on both (with identical events); on one shared
// store the second is a duplicate, answered OK too.
void on_both(NostrClient& a, NostrClient& b, const engine::Event& e) {
  ASSERT_TRUE(a.publish(e).accepted);
  ASSERT_TRUE(b.publish(e).accepted);
}

// A private channel `ch` of `owner` with `member` in it, on both nodes (the
// owner's connections to A and to B).
void private_channel_on_both(NostrClient& a, NostrClient& b, const Keypair& owner, const std::string& ch,
                             const Keypair& member) {
  on_both(a, b, make_event(owner, 9007, "", {{"h", ch}, {"name", "private"}, {"visibility", "private"}}));
  on_both(a, b, make_event(owner, 9000, "", {{"h", ch}, {"p", hex(member)}}));
}

std::string channel_filter(const std::string& ch) { return R"({"kinds":[9],"#h":[")" + ch + R"("]})"; }

// A REQ on the channel answered with EOSE, within two seconds: a channel made on
// the other node is known here once this node's writer has turned once.
bool can_read_channel(NostrClient& c, const std::string& ch) {
  for (int i = 0; i < 100; ++i) {
    ReqResult r = c.req("probe", channel_filter(ch));
    if (r.eose) return c.send(R"(["CLOSE","probe"])");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// What `read` answers on `relay`, once it is `want`, within five seconds. A
// status set on one node is in Redis only when that node's command queue has
// sent it (its reply does not wait for that), and a read on the other node
// answers from its own view when Redis does not reply within 100 ms: so the
// read is repeated until the shared state shows, not timed.
std::string read_until(const RelayProcess& relay, const Keypair& key, const std::string& read, const std::string& want) {
  std::string body;
  for (const auto deadline = Clock::now() + std::chrono::seconds(5); Clock::now() < deadline;) {
    body = signed_call(relay, key, "GET", read).body;
    if (body == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return body;
}

bool is_event(const RelayMessage& m, std::string_view content) {
  return m.type == "EVENT" && m.event.content == content;
}

// A database of its own per test on the `postgres` fixture's cluster.
std::string fresh_db_name() {
  static std::atomic<int> n{0};
  return "cluster_" + std::to_string(getpid()) + "_" + std::to_string(n++);
}

// Two nodes on one Redis and, on PostgreSQL, one database.
class TwoNodeBase : public ::testing::Test {
 protected:
  void SetUp() override {
    if (on_postgres()) db_ = std::make_unique<PgTestDb>(fresh_db_name());
    a_ = start_node(extra_args());
    b_ = start_node(extra_args());
    ASSERT_TRUE(a_ && b_);
  }
  virtual bool on_postgres() const = 0;
  virtual std::vector<std::string> extra_args() { return {"--rate-limits", "false"}; }
  std::unique_ptr<RelayProcess> start_node(std::vector<std::string> extra, const std::string& data_dir = "") {
    std::vector<std::string> args = {"--open", "--pubsub", test_redis_url(), "--sync-writes", "false"};
    if (db_) args.insert(args.end(), {"--store", db_->url()});
    args.insert(args.end(), extra.begin(), extra.end());
    return start_relay(RelayOptions{args, {}, data_dir});
  }
  std::unique_ptr<PgTestDb> db_;
  std::unique_ptr<RelayProcess> a_, b_;
};

class TwoNodeTest : public TwoNodeBase, public ::testing::WithParamInterface<Store> {
 protected:
  bool on_postgres() const override { return GetParam() == Store::kPostgres; }
};

std::string store_name(const ::testing::TestParamInfo<Store>& info) {
  return info.param == Store::kPostgres ? "Postgres" : "Embedded";
}

// 10,000 events published on A at a steady pace; B's subscriber sees each
// exactly once, and A's own subscriber too (its echo from Redis is skipped).
// The issue's count: on PostgreSQL each of A's batches is a transaction with a
// WAL flush, so the /Postgres run takes 20–40 s on a loaded 2-core machine.
TEST_P(TwoNodeTest, AnEventAcceptedOnAReachesASubscriberOnBExactlyOnce) {
  constexpr int kEvents = 10000;
  constexpr size_t kInFlight = 8;  // a paced publisher: latency, not queueing, is measured
  Keypair author = engine::generate_keypair();
  auto pub = authed(*a_, author);
  auto sub_b = authed(*b_, engine::generate_keypair());
  auto sub_a = authed(*a_, engine::generate_keypair());
  ASSERT_TRUE(pub && sub_b && sub_a);
  const std::string filter = R"({"kinds":[1],"authors":[")" + hex(author) + R"("]})";
  ASSERT_TRUE(sub_b->req("live", filter).eose);
  ASSERT_TRUE(sub_a->req("live", filter).eose);

  std::vector<engine::Event> events;
  for (int i = 0; i < kEvents; ++i) events.push_back(make_event(author, 1, "fan-out " + std::to_string(i)));
  std::mutex mu;
  std::unordered_map<std::string, Clock::time_point> sent_at;
  std::unordered_map<std::string, int> seen_b, seen_a;
  std::vector<double> latency_ms;
  std::string ended_b;  // why B's subscriber stopped early, if it did
  auto receive = [&](NostrClient& c, std::unordered_map<std::string, int>& seen, bool timed) {
    int got = 0;
    while (got < kEvents) {
      auto m = c.next_message(5000);
      if (!m) {
        if (timed) {
          ended_b = "after " + std::to_string(got) + " events: " +
                    (c.ws().closed() ? "closed, code " + std::to_string(c.ws().close_code()) : "nothing for 5 s");
        }
        return;
      }
      if (m->type != "EVENT") continue;
      const Clock::time_point now = Clock::now();
      std::lock_guard lock(mu);
      if (++seen[m->event.id_hex()] == 1) ++got;
      if (timed) latency_ms.push_back(std::chrono::duration<double, std::milli>(now - sent_at[m->event.id_hex()]).count());
    }
    auto extra = c.next_message(500);  // anything after the last one is a duplicate
    if (extra && extra->type == "EVENT") ++seen[extra->event.id_hex()];
  };
  {
    std::lock_guard lock(mu);
    for (const auto& e : events) sent_at[e.id_hex()];
  }
  std::thread on_b([&] { receive(*sub_b, seen_b, true); });
  std::thread on_a([&] { receive(*sub_a, seen_a, false); });
  size_t acked = 0, next = 0;
  while (acked < events.size()) {
    while (next < events.size() && next - acked < kInFlight) {
      {
        std::lock_guard lock(mu);
        sent_at[events[next].id_hex()] = Clock::now();
      }
      ASSERT_TRUE(pub->send(R"(["EVENT",)" + events[next].raw + "]"));
      ++next;
    }
    auto m = pub->next_message(5000);
    ASSERT_TRUE(m) << "no OK after " << acked << " events";
    if (m->type != "OK") continue;
    ASSERT_TRUE(m->accepted) << m->text;
    ++acked;
  }
  on_b.join();
  on_a.join();

  size_t once_b = 0, once_a = 0;
  for (const auto& e : events) {
    once_b += seen_b[e.id_hex()] == 1;
    once_a += seen_a[e.id_hex()] == 1;
  }
  EXPECT_EQ(once_b, size_t(kEvents)) << "B: events not seen exactly once; its subscriber stopped " << ended_b;
  EXPECT_EQ(seen_b.size(), size_t(kEvents));
  EXPECT_EQ(once_a, size_t(kEvents)) << "A: its own subscriber, once each";
  ASSERT_EQ(latency_ms.size(), size_t(kEvents));
  std::sort(latency_ms.begin(), latency_ms.end());
  const double p50 = latency_ms[latency_ms.size() / 2], p99 = latency_ms[latency_ms.size() * 99 / 100];
  std::printf("publish on A -> delivery on B over %d events: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", kEvents, p50,
              p99, latency_ms.back());
  // The target is p99 < 20 ms (12–13 ms here on a quiet machine, docs/performance.md, with
  // buzz-load); a 2-core CI box busy with a parallel build or test measures its scheduler
  // instead (430 ms at load 15 on the embedded store, 300 ms on PostgreSQL whose every event
  // also waits for A's commit), so the gate here only catches a stalled path: a loop waiting
  // on Redis would show seconds.
  EXPECT_LT(p99, 1000.0) << "p99 publish->delivery";
}

TEST_P(TwoNodeTest, PresenceSetOnAIsReadOnB) {
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  auto a = authed(*a_, alice);
  auto b = authed(*b_, bob);
  ASSERT_TRUE(a && b);
  // Presence is visible to those sharing a channel: the same channel on both nodes.
  const std::string ch = "c1000000-0000-4000-8000-" + hex(alice).substr(0, 12);
  {
    auto alice_on_b = authed(*b_, alice);
    auto bob_on_a = authed(*a_, bob);
    ASSERT_TRUE(alice_on_b && bob_on_a);
    on_both(*a, *alice_on_b, make_event(alice, 9007, "", {{"h", ch}, {"name", "team"}}));
    on_both(*bob_on_a, *b, make_event(bob, 9021, "", {{"h", ch}}));
  }
  ASSERT_TRUE(b->req("presence", R"({"kinds":[20001]})").eose);

  HttpReply put = signed_call(*a_, alice, "PUT", "/api/presence", R"({"status":"away"})");
  ASSERT_EQ(put.status, 200) << put.body;
  const std::string read = "/api/presence?pubkeys=" + hex(alice);
  const std::string away = "{\"" + hex(alice) + R"(":"away"})";
  EXPECT_EQ(read_until(*b_, bob, read, away), away);

  // A kind-20001 on A is both: B's subscriber hears it, and B reads the status.
  ASSERT_TRUE(a->publish(make_event(alice, 20001, "online")).accepted);
  auto heard = b->wait_for([](const RelayMessage& m) { return m.type == "EVENT" && m.event.kind == 20001; });
  ASSERT_TRUE(heard) << "the presence event did not cross";
  EXPECT_EQ(heard->event.content, "online");
  const std::string online = "{\"" + hex(alice) + R"(":"online"})";
  EXPECT_EQ(read_until(*b_, bob, read, online), online);

  a.reset();  // alice's last connection on A: offline everywhere
  const std::string offline = "{\"" + hex(alice) + R"(":"offline"})";
  EXPECT_EQ(read_until(*b_, bob, read, offline), offline);
}

// GET /api/channels/{id}/typing on B lists a member who typed on A (the 20002
// crosses by pub/sub into B's own typing window), and refuses a non-member on
// B as for a channel that does not exist.
TEST_P(TwoNodeTest, TypingOnAIsListedOnBToMembersOnly) {
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair(), eve = engine::generate_keypair();
  auto a = authed(*a_, alice);
  auto b_alice = authed(*b_, alice);
  ASSERT_TRUE(a && b_alice);
  const std::string ch = "c4000000-0000-4000-8000-" + hex(alice).substr(0, 12);
  private_channel_on_both(*a, *b_alice, alice, ch, bob);
  auto b = authed(*b_, bob);
  ASSERT_TRUE(b);
  ASSERT_TRUE(can_read_channel(*b, ch));

  ASSERT_TRUE(a->publish(make_event(alice, 20002, "", {{"h", ch}})).accepted);
  const std::string read = "/api/channels/" + ch + "/typing";
  const std::string want = R"({"channel_id":")" + ch + R"(","typing":[")" + hex(alice) + R"("],"window_seconds":5})";
  EXPECT_EQ(read_until(*b_, bob, read, want), want);

  HttpReply outsider = signed_call(*b_, eve, "GET", read);
  HttpReply missing = signed_call(*b_, eve, "GET", "/api/channels/c5000000-0000-4000-8000-000000000000/typing");
  EXPECT_EQ(outsider.status, 403);
  EXPECT_EQ(outsider.status, missing.status);
  EXPECT_EQ(outsider.body, missing.body);
}

// A private channel's event crosses to B only for B's members; an event of a
// channel B does not know is not delivered there at all (fail closed).
TEST_P(TwoNodeTest, PrivateChannelEventsReachOnlyMembersOnTheOtherNode) {
  Keypair owner = engine::generate_keypair(), member = engine::generate_keypair(), outsider = engine::generate_keypair();
  auto a = authed(*a_, owner);
  auto b_owner = authed(*b_, owner);
  ASSERT_TRUE(a && b_owner);
  const std::string ch = "c2000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  private_channel_on_both(*a, *b_owner, owner, ch, member);
  auto m = authed(*b_, member);
  auto o = authed(*b_, outsider);
  ASSERT_TRUE(m && o);
  ASSERT_TRUE(can_read_channel(*m, ch));  // on one store: once B's writer has caught up with A's change
  ASSERT_TRUE(m->req("s", R"({"kinds":[9],"#h":[")" + ch + R"("]})").eose);
  ReqResult refused = o->req("s", R"({"kinds":[9],"#h":[")" + ch + R"("]})");
  ASSERT_TRUE(refused.closed) << "a non-member's REQ on B: " << why(refused);
  ASSERT_TRUE(o->req("g", R"({"kinds":[9]})").eose);  // everything it may read

  ASSERT_TRUE(a->publish(make_event(owner, 9, "members only", {{"h", ch}})).accepted);
  auto got = m->wait_for([](const RelayMessage& r) { return r.type == "EVENT"; });
  ASSERT_TRUE(got) << "the member on B did not receive it";
  EXPECT_EQ(got->event.content, "members only");
  EXPECT_FALSE(o->wait_for([](const RelayMessage& r) { return r.type == "EVENT"; }, kQuietMs))
      << "a non-member on B received a private channel's event";

  const std::string unknown = "c3000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(a->publish(make_event(owner, 9007, "", {{"h", unknown}, {"name", "a-only"}})).accepted);
  ASSERT_TRUE(a->publish(make_event(owner, 9, "a-only channel", {{"h", unknown}})).accepted);
  if (on_postgres()) {
    // One store: B has the channel A created (an open one: everyone reads it).
    ASSERT_TRUE(can_read_channel(*o, unknown)) << "B did not learn the channel A created in the shared store";
    ReqResult history = o->req("u", channel_filter(unknown));
    ASSERT_EQ(history.events.size(), 1u) << why(history);
    EXPECT_EQ(history.events[0].content, "a-only channel");
    return;
  }
  int64_t dropped = 0;
  for (int i = 0; i < 100 && dropped < 2; ++i) {  // the 9007 and the 9 at least
    dropped = metric_value(http_get(b_->port(), "/metrics").body, "buzz_multinode_unknown_channel_total");
    if (dropped < 2) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GE(dropped, 2) << "B delivered events of a channel it does not know";  // with their relay-signed 39000-39002
  EXPECT_FALSE(o->wait_for([](const RelayMessage& r) { return r.type == "EVENT"; }, kQuietMs));
}

class TwoNodeRateLimitTest : public TwoNodeTest {
 protected:
  std::vector<std::string> extra_args() override { return {"--human-messages-per-min", "10"}; }
};

TEST_P(TwoNodeRateLimitTest, MessageLimitsCountAcrossBothNodes) {
  Keypair human = engine::generate_keypair();
  auto a = authed(*a_, human);
  auto b = authed(*b_, human);
  ASSERT_TRUE(a && b);
  // 10 a minute: a burst of 20, twelve of them on A.
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(a->publish(make_event(human, 1, "a" + std::to_string(i))).accepted);
  int accepted_on_b = 0;
  std::string refusal;
  for (int i = 0; i < 12; ++i) {
    OkReply r = b->publish(make_event(human, 1, "b" + std::to_string(i)));
    ASSERT_TRUE(r.received);
    if (r.accepted) ++accepted_on_b;
    else refusal = r.reason;
  }
  EXPECT_EQ(accepted_on_b, 8) << "B counted A's twelve messages";
  EXPECT_EQ(refusal.rfind("rate-limited:", 0), 0u) << refusal;
}

TEST_P(TwoNodeTest, KillNineOnAKeepsBServingAndARestartsWithEverythingItAcked) {
  Keypair author = engine::generate_keypair();
  const std::string filter = R"({"kinds":[1],"authors":[")" + hex(author) + R"("]})";
  std::vector<std::string> acked;
  {
    auto a = authed(*a_, author);
    ASSERT_TRUE(a);
    for (int i = 0; i < 50; ++i) {
      engine::Event e = make_event(author, 1, "before " + std::to_string(i));
      if (a->publish(e).accepted) acked.push_back(e.id_hex());
    }
  }
  const std::string data_dir = a_->data_dir();
  a_->kill_hard();

  auto sub = authed(*b_, engine::generate_keypair());
  auto pub = authed(*b_, author);
  ASSERT_TRUE(sub && pub);
  ASSERT_TRUE(sub->req("live", filter).eose);
  ASSERT_TRUE(pub->publish(make_event(author, 1, "while A is down")).accepted);
  EXPECT_TRUE(sub->wait_for([](const RelayMessage& m) { return m.type == "EVENT"; })) << "B stopped serving";

  auto restarted = start_node(extra_args(), data_dir);
  ASSERT_TRUE(restarted);
  auto reader = authed(*restarted, author);
  ASSERT_TRUE(reader);
  ReqResult r = reader->req("all", R"({"kinds":[1],"authors":[")" + hex(author) + R"("],"limit":1000})");
  ASSERT_TRUE(r.eose) << why(r);
  std::vector<std::string> stored = ids_of(r.events);
  for (const std::string& id : acked) {
    EXPECT_NE(std::find(stored.begin(), stored.end(), id), stored.end()) << "acked before kill -9, lost: " << id;
  }
  if (on_postgres()) {  // one store: what B accepted while A was down is A's too
    const bool caught_up = std::any_of(r.events.begin(), r.events.end(),
                                       [](const engine::Event& e) { return e.content == "while A is down"; });
    EXPECT_TRUE(caught_up) << "the restarted A does not serve what B accepted meanwhile";
  }
  // The restarted A is a node again: its events reach B.
  ASSERT_TRUE(reader->publish(make_event(author, 1, "after the restart")).accepted);
  auto crossed = sub->wait_for([](const RelayMessage& m) { return m.type == "EVENT" && m.event.content == "after the restart"; });
  EXPECT_TRUE(crossed) << "the restarted node's event did not reach B";
}

// Both nodes on one PostgreSQL: the team state one node changes, the other
// applies before it fans out anything of that channel (StoreWriter::catch_up_team).
class SharedStoreTest : public TwoNodeBase {
 protected:
  bool on_postgres() const override { return true; }
};

TEST_F(SharedStoreTest, AMemberRemovedOnAStopsReceivingOnBAtOnceAndReadsNothingOnEitherNode) {
  Keypair owner = engine::generate_keypair(), member = engine::generate_keypair(),
          removed = engine::generate_keypair(), outsider = engine::generate_keypair();
  auto a = authed(*a_, owner);
  ASSERT_TRUE(a);
  // Made on A alone: B has all of it from the shared store.
  const std::string ch = "c4000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(a->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "secret"}, {"visibility", "private"}})).accepted);
  ASSERT_TRUE(a->publish(make_event(owner, 9000, "", {{"h", ch}, {"p", hex(member)}})).accepted);
  ASSERT_TRUE(a->publish(make_event(owner, 9000, "", {{"h", ch}, {"p", hex(removed)}})).accepted);
  auto m = authed(*b_, member), r = authed(*b_, removed), x = authed(*b_, outsider);
  ASSERT_TRUE(m && r && x);
  ASSERT_TRUE(can_read_channel(*r, ch)) << "B never learned that A added the member";
  ASSERT_TRUE(m->req("chan", channel_filter(ch)).eose);
  ASSERT_TRUE(r->req("chan", channel_filter(ch)).eose);
  ASSERT_TRUE(x->req("chan", channel_filter(ch)).closed) << "a non-member subscribed on B";
  ASSERT_TRUE(a->publish(make_event(owner, 9, "before", {{"h", ch}})).accepted);
  ASSERT_TRUE(r->wait_for([](const RelayMessage& e) { return is_event(e, "before"); })) << "the member on B";

  // The removal, acknowledged on A; then at once a private event on each node.
  ASSERT_TRUE(a->publish(make_event(owner, 9001, "", {{"h", ch}, {"p", hex(removed)}})).accepted);
  ASSERT_TRUE(m->publish(make_event(member, 9, "after, on B", {{"h", ch}})).accepted);
  ASSERT_TRUE(a->publish(make_event(owner, 9, "after, on A", {{"h", ch}})).accepted);
  EXPECT_TRUE(m->wait_for([](const RelayMessage& e) { return is_event(e, "after, on B"); }));
  EXPECT_TRUE(m->wait_for([](const RelayMessage& e) { return is_event(e, "after, on A"); }));
  auto closed = r->wait_for([](const RelayMessage& e) { return e.type == "CLOSED" && e.id == "chan"; });
  ASSERT_TRUE(closed) << "the removed member's channel subscription on B was not ended";
  EXPECT_EQ(closed->text.rfind("restricted:", 0), 0u) << closed->text;
  auto leaked = [](const RelayMessage& e) { return e.type == "EVENT" && e.event.content.starts_with("after"); };
  EXPECT_FALSE(r->wait_for(leaked, kQuietMs)) << "a removed member received a private event live on B";
  EXPECT_FALSE(x->wait_for(leaked, 0)) << "a non-member received a private event live on B";

  // Nor by any read, on either node.
  for (RelayProcess* node : {a_.get(), b_.get()}) {
    for (const Keypair* who : {&removed, &outsider}) {
      const std::string where = node == a_.get() ? "on A" : "on B";
      auto c = authed(*node, *who);
      ASSERT_TRUE(c);
      ReqResult req = c->req("h", channel_filter(ch));
      EXPECT_TRUE(req.closed && req.events.empty()) << "REQ " << where << ": " << why(req);
      ReqResult global = c->req("g", R"({"kinds":[9]})");
      EXPECT_TRUE(std::none_of(global.events.begin(), global.events.end(),
                               [&](const engine::Event& e) { return e.first_tag_value("h") == ch; }))
          << "REQ without #h " << where;
      auto counted = c->count("n", channel_filter(ch));
      ASSERT_TRUE(counted);
      EXPECT_TRUE(counted->type == "CLOSED" || counted->count == 0) << "COUNT " << where << ": " << counted->raw;
      ReqResult searched = c->req("s", R"({"kinds":[9],"search":"after"})");
      EXPECT_TRUE(searched.events.empty()) << "search " << where << ": " << why(searched);
      HttpReply messages = signed_call(*node, *who, "GET", "/api/channels/" + ch + "/messages");
      EXPECT_TRUE(messages.status == 403 || messages.status == 404) << "REST " << where << ": " << messages.status;
      HttpReply found = signed_call(*node, *who, "GET", "/api/search?q=after");
      EXPECT_EQ(found.body.find("after, on"), std::string::npos) << "REST search " << where << ": " << found.body;
    }
  }
  // The member still reads everything, on B.
  auto m2 = authed(*b_, member);
  EXPECT_EQ(m2->req("h", channel_filter(ch)).events.size(), 3u);
}

// A channel gone on A (turned private, deleted) is told on B to those who
// could read it there and may not now (docs/reference/kinds.md §4.13): B learns
// of it by its team catch-up, whose revocations carry it as A's own do. A
// private channel's deletion reaches its member on B, never the outsider.
TEST_F(SharedStoreTest, AChannelGoneOnAIsToldOnBToItsFormerReadersOnly) {
  Keypair owner = engine::generate_keypair(), member = engine::generate_keypair(),
          outsider = engine::generate_keypair();
  auto a = authed(*a_, owner);
  ASSERT_TRUE(a);
  const std::string priv = "c5000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  const std::string open = "c6000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(
      a->publish(make_event(owner, 9007, "", {{"h", priv}, {"name", "p"}, {"visibility", "private"}})).accepted);
  ASSERT_TRUE(a->publish(make_event(owner, 9000, "", {{"h", priv}, {"p", hex(member)}})).accepted);
  ASSERT_TRUE(a->publish(make_event(owner, 9007, "", {{"h", open}, {"name", "o"}, {"visibility", "open"}})).accepted);
  auto m = authed(*b_, member), x = authed(*b_, outsider);
  ASSERT_TRUE(m && x);
  ASSERT_TRUE(can_read_channel(*m, priv) && can_read_channel(*x, open)) << "B never learned of A's channels";
  for (NostrClient* c : {m.get(), x.get()}) ASSERT_TRUE(c->req("list", R"({"kinds":[5],"#k":["39000"]})").eose);
  auto gone = [](const std::string& ch) {
    return [ch](const RelayMessage& e) {
      return e.type == "EVENT" && e.id == "list" && e.event.kind == 5 && e.event.raw.find(ch) != std::string::npos;
    };
  };

  ASSERT_TRUE(a->publish(make_event(owner, 9002, "", {{"h", open}, {"visibility", "private"}})).accepted);
  EXPECT_TRUE(x->wait_for(gone(open))) << "a reader on B of a channel turned private on A was not told";
  EXPECT_TRUE(m->wait_for(gone(open)));
  ASSERT_TRUE(a->publish(make_event(owner, 9008, "", {{"h", priv}})).accepted);
  EXPECT_TRUE(m->wait_for(gone(priv))) << "a member on B of a channel deleted on A was not told";
  EXPECT_FALSE(x->wait_for(gone(priv), kQuietMs)) << "a private channel's deletion on A reached a non-member on B";
}

// docs/reference/compat-backends.md §3.2's lag queue: a fan-out that falls 4096 events behind
// drops the oldest and counts them; the node keeps serving. B's writer is held
// (a test transaction locks the table its team catch-up reads) while more than
// 4096 events arrive through Redis.
TEST_F(SharedStoreTest, AFanOutThatFallsBehindDropsTheOldestAndCountsThem) {
  Keypair owner = engine::generate_keypair(), reader = engine::generate_keypair();
  auto a = authed(*a_, owner);
  ASSERT_TRUE(a);
  const std::string ch = "c5000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(a->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "busy"}})).accepted);
  auto sub = authed(*b_, reader);
  ASSERT_TRUE(sub && can_read_channel(*sub, ch));
  // Only the marked few: 4096 at once would be more than a connection may have queued (a slow consumer).
  ASSERT_TRUE(sub->req("live", R"({"kinds":[9],"#h":[")" + ch + R"("],"#t":["mark"]})").eose);

  auto lock = db_->connect();
  ASSERT_TRUE(lock);
  ASSERT_TRUE(lock->exec("BEGIN; LOCK TABLE buzz_team_changes IN ACCESS EXCLUSIVE MODE"));
  auto redis = test_redis_connection();
  ASSERT_TRUE(redis);
  constexpr int kEvents = 6000;
  for (int i = 0; i < kEvents; ++i) {
    const bool marked = i == 1000 || i == kEvents - 1;
    const engine::Event e = make_event(owner, 9, "flood " + std::to_string(i), {{"h", ch}, {"t", marked ? "mark" : "x"}});
    redis->append({"PUBLISH", "buzz:channel:" + ch, e.raw});
    if (i % 500 == 499 || i == kEvents - 1) {
      ASSERT_TRUE(redis->flush());
      for (int k = i % 500; k >= 0; --k) ASSERT_TRUE(redis->read_reply());
    }
  }
  // Everything has reached B's subscriber (its queue holds 4096 of it) before the writer goes on.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_TRUE(lock->exec("COMMIT"));

  int64_t lagged = 0;
  for (int i = 0; i < 100 && lagged == 0; ++i) {
    lagged = metric_value(http_get(b_->port(), "/metrics").body, "buzz_multinode_fanout_lag_total");
    if (lagged == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // The writer took the first few (a subscriber batch or two) before it was held. (Tests
  // running beside this one share the Redis, so their events may have lagged here too.)
  EXPECT_GE(lagged, kEvents - 4096 - 1000) << "the queue did not drop its oldest";
  // The newest arrive, the oldest do not, and B serves on.
  EXPECT_TRUE(sub->wait_for([&](const RelayMessage& e) { return is_event(e, "flood " + std::to_string(kEvents - 1)); }));
  ASSERT_TRUE(a->publish(make_event(owner, 9, "after the flood", {{"h", ch}, {"t", "mark"}})).accepted);
  bool dropped_seen = false;  // one of those after the first batch and before the newest 4096
  auto after = sub->wait_for([&](const RelayMessage& e) {
    dropped_seen = dropped_seen || is_event(e, "flood 1000");
    return is_event(e, "after the flood");
  });
  const std::string metrics = http_get(b_->port(), "/metrics").body;
  EXPECT_TRUE(after) << "B stopped fanning out after lagging: remote "
                     << metric_value(metrics, "buzz_multinode_remote_events_total") << ", unknown "
                     << metric_value(metrics, "buzz_multinode_unknown_channel_total") << ", delivered "
                     << metric_value(metrics, "buzz_events_delivered_total");
  EXPECT_FALSE(dropped_seen) << "the oldest were kept, not dropped";
}

// Receipts on one PostgreSQL (docs/storage.md, "Deliveries"): each node writes
// what its own sessions were sent to the original's delivery_log, so a message
// written on A and read by a member on A and one on B is delivered to 2 of 3 on
// either node; the rows are in the month's partition, and only the author and
// the channel's admins see the receipt, on both nodes.
TEST_F(SharedStoreTest, AReceiptCountsTheDeliveriesOfEveryNode) {
  Keypair owner = engine::generate_keypair(), on_a = engine::generate_keypair(), on_b = engine::generate_keypair(),
          idle = engine::generate_keypair(), outsider = engine::generate_keypair();
  auto a = authed(*a_, owner);
  ASSERT_TRUE(a);
  const std::string ch = "c6000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(a->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "receipts"}, {"visibility", "private"}})).accepted);
  for (const Keypair* k : {&on_a, &on_b, &idle}) {
    ASSERT_TRUE(a->publish(make_event(owner, 9000, "", {{"h", ch}, {"p", hex(*k)}})).accepted);
  }
  auto ra = authed(*a_, on_a), rb = authed(*b_, on_b);  // `idle` is a member with no session: not delivered
  ASSERT_TRUE(ra && rb);
  ASSERT_TRUE(can_read_channel(*rb, ch));
  ASSERT_TRUE(ra->req("live", channel_filter(ch)).eose);
  ASSERT_TRUE(rb->req("live", channel_filter(ch)).eose);
  const engine::Event m = make_event(owner, 9, "was it read?", {{"h", ch}});
  ASSERT_TRUE(a->publish(m).accepted);
  ASSERT_TRUE(ra->wait_for([](const RelayMessage& e) { return is_event(e, "was it read?"); }));
  ASSERT_TRUE(rb->wait_for([](const RelayMessage& e) { return is_event(e, "was it read?"); }));

  const std::string path = "/api/messages/" + m.id_hex() + "/receipts";
  for (RelayProcess* node : {a_.get(), b_.get()}) {
    const std::string where = node == a_.get() ? "on A" : "on B";
    HttpReply r;  // each node's flusher writes within a quarter second
    for (int i = 0; i < 100; ++i) {
      r = signed_call(*node, owner, "GET", path);
      if (r.body.find("\"delivered\":2") != std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(r.status, 200) << where;
    EXPECT_NE(r.body.find("\"members\":3"), std::string::npos) << where << ": " << r.body;
    EXPECT_NE(r.body.find("\"delivered\":2"), std::string::npos) << where << ": " << r.body;
    // The author's kind says the same.
    auto c = authed(*node, owner);
    ASSERT_TRUE(c);
    ReqResult kind = c->req("rcpt", R"({"kinds":[28990],"#e":[")" + m.id_hex() + R"("]})");
    ASSERT_EQ(kind.events.size(), 1u) << where << ": " << why(kind);
    EXPECT_NE(kind.events[0].content.find("\"delivered\":2"), std::string::npos) << where << ": " << kind.events[0].content;
    // A member who is not an admin, and a non-member: refused, and the kind answers nothing.
    EXPECT_EQ(signed_call(*node, on_b, "GET", path).status, 403) << where;
    EXPECT_EQ(signed_call(*node, outsider, "GET", path).status, 404) << where;
    for (const Keypair* who : {&on_b, &outsider}) {
      auto w = authed(*node, *who);
      ASSERT_TRUE(w);
      ReqResult none = w->req("rcpt", R"({"kinds":[28990],"#e":[")" + m.id_hex() + R"("]})");
      EXPECT_TRUE(none.events.empty()) << where << ": " << why(none);
    }
  }
  // One row a member, both in this month's partition, named as the original's partition manager names it.
  const std::string of_m = " FROM delivery_log WHERE event_id = decode('" + m.id_hex() + "', 'hex')";
  EXPECT_EQ(db_->scalar("SELECT count(*)" + of_m), "2");
  EXPECT_EQ(db_->scalar("SELECT string_agg(DISTINCT tableoid::regclass::text, ',')" + of_m),
            db_->scalar("SELECT 'delivery_log_' || to_char(now() AT TIME ZONE 'UTC', 'YYYY_MM')"));
  EXPECT_EQ(db_->scalar("SELECT string_agg(DISTINCT method::text || ' ' || success::text, ',')" + of_m), "websocket true");
  // Three months ahead are partitioned too.
  EXPECT_EQ(db_->scalar("SELECT to_regclass('delivery_log_' || to_char((now() AT TIME ZONE 'UTC') + interval '3 months', "
                        "'YYYY_MM')) IS NOT NULL"),
            "t");
}

// Retention on PostgreSQL: a node's start (and each new day) drops the monthly
// partitions wholly past delivery-retention-days and deletes the older rows of
// the rest; the schema's own fixed partitions stay.
TEST_F(SharedStoreTest, RetentionDropsOldDeliveryPartitionsAndRows) {
  // The nodes' first maintenance has made this month's partition (and, past the
  // retention, left none for the old months): rows of 70 and 40 days ago go
  // into months made here as an earlier relay or the original would have made
  // them, under the nodes' lock so no maintenance runs between.
  const std::string this_month = "to_regclass('delivery_log_' || to_char(now() AT TIME ZONE 'UTC', 'YYYY_MM')) IS NOT NULL";
  for (int i = 0; i < 100 && db_->scalar("SELECT " + this_month) != "t"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(db_->scalar("SELECT " + this_month), "t");
  auto pg = db_->connect();
  ASSERT_TRUE(pg);
  ASSERT_TRUE(pg->exec("BEGIN; SET LOCAL TimeZone = 'UTC'; SELECT pg_advisory_xact_lock(6012455564262815079)"));
  for (int days_ago : {70, 40, 1}) {
    const std::string at = "now() - interval '" + std::to_string(days_ago) + " days'";
    if (days_ago > 1) {
      ASSERT_TRUE(pg->exec("DO $$ BEGIN EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF delivery_log FOR "
                           "VALUES FROM (%L) TO (%L)', 'delivery_log_' || to_char(" + at + ", 'YYYY_MM'), "
                           "date_trunc('month', " + at + "), date_trunc('month', " + at + ") + interval '1 month'); END $$"));
    }
    ASSERT_TRUE(pg->exec("INSERT INTO delivery_log (subscription_id, event_id, method, success, delivered_at) VALUES ('" +
                         std::string(64, 'a') + "', '\\x00', 'websocket', TRUE, " + at + ")"));
  }
  // The old month is there before the lock goes: checked inside the transaction, since the
  // other node's first maintenance may be waiting for the lock and drop it at once after.
  const std::string old_month = "to_regclass('delivery_log_' || to_char((now() AT TIME ZONE 'UTC') - interval '70 days', 'YYYY_MM'))";
  ASSERT_TRUE(pg->exec("DO $$ BEGIN IF " + old_month + " IS NULL THEN RAISE EXCEPTION 'no old month'; END IF; END $$"));
  ASSERT_TRUE(pg->exec("COMMIT"));
  // A third node's start runs the retention (30 days, the default), if no waiting maintenance did.
  auto c = start_node(extra_args());
  ASSERT_TRUE(c);
  std::string left;
  for (int i = 0; i < 100; ++i) {
    left = db_->scalar("SELECT count(*) FROM delivery_log WHERE delivered_at < now() - interval '30 days'");
    if (left == "0") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(left, "0") << "rows past the retention were kept";
  EXPECT_EQ(db_->scalar("SELECT count(*) FROM delivery_log WHERE delivered_at > now() - interval '2 days'"), "1");
  EXPECT_EQ(db_->scalar("SELECT " + old_month + " IS NULL"), "t") << "the old month's partition was not dropped";
  EXPECT_EQ(db_->scalar("SELECT to_regclass('delivery_log_p_past') IS NOT NULL"), "t") << "a partition of the schema's was dropped";
}

// A delivery the log could not take is counted on /metrics, by reason.
TEST_F(SharedStoreTest, DeliveriesTheLogRefusesAreCountedAsDropped) {
  Keypair owner = engine::generate_keypair(), reader = engine::generate_keypair();
  auto a = authed(*a_, owner), r = authed(*a_, reader);
  ASSERT_TRUE(a && r);
  const std::string ch = "c7000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(a->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "refused"}})).accepted);
  ASSERT_TRUE(r->req("live", channel_filter(ch)).eose);
  const std::string metrics = http_get(a_->port(), "/metrics").body;
  EXPECT_EQ(metric_value(metrics, "buzz_delivery_records_dropped_total{reason=\"buffer_full\"}"), 0) << metrics;
  EXPECT_EQ(metric_value(metrics, "buzz_delivery_records_dropped_total{reason=\"write_failed\"}"), 0);

  auto pg = db_->connect();
  ASSERT_TRUE(pg);
  ASSERT_TRUE(pg->exec("ALTER TABLE delivery_log RENAME TO delivery_log_away"));
  ASSERT_TRUE(a->publish(make_event(owner, 9, "unrecorded", {{"h", ch}})).accepted);
  ASSERT_TRUE(r->wait_for([](const RelayMessage& e) { return is_event(e, "unrecorded"); }));
  int64_t failed = 0;
  for (int i = 0; i < 100 && failed == 0; ++i) {
    failed = metric_value(http_get(a_->port(), "/metrics").body, "buzz_delivery_records_dropped_total{reason=\"write_failed\"}");
    if (failed == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(failed, 1);
  ASSERT_TRUE(pg->exec("ALTER TABLE delivery_log_away RENAME TO delivery_log"));
  ASSERT_TRUE(a->publish(make_event(owner, 9, "recorded", {{"h", ch}})).accepted);
  int64_t written = 0;
  for (int i = 0; i < 100 && written == 0; ++i) {
    written = metric_value(http_get(a_->port(), "/metrics").body, "buzz_delivery_records_written_total");
    if (written == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_GE(written, 1) << "the log took nothing once it was back";
}

// Two owners of a channel remove each other at the same moment, one on each
// node. Each removal is valid on the state its node had, but not both: the
// second, planned under the team lock after the first committed, finds its
// actor removed. Several rounds, so the two requests really do meet.
TEST_F(SharedStoreTest, TwoOwnersRemovingEachOtherOnTwoNodesAtOnceLeaveOneOwner) {
  for (int round = 0; round < 5; ++round) {
    Keypair first = engine::generate_keypair(), second = engine::generate_keypair();
    auto a = authed(*a_, first), b = authed(*b_, second);
    ASSERT_TRUE(a && b);
    const std::string ch = "c6000000-0000-4000-8000-" + hex(first).substr(0, 12);
    ASSERT_TRUE(a->publish(make_event(first, 9007, "", {{"h", ch}, {"name", "two owners"}, {"visibility", "private"}})).accepted);
    ASSERT_TRUE(a->publish(make_event(first, 9000, "", {{"h", ch}, {"p", hex(second)}, {"role", "owner"}})).accepted);
    ASSERT_TRUE(can_read_channel(*b, ch)) << "B never learned that A added the second owner";
    const engine::Event remove_second = make_event(first, 9001, "", {{"h", ch}, {"p", hex(second)}});
    const engine::Event remove_first = make_event(second, 9001, "", {{"h", ch}, {"p", hex(first)}});
    OkReply on_a, on_b;
    std::thread t([&] { on_b = b->publish(remove_first); });
    on_a = a->publish(remove_second);
    t.join();
    EXPECT_NE(on_a.accepted, on_b.accepted) << "round " << round << ": A said \"" << on_a.reason << "\", B said \""
                                            << on_b.reason << "\"";
  }
}

// Tokens live in the shared store, not in a node's memory: one minted on A
// works on B, and one revoked on A fails on B at its next use, by REST and by
// a WebSocket AUTH alike.
TEST_F(SharedStoreTest, ATokenRevokedOnAIsRefusedOnBAtItsNextUse) {
  Keypair user = engine::generate_keypair();
  HttpReply minted = signed_call(*a_, user, "POST", "/api/tokens", R"({"name":"agent","scopes":["messages:read"]})");
  ASSERT_EQ(minted.status, 201) << minted.body;
  auto field = [&](const std::string& name) {
    const std::string key = "\"" + name + "\":\"";
    const size_t at = minted.body.find(key) + key.size();
    return minted.body.substr(at, minted.body.find('"', at) - at);
  };
  const std::string token = field("token"), id = field("id");
  auto bearer = [&](const RelayProcess& node, const std::string& method, const std::string& path) {
    return http_call(node.port(), method, path, {{"Authorization", "Bearer " + token}});
  };
  auto ws_auth = [&](const RelayProcess& node) {
    std::string error;
    auto c = NostrClient::connect(node, &error);
    EXPECT_NE(c, nullptr) << error;
    return c->send_auth(client::auth_event(user, c->relay_url(), c->challenge(), token));
  };
  EXPECT_EQ(bearer(*b_, "GET", "/api/tokens").status, 200) << "a token minted on A is unknown on B";
  EXPECT_TRUE(ws_auth(*b_).accepted);

  ASSERT_EQ(bearer(*a_, "DELETE", "/api/tokens/" + id).status, 204);
  HttpReply refused = bearer(*b_, "GET", "/api/tokens");
  EXPECT_EQ(refused.status, 401) << "a token revoked on A still works on B";
  EXPECT_NE(refused.body.find("token_revoked"), std::string::npos) << refused.body;
  OkReply ws = ws_auth(*b_);
  EXPECT_FALSE(ws.accepted) << "a token revoked on A still opens a session on B";
  EXPECT_EQ(ws.reason, "auth-required: invalid token");
  EXPECT_EQ(bearer(*b_, "DELETE", "/api/tokens/" + id).status, 401) << "and it cannot act on itself";
}

// The limit of 10 active tokens per owner holds across nodes: with nine
// minted, several requests for the tenth on both nodes at once mint one.
// Without the table lock each node's own mutex lets one through.
TEST_F(SharedStoreTest, TheTenthTokenRequestedOnBothNodesAtOnceIsMintedOnce) {
  for (int round = 0; round < 6; ++round) {
    Keypair user = engine::generate_keypair();
    for (int i = 0; i < 9; ++i) {
      ASSERT_EQ(signed_call(*a_, user, "POST", "/api/tokens", R"({"name":"t","scopes":["messages:read"]})").status, 201);
    }
    constexpr int kPerNode = 4;
    std::atomic<int> ready{0};
    std::vector<int> statuses(2 * kPerNode);
    std::vector<std::thread> threads;
    for (int i = 0; i < 2 * kPerNode; ++i) {
      threads.emplace_back([&, i] {
        const RelayProcess& node = i % 2 ? *b_ : *a_;
        ready.fetch_add(1);
        while (ready.load() < 2 * kPerNode) std::this_thread::yield();
        statuses[i] = signed_call(node, user, "POST", "/api/tokens", R"({"name":"tenth","scopes":["messages:read"]})").status;
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 201), 1) << "round " << round;
    EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 409), 2 * kPerNode - 1) << "round " << round;
  }
}

// A token lookup the store cannot answer is the server's failure, not the
// client's: 503, and the token works again once the store does (a client
// told "invalid_token" would throw away a good token).
TEST_F(SharedStoreTest, ATokenLookupTheStoreCannotAnswerIs503NotInvalidToken) {
  Keypair user = engine::generate_keypair();
  HttpReply minted = signed_call(*a_, user, "POST", "/api/tokens", R"({"name":"agent","scopes":["messages:read"]})");
  ASSERT_EQ(minted.status, 201) << minted.body;
  const std::string key = "\"token\":\"";
  const size_t at = minted.body.find(key) + key.size();
  const std::string token = minted.body.substr(at, minted.body.find('"', at) - at);
  auto list = [&] { return http_call(a_->port(), "GET", "/api/tokens", {{"Authorization", "Bearer " + token}}); };
  ASSERT_EQ(list().status, 200);
  ASSERT_TRUE(db_->connect()->exec("ALTER TABLE buzz_state RENAME TO buzz_state_away"));
  HttpReply failed = list();
  EXPECT_EQ(failed.status, 503) << failed.body;
  EXPECT_EQ(failed.body.find("invalid_token"), std::string::npos) << failed.body;
  ASSERT_TRUE(db_->connect()->exec("ALTER TABLE buzz_state_away RENAME TO buzz_state"));
  EXPECT_EQ(list().status, 200);
}

// NIP-86 on two nodes (docs/reference/nip86.md §4): a change made on A holds on B at once.
class AdminTwoNodeTest : public TwoNodeBase, public ::testing::WithParamInterface<Store> {
 protected:
  bool on_postgres() const override { return GetParam() == Store::kPostgres; }
  std::vector<std::string> extra_args() override { return {"--rate-limits", "false", "--owner", hex(owner_)}; }
  HttpReply manage(const RelayProcess& node, const std::string& method, const std::string& param) {
    const std::string body = R"({"method":")" + method + R"(","params":[")" + param + R"("]})";
    const std::string url = "http://127.0.0.1:" + std::to_string(node.port()) + "/";
    return http_call(node.port(), "POST", "/",
                     {{"Content-Type", "application/nostr+json+rpc"}, {"Authorization", nip98_header(owner_, url, "POST", body)}},
                     body);
  }
  const Keypair owner_ = engine::generate_keypair();
};

TEST_P(AdminTwoNodeTest, APubkeyBannedOnAIsClosedAndRefusedOnBAtOnce) {
  const Keypair banned = engine::generate_keypair();
  auto on_b = authed(*b_, banned);
  ASSERT_TRUE(on_b && on_b->req("live", R"({"kinds":[1]})").eose);
  ASSERT_EQ(manage(*a_, "banpubkey", hex(banned)).body, R"({"result":true})");
  while (on_b->next_message()) {
  }
  EXPECT_EQ(on_b->ws().closed() ? on_b->ws().close_code() : 0, 1008) << "B kept the banned pubkey's session";
  std::string error;
  auto again = NostrClient::connect(*b_, &error);
  ASSERT_NE(again, nullptr) << error;
  EXPECT_EQ(again->authenticate(banned).reason, "restricted: pubkey is banned");
  // B lists what A changed, and takes back what B lifts.
  EXPECT_NE(manage(*b_, "listbannedpubkeys", "").body.find(hex(banned)), std::string::npos);
  ASSERT_EQ(manage(*b_, "unbanpubkey", hex(banned)).body, R"({"result":true})");
  std::unique_ptr<NostrClient> back;
  for (int i = 0; i < 100 && !back; ++i) {  // A applies B's change when Redis brings it
    back = NostrClient::connect(*a_, &error);
    if (back && !back->authenticate(banned).accepted) back.reset(), std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_NE(back, nullptr) << "A still refuses the pubkey B unbanned";
}

INSTANTIATE_TEST_SUITE_P(Stores, TwoNodeTest, ::testing::Values(Store::kEmbedded, Store::kPostgres), store_name);
INSTANTIATE_TEST_SUITE_P(Stores, AdminTwoNodeTest, ::testing::Values(Store::kEmbedded, Store::kPostgres), store_name);
INSTANTIATE_TEST_SUITE_P(Stores, TwoNodeRateLimitTest, ::testing::Values(Store::kEmbedded, Store::kPostgres),
                         store_name);

}  // namespace
}  // namespace buzz::test
