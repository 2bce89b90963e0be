// The agent CLI (docs/reference/agents-and-cli.md Part B) run as a child process against the
// real relay: each command's visible effect, checked over REST by the same
// user, and the exact tags of the events it signs (§B.4). The bad inputs are
// in cli_errors_test.cpp, on the same relay.
#include <chrono>
#include <map>
#include <thread>

#include "tests/e2e/cli_fixture.h"

namespace buzz::test {

class CliTest : public CliFixture<CliTest> {};

namespace {

// §B.2's seed-era commands, all 48.
const char* const kCommands[] = {
    "send-message", "send-diff-message", "delete-message", "get-messages", "get-thread", "search", "edit-message",
    "vote-on-post", "list-channels", "get-channel", "create-channel", "update-channel", "set-channel-topic",
    "set-channel-purpose", "join-channel", "leave-channel", "archive-channel", "unarchive-channel", "delete-channel",
    "list-channel-members", "add-channel-member", "remove-channel-member", "get-canvas", "set-canvas", "add-reaction",
    "remove-reaction", "get-reactions", "list-dms", "open-dm", "add-dm-member", "get-users", "set-profile",
    "get-presence", "set-presence", "set-channel-add-policy", "list-workflows", "create-workflow", "update-workflow",
    "delete-workflow", "trigger-workflow", "get-workflow-runs", "get-workflow", "approve-step", "get-feed", "auth",
    "list-tokens", "delete-token", "delete-all-tokens"};

bool contains(const std::string& body, const std::string& what) { return body.find(what) != std::string::npos; }

// Retries a read until it contains what (the search index commits asynchronously).
template <class Read>
std::string eventually(Read read, const std::string& what) {
  std::string body;
  for (int i = 0; i < 50 && !contains(body = read(), what); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return body;
}

}  // namespace

TEST_F(CliTest, HelpListsEveryCommandAndEveryCommandAnswersHelp) {
  static_assert(std::size(kCommands) == 48);
  CliRun top = run_cli({"--help"});
  EXPECT_EQ(top.status, 0);
  for (const char* c : kCommands) {
    EXPECT_TRUE(contains(top.out, std::string("\n  ") + c + " ")) << c << " missing from buzz --help";
    CliRun help = run_cli({c, "--help"});
    EXPECT_EQ(help.status, 0) << c;
    EXPECT_TRUE(contains(help.out, std::string("Usage: buzz ") + c)) << help.out;
    EXPECT_TRUE(contains(help.out, "BUZZ_RELAY_URL")) << c;
  }
  CliRun version = run_cli({"send-message", "--version"});
  EXPECT_EQ(version.status, 0);
  EXPECT_TRUE(version.out.starts_with("buzz ")) << version.out;
}

TEST_F(CliTest, MessagesRepliesEditsAndDeletes) {
  CliUser alice = new_user(), bob = new_user();
  const std::string ch = new_channel(alice);
  accepted(bob, {"join-channel", "--channel", ch});

  const std::string root = accepted(alice, {"send-message", "--channel", ch, "--content", "hello from the cli", "--kind", "1"});
  auto e = stored(alice, root);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, 9);
  EXPECT_EQ(e->content, "hello from the cli");
  EXPECT_EQ(e->tags, (std::vector<engine::Tag>{{"h", ch}}));
  EXPECT_EQ(e->pubkey_hex(), alice.hex);

  // Mentions are lowercased and deduplicated; the reply target is both root and parent.
  const std::string reply = accepted(bob, {"send-message", "--channel", ch, "--content", "a reply", "--reply-to", root,
                                           "--mention", to_upper(alice.hex), "--mention", alice.hex, "--broadcast"});
  auto r = stored(bob, reply);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->tags, (std::vector<engine::Tag>{{"h", ch}, {"e", root, "", "reply"}, {"p", alice.hex}, {"broadcast", "1"}}));

  const std::string messages = ok(alice, {"get-messages", "--channel", ch, "--kinds", "9,40008", "--limit", "500"});
  EXPECT_TRUE(contains(messages, root)) << messages;
  EXPECT_TRUE(contains(ok(alice, {"get-thread", "--channel", ch, "--event", root}), reply));

  const std::string edit = accepted(alice, {"edit-message", "--event", root, "--content", "hello, edited"});
  auto ed = stored(alice, edit);
  ASSERT_TRUE(ed.has_value());
  EXPECT_EQ(ed->kind, 40003);
  EXPECT_EQ(ed->tags, (std::vector<engine::Tag>{{"h", ch}, {"e", root}}));

  const std::string del = accepted(bob, {"delete-message", "--event", reply});
  auto d = stored(bob, del);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->kind, 9005);
  EXPECT_EQ(d->tags, (std::vector<engine::Tag>{{"h", ch}, {"e", reply}}));
  EXPECT_FALSE(stored(bob, reply).has_value()) << "a deleted message is gone";
}

TEST_F(CliTest, ReactionsAddGetRemove) {
  CliUser alice = new_user();
  const std::string ch = new_channel(alice);
  const std::string msg = accepted(alice, {"send-message", "--channel", ch, "--content", unique_text("react to me")});
  const std::string reaction = accepted(alice, {"add-reaction", "--event", msg, "--emoji", "\xF0\x9F\x91\x8D"});
  auto e = stored(alice, reaction);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, 7);
  EXPECT_EQ(e->tags, (std::vector<engine::Tag>{{"e", msg}}));
  std::string listed = ok(alice, {"get-reactions", "--event", msg});
  EXPECT_TRUE(contains(listed, reaction)) << listed;

  const std::string undo = accepted(alice, {"remove-reaction", "--event", msg, "--emoji", "\xF0\x9F\x91\x8D"});
  EXPECT_EQ(stored(alice, undo).value_or(engine::Event{}).tags, (std::vector<engine::Tag>{{"e", reaction}}));
  EXPECT_FALSE(contains(ok(alice, {"get-reactions", "--event", msg}), reaction));

  CliRun again = cli(alice, {"remove-reaction", "--event", msg, "--emoji", "\xF0\x9F\x91\x8D"});
  EXPECT_EQ(again.status, 1);
  EXPECT_EQ(error_of(again), std::make_pair(std::string("user_error"),
                                            "no reaction with emoji '\xF0\x9F\x91\x8D' found for your pubkey on event " + msg));
}

TEST_F(CliTest, VoteOnAForumPost) {
  CliUser alice = new_user();
  const std::string forum = new_channel(alice, "forum");
  // A forum post is a kind 45001, which no seed-era command writes: posted over REST.
  engine::Event post_event = make_event(alice.key, 45001, unique_text("a post"), {{"h", forum}});
  HttpReply posted = signed_call(alice.key, "POST", "/api/events", post_event.raw);
  ASSERT_EQ(posted.status, 200) << posted.body;
  const std::string post = post_event.id_hex();
  const std::string vote = accepted(alice, {"vote-on-post", "--event", post, "--direction", "down"});
  auto v = stored(alice, vote);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->kind, 45002);
  EXPECT_EQ(v->content, "-");
  EXPECT_EQ(v->tags, (std::vector<engine::Tag>{{"h", forum}, {"e", post}}));
}

TEST_F(CliTest, DiffMessageFromStdinWithItsTagsAndTruncation) {
  CliUser alice = new_user();
  const std::string ch = new_channel(alice);
  const std::string diff = "--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1 +1 @@\n-old\n+new\n";
  const std::string id = accepted(alice, {"send-diff-message", "--channel", ch, "--diff", "-", "--repo",
                                          "https://example.com/r.git", "--commit", "abcdef1", "--file", "src/main.rs",
                                          "--source-branch", "feat", "--target-branch", "main", "--pr", "7",
                                          "--description", "fix it"},
                                  diff);
  auto e = stored(alice, id);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, 40008);
  EXPECT_EQ(e->content, diff);
  EXPECT_EQ(e->tags, (std::vector<engine::Tag>{{"h", ch},
                                               {"repo", "https://example.com/r.git"},
                                               {"commit", "abcdef1"},
                                               {"file", "src/main.rs"},
                                               {"branch", "feat", "main"},
                                               {"pr", "7"},
                                               {"l", "rust"},
                                               {"description", "fix it"},
                                               {"alt", "Diff: src/main.rs \xE2\x80\x94 fix it"}}));

  // Over 61,440 bytes: cut at the last hunk boundary that fits, with the notice.
  std::string hunk = "@@ -1 +1 @@\n" + std::string(1000, 'x') + "\n";
  std::string big;
  while (big.size() < 70000) big += hunk;
  const std::string cut_id =
      accepted(alice, {"send-diff-message", "--channel", ch, "--diff", "-", "--repo", "http://r", "--commit", "1234567"}, big);
  auto cut = stored(alice, cut_id);
  ASSERT_TRUE(cut.has_value());
  const std::string notice = "\n\n[diff truncated \xE2\x80\x94 exceeded size limit]";
  EXPECT_LE(cut->content.size(), 61440u);
  ASSERT_TRUE(cut->content.ends_with(notice)) << cut->content.substr(cut->content.size() - 100);
  const size_t kept = cut->content.size() - notice.size();
  EXPECT_EQ(cut->content.substr(0, kept), big.substr(0, kept));
  EXPECT_EQ(big.substr(kept, 3), "\n@@") << "cut at a hunk boundary";
  EXPECT_GT(kept + hunk.size(), 61440 - notice.size()) << "the last boundary that fits";
  EXPECT_TRUE(has_tag(*cut, {"truncated", "true"}));
  EXPECT_TRUE(has_tag(*cut, {"alt", "Diff"}));
}

TEST_F(CliTest, SearchFindsAMessage) {
  CliUser alice = new_user();
  const std::string ch = new_channel(alice);
  const std::string word = "zebra" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  const std::string id = accepted(alice, {"send-message", "--channel", ch, "--content", "look: " + word});
  EXPECT_TRUE(contains(eventually([&] { return ok(alice, {"search", "--query", word, "--limit", "5"}); }, id), id));
}

TEST_F(CliTest, ChannelLifecycle) {
  const CliUser& alice = admin();  // kinds 9000, 9001 and 9008 need admin:channels
  CliUser bob = new_user();
  const std::string ch = new_channel(alice);
  EXPECT_TRUE(contains(ok(alice, {"list-channels", "--member"}), ch));
  EXPECT_FALSE(contains(ok(alice, {"list-channels", "--visibility", "private"}), ch));
  EXPECT_TRUE(contains(ok(alice, {"list-channels", "--visibility", "open"}), ch));

  accepted(alice, {"update-channel", "--channel", ch, "--name", "renamed-by-cli", "--description", "about it"});
  accepted(alice, {"set-channel-topic", "--channel", ch, "--topic", "the topic"});
  accepted(alice, {"set-channel-purpose", "--channel", ch, "--purpose", "the purpose"});
  std::string got = ok(alice, {"get-channel", "--channel", ch});
  EXPECT_EQ(json_str(got, "name"), "renamed-by-cli") << got;
  EXPECT_EQ(json_str(got, "description"), "about it");
  EXPECT_EQ(json_str(got, "topic"), "the topic");
  EXPECT_EQ(json_str(got, "purpose"), "the purpose");

  const std::string added = accepted(alice, {"add-channel-member", "--channel", ch, "--pubkey", bob.hex, "--role", "admin"});
  EXPECT_EQ(stored(alice, added).value_or(engine::Event{}).tags,
            (std::vector<engine::Tag>{{"h", ch}, {"p", bob.hex}, {"role", "admin"}}));
  std::string members = ok(alice, {"list-channel-members", "--channel", ch});
  EXPECT_TRUE(contains(members, "\"pubkey\":\"" + bob.hex + "\"")) << members;
  EXPECT_TRUE(contains(members, "\"role\":\"admin\"")) << members;
  accepted(alice, {"remove-channel-member", "--channel", ch, "--pubkey", bob.hex});
  EXPECT_FALSE(contains(ok(alice, {"list-channel-members", "--channel", ch}), bob.hex));

  // A self-minted token lacks admin:channels: the relay's 403 is an auth error.
  CliUser carol = new_user();
  const std::string own = new_channel(carol);
  CliRun denied = cli(carol, {"add-channel-member", "--channel", own, "--pubkey", bob.hex});
  EXPECT_EQ(denied.status, 3);
  EXPECT_EQ(error_of(denied), std::make_pair(std::string("auth_error"),
                                             std::string("relay error 403: restricted: insufficient scope (need admin:channels)")));

  accepted(bob, {"join-channel", "--channel", ch});
  EXPECT_TRUE(contains(ok(alice, {"list-channel-members", "--channel", ch}), bob.hex));
  accepted(bob, {"leave-channel", "--channel", ch});
  EXPECT_FALSE(contains(ok(alice, {"list-channel-members", "--channel", ch}), bob.hex));

  accepted(alice, {"archive-channel", "--channel", ch});
  EXPECT_NE(json_str(ok(alice, {"get-channel", "--channel", ch}), "archived_at"), "");
  accepted(alice, {"unarchive-channel", "--channel", ch});
  EXPECT_TRUE(contains(ok(alice, {"get-channel", "--channel", ch}), "\"archived_at\":null"));

  accepted(alice, {"delete-channel", "--channel", ch});
  CliRun gone = cli(alice, {"get-channel", "--channel", ch});
  EXPECT_EQ(gone.status, 3) << gone.err;  // a deleted channel answers like one the caller may not read
  EXPECT_FALSE(contains(ok(alice, {"list-channels"}), ch));
}

TEST_F(CliTest, CanvasFromStdin) {
  CliUser alice = new_user();
  const std::string ch = new_channel(alice);
  EXPECT_EQ(ok(alice, {"get-canvas", "--channel", ch}), R"({"content":null})");
  accepted(alice, {"set-canvas", "--channel", ch, "--content", "-"}, "# Plan\n\n- ship the cli\n");
  EXPECT_EQ(json_str(ok(alice, {"get-canvas", "--channel", ch}), "content"), "# Plan\n\n- ship the cli\n");
}

TEST_F(CliTest, ProfilesPresenceAndAddPolicy) {
  CliUser alice = new_user(), bob = new_user();
  accepted(alice, {"set-profile", "--name", "Alice CLI", "--about", "first"});
  // Kind 0 is replaceable, and of two in one second the lower id wins: the next
  // update waits for the next second (the CLI stamped the first no later than now).
  for (const uint64_t first = unix_now(); unix_now() <= first;) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // The update keeps the fields it does not name.
  accepted(alice, {"set-profile", "--about", "second", "--avatar", "https://example.com/a.png"});
  std::string me = eventually([&] { return ok(alice, {"get-users"}); }, "second");
  EXPECT_EQ(json_str(me, "display_name"), "Alice CLI") << me;
  EXPECT_EQ(json_str(me, "about"), "second");
  EXPECT_EQ(json_str(me, "avatar_url"), "https://example.com/a.png") << me;
  EXPECT_TRUE(contains(ok(bob, {"get-users", "--pubkey", alice.hex}), "Alice CLI"));
  std::string batch = ok(bob, {"get-users", "--pubkey", alice.hex, "--pubkey", bob.hex});
  EXPECT_TRUE(contains(batch, "Alice CLI")) << batch;

  // Presence shows to those who share a channel.
  const std::string ch = new_channel(alice);
  accepted(bob, {"join-channel", "--channel", ch});
  EXPECT_EQ(ok(alice, {"set-presence", "--status", "away"}), R"({"status":"away","ttl_seconds":90})");
  std::string presence = ok(bob, {"get-presence", "--pubkeys", alice.hex + "," + bob.hex});
  EXPECT_TRUE(contains(presence, "\"" + alice.hex + "\":\"away\"")) << presence;

  EXPECT_TRUE(contains(ok(alice, {"set-channel-add-policy", "--policy", "nobody"}), "\"channel_add_policy\":\"nobody\""));
  const std::string other = new_channel(admin());
  CliRun refused = cli(admin(), {"add-channel-member", "--channel", other, "--pubkey", alice.hex});
  EXPECT_TRUE(contains(refused.out + refused.err, "policy")) << refused.out << refused.err;
  EXPECT_FALSE(contains(ok(admin(), {"list-channel-members", "--channel", other}), alice.hex));

  std::string feed = ok(alice, {"get-feed", "--types", "mentions", "--limit", "99"});
  EXPECT_TRUE(contains(feed, "\"feed\"")) << feed;
}

TEST_F(CliTest, DirectMessages) {
  CliUser alice = new_user(), bob = new_user(), carol = new_user();
  std::string opened = ok(alice, {"open-dm", "--pubkey", bob.hex});
  const std::string dm = json_str(opened, "channel_id");
  ASSERT_FALSE(dm.empty()) << opened;
  EXPECT_TRUE(contains(ok(alice, {"list-dms"}), dm));
  std::string added = ok(alice, {"add-dm-member", "--channel", dm, "--pubkey", carol.hex});
  EXPECT_FALSE(added.empty());
}

TEST_F(CliTest, WorkflowsCreateRunUpdateDelete) {
  CliUser alice = new_user();
  const std::string ch = new_channel(alice);
  const std::string yaml = "name: Hook\ntrigger:\n  on: webhook\nsteps:\n  - id: hi\n    action: send_message\n    text: hi\n";
  std::string created = ok(alice, {"create-workflow", "--channel", ch, "--yaml", "-"}, yaml);
  const std::string wf = json_str(created, "id");
  ASSERT_FALSE(wf.empty()) << created;
  EXPECT_TRUE(contains(ok(alice, {"list-workflows", "--channel", ch}), wf));
  EXPECT_EQ(json_str(ok(alice, {"get-workflow", "--workflow", wf}), "name"), "Hook");
  ok(alice, {"update-workflow", "--workflow", wf, "--yaml", "name: Renamed\ntrigger:\n  on: webhook\nsteps:\n  - id: hi\n    action: send_message\n    text: hi\n"});
  EXPECT_EQ(json_str(ok(alice, {"get-workflow", "--workflow", wf}), "name"), "Renamed");
  std::string run = ok(alice, {"trigger-workflow", "--workflow", wf});
  const std::string run_id = json_str(run, "run_id");
  ASSERT_FALSE(run_id.empty()) << run;
  EXPECT_TRUE(contains(eventually([&] { return ok(alice, {"get-workflow-runs", "--workflow", wf}); }, run_id), run_id));
  ok(alice, {"delete-workflow", "--workflow", wf});
  CliRun gone = cli(alice, {"get-workflow", "--workflow", wf});
  EXPECT_EQ(gone.status, 2);
  EXPECT_EQ(error_of(gone).first, "relay_error");

  // An approval token the relay never issued: the relay's refusal, as a relay error.
  CliRun unknown = cli(alice, {"approve-step", "--token", new_uuid(), "--approved", "true", "--note", "ok"});
  EXPECT_EQ(unknown.status, 2) << unknown.err;
  EXPECT_EQ(error_of(unknown).first, "relay_error");
}

// The ids of the tokens named `name` in a list-tokens body, and whether each is revoked.
std::map<std::string, bool> token_ids(const std::string& tokens, std::string_view name) {
  std::map<std::string, bool> ids;
  simdjson::dom::parser parser;
  simdjson::dom::array list;
  if (parser.parse(tokens)["tokens"].get(list)) return ids;
  for (simdjson::dom::element t : list) {
    std::string_view n, id;
    if (!t["name"].get(n) && n == name && !t["id"].get(id)) ids[std::string(id)] = !t["revoked_at"].is_null();
  }
  return ids;
}

TEST_F(CliTest, TokensAuthAutoMintListAndRevoke) {
  CliUser alice = new_user();
  EXPECT_TRUE(alice.token.starts_with("buzz_")) << alice.token;
  // Only a private key: the CLI mints a 1-day token for the run and revokes it at the end.
  CliRun auto_run = run_cli({"list-tokens"}, {{"BUZZ_RELAY_URL", relay_env()}, {"BUZZ_PRIVATE_KEY", secret_hex(alice)}});
  EXPECT_EQ(auto_run.status, 0) << auto_run.err;
  const auto during = token_ids(auto_run.out, "buzz-cli-auto");
  ASSERT_EQ(during.size(), 1u) << auto_run.out;
  EXPECT_FALSE(during.begin()->second) << "the run's own token, while it ran";
  const auto after = token_ids(ok(alice, {"list-tokens"}), "buzz-cli-auto");
  ASSERT_EQ(after.size(), 1u);
  EXPECT_TRUE(after.begin()->second) << "revoked when the run ended";

  // A second `buzz auth` token, revoked by id: it stops working, the first does not.
  const auto before = token_ids(ok(alice, {"list-tokens"}), "buzz-cli");
  CliUser second = alice;
  const std::string minted = run_cli({"auth"}, {{"BUZZ_RELAY_URL", relay_env()}, {"BUZZ_PRIVATE_KEY", secret_hex(alice)}}).out;
  second.token = minted.substr(0, minted.find('\n'));
  std::string second_id;
  for (const auto& [id, revoked] : token_ids(ok(alice, {"list-tokens"}), "buzz-cli")) {
    if (!before.count(id)) second_id = id;
  }
  ASSERT_FALSE(second_id.empty());
  EXPECT_EQ(ok(alice, {"delete-token", "--id", second_id}), "");  // 204: an empty body, then the newline
  EXPECT_EQ(error_of(cli(second, {"list-tokens"})), std::make_pair(std::string("auth_error"), std::string("relay error 401: token_revoked")));
  EXPECT_EQ(cli(alice, {"list-tokens"}).status, 0);

  ok(alice, {"delete-all-tokens"});
  CliRun after_panic = cli(alice, {"list-tokens"});
  EXPECT_EQ(after_panic.status, 3);
  EXPECT_EQ(error_of(after_panic), std::make_pair(std::string("auth_error"), std::string("relay error 401: token_revoked")));
}

}  // namespace buzz::test
