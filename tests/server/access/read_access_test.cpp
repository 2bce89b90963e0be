// The read rules every path shares (server/access/read_access.h), as a table:
// an event in an open, a private, a deleted channel or none, of an ordinary or
// a p-gated kind, read by a member, a removed member, an outsider, one a p tag
// names, and through a token limited to other channels. And channel_scope: the
// one channel a set of filters names.
#include <gtest/gtest.h>

#include "engine/filter.h"
#include "engine/kinds.h"
#include "engine/signature.h"
#include "server/access/read_access.h"

namespace buzz::server {
namespace {

using engine::Event;
using engine::Pubkey;

constexpr const char* kOpen = "0a000000-0000-4000-8000-000000000001";
constexpr const char* kPrivate = "0a000000-0000-4000-8000-000000000002";
constexpr const char* kDeleted = "0a000000-0000-4000-8000-000000000003";

Pubkey reader_pk(uint8_t n) {
  Pubkey p{};
  p[0] = n;
  return p;
}
const Pubkey kMember = reader_pk(1), kRemoved = reader_pk(2), kOutsider = reader_pk(3), kNamed = reader_pk(4);

class ReadAccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    channel(kOpen, engine::Visibility::kOpen, false);
    channel(kPrivate, engine::Visibility::kPrivate, false);
    channel(kDeleted, engine::Visibility::kOpen, true);
    for (const char* id : {kOpen, kPrivate, kDeleted}) {
      member(id, kMember, 0);
      member(id, kRemoved, 100);
    }
  }
  void channel(const char* id, engine::Visibility v, bool deleted) {
    engine::Channel c;
    c.id = id;
    c.visibility = v;
    c.created_at = 1;
    c.deleted_at = deleted ? 200 : 0;
    team_.put_channel(c);
  }
  void member(const char* id, const Pubkey& who, uint64_t removed_at) {
    engine::ChannelMember m;
    m.pubkey = who;
    m.joined_at = 1;
    m.removed_at = removed_at;
    team_.put_member(id, m);
  }
  // Whether `reader` may read an event of `kind` stored in `channel` (empty:
  // global) whose p tag names kNamed.
  bool readable(uint16_t kind, std::string_view channel, const Pubkey& reader, const Grant& grant = {}) {
    Event e;
    e.kind = kind;
    e.pubkey = reader_pk(9);
    e.tags = {{"p", engine::to_hex(kNamed)}};
    engine::EventFields f;
    f.assign(e, channel);
    return readable_by(f, team_, grant, reader, engine::to_hex(reader));
  }

  engine::TeamState team_;
};

TEST_F(ReadAccessTest, ChannelEventsFollowTheChannel) {
  struct Row {
    const char* channel;
    Pubkey reader;
    bool readable;
  } rows[] = {
      {kOpen, kMember, true},      {kOpen, kRemoved, true},      {kOpen, kOutsider, true},
      {kPrivate, kMember, true},   {kPrivate, kRemoved, false},  {kPrivate, kOutsider, false},
      {kPrivate, kNamed, false},   // a p tag opens no private channel
      {kDeleted, kMember, false},  {kDeleted, kOutsider, false},
  };
  for (const Row& r : rows) {
    for (uint16_t kind : {uint16_t(9), uint16_t(1059)}) {  // gated or not, a channel event follows its channel
      EXPECT_EQ(readable(kind, r.channel, r.reader), r.readable)
          << "kind " << kind << " in " << r.channel << " by reader " << int(r.reader[0]);
    }
  }
}

TEST_F(ReadAccessTest, GlobalEventsOfAGatedKindGoOnlyToWhomTheyName) {
  ASSERT_TRUE(engine::is_p_gated(1059));
  ASSERT_FALSE(engine::is_p_gated(1));
  EXPECT_TRUE(readable(1, "", kOutsider));
  EXPECT_TRUE(readable(1059, "", kNamed));
  EXPECT_FALSE(readable(1059, "", kOutsider));
  EXPECT_FALSE(readable(1059, "", kMember));
}

TEST_F(ReadAccessTest, ATokensChannelListNarrowsWhatItsHolderMayRead) {
  Grant limited;
  limited.channels = std::vector<std::string>{kOpen};
  EXPECT_TRUE(readable(9, kOpen, kMember, limited));
  EXPECT_FALSE(readable(9, kPrivate, kMember, limited));  // a member, but not through this token
  Grant none;
  none.channels = std::vector<std::string>{};
  EXPECT_FALSE(readable(9, kOpen, kMember, none));
}

TEST_F(ReadAccessTest, ChannelScopeIsTheOneChannelEveryFilterNames) {
  auto scope = [](std::initializer_list<const char*> filters) {
    std::vector<engine::Filter> parsed;
    for (const char* json : filters) {
      auto f = engine::parse_filter_json(json);
      EXPECT_TRUE(f.ok()) << json;
      if (f.ok()) parsed.push_back(std::move(*f));
    }
    return channel_scope(parsed);
  };
  const std::string open = kOpen, priv = kPrivate;
  EXPECT_EQ(scope({("{\"#h\":[\"" + open + "\"]}").c_str()}), open);
  EXPECT_EQ(scope({("{\"#h\":[\"" + open + "\"]}").c_str(), ("{\"kinds\":[9],\"#h\":[\"" + open + "\"]}").c_str()}), open);
  EXPECT_EQ(scope({("{\"#h\":[\"" + open + "\",\"not-a-uuid\"]}").c_str()}), open);  // only UUIDs name channels
  EXPECT_EQ(scope({("{\"#h\":[\"" + open + "\",\"" + priv + "\"]}").c_str()}), "");
  EXPECT_EQ(scope({("{\"#h\":[\"" + open + "\"]}").c_str(), "{\"kinds\":[1]}"}), "");
  EXPECT_EQ(scope({"{\"#h\":[\"general\"]}"}), "");
}

}  // namespace
}  // namespace buzz::server
