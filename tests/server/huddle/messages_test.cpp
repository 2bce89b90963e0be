// The huddle socket's text messages (server/huddle/messages.h, docs/reference/huddle.md
// §3 and §6): which frames are an auth message, a bad one or nothing the relay
// answers; which controls an admitted peer may send; and the relay's replies,
// keys in the order upstream writes them.
#include "server/huddle/messages.h"

#include <gtest/gtest.h>

#include "engine/signature.h"

namespace buzz::server::huddle {
namespace {

std::string signed_auth_event() {
  return engine::signed_event(engine::generate_keypair(), 22242, 1'700'000'000, {{"challenge", std::string(64, 'a')}}).raw;
}

TEST(HuddleMessages, AnAuthMessageCarriesItsEventParentAndVersion) {
  const std::string event = signed_auth_event();
  AuthMessage plain = parse_auth_message(R"({"type":"auth","event":)" + event + "}");
  ASSERT_EQ(plain.kind, AuthMessage::Kind::kAuth);
  EXPECT_EQ(plain.event.raw, event);
  EXPECT_FALSE(plain.parent_channel_id);
  EXPECT_EQ(plain.protocol_version, 1);  // absent: version 1

  AuthMessage full = parse_auth_message(R"({"type":"auth","event":)" + event +
                                        R"(,"parent_channel_id":"c1","protocol_version":2})");
  ASSERT_EQ(full.kind, AuthMessage::Kind::kAuth);
  EXPECT_EQ(full.parent_channel_id, "c1");
  EXPECT_EQ(full.protocol_version, 2);
  EXPECT_EQ(parse_auth_message(R"({"type":"auth","event":)" + event + R"(,"parent_channel_id":null})").kind,
            AuthMessage::Kind::kAuth);
}

TEST(HuddleMessages, AnAuthMessageThatCannotBeReadIsBadAndAnythingElseIsIgnored) {
  const std::string event = signed_auth_event();
  for (const std::string& bad : {std::string(R"({"type":"auth"})"), std::string(R"({"type":"auth","event":"x"})"),
                                std::string(R"({"type":"auth","event":{"kind":1}})"),
                                R"({"type":"auth","event":)" + event + R"(,"parent_channel_id":7})",
                                R"({"type":"auth","event":)" + event + R"(,"protocol_version":"2"})"}) {
    EXPECT_EQ(parse_auth_message(bad).kind, AuthMessage::Kind::kBad) << bad;
  }
  const std::string too_big = R"({"type":"auth","event":)" + event + R"(,"pad":")" + std::string(kMaxTextBytes, 'x') + "\"}";
  for (const std::string& ignored : {std::string("not json"), std::string("[1]"), std::string(R"({"type":"leave"})"),
                                    std::string(R"({"kind":"auth"})"), too_big}) {
    EXPECT_EQ(parse_auth_message(ignored).kind, AuthMessage::Kind::kIgnored) << ignored.substr(0, 40);
  }
}

TEST(HuddleMessages, ControlsAreLeaveRecordingAndTrackAndNothingElse) {
  EXPECT_EQ(parse_control_message(R"({"type":"leave"})"), Control::kLeave);
  EXPECT_EQ(parse_control_message(R"({"type":"recording","action":"start"})"), Control::kRecordStart);
  EXPECT_EQ(parse_control_message(R"({"type":"recording","action":"stop"})"), Control::kRecordStop);
  EXPECT_EQ(parse_control_message(R"({"type":"track","action":"publish"})"), Control::kTrackPublish);
  EXPECT_EQ(parse_control_message(R"({"type":"track","action":"unpublish"})"), Control::kTrackUnpublish);
  for (const char* ignored : {R"({"type":"recording"})", R"({"type":"recording","action":"publish"})",
                              R"({"type":"track","action":"start"})", R"({"type":"mute"})", R"({"action":"stop"})",
                              "leave", R"(["leave"])"}) {
    EXPECT_EQ(parse_control_message(ignored), Control::kIgnored) << ignored;
  }
  EXPECT_EQ(parse_control_message(R"({"type":"leave","pad":")" + std::string(kMaxTextBytes, 'x') + "\"}"),
            Control::kIgnored);
}

TEST(HuddleMessages, TheRelaysRepliesKeepUpstreamsKeyOrder) {
  EXPECT_EQ(challenge_message("ab"), R"({"challenge":"ab","type":"challenge"})");
  EXPECT_EQ(joined_message({3, "cc"}, {{1, "aa"}, {2, "bb"}}),
            R"({"peer_index":3,"peers":[{"peer_index":1,"pubkey":"aa"},{"peer_index":2,"pubkey":"bb"}],)"
            R"("pubkey":"cc","type":"joined"})");
  EXPECT_EQ(left_message({2, "bb"}), R"({"peer_index":2,"pubkey":"bb","type":"left"})");
  EXPECT_EQ(recording_message(true, "r1", "aa"), R"({"recording":true,"recording_id":"r1","started_by":"aa","type":"recording"})");
  EXPECT_EQ(track_message("aa", false), R"({"pubkey":"aa","published":false,"type":"track"})");
  EXPECT_EQ(unsupported_version_message(3),
            R"({"code":"unsupported_version","current_version":2,)"
            R"("message":"huddle audio protocol v3 not supported; relay max is v2","type":"error"})");
  EXPECT_EQ(error_message("not a member"), R"({"message":"not a member","type":"error"})");
}

}  // namespace
}  // namespace buzz::server::huddle
