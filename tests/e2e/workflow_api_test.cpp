// Workflow definitions over REST against the real binary (docs/reference/rest-api.md §3.13,
// docs/reference/workflows.md §2–§3): create, read, list, update, delete; the exact 400s for
// bad documents with nothing stored; and the denied cases of every access rule.
#include "tests/e2e/workflow_fixture.h"

namespace buzz::test {
namespace {

const char* kSimple = R"(name: Echo
trigger:
  on: message_posted
  filter: 'str_contains(trigger_text, "P1")'
steps:
  - id: notify
    action: send_message
    text: "seen: {{trigger.text}}"
)";

const char* kWebhook = R"(name: Hook
trigger:
  on: webhook
steps:
  - id: announce
    action: send_message
    text: "deploy of {{trigger.service}}"
)";

TEST_F(WorkflowTest, CreateGetListUpdateDelete) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  HttpReply created;
  std::string id = create_workflow(owner, channel, kSimple, &created);
  ASSERT_EQ(created.status, 200) << created.body;
  EXPECT_EQ(json_str(created.body, "name"), "Echo");
  EXPECT_EQ(json_str(created.body, "owner_pubkey"), owner.hex);
  EXPECT_EQ(json_str(created.body, "channel_id"), channel);
  EXPECT_EQ(json_str(created.body, "status"), "active");
  EXPECT_NE(created.body.find(R"("definition":{"name":"Echo","description":null,"trigger":{"on":"message_posted")"),
            std::string::npos)
      << created.body;
  EXPECT_EQ(created.body.find("webhook_secret"), std::string::npos);

  HttpReply got = rest(owner.key, "GET", "/api/workflows/" + id);
  EXPECT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(json_str(got.body, "id"), id);
  HttpReply listed = rest(owner.key, "GET", "/api/channels/" + channel + "/workflows");
  EXPECT_EQ(listed.status, 200);
  EXPECT_NE(listed.body.find(id), std::string::npos);

  HttpReply updated = rest(owner.key, "PUT", "/api/workflows/" + id, wf_body(std::string(kSimple) + "description: new\n"));
  EXPECT_EQ(updated.status, 200) << updated.body;
  EXPECT_NE(updated.body.find(R"("description":"new")"), std::string::npos);

  HttpReply deleted = rest(owner.key, "DELETE", "/api/workflows/" + id);
  EXPECT_EQ(deleted.status, 204) << deleted.body;
  EXPECT_EQ(rest(owner.key, "GET", "/api/workflows/" + id).status, 404);
  EXPECT_EQ(rest(owner.key, "GET", "/api/workflows/not-a-uuid").body, R"({"error":"invalid workflow UUID"})");
}

TEST_F(WorkflowTest, WebhookSecretIsShownOnceAndKeptOnUpdate) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  HttpReply created;
  std::string id = create_workflow(owner, channel, kWebhook, &created);
  ASSERT_EQ(created.status, 200) << created.body;
  const std::string secret = json_str(created.body, "webhook_secret");
  EXPECT_EQ(secret.size(), 36u);
  HttpReply got = rest(owner.key, "GET", "/api/workflows/" + id);
  EXPECT_EQ(got.body.find(secret), std::string::npos);
  EXPECT_EQ(got.body.find("_webhook_secret"), std::string::npos);
  HttpReply updated = rest(owner.key, "PUT", "/api/workflows/" + id, wf_body(kWebhook));
  EXPECT_EQ(updated.status, 200);
  EXPECT_EQ(updated.body.find("webhook_secret"), std::string::npos);  // kept, not shown again
  HttpReply fired = http_call(relay().port(), "POST", "/hooks/" + id, {{"X-Webhook-Secret", secret}}, "{}");
  EXPECT_EQ(fired.status, 202) << fired.body;
}

TEST_F(WorkflowTest, BadDocumentsAreClear400sAndNothingIsStored) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  auto expect_400 = [&](const std::string& yaml, const std::string& error) {
    HttpReply r;
    EXPECT_EQ(create_workflow(owner, channel, yaml, &r), "");
    EXPECT_EQ(r.status, 400) << yaml;
    EXPECT_EQ(json_str(r.body, "error"), error) << r.body;
  };
  expect_400("name: W\ntrigger: {on: webhook}\nsteps: []", "invalid workflow YAML: invalid definition: at least one step is required");
  expect_400("name: [oops", "invalid workflow YAML: invalid YAML: end of sequence flow not found at line 1 column 1");
  expect_400(std::string(70000, '#'),
             "invalid workflow YAML: invalid YAML: definition is 70000 bytes, more than the limit of 65536");
  std::string runaway = "name: W\ntrigger:\n  on: message_posted\n  filter: '" + std::string(3000, '(') + "true" +
                        std::string(3000, ')') + "'\nsteps: [{id: a, action: delay, duration: 1s}]";
  HttpReply r;
  create_workflow(owner, channel, runaway, &r);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json_str(r.body, "error").rfind("invalid workflow YAML: invalid definition: trigger filter: ", 0), 0u) << r.body;
  expect_400("name: W\ntrigger: {on: webhook}\nsteps: [{id: s, action: send_message, text: hi, channel: nope}]",
             "invalid workflow YAML: step 's' has an invalid send_message.channel UUID");
  const std::string other = new_uuid();
  expect_400("name: W\ntrigger: {on: webhook}\nsteps: [{id: s, action: send_message, text: hi, channel: " + other + "}]",
             "invalid workflow YAML: step 's' cannot override send_message.channel outside workflow channel " + channel);
  HttpReply bad_json = rest(owner.key, "POST", "/api/channels/" + channel + "/workflows", "{not json");
  EXPECT_EQ(bad_json.status, 400);
  HttpReply no_field = rest(owner.key, "POST", "/api/channels/" + channel + "/workflows", "{}");
  EXPECT_EQ(no_field.status, 422);
  HttpReply listed = rest(owner.key, "GET", "/api/channels/" + channel + "/workflows");
  EXPECT_EQ(listed.body, "[]");
  EXPECT_EQ(rest(owner.key, "GET", "/health").status, 200);  // the relay is unaffected
}

TEST_F(WorkflowTest, SsrfRefusalsAtSaveTime) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  auto refused = [&](const std::string& url) {
    HttpReply r;
    create_workflow(owner, channel,
                    "name: W\ntrigger: {on: webhook}\nsteps: [{id: call, action: call_webhook, url: '" + url + "'}]", &r);
    EXPECT_EQ(r.status, 400) << url;
    return json_str(r.body, "error");
  };
  EXPECT_EQ(refused("http://localhost:9/x"), "webhook URL in step 'call' targets loopback address");
  EXPECT_EQ(refused("http://[::1]:9/x"), "webhook URL in step 'call' targets loopback address");
  EXPECT_EQ(refused("http://169.254.169.254/latest/meta-data"), "webhook URL in step 'call' targets cloud metadata endpoint");
  for (const char* url : {"http://10.0.0.7/", "http://[::ffff:127.0.0.1]/", "http://100.64.0.1/", "http://[fe80::1]/",
                          "http://192.168.1.1:8080/", "http://[fd00::1]/"}) {
    EXPECT_EQ(refused(url), "webhook URL in step 'call' targets private/internal network") << url;
  }
  // Other spellings normalize first (the unit tests cover 127.0.0.1's, which this relay allow-lists).
  EXPECT_EQ(refused("http://2852039166/"), "webhook URL in step 'call' targets cloud metadata endpoint");
  EXPECT_EQ(refused("http://0xa.0.0.1/"), "webhook URL in step 'call' targets private/internal network");
  EXPECT_EQ(refused("http://127.0.0.2/"), "webhook URL in step 'call' targets private/internal network");
  EXPECT_EQ(refused("ftp://example.com/"), "webhook URL scheme 'ftp' not allowed in step 'call' (only http/https)");
  EXPECT_EQ(refused("http://{{trigger.host}}/x").rfind("invalid webhook URL in step 'call': ", 0), 0u);
  // A host name is resolved off the loop thread and answered from there (RFC 6761: .invalid never resolves).
  EXPECT_EQ(refused("https://nothing.invalid/hook"), "webhook URL in step 'call' hostname could not be resolved");
  HttpReply update = rest(owner.key, "PUT", "/api/workflows/" + create_workflow(owner, channel, kSimple),
                          wf_body("name: W\ntrigger: {on: webhook}\nsteps: [{id: c, action: call_webhook, "
                                  "url: 'http://a.invalid/'}]"));
  EXPECT_EQ(update.status, 400);
  EXPECT_EQ(json_str(update.body, "error"), "webhook URL in step 'c' hostname could not be resolved");
}

TEST_F(WorkflowTest, NonMemberCannotCreateReadOrTriggerInAPrivateChannel) {
  Peer owner = user(), outsider = user();
  std::string channel = create_channel(owner, "private");
  std::string id = create_workflow(owner, channel, kWebhook);
  ASSERT_FALSE(id.empty());
  HttpReply r;
  EXPECT_EQ(create_workflow(outsider, channel, kSimple, &r), "");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(rest(outsider.key, "GET", "/api/channels/" + channel + "/workflows").status, 403);
  HttpReply got = rest(outsider.key, "GET", "/api/workflows/" + id);
  EXPECT_EQ(got.status, 403);
  EXPECT_EQ(got.body, R"({"error":"not authorized to access this workflow"})");
  EXPECT_EQ(rest(outsider.key, "POST", "/api/workflows/" + id + "/trigger").status, 403);
  EXPECT_EQ(rest(outsider.key, "GET", "/api/workflows/" + id + "/runs").status, 403);
  EXPECT_EQ(rest(outsider.key, "DELETE", "/api/workflows/" + id).body, R"({"error":"not authorized to delete this workflow"})");
  EXPECT_EQ(runs(owner, id).size(), 0u);
}

TEST_F(WorkflowTest, OnlyTheOwnerUpdatesDeletesOrReadsRuns) {
  Peer owner = user(), member = user();
  std::string channel = create_channel(owner);
  add_member(owner, channel, member);
  std::string id = create_workflow(owner, channel, kSimple);
  EXPECT_EQ(rest(member.key, "GET", "/api/workflows/" + id).status, 200);  // access is enough to read
  HttpReply put = rest(member.key, "PUT", "/api/workflows/" + id, wf_body(kSimple));
  EXPECT_EQ(put.status, 403);
  EXPECT_EQ(put.body, R"({"error":"not authorized to update this workflow"})");
  EXPECT_EQ(rest(member.key, "DELETE", "/api/workflows/" + id).body, R"({"error":"not authorized to delete this workflow"})");
  EXPECT_EQ(rest(member.key, "GET", "/api/workflows/" + id + "/runs").body,
            R"({"error":"not authorized to trigger this workflow"})");
  EXPECT_EQ(rest(owner.key, "GET", "/api/workflows/" + id).status, 200);
}

// The original's workflow_status (active, disabled, archived) through
// PATCH /api/workflows/{id}: a disabled or archived workflow does not fire; an
// archived one is read-only and listed only with ?include_archived=true.
TEST_F(WorkflowTest, StatusLifecycleDisabledAndArchivedDoNotFireArchivedIsReadOnlyAndHidden) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, kSimple);
  std::string control = create_workflow(owner, channel, kSimple);  // fires on the same messages
  ASSERT_FALSE(id.empty() || control.empty());
  const std::string path = "/api/workflows/" + id;
  auto patch = [&](const std::string& body) { return rest(owner.key, "PATCH", path, body); };

  EXPECT_EQ(patch(R"({"status":"paused"})").body, R"({"error":"status must be 'active', 'disabled' or 'archived'"})");
  EXPECT_EQ(patch(R"({"state":"disabled"})").status, 422);
  HttpReply disabled = patch(R"({"status":"disabled"})");
  ASSERT_EQ(disabled.status, 200) << disabled.body;
  EXPECT_EQ(json_str(disabled.body, "status"), "disabled");
  // The control's run is made from the same message in the same pass: once it
  // is there, the disabled one would have had its run too.
  post(owner, channel, "P1 while disabled");
  ASSERT_TRUE(wait_run(owner, control, 1).has_value());
  EXPECT_EQ(runs(owner, id).size(), 0u) << "a disabled workflow fired";
  EXPECT_EQ(rest(owner.key, "POST", path + "/trigger").body, R"({"error":"workflow is not active"})");

  HttpReply archived = patch(R"({"status":"archived"})");
  ASSERT_EQ(archived.status, 200) << archived.body;
  EXPECT_EQ(json_str(archived.body, "status"), "archived");
  post(owner, channel, "P1 while archived");
  ASSERT_TRUE(wait_run(owner, control, 2).has_value());
  EXPECT_EQ(runs(owner, id).size(), 0u) << "an archived workflow fired";
  EXPECT_EQ(rest(owner.key, "POST", path + "/trigger").body, R"({"error":"workflow is not active"})");
  // Read-only: readable, not editable.
  EXPECT_EQ(json_str(rest(owner.key, "GET", path).body, "status"), "archived");
  HttpReply put = rest(owner.key, "PUT", path, wf_body(std::string(kSimple) + "description: new\n"));
  EXPECT_EQ(put.status, 409);
  EXPECT_EQ(put.body, R"({"error":"workflow is archived"})");
  // Hidden from the list unless asked for.
  const std::string list = "/api/channels/" + channel + "/workflows";
  HttpReply listed = rest(owner.key, "GET", list);
  EXPECT_EQ(listed.body.find(id), std::string::npos) << listed.body;
  EXPECT_NE(listed.body.find(control), std::string::npos);
  EXPECT_NE(rest(owner.key, "GET", list + "?include_archived=true").body.find(id), std::string::npos);

  HttpReply back = patch(R"({"status":"active"})");
  ASSERT_EQ(back.status, 200) << back.body;
  EXPECT_EQ(json_str(back.body, "status"), "active");
  post(owner, channel, "P1 active again");
  auto fired = wait_run(owner, id, 1);
  ASSERT_TRUE(fired.has_value()) << "the workflow made active again did not fire";
  EXPECT_EQ(fired->status, "completed") << fired->error;
}

TEST_F(WorkflowTest, ScopesAreChecked) {
  Peer owner = user();
  std::string channel = create_channel(owner);
  // An API token with channels:read only cannot create.
  HttpReply minted = rest(owner.key, "POST", "/api/tokens", R"({"name":"ro","scopes":["channels:read"]})");
  ASSERT_EQ(minted.status, 201) << minted.body;
  const std::string token = json_str(minted.body, "token");
  HttpReply r = http_call(relay().port(), "POST", "/api/channels/" + channel + "/workflows",
                          {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}}, wf_body(kSimple));
  EXPECT_EQ(r.status, 403) << r.body;
  HttpReply list = http_call(relay().port(), "GET", "/api/channels/" + channel + "/workflows",
                             {{"Authorization", "Bearer " + token}});
  EXPECT_EQ(list.status, 200) << list.body;
}

}  // namespace
}  // namespace buzz::test
