// Revocation reaches live sessions (docs/access.md, "Rights are checked when
// acting"): revoking an API token closes at once every WebSocket session that
// authenticated with it, and removing a relay member closes the sessions of
// the agents she vouched for (NIP-OA), whose next EVENT is refused. Each test
// is the denied case against the real binary; the sessions that keep their
// rights are checked to stay.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/signature.h"
#include "tests/e2e/api_fixture.h"

namespace buzz::test {
namespace {

using engine::Keypair;

class TokenSessionTest : public ApiFixture<TokenSessionTest> {
 protected:
  // A token minted over NIP-98: {token, id}.
  static std::pair<std::string, std::string> mint(const Keypair& key, const std::string& name) {
    HttpReply r = signed_call(key, "POST", "/api/tokens",
                              R"({"name":")" + name + R"(","scopes":["messages:read","messages:write"]})");
    EXPECT_EQ(r.status, 201) << r.body;
    simdjson::dom::parser parser;
    std::string_view token, id;
    auto doc = parser.parse(r.body);
    if (doc["token"].get(token) || doc["id"].get(id)) return {};
    return {std::string(token), std::string(id)};
  }
  static HttpReply bearer(const std::string& token, const std::string& method, const std::string& path) {
    return http_call(relay_->port(), method, path, {{"Authorization", "Bearer " + token}});
  }
  // A session authenticated with `token`, with a live subscription to key's notes.
  static std::unique_ptr<NostrClient> session(const Keypair& key, const std::string& token) {
    std::string error;
    auto c = NostrClient::connect(*relay_, &error);
    EXPECT_NE(c, nullptr) << error;
    if (!c) return c;
    OkReply ok = c->send_auth(client::auth_event(key, c->relay_url(), c->challenge(), token));
    EXPECT_TRUE(ok.accepted) << ok.reason;
    EXPECT_TRUE(c->req("live", R"({"kinds":[1],"authors":[")" + hex(key) + R"("]})").eose);
    return c;
  }
};

TEST_F(TokenSessionTest, RevokingATokenEndsItsSessionsAtOnce) {
  Keypair user = engine::generate_keypair();
  auto [token, id] = mint(user, "revoked");
  auto [other, other_id] = mint(user, "kept");
  ASSERT_FALSE(token.empty() || other.empty());
  auto with_token = session(user, token), with_other = session(user, other);
  auto by_key = client(user);
  ASSERT_TRUE(with_token && with_other && by_key);

  EXPECT_EQ(bearer(other, "DELETE", "/api/tokens/" + id).status, 204);
  EXPECT_EQ(with_token->close_code_within(), 1008);
  // The revoked token's socket neither writes nor hears; the others go on.
  const engine::Event note = make_event(user, 1, "after the revocation");
  EXPECT_TRUE(by_key->publish(note).accepted);
  EXPECT_TRUE(with_other->wait_for([&](const RelayMessage& m) { return m.type == "EVENT" && m.event.id == note.id; }));
  EXPECT_FALSE(with_token->publish(make_event(user, 1, "from a revoked session"), 1000).accepted);

  // DELETE /api/tokens: every token of the caller, and so every session of one.
  EXPECT_EQ(bearer(other, "DELETE", "/api/tokens").status, 200);
  EXPECT_EQ(with_other->close_code_within(), 1008);
  EXPECT_TRUE(by_key->publish(make_event(user, 1, "a session without a token stays")).accepted);
}

// A closed relay that admits agents on their owner's attestation.
class AgentSessionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    relay_ = RelayProcess::start(
        RelayOptions{{"--owner", hex(owner_), "--allow-nip-oa-auth", "true"}, {}, ""}, &error);
    ASSERT_NE(relay_, nullptr) << error;
  }
  static void TearDownTestSuite() { relay_.reset(); }

  // An agent's session, let in on `member`'s attestation; its OK.
  static std::unique_ptr<NostrClient> agent_session(const Keypair& agent, const Keypair& member, OkReply* ok) {
    std::string error;
    auto c = NostrClient::connect(*relay_, &error);
    EXPECT_NE(c, nullptr) << error;
    if (!c) return c;
    const std::string conditions = "kind=22242&created_at<" + std::to_string(unix_now() + 3600);
    *ok = c->send_auth(make_event(agent, 22242, "",
                                  {{"relay", c->relay_url()}, {"challenge", c->challenge()},
                                   nip_oa_tag(member, agent.pubkey, conditions)}));
    return c;
  }

  static inline Keypair owner_ = engine::generate_keypair();
  static inline std::unique_ptr<RelayProcess> relay_;
};

TEST_F(AgentSessionTest, RemovingAMemberEndsHerAgentsSessions) {
  Keypair member = engine::generate_keypair(), agent = engine::generate_keypair();
  std::string error;
  auto boss = NostrClient::connect_authed(*relay_, owner_, &error);
  ASSERT_NE(boss, nullptr) << error;
  ASSERT_TRUE(boss->publish(make_event(owner_, 9030, "", {{"p", hex(member)}})).accepted);
  OkReply ok;
  auto a = agent_session(agent, member, &ok);
  ASSERT_TRUE(a && ok.accepted) << ok.reason;
  EXPECT_TRUE(a->publish(make_event(agent, 1, "while my owner is a member")).accepted);

  ASSERT_TRUE(boss->publish(make_event(owner_, 9031, "", {{"p", hex(member)}})).accepted);
  EXPECT_FALSE(a->publish(make_event(agent, 1, "after my owner left"), 1000).accepted);
  EXPECT_EQ(a->close_code_within(), 1008);
  auto again = agent_session(agent, member, &ok);
  EXPECT_EQ(ok.reason, "restricted: not a relay member");
  // The relay's own sessions are untouched.
  EXPECT_TRUE(boss->publish(make_event(owner_, 1, "still here")).accepted);
}

}  // namespace
}  // namespace buzz::test
