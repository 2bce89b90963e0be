// TeamModel::admit over the channel-level permission matrix of
// docs/reference/channels.md §3.3: every operation by every role, on an open
// and on a private channel, as a table. Each row runs on a fresh channel whose
// owner alone owns it and which holds one admin, one member, one guest, one bot,
// and a bystander (a member whom the rows remove and whose message they delete); admissions are committed as the store writer
// commits them (the event, its state writes and deletes in one batch).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "server/team/team_model.h"
#include "tests/engine/event_store_fixture.h"

namespace buzz::server {
namespace {

using engine::Event;
using engine::Keypair;

enum class Actor : uint8_t { kOwner, kAdmin, kMember, kGuest, kBot, kOutsider };
constexpr std::array kActors = {Actor::kOwner, Actor::kAdmin, Actor::kMember, Actor::kGuest, Actor::kBot, Actor::kOutsider};
const char* name(Actor a) {
  static const char* const kNames[] = {"owner", "admin", "member", "guest", "bot", "non-member"};
  return kNames[size_t(a)];
}

enum class Op : uint8_t {
  kPost,           // kind 9
  kAddMember,      // 9000 with role member, of someone new
  kAddAdmin,       // 9000 with role admin, of someone new
  kRemoveOther,    // 9001 of the bystander
  kLeave,          // 9022
  kRename,         // 9002 name
  kSetTopic,       // 9002 topic
  kModerate,       // 9005 of the bystander's message
  kDeleteChannel,  // 9008
  kJoin,           // 9021
};

struct Row {
  Op op;
  const char* what;
  bool private_channel;
  // What each actor gets, in kActors' order: "" for accepted, else a piece of the refusal.
  std::array<const char*, 6> expect;
};

constexpr const char* kOk = "";
// A private channel refuses a non-member before any rule of the kind.
constexpr const char* kGate = "restricted: not a channel member";
// The matrix, both visibilities. guest and bot act as member (§3.2).
const Row kRows[] = {
    {Op::kPost, "post", false, {kOk, kOk, kOk, kOk, kOk, kOk}},
    {Op::kPost, "post", true, {kOk, kOk, kOk, kOk, kOk, kGate}},
    {Op::kAddMember, "add a member", false, {kOk, kOk, kOk, kOk, kOk, kOk}},
    {Op::kAddMember, "add a member", true, {kOk, kOk, kOk, kOk, kOk, kGate}},
    {Op::kAddAdmin,
     "add an admin",
     false,
     {kOk, kOk, "elevated roles", "elevated roles", "elevated roles", "elevated roles"}},
    {Op::kAddAdmin,
     "add an admin",
     true,
     {kOk, kOk, "elevated roles", "elevated roles", "elevated roles", kGate}},
    {Op::kRemoveOther,
     "remove another",
     false,
     {kOk, kOk, "actor not authorized", "actor not authorized", "actor not authorized", "actor not authorized"}},
    {Op::kRemoveOther,
     "remove another",
     true,
     {kOk, kOk, "actor not authorized", "actor not authorized", "actor not authorized", kGate}},
    {Op::kLeave, "leave", false, {"last owner", kOk, kOk, kOk, kOk, "not an active member"}},
    {Op::kLeave, "leave", true, {"last owner", kOk, kOk, kOk, kOk, kGate}},
    {Op::kRename, "rename", false, {kOk, kOk, "not authorized for name", "not authorized for name", "not authorized for name", "not authorized for name"}},
    {Op::kRename, "rename", true, {kOk, kOk, "not authorized for name", "not authorized for name", "not authorized for name", kGate}},
    {Op::kSetTopic, "set the topic", false, {kOk, kOk, kOk, kOk, kOk, "not a member"}},
    {Op::kSetTopic, "set the topic", true, {kOk, kOk, kOk, kOk, kOk, kGate}},
    {Op::kModerate,
     "delete another's message",
     false,
     {kOk, kOk, "event author or channel owner/admin", "event author or channel owner/admin",
      "event author or channel owner/admin", "event author or channel owner/admin"}},
    {Op::kModerate,
     "delete another's message",
     true,
     {kOk, kOk, "event author or channel owner/admin", "event author or channel owner/admin",
      "event author or channel owner/admin", kGate}},
    {Op::kDeleteChannel,
     "delete the channel",
     false,
     {kOk, "only owner", "only owner", "only owner", "only owner", "only owner"}},
    {Op::kDeleteChannel,
     "delete the channel",
     true,
     {kOk, "only owner", "only owner", "only owner", "only owner", kGate}},
    {Op::kJoin, "join", false, {kOk, kOk, kOk, kOk, kOk, kOk}},
    {Op::kJoin, "join", true, {"channel is private", "channel is private", "channel is private", "channel is private",
                               "channel is private", "channel is private"}},
};

constexpr uint64_t kAdmitNow = 1'800'000'000;

class TeamModelAdmitTest : public engine::EventStoreFixture {
 protected:
  void SetUp() override {
    EventStoreFixture::SetUp();
    profiles_ = std::make_unique<ProfileDirectory>(*store_, "localhost");
    relay_ = engine::generate_keypair();
    team_state_ = std::make_unique<engine::TeamState>();
    model_ = std::make_unique<TeamModel>(*team_state_, *store_, *profiles_, relay_);
    for (size_t i = 0; i < kActors.size(); ++i) keys_[i] = engine::key(uint8_t(10 + i));
    newcomer_ = engine::key(99);
    bystander_ = engine::key(98);
  }

  const Keypair& of(Actor a) const { return keys_[size_t(a)]; }

  // Admits and, when accepted, commits as the store writer does.
  Admission commit(const Event& e) {
    Admission a = model_->admit(e, kAdmitNow);
    if (a.ok) {
      std::vector<engine::WriteRequest> requests = {{&e, a.channel, a.deletes}};
      for (const Emitted& m : a.emitted) requests.push_back({&m.event, m.channel});
      auto written = store_->write(requests, a.state);
      EXPECT_TRUE(written.ok()) << written.error();
    }
    model_->end_batch(a.ok);
    return a;
  }
  Event sign(Actor by, uint16_t kind, std::vector<engine::Tag> tags) {
    tags.insert(tags.begin(), {"h", channel_});
    return engine::make_event(of(by), kind, kAdmitNow, std::move(tags));
  }

  // The channel every row starts from, new each time.
  void make_channel(bool private_channel) {
    char id[37];
    std::snprintf(id, sizeof id, "4f1c2d3e-1111-4222-8333-%012d", ++channels_made_);
    channel_ = id;
    ASSERT_TRUE(commit(engine::make_event(of(Actor::kOwner), 9007, kAdmitNow,
                                          {{"h", channel_}, {"name", "room"}, {"visibility", private_channel ? "private" : "open"}}))
                    .ok);
    const std::pair<Actor, const char*> roles[] = {
        {Actor::kAdmin, "admin"}, {Actor::kMember, "member"}, {Actor::kGuest, "guest"}, {Actor::kBot, "bot"}};
    for (const auto& [who, role] : roles) add(of(who), role);
    add(bystander_, "member");
    message_ = engine::make_event(bystander_, 9, kAdmitNow, {{"h", channel_}});
    ASSERT_TRUE(commit(message_).ok);
  }

  void add(const Keypair& who, const char* role) {
    Admission a = commit(sign(Actor::kOwner, 9000, {{"p", engine::to_hex(who.pubkey)}, {"role", role}}));
    ASSERT_TRUE(a.ok) << role << ": " << a.reason;
  }

  Event operation(Op op, Actor by) {
    switch (op) {
      case Op::kPost: return sign(by, 9, {});
      case Op::kAddMember: return sign(by, 9000, {{"p", engine::to_hex(newcomer_.pubkey)}, {"role", "member"}});
      case Op::kAddAdmin: return sign(by, 9000, {{"p", engine::to_hex(newcomer_.pubkey)}, {"role", "admin"}});
      case Op::kRemoveOther: return sign(by, 9001, {{"p", engine::to_hex(bystander_.pubkey)}});
      case Op::kLeave: return sign(by, 9022, {});
      case Op::kRename: return sign(by, 9002, {{"name", "renamed"}});
      case Op::kSetTopic: return sign(by, 9002, {{"topic", "a topic"}});
      case Op::kModerate: return sign(by, 9005, {{"e", message_.id_hex()}});
      case Op::kDeleteChannel: return sign(by, 9008, {});
      case Op::kJoin: return sign(by, 9021, {});
    }
    return {};
  }

  std::unique_ptr<ProfileDirectory> profiles_;
  Keypair relay_;
  std::unique_ptr<engine::TeamState> team_state_;
  std::unique_ptr<TeamModel> model_;
  std::array<Keypair, kActors.size()> keys_;
  Keypair newcomer_, bystander_;
  int channels_made_ = 0;
  std::string channel_;
  Event message_;
};

TEST_F(TeamModelAdmitTest, ThePermissionMatrix) {
  for (const Row& row : kRows) {
    for (Actor actor : kActors) {
      make_channel(row.private_channel);
      const std::string expected = row.expect[size_t(actor)];
      const Admission a = commit(operation(row.op, actor));
      SCOPED_TRACE(std::string(name(actor)) + " may " + (expected.empty() ? "" : "not ") + row.what + " in a " +
                   (row.private_channel ? "private" : "open") + " channel");
      if (expected.empty()) {
        EXPECT_TRUE(a.ok) << a.reason;
      } else {
        EXPECT_FALSE(a.ok);
        EXPECT_NE(a.reason.find(expected), std::string::npos) << "refused with: " << a.reason;
      }
    }
  }
}

// What an accepted operation changed, read back from the team state.
TEST_F(TeamModelAdmitTest, AcceptedOperationsChangeTheTeamState) {
  make_channel(true);
  const engine::TeamState& team = *team_state_;
  EXPECT_TRUE(team.is_member(channel_, of(Actor::kGuest).pubkey));
  EXPECT_FALSE(team.can_read(channel_, of(Actor::kOutsider).pubkey));

  ASSERT_TRUE(commit(operation(Op::kAddMember, Actor::kMember)).ok);
  EXPECT_TRUE(team.can_read(channel_, newcomer_.pubkey));
  Admission removed = commit(operation(Op::kRemoveOther, Actor::kAdmin));
  ASSERT_TRUE(removed.ok) << removed.reason;
  EXPECT_FALSE(team.can_read(channel_, bystander_.pubkey));
  ASSERT_EQ(removed.revoked.size(), 1u);  // the removed member's live subscriptions end
  EXPECT_EQ(removed.revoked[0].pubkey, bystander_.pubkey);
  // A removed member is a non-member: it cannot post in the private channel.
  EXPECT_FALSE(commit(engine::make_event(bystander_, 9, kAdmitNow, {{"h", channel_}})).ok);

  ASSERT_TRUE(commit(operation(Op::kDeleteChannel, Actor::kOwner)).ok);
  EXPECT_FALSE(team.find_channel(channel_));
  const Admission after = commit(operation(Op::kPost, Actor::kOwner));
  EXPECT_FALSE(after.ok);
  EXPECT_EQ(after.reason, kGate);  // a deleted channel answers as one never made
}

}  // namespace
}  // namespace buzz::server
