// End-to-end tests of the audit log against the real binary: what a session
// leaves in the chain (event_created once per new event, channel and member
// actions, auth_success; never AUTH or ephemeral events), a SIGKILL during
// heavy ingest (the chain verifies after restart and holds every event that got
// OK true), and a full audit queue (events are refused with
// "error: audit backlog full, retry", never stored unaudited). The chain is read
// with `buzz audit verify` and `buzz audit tail`, as an operator would.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <simdjson.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tests/e2e/scratch_dir.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;


struct Entry {
  std::string event_id, actor, action, channel, meta;
  uint64_t kind = 0;
};

// Every entry of the chain, oldest first.
std::vector<Entry> chain(const std::string& data_dir) {
  int status = 0;
  std::string out = run_buzz("audit tail -n 10000000 --data-dir " + data_dir, &status);
  EXPECT_EQ(status, 0) << out;
  std::vector<Entry> entries;
  simdjson::dom::parser parser;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    simdjson::dom::element e;
    if (parser.parse(line).get(e)) {
      ADD_FAILURE() << "not JSON: " << line;
      continue;
    }
    Entry x;
    x.event_id = std::string(e["event_id"].get_string().value_unsafe());
    x.actor = std::string(e["actor"].get_string().value_unsafe());
    x.action = std::string(e["action"].get_string().value_unsafe());
    x.kind = e["kind"].get_uint64().value_unsafe();
    std::string_view channel;
    if (!e["channel"].get(channel)) x.channel = std::string(channel);
    x.meta = simdjson::minify(e["meta"]);
    entries.push_back(std::move(x));
  }
  return entries;
}

void expect_verifies(const std::string& data_dir) {
  int status = 0;
  std::string out = run_buzz("audit verify --data-dir " + data_dir, &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("\"ok\":true"), std::string::npos) << out;
}

std::unique_ptr<RelayProcess> start(const std::string& data_dir, std::vector<std::string> extra = {},
                                    std::vector<std::pair<std::string, std::string>> env = {}) {
  RelayOptions o;
  o.extra_args = {"--open"};
  o.extra_args.insert(o.extra_args.end(), extra.begin(), extra.end());
  o.env = std::move(env);
  o.data_dir = data_dir;
  std::string error;
  auto relay = RelayProcess::start(o, &error);
  EXPECT_NE(relay, nullptr) << error;
  return relay;
}

TEST(AuditE2eTest, SessionLeavesEventAndChannelEntriesButNeverAuthOrEphemeral) {
  const ScratchDir scratch("audit-e2e");
  const std::string& dir = scratch.path();
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  const std::string channel = "a0d17000-0000-4000-8000-" + hex(alice).substr(0, 12);
  Event note = make_event(alice, 1, "audited");
  Event create = make_event(alice, 9007, "", {{"h", channel}, {"name", "audited"}, {"visibility", "private"}});
  Event add = make_event(alice, 9000, "", {{"h", channel}, {"p", hex(bob)}});
  Event typing = make_event(alice, 20002, "", {{"h", channel}});
  {
    auto relay = start(dir);
    ASSERT_TRUE(relay);
    std::string error;
    auto c = NostrClient::connect_authed(*relay, alice, &error);
    ASSERT_TRUE(c) << error;
    ASSERT_TRUE(c->publish(note).accepted);
    EXPECT_EQ(c->publish(note).reason, "duplicate:");  // not dispatched again, not audited again
    ASSERT_TRUE(c->publish(create).accepted);
    ASSERT_TRUE(c->publish(add).accepted);
    ASSERT_TRUE(c->publish(typing).accepted);
  }  // SIGTERM: the relay drains its audit queue before it exits
  expect_verifies(dir);
  std::vector<Entry> entries = chain(dir);
  std::map<std::string, int> created;
  bool auth = false, channel_created = false, member_added = false;
  for (const Entry& e : entries) {
    EXPECT_NE(e.kind, 22242u);
    EXPECT_FALSE(e.kind >= 20000 && e.kind < 30000) << "ephemeral kind " << e.kind << " was logged";
    if (e.action == "event_created") created[e.event_id]++;
    auth |= e.action == "auth_success" && e.actor == hex(alice) && e.kind == 48001 && e.meta == R"({"method":"nip42"})";
    channel_created |= e.action == "channel_created" && e.channel == channel && e.event_id == create.id_hex() &&
                       e.meta == R"({"channel_type":"stream","name":"audited","visibility":"private"})";
    member_added |= e.action == "member_added" && e.channel == channel && e.event_id == add.id_hex() &&
                    e.meta == R"({"role":"member","target":")" + hex(bob) + R"("})";
  }
  EXPECT_EQ(created[note.id_hex()], 1);
  EXPECT_EQ(created[create.id_hex()], 1);
  EXPECT_EQ(created[add.id_hex()], 1);
  EXPECT_EQ(created.count(typing.id_hex()), 0u);
  EXPECT_TRUE(auth);
  EXPECT_TRUE(channel_created);
  EXPECT_TRUE(member_added);
  // The follow-ups the relay signed are audited as the relay's own acts.
  size_t relay_entries = 0;
  for (const Entry& e : entries) relay_entries += e.action == "event_created" && e.channel == channel && e.actor != hex(alice);
  EXPECT_GE(relay_entries, 6u);  // 40099 + 39000–39002, twice
}

// An AUTH whose signature does not verify proves nothing about its pubkey: the
// entry has no actor and names the key as claimed. And however many times one
// address fails, it writes at most 10 auth_failure entries a minute.
TEST(AuditE2eTest, AFailedAuthNamesAnUnprovenPubkeyAsClaimedAndEachAddressIsBounded) {
  const ScratchDir scratch("audit-e2e");
  const std::string& dir = scratch.path();
  Keypair victim = engine::generate_keypair(), stranger = engine::generate_keypair();
  constexpr int kAttempts = 25;
  {
    auto relay = start(dir);
    ASSERT_TRUE(relay);
    for (int i = 0; i < kAttempts; ++i) {
      std::string error;
      auto c = NostrClient::connect(*relay, &error);
      ASSERT_TRUE(c) << error;
      Event forged = client::auth_event(victim, c->relay_url(), c->challenge());
      const size_t sig = forged.raw.find("\"sig\":\"") + 7;
      forged.raw[sig] = forged.raw[sig] == '0' ? '1' : '0';  // the victim's key, a signature that fails
      OkReply refused = c->send_auth(forged);
      ASSERT_TRUE(refused.received);
      EXPECT_EQ(refused.reason, "auth-required: verification failed");
    }
    std::string error;
    auto c = NostrClient::connect_authed(*relay, stranger, &error);  // a good AUTH is audited as before
    ASSERT_TRUE(c) << error;
  }
  expect_verifies(dir);
  int failures = 0;
  bool success = false;
  for (const Entry& e : chain(dir)) {
    EXPECT_NE(e.actor, hex(victim)) << e.action << " " << e.meta;
    if (e.action == "auth_failure") {
      ++failures;
      EXPECT_EQ(e.actor, "");
      EXPECT_EQ(e.meta, R"({"claimed_pubkey":")" + hex(victim) + R"(","method":"nip42","reason":"verification_failed"})");
    }
    success |= e.action == "auth_success" && e.actor == hex(stranger);
  }
  EXPECT_EQ(failures, 10) << "of " << kAttempts << " failures from one address";
  EXPECT_TRUE(success);
}

TEST(AuditE2eTest, RateLimitRefusalsLeaveOneEntryPerPubkeyAndLimitPerMinute) {
  const ScratchDir scratch("audit-e2e");
  const std::string& dir = scratch.path();
  Keypair alice = engine::generate_keypair(), dave = engine::generate_keypair();
  const std::string channel = "a0d17000-0000-4000-8000-" + hex(alice).substr(0, 12);
  {
    auto relay = start(dir, {"--human-messages-per-min", "1", "--human-ws-events-per-sec", "3", "--human-ws-events-burst", "3",
                             "--human-reads-per-sec", "3", "--human-reads-burst", "3", "--human-api-calls-per-min", "2",
                             "--mint-rate-limit", "1"},
                        {{"BUZZ_TEST_CLOCK", "1"}});  // the frame bucket refills as the test moves the clock
    ASSERT_TRUE(relay);
    std::string error;
    auto c = NostrClient::connect_authed(*relay, alice, &error);
    ASSERT_TRUE(c) << error;
    // Three frames: a channel, the two messages of the burst, and one over the limit.
    ASSERT_TRUE(c->publish(make_event(alice, 9007, "", {{"h", channel}, {"name", "limits"}})).accepted);
    ASSERT_TRUE(c->publish(make_event(alice, 9, "first", {{"h", channel}})).accepted);
    ASSERT_TRUE(c->publish(make_event(alice, 9, "second", {{"h", channel}})).accepted);
    ASSERT_TRUE(relay->advance_clock(1, &error)) << error;  // the frame bucket refills
    EXPECT_EQ(c->publish(make_event(alice, 9, "over", {{"h", channel}})).reason,
              "rate-limited: message rate exceeded (1/min)");
    ASSERT_TRUE(relay->advance_clock(1, &error)) << error;
    // Five frames in a second, two over the frame limit: one entry between them.
    for (int i = 0; i < 5; ++i) c->send(R"(["REQ","r)" + std::to_string(i) + R"(",{"kinds":[1],"authors":[")" + hex(alice) + R"("]}])");
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(c->wait_for([&](const RelayMessage& m) { return m.id == "r" + std::to_string(i) && m.type != "EVENT"; }));
    }
    ASSERT_TRUE(relay->advance_clock(1, &error)) << error;
    EXPECT_EQ(c->publish(make_event(alice, 9, "third", {{"h", channel}})).reason,
              "rate-limited: message rate exceeded (1/min)");  // debounced: no second msg entry

    // dave: a token (call 1), a second token over the mint limit (call 2), then a call over the API limit.
    const std::string mint = "http://127.0.0.1:" + std::to_string(relay->port()) + "/api/tokens";
    const std::string body = R"({"name":"t","scopes":["messages:read"]})";
    auto mint_call = [&] {
      return http_call(relay->port(), "POST", "/api/tokens", {{"Authorization", nip98_header(dave, mint, "POST", body)}}, body);
    };
    EXPECT_EQ(mint_call().status, 201);
    EXPECT_EQ(mint_call().status, 429);
    EXPECT_EQ(mint_call().status, 429);  // the API limit now, not the mint limit
  }
  expect_verifies(dir);
  std::map<std::string, int> refusals;  // "actor limit channel" -> entries
  for (const Entry& e : chain(dir)) {
    if (e.action != "rate_limit_exceeded") continue;
    EXPECT_EQ(e.kind, 48001u);
    EXPECT_EQ(e.event_id, "");
    refusals[(e.actor == hex(alice) ? "alice " : "dave ") + e.meta + " " + e.channel]++;
  }
  EXPECT_EQ(refusals, (std::map<std::string, int>{{"alice {\"limit\":\"msg\"} " + channel, 1},
                                                  {"alice {\"limit\":\"ws\"} ", 1},
                                                  {"dave {\"limit\":\"mint\"} ", 1},
                                                  {"dave {\"limit\":\"api\"} ", 1}}));
}

// Publishes `count` events from `connections` clients pipelining up to 32 each;
// returns the ids that got OK true and counts the refusals by reason.
std::set<std::string> ingest(RelayProcess& relay, int connections, int count, std::map<std::string, int>* refusals,
                             const std::function<void(size_t)>& on_progress = {}) {
  std::mutex mu;
  std::set<std::string> ok;
  std::atomic<size_t> acknowledged{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < connections; ++t) {
    threads.emplace_back([&] {
      Keypair key = engine::generate_keypair();
      std::string error;
      auto c = NostrClient::connect_authed(relay, key, &error);
      if (!c) return;
      std::vector<Event> events;
      for (int i = 0; i < count / connections; ++i) events.push_back(make_event(key, 1, "load " + std::to_string(i)));
      size_t sent = 0, done = 0;
      while (done < events.size()) {
        while (sent < events.size() && sent - done < 32) c->send("[\"EVENT\"," + events[sent++].raw + "]");
        auto m = c->next_message(3000);
        if (!m) return;  // the relay is gone
        if (m->type != "OK") continue;
        ++done;
        std::lock_guard lock(mu);
        if (m->accepted) ok.insert(m->id);
        else (*refusals)[m->text]++;
        if (on_progress) on_progress(++acknowledged);
      }
    });
  }
  for (auto& t : threads) t.join();
  return ok;
}

TEST(AuditE2eTest, SigkillDuringHeavyIngestKeepsAVerifyingChainWithEveryAcknowledgedEvent) {
  const ScratchDir scratch("audit-e2e");
  const std::string& dir = scratch.path();
  std::set<std::string> acknowledged;
  {
    auto relay = start(dir, {"--rate-limits", "false"});  // heavy ingest, far past a human's limits
    ASSERT_TRUE(relay);
    std::map<std::string, int> refusals;
    std::atomic<bool> killed{false};
    acknowledged = ingest(*relay, 4, 8000, &refusals, [&](size_t n) {
      if (n == 2000 && !killed.exchange(true)) kill(relay->pid(), SIGKILL);  // mid-stream
    });
    relay->kill_hard();
    EXPECT_GE(acknowledged.size(), 1000u);
  }
  {
    auto relay = start(dir);  // recovery: torn tail truncated, pending records replayed
    ASSERT_TRUE(relay);
    // The replayed records reach the chain by the time a clean shutdown ends.
    EXPECT_TRUE(relay->terminate()) << relay->stderr_text();
  }
  expect_verifies(dir);
  std::set<std::string> logged;
  for (const Entry& e : chain(dir)) {
    if (e.action != "event_created") continue;
    EXPECT_TRUE(logged.insert(e.event_id).second) << "logged twice: " << e.event_id;
  }
  for (const std::string& id : acknowledged) EXPECT_TRUE(logged.count(id)) << "OK true but not in the chain: " << id;
}

TEST(AuditE2eTest, FullAuditQueueRefusesEventsInsteadOfDroppingEntries) {
  const ScratchDir scratch("audit-e2e");
  const std::string& dir = scratch.path();
  std::set<std::string> acknowledged;
  std::map<std::string, int> refusals;
  {
    auto relay = start(dir, {"--audit-queue", "2", "--rate-limits", "false"});
    ASSERT_TRUE(relay);
    acknowledged = ingest(*relay, 4, 4000, &refusals);
  }
  for (const auto& [reason, n] : refusals) EXPECT_EQ(reason, "error: audit backlog full, retry") << n << " times";
  std::printf("accepted %zu, refused %d\n", acknowledged.size(), refusals["error: audit backlog full, retry"]);
  expect_verifies(dir);
  std::set<std::string> logged;
  for (const Entry& e : chain(dir)) {
    if (e.action == "event_created") logged.insert(e.event_id);
  }
  for (const std::string& id : acknowledged) EXPECT_TRUE(logged.count(id)) << "OK true but not in the chain: " << id;
}

}  // namespace
}  // namespace buzz::test
