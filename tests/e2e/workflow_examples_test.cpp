// The four complete examples of docs/reference/workflows.md §15, as written there. The one
// change: their https://….example.com URLs point at the test's loopback
// receiver (the relay allow-lists 127.0.0.1), since a test cannot reach
// example.com. 15.2's first line is not YAML (a plain scalar cannot hold ": ",
// and libyaml, which the original's serde_yaml ports, refuses it too): it gets
// a clear 400 as written, and runs with its name quoted. 15.4 waits out its 60 s delay.
#include "tests/e2e/workflow_fixture.h"

namespace buzz::test {
namespace {

// docs/reference/workflows.md §15.1, verbatim.
constexpr const char* kIncidentTriage = R"(name: Incident Triage
description: Acknowledge P1 reports and page on-call after approval
trigger:
  on: message_posted
  filter: 'str_contains(trigger_text, "P1") && trigger_author != "0000000000000000000000000000000000000000000000000000000000000000"'
steps:
  - id: ack
    action: send_message
    text: "P1 noted from {{trigger.author | truncate_pubkey}}: {{trigger.text | truncate(200)}}"
  - id: approve
    if: 'str_contains(trigger_text, "production")'
    action: request_approval
    from: "any"
    message: "Page on-call for: {{trigger.text | truncate(120)}}"
    timeout: "2h"
  - id: page
    if: 'str_contains(trigger_text, "production")'
    action: call_webhook
    url: "https://pager.example.com/v1/incidents"
    method: POST
    headers:
      Content-Type: application/json
      Authorization: "Token abc123"
    body: '{"summary": "P1 in #{{trigger.channel_id}}", "approved_by": "{{steps.approve.output.approver}}"}'
  - id: report
    if: 'str_contains(trigger_text, "production") && steps_page_output_status >= 200 && steps_page_output_status < 300'
    action: send_message
    text: "On-call paged (HTTP {{steps.page.output.status}}), approved by {{steps.approve.output.approver | truncate_pubkey}}."
)";

// docs/reference/workflows.md §15.2, verbatim.
constexpr const char* kTicketOnReaction = R"(name: Ticket on :ticket: reaction
trigger:
  on: reaction_added
  emoji: "🎫"
steps:
  - id: create
    action: call_webhook
    url: "https://tracker.example.com/api/issues"
    headers:
      Content-Type: application/json
    body: '{"source_message": "{{trigger.message_id}}", "reporter": "{{trigger.author}}"}'
    timeout_secs: 20
  - id: ok
    if: "steps_create_output_status == 201"
    action: send_message
    text: "Ticket created for message {{trigger.message_id | truncate(12)}}…"
  - id: failed
    if: "steps_create_output_status != 201"
    action: send_message
    text: "Ticket creation failed (HTTP {{steps.create.output.status}})."
)";

// docs/reference/workflows.md §15.3, verbatim.
constexpr const char* kStandUp = R"(name: Stand-up reminder
trigger:
  on: schedule
  cron: "0 30 9 * * MON-FRI"     # 6 fields: sec min hour dom month dow → 09:30:00 UTC, Monday–Friday
steps:
  - id: remind
    action: send_message
    text: "Stand-up in 30 minutes. Post blockers in a thread here."
)";

// docs/reference/workflows.md §15.4, verbatim.
constexpr const char* kDeployWatcher = R"(name: Deploy watcher
trigger:
  on: webhook
steps:
  - id: announce
    action: send_message
    text: "Deploy of {{trigger.service}} finished with status {{trigger.status}}."
  - id: settle
    if: 'trigger_status == "failed"'
    action: delay
    duration: "60s"
  - id: verify
    if: 'trigger_status == "failed"'
    action: call_webhook
    method: GET
    url: "https://status.example.com/api/services"
  - id: escalate
    if: 'trigger_status == "failed"'
    action: send_dm
    to: "{{trigger.owner_pubkey}}"
    text: "{{trigger.service}} deploy failed; status page answered HTTP {{steps.verify.output.status}}."
)";

// The example with its one host pointed at the receiver.
std::string pointed(std::string yaml, const std::string& host, const HttpReceiver& receiver) {
  const std::string from = "https://" + host;
  yaml.replace(yaml.find(from), from.size(), receiver.url(""));
  return yaml;
}

std::string short_key(const std::string& hex) { return hex.substr(0, 6) + "..." + hex.substr(58); }

// The content of the next live channel message that starts with `prefix`.
std::string next_message(Peer& p, const std::string& prefix) {
  auto m = p->wait_for([&](const RelayMessage& r) { return r.type == "EVENT" && r.event.content.starts_with(prefix); });
  return m ? m->event.content : "";
}

TEST_F(WorkflowTest, Example151IncidentTriagePagesAfterApproval) {
  HttpReceiver pager;
  pager.respond(200, R"({"incident":"I-1"})");
  Peer owner = user(), reporter = user(), lead = user();
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, pointed(kIncidentTriage, "pager.example.com", pager));
  ASSERT_FALSE(id.empty());
  subscribe(owner, "live", h_filter(channel, "9,46010"));
  post(reporter, channel, "P1 production database is down");
  EXPECT_EQ(next_message(owner, "P1 noted"), "P1 noted from " + short_key(reporter.hex) + ": P1 production database is down");
  auto ask = owner->wait_for([](const RelayMessage& r) { return r.type == "EVENT" && r.event.kind == 46010; });
  ASSERT_TRUE(ask.has_value());
  EXPECT_EQ(ask->event.content, "Page on-call for: P1 production database is down");
  EXPECT_TRUE(has_tag(ask->event, {"p", owner.hex}));  // `any`: the owner is told
  const std::string hash(ask->event.first_tag_value("approval"));
  // `any`: whoever can read the channel may approve.
  HttpReply granted = rest(lead.key, "POST", "/api/approvals/by-hash/" + hash + "/grant");
  ASSERT_EQ(granted.status, 202) << granted.body;
  ASSERT_TRUE(pager.wait_for(1));
  ReceivedRequest page = pager.received()[0];
  EXPECT_EQ(page.method, "POST");
  EXPECT_EQ(page.target, "/v1/incidents");
  EXPECT_NE(page.head.find("Authorization: Token abc123"), std::string::npos) << page.head;
  EXPECT_EQ(page.body, R"({"summary": "P1 in #)" + channel + R"(", "approved_by": ")" + lead.hex + R"("})");
  EXPECT_EQ(next_message(owner, "On-call paged"), "On-call paged (HTTP 200), approved by " + short_key(lead.hex) + ".");
  auto paged = wait_status(owner, id, "completed");
  ASSERT_TRUE(paged.has_value());
  EXPECT_EQ(paged->status, "completed") << paged->error;

  // The documented pitfall: without "production", page is skipped and report's
  // condition still reads steps_page_output_status, so the run fails there.
  post(reporter, channel, "P1 staging is slow");
  EXPECT_EQ(next_message(owner, "P1 noted"), "P1 noted from " + short_key(reporter.hex) + ": P1 staging is slow");
  auto pitfall = wait_run(owner, id, 2);
  ASSERT_TRUE(pitfall.has_value());
  EXPECT_EQ(pitfall->status, "failed");
  EXPECT_EQ(pitfall->current_step, 3);
  EXPECT_EQ(pitfall->error.rfind("condition evaluation error: ", 0), 0u) << pitfall->error;
  // Not a P1: the filter is false, no run. Events are matched in the order
  // they were stored, so once the P1 after it is noted, it has been seen.
  post(reporter, channel, "all quiet");
  post(reporter, channel, "P1 staging again");
  EXPECT_EQ(next_message(owner, "P1 noted"), "P1 noted from " + short_key(reporter.hex) + ": P1 staging again");
  EXPECT_EQ(runs(owner, id).size(), 3u);
}

TEST_F(WorkflowTest, Example152TicketOnReaction) {
  HttpReceiver tracker;
  tracker.respond(201, R"({"id":7})");
  Peer owner = user(), author = user(), reporter = user();
  std::string channel = create_channel(owner);
  HttpReply refused;
  EXPECT_EQ(create_workflow(owner, channel, pointed(kTicketOnReaction, "tracker.example.com", tracker), &refused), "");
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(json_str(refused.body, "error"), "invalid workflow YAML: invalid YAML: illegal map value at line 1 column 24");
  std::string quoted = kTicketOnReaction;
  quoted.replace(0, quoted.find('\n'), R"(name: "Ticket on :ticket: reaction")");
  std::string id = create_workflow(owner, channel, pointed(quoted, "tracker.example.com", tracker));
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(json_str(rest(owner.key, "GET", "/api/workflows/" + id).body, "name"), "Ticket on :ticket: reaction");
  subscribe(owner, "live", h_filter(channel));
  engine::Event msg = post(author, channel, "the export button does nothing");
  OkReply ticket = reporter->publish(make_event(reporter.key, 7, "🎫", {{"e", msg.id_hex()}}));
  ASSERT_TRUE(ticket.accepted) << ticket.reason;
  ASSERT_TRUE(tracker.wait_for(1));
  EXPECT_EQ(tracker.received()[0].target, "/api/issues");
  EXPECT_EQ(tracker.received()[0].body,
            R"({"source_message": ")" + msg.id_hex() + R"(", "reporter": ")" + reporter.hex + R"("})");
  EXPECT_EQ(next_message(owner, "Ticket"), "Ticket created for message " + msg.id_hex().substr(0, 12) + "…");
  // The tracker fails: the other branch.
  tracker.respond(503, "down");
  OkReply again = author->publish(make_event(author.key, 7, "🎫", {{"e", msg.id_hex()}}));
  ASSERT_TRUE(again.accepted) << again.reason;
  EXPECT_EQ(next_message(owner, "Ticket creation"), "Ticket creation failed (HTTP 503).");
}

TEST_F(WorkflowTest, Example153StandUpReminderIsSavedAndPosts) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  HttpReply created;
  std::string id = create_workflow(owner, channel, kStandUp, &created);
  ASSERT_FALSE(id.empty()) << created.body;
  EXPECT_NE(created.body.find(R"("cron":"0 30 9 * * MON-FRI")"), std::string::npos) << created.body;
  // Its slot is 09:30 UTC on weekdays (the cron unit tests check this expression);
  // here the manual trigger runs its step.
  subscribe(owner, "live", h_filter(channel));
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + id + "/trigger").status, 202);
  EXPECT_EQ(next_message(owner, "Stand-up"), "Stand-up in 30 minutes. Post blockers in a thread here.");
}

TEST_F(WorkflowTest, Example154DeployWatcherSettlesVerifiesAndEscalates) {
  HttpReceiver status_page;
  status_page.respond(200, R"({"api":"degraded"})");
  Peer owner = user(), on_call = user();
  std::string channel = create_channel(owner);
  HttpReply created;
  std::string id = create_workflow(owner, channel, pointed(kDeployWatcher, "status.example.com", status_page), &created);
  ASSERT_FALSE(id.empty()) << created.body;
  const std::string secret = json_str(created.body, "webhook_secret");
  subscribe(owner, "live", h_filter(channel));
  // As the example invokes it: the secret header and a JSON body.
  auto invoke = [&](const std::string& status) {
    return http_call(relay().port(), "POST", "/api/workflows/" + id + "/webhook", {{"X-Webhook-Secret", secret}},
                     R"({"service":"api","status":")" + status + R"(","owner_pubkey":")" + on_call.hex + R"("})");
  };
  ASSERT_EQ(invoke("succeeded").status, 202);
  EXPECT_EQ(next_message(owner, "Deploy of"), "Deploy of api finished with status succeeded.");
  auto quiet = wait_run(owner, id);
  ASSERT_TRUE(quiet.has_value());
  EXPECT_EQ(quiet->status, "completed") << quiet->error;
  EXPECT_EQ(status_page.received().size(), 0u);

  ASSERT_EQ(invoke("failed").status, 202);
  EXPECT_EQ(next_message(owner, "Deploy of"), "Deploy of api finished with status failed.");
  // The 60 s settle: once the run is in it (its wake-up time stored with the
  // step index), the status page has not been asked; the test moves the
  // relay's clock past it rather than waiting.
  auto settling = wait_newest(owner, id, [](const RunView& r) { return r.status == "running" && r.current_step == 1; });
  ASSERT_TRUE(settling.has_value());
  ASSERT_EQ(settling->current_step, 1);
  EXPECT_EQ(status_page.received().size(), 0u);
  std::string error;
  ASSERT_TRUE(relay().advance_clock(60, &error)) << error;
  ASSERT_TRUE(status_page.wait_for(1, 10000));
  EXPECT_EQ(status_page.received()[0].method, "GET");
  EXPECT_EQ(status_page.received()[0].target, "/api/services");
  auto done = wait_status(owner, id, "completed");
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->status, "completed") << done->error;
  ReqResult dms = on_call->req("d", R"({"kinds":[9],"#p":[")" + owner.hex + R"("]})");
  bool escalated = false;
  for (const engine::Event& e : dms.events) escalated |= e.content == "api deploy failed; status page answered HTTP 200.";
  EXPECT_TRUE(escalated);
}

}  // namespace
}  // namespace buzz::test
