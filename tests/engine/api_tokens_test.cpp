// Unit tests for engine/api_tokens: the record round trips and refuses
// garbage, tokens are 69 characters and stored only as their hash, the
// per-owner active limit holds, revocation and expiry end a token, and
// everything survives a reopen of the store.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "engine/api_tokens.h"
#include "engine/rocks_event_store.h"
#include "tests/temp_dir.h"

namespace buzz::engine {
namespace {

Pubkey pk(uint8_t n) {
  Pubkey p{};
  p[0] = n;
  return p;
}

ApiToken token_for(const Pubkey& owner, uint64_t created_at, std::string* raw = nullptr) {
  auto [secret, hash] = generate_token();
  if (raw) *raw = secret;
  ApiToken t;
  t.id = "00000000-0000-4000-8000-" + std::string(12, char('0' + created_at % 10));
  t.hash = hash;
  t.owner = owner;
  t.name = "agent";
  t.scopes = {"messages:read", "something:unknown"};
  t.created_at = created_at;
  return t;
}

TEST(ApiTokenRecordTest, RoundTripsEveryFieldAndRefusesGarbage) {
  ApiToken t = token_for(pk(1), 5);
  t.channels = std::vector<std::string>{"a", "b"};
  t.expires_at = 9;
  t.last_used_at = 6;
  t.revoked_at = 7;
  t.revoked_by = pk(2);
  t.self_minted = true;
  ApiToken back;
  ASSERT_TRUE(decode_token(encode_token(t), &back));
  EXPECT_EQ(encode_token(back), encode_token(t));
  EXPECT_EQ(back.scopes, t.scopes);
  EXPECT_EQ(back.channels, t.channels);
  std::string bytes = encode_token(t);
  EXPECT_FALSE(decode_token(bytes.substr(0, bytes.size() - 1), &back));
  EXPECT_FALSE(decode_token(bytes + "x", &back));
  EXPECT_FALSE(decode_token("", &back));
}

TEST(ApiTokenRecordTest, TokensAreBuzzPrefixedHexAndHashedBySha256) {
  auto [secret, hash] = generate_token();
  EXPECT_EQ(secret.size(), 69u);
  EXPECT_TRUE(secret.starts_with("buzz_"));
  EXPECT_EQ(secret.find_first_not_of("0123456789abcdef", 5), std::string::npos);
  EXPECT_EQ(hash, hash_token(secret));
  EXPECT_NE(generate_token().first, secret);
}

// A lookup that must reach the store.
std::optional<ApiToken> found(const ApiTokens& tokens, const TokenHash& hash) {
  auto t = tokens.find(hash);
  EXPECT_TRUE(t.ok()) << t.error();
  return t.ok() ? *t : std::nullopt;
}

class ApiTokensTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("buzz-tokens");
    ASSERT_FALSE(dir_.empty());
    open();
  }
  void TearDown() override {
    tokens_.reset();
    store_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  void open() {
    tokens_.reset();
    store_.reset();
    db_.reset();
    auto db = RocksDatabase::open(dir_ + "/db", DatabaseOptions{});
    ASSERT_TRUE(db.ok()) << db.error();
    db_ = std::move(db.value());
    store_ = std::make_unique<RocksEventStore>(*db_);
    tokens_ = std::make_unique<ApiTokens>(*store_);
    ASSERT_TRUE(tokens_->check());
  }

  std::string dir_;
  std::unique_ptr<RocksDatabase> db_;
  std::unique_ptr<RocksEventStore> store_;
  std::unique_ptr<ApiTokens> tokens_;
};

TEST_F(ApiTokensTest, TenActiveTokensPerOwner) {
  for (uint64_t i = 0; i < kMaxActiveTokensPerOwner; ++i) ASSERT_TRUE(*tokens_->insert(token_for(pk(1), i), 100));
  EXPECT_FALSE(*tokens_->insert(token_for(pk(1), 11), 100));
  EXPECT_TRUE(*tokens_->insert(token_for(pk(2), 11), 100)) << "the limit is per owner";
  ASSERT_EQ(*tokens_->revoke_all(pk(1), 100), kMaxActiveTokensPerOwner);
  EXPECT_TRUE(*tokens_->insert(token_for(pk(1), 12), 100)) << "revoked tokens do not count";
}

TEST_F(ApiTokensTest, RevocationAndExpiryEndAToken) {
  ApiToken t = token_for(pk(1), 1);
  t.expires_at = 50;
  ASSERT_TRUE(*tokens_->insert(t, 10));
  EXPECT_TRUE(found(*tokens_, t.hash)->active(50));
  EXPECT_FALSE(found(*tokens_, t.hash)->active(51));
  EXPECT_EQ(*tokens_->revoke(t.id, pk(2), 20), RevokeOutcome::kNotFound) << "only the owner revokes";
  EXPECT_EQ(*tokens_->revoke(t.id, pk(1), 20), RevokeOutcome::kRevoked);
  EXPECT_EQ(*tokens_->revoke(t.id, pk(1), 21), RevokeOutcome::kAlreadyRevoked);
  EXPECT_EQ(found(*tokens_, t.hash)->revoked_at, 20u);
}

TEST_F(ApiTokensTest, OnlyTheHashIsStoredAndEverythingSurvivesAReopen) {
  std::string raw;
  ApiToken t = token_for(pk(3), 7, &raw);
  ASSERT_TRUE(*tokens_->insert(t, 10));
  tokens_->touch(t, 400);
  bool raw_seen = false;
  ASSERT_TRUE(store_->scan_state(StateTable::kApiTokens, [&](std::string_view key, std::string_view value) {
    raw_seen |= key.find(raw) != std::string_view::npos || value.find(raw) != std::string_view::npos;
  }));
  EXPECT_FALSE(raw_seen);
  open();
  auto back = found(*tokens_, hash_token(raw));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->name, "agent");
  EXPECT_EQ(back->last_used_at, 400u);
  ASSERT_EQ(tokens_->owned_by(pk(3))->size(), 1u);
}

// Two registries over one store stand for two nodes over one PostgreSQL: what
// one writes, the other reads at its next lookup.
TEST_F(ApiTokensTest, ARevocationIsSeenByEveryRegistryOverTheStore) {
  ApiTokens other(*store_);
  ApiToken t = token_for(pk(1), 1);
  ASSERT_TRUE(*tokens_->insert(t, 10));
  ASSERT_TRUE(found(other, t.hash).has_value()) << "a token minted on one node works on another";
  const ApiToken seen_before = *found(other, t.hash);
  EXPECT_EQ(*tokens_->revoke(t.id, pk(1), 20), RevokeOutcome::kRevoked);
  EXPECT_EQ(found(other, t.hash)->revoked_at, 20u);
  // A touch of the token as it was read before the revocation must not write it back live.
  other.touch(seen_before, 1000);
  EXPECT_EQ(found(*tokens_, t.hash)->revoked_at, 20u);
  EXPECT_EQ(found(*tokens_, t.hash)->last_used_at, 0u) << "a revoked token's use is not recorded";
  EXPECT_EQ(*other.revoke(t.id, pk(1), 30), RevokeOutcome::kAlreadyRevoked);
}

TEST_F(ApiTokensTest, ADamagedRecordIsNamedAtStartUp) {
  ASSERT_TRUE(store_->put_state(StateTable::kApiTokens, std::string(32, 'x'), "not a token"));
  Status s = tokens_->check();
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("unreadable API token record 7878"), std::string::npos) << s.error();
  EXPECT_FALSE(found(*tokens_, TokenHash{}).has_value());
  TokenHash damaged;
  damaged.fill('x');
  EXPECT_FALSE(tokens_->find(damaged).ok()) << "a damaged record is an error, not an unknown token";
}

}  // namespace
}  // namespace buzz::engine
