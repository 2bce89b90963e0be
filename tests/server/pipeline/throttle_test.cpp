// Throttle (server/pipeline/throttle.h) on the real rooms it asks — a RocksDB
// store in a temp dir, the relay members, the profile directory, a store
// writer that is never started — with time moved by the test clock
// (engine::advance_clock), never slept: a human connection's EVENT and read
// buckets, the per-pubkey API-call and message rates with the wait a refusal
// states, and who is exempt (the owner, a proxy:submit connection, an agent's
// frames, every limit when they are off). Each refusal is counted.
#include "server/pipeline/throttle.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "engine/audit_log.h"
#include "engine/clock.h"
#include "engine/relay_members.h"
#include "engine/rocks_database.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "engine/team_state.h"
#include "server/feeds/audit_feed.h"
#include "server/team/team_model.h"
#include "tests/temp_dir.h"

namespace buzz::server {
namespace {

// Small limits, so that a test reaches each one in a few calls.
RateLimitConfig small_limits() {
  RateLimitConfig r;
  r.human_ws_events_per_sec = 2;
  r.human_ws_events_burst = 5;
  r.human_reads_per_sec = 1;
  r.human_reads_burst = 3;
  r.api_calls_per_min[size_t(Tier::kHuman)] = 6;          // a burst of 6, then one per 10 s
  r.messages_per_min[size_t(Tier::kHuman)] = 2;           // a burst of 4, then one per 30 s
  r.messages_per_min[size_t(Tier::kAgentStandard)] = 60;  // a burst of 120
  return r;
}

class ThrottleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("buzz_throttle_test");
    ASSERT_FALSE(dir_.empty());
    auto db = engine::RocksDatabase::open(dir_ + "/db", {});
    ASSERT_TRUE(db) << db.error();
    db_ = std::move(*db);
    store_ = std::make_unique<engine::RocksEventStore>(*db_);
    members_ = std::make_unique<engine::RelayMembers>(*db_);
    ASSERT_TRUE(members_->set_owner(owner_.pubkey, engine::unix_now()).ok());
    membership_ = std::make_unique<RelayMembership>(*members_, relay_key_, true);
    ASSERT_TRUE(membership_->load().ok());
    profiles_ = std::make_unique<ProfileDirectory>(*store_, "relay.example.com");
    team_model_ = std::make_unique<TeamModel>(team_, *store_, *profiles_, relay_key_);
    auto log = engine::AuditLog::open(dir_ + "/audit", {});
    ASSERT_TRUE(log) << log.error();
    audit_log_ = std::move(*log);
    feed_ = std::make_unique<AuditFeed>(*store_, *audit_log_, 1024);
    writer_ = std::make_unique<StoreWriter>(*store_, *membership_, *team_model_, *feed_, 1024, std::chrono::seconds(60));
  }
  void TearDown() override {
    throttle_.reset();
    writer_.reset();
    feed_.reset();
    audit_log_.reset();
    team_model_.reset();
    profiles_.reset();
    membership_.reset();
    members_.reset();
    store_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }

  Throttle& throttle(const RateLimitConfig& limits = small_limits()) {
    limits_ = limits;
    throttle_ = std::make_unique<Throttle>(limits_, *profiles_, *membership_, *store_, *writer_, stats_);
    return *throttle_;
  }
  uint64_t refused(RateLimit limit) const { return stats_.rate_limited[size_t(limit)].load(); }

  // A kind 9 channel message by k (counts as a message).
  engine::Event message(const engine::Keypair& k) {
    return engine::signed_event(k, 9, engine::unix_now(), {}, "hello " + std::to_string(++sent_));
  }

  const engine::Keypair relay_key_ = engine::generate_keypair();
  const engine::Keypair owner_ = engine::generate_keypair();
  const engine::Keypair human_ = engine::generate_keypair();
  std::string dir_;
  std::unique_ptr<engine::RocksDatabase> db_;
  std::unique_ptr<engine::RocksEventStore> store_;
  std::unique_ptr<engine::RelayMembers> members_;
  std::unique_ptr<RelayMembership> membership_;
  std::unique_ptr<ProfileDirectory> profiles_;
  engine::TeamState team_;
  std::unique_ptr<TeamModel> team_model_;
  std::unique_ptr<engine::AuditLog> audit_log_;
  std::unique_ptr<AuditFeed> feed_;
  std::unique_ptr<StoreWriter> writer_;
  RelayStats stats_;
  RateLimitConfig limits_;
  std::unique_ptr<Throttle> throttle_;
  int sent_ = 0;
};

TEST_F(ThrottleTest, AHumanConnectionSendsItsBurstOfEventsThenWaitsForTheRefill) {
  Throttle& t = throttle();
  FrameBucket bucket;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(t.admit_write(bucket, human_.pubkey, Grant{}), std::nullopt) << i;
  EXPECT_EQ(t.admit_write(bucket, human_.pubkey, Grant{}), std::optional<uint64_t>(1));
  EXPECT_EQ(refused(RateLimit::kWsEvents), 1u);
  engine::advance_clock(1);  // two EVENT frames back at 2 per second
  EXPECT_EQ(t.admit_write(bucket, human_.pubkey, Grant{}), std::nullopt);
  EXPECT_EQ(t.admit_write(bucket, human_.pubkey, Grant{}), std::nullopt);
  EXPECT_NE(t.admit_write(bucket, human_.pubkey, Grant{}), std::nullopt);
  // Another connection of the same pubkey has its own bucket.
  FrameBucket other;
  EXPECT_EQ(t.admit_write(other, human_.pubkey, Grant{}), std::nullopt);
}

TEST_F(ThrottleTest, AReplayChargesTheReadBucketByTheEventsItSent) {
  Throttle& t = throttle();
  FrameBucket bucket;
  EXPECT_EQ(t.admit_read(bucket, human_.pubkey, Grant{}), std::nullopt);
  t.charge_replay(bucket, 2 * kReadUnitEvents);  // two more units: the burst of 3 is spent
  EXPECT_EQ(t.admit_read(bucket, human_.pubkey, Grant{}), std::optional<uint64_t>(1));
  t.charge_replay(bucket, kReadUnitEvents - 1);  // under one unit costs nothing
  engine::advance_clock(1);
  EXPECT_EQ(t.admit_read(bucket, human_.pubkey, Grant{}), std::nullopt);
}

TEST_F(ThrottleTest, TheOwnerAProxySubmitterAndAnAgentHaveNoFrameLimit) {
  RateLimitConfig limits = small_limits();
  const engine::Keypair agent = engine::generate_keypair();
  limits.assigned[agent.pubkey] = Tier::kAgentStandard;
  Throttle& t = throttle(limits);
  Grant proxy;
  proxy.scopes.add(Scope::kProxySubmit);
  FrameBucket owner_bucket, proxy_bucket, agent_bucket;
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(t.admit_write(owner_bucket, owner_.pubkey, Grant{}), std::nullopt) << i;
    ASSERT_EQ(t.admit_write(proxy_bucket, human_.pubkey, proxy), std::nullopt) << i;
    ASSERT_EQ(t.admit_write(agent_bucket, agent.pubkey, Grant{}), std::nullopt) << i;
  }
  EXPECT_EQ(refused(RateLimit::kWsEvents), 0u);
}

TEST_F(ThrottleTest, ApiCallsComeInAMinutesBurstThenAtTheRateWithRetryAfter) {
  Throttle& t = throttle();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.admit_api_call(human_.pubkey), std::nullopt) << i;
  std::optional<net::HttpResponse> refusal = t.admit_api_call(human_.pubkey);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 429);
  EXPECT_NE(refusal->body.find("rate-limited: API call rate exceeded (6/min)"), std::string::npos) << refusal->body;
  ASSERT_EQ(refusal->headers.size(), 1u);
  EXPECT_EQ(refusal->headers[0], (std::pair<std::string, std::string>{"Retry-After", "10"}));
  EXPECT_EQ(refused(RateLimit::kApiCalls), 1u);
  engine::advance_clock(10);  // one call back every 10 s
  EXPECT_EQ(t.admit_api_call(human_.pubkey), std::nullopt);
  EXPECT_TRUE(t.admit_api_call(human_.pubkey));
  EXPECT_EQ(t.admit_api_call(owner_.pubkey), std::nullopt) << "each pubkey its own rate";
}

TEST_F(ThrottleTest, MessagesComeInABurstOfTwiceTheRateByTierAndTheOwnerIsExempt) {
  RateLimitConfig limits = small_limits();
  const engine::Keypair agent = engine::generate_keypair();
  limits.assigned[agent.pubkey] = Tier::kAgentStandard;
  Throttle& t = throttle(limits);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(t.admit_message(message(human_), human_.pubkey), std::nullopt) << i;
  std::optional<Verdict> refusal = t.admit_message(message(human_), human_.pubkey);
  ASSERT_TRUE(refusal);
  EXPECT_FALSE(refusal->accepted);
  EXPECT_EQ(refusal->reason, "rate-limited: message rate exceeded (2/min)");
  EXPECT_EQ(refusal->retry_after, 30u);
  EXPECT_EQ(refused(RateLimit::kMessages), 1u);
  // Not a message (a profile): not counted.
  engine::Event profile = message(human_);
  profile.kind = 0;
  EXPECT_EQ(t.admit_message(profile, human_.pubkey), std::nullopt);
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(t.admit_message(message(agent), agent.pubkey), std::nullopt) << "the agent tier's burst is 120";
    ASSERT_EQ(t.admit_message(message(owner_), owner_.pubkey), std::nullopt) << "the owner administers the relay";
  }
  engine::advance_clock(30);
  EXPECT_EQ(t.admit_message(message(human_), human_.pubkey), std::nullopt);
  EXPECT_TRUE(t.admit_message(message(human_), human_.pubkey));
}

TEST_F(ThrottleTest, WithTheLimitsOffNothingIsRefused) {
  RateLimitConfig limits = small_limits();
  limits.enabled = false;
  Throttle& t = throttle(limits);
  FrameBucket bucket;
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(t.admit_write(bucket, human_.pubkey, Grant{}), std::nullopt) << i;
    ASSERT_EQ(t.admit_api_call(human_.pubkey), std::nullopt) << i;
    ASSERT_EQ(t.admit_message(message(human_), human_.pubkey), std::nullopt) << i;
  }
  for (RateLimit l : {RateLimit::kMessages, RateLimit::kApiCalls, RateLimit::kWsEvents}) EXPECT_EQ(refused(l), 0u);
}

}  // namespace
}  // namespace buzz::server
