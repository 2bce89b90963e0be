// Unit tests for engine/channel and engine/team_state: record encodings round
// trip and refuse garbage, the UUID forms docs/reference/channels.md §1 names, and the team
// state written through the store's atomic batch comes back after a reopen
// with the same access answers (open vs private, active vs removed members,
// deleted channels, DMs by participant hash), and who holds a role where.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "engine/rocks_event_store.h"
#include "engine/team_state.h"
#include "tests/temp_dir.h"

namespace buzz::engine {
namespace {

Pubkey team_pk(uint8_t n) {
  Pubkey p{};
  p[0] = n;
  return p;
}

TEST(ChannelRecordTest, ChannelRoundTripsEveryField) {
  Channel c;
  c.id = "11111111-2222-4333-8444-555555555555";
  c.name = "general";
  c.description = "about";
  c.topic = "topic";
  c.purpose = "purpose";
  c.canvas = "# doc";
  c.topic_set_by = team_pk(1);
  c.purpose_set_by = team_pk(2);
  c.topic_set_at = 10;
  c.purpose_set_at = 11;
  c.type = ChannelType::kForum;
  c.visibility = Visibility::kPrivate;
  c.created_by = team_pk(3);
  c.created_at = 12;
  c.archived_at = 13;
  c.deleted_at = 14;
  c.ttl_seconds = 60;
  c.ttl_deadline = 99;
  c.participant_hash = "abc";
  Channel back;
  ASSERT_TRUE(decode_channel(encode_channel(c), &back));
  EXPECT_EQ(encode_channel(back), encode_channel(c));
  EXPECT_EQ(back.name, "general");
  EXPECT_EQ(back.visibility, Visibility::kPrivate);
  EXPECT_EQ(back.ttl_seconds, 60u);
}

TEST(ChannelRecordTest, MemberRoundTripsAndGarbageIsRefused) {
  ChannelMember m;
  m.pubkey = team_pk(7);
  m.role = ChannelRole::kAdmin;
  m.joined_at = 5;
  m.join_seq = 3;
  m.invited_by = team_pk(8);
  m.removed_at = 9;
  m.removed_by = team_pk(9);
  m.hidden_at = 4;
  ChannelMember back;
  ASSERT_TRUE(decode_member(encode_member(m), &back));
  EXPECT_EQ(encode_member(back), encode_member(m));
  std::string truncated = encode_member(m);
  truncated.pop_back();
  EXPECT_FALSE(decode_member(truncated, &back));
  EXPECT_FALSE(decode_member(encode_member(m) + "x", &back));
  Channel c;
  EXPECT_FALSE(decode_channel("", &c));
  EXPECT_FALSE(decode_channel(std::string(1, '\x02'), &c));
}

TEST(ChannelRecordTest, NamesParseBothWays) {
  for (auto r : {ChannelRole::kBot, ChannelRole::kGuest, ChannelRole::kMember, ChannelRole::kAdmin, ChannelRole::kOwner}) {
    EXPECT_EQ(parse_channel_role(channel_role_name(r)), r);
  }
  EXPECT_FALSE(parse_channel_role("root"));
  EXPECT_EQ(parse_visibility("private"), Visibility::kPrivate);
  EXPECT_FALSE(parse_visibility("Private"));
  EXPECT_EQ(parse_channel_type("workflow"), ChannelType::kWorkflow);
  EXPECT_TRUE(is_elevated(ChannelRole::kOwner));
  EXPECT_FALSE(is_elevated(ChannelRole::kMember));
}

TEST(ChannelRecordTest, UuidForms) {
  EXPECT_TRUE(is_canonical_uuid("11111111-2222-4333-8444-555555555555"));
  EXPECT_FALSE(is_canonical_uuid("11111111-2222-4333-8444-55555555555A"));
  EXPECT_FALSE(is_canonical_uuid("00000000-0000-0000-0000-000000000000"));  // the nil UUID is never a channel
  EXPECT_FALSE(is_canonical_uuid("111111112222433384445555555555555"));
  EXPECT_TRUE(parses_as_uuid("11111111-2222-4333-8444-55555555555A"));
  EXPECT_TRUE(parses_as_uuid("11111111222243338444555555555555"));
  EXPECT_TRUE(parses_as_uuid("{11111111-2222-4333-8444-555555555555}"));
  EXPECT_TRUE(parses_as_uuid("urn:uuid:11111111-2222-4333-8444-555555555555"));
  EXPECT_FALSE(parses_as_uuid("general"));
  EXPECT_FALSE(parses_as_uuid("11111111-2222-4333-8444-5555555555"));
  std::string a = random_uuid(), b = random_uuid();
  EXPECT_TRUE(is_canonical_uuid(a));
  EXPECT_NE(a, b);
  EXPECT_EQ(a[14], '4');
  EXPECT_EQ(rfc3339(0), "1970-01-01T00:00:00+00:00");
}

class TeamStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("buzz_team_test");
    ASSERT_FALSE(dir_.empty());
    open();
  }
  void TearDown() override {
    store_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  void open() {
    store_.reset();
    db_.reset();
    DatabaseOptions options;
    options.block_cache_bytes = 1 << 20;
    auto db = RocksDatabase::open(dir_ + "/db", options);
    ASSERT_TRUE(db.ok()) << db.error();
    db_ = std::move(db.value());
    store_ = std::make_unique<RocksEventStore>(*db_);
  }
  void commit(std::vector<StateWrite> writes) { ASSERT_TRUE(store_->write({}, writes).ok()); }

  std::string dir_;
  std::unique_ptr<RocksDatabase> db_;
  std::unique_ptr<RocksEventStore> store_;
};

TEST_F(TeamStateTest, AccessAnswersSurviveReopen) {
  const std::string open_id = "aaaaaaaa-0000-4000-8000-000000000001";
  const std::string private_id = "aaaaaaaa-0000-4000-8000-000000000002";
  TeamState team;
  ASSERT_TRUE(team.load(*store_).ok());
  Channel open_ch;
  open_ch.id = open_id;
  open_ch.name = "open";
  Channel private_ch = open_ch;
  private_ch.id = private_id;
  private_ch.visibility = Visibility::kPrivate;
  ChannelMember owner;
  owner.pubkey = team_pk(1);
  owner.role = ChannelRole::kOwner;
  owner.join_seq = team.next_join_seq();
  ChannelMember gone;
  gone.pubkey = team_pk(2);
  gone.join_seq = team.next_join_seq();
  gone.removed_at = 100;
  commit({team.put_channel(open_ch), team.put_channel(private_ch), team.put_member(private_id, owner),
          team.put_member(private_id, gone)});

  TeamState reloaded;
  open();
  ASSERT_TRUE(reloaded.load(*store_).ok());
  for (const TeamState* t : {&team, &reloaded}) {
    EXPECT_TRUE(t->can_read(open_id, team_pk(9)));          // open: every relay user
    EXPECT_TRUE(t->can_read(private_id, team_pk(1)));       // private: active members
    EXPECT_FALSE(t->can_read(private_id, team_pk(2)));      // removed
    EXPECT_FALSE(t->can_read(private_id, team_pk(9)));      // never a member
    EXPECT_FALSE(t->can_read("aaaaaaaa-0000-4000-8000-00000000000f", team_pk(1)));  // unknown
    EXPECT_EQ(t->access(private_id, team_pk(1)).role, ChannelRole::kOwner);
    EXPECT_TRUE(t->is_private(private_id));
    EXPECT_FALSE(t->is_private(open_id));
    EXPECT_EQ(t->active_owners(private_id), 1u);
    EXPECT_EQ(t->readable_channels(team_pk(2)), std::vector<std::string>{open_id});
  }
  // Join order continues after a reopen instead of starting over.
  EXPECT_GT(reloaded.next_join_seq(), gone.join_seq);
}

TEST_F(TeamStateTest, DeletedChannelsAreUnreadableAndDmsAreFoundByTheirParticipants) {
  TeamState team;
  ASSERT_TRUE(team.load(*store_).ok());
  Channel dm;
  dm.id = "bbbbbbbb-0000-4000-8000-000000000001";
  dm.type = ChannelType::kDm;
  dm.visibility = Visibility::kPrivate;
  dm.participant_hash = "hash-of-1-and-2";
  ChannelMember m;
  m.pubkey = team_pk(1);
  commit({team.put_channel(dm), team.put_member(dm.id, m)});
  ASSERT_NE(team.dm_by_hash("hash-of-1-and-2"), nullptr);
  EXPECT_EQ(team.co_members(team_pk(1)).count(team_pk(1)), 1u);

  dm.deleted_at = 5;
  commit({team.put_channel(dm)});
  EXPECT_EQ(team.dm_by_hash("hash-of-1-and-2"), nullptr);
  EXPECT_FALSE(team.can_read(dm.id, team_pk(1)));
  EXPECT_TRUE(team.readable_channels(team_pk(1)).empty());
  TeamState reloaded;
  ASSERT_TRUE(reloaded.load(*store_).ok());
  EXPECT_EQ(reloaded.dm_by_hash("hash-of-1-and-2"), nullptr);
  EXPECT_FALSE(reloaded.can_read(dm.id, team_pk(1)));
}

TEST_F(TeamStateTest, RoleHoldersAreActiveMembersOfLiveChannels) {
  TeamState team;
  ASSERT_TRUE(team.load(*store_).ok());
  Channel live, gone;
  live.id = "cccccccc-0000-4000-8000-000000000001";
  gone.id = "cccccccc-0000-4000-8000-000000000002";
  gone.deleted_at = 7;
  ChannelMember bot, removed_bot, member;
  bot.pubkey = team_pk(1);
  bot.role = ChannelRole::kBot;
  removed_bot = bot;
  removed_bot.pubkey = team_pk(2);
  removed_bot.removed_at = 9;
  member.pubkey = team_pk(3);
  commit({team.put_channel(live), team.put_channel(gone), team.put_member(live.id, bot),
          team.put_member(live.id, removed_bot), team.put_member(live.id, member), team.put_member(gone.id, bot)});
  using Holders = std::vector<std::pair<std::string, Pubkey>>;
  EXPECT_EQ(team.role_holders(ChannelRole::kBot), (Holders{{live.id, team_pk(1)}}));
  EXPECT_EQ(team.role_holders(ChannelRole::kMember), (Holders{{live.id, team_pk(3)}}));
  EXPECT_TRUE(team.role_holders(ChannelRole::kOwner).empty());
}

}  // namespace
}  // namespace buzz::engine
