// Workflows act with their owner's current rights (docs/access.md "Rights are
// checked when acting", docs/workflows.md): a member's workflow that copies a
// private channel out (send_dm, call_webhook) stops once she is removed from
// the channel (9001) or from the relay (9031) — the run fails with its 46006
// narration, the workflow is disabled and its history stays — also when the
// run was parked in a delay or on an approval, after a restart, and when a
// webhook (not a message) triggers it. The
// channel's owner and admins and the relay's owner and admins may disable and
// delete a member's workflow; an ordinary member may not.
#include "tests/e2e/workflow_fixture.h"

namespace buzz::test {
namespace {

enum class Copy { kDm, kWebhook };
enum class Removal { kChannel, kRelay };

// A message_posted workflow whose only step copies each message out.
std::string copier(Copy how, const std::string& target) {
  const std::string head = "name: Copier\ntrigger:\n  on: message_posted\nsteps:\n";
  if (how == Copy::kDm) {
    return head + "  - id: copy\n    action: send_dm\n    to: \"" + target + "\"\n    text: \"{{trigger.text}}\"\n";
  }
  return head + "  - id: copy\n    action: call_webhook\n    url: \"" + target + "\"\n    body: \"{{trigger.text}}\"\n";
}

// The same copy behind a parking step (a delay or an approval).
std::string parked_copier(const std::string& park, const std::string& url) {
  return "name: Parked\ntrigger:\n  on: message_posted\nsteps:\n" + park +
         "  - id: copy\n    action: call_webhook\n    url: \"" + url + "\"\n    body: \"{{trigger.text}}\"\n";
}
constexpr char kDelay[] = "  - id: wait\n    action: delay\n    duration: 3s\n";
constexpr char kApproval[] = "  - id: approve\n    action: request_approval\n    from: any\n    message: ok?\n";

class WorkflowRightsTest : public WorkflowTest {
 protected:
  // A closed relay: removal from it (9031) is one of the cases.
  static void SetUpTestSuite() {
    relay_owner_key_ = engine::generate_keypair();
    closed_ = start_relay(
        RelayOptions{{"--owner", hex(relay_owner_key_), "--rate-limits", "false"}, relay_env(), ""});
    if (closed_) relay_owner_ = connect_as(relay_owner_key_);
  }
  static void TearDownTestSuite() {
    relay_owner_ = {};
    closed_.reset();
  }
  void SetUp() override { ASSERT_NE(closed_, nullptr) << "the relay did not start"; }

  static Peer connect_as(const engine::Keypair& key) {
    Peer p{key, hex(key), nullptr};
    std::string error;
    p.c = NostrClient::connect_authed(*closed_, key, &error);
    EXPECT_NE(p.c, nullptr) << error;
    return p;
  }
  // A new relay member (role "admin" for a relay admin), connected.
  static Peer join(const std::string& role = "member") {
    engine::Keypair key = engine::generate_keypair();
    OkReply ok = relay_owner_->publish(make_event(relay_owner_key_, 9030, "", {{"p", hex(key)}, {"role", role}}));
    EXPECT_TRUE(ok.accepted) << "9030: " << ok.reason;
    return connect_as(key);
  }
  static HttpReply call(const Peer& who, const std::string& method, const std::string& path,
                        const std::string& body = "") {
    return rest(who.key, method, path, body, closed_.get());
  }
  static void remove(Removal how, Peer& channel_owner, const std::string& channel, const Peer& who) {
    OkReply ok = how == Removal::kChannel
                     ? channel_owner->publish(make_event(channel_owner.key, 9001, "", {{"h", channel}, {"p", who.hex}}))
                     : relay_owner_->publish(make_event(relay_owner_key_, 9031, "", {{"p", who.hex}}));
    ASSERT_TRUE(ok.accepted) << ok.reason;
  }

  // A private channel owned by `boss`, of which `author` is a member and in which she made `yaml`'s workflow.
  struct Scene {
    Peer boss, author;
    std::string channel, workflow;
  };
  static Scene scene(const std::string& yaml) {
    Scene s{join(), join(), "", ""};
    s.channel = create_channel(s.boss, "private");
    add_member(s.boss, s.channel, s.author);
    s.workflow = create_workflow(s.author, s.channel, yaml, nullptr, closed_.get());
    EXPECT_FALSE(s.workflow.empty());
    return s;
  }

  // After the removal the run failed and said why (run record and 46006), the
  // workflow is disabled, and its history stays.
  static void expect_failed_and_disabled(Scene& s, size_t runs_before) {
    auto run = wait_run(s.boss, s.workflow, runs_before + 1, 10000, closed_.get());
    ASSERT_TRUE(run.has_value()) << "no finished run the channel owner can see";
    EXPECT_EQ(run->status, "failed");
    EXPECT_NE(run->error.find("workflow owner"), std::string::npos) << run->error;
    EXPECT_NE(run->error.find("the workflow is disabled"), std::string::npos) << run->error;
    EXPECT_EQ(runs(s.boss, s.workflow, closed_.get()).size(), runs_before + 1) << "history kept";
    HttpReply got = call(s.boss, "GET", "/api/workflows/" + s.workflow);
    EXPECT_EQ(got.status, 200) << got.body;
    EXPECT_EQ(json_str(got.body, "status"), "disabled");
    // The 46006 is submitted after the run's record is saved: it may be a moment behind it.
    bool narrated = false;
    for (const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);;) {
      for (const engine::Event& e : read(s.boss, unique_text("failed"), h_filter(s.channel, "46006"))) {
        narrated |= e.first_tag_value("run") == run->id && e.content.find(run->error) != std::string::npos;
      }
      if (narrated || std::chrono::steady_clock::now() > until) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(narrated) << "no 46006 carrying: " << run->error;
  }

  // The exfiltration case of issue 32 §1: it copies while she may read, and
  // nothing once she may not.
  static void expect_copying_stops(Copy how, Removal removal) {
    HttpReceiver receiver;
    Peer outside = join();
    Scene s = scene(copier(how, how == Copy::kDm ? outside.hex : receiver.url("/copy")));
    post(s.boss, s.channel, "shared while a member");
    auto first = wait_run(s.author, s.workflow, 1, 10000, closed_.get());
    ASSERT_TRUE(first.has_value());
    ASSERT_EQ(first->status, "completed") << first->error;
    remove(removal, s.boss, s.channel, s.author);
    post(s.boss, s.channel, "secret after removal");
    expect_failed_and_disabled(s, 1);
    if (how == Copy::kWebhook) {
      std::string bodies;
      for (const ReceivedRequest& r : receiver.received()) bodies += r.body + "|";
      EXPECT_EQ(bodies, "shared while a member|");
      return;
    }
    std::string copied;
    for (const engine::Event& e : read(outside, unique_text("dm"), p_filter(s.author.hex, "9"))) copied += e.content + "|";
    EXPECT_NE(copied.find("shared while a member"), std::string::npos) << copied;
    EXPECT_EQ(copied.find("secret"), std::string::npos) << copied;
  }

  static inline engine::Keypair relay_owner_key_;
  static inline Peer relay_owner_;
  static inline std::unique_ptr<RelayProcess> closed_;
};

TEST_F(WorkflowRightsTest, SendDmStopsWhenTheOwnerIsRemovedFromTheChannel) {
  expect_copying_stops(Copy::kDm, Removal::kChannel);
}

TEST_F(WorkflowRightsTest, SendDmStopsWhenTheOwnerIsRemovedFromTheRelay) {
  expect_copying_stops(Copy::kDm, Removal::kRelay);
}

TEST_F(WorkflowRightsTest, CallWebhookStopsWhenTheOwnerIsRemovedFromTheChannel) {
  expect_copying_stops(Copy::kWebhook, Removal::kChannel);
}

TEST_F(WorkflowRightsTest, CallWebhookStopsWhenTheOwnerIsRemovedFromTheRelay) {
  expect_copying_stops(Copy::kWebhook, Removal::kRelay);
}

TEST_F(WorkflowRightsTest, ARunInADelayFailsWhenItsOwnerWasRemovedMeanwhile) {
  HttpReceiver receiver;
  Scene s = scene(parked_copier(kDelay, receiver.url("/copy")));
  post(s.boss, s.channel, "secret posted before the removal");
  auto waiting = wait_status(s.author, s.workflow, "running", 5000, closed_.get());
  ASSERT_TRUE(waiting.has_value());
  ASSERT_EQ(waiting->status, "running");
  remove(Removal::kChannel, s.boss, s.channel, s.author);
  expect_failed_and_disabled(s, 0);
  EXPECT_TRUE(receiver.received().empty());
}

TEST_F(WorkflowRightsTest, AGrantedApprovalFailsWhenItsOwnerWasRemovedMeanwhile) {
  HttpReceiver receiver;
  Scene s = scene(parked_copier(kApproval, receiver.url("/copy")));
  post(s.boss, s.channel, "secret posted before the removal");
  auto parked = wait_run(s.author, s.workflow, 1, 10000, closed_.get());
  ASSERT_TRUE(parked.has_value());
  ASSERT_EQ(parked->status, "waiting_approval") << parked->error;
  HttpReply approvals = call(s.author, "GET", "/api/workflows/" + s.workflow + "/runs/" + parked->id + "/approvals");
  ASSERT_EQ(approvals.status, 200) << approvals.body;
  const size_t at = approvals.body.find(R"("token":")");
  ASSERT_NE(at, std::string::npos) << approvals.body;
  const std::string hash = approvals.body.substr(at + 9, 64);
  remove(Removal::kRelay, s.boss, s.channel, s.author);
  // The channel owner may still read the channel, so her grant is taken; the run is not.
  HttpReply granted = call(s.boss, "POST", "/api/approvals/by-hash/" + hash + "/grant");
  ASSERT_EQ(granted.status, 202) << granted.body;
  expect_failed_and_disabled(s, 0);
  EXPECT_TRUE(receiver.received().empty());
}

// A trigger from outside (the webhook's secret, like a schedule) starts a run that checks too.
TEST_F(WorkflowRightsTest, AWebhookTriggeredRunFailsWhenItsOwnerWasRemoved) {
  HttpReceiver receiver;
  Scene s{join(), join(), "", ""};
  s.channel = create_channel(s.boss, "private");
  add_member(s.boss, s.channel, s.author);
  HttpReply created = call(s.author, "POST", "/api/channels/" + s.channel + "/workflows",
                           wf_body("name: Hook\ntrigger:\n  on: webhook\nsteps:\n  - id: copy\n    action: call_webhook\n"
                                   "    url: \"" + receiver.url("/copy") + "\"\n    body: \"{{trigger.note}}\"\n"));
  ASSERT_EQ(created.status, 200) << created.body;
  s.workflow = json_str(created.body, "id");
  const std::string secret = json_str(created.body, "webhook_secret");
  remove(Removal::kChannel, s.boss, s.channel, s.author);
  HttpReply hooked = http_call(closed_->port(), "POST", "/hooks/" + s.workflow,
                               {{"X-Webhook-Secret", secret}, {"Content-Type", "application/json"}}, R"({"note":"x"})");
  ASSERT_EQ(hooked.status, 202) << hooked.body;
  expect_failed_and_disabled(s, 0);
  EXPECT_TRUE(receiver.received().empty());
}

TEST_F(WorkflowRightsTest, ChannelAndRelayOwnersAndAdminsMayDisableAndDeleteAMembersWorkflow) {
  Scene s = scene(copier(Copy::kWebhook, "http://127.0.0.1:9/copy"));
  Peer channel_admin = join(), relay_admin = join("admin");
  add_member(s.boss, s.channel, channel_admin);
  OkReply promoted =
      s.boss->publish(make_event(s.boss.key, 9000, "", {{"h", s.channel}, {"p", channel_admin.hex}, {"role", "admin"}}));
  ASSERT_TRUE(promoted.accepted) << promoted.reason;
  struct Manager {
    const char* who;
    Peer* peer;
  };
  for (Manager m : {Manager{"channel owner", &s.boss}, Manager{"channel admin", &channel_admin},
                    Manager{"relay owner", &relay_owner_}, Manager{"relay admin", &relay_admin}}) {
    SCOPED_TRACE(m.who);
    const std::string id = create_workflow(s.author, s.channel, copier(Copy::kWebhook, "http://127.0.0.1:9/copy"),
                                           nullptr, closed_.get());
    ASSERT_FALSE(id.empty());
    HttpReply disabled = call(*m.peer, "POST", "/api/workflows/" + id + "/disable");
    ASSERT_EQ(disabled.status, 200) << disabled.body;
    EXPECT_EQ(json_str(disabled.body, "status"), "disabled");
    // Turning it back on acts for the author again: hers to do, not theirs.
    HttpReply enabled = call(*m.peer, "POST", "/api/workflows/" + id + "/enable");
    EXPECT_EQ(enabled.status, 403) << enabled.body;
    EXPECT_EQ(json_str(call(s.author, "GET", "/api/workflows/" + id).body, "status"), "disabled");
    HttpReply deleted = call(*m.peer, "DELETE", "/api/workflows/" + id);
    EXPECT_EQ(deleted.status, 204) << deleted.body;
    EXPECT_EQ(call(s.author, "GET", "/api/workflows/" + id).status, 404);
  }
}

TEST_F(WorkflowRightsTest, AnOrdinaryMemberMayNeitherDisableNorDeleteAnothersWorkflow) {
  Scene s = scene(copier(Copy::kWebhook, "http://127.0.0.1:9/copy"));
  Peer member = join();
  add_member(s.boss, s.channel, member);
  HttpReply disabled = call(member, "POST", "/api/workflows/" + s.workflow + "/disable");
  EXPECT_EQ(disabled.status, 403) << disabled.body;
  EXPECT_EQ(disabled.body, R"({"error":"not authorized to update this workflow"})");
  HttpReply deleted = call(member, "DELETE", "/api/workflows/" + s.workflow);
  EXPECT_EQ(deleted.body, R"({"error":"not authorized to delete this workflow"})");
  HttpReply put = call(member, "PUT", "/api/workflows/" + s.workflow, wf_body(copier(Copy::kWebhook, "http://127.0.0.1:9/x")));
  EXPECT_EQ(put.status, 403) << put.body;
  EXPECT_EQ(json_str(call(s.author, "GET", "/api/workflows/" + s.workflow).body, "status"), "active");
  // Her own: she turns it off and on again.
  EXPECT_EQ(call(s.author, "POST", "/api/workflows/" + s.workflow + "/disable").status, 200);
  HttpReply again = call(s.author, "POST", "/api/workflows/" + s.workflow + "/enable");
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(json_str(again.body, "status"), "active");
}

// PATCH {"status"} follows the same rights as /disable, /enable and PUT: a
// manager may disable or archive a member's workflow but not make it active or
// bring it back from the archive; an ordinary member may do neither.
TEST_F(WorkflowRightsTest, PatchingTheStatusNeedsTheOwnerOrForStoppingItAManager) {
  Scene s = scene(copier(Copy::kWebhook, "http://127.0.0.1:9/copy"));
  Peer member = join(), channel_admin = join();
  add_member(s.boss, s.channel, member);
  add_member(s.boss, s.channel, channel_admin);
  OkReply promoted =
      s.boss->publish(make_event(s.boss.key, 9000, "", {{"h", s.channel}, {"p", channel_admin.hex}, {"role", "admin"}}));
  ASSERT_TRUE(promoted.accepted) << promoted.reason;
  const std::string path = "/api/workflows/" + s.workflow;
  auto status_of = [&] { return json_str(call(s.author, "GET", path).body, "status"); };
  constexpr char kForbidden[] = R"({"error":"not authorized to update this workflow"})";

  for (const char* status : {"disabled", "archived", "active"}) {
    SCOPED_TRACE(status);
    HttpReply r = call(member, "PATCH", path, std::string(R"({"status":")") + status + "\"}");
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(r.body, kForbidden);
  }
  EXPECT_EQ(status_of(), "active");

  HttpReply archived = call(channel_admin, "PATCH", path, R"({"status":"archived"})");
  ASSERT_EQ(archived.status, 200) << archived.body;
  EXPECT_EQ(json_str(archived.body, "status"), "archived");
  for (const char* status : {"active", "disabled"}) {  // out of the archive: the author's
    SCOPED_TRACE(status);
    EXPECT_EQ(call(channel_admin, "PATCH", path, std::string(R"({"status":")") + status + "\"}").body, kForbidden);
  }
  EXPECT_EQ(status_of(), "archived");
  HttpReply restored = call(s.author, "PATCH", path, R"({"status":"active"})");
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_EQ(status_of(), "active");
}

TEST_F(WorkflowRightsTest, TheRemovedAuthorMayStillDeleteHerWorkflowButNotTurnItBackOn) {
  Scene s = scene(copier(Copy::kWebhook, "http://127.0.0.1:9/copy"));
  remove(Removal::kChannel, s.boss, s.channel, s.author);
  EXPECT_EQ(call(s.author, "POST", "/api/workflows/" + s.workflow + "/disable").status, 200);
  HttpReply enabled = call(s.author, "POST", "/api/workflows/" + s.workflow + "/enable");
  EXPECT_EQ(enabled.status, 403) << enabled.body;
  EXPECT_EQ(call(s.author, "GET", "/api/workflows/" + s.workflow + "/runs").status, 403) << "the trace holds channel text";
  EXPECT_EQ(call(s.author, "DELETE", "/api/workflows/" + s.workflow).status, 204);
}

// The restart path: a run parked in a delay resumes from storage and checks then.
TEST_F(WorkflowRightsTest, ADelayResumedAfterARestartFailsWhenItsOwnerWasRemoved) {
  auto first = start_relay(RelayOptions{{"--open", "--rate-limits", "false"}, relay_env(), ""});
  ASSERT_NE(first, nullptr);
  HttpReceiver receiver;
  Peer boss = make_peer(*first), author = make_peer(*first);
  const std::string channel = create_channel(boss, "private");
  add_member(boss, channel, author);
  const std::string id = create_workflow(author, channel, parked_copier(kDelay, receiver.url("/copy")), nullptr, first.get());
  ASSERT_FALSE(id.empty());
  post(boss, channel, "secret posted before the removal");
  auto waiting = wait_status(author, id, "running", 5000, first.get());
  ASSERT_TRUE(waiting.has_value());
  ASSERT_EQ(waiting->status, "running");
  ASSERT_TRUE(boss->publish(make_event(boss.key, 9001, "", {{"h", channel}, {"p", author.hex}})).accepted);
  first->kill_hard();
  auto second = start_relay(RelayOptions{{"--open", "--rate-limits", "false"}, relay_env(), first->data_dir()});
  ASSERT_NE(second, nullptr);
  Peer boss_again{boss.key, boss.hex, nullptr};
  auto run = wait_run(boss_again, id, 1, 10000, second.get());
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "failed");
  EXPECT_NE(run->error.find("the workflow is disabled"), std::string::npos) << run->error;
  EXPECT_TRUE(receiver.received().empty());
}

}  // namespace
}  // namespace buzz::test
