// The HEAD-era control plane end to end (docs/reference/workflows.md §14): kind 30620 creates
// a workflow, 46020 triggers it, 46030 / 46031 grant or deny an approval, each
// answered in the OK ("response:{…}", or the spec's refusal) and stored once,
// never fanned out: the same event again answers "duplicate: already processed".
// Membership is the gate: an open channel's visitor cannot create, a non-member
// cannot trigger, only the named approver decides.
#include "tests/e2e/workflow_fixture.h"

namespace buzz::test {
namespace {

constexpr const char* kEcho = R"(name: Echo
trigger: {on: webhook}
steps:
  - {id: say, action: send_message, text: "deploy {{trigger.service}} is {{trigger.status}}"}
)";

// The JSON after "response:" in an OK message.
std::string response_of(const OkReply& ok) { return ok.reason.rfind("response:", 0) == 0 ? ok.reason.substr(9) : ""; }

TEST_F(WorkflowTest, CreateAndTriggerByCommand) {
  Peer owner = user(), visitor = user(), watcher = user();
  std::string channel = create_channel(owner);  // open: the visitor may read and post, not create
  subscribe(watcher, "live", h_filter(channel, "9,30620,46020"));

  OkReply no_h = owner->publish(make_event(owner.key, 30620, kEcho, {{"d", "echo"}}));
  EXPECT_FALSE(no_h.accepted);
  EXPECT_EQ(no_h.reason, "invalid: missing h tag (channel_id)");
  OkReply outsider = visitor->publish(make_event(visitor.key, 30620, kEcho, {{"h", channel}, {"d", "echo"}}));
  EXPECT_FALSE(outsider.accepted);
  EXPECT_EQ(outsider.reason, "forbidden: not a member of this channel");
  OkReply bad = owner->publish(make_event(owner.key, 30620, "name: X\ntrigger: {on: never}\nsteps: []\n", {{"h", channel}}));
  EXPECT_FALSE(bad.accepted);
  EXPECT_EQ(bad.reason.rfind("invalid: workflow YAML parse error: ", 0), 0u) << bad.reason;

  engine::Event create = make_event(owner.key, 30620, kEcho, {{"h", channel}, {"d", "echo"}, {"name", "Deploy echo"}});
  OkReply created = owner->publish(create);
  ASSERT_TRUE(created.accepted) << created.reason;
  const std::string id = json_str(response_of(created), "workflow_id");
  ASSERT_EQ(id.size(), 36u) << created.reason;
  EXPECT_EQ(json_str(response_of(created), "webhook_secret").size(), 36u);
  HttpReply got = rest(owner.key, "GET", "/api/workflows/" + id);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(json_str(got.body, "name"), "Deploy echo");
  EXPECT_EQ(json_str(got.body, "channel_id"), channel);
  // Sent again: not run again.
  OkReply again = owner->publish(create);
  EXPECT_TRUE(again.accepted);
  EXPECT_EQ(again.reason, "duplicate: already processed");
  HttpReply listed = rest(owner.key, "GET", "/api/channels/" + channel + "/workflows");
  size_t listed_count = 0;
  for (size_t at = 0; (at = listed.body.find("\"owner_pubkey\"", at)) != std::string::npos; ++at) ++listed_count;
  EXPECT_EQ(listed_count, 1u) << listed.body;

  OkReply unknown = owner->publish(make_event(owner.key, 46020, "", {{"d", new_uuid()}}));
  EXPECT_EQ(unknown.reason, "invalid: workflow not found");
  OkReply stranger = visitor->publish(make_event(visitor.key, 46020, "", {{"d", id}}));
  EXPECT_EQ(stranger.reason, "forbidden: not a member of this channel");
  OkReply not_object = owner->publish(make_event(owner.key, 46020, "[1,2]", {{"d", id}}));
  EXPECT_EQ(not_object.reason, "invalid: content must be a JSON object");
  OkReply triggered = owner->publish(make_event(owner.key, 46020, R"({"service":"api","status":"green"})", {{"e", id}}));
  ASSERT_TRUE(triggered.accepted) << triggered.reason;
  const std::string run_id = json_str(response_of(triggered), "run_id");
  auto said = watcher->wait_for([](const RelayMessage& r) { return r.type == "EVENT" && r.id == "live"; });
  ASSERT_TRUE(said.has_value());
  EXPECT_EQ(said->event.kind, 9) << "a command was fanned out";
  EXPECT_EQ(said->event.content, "deploy api is green");
  auto run = wait_run(owner, id);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->id, run_id);
  EXPECT_EQ(run->status, "completed") << run->error;
  // Stored in the channel, for its readers.
  ReqResult stored = owner->req("cmds", R"({"kinds":[30620,46020],"#h":[")" + channel + R"("]})");
  EXPECT_EQ(stored.events.size(), 2u);
}

TEST_F(WorkflowTest, ApprovalsDecidedByCommand) {
  Peer owner = user(), approver = user(), stranger = user();
  std::string channel = create_channel(owner, "private");
  add_member(owner, channel, approver);
  add_member(owner, channel, stranger);
  std::string id = create_workflow(owner, channel, R"(name: Gate
trigger: {on: webhook}
steps:
  - {id: ask, action: request_approval, from: ")" + approver.hex + R"(", message: "ship it?"}
  - {id: done, action: send_message, text: "shipped"}
)");
  subscribe(approver, "asks", R"({"kinds":[46010],"#h":[")" + channel + R"("]})");
  auto ask = [&](const std::string& fields) {  // distinct fields: distinct command ids
    OkReply t = owner->publish(make_event(owner.key, 46020, fields, {{"d", id}}));
    EXPECT_TRUE(t.accepted) << t.reason;
    EXPECT_EQ(t.reason.rfind("response:", 0), 0u) << t.reason;
    auto m = approver->wait_for([](const RelayMessage& r) { return r.type == "EVENT" && r.event.kind == 46010; });
    return m ? std::string(m->event.first_tag_value("approval")) : std::string();
  };
  const std::string hash = ask(R"({"try":"1"})");
  ASSERT_EQ(hash.size(), 64u);
  OkReply bad_hex = approver->publish(make_event(approver.key, 46030, "", {{"d", "XYZ"}}));
  EXPECT_EQ(bad_hex.reason, "invalid: approval token hash must be 64 lowercase hex characters");
  OkReply missing = approver->publish(make_event(approver.key, 46030, "", {{"d", std::string(64, '0')}}));
  EXPECT_EQ(missing.reason, "invalid: approval not found");
  OkReply wrong = stranger->publish(make_event(stranger.key, 46030, "", {{"d", hash}}));
  EXPECT_EQ(wrong.reason, "forbidden: not the designated approver for this request");
  OkReply granted = approver->publish(make_event(approver.key, 46030, "looks good", {{"d", hash}}));
  ASSERT_TRUE(granted.accepted) << granted.reason;
  EXPECT_EQ(json_str(response_of(granted), "status"), "granted");
  OkReply twice = approver->publish(make_event(approver.key, 46031, "", {{"e", hash}}));
  EXPECT_EQ(twice.reason, "invalid: approval already granted");
  auto done = wait_status(owner, id, "completed");
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->status, "completed") << done->error;
  EXPECT_NE(done->trace.find(R"("note":"looks good")"), std::string::npos) << done->trace;

  const std::string second = ask(R"({"try":"2"})");
  OkReply denied = approver->publish(make_event(approver.key, 46031, "not today", {{"d", second}}));
  ASSERT_TRUE(denied.accepted) << denied.reason;
  EXPECT_EQ(json_str(response_of(denied), "status"), "denied");
  auto cancelled = wait_status(owner, id, "cancelled");
  ASSERT_TRUE(cancelled.has_value());
  EXPECT_EQ(cancelled->status, "cancelled");
  // The decisions are stored in the private channel: its members read them, nobody else.
  Peer outsider = user();
  ReqResult hidden = outsider->req("d", R"({"kinds":[46030,46031]})");
  EXPECT_TRUE(hidden.events.empty());
}

}  // namespace
}  // namespace buzz::test
