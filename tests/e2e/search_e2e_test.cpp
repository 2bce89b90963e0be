// End-to-end tests of full-text search against the real binary: GET
// /api/search and NIP-50 `search` in REQ find a message within a second of
// its OK, never show a private channel's message to a non-member (not even in
// `found`), respect a channel-scoped token, and forget a deleted message.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "engine/signature.h"
#include "tests/e2e/api_fixture.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/e2e/scratch_dir.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

class SearchE2eTest : public ApiFixture<SearchE2eTest> {
 protected:
  // Polls the search until `want` is in the body or a second and a half passed.
  static HttpReply search_until(const Keypair& key, const std::string& path, const std::string& want) {
    HttpReply r;
    for (int i = 0; i < 15; ++i) {
      r = get(key, path);
      if (r.body.find(want) != std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return r;
  }
};

TEST_F(SearchE2eTest, FindsMessagesWithinASecondAndNeverAPrivateOne) {
  Keypair owner = engine::generate_keypair(), outsider = engine::generate_keypair();
  auto c = client(owner);
  const std::string open = "d1000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  const std::string secret = "d2000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", open}, {"name", "lobby"}})).accepted);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", secret}, {"name", "vault"}, {"visibility", "private"}})).accepted);
  Event visible = make_event(owner, 9, "the zebrafish migration plan", {{"h", open}});
  Event hidden = make_event(owner, 9, "the zebrafish acquisition is secret", {{"h", secret}});
  ASSERT_TRUE(c->publish(visible).accepted);
  ASSERT_TRUE(c->publish(hidden).accepted);

  HttpReply mine = search_until(owner, "/api/search?q=zebrafish", hidden.id_hex());
  ASSERT_EQ(mine.status, 200) << mine.body;
  EXPECT_NE(mine.body.find(visible.id_hex()), std::string::npos);
  EXPECT_NE(mine.body.find(hidden.id_hex()), std::string::npos);
  EXPECT_NE(mine.body.find(R"("found":2)"), std::string::npos) << mine.body;

  HttpReply theirs = get(outsider, "/api/search?q=zebrafish");
  EXPECT_NE(theirs.body.find(visible.id_hex()), std::string::npos) << theirs.body;
  EXPECT_EQ(theirs.body.find(hidden.id_hex()), std::string::npos) << "a private message reached a non-member";
  EXPECT_EQ(theirs.body.find("acquisition"), std::string::npos);
  EXPECT_NE(theirs.body.find(R"("found":1)"), std::string::npos) << theirs.body;
  EXPECT_NE(theirs.body.find(R"("channel_name":"lobby")"), std::string::npos);
  EXPECT_EQ(get(outsider, "/api/search?q=zebrafish&channel_id=" + secret).body, R"({"found":0,"hits":[]})");

  // NIP-50 over WebSocket: the same boundary.
  auto oc = client(outsider);
  ReqResult nip50 = oc->req("s", R"({"kinds":[9],"search":"zebrafish"})");
  ASSERT_TRUE(nip50.eose);
  ASSERT_EQ(nip50.events.size(), 1u);
  EXPECT_EQ(nip50.events[0].id, visible.id);
  ReqResult owner_nip50 = c->req("s", R"({"kinds":[9],"search":"zebrafish acquisition"})");
  ASSERT_EQ(owner_nip50.events.size(), 1u);
  EXPECT_EQ(owner_nip50.events[0].id, hidden.id);
  EXPECT_EQ(http_call(relay_->port(), "GET", "/api/search?q=zebrafish").status, 401);
}

// COUNT with `search` counts the hits the same REQ sends, not every event its
// other keys match; like a REQ, it is all searches or none.
TEST_F(SearchE2eTest, CountWithSearchCountsWhatTheSameReqSends) {
  Keypair owner = engine::generate_keypair();
  auto c = client(owner);
  const std::string ch = "d4000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "census"}})).accepted);
  Event hit = make_event(owner, 9, "the quokka census is done", {{"h", ch}});
  ASSERT_TRUE(c->publish(hit).accepted);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(c->publish(make_event(owner, 9, "unrelated " + std::to_string(i), {{"h", ch}})).accepted);
  const std::string filter = R"({"kinds":[9],"#h":[")" + ch + R"("],"search":"quokka"})";
  ReqResult sent;
  for (int i = 0; i < 15; ++i) {
    sent = c->req("s" + std::to_string(i), filter);
    if (!sent.events.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(sent.events.size(), 1u) << why(sent);
  auto n = c->count("n", filter);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->type, "COUNT") << n->raw;
  EXPECT_EQ(n->count, 1) << n->raw;
  auto mixed = c->count("m", filter + R"(,{"kinds":[9]})");
  ASSERT_TRUE(mixed);
  EXPECT_EQ(mixed->type, "CLOSED");
  EXPECT_EQ(mixed->text, "error: mixed search and non-search filters not supported");
}

TEST_F(SearchE2eTest, ADeletedMessageDisappears) {
  Keypair owner = engine::generate_keypair();
  auto c = client(owner);
  const std::string ch = "d3000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "scratch"}})).accepted);
  Event note = make_event(owner, 9, "an ocelot walked by", {{"h", ch}});
  ASSERT_TRUE(c->publish(note).accepted);
  ASSERT_NE(search_until(owner, "/api/search?q=ocelot", note.id_hex()).body.find(note.id_hex()), std::string::npos);
  ASSERT_TRUE(c->publish(make_event(owner, 5, "", {{"e", note.id_hex()}})).accepted);
  HttpReply after = get(owner, "/api/search?q=ocelot");
  EXPECT_EQ(after.body, R"({"found":0,"hits":[]})");
  EXPECT_TRUE(c->req("s", R"({"kinds":[9],"search":"ocelot"})").events.empty());
}

// An edited message is found by its newest text only, and a deleted one by
// none of its texts (its edits go with it).
TEST_F(SearchE2eTest, AnEditedMessageIsFoundByItsNewestTextOnly) {
  Keypair owner = engine::generate_keypair();
  auto c = client(owner);
  const std::string ch = "d4000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "drafts"}})).accepted);
  Event note = make_event(owner, 9, "the heron nests by the weir", {{"h", ch}});
  ASSERT_TRUE(c->publish(note).accepted);
  Event first = make_event(owner, 40003, "the egret nests by the weir", {{"h", ch}, {"e", note.id_hex()}});
  ASSERT_TRUE(c->publish(first).accepted);
  Event second =
      make_event(owner, 40003, "the stork nests by the weir", {{"h", ch}, {"e", note.id_hex()}}, first.created_at + 1);
  ASSERT_TRUE(c->publish(second).accepted);
  ASSERT_NE(search_until(owner, "/api/search?q=stork", second.id_hex()).body.find(second.id_hex()), std::string::npos);
  EXPECT_EQ(get(owner, "/api/search?q=heron").body, R"({"found":0,"hits":[]})");
  EXPECT_EQ(get(owner, "/api/search?q=egret").body, R"({"found":0,"hits":[]})");
  HttpReply weir = get(owner, "/api/search?q=weir");
  EXPECT_NE(weir.body.find(R"("found":1)"), std::string::npos) << weir.body;
  EXPECT_TRUE(c->req("s", R"({"kinds":[9,40003],"search":"heron"})").events.empty());

  ASSERT_TRUE(c->publish(make_event(owner, 5, "", {{"e", note.id_hex()}})).accepted);
  HttpReply gone;
  for (int i = 0; i < 15; ++i) {
    gone = get(owner, "/api/search?q=stork");
    if (gone.body == R"({"found":0,"hits":[]})") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(gone.body, R"({"found":0,"hits":[]})") << "a deleted message's edit is still found";
}

TEST_F(SearchE2eTest, HostileQueriesAreAnsweredCleanly) {
  Keypair user = engine::generate_keypair();
  for (const std::string q : {"%22unbalanced", "*", "content:foo", "%FF%FE", "AND%20OR%20NOT", "(((("}) {
    HttpReply r = get(user, "/api/search?q=" + q);
    EXPECT_EQ(r.status, 200) << q << " " << r.body;
  }
  // A query the index refuses degrades to no hits (docs/reference/rest-api.md §3.6).
  HttpReply huge = get(user, "/api/search?q=" + std::string(5000, 'a'));
  EXPECT_EQ(huge.status, 200) << huge.body;
  EXPECT_EQ(huge.body, R"({"found":0,"hits":[]})");
  EXPECT_EQ(http_get(relay_->port(), "/health").status, 200) << "the relay survived";
}

// `buzz reindex` rebuilds a lost index from the store, offline.
TEST(ReindexTest, RebuildsTheIndexFromTheStore) {
  const ScratchDir scratch("reindex");
  const std::string dir = scratch / "data";
  Keypair owner = engine::generate_keypair();
  Event note = make_event(owner, 1, "a narwhal surfaced");
  std::string error;
  {
    auto relay = RelayProcess::start(RelayOptions{{"--open"}, {}, dir}, &error);
    ASSERT_NE(relay, nullptr) << error;
    auto c = NostrClient::connect_authed(*relay, owner, &error);
    ASSERT_NE(c, nullptr) << error;
    ASSERT_TRUE(c->publish(note).accepted);
  }
  std::filesystem::remove_all(dir + "/search");
  int status = -1;
  std::string out = run_buzz("reindex --json --data-dir " + dir, &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find(R"("indexed":1)"), std::string::npos) << out;
  {
    auto relay = RelayProcess::start(RelayOptions{{"--open"}, {}, dir}, &error);
    ASSERT_NE(relay, nullptr) << error;
    auto c = NostrClient::connect_authed(*relay, owner, &error);
    ASSERT_NE(c, nullptr) << error;
    ReqResult r = c->req("s", R"({"kinds":[1],"search":"narwhal"})");
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_EQ(r.events[0].id, note.id);
  }
}

// docs/reference/protocol.md §9.8: a search is answered once, a filter without one would be
// a live feed, so a REQ mixing the two is refused rather than half answered.
TEST_F(SearchE2eTest, ReqSearchesAreAllOrNoneAndStayInTheCallersScope) {
  Keypair key = engine::generate_keypair();
  auto c = client(key);
  ReqResult mixed = c->req("mixed", R"({"kinds":[9],"search":"anything"},{"kinds":[9]})");
  ASSERT_TRUE(mixed.closed);
  EXPECT_EQ(*mixed.closed, "error: mixed search and non-search filters not supported");
  EXPECT_TRUE(c->req("plain", R"({"kinds":[9],"limit":1})").eose);
  // A search reads within the caller's channels: a #h outside them, or an
  // empty search, finds nothing and still ends in EOSE.
  ReqResult elsewhere = c->req("elsewhere", R"({"kinds":[9],"search":"anything","#h":["d9000000-0000-4000-8000-000000000000"]})");
  EXPECT_TRUE(elsewhere.eose);
  EXPECT_TRUE(elsewhere.events.empty());
  ReqResult empty = c->req("empty", R"({"kinds":[9],"search":"  "})");
  EXPECT_TRUE(empty.eose);
  EXPECT_TRUE(empty.events.empty());
  // A global search is answered within the read rules, p-gated kinds narrowed
  // to the caller's own (a Buzz decision: docs/reference/protocol.md §9.3 refused it).
  ReqResult global = c->req("global", R"({"search":"anything"})");
  EXPECT_TRUE(global.eose);
  EXPECT_FALSE(global.closed.has_value());
}

}  // namespace
}  // namespace buzz::test
