// End-to-end tests of NIP-OA owner attestation (docs/reference/protocol.md §6.7, docs/reference/rest-api.md
// §1.5) on a closed relay: an agent whose owner is a member is admitted on
// the owner's signed attestation — in its AUTH event over WebSocket, in an
// X-Auth-Tag header over HTTP — only with BUZZ_ALLOW_NIP_OA_AUTH, and never
// on an attestation that is not the member's, not for this agent, or whose
// conditions do not hold.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {
namespace {

using engine::Keypair;


std::string in_an_hour() { return "created_at<" + std::to_string(unix_now() + 3600); }

class NipOaRelay {
 public:
  explicit NipOaRelay(bool allowed) {
    std::vector<std::string> args = {"--owner", hex(owner)};
    if (allowed) args.insert(args.end(), {"--allow-nip-oa-auth", "true"});
    std::string error;
    relay = RelayProcess::start(RelayOptions{args, {}, ""}, &error);
    EXPECT_NE(relay, nullptr) << error;
  }

  // An AUTH by `agent` carrying these extra tags; its OK.
  OkReply auth(const Keypair& agent, std::vector<engine::Tag> extra) {
    std::string error;
    auto c = NostrClient::connect(*relay, &error);
    EXPECT_NE(c, nullptr) << error;
    if (!c) return {};
    std::vector<engine::Tag> tags = {{"relay", c->relay_url()}, {"challenge", c->challenge()}};
    tags.insert(tags.end(), extra.begin(), extra.end());
    return c->send_auth(make_event(agent, 22242, "", tags));
  }
  // GET path signed by `who` (NIP-98), with these X-Auth-Tag headers.
  HttpReply get(const Keypair& who, const std::string& path, const std::vector<std::string>& auth_tags = {}) {
    const std::string url = "http://127.0.0.1:" + std::to_string(relay->port()) + path;
    std::vector<std::pair<std::string, std::string>> headers = {{"Authorization", nip98_header(who, url, "GET", "")}};
    for (const std::string& t : auth_tags) headers.emplace_back("X-Auth-Tag", t);
    return http_call(relay->port(), "GET", path, headers);
  }

  Keypair owner = engine::generate_keypair();
  std::unique_ptr<RelayProcess> relay;
};

class NipOaTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { relay_ = new NipOaRelay(true); }
  static void TearDownTestSuite() { delete relay_; }
  void SetUp() override { ASSERT_TRUE(relay_->relay); }
  static NipOaRelay* relay_;
};
NipOaRelay* NipOaTest::relay_ = nullptr;

TEST_F(NipOaTest, AnAgentOfAMemberIsAdmittedAndLinkedToItsOwner) {
  Keypair agent = engine::generate_keypair();
  OkReply ok = relay_->auth(agent, {nip_oa_tag(relay_->owner, agent.pubkey, "kind=22242&" + in_an_hour())});
  EXPECT_TRUE(ok.accepted) << ok.reason;
  HttpReply profile = relay_->get(relay_->owner, "/api/users/" + hex(agent) + "/profile");
  EXPECT_EQ(profile.status, 200) << profile.body;
  EXPECT_NE(profile.body.find("\"agent_owner_pubkey\":\"" + hex(relay_->owner) + "\""), std::string::npos) << profile.body;
}

TEST_F(NipOaTest, AttestationsThatDoNotHoldAreRefused) {
  const std::string kRefused = "restricted: not a relay member";
  Keypair agent = engine::generate_keypair(), stranger = engine::generate_keypair();
  EXPECT_EQ(relay_->auth(agent, {}).reason, kRefused);
  EXPECT_EQ(relay_->auth(agent, {nip_oa_tag(stranger, agent.pubkey, "")}).reason, kRefused);  // owner not a member
  EXPECT_EQ(relay_->auth(agent, {nip_oa_tag(relay_->owner, stranger.pubkey, "")}).reason, kRefused);  // another agent
  const std::string expired = "created_at<" + std::to_string(unix_now() - 60);
  EXPECT_EQ(relay_->auth(agent, {nip_oa_tag(relay_->owner, agent.pubkey, expired)}).reason, kRefused);
  EXPECT_EQ(relay_->auth(agent, {nip_oa_tag(relay_->owner, agent.pubkey, "kind=1")}).reason, kRefused);
  engine::Tag good = nip_oa_tag(relay_->owner, agent.pubkey, "");
  EXPECT_EQ(relay_->auth(agent, {good, good}).reason, kRefused);  // two count as none
}

TEST_F(NipOaTest, HttpCallsOfAnAgentCarryTheAttestationHeader) {
  Keypair agent = engine::generate_keypair();
  const std::string tag = nip_oa_header(nip_oa_tag(relay_->owner, agent.pubkey, "kind=27235&" + in_an_hour()));
  EXPECT_EQ(relay_->get(agent, "/api/channels").status, 403);
  HttpReply vouched = relay_->get(agent, "/api/channels", {tag});
  EXPECT_EQ(vouched.status, 200) << vouched.body;
  HttpReply twice = relay_->get(agent, "/api/channels", {tag, tag});
  EXPECT_EQ(twice.status, 400);
  EXPECT_EQ(twice.body, R"({"error":"invalid_auth_tag","message":"multiple X-Auth-Tag headers not allowed"})");
  HttpReply garbled = relay_->get(agent, "/api/channels", {"not json"});
  EXPECT_EQ(garbled.status, 403);
  EXPECT_EQ(garbled.body,
            R"({"error":"relay_membership_required","message":"You must be a relay member to access this relay"})");
  const std::string for_websocket_only = nip_oa_header(nip_oa_tag(relay_->owner, agent.pubkey, "kind=22242"));
  EXPECT_EQ(relay_->get(agent, "/api/channels", {for_websocket_only}).status, 403);
}

// docs/reference/rest-api.md §1.3's replay cache is bounded, so only requests past the
// membership gate may take a place in it: a non-member's request is refused
// for what it is each time, a member's is refused as a replay the second time.
TEST_F(NipOaTest, ReplayCacheTakesOnlyRequestsPastTheMembershipGate) {
  const std::string path = "/api/channels";
  const std::string url = "http://127.0.0.1:" + std::to_string(relay_->relay->port()) + path;
  auto twice = [&](const Keypair& who) {
    const std::string header = nip98_header(who, url, "GET", "");
    std::vector<int> statuses;
    for (int i = 0; i < 2; ++i) statuses.push_back(http_call(relay_->relay->port(), "GET", path, {{"Authorization", header}}).status);
    return statuses;
  };
  EXPECT_EQ(twice(engine::generate_keypair()), (std::vector<int>{403, 403}));
  EXPECT_EQ(twice(relay_->owner), (std::vector<int>{200, 401}));
}

TEST(NipOaDisabledTest, WithoutTheSettingAttestationsAdmitNobody) {
  NipOaRelay r(false);
  ASSERT_TRUE(r.relay);
  Keypair agent = engine::generate_keypair();
  engine::Tag tag = nip_oa_tag(r.owner, agent.pubkey, "");
  EXPECT_EQ(r.auth(agent, {tag}).reason, "restricted: not a relay member");
  EXPECT_EQ(r.get(agent, "/api/channels", {nip_oa_header(tag)}).status, 403);
}

}  // namespace
}  // namespace buzz::test
