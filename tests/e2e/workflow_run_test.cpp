// Workflow runs against the real binary (docs/reference/workflows.md §4–§9, §13): each
// trigger fires and a non-matching one does not; each action's visible effect
// (a message in the channel, a DM, a topic, a reaction, a webhook received by a
// local receiver with its templated body); loop prevention; the complete
// examples of §15; the run records.
#include "tests/e2e/workflow_fixture.h"

namespace buzz::test {
namespace {

// The REST JSON of one channel's field.
std::string channel_field(const engine::Keypair& key, const std::string& channel, const char* field,
                          RelayProcess& relay) {
  const std::string path = "/api/channels/" + channel;
  const std::string url = "http://127.0.0.1:" + std::to_string(relay.port()) + path;
  HttpReply r = http_call(relay.port(), "GET", path, {{"Authorization", nip98_header(key, url, "GET", "")}});
  return json_str(r.body, field);
}

TEST_F(WorkflowTest, MessagePostedWithFilterSendsAMessageSubscribersSee) {
  Peer owner = user(), watcher = user();
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, R"(name: Triage
trigger:
  on: message_posted
  filter: 'str_contains(trigger_text, "P1")'
steps:
  - id: ack
    action: send_message
    text: "P1 noted from {{trigger.author | truncate_pubkey}}: {{trigger.text | truncate(20)}}"
)");
  subscribe(watcher, "live", h_filter(channel));
  post(owner, channel, "nothing to see");  // no match: no run
  engine::Event p1 = post(owner, channel, "P1 database is down, all hands");
  auto m = watcher->wait_for([&](const RelayMessage& r) {
    return r.type == "EVENT" && r.event.content.starts_with("P1 noted from");
  });
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->event.content, "P1 noted from " + owner.hex.substr(0, 6) + "..." + owner.hex.substr(58) +
                                  ": P1 database is down,");
  EXPECT_TRUE(has_tag(m->event, {"p", owner.hex}));
  EXPECT_TRUE(has_tag(m->event, {"h", channel}));
  EXPECT_TRUE(has_tag(m->event, {"buzz:workflow", "true"}));
  auto run = wait_run(owner, id);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "completed") << run->error;
  EXPECT_NE(run->trace.find(R"("sent":true)"), std::string::npos) << run->trace;
  EXPECT_NE(run->trace.find(m->event.id_hex()), std::string::npos);
  // The workflow's own message contains "P1" but never triggers a workflow.
  // Events are matched in the order they were stored: once a later P1 has
  // its run, the own message (stored before the first run ended) has been seen.
  post(owner, channel, "P1 again");
  ASSERT_TRUE(watcher->wait_for([&](const RelayMessage& r) { return r.type == "EVENT" && r.event.content.ends_with(": P1 again"); }));
  EXPECT_EQ(runs(owner, id).size(), 2u);
}

TEST_F(WorkflowTest, ReactionAddedWithEmojiReactsDmsAndSetsTheTopic) {
  Peer owner = user(), member = user();
  std::string channel = create_channel(owner);
  add_member(owner, channel, member);
  std::string id = create_workflow(owner, channel, R"(name: Ticket
trigger:
  on: reaction_added
  emoji: "🎫"
steps:
  - id: react
    action: add_reaction
    emoji: "✅"
  - id: dm
    action: send_dm
    to: "{{trigger.author}}"
    text: "ticket filed for {{trigger.message_id}}"
  - id: topic
    action: set_channel_topic
    topic: "last ticket: {{trigger.message_id | truncate(8)}}"
)");
  engine::Event msg = post(member, channel, "please file this");
  OkReply wrong = member->publish(make_event(member.key, 7, "👍", {{"e", msg.id_hex()}}));
  ASSERT_TRUE(wrong.accepted) << wrong.reason;
  OkReply ticket = member->publish(make_event(member.key, 7, "🎫", {{"e", msg.id_hex()}}));
  ASSERT_TRUE(ticket.accepted) << ticket.reason;
  auto run = wait_run(owner, id);
  ASSERT_TRUE(run.has_value());
  ASSERT_EQ(run->status, "completed") << run->error;
  EXPECT_EQ(runs(owner, id).size(), 1u);  // the 👍 did not fire
  // The reaction is stored for the owner.
  ReqResult reactions = member->req("r", R"({"kinds":[7],"#e":[")" + msg.id_hex() + R"("]})");
  bool found = false;
  for (const engine::Event& e : reactions.events) found |= e.content == "✅" && has_tag(e, {"actor", owner.hex});
  EXPECT_TRUE(found);
  // The DM reached the member: a message from the owner in their DM (live
  // subscriptions to channel events need the #h, so read it from history).
  ReqResult dms = member->req("d", R"({"kinds":[9],"#p":[")" + owner.hex + R"("]})");
  bool dm = false;
  for (const engine::Event& e : dms.events) dm |= e.content == "ticket filed for " + msg.id_hex();
  EXPECT_TRUE(dm);
  // The topic changed, set by the owner.
  EXPECT_EQ(channel_field(owner.key, channel, "topic", relay()), "last ticket: " + msg.id_hex().substr(0, 8));
}

TEST_F(WorkflowTest, ANonMembersWorkflowCannotPostToAPrivateChannel) {
  Peer owner = user(), admin = user();
  std::string channel = create_channel(admin, "private");
  add_member(admin, channel, owner);
  std::string id = create_workflow(owner, channel, "name: W\ntrigger: {on: webhook}\nsteps:\n"
                                                   "  - {id: say, action: send_message, text: hello}\n");
  ASSERT_FALSE(id.empty());
  // The owner leaves the channel: the workflow may no longer act in it.
  OkReply removed = admin->publish(make_event(admin.key, 9001, unique_text("rm"), {{"h", channel}, {"p", owner.hex}}));
  ASSERT_TRUE(removed.accepted) << removed.reason;
  EXPECT_EQ(rest(owner.key, "GET", "/api/workflows/" + id).status, 403);
  HttpReply trig = rest(admin.key, "POST", "/api/workflows/" + id + "/trigger");
  ASSERT_EQ(trig.status, 202) << trig.body;
  auto run = wait_run(admin, id);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "failed");
  ReqResult msgs = admin->req("m", h_filter(channel));
  ASSERT_TRUE(msgs.eose);
  for (const engine::Event& e : msgs.events) EXPECT_NE(e.content, "hello");
}

// Two reactions in one instant fire two runs that write the same reaction event:
// the one that finds it stored already ends at once, not after the commit wait.
TEST_F(WorkflowTest, TwoRunsWritingOneReactionBothEndAtOnce) {
  Peer owner = user(), a = user(), b = user();
  std::string channel = create_channel(owner);
  add_member(owner, channel, a);
  add_member(owner, channel, b);
  std::string id = create_workflow(owner, channel, R"(name: Seen
trigger:
  on: reaction_added
  emoji: "👀"
steps:
  - id: react
    action: add_reaction
    emoji: "✅"
)");
  engine::Event msg = post(owner, channel, "look at this");
  const engine::Event ra = make_event(a.key, 7, "👀", {{"e", msg.id_hex()}});
  const engine::Event rb = make_event(b.key, 7, "👀", {{"e", msg.id_hex()}});
  ASSERT_TRUE(a->send(R"(["EVENT",)" + ra.raw + "]"));
  ASSERT_TRUE(b->send(R"(["EVENT",)" + rb.raw + "]"));
  ASSERT_TRUE(a->wait_ok(ra.id_hex()).accepted);
  ASSERT_TRUE(b->wait_ok(rb.id_hex()).accepted);
  auto both = wait_newest(owner, id, [&](const RunView&) {
    auto all = runs(owner, id);
    return all.size() == 2 && all[0].status == "completed" && all[1].status == "completed";
  }, 5000);
  ASSERT_TRUE(both.has_value());
  const std::vector<RunView> all = runs(owner, id);
  ASSERT_EQ(all.size(), 2u);
  for (const RunView& r : all) EXPECT_EQ(r.status, "completed") << r.error;
  ReqResult reactions = owner->req("r", R"({"kinds":[7],"#e":[")" + msg.id_hex() + R"("]})");
  int checks = 0;
  for (const engine::Event& e : reactions.events) checks += e.content == "✅";
  EXPECT_EQ(checks, 1);
}

TEST_F(WorkflowTest, ManualTriggerAndWebhookTriggerBothPaths) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  HttpReply created;
  std::string id = create_workflow(owner, channel, R"(name: Deploy watcher
trigger:
  on: webhook
steps:
  - id: announce
    action: send_message
    text: "Deploy of {{trigger.service}} finished with status {{trigger.status}} by [{{trigger.author}}]."
)", &created);
  const std::string secret = json_str(created.body, "webhook_secret");
  subscribe(owner, "live", h_filter(channel));
  const std::string body = R"({"service":"api","status":"ok"})";
  EXPECT_EQ(http_call(relay().port(), "POST", "/api/workflows/" + id + "/webhook", {{"X-Webhook-Secret", "wrong"}}, body).body,
            R"({"error":"authentication failed"})");
  EXPECT_EQ(http_call(relay().port(), "POST", "/hooks/" + id + "?secret=" + secret.substr(1), {}, body).status, 401);
  EXPECT_EQ(http_call(relay().port(), "POST", "/hooks/" + id, {{"X-Webhook-Secret", secret}}, "{bad").status, 400);
  HttpReply fired = http_call(relay().port(), "POST", "/api/workflows/" + id + "/webhook", {{"X-Webhook-Secret", secret}}, body);
  ASSERT_EQ(fired.status, 202) << fired.body;
  EXPECT_EQ(json_str(fired.body, "status"), "pending");
  EXPECT_EQ(json_str(fired.body, "workflow_id"), id);
  auto m = owner->wait_for([&](const RelayMessage& r) { return r.type == "EVENT" && r.event.content.starts_with("Deploy of"); });
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->event.content, "Deploy of api finished with status ok by [].");
  // The same body again within the second: a second message, not the first one stored twice.
  HttpReply hooked = http_call(relay().port(), "POST", "/hooks/" + id + "?secret=" + secret, {}, body);
  EXPECT_EQ(hooked.status, 202) << hooked.body;
  auto again = owner->wait_for([&](const RelayMessage& r) {
    return r.type == "EVENT" && r.event.content.starts_with("Deploy of api") && r.event.id != m->event.id;
  });
  ASSERT_TRUE(again.has_value());
  // Manual trigger: author is the caller (Buzz decision).
  HttpReply manual = rest(owner.key, "POST", "/api/workflows/" + id + "/trigger", R"({"service":"web","status":"x"})");
  ASSERT_EQ(manual.status, 202) << manual.body;
  auto m2 = owner->wait_for([&](const RelayMessage& r) {
    return r.type == "EVENT" && r.event.content.starts_with("Deploy of web");
  });
  ASSERT_TRUE(m2.has_value());
  EXPECT_EQ(m2->event.content, "Deploy of web finished with status x by [" + owner.hex + "].");
  auto run = wait_run(owner, id, 3);
  ASSERT_TRUE(run.has_value());
  const std::vector<RunView> all = runs(owner, id);
  ASSERT_EQ(all.size(), 3u);
  for (const RunView& r : all) EXPECT_EQ(r.status, "completed") << r.error;
  // /metrics counts runs by trigger and steps by action.
  const std::string metrics = http_get(relay().port(), "/metrics").body;
  EXPECT_GE(metric_value(metrics, R"(buzz_workflow_runs_total{trigger="webhook"})"), 2);
  EXPECT_GE(metric_value(metrics, R"(buzz_workflow_runs_total{trigger="manual"})"), 1);
  EXPECT_GE(metric_value(metrics, R"(buzz_workflow_actions_total{action="send_message"})"), 1);
  EXPECT_GE(metric_value(metrics, "buzz_workflow_approvals_pending"), 0);
}

TEST_F(WorkflowTest, CallWebhookPostsTheTemplatedBodyAndBranchesOnStatus) {
  HttpReceiver receiver;
  receiver.respond(201, R"({"ticket":42})");
  Peer owner = user();
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, R"(name: Ticket on reaction
trigger:
  on: webhook
steps:
  - id: create
    action: call_webhook
    url: ")" + receiver.url("/api/issues") + R"("
    headers:
      Content-Type: application/json
      X-Source: "{{trigger.service}}"
    body: '{"source_message": "{{trigger.message_id}}", "service": "{{trigger.service}}"}'
    timeout_secs: 20
  - id: ok
    if: "steps_create_output_status == 201"
    action: send_message
    text: "Ticket created: {{steps.create.output.body}}"
  - id: failed
    if: "steps_create_output_status != 201"
    action: send_message
    text: "Ticket creation failed (HTTP {{steps.create.output.status}})."
)");
  ASSERT_FALSE(id.empty());
  HttpReply fired = rest(owner.key, "POST", "/api/workflows/" + id + "/trigger", R"({"service":"billing"})");
  ASSERT_EQ(fired.status, 202);
  ASSERT_TRUE(receiver.wait_for(1));
  ReceivedRequest got = receiver.received()[0];
  EXPECT_EQ(got.method, "POST");
  EXPECT_EQ(got.target, "/api/issues");
  EXPECT_EQ(got.body, R"({"source_message": "", "service": "billing"})");
  EXPECT_NE(got.head.find("X-Source: billing"), std::string::npos) << got.head;
  EXPECT_NE(got.head.find("Content-Type: application/json"), std::string::npos);
  auto run = wait_run(owner, id);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "completed") << run->error;
  EXPECT_NE(run->trace.find(R"({"status":201,"body":"{\"ticket\":42}"})"), std::string::npos) << run->trace;
  EXPECT_NE(run->trace.find(R"("status":"skipped","step_id":"failed")"), std::string::npos) << run->trace;
}

TEST_F(WorkflowTest, CallWebhookNeverFollowsARedirectToAnInternalAddress) {
  HttpReceiver receiver;
  receiver.respond(302, "", "Location: http://169.254.169.254/latest/meta-data\r\n");
  Peer owner = user();
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, "name: R\ntrigger: {on: webhook}\nsteps:\n"
                                                   "  - {id: call, action: call_webhook, method: GET, url: '" +
                                                       receiver.url("/go") + "'}\n");
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + id + "/trigger").status, 202);
  auto run = wait_run(owner, id);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "completed") << run->error;
  EXPECT_NE(run->trace.find(R"("status":302)"), std::string::npos) << run->trace;
  EXPECT_EQ(receiver.received().size(), 1u);
}

TEST_F(WorkflowTest, FailingStepsRecordTheirErrors) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  // §15.1's pitfall: a condition that references a skipped step's output fails the run.
  std::string id = create_workflow(owner, channel, R"(name: Pitfall
trigger: {on: webhook}
steps:
  - id: page
    if: 'str_contains(trigger_text, "production")'
    action: send_message
    text: paged
  - id: report
    if: 'str_contains(trigger_text, "production") && steps_page_output_sent'
    action: send_message
    text: reported
)");
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + id + "/trigger").status, 202);
  auto run = wait_run(owner, id);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "failed");
  EXPECT_EQ(run->current_step, 1);
  EXPECT_EQ(run->error.rfind("condition evaluation error: 'str_contains(trigger_text, \"production\") && steps_page_output_sent': ", 0), 0u)
      << run->error;
  // A template error fails the step.
  std::string bad = create_workflow(owner, channel, "name: T\ntrigger: {on: webhook}\nsteps:\n"
                                                    "  - {id: s, action: send_message, text: '{{trigger.text | shout}}'}\n");
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + bad + "/trigger").status, 202);
  auto failed = wait_run(owner, bad);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->error, "template error: unknown filter: shout");
}

// The relay narrates each run with kinds 46001–46006 (docs/reference/workflows.md §12), in order.
TEST_F(WorkflowTest, ExecutionEventsNarrateTheRun) {
  HttpReceiver receiver;
  receiver.respond(200, std::string(5000, 'x'));
  Peer owner = user();
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, R"(name: Narrated
trigger: {on: webhook}
steps:
  - {id: hello, action: send_message, text: "hello"}
  - {id: skipped, if: 'trigger_text == "never"', action: send_message, text: "no"}
  - {id: big, action: call_webhook, url: ")" + receiver.url("/big") + R"("}
  - {id: oops, action: send_dm, to: "not-a-pubkey", text: "hi"}
)");
  subscribe(owner, "narration", h_filter(channel, "46001,46002,46003,46004,46005,46006"));
  HttpReply started = rest(owner.key, "POST", "/api/workflows/" + id + "/trigger");
  ASSERT_EQ(started.status, 202) << started.body;
  const std::string run_id = json_str(started.body, "run_id");
  std::vector<engine::Event> told;
  while (told.empty() || told.back().kind != 46006) {
    auto m = owner->wait_for([](const RelayMessage& r) { return r.type == "EVENT" && r.id == "narration"; });
    ASSERT_TRUE(m.has_value()) << told.size() << " events before the wait ended";
    told.push_back(m->event);
  }
  std::vector<uint16_t> kinds;
  for (const engine::Event& e : told) {
    kinds.push_back(e.kind);
    EXPECT_TRUE(has_tag(e, {"workflow", id, "Narrated"}));  // its name too, for people
    EXPECT_TRUE(has_tag(e, {"run", run_id}));
    EXPECT_TRUE(has_tag(e, {"buzz:workflow", "true"}));
  }
  EXPECT_EQ(kinds, (std::vector<uint16_t>{46001, 46002, 46003, 46002, 46003, 46002, 46004, 46006}));
  EXPECT_EQ(told[0].content, R"({"trigger":"manual"})");
  EXPECT_TRUE(has_tag(told[1], {"step", "hello"}));
  EXPECT_EQ(told[1].content, R"({"action":"send_message","step_index":0})");
  EXPECT_EQ(told[2].content.rfind(R"({"output":{"sent":true,"event_id":)", 0), 0u) << told[2].content;
  EXPECT_TRUE(told[2].content.ends_with(R"("},"step_index":0})")) << told[2].content;
  // An output past 4 KiB is announced as its first 4 KiB, in a JSON string.
  ASSERT_EQ(told[4].content.rfind(R"({"output":"{\"status\":200,\"body\":\"xxx)", 0), 0u) << told[4].content.substr(0, 40);
  EXPECT_LT(told[4].content.size(), 4200u);
  EXPECT_TRUE(has_tag(told[6], {"step", "oops"}));
  EXPECT_EQ(told[6].content, R"({"error":"invalid definition: SendDm: 'to' must be a 64-char hex pubkey","step_index":3})");
}

TEST_F(WorkflowTest, CronScheduleFiresOnTheTick) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, R"(name: Every second
trigger:
  on: schedule
  cron: "* * * * * *"
steps:
  - id: tick
    action: send_message
    text: "tick at {{trigger.timestamp}}"
)");
  auto run = wait_run(owner, id, 1, 15000);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "completed") << run->error;
  // Disabled: no more runs.
  HttpReply off = rest(owner.key, "PUT", "/api/workflows/" + id,
                       wf_body("name: Every second\nenabled: false\ntrigger:\n  on: schedule\n  cron: '* * * * * *'\n"
                               "steps:\n  - {id: tick, action: send_message, text: x}\n"));
  ASSERT_EQ(off.status, 200) << off.body;
  ASSERT_TRUE(await_ticks());  // a tick under way at the PUT may still have fired
  size_t count = runs(owner, id).size();
  ASSERT_TRUE(await_ticks());  // a whole tick since, which would have fired
  EXPECT_EQ(runs(owner, id).size(), count);
  EXPECT_EQ(rest(owner.key, "POST", "/api/workflows/" + id + "/trigger").body, R"({"error":"workflow is not active"})");
}

// An interval schedule fires one interval after the scheduler first sees it
// (docs/reference/workflows.md §4.2, Buzz decision; the unit tests cover restarts and pruning).
// The shortest interval is 60 s: the test moves the relay's clock instead of waiting.
TEST_F(WorkflowTest, IntervalScheduleFiresOneIntervalAfterItIsSeen) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, R"(name: Every minute
trigger:
  on: schedule
  interval: "60s"
steps:
  - {id: tick, action: send_message, text: "a minute passed"}
)");
  ASSERT_TRUE(await_ticks());  // the scheduler has seen it
  std::string error;
  ASSERT_TRUE(relay().advance_clock(50, &error)) << error;
  ASSERT_TRUE(await_ticks());  // a whole tick 50 s and a few more after it was seen
  EXPECT_EQ(runs(owner, id).size(), 0u) << "fired before its interval";
  ASSERT_TRUE(relay().advance_clock(10, &error)) << error;
  auto run = wait_run(owner, id, 1, 20000);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "completed") << run->error;
  EXPECT_EQ(runs(owner, id).size(), 1u);
}

TEST_F(WorkflowTest, DiffPostedTriggers) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, R"(name: Diffs
trigger:
  on: diff_posted
  filter: 'str_contains(trigger_text, "+")'
steps:
  - id: say
    action: send_message
    text: "diff {{trigger.message_id | truncate(8)}}"
)");
  OkReply ok = owner->publish(make_event(owner.key, 40008, "--- a\n+++ b\n+line", {{"h", channel},
                                                                                   {"repo", "https://example.com/r"},
                                                                                   {"commit", "abcdef1"}}));
  ASSERT_TRUE(ok.accepted) << ok.reason;
  auto run = wait_run(owner, id);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "completed") << run->error;
}

}  // namespace
}  // namespace buzz::test
