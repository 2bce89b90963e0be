// End-to-end tests of the REST user directory, agents, DMs, relay members and
// NIP-05 against the real binary: profiles from kind 0 (and their NIP-05
// handles), batch and ranked search, the REST channel_add_policy as the very
// rule kind 9000 obeys (with the owner a bootstrap mint records), notes and
// contact lists, the agent list, DMs opened, extended and hidden over REST
// (answered by the store writer, with the follow-ups the command kinds emit),
// and what survives a restart. Every endpoint's refusals are here too: no
// auth, a token without the scope, a channel-restricted token, a non-member of
// a DM — which no endpoint ever shows a DM to.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

bool has(const std::string& body, const std::string& part) { return body.find(part) != std::string::npos; }

// A string field of a JSON object body, or "".
std::string field(const std::string& body, const char* name) {
  simdjson::dom::parser parser;
  std::string_view v;
  if (parser.parse(body)[name].get(v)) return "";
  return std::string(v);
}

// The channel ids of a GET /api/dms page, in order.
std::vector<std::string> dm_ids(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::array dms;
  std::vector<std::string> out;
  if (parser.parse(body)["dms"].get(dms)) return out;
  for (simdjson::dom::element dm : dms) {
    std::string_view id;
    if (!dm["channel_id"].get(id)) out.emplace_back(id);
  }
  return out;
}

// A relay and the calls the tests make against it.
struct Relay {
  const RelayProcess& process;

  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(process.port()) + path; }
  // A NIP-98 signed request (payload-tagged when there is a body).
  HttpReply call(const Keypair& key, const std::string& method, const std::string& path, const std::string& body = "") const {
    return http_call(process.port(), method, path, {{"Authorization", nip98_header(key, url(path), method, body)}}, body);
  }
  HttpReply bearer(const std::string& token, const std::string& method, const std::string& path,
                   const std::string& body = "") const {
    return http_call(process.port(), method, path, {{"Authorization", "Bearer " + token}}, body);
  }
  // A NIP-98 bootstrap mint; the raw token, or "" (the reply in *out).
  std::string mint(const Keypair& key, const std::string& body, HttpReply* out = nullptr) const {
    HttpReply r = call(key, "POST", "/api/tokens", body);
    if (out) *out = r;
    return r.status == 201 ? field(r.body, "token") : "";
  }
  std::unique_ptr<NostrClient> client(const Keypair& key) const {
    std::string error;
    auto c = NostrClient::connect_authed(process, key, &error);
    EXPECT_NE(c, nullptr) << error;
    return c;
  }
  OkReply publish(const Keypair& key, const Event& e) const { return client(key)->publish(e); }
  // A channel owned by `owner`, with a name unique to it.
  std::string channel(const Keypair& owner, const std::string& tag, const std::string& visibility) const {
    const std::string id = tag + "000000-0000-4000-8000-" + hex(owner).substr(0, 12);
    EXPECT_TRUE(publish(owner, make_event(owner, 9007, "", {{"h", id}, {"name", tag + "-" + hex(owner).substr(0, 6)},
                                                            {"visibility", visibility}})).accepted);
    return id;
  }
};

class ApiUsersTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    process_ = RelayProcess::start(RelayOptions{{"--open"}, {}, ""}, &error);
    ASSERT_NE(process_, nullptr) << error;
  }
  static void TearDownTestSuite() { process_.reset(); }

  Relay relay() const { return Relay{*process_}; }
  std::string open_dm(const Keypair& who, const std::vector<std::string>& others, int want_status = 201) const {
    HttpReply r = relay().call(who, "POST", "/api/dms", R"({"pubkeys":[")" + join(others) + R"("]})");
    EXPECT_EQ(r.status, want_status) << r.body;
    return field(r.body, "channel_id");
  }
  static std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : "\",\"") + s;
    return out;
  }

  static std::unique_ptr<RelayProcess> process_;
};

std::unique_ptr<RelayProcess> ApiUsersTest::process_;

TEST_F(ApiUsersTest, ProfilesComeFromKind0) {
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair(), fresh = engine::generate_keypair();
  const std::string handle = "a" + hex(alice).substr(0, 10);
  ASSERT_TRUE(relay().publish(alice, make_event(alice, 0, R"({"name":"alice","display_name":"Alice","picture":"https://p/a.png",)"
                                                           R"("about":"hi","nip05":")" + handle + R"(@LocalHost"})")).accepted);
  const std::string want = R"({"about":"hi","agent_owner_pubkey":null,"avatar_url":"https://p/a.png","display_name":"Alice",)"
                           R"("nip05_handle":")" + handle + R"(@localhost","pubkey":")" + hex(alice) + R"("})";
  HttpReply theirs = relay().call(bob, "GET", "/api/users/" + hex(alice) + "/profile");
  EXPECT_EQ(theirs.status, 200);
  EXPECT_EQ(theirs.body, want);
  EXPECT_EQ(relay().call(alice, "GET", "/api/users/me/profile").body, want);
  std::string upper = hex(alice);
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  EXPECT_EQ(relay().call(bob, "GET", "/api/users/" + upper + "/profile").body, want);

  // A second claimant of the handle, and a handle elsewhere, keep no handle.
  ASSERT_TRUE(relay().publish(bob, make_event(bob, 0, R"({"name":"bob","nip05":")" + handle + R"(@localhost"})")).accepted);
  EXPECT_TRUE(has(relay().call(bob, "GET", "/api/users/me/profile").body, R"("nip05_handle":null)"));
  ASSERT_TRUE(relay().publish(bob, make_event(bob, 0, R"({"name":"bob","nip05":"bob@example.org"})")).accepted);
  EXPECT_TRUE(has(relay().call(bob, "GET", "/api/users/me/profile").body, R"("nip05_handle":null)"));

  EXPECT_EQ(relay().call(fresh, "GET", "/api/users/me/profile").body,
            R"({"about":null,"agent_owner_pubkey":null,"avatar_url":null,"display_name":null,"nip05_handle":null,"pubkey":")" +
                hex(fresh) + R"("})");
  // fresh has authenticated, so fresh is a user (docs/reference/rest-api.md §1.1 "ensure user"), profile or not.
  HttpReply known = relay().call(bob, "GET", "/api/users/" + hex(fresh) + "/profile");
  EXPECT_EQ(known.status, 200) << known.body;
  EXPECT_TRUE(has(known.body, R"("display_name":null)")) << known.body;
  HttpReply unknown = relay().call(bob, "GET", "/api/users/" + hex(engine::generate_keypair()) + "/profile");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body, R"({"error":"user not found"})");
  EXPECT_EQ(relay().call(bob, "GET", "/api/users/xyz/profile").body, R"({"error":"invalid pubkey hex"})");
  EXPECT_EQ(relay().call(bob, "GET", "/api/users/" + hex(alice).substr(2) + "/profile").body,
            R"({"error":"pubkey must be 32 bytes"})");
}

TEST_F(ApiUsersTest, Nip05NamesNeedNoAuth) {
  Keypair carol = engine::generate_keypair();
  const std::string name = "c" + hex(carol).substr(0, 10);
  ASSERT_TRUE(relay().publish(carol, make_event(carol, 0, R"({"nip05":")" + name + R"(@localhost"})")).accepted);
  HttpReply r = http_get(process_->port(), "/.well-known/nostr.json?name=" + name);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["access-control-allow-origin"], "*");
  EXPECT_EQ(r.body, R"({"names":{")" + name + R"(":")" + hex(carol) + R"("},"relays":{")" + hex(carol) +
                        R"(":["ws://localhost:)" + std::to_string(process_->port()) + R"("]}})");
  const std::string empty = R"({"names":{},"relays":{}})";
  EXPECT_EQ(http_get(process_->port(), "/.well-known/nostr.json?name=nobody-here").body, empty);
  EXPECT_EQ(http_get(process_->port(), "/.well-known/nostr.json").body, empty);
}

TEST_F(ApiUsersTest, BatchReportsProfilesAndMissing) {
  Keypair known = engine::generate_keypair(), unknown = engine::generate_keypair(), caller = engine::generate_keypair();
  ASSERT_TRUE(relay().publish(known, make_event(known, 0, R"({"name":"known"})")).accepted);
  std::string upper = hex(unknown);
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  HttpReply r = relay().call(caller, "POST", "/api/users/batch",
                             R"({"pubkeys":[")" + hex(known) + R"(",")" + hex(known) + R"(",")" + upper + R"(","zz"]})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"missing":[")" + hex(unknown) + R"(","zz"],"profiles":{")" + hex(known) +
                        R"(":{"avatar_url":null,"display_name":"known","nip05_handle":null}}})");
  std::string many = R"({"pubkeys":[")" + join(std::vector<std::string>(201, hex(known))) + R"("]})";
  HttpReply too_many = relay().call(caller, "POST", "/api/users/batch", many);
  EXPECT_EQ(too_many.status, 400);
  EXPECT_EQ(too_many.body, R"({"error":"max 200 pubkeys per request"})");
  EXPECT_EQ(relay().call(caller, "POST", "/api/users/batch", "not json").status, 400);
  EXPECT_EQ(relay().call(caller, "POST", "/api/users/batch", R"({"pubkeys":"x"})").status, 422);
}

TEST_F(ApiUsersTest, SearchRanksExactThenPrefixThenSubstring) {
  Keypair caller = engine::generate_keypair();
  std::vector<std::pair<std::string, std::string>> people = {
      {"The Zorblax", ""}, {"Zorblaxian", ""}, {"Yorick", "zorblax"}, {"Zorblax", ""}};
  for (const auto& [name, local] : people) {
    Keypair k = engine::generate_keypair();
    std::string nip05 = local.empty() ? "" : R"(,"nip05":")" + local + R"(@localhost")";
    ASSERT_TRUE(relay().publish(k, make_event(k, 0, R"({"name":")" + name + "\"" + nip05 + "}")).accepted);
  }
  auto names = [&](const std::string& query) {
    HttpReply r = relay().call(caller, "GET", "/api/users/search?" + query);
    EXPECT_EQ(r.status, 200) << r.body;
    std::vector<std::string> out;
    simdjson::dom::parser parser;
    simdjson::dom::array users;
    if (parser.parse(r.body)["users"].get(users)) return out;
    for (simdjson::dom::element u : users) out.emplace_back(std::string_view(u["display_name"]));
    return out;
  };
  EXPECT_EQ(names("q=ZORBLAX"), (std::vector<std::string>{"Zorblax", "Zorblaxian", "Yorick", "The Zorblax"}));
  EXPECT_EQ(names("q=%20zorblax%20&limit=2"), (std::vector<std::string>{"Zorblax", "Zorblaxian"}));
  EXPECT_EQ(names("q=zorblax%40localhost"), (std::vector<std::string>{"Yorick"}));
  EXPECT_EQ(relay().call(caller, "GET", "/api/users/search?q=%20%20").body, R"({"users":[]})");
  EXPECT_EQ(relay().call(caller, "GET", "/api/users/search?q=zorbl%25").body, R"({"users":[]})");
  EXPECT_EQ(relay().call(caller, "GET", "/api/users/search?q=zorbl_x").body, R"({"users":[]})");
  EXPECT_EQ(relay().call(caller, "GET", "/api/users/search").status, 400);
  HttpReply long_query = relay().call(caller, "GET", "/api/users/search?q=" + std::string(201, 'z'));
  EXPECT_EQ(long_query.status, 400);
  EXPECT_EQ(long_query.body, R"j({"error":"search query too long (max 200 characters)"})j");
  EXPECT_EQ(relay().call(caller, "GET", "/api/users/search?q=z&limit=x").status, 400);
}

TEST_F(ApiUsersTest, RestPolicyIsWhatKind9000Obeys) {
  Keypair agent = engine::generate_keypair(), human = engine::generate_keypair(), other = engine::generate_keypair();
  auto put = [&](const std::string& body) { return relay().call(agent, "PUT", "/api/users/me/channel-add-policy", body); };
  auto add = [&](const Keypair& by, const std::string& ch) {
    return relay().publish(by, make_event(by, 9000, "", {{"h", ch}, {"p", hex(agent)}}));
  };
  HttpReply nobody = put(R"({"channel_add_policy":"nobody"})");
  EXPECT_EQ(nobody.status, 200);
  EXPECT_EQ(nobody.body, R"({"agent_owner_pubkey":null,"channel_add_policy":"nobody"})");
  const std::string ch = relay().channel(human, "d1", "private");
  EXPECT_EQ(add(human, ch).reason, "invalid: policy:nobody — this agent has disabled external channel additions");
  ASSERT_EQ(put(R"({"channel_add_policy":"owner_only"})").status, 200);
  EXPECT_EQ(add(human, ch).reason, "invalid: policy:owner_only — agent has no owner set");

  // The agent's bootstrap mint names its owner, once.
  const std::string scopes = R"("scopes":["users:read","messages:read","messages:write","channels:read"])";
  HttpReply minted;
  relay().mint(agent, R"({"name":"agent",)" + scopes + R"(,"owner_pubkey":")" + hex(human) + R"("})", &minted);
  ASSERT_EQ(minted.status, 201) << minted.body;
  EXPECT_TRUE(has(relay().call(other, "GET", "/api/users/" + hex(agent) + "/profile").body,
                  R"("agent_owner_pubkey":")" + hex(human) + "\""));
  HttpReply again;
  relay().mint(agent, R"({"name":"agent",)" + scopes + R"(,"owner_pubkey":")" + hex(other) + R"("})", &again);
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.body, R"({"error":"agent already has a different owner"})");
  HttpReply uncontrollable;
  relay().mint(agent, R"({"name":"agent","scopes":["users:read"]})", &uncontrollable);
  EXPECT_EQ(uncontrollable.body, R"({"error":"owned agents require the 'messages:read' scope for controllability"})");

  EXPECT_TRUE(add(human, ch).accepted);
  const std::string theirs = relay().channel(other, "d2", "open");
  EXPECT_EQ(add(other, theirs).reason, "invalid: policy:owner_only — only the agent owner can add this agent");
  HttpReply anyone = put(R"({"channel_add_policy":"anyone"})");
  EXPECT_EQ(anyone.body, R"({"agent_owner_pubkey":")" + hex(human) + R"(","channel_add_policy":"anyone"})");
  EXPECT_TRUE(add(other, theirs).accepted);
  // A later kind 10100 is newer than the REST call, and wins.
  ASSERT_TRUE(relay().publish(agent, make_event(agent, 10100, R"({"channel_add_policy":"nobody"})", {}, unix_now() + 1)).accepted);
  EXPECT_FALSE(add(human, relay().channel(human, "d3", "open")).accepted);

  HttpReply bad = put(R"({"channel_add_policy":"everyone"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body, R"({"error":"channel_add_policy must be 'anyone', 'owner_only', or 'nobody'"})");
  EXPECT_EQ(put("not json").status, 400);
  EXPECT_EQ(put("{}").status, 422);
}

TEST_F(ApiUsersTest, NotesPageWithAKeysetCursor) {
  Keypair author = engine::generate_keypair(), reader = engine::generate_keypair();
  const uint64_t t = unix_now() - 60;
  std::vector<Event> notes = {make_event(author, 1, "old", {}, t), make_event(author, 1, "tie one", {}, t + 10),
                              make_event(author, 1, "tie two", {}, t + 10)};
  for (const Event& e : notes) ASSERT_TRUE(relay().publish(author, e).accepted);
  ASSERT_TRUE(relay().publish(author, make_event(author, 0, R"({"name":"not a note"})")).accepted);
  // Newest first, ties by id.
  const Event& first = notes[1].id < notes[2].id ? notes[1] : notes[2];
  const Event& second = notes[1].id < notes[2].id ? notes[2] : notes[1];
  const std::string base = "/api/users/" + hex(author) + "/notes";
  auto note = [](const Event& e) {
    return R"({"content":")" + e.content + R"(","created_at":)" + std::to_string(e.created_at) + R"(,"id":")" +
           e.id_hex() + R"(","pubkey":")" + engine::to_hex(e.pubkey) + R"("})";
  };
  HttpReply page1 = relay().call(reader, "GET", base + "?limit=2");
  EXPECT_EQ(page1.body, R"({"next_cursor":{"before":)" + std::to_string(t + 10) + R"(,"before_id":")" + second.id_hex() +
                            R"("},"notes":[)" + note(first) + "," + note(second) + "]}");
  HttpReply page2 = relay().call(reader, "GET", base + "?limit=2&before=" + std::to_string(t + 10) + "&before_id=" + second.id_hex());
  EXPECT_EQ(page2.body, R"({"next_cursor":null,"notes":[)" + note(notes[0]) + "]}");
  HttpReply before_only = relay().call(reader, "GET", base + "?before=" + std::to_string(t + 10));
  EXPECT_EQ(before_only.body, R"({"next_cursor":null,"notes":[)" + note(notes[0]) + "]}");
  EXPECT_EQ(relay().call(reader, "GET", base + "?before_id=" + second.id_hex()).body, R"({"error":"before_id requires before"})");
  EXPECT_EQ(relay().call(reader, "GET", base + "?before=1&before_id=xyz").body, R"({"error":"invalid before_id hex"})");
  EXPECT_EQ(relay().call(reader, "GET", base + "?before=yesterday").body, R"({"error":"invalid before timestamp"})");
}

TEST_F(ApiUsersTest, ContactListIsTheNewestKind3WithoutItsSignature) {
  Keypair author = engine::generate_keypair(), friend_key = engine::generate_keypair(), reader = engine::generate_keypair();
  const std::string path = "/api/users/" + hex(author) + "/contact-list";
  HttpReply none = relay().call(reader, "GET", path);
  EXPECT_EQ(none.status, 404);
  EXPECT_EQ(none.body, R"({"error":"contact list not found"})");
  Event list = make_event(author, 3, "", {{"p", hex(friend_key), "", "pal"}});
  ASSERT_TRUE(relay().publish(author, list).accepted);
  EXPECT_EQ(relay().call(reader, "GET", path).body,
            R"({"content":"","created_at":)" + std::to_string(list.created_at) + R"(,"id":")" + list.id_hex() +
                R"(","pubkey":")" + hex(author) + R"(","tags":[["p",")" + hex(friend_key) + R"(","","pal"]]})");
}

TEST_F(ApiUsersTest, AgentsShowOnlyTheChannelsTheCallerMayRead) {
  Keypair owner = engine::generate_keypair(), bot = engine::generate_keypair(), outsider = engine::generate_keypair();
  const std::string open = relay().channel(owner, "e1", "open"), secret = relay().channel(owner, "e2", "private");
  for (const std::string& ch : {open, secret}) {
    ASSERT_TRUE(relay().publish(owner, make_event(owner, 9000, "", {{"h", ch}, {"p", hex(bot)}, {"role", "bot"}})).accepted);
  }
  const std::string name = "Builder " + hex(bot).substr(0, 8);
  ASSERT_TRUE(relay().publish(bot, make_event(bot, 0, R"({"name":")" + name + R"("})")).accepted);
  ASSERT_TRUE(relay().publish(bot, make_event(bot, 10100, R"({"agent_type":"goose","capabilities":["code","review"]})")).accepted);
  auto bot_client = relay().client(bot);
  ASSERT_TRUE(bot_client->publish(make_event(bot, 20001, "online")).accepted);

  // The caller's view of this bot's entry.
  auto entry = [&](const Keypair& caller) {
    HttpReply r = relay().call(caller, "GET", "/api/agents");
    EXPECT_EQ(r.status, 200) << r.body;
    size_t mine = r.body.find(hex(bot));
    if (mine == std::string::npos) return std::string();
    size_t start = r.body.rfind("{\"agent_type\"", mine), end = r.body.find('}', mine);
    return r.body.substr(start, end - start + 1);
  };
  const std::string open_name = "e1-" + hex(owner).substr(0, 6), secret_name = "e2-" + hex(owner).substr(0, 6);
  std::vector<std::string> ids = {open, secret};
  std::sort(ids.begin(), ids.end());
  std::vector<std::string> names = ids[0] == open ? std::vector{open_name, secret_name} : std::vector{secret_name, open_name};
  EXPECT_EQ(entry(owner), R"({"agent_type":"goose","capabilities":["code","review"],"channel_ids":[")" + ids[0] + R"(",")" +
                              ids[1] + R"("],"channels":[")" + names[0] + R"(",")" + names[1] + R"("],"name":")" + name +
                              R"(","pubkey":")" + hex(bot) + R"(","status":"online"})");
  // An outsider sees the open channel only, and no presence (no shared channel).
  EXPECT_EQ(entry(outsider), R"({"agent_type":"goose","capabilities":["code","review"],"channel_ids":[")" + open +
                                 R"("],"channels":[")" + open_name + R"("],"name":")" + name + R"(","pubkey":")" + hex(bot) +
                                 R"(","status":"offline"})");
}

TEST_F(ApiUsersTest, DmsOpenListHideAndExtendOverRest) {
  Keypair a = engine::generate_keypair(), b = engine::generate_keypair(), c = engine::generate_keypair(),
          outsider = engine::generate_keypair();
  ASSERT_TRUE(relay().publish(a, make_event(a, 0, R"({"name":"Ann"})")).accepted);
  auto b_live = relay().client(b);
  ASSERT_TRUE(b_live->req("added", R"({"kinds":[44100],"#p":[")" + hex(b) + R"("]})").eose);

  const std::string dm = open_dm(a, {hex(b), hex(b), hex(a)});
  ASSERT_FALSE(dm.empty());
  auto notice = b_live->wait_for([&](const RelayMessage& m) { return m.type == "EVENT" && m.event.kind == 44100; });
  ASSERT_TRUE(notice.has_value()) << "the relay-signed 44100 of a new DM";
  EXPECT_EQ(notice->event.first_tag_value("h"), dm);
  HttpReply again = relay().call(a, "POST", "/api/dms", R"({"pubkeys":[")" + hex(b) + R"("]})");
  EXPECT_EQ(again.status, 200);
  const bool a_first = hex(a) < hex(b);
  const std::string pa = R"({"display_name":"Ann","pubkey":")" + hex(a) + R"(","role":"member"})";
  const std::string pb = R"({"display_name":null,"pubkey":")" + hex(b) + R"(","role":"member"})";
  EXPECT_EQ(again.body, R"({"channel_id":")" + dm + R"(","created":false,"participants":[)" + (a_first ? pa + "," + pb : pb + "," + pa) + "]}");
  EXPECT_EQ(open_dm(b, {hex(a)}, 200), dm);

  // Listed for its participants, with names from the directory; no one else sees it.
  EXPECT_EQ(dm_ids(relay().call(a, "GET", "/api/dms").body), std::vector<std::string>{dm});
  EXPECT_TRUE(has(relay().call(b, "GET", "/api/channels").body, R"("participants":[)" +
                                                                  (a_first ? R"("Ann",")" + hex(b).substr(0, 8) + "\""
                                                                           : "\"" + hex(b).substr(0, 8) + R"(","Ann")")));
  EXPECT_TRUE(has(relay().call(b, "GET", "/api/channels/" + dm + "/members").body, R"("display_name":"Ann")"));
  EXPECT_TRUE(dm_ids(relay().call(outsider, "GET", "/api/dms").body).empty());
  EXPECT_FALSE(has(relay().call(outsider, "GET", "/api/channels").body, dm));
  EXPECT_EQ(relay().call(outsider, "GET", "/api/channels/" + dm + "/members").status, 403);
  for (std::string sub : {"/hide", "/members"}) {
    HttpReply denied = relay().call(outsider, "POST", "/api/dms/" + dm + sub, R"({"pubkeys":[")" + hex(outsider) + R"("]})");
    EXPECT_EQ(denied.status, 403) << sub;
    EXPECT_EQ(denied.body, R"({"error":"not a member of this DM"})");
  }

  // Hidden: gone from a's lists, still readable and writable; b unaffected; reopening unhides.
  HttpReply hide = relay().call(a, "POST", "/api/dms/" + dm + "/hide");
  EXPECT_EQ(hide.status, 204) << hide.body;
  EXPECT_TRUE(dm_ids(relay().call(a, "GET", "/api/dms").body).empty());
  EXPECT_FALSE(has(relay().call(a, "GET", "/api/channels").body, dm));
  EXPECT_EQ(relay().call(a, "GET", "/api/channels/" + dm).status, 200);
  EXPECT_EQ(relay().call(a, "POST", "/api/events", make_event(a, 9, "still here", {{"h", dm}}).raw).status, 200);
  EXPECT_EQ(dm_ids(relay().call(b, "GET", "/api/dms").body), std::vector<std::string>{dm});
  EXPECT_EQ(open_dm(a, {hex(b)}, 200), dm);
  EXPECT_EQ(dm_ids(relay().call(a, "GET", "/api/dms").body), std::vector<std::string>{dm});

  // "Adding" makes another DM; the first is unchanged.
  HttpReply added = relay().call(a, "POST", "/api/dms/" + dm + "/members", R"({"pubkeys":[")" + hex(c) + R"("]})");
  EXPECT_EQ(added.status, 201) << added.body;
  const std::string group = field(added.body, "channel_id");
  EXPECT_NE(group, dm);
  EXPECT_EQ(field(added.body, "note"), "A new DM was created with the expanded participant set. The original DM is unchanged.");
  HttpReply re_added = relay().call(b, "POST", "/api/dms/" + dm + "/members", R"({"pubkeys":[")" + hex(c) + R"("]})");
  EXPECT_EQ(re_added.status, 200);
  EXPECT_EQ(field(re_added.body, "channel_id"), group);
  EXPECT_TRUE(has(re_added.body, R"("note":)"));
  EXPECT_EQ(dm_ids(relay().call(c, "GET", "/api/dms").body), std::vector<std::string>{group});
}

TEST_F(ApiUsersTest, DmRefusals) {
  Keypair a = engine::generate_keypair(), b = engine::generate_keypair();
  const std::string dm = open_dm(a, {hex(b)});
  auto post = [&](const std::string& path, const std::string& body) { return relay().call(a, "POST", path, body); };
  auto expect = [](const HttpReply& r, int status, const std::string& error) {
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_EQ(r.body, R"({"error":")" + error + "\"}");
  };
  expect(post("/api/dms", R"({"pubkeys":[]})"), 400, "pubkeys must contain at least 1 other participant");
  expect(post("/api/dms", R"({"pubkeys":[")" + hex(a) + R"("]})"), 400, "pubkeys must contain at least 1 other participant");
  std::vector<std::string> nine;
  for (int i = 0; i < 9; ++i) nine.push_back(hex(engine::generate_keypair()));
  expect(post("/api/dms", R"({"pubkeys":[")" + join(nine) + R"("]})"), 400,
         "pubkeys may contain at most 8 other participants (9 total including self)");
  expect(post("/api/dms", R"({"pubkeys":["zz"]})"), 400, "invalid pubkey hex: zz");
  expect(post("/api/dms", R"({"pubkeys":[")" + hex(b).substr(2) + R"("]})"), 400,
         "pubkey must be 32 bytes (64 hex chars): " + hex(b).substr(2));
  EXPECT_EQ(post("/api/dms", "not json").status, 400);
  EXPECT_EQ(post("/api/dms", R"({"keys":[]})").status, 422);

  const std::string stream = relay().channel(a, "f1", "open");
  const std::string missing = "f2000000-0000-4000-8000-000000000000";
  for (std::string sub : {"/members", "/hide"}) {
    const std::string body = R"({"pubkeys":[")" + hex(engine::generate_keypair()) + R"("]})";
    expect(post("/api/dms/not-a-uuid" + sub, body), 400, "invalid channel_id format");
    expect(post("/api/dms/" + missing + sub, body), 404, "DM not found");
    expect(post("/api/dms/" + stream + sub, body), 400, "channel is not a DM");
  }
  expect(post("/api/dms/" + dm + "/members", R"({"pubkeys":[")" + hex(b) + R"("]})"), 400,
         "pubkeys must contain at least 1 new participant");
  expect(post("/api/dms/" + dm + "/members", R"({"pubkeys":[")" + join(nine) + R"("]})"), 422,
         "DM supports at most 9 participants");
}

TEST_F(ApiUsersTest, DmListPagesWithoutSkippingTies) {
  Keypair a = engine::generate_keypair();
  std::vector<std::string> opened;
  for (int i = 0; i < 3; ++i) opened.push_back(open_dm(a, {hex(engine::generate_keypair())}));
  HttpReply page1 = relay().call(a, "GET", "/api/dms?limit=2");
  std::vector<std::string> first = dm_ids(page1.body);
  ASSERT_EQ(first.size(), 2u) << page1.body;
  EXPECT_EQ(field(page1.body, "next_cursor"), first[1]);
  HttpReply page2 = relay().call(a, "GET", "/api/dms?limit=2&cursor=" + first[1]);
  std::vector<std::string> rest = dm_ids(page2.body);
  ASSERT_EQ(rest.size(), 1u) << page2.body;
  EXPECT_TRUE(has(page2.body, R"("next_cursor":null)"));
  std::vector<std::string> all = {first[0], first[1], rest[0]};
  std::sort(all.begin(), all.end());
  std::sort(opened.begin(), opened.end());
  EXPECT_EQ(all, opened);

  Keypair b = engine::generate_keypair(), c = engine::generate_keypair();
  const std::string theirs = open_dm(b, {hex(c)});
  for (const std::string& cursor : {std::string("nope"), theirs}) {
    HttpReply bad = relay().call(a, "GET", "/api/dms?cursor=" + cursor);
    EXPECT_EQ(bad.status, 400) << cursor;
    EXPECT_EQ(bad.body, R"({"error":"invalid cursor format"})");
  }
}

TEST_F(ApiUsersTest, EveryEndpointNeedsAuthAndItsScope) {
  Keypair user = engine::generate_keypair();
  const std::string dm = "f3000000-0000-4000-8000-000000000000", pk = hex(user);
  struct Route {
    std::string method, path, body, scope;
  };
  const std::vector<Route> routes = {
      {"GET", "/api/users/me/profile", "", "users:read"},
      {"GET", "/api/users/" + pk + "/profile", "", "users:read"},
      {"POST", "/api/users/batch", R"({"pubkeys":[]})", "users:read"},
      {"GET", "/api/users/search?q=a", "", "users:read"},
      {"PUT", "/api/users/me/channel-add-policy", R"({"channel_add_policy":"nobody"})", "users:write"},
      {"GET", "/api/users/" + pk + "/notes", "", "messages:read"},
      {"GET", "/api/users/" + pk + "/contact-list", "", "users:read"},
      {"GET", "/api/agents", "", "channels:read"},
      {"GET", "/api/dms", "", "messages:read"},
      {"POST", "/api/dms", R"({"pubkeys":[")" + pk + R"("]})", "messages:write"},
      {"POST", "/api/dms/" + dm + "/members", R"({"pubkeys":[")" + pk + R"("]})", "messages:write"},
      {"POST", "/api/dms/" + dm + "/hide", "", "messages:write"},
  };
  const std::string token = relay().mint(user, R"({"name":"files only","scopes":["files:read"]})");
  ASSERT_FALSE(token.empty());
  for (const Route& r : routes) {
    HttpReply anonymous = http_call(process_->port(), r.method, r.path, {}, r.body);
    EXPECT_EQ(anonymous.status, 401) << r.path;
    EXPECT_EQ(anonymous.body, R"({"error":"authentication required"})") << r.path;
    HttpReply scoped = relay().bearer(token, r.method, r.path, r.body);
    EXPECT_EQ(scoped.status, 403) << r.path;
    EXPECT_EQ(scoped.body, R"({"error":"insufficient_scope","message":"token missing required scope: )" + r.scope + "\"}")
        << r.path;
  }
  HttpReply members = relay().bearer(token, "GET", "/api/relay/members");
  EXPECT_EQ(members.status, 403);
  EXPECT_EQ(members.body, R"({"error":"insufficient_scope","message":"Requires users:read or admin:users scope"})");
  EXPECT_EQ(http_call(process_->port(), "GET", "/api/relay/members/me").status, 401);
  // Reading DMs does not allow changing them.
  const std::string reader = relay().mint(user, R"({"name":"dm reader","scopes":["messages:read"]})");
  EXPECT_EQ(relay().bearer(reader, "GET", "/api/dms").status, 200);
  EXPECT_EQ(relay().bearer(reader, "POST", "/api/dms", R"({"pubkeys":[")" + pk + R"("]})").status, 403);
}

TEST_F(ApiUsersTest, ChannelRestrictedTokensSeeAndChangeNoOtherDm) {
  Keypair a = engine::generate_keypair(), b = engine::generate_keypair();
  const std::string ch = relay().channel(a, "f4", "open"), dm = open_dm(a, {hex(b)});
  const std::string token = relay().mint(a, R"({"name":"one channel","scopes":["messages:read","messages:write"],)"
                                            R"("channel_ids":[")" + ch + R"("]})");
  ASSERT_FALSE(token.empty());
  EXPECT_TRUE(dm_ids(relay().bearer(token, "GET", "/api/dms").body).empty());
  HttpReply hide = relay().bearer(token, "POST", "/api/dms/" + dm + "/hide");
  EXPECT_EQ(hide.status, 403);
  EXPECT_EQ(hide.body, R"({"error":"channel_not_permitted","message":"Token does not have access to this channel"})");
  HttpReply open = relay().bearer(token, "POST", "/api/dms", R"({"pubkeys":[")" + hex(b) + R"("]})");
  EXPECT_EQ(open.status, 403);
  EXPECT_EQ(field(open.body, "error"), "channel_not_permitted");
}

// Profiles and REST settings come back after a restart (kill -9: each was acknowledged durable).
TEST(ApiUsersRestartTest, ProfilesAndPolicySurviveARestart) {
  std::string error;
  auto first = RelayProcess::start(RelayOptions{{"--open"}, {}, ""}, &error);
  ASSERT_NE(first, nullptr) << error;
  Keypair agent = engine::generate_keypair(), owner = engine::generate_keypair();
  {
    Relay r{*first};
    ASSERT_TRUE(r.publish(agent, make_event(agent, 0, R"({"name":"Persistent","nip05":"keeper@localhost"})")).accepted);
    ASSERT_EQ(r.call(agent, "PUT", "/api/users/me/channel-add-policy", R"({"channel_add_policy":"nobody"})").status, 200);
  }
  first->kill_hard();
  auto second = RelayProcess::start(RelayOptions{{"--open"}, {}, first->data_dir()}, &error);
  ASSERT_NE(second, nullptr) << error;
  Relay r{*second};
  EXPECT_TRUE(has(r.call(owner, "GET", "/api/users/" + hex(agent) + "/profile").body, R"("display_name":"Persistent")"));
  const std::string ch = r.channel(owner, "f5", "open");
  EXPECT_EQ(r.publish(owner, make_event(owner, 9000, "", {{"h", ch}, {"p", hex(agent)}})).reason,
            "invalid: policy:nobody — this agent has disabled external channel additions");
}

// A closed relay: the member list needs membership; one's own record does not.
TEST(ApiUsersClosedRelayTest, RelayMembersAndOnesOwnRecord) {
  Keypair owner = engine::generate_keypair(), stranger = engine::generate_keypair();
  std::string error;
  auto process = RelayProcess::start(RelayOptions{{"--owner", hex(owner)}, {}, ""}, &error);
  ASSERT_NE(process, nullptr) << error;
  Relay r{*process};
  HttpReply list = r.call(owner, "GET", "/api/relay/members");
  EXPECT_EQ(list.status, 200);
  const std::string record_prefix = R"({"added_by":null,"created_at":")";
  EXPECT_TRUE(list.body.starts_with(R"({"members":[)" + record_prefix)) << list.body;
  EXPECT_TRUE(list.body.ends_with(R"(","pubkey":")" + hex(owner) + R"(","role":"owner"}]})")) << list.body;
  HttpReply me = r.call(owner, "GET", "/api/relay/members/me");
  EXPECT_EQ(me.status, 200);
  EXPECT_TRUE(me.body.starts_with(record_prefix) && has(me.body, R"("role":"owner")")) << me.body;

  HttpReply gated = r.call(stranger, "GET", "/api/relay/members");
  EXPECT_EQ(gated.status, 403);
  EXPECT_EQ(field(gated.body, "error"), "relay_membership_required");
  HttpReply not_member = r.call(stranger, "GET", "/api/relay/members/me");
  EXPECT_EQ(not_member.status, 404);
  EXPECT_EQ(not_member.body, R"({"error":"not_a_member","message":"You are not a relay member"})");
}

}  // namespace
}  // namespace buzz::test
