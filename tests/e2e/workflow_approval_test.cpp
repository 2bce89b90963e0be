// Approval gates end to end (docs/reference/workflows.md §11.2, docs/reference/rest-api.md §3.14): the run
// parks in waiting_approval, the approver is told (46010, and a DM with the raw
// token when named), a grant resumes at the next step with the approver in the
// outputs, a deny cancels, a timeout fails; wrong approver, replayed,
// double and expired decisions get the spec's errors.
#include "tests/e2e/workflow_fixture.h"

namespace buzz::test {
namespace {

std::string gated(const std::string& from, const std::string& timeout, const std::string& url) {
  return R"(name: Incident Triage
trigger:
  on: webhook
steps:
  - id: ack
    action: send_message
    text: "P1 noted: {{trigger.text | truncate(200)}}"
  - id: approve
    action: request_approval
    from: ")" + from + R"("
    message: "Page on-call for: {{trigger.summary}}"
    timeout: ")" + timeout + R"("
  - id: page
    action: call_webhook
    url: ")" + url + R"("
    method: POST
    headers:
      Content-Type: application/json
    body: '{"approved_by": "{{steps.approve.output.approver}}", "note": "{{steps.approve.output.note}}"}'
  - id: report
    if: 'steps_page_output_status >= 200 && steps_page_output_status < 300'
    action: send_message
    text: "On-call paged (HTTP {{steps.page.output.status}}), approved by {{steps.approve.output.approver | truncate_pubkey}}."
)";
}

// The approval token hash of the newest 46010 the subscription received.
std::string approval_hash(Peer& p, const std::string& sub) {
  auto m = p->wait_for([&](const RelayMessage& r) { return r.type == "EVENT" && r.id == sub && r.event.kind == 46010; });
  if (!m) return "";
  return std::string(m->event.first_tag_value("approval"));
}

TEST_F(WorkflowTest, GrantedByTheNamedApproverResumesAtTheNextStep) {
  HttpReceiver receiver;
  Peer owner = user(), approver = user(), stranger = user();
  std::string channel = create_channel(owner);
  add_member(owner, channel, approver);
  std::string id = create_workflow(owner, channel, gated(approver.hex, "1h", receiver.url("/page")));
  ASSERT_FALSE(id.empty());
  // Live channel events need the #h (the subscription index's rule); #p narrows to the approver.
  subscribe(approver, "asks", R"({"kinds":[46010],"#h":[")" + channel + R"("],"#p":[")" + approver.hex + R"("]})");
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + id + "/trigger", R"({"summary":"db down"})").status, 202);
  auto parked = wait_run(owner, id);
  ASSERT_TRUE(parked.has_value());
  ASSERT_EQ(parked->status, "waiting_approval") << parked->error;
  EXPECT_EQ(parked->current_step, 1);
  const std::string hash = approval_hash(approver, "asks");
  ASSERT_EQ(hash.size(), 64u);
  // The raw token arrives privately, in a DM from the relay's own identity
  // (not in a conversation with the owner), naming the workflow.
  const std::string relay_hex = relay_self_pubkey(relay());
  std::optional<engine::Event> dm;
  auto deadline_dm = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!dm && std::chrono::steady_clock::now() < deadline_dm) {
    ReqResult dms = approver->req(unique_text("dm"), R"({"kinds":[9],"authors":[")" + relay_hex + R"("]})");
    for (const engine::Event& e : dms.events) {
      if (e.content.find("/api/approvals/") != std::string::npos) dm = e;
    }
  }
  ASSERT_TRUE(dm.has_value());
  EXPECT_NE(dm->content.find("Workflow \"Incident Triage\" asks for your approval"), std::string::npos) << dm->content;
  EXPECT_TRUE(has_tag(*dm, {"workflow", id, "Incident Triage"}));
  const std::string dm_channel(dm->first_tag_value("h"));
  HttpReply dm_detail = rest(approver.key, "GET", "/api/channels/" + dm_channel);
  EXPECT_EQ(dm_detail.status, 200) << dm_detail.body;
  EXPECT_EQ(json_str(dm_detail.body, "channel_type"), "dm");
  // The owner is not in that DM: neither the token nor the DM reach her.
  EXPECT_TRUE(owner->req(unique_text("peek"), R"({"ids":[")" + dm->id_hex() + R"("]})").events.empty());
  EXPECT_EQ(rest(owner.key, "GET", "/api/channels/" + dm_channel).status, 403);
  // The feed lists the request once (its 46010), the DM not again as a mention.
  HttpReply feed = rest(approver.key, "GET", "/api/feed?types=mentions");
  EXPECT_EQ(feed.body.find(dm->id_hex()), std::string::npos) << feed.body;
  const std::string& text = dm->content;
  size_t at = text.find("/api/approvals/") + 15;
  const std::string token = text.substr(at, 36);
  // Approvals listing shows the hash, never the token.
  HttpReply listed = rest(owner.key, "GET", "/api/workflows/" + id + "/runs/" + parked->id + "/approvals");
  EXPECT_EQ(listed.status, 200);
  EXPECT_NE(listed.body.find(hash), std::string::npos);
  EXPECT_EQ(listed.body.find(token), std::string::npos);
  EXPECT_NE(listed.body.find(R"("status":"pending")"), std::string::npos);
  // Only the named approver may spend it.
  HttpReply wrong = rest(stranger.key, "POST", "/api/approvals/" + token + "/grant");
  EXPECT_EQ(wrong.status, 403);
  EXPECT_EQ(wrong.body, R"({"error":"you are not the designated approver for this request"})");
  HttpReply owner_try = rest(owner.key, "POST", "/api/approvals/by-hash/" + hash + "/grant");
  EXPECT_EQ(owner_try.status, 403);
  HttpReply granted = rest(approver.key, "POST", "/api/approvals/" + token + "/grant", R"({"note":"go"})");
  ASSERT_EQ(granted.status, 202) << granted.body;
  EXPECT_EQ(json_str(granted.body, "status"), "granted");
  EXPECT_EQ(json_str(granted.body, "run_id"), parked->id);
  // Single use: a replay and a deny after the grant are refused.
  EXPECT_EQ(rest(approver.key, "POST", "/api/approvals/" + token + "/grant").body, R"({"error":"approval already granted"})");
  EXPECT_EQ(rest(approver.key, "POST", "/api/approvals/by-hash/" + hash + "/deny").status, 409);
  ASSERT_TRUE(receiver.wait_for(1));
  EXPECT_EQ(receiver.received()[0].body, R"({"approved_by": ")" + approver.hex + R"(", "note": "go"})");
  auto done = wait_status(owner, id, "completed");
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->status, "completed") << done->error;
  EXPECT_NE(done->trace.find(R"("approved":true,"approver":")" + approver.hex), std::string::npos) << done->trace;
}

TEST_F(WorkflowTest, DeniedByHashCancelsTheRun) {
  Peer owner = user(), approver = user();
  std::string channel = create_channel(owner);
  add_member(owner, channel, approver);
  std::string id = create_workflow(owner, channel, gated("any", "1h", "http://127.0.0.1:9/never"));
  subscribe(owner, "asks", R"({"kinds":[46010],"#h":[")" + channel + R"("],"#p":[")" + owner.hex + R"("]})");
  subscribe(owner, "decided", h_filter(channel, "46012"));
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + id + "/trigger", R"({"summary":"x"})").status, 202);
  const std::string hash = approval_hash(owner, "asks");
  ASSERT_EQ(hash.size(), 64u);
  EXPECT_EQ(rest(approver.key, "POST", "/api/approvals/by-hash/nothex/deny").body, R"({"error":"invalid hex token hash"})");
  EXPECT_EQ(rest(approver.key, "POST", "/api/approvals/by-hash/" + std::string(64, 'a') + "/deny").status, 404);
  EXPECT_EQ(rest(approver.key, "POST", "/api/approvals/" + new_uuid() + "/deny").body, R"({"error":"approval not found"})");
  HttpReply denied = rest(approver.key, "POST", "/api/approvals/by-hash/" + hash + "/deny", R"({"note":"not now"})");
  ASSERT_EQ(denied.status, 202) << denied.body;
  auto run = wait_status(owner, id, "cancelled");
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "cancelled");
  EXPECT_EQ(run->error, "workflow cancelled: approval denied by " + approver.hex);
  EXPECT_NE(run->trace.find(R"("status":"denied")"), std::string::npos) << run->trace;
  auto decided = owner->wait_for([&](const RelayMessage& r) { return r.type == "EVENT" && r.event.kind == 46012; });
  ASSERT_TRUE(decided.has_value());
  EXPECT_TRUE(has_tag(decided->event, {"p", approver.hex}));
  EXPECT_TRUE(has_tag(decided->event, {"approval", hash}));
  EXPECT_EQ(decided->event.content, "not now");
}

TEST_F(WorkflowTest, AnExpiredApprovalFailsTheRun) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, gated("any", "1h", "http://127.0.0.1:9/never"));
  subscribe(owner, "asks", R"({"kinds":[46010],"#h":[")" + channel + R"("],"#p":[")" + owner.hex + R"("]})");
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + id + "/trigger", R"({"summary":"x"})").status, 202);
  const std::string hash = approval_hash(owner, "asks");
  ASSERT_EQ(hash.size(), 64u);
  std::string error;
  ASSERT_TRUE(relay().advance_clock(3601, &error)) << error;  // the hour passes; the next tick expires it
  auto run = wait_status(owner, id, "failed");
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "failed");
  EXPECT_EQ(run->error, "approval for step 'approve' expired");
  HttpReply late = rest(owner.key, "POST", "/api/approvals/by-hash/" + hash + "/grant");
  EXPECT_EQ(late.status, 409);
  EXPECT_EQ(late.body, R"({"error":"approval already expired"})");
}

TEST_F(WorkflowTest, AnUnsupportedApproverSpecFailsTheStep) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, gated("@release-manager", "1h", "http://127.0.0.1:9/never"));
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + id + "/trigger", R"({"summary":"x"})").status, 202);
  auto run = wait_run(owner, id);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "failed");
  EXPECT_EQ(run->error, "invalid definition: unsupported approver spec '@release-manager'");
}

}  // namespace
}  // namespace buzz::test
