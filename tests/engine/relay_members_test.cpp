// Unit tests for engine/relay_members (NIP-43 relay membership, docs/reference/protocol.md
// §7) on a real RocksDB in a temp dir: role names, put/get/remove, list order
// (oldest first), owner rotation by set_owner (the new owner is upserted and
// every other owner becomes admin), and persistence across reopen.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "engine/relay_members.h"
#include "tests/temp_dir.h"

namespace buzz::engine {
namespace {

Pubkey member_pk(uint8_t n) {
  Pubkey p{};
  p[0] = n;
  return p;
}

class RelayMembersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("buzz_members_test");
    ASSERT_FALSE(dir_.empty());
    open();
  }
  void TearDown() override {
    members_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  void open() {
    DatabaseOptions options;
    options.block_cache_bytes = 1 << 20;
    auto db = RocksDatabase::open(dir_ + "/db", options);
    ASSERT_TRUE(db.ok()) << db.error();
    db_ = std::move(db.value());
    members_ = std::make_unique<RelayMembers>(*db_);
  }
  void reopen() {
    members_.reset();
    db_.reset();
    open();
  }
  std::string dir_;
  std::unique_ptr<RocksDatabase> db_;
  std::unique_ptr<RelayMembers> members_;
};

TEST(RelayRoles, NamesRoundTrip) {
  for (RelayRole r : {RelayRole::kMember, RelayRole::kAdmin, RelayRole::kOwner}) {
    EXPECT_EQ(parse_relay_role(relay_role_name(r)), r);
  }
  EXPECT_EQ(relay_role_name(RelayRole::kOwner), "owner");
  EXPECT_EQ(relay_role_name(RelayRole::kAdmin), "admin");
  EXPECT_EQ(relay_role_name(RelayRole::kMember), "member");
  EXPECT_FALSE(parse_relay_role("Owner"));
  EXPECT_FALSE(parse_relay_role("guest"));
  EXPECT_FALSE(parse_relay_role(""));
}

TEST_F(RelayMembersTest, PutGetRemove) {
  EXPECT_FALSE(members_->get(member_pk(1)));
  RelayMember m{member_pk(1), RelayRole::kAdmin, member_pk(9), 100, 200};
  ASSERT_TRUE(members_->put(m).ok());
  auto got = members_->get(member_pk(1));
  ASSERT_TRUE(got);
  EXPECT_EQ(got->pubkey, member_pk(1));
  EXPECT_EQ(got->role, RelayRole::kAdmin);
  ASSERT_TRUE(got->added_by);
  EXPECT_EQ(*got->added_by, member_pk(9));
  EXPECT_EQ(got->created_at, 100u);
  EXPECT_EQ(got->updated_at, 200u);

  RelayMember no_adder{member_pk(2), RelayRole::kMember, std::nullopt, 1, 1};
  ASSERT_TRUE(members_->put(no_adder).ok());
  EXPECT_FALSE(members_->get(member_pk(2))->added_by);

  auto removed = members_->remove(member_pk(1));
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(*removed);
  EXPECT_FALSE(members_->get(member_pk(1)));
  auto again = members_->remove(member_pk(1));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST_F(RelayMembersTest, PutOverwrites) {
  ASSERT_TRUE(members_->put({member_pk(1), RelayRole::kMember, std::nullopt, 10, 10}).ok());
  ASSERT_TRUE(members_->put({member_pk(1), RelayRole::kAdmin, std::nullopt, 10, 20}).ok());
  EXPECT_EQ(members_->get(member_pk(1))->role, RelayRole::kAdmin);
  EXPECT_EQ(members_->list()->size(), 1u);
}

TEST_F(RelayMembersTest, ListIsOldestFirst) {
  ASSERT_TRUE(members_->put({member_pk(1), RelayRole::kMember, std::nullopt, 300, 300}).ok());
  ASSERT_TRUE(members_->put({member_pk(2), RelayRole::kMember, std::nullopt, 100, 100}).ok());
  ASSERT_TRUE(members_->put({member_pk(3), RelayRole::kMember, std::nullopt, 200, 200}).ok());
  auto list = members_->list();
  ASSERT_TRUE(list.ok()) << list.error();
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].pubkey, member_pk(2));
  EXPECT_EQ((*list)[1].pubkey, member_pk(3));
  EXPECT_EQ((*list)[2].pubkey, member_pk(1));
}

TEST_F(RelayMembersTest, SetOwnerInsertsANewOwner) {
  ASSERT_TRUE(members_->set_owner(member_pk(5), 1000).ok());
  auto owner = members_->get(member_pk(5));
  ASSERT_TRUE(owner);
  EXPECT_EQ(owner->role, RelayRole::kOwner);
  EXPECT_EQ(owner->created_at, 1000u);
  EXPECT_FALSE(owner->added_by);
}

TEST_F(RelayMembersTest, SetOwnerRotatesTheOldOwnerToAdmin) {
  ASSERT_TRUE(members_->put({member_pk(1), RelayRole::kOwner, std::nullopt, 10, 10}).ok());
  ASSERT_TRUE(members_->put({member_pk(2), RelayRole::kMember, std::nullopt, 20, 20}).ok());
  ASSERT_TRUE(members_->put({member_pk(3), RelayRole::kAdmin, std::nullopt, 30, 30}).ok());
  ASSERT_TRUE(members_->set_owner(member_pk(2), 500).ok());
  EXPECT_EQ(members_->get(member_pk(1))->role, RelayRole::kAdmin);
  EXPECT_EQ(members_->get(member_pk(1))->updated_at, 500u);
  EXPECT_EQ(members_->get(member_pk(2))->role, RelayRole::kOwner);
  EXPECT_EQ(members_->get(member_pk(2))->created_at, 20u);  // an upgrade keeps the join time
  EXPECT_EQ(members_->get(member_pk(2))->updated_at, 500u);
  EXPECT_EQ(members_->get(member_pk(3))->role, RelayRole::kAdmin);
  EXPECT_EQ(members_->get(member_pk(3))->updated_at, 30u);  // untouched
  int owners = 0;
  auto list = members_->list();
  ASSERT_TRUE(list.ok()) << list.error();
  for (const RelayMember& m : *list) owners += m.role == RelayRole::kOwner;
  EXPECT_EQ(owners, 1);
}

TEST_F(RelayMembersTest, SetOwnerIsIdempotent) {
  ASSERT_TRUE(members_->set_owner(member_pk(1), 100).ok());
  ASSERT_TRUE(members_->set_owner(member_pk(1), 200).ok());
  EXPECT_EQ(members_->get(member_pk(1))->role, RelayRole::kOwner);
  EXPECT_EQ(members_->get(member_pk(1))->updated_at, 100u);
  EXPECT_EQ(members_->list()->size(), 1u);
}

TEST_F(RelayMembersTest, SurvivesReopen) {
  ASSERT_TRUE(members_->put({member_pk(1), RelayRole::kAdmin, member_pk(2), 10, 11}).ok());
  ASSERT_TRUE(members_->set_owner(member_pk(2), 12).ok());
  reopen();
  ASSERT_TRUE(members_->get(member_pk(1)));
  EXPECT_EQ(members_->get(member_pk(1))->role, RelayRole::kAdmin);
  EXPECT_EQ(members_->get(member_pk(2))->role, RelayRole::kOwner);
  EXPECT_EQ(members_->list()->size(), 2u);
}

}  // namespace
}  // namespace buzz::engine
