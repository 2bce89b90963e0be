// Unit tests for server/profile_directory on a real RocksDB in a temp dir: the
// kind 0 projection (name and picture fallbacks, absolute state, NIP-05 only at
// the relay's domain and only for its first claimant), stale versions ignored,
// the kind 10100 agent fields, the channel_add_policy race between a 10100 and
// the REST setter (newest wins), the one-time owner claim, search ranking with
// literal query characters, and a reload from the store that gives the same
// answers — with more profiles than one query may return.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "server/team/profile_directory.h"
#include "tests/temp_dir.h"

namespace buzz::server {
namespace {

constexpr char kDomain[] = "relay.example.com";

engine::Keypair profile_key(uint16_t n) {
  engine::SecretKey s{};
  s[0] = 0x42;
  s[30] = uint8_t(n >> 8);
  s[31] = uint8_t(n);
  return *engine::keypair_from_secret(s);
}

engine::Event profile_event(const engine::Keypair& k, uint16_t kind, std::string content, uint64_t created_at) {
  return engine::signed_event(k, kind, created_at, {}, std::move(content));
}

class ProfileDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("buzz_profiles_test");
    ASSERT_FALSE(dir_.empty());
    open();
  }
  void TearDown() override {
    directory_.reset();
    store_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  void open() {
    directory_.reset();
    store_.reset();
    db_.reset();
    auto db = engine::RocksDatabase::open(dir_ + "/db", {});
    ASSERT_TRUE(db) << db.error();
    db_ = std::move(*db);
    store_ = std::make_unique<engine::RocksEventStore>(*db_);
    directory_ = std::make_unique<ProfileDirectory>(*store_, kDomain);
    ASSERT_TRUE(directory_->load());
  }
  // Stores the event and, if it was stored, applies it, as the relay does after a durable batch.
  void publish(const engine::Event& e) {
    engine::WriteRequest req{&e, ""};
    auto r = store_->write(std::span(&req, 1));
    ASSERT_TRUE(r) << r.error();
    if (r->at(0).outcome == engine::WriteOutcome::kStored) directory_->apply(e);
  }
  Profile profile(const engine::Keypair& k) {
    auto p = directory_->find(k.pubkey);
    EXPECT_TRUE(p.has_value());
    return p.value_or(Profile{});
  }

  std::string dir_;
  std::unique_ptr<engine::RocksDatabase> db_;
  std::unique_ptr<engine::RocksEventStore> store_;
  std::unique_ptr<ProfileDirectory> directory_;
};

TEST_F(ProfileDirectoryTest, Kind0IsProjectedWithFallbacks) {
  engine::Keypair alice = profile_key(1);
  EXPECT_FALSE(directory_->find(alice.pubkey));
  publish(profile_event(alice, 0, R"({"name":"alice","image":"https://img/a.png","about":"hi","nip05":"Alice@Relay.Example.com"})", 100));
  Profile p = profile(alice);
  EXPECT_EQ(p.display_name, "alice");
  EXPECT_EQ(p.avatar_url, "https://img/a.png");
  EXPECT_EQ(p.about, "hi");
  EXPECT_EQ(p.nip05_handle, "alice@relay.example.com");
  EXPECT_EQ(directory_->by_nip05("ALICE@relay.example.com"), alice.pubkey);

  // display_name and picture win over name and image.
  publish(profile_event(alice, 0, R"({"name":"alice","display_name":"Alice A.","picture":"https://img/b.png","image":"x"})", 101));
  p = profile(alice);
  EXPECT_EQ(p.display_name, "Alice A.");
  EXPECT_EQ(p.avatar_url, "https://img/b.png");
  // Absolute state: what the new event leaves out is cleared, the handle freed.
  EXPECT_EQ(p.about, "");
  EXPECT_EQ(p.nip05_handle, "");
  EXPECT_FALSE(directory_->by_nip05("alice@relay.example.com"));
}

TEST_F(ProfileDirectoryTest, Nip05IsKeptOnlyAtTheRelayDomainAndForItsFirstClaimant) {
  engine::Keypair a = profile_key(1), b = profile_key(2), c = profile_key(3);
  publish(profile_event(a, 0, R"({"nip05":"ops@relay.example.com"})", 100));
  publish(profile_event(b, 0, R"({"name":"b","nip05":"OPS@relay.example.com"})", 101));
  publish(profile_event(c, 0, R"({"nip05":"c@elsewhere.org"})", 102));
  EXPECT_EQ(profile(a).nip05_handle, "ops@relay.example.com");
  EXPECT_EQ(profile(b).nip05_handle, "") << "a handle taken by another user is dropped";
  EXPECT_EQ(profile(b).display_name, "b") << "the rest of the profile still syncs";
  EXPECT_EQ(profile(c).nip05_handle, "");
  for (const char* bad : {"@relay.example.com", "x@y@relay.example.com", "relay.example.com", "x@relay.example.com.evil"}) {
    publish(profile_event(c, 0, std::string(R"({"nip05":")") + bad + R"("})", 103));
    EXPECT_EQ(profile(c).nip05_handle, "") << bad;
  }
}

TEST_F(ProfileDirectoryTest, OlderVersionsAndOtherKindsAreIgnored) {
  engine::Keypair a = profile_key(1);
  publish(profile_event(a, 0, R"({"name":"new"})", 200));
  directory_->apply(profile_event(a, 0, R"({"name":"old"})", 100));
  directory_->apply(profile_event(a, 1, R"({"name":"note"})", 300));
  EXPECT_EQ(profile(a).display_name, "new");
  directory_->apply(profile_event(a, 0, "[1,2]", 300));  // JSON but not an object: every field absent
  EXPECT_EQ(profile(a).display_name, "");
}

TEST_F(ProfileDirectoryTest, AgentProfileSetsTypeCapabilitiesAndPolicy) {
  engine::Keypair bot = profile_key(1);
  publish(profile_event(bot, 10100, R"({"channel_add_policy":"owner_only","agent_type":"goose","capabilities":["code",7,"review"]})", 100));
  Profile p = profile(bot);
  EXPECT_EQ(p.agent_type, "goose");
  EXPECT_EQ(p.capabilities, (std::vector<std::string>{"code", "review"}));
  EXPECT_EQ(p.channel_add_policy, AddPolicy::kOwnerOnly);
  EXPECT_EQ(directory_->add_rule(bot.pubkey).policy, AddPolicy::kOwnerOnly);
  // A missing or unknown policy keeps the one in force.
  publish(profile_event(bot, 10100, R"({"channel_add_policy":"everyone"})", 101));
  EXPECT_EQ(profile(bot).channel_add_policy, AddPolicy::kOwnerOnly);
  EXPECT_EQ(profile(bot).agent_type, "");
  EXPECT_EQ(directory_->add_rule(profile_key(9).pubkey).policy, AddPolicy::kAnyone) << "unknown users default to anyone";
}

TEST_F(ProfileDirectoryTest, NewestPolicyWinsBetweenEventAndRestAndSurvivesReload) {
  engine::Keypair bot = profile_key(1);
  publish(profile_event(bot, 10100, R"({"channel_add_policy":"nobody"})", 100));
  auto set = directory_->set_add_policy(bot.pubkey, AddPolicy::kAnyone, 150'000);
  ASSERT_TRUE(set) << set.error();
  EXPECT_EQ(profile(bot).channel_add_policy, AddPolicy::kAnyone);
  open();
  EXPECT_EQ(profile(bot).channel_add_policy, AddPolicy::kAnyone) << "the REST call was newer than the 10100";
  publish(profile_event(bot, 10100, R"({"channel_add_policy":"owner_only"})", 200));
  EXPECT_EQ(profile(bot).channel_add_policy, AddPolicy::kOwnerOnly);
  open();
  EXPECT_EQ(profile(bot).channel_add_policy, AddPolicy::kOwnerOnly) << "the 10100 was newer than the REST call";
}

// Within one second the REST call, timed to the millisecond, is newer than a
// 10100 before it and older than a 10100 of the next second — live and after a
// reload alike.
TEST_F(ProfileDirectoryTest, PolicyOrderIsTheSameLiveAndAfterReload) {
  engine::Keypair bot = profile_key(1);
  publish(profile_event(bot, 10100, R"({"channel_add_policy":"nobody"})", 300));
  ASSERT_TRUE(directory_->set_add_policy(bot.pubkey, AddPolicy::kOwnerOnly, 300'000));  // on the second, even
  publish(profile_event(bot, 10100, R"({"channel_add_policy":"anyone","agent_type":"late copy"})", 300));
  EXPECT_EQ(profile(bot).channel_add_policy, AddPolicy::kOwnerOnly);
  open();
  EXPECT_EQ(profile(bot).channel_add_policy, AddPolicy::kOwnerOnly);
  publish(profile_event(bot, 10100, R"({"channel_add_policy":"anyone"})", 301));
  EXPECT_EQ(profile(bot).channel_add_policy, AddPolicy::kAnyone);
  open();
  EXPECT_EQ(profile(bot).channel_add_policy, AddPolicy::kAnyone);
}

TEST_F(ProfileDirectoryTest, OwnerIsClaimedOnce) {
  engine::Keypair agent = profile_key(1), owner = profile_key(2), other = profile_key(3);
  EXPECT_EQ(*directory_->claim_owner(agent.pubkey, owner.pubkey), ProfileDirectory::OwnerClaim::kClaimed);
  EXPECT_EQ(*directory_->claim_owner(agent.pubkey, owner.pubkey), ProfileDirectory::OwnerClaim::kAlreadyYours);
  EXPECT_EQ(*directory_->claim_owner(agent.pubkey, other.pubkey), ProfileDirectory::OwnerClaim::kOwnedByOther);
  open();
  EXPECT_EQ(directory_->add_rule(agent.pubkey).owner, owner.pubkey);
  EXPECT_EQ(*directory_->claim_owner(agent.pubkey, other.pubkey), ProfileDirectory::OwnerClaim::kOwnedByOther);
}

TEST_F(ProfileDirectoryTest, SearchRanksExactThenPrefixThenSubstring) {
  engine::Keypair exact_name = profile_key(1), prefix_name = profile_key(2), inner_name = profile_key(3), exact_handle = profile_key(4), none = profile_key(5);
  publish(profile_event(exact_name, 0, R"({"name":"Sam"})", 100));
  publish(profile_event(prefix_name, 0, R"({"name":"Samantha"})", 100));
  publish(profile_event(inner_name, 0, R"({"name":"Bo Sam"})", 100));
  publish(profile_event(exact_handle, 0, R"({"name":"Zed","nip05":"sam@relay.example.com"})", 100));
  publish(profile_event(none, 0, R"({"name":"Robin"})", 100));
  std::vector<std::string> names;
  for (const Profile& p : directory_->search("SAM", 10)) names.push_back(p.display_name);
  // Exact name; prefix name; prefix handle ("sam@…"); substring.
  EXPECT_EQ(names, (std::vector<std::string>{"Sam", "Samantha", "Zed", "Bo Sam"}));
  EXPECT_EQ(directory_->search("sam@relay.example.com", 10).at(0).display_name, "Zed");
  EXPECT_EQ(directory_->search("sam", 2).size(), 2u);
  // A pubkey matches by its hex, exactly or by prefix.
  std::string hex = engine::to_hex(none.pubkey);
  ASSERT_EQ(directory_->search(hex, 5).size(), 1u);
  EXPECT_EQ(directory_->search(hex.substr(0, 10), 5).at(0).display_name, "Robin");
  // SQL wildcards are plain characters.
  EXPECT_TRUE(directory_->search("%", 10).empty());
  EXPECT_TRUE(directory_->search("_", 10).empty());
  publish(profile_event(none, 0, R"({"name":"100%_sure"})", 101));
  EXPECT_EQ(directory_->search("%_", 10).size(), 1u);
}

TEST_F(ProfileDirectoryTest, ReloadRebuildsEveryProfileFromTheStore) {
  constexpr int kUsers = 600;  // more than one store query returns
  for (uint16_t i = 0; i < kUsers; ++i) {
    engine::Event e = profile_event(profile_key(1000 + i), 0, R"({"name":"user )" + std::to_string(i) + R"("})", 100);
    engine::WriteRequest req{&e, ""};
    ASSERT_TRUE(store_->write(std::span(&req, 1)));
  }
  // Two claimants of one handle: the older keeps it after a reload too.
  engine::Keypair first = profile_key(1), second = profile_key(2);
  publish(profile_event(first, 0, R"({"name":"first","nip05":"lead@relay.example.com"})", 200));
  publish(profile_event(second, 0, R"({"name":"second","nip05":"lead@relay.example.com"})", 201));
  open();
  EXPECT_EQ(directory_->search("user", 1000).size(), size_t(kUsers));
  EXPECT_EQ(directory_->by_nip05("lead@relay.example.com"), first.pubkey);
  EXPECT_EQ(profile(second).nip05_handle, "");
}

}  // namespace
}  // namespace buzz::server
