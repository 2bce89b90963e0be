// buzz acp's pure parts: the agent-argument rules, the
// configuration's checks and messages, the prompt text of §A.7 and the
// per-channel queue of §A.5.1. The harness itself runs against a real relay
// and real ACP agents in tests/e2e/js/acp.test.mjs.
#include <gtest/gtest.h>

#include <cstdlib>

#include "engine/nip19.h"
#include "engine/signature.h"
#include "tools/acp/acp_config.h"
#include "tools/acp/agent_process.h"
#include "tools/acp/channel_queue.h"
#include "tools/acp/prompt_text.h"
#include "tools/acp/rules.h"

namespace buzz::acp {
namespace {

TEST(AcpAgentArgs, FollowTheAgentsIdentity) {
  EXPECT_EQ(normalize_agent_args("goose", {}), std::vector<std::string>{"acp"});
  EXPECT_EQ(normalize_agent_args("/usr/bin/Codex-ACP.exe", {}), std::vector<std::string>{});
  EXPECT_EQ(normalize_agent_args("claude_code", {"acp"}), std::vector<std::string>{});  // the old goose default
  EXPECT_EQ(normalize_agent_args("my-agent", {" --fast ", "", "x"}), (std::vector<std::string>{"--fast", "x"}));
  EXPECT_EQ(normalize_agent_args("goose", {" ", ""}), std::vector<std::string>{"acp"});
}

// parse_config with these arguments after `buzz acp`, in a clean environment.
std::optional<Config> parse_acp_args(std::vector<std::string> args, std::string* error) {
  for (const char* name : {"BUZZ_PRIVATE_KEY", "BUZZ_API_TOKEN", "BUZZ_ACP_IDLE_TIMEOUT", "BUZZ_ACP_AGENTS"}) unsetenv(name);
  std::vector<std::string> all = {"buzz", "acp"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  bool help = false;
  return parse_config(int(argv.size()), argv.data(), 2, error, &help);
}

const std::string kKey = std::string(63, '0') + "1";

TEST(AcpConfig, DefaultsAndTheSpecsMessages) {
  std::string error;
  auto c = parse_acp_args({"--private-key", kKey, "--mcp-command", ""}, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->rest_url, "http://localhost:3000");
  EXPECT_EQ(c->agent_args, std::vector<std::string>{"acp"});
  EXPECT_EQ(c->idle_timeout_s, 320u);
  EXPECT_EQ(c->permission_mode, "bypassPermissions");
  EXPECT_TRUE(c->mcp_command.empty());

  EXPECT_FALSE(parse_acp_args({"--private-key", kKey, "--idle-timeout", "60", "--max-turn-duration", "60"}, &error));
  EXPECT_EQ(error, "idle_timeout (60s) must be less than max_turn_duration (60s)");
  EXPECT_FALSE(parse_acp_args({"--private-key", kKey, "--agent-command", " "}, &error));
  EXPECT_EQ(error, "agent_command must not be empty");
  EXPECT_FALSE(parse_acp_args({"--private-key", kKey, "--heartbeat-interval", "5"}, &error));
  EXPECT_EQ(error, "heartbeat interval must be 0 (disabled) or ≥10 seconds");
  EXPECT_FALSE(parse_acp_args({"--private-key", kKey, "--respond-to", "allowlist"}, &error));
  EXPECT_EQ(error, "--respond-to=allowlist requires --respond-to-allowlist with at least one pubkey");
  EXPECT_FALSE(parse_acp_args({"--private-key", kKey, "--respond-to=allowlist", "--respond-to-allowlist", "abc"}, &error));
  EXPECT_EQ(error, "invalid pubkey in --respond-to-allowlist: 'abc' (must be exactly 64 hex characters)");
  EXPECT_FALSE(parse_acp_args({"--private-key", kKey, "--agents", "33"}, &error));
  EXPECT_FALSE(parse_acp_args({"--private-key", kKey, "--multiple-event-handling", "interrupt", "--dedup", "drop"}, &error));
  EXPECT_FALSE(parse_acp_args({"--private-key", "nope"}, &error));
  EXPECT_FALSE(parse_acp_args({"--bogus"}, &error));
  EXPECT_EQ(error, "unexpected argument '--bogus' found");

  c = parse_acp_args({"--private-key", kKey, "--idle-timeout", "0", "--max-turn-duration", "0", "--heartbeat-interval", "999999",
             "--permission-mode", "acceptEdits", "--channels", "not-a-uuid,0190f3c2-aaaa-7bbb-8ccc-123456789abc"},
            &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->idle_timeout_s, 1u);
  EXPECT_EQ(c->max_turn_duration_s, 60u);
  EXPECT_EQ(c->heartbeat_interval_s, 86400u);
  EXPECT_EQ(c->permission_mode, "acceptEdits");
  EXPECT_EQ(c->channels, std::vector<std::string>{"0190f3c2-aaaa-7bbb-8ccc-123456789abc"});
}

TEST(AcpConfig, FlagsWinOverTheEnvironmentAndNsecIsAKey) {
  std::string error;
  const engine::Keypair k = engine::generate_keypair();
  setenv("BUZZ_ACP_AGENTS", "3", 1);
  std::vector<std::string> all = {"buzz", "acp", "--private-key", engine::encode_nsec(k.secret), "--agents", "2"};
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  bool help = false;
  auto c = parse_config(int(argv.size()), argv.data(), 2, &error, &help);
  unsetenv("BUZZ_ACP_AGENTS");
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->agents, 2);
  EXPECT_EQ(c->key.pubkey, k.pubkey);
}

TEST(AcpConfig, TheHeadAdditions) {
  std::string error;
  auto c = parse_acp_args({"--private-key", kKey}, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_FALSE(c->agent_owner);
  EXPECT_EQ(c->turn_liveness_s, 10u);
  ASSERT_TRUE(c->base_prompt) << "on by default";
  EXPECT_NE(c->base_prompt->find("buzz send-message"), std::string::npos);

  const engine::Keypair owner = engine::generate_keypair();
  const std::string owner_hex = engine::to_hex(owner.pubkey);
  c = parse_acp_args({"--private-key", kKey, "--agent-owner", engine::encode_npub(owner.pubkey), "--no-base-prompt",
             "--turn-liveness-secs", "0"},
            &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->agent_owner, owner_hex) << "an npub is read as its hex";
  EXPECT_FALSE(c->base_prompt);
  EXPECT_EQ(c->turn_liveness_s, 1u) << "0 is raised to 1";
  c = parse_acp_args({"--private-key", kKey, "--agent-owner", " " + owner_hex + " "}, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->agent_owner, owner_hex);

  c = parse_acp_args({"--private-key", kKey, "--respond-to", "allowlist", "--respond-to-allowlist", owner_hex + "," + owner_hex}, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->respond_to_allowlist, std::set<std::string>{owner_hex});

  EXPECT_FALSE(parse_acp_args({"--private-key", kKey, "--agent-owner", "alice"}, &error));
  EXPECT_EQ(error, "invalid --agent-owner: 'alice' (expected 64 hex characters or npub1…)");
  EXPECT_FALSE(parse_acp_args({"--private-key", kKey, "--no-base-prompt", "--base-prompt-file", "/dev/null"}, &error));
  EXPECT_EQ(error, "--no-base-prompt and --base-prompt-file are mutually exclusive");
  EXPECT_FALSE(parse_acp_args({"--private-key", kKey, "--base-prompt-file", "/nonexistent/base.md"}, &error));
  EXPECT_NE(error.find("/nonexistent/base.md"), std::string::npos) << error;
}

engine::Event message(const std::string& content, std::vector<engine::Tag> tags, uint64_t at = 1767268800) {
  return engine::signed_event(engine::generate_keypair(), 9, at, std::move(tags), content);
}

TEST(AcpPrompt, OneMentionInAChannel) {
  const std::string me(64, 'a');
  engine::Event e = message("hello @bot", {{"h", "c1"}, {"p", me}});
  PromptInput in;
  in.channel = {"c1", "general", "stream"};
  in.events = {{e, "@mention"}};
  in.labels = {{e.pubkey_hex(), "Alice"}, {me, "Bot"}};
  const std::string text = build_prompt(in);
  const std::string expected =
      "[Context]\nScope: channel\nChannel: general (#c1)\nHint: Use get_channel_history() for recent messages if needed.\n\n"
      "[Buzz event: @mention]\nEvent ID: " + e.id_hex() + "\nChannel: general (#c1)\nKind: 9\nFrom: Alice (npub: " +
      engine::encode_npub(e.pubkey) + ", hex: " + e.pubkey_hex() + ")\nTime: 2026-01-01T12:00:00+00:00\n"
      "Content: hello @bot\nTags: [[\"h\",\"c1\"],[\"p\",\"" + me + "\"]]\nParsed: mentions=[Bot (" + me + ")]";
  EXPECT_EQ(text, expected);
}

TEST(AcpPrompt, ThreadReplyWithContextAndABatchAfterAnInterruption) {
  const std::string root(64, '1'), parent(64, '2');
  engine::Event reply = message("and now?", {{"h", "c1"}, {"e", root, "", "root"}, {"e", parent, "", "reply"}});
  engine::Event earlier = message("first", {{"h", "c1"}});
  PromptInput in;
  in.system_prompt = "Be brief.";
  in.channel = {"c1", "", "stream"};
  in.cancelled = {{earlier, "@mention"}};
  in.events = {{earlier, "@mention"}, {reply, "@mention"}};
  in.context = ContextBlock{true, {{reply.pubkey_hex(), 1767268800, "the root"}}, 3, true};
  const std::string text = build_prompt(in);
  EXPECT_TRUE(text.starts_with("[System]\nBe brief.\n\n[Context]\nScope: thread\nChannel: c1\nThread root: " + root +
                               "\nParent: " + parent + "\nHint: Thread context included below.\n\n"
                               "[Thread Context (1 of 3 messages, truncated)]\n[1] " + reply.pubkey_hex() + " (" +
                               reply.pubkey_hex() + ") (2026-01-01T12:00:00+00:00): the root\n\n"
                               "[Previous request — interrupted before completion]\n\n--- Event 1 (@mention) ---\n"))
      << text;
  EXPECT_NE(text.find("[New request — supersedes previous — 2 events]\n\n--- Event 1 (@mention) ---"), std::string::npos);
  EXPECT_NE(text.find("Parsed: parent=" + parent + ", root=" + root), std::string::npos);
  EXPECT_NE(text.find("From: npub1"), std::string::npos);  // no label: the npub
}

TEST(AcpPrompt, ThreadTagsNeedAMarkerAndLabelsAreSanitised) {
  engine::Event short_tag = message("x", {{"e", std::string(64, '1')}});
  EXPECT_FALSE(thread_ref(short_tag).root);
  engine::Event root_only = message("x", {{"e", std::string(64, '1'), "", "root"}});
  EXPECT_EQ(thread_ref(root_only).parent, std::string(64, '1'));
  EXPECT_EQ(sanitize_label("  Al\x01ice\n "), "Alice");
  EXPECT_EQ(sanitize_label(std::string(70, 'x')).size(), 64u);
  EXPECT_EQ(sanitize_label("ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé").size(), 128u);
}

TEST(AcpQueue, OneBatchPerChannelOldestFirstAndRetriesAtTheFront) {
  ChannelQueues q;
  const auto now = Clock::now();
  q.push("b", {message("b1", {}), "t"});
  q.push("a", {message("a1", {}), "t"});
  q.push("a", {message("a2", {}), "t"});
  EXPECT_EQ(q.next_ready(now), "b");
  auto batch = q.take_batch("b", now);
  EXPECT_EQ(batch.size(), 1u);
  EXPECT_EQ(q.next_ready(now), "a");
  q.push("b", {message("b2", {}), "t"});
  auto a = q.take_batch("a", now);
  EXPECT_EQ(a.size(), 2u);
  EXPECT_FALSE(q.next_ready(now)) << "b is in flight, a too";
  ASSERT_TRUE(q.requeue("b", batch, now));
  EXPECT_FALSE(q.next_ready(now)) << "b waits its backoff";
  EXPECT_EQ(q.next_ready(now + std::chrono::seconds(7)), "b");
  auto again = q.take_batch("b", now);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].event.content, "b1") << "the failed batch comes back first";
  for (int i = 0; i < 60; ++i) q.push("c", {message("c", {}), "t"});
  EXPECT_EQ(q.take_batch("c", now).size(), ChannelQueues::kBatch);
  EXPECT_EQ(retry_backoff(1), std::chrono::seconds(5));
  EXPECT_EQ(retry_backoff(3), std::chrono::seconds(20));
  EXPECT_EQ(retry_backoff(10), std::chrono::seconds(300));
}

TEST(AcpQueue, AFullQueueDropsItsOldest) {
  ChannelQueues q;
  for (size_t i = 0; i < ChannelQueues::kCapacity; ++i) EXPECT_TRUE(q.push("a", {message(std::to_string(i), {}, 100 + i), "t"}));
  EXPECT_FALSE(q.push("a", {message("late", {}), "t"}));
  EXPECT_EQ(q.waiting("a"), ChannelQueues::kCapacity);
  EXPECT_EQ(q.first_dropped("a"), 100u);
  EXPECT_EQ(q.take_batch("a", Clock::now())[0].event.content, "1");
}

TEST(AcpQueue, ABatchInFlightPastItsDeadlineIsClearedAsStuck) {
  ChannelQueues q;
  const auto t0 = Clock::now();
  const auto deadline = std::chrono::seconds(3700);
  q.push("a", {message("a1", {}), "t"});
  q.push("b", {message("b1", {}), "t"});
  q.take_batch("a", t0);
  q.take_batch("b", t0 + std::chrono::seconds(100));
  q.push("a", {message("a2", {}), "t"});
  EXPECT_TRUE(q.clear_stuck(t0 + deadline, deadline).empty()) << "exactly at the deadline is not past it";
  EXPECT_FALSE(q.next_ready(t0 + deadline));
  EXPECT_EQ(q.clear_stuck(t0 + deadline + std::chrono::seconds(1), deadline), std::vector<std::string>{"a"});
  EXPECT_FALSE(q.in_flight("a"));
  EXPECT_TRUE(q.in_flight("b")) << "b went in flight later";
  EXPECT_EQ(q.next_ready(t0 + deadline), "a") << "a's next events are served again";
}

// --turn-liveness-secs: an agent that exits while a child it started still
// holds its stdout ends the read at the next check, not at the turn's deadline.
TEST(AcpAgentProcess, AnAgentThatExitedIsNoticedThoughItsStdoutIsStillOpen) {
  AgentProcess agent;
  agent.set_liveness(std::chrono::milliseconds(100));
  std::string error, line;
  ASSERT_TRUE(agent.start("sh", {"-c", "sleep 30 & exit 0"}, &error)) << error;
  const auto start = Clock::now();
  EXPECT_EQ(agent.read_line(&line, start + std::chrono::seconds(60)), AgentProcess::Read::kEof);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(30)) << "it waited for the child's end";
  agent.stop();  // the sleep dies with the agent's process group
}

TEST(AcpRules, ARulesFileIsReadAndMatchedInOrder) {
  const std::string ch = "0190f3c2-aaaa-7bbb-8ccc-123456789abc";
  auto rules = parse_rules(R"(
# deploys anywhere, mentions in one channel
[[rules]]
name = "deploys"
channels = "all"
kinds = [9, 40002]
filter = 'str_contains(content, "deploy") && kind == 9'
prompt_tag = "deploy-request"

[[rules]]
name = "mentions-here"
channels = [")" + ch + R"("]
require_mention = true
)");
  ASSERT_TRUE(rules) << rules.error();
  ASSERT_EQ(rules->size(), 2u);
  const std::string me(64, 'a');
  engine::Event deploy = message("please deploy", {});
  Rule* r = match_rule(*rules, deploy, "other", me);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->prompt_tag, "deploy-request");
  EXPECT_FALSE(match_rule(*rules, message("hello", {}), ch, me)) << "no mention";
  r = match_rule(*rules, message("hello", {{"p", me}}), ch, me);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->prompt_tag, "mentions-here") << "defaults to the name";
  EXPECT_FALSE(match_rule(*rules, message("hello", {{"p", me}}), "other", me)) << "not its channel";

  auto merged = channel_filter(*rules, ch);
  ASSERT_TRUE(merged);
  EXPECT_TRUE(merged->kinds.empty()) << "the second rule takes every kind";
  EXPECT_FALSE(merged->require_mention) << "not every rule requires it";
  merged = channel_filter(*rules, "other");
  EXPECT_EQ(merged->kinds, (std::vector<int>{9, 40002}));
}

TEST(AcpRules, LoadErrorsHaveTheSpecsMessages) {
  EXPECT_EQ(parse_rules("[[rules]]\nname = \" \"\n").error(), "rule name must not be empty");
  EXPECT_EQ(parse_rules("[[rules]]\nname = \"a\"\n[[rules]]\nname = \"a\"\n").error(), "duplicate rule name: a");
  EXPECT_EQ(parse_rules("[[rules]]\nname = \"a\"\nchannels = \"some\"\n").error(),
            "rule 'a': channels must be \"all\" or a list, got \"some\"");
  EXPECT_EQ(parse_rules("[[rules]]\nname = \"a\"\nfilter = \"" + std::string(4097, 'x') + "\"\n").error(),
            "rule 'a': filter too long (4097 bytes, max 4096)");
  EXPECT_TRUE(parse_rules("[[rules]]\nname = \"a\"\nfilter = \"kind ==\"\n").error().starts_with(
      "rule 'a': invalid filter expression: "));
  std::string many;
  for (int i = 0; i < 101; ++i) many += "[[rules]]\nname = \"r" + std::to_string(i) + "\"\n";
  EXPECT_EQ(parse_rules(many).error(), "too many rules (101, max 100)");
}

TEST(AcpRules, AFilterThatFailsMatchesNothingAtAll) {
  auto rules = parse_rules("[[rules]]\nname = \"a\"\nfilter = 'content'\n[[rules]]\nname = \"b\"\n");
  ASSERT_TRUE(rules) << rules.error();
  EXPECT_FALSE(match_rule(*rules, message("x", {}), "c", std::string(64, 'a'))) << "a non-boolean result: fail closed";
  rules = parse_rules("[[rules]]\nname = \"a\"\nfilter = 'kind == 1'\n[[rules]]\nname = \"b\"\n");
  ASSERT_TRUE(rules);
  Rule* r = match_rule(*rules, message("x", {}), "c", std::string(64, 'a'));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "b") << "false moves on to the next rule";
}

}  // namespace
}  // namespace buzz::acp
