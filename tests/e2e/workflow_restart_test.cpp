// Parked runs survive the relay (docs/reference/workflows.md §8, §11.2 "restart safety"): a
// run in a 5-second delay and a run waiting for approval both continue after
// a kill -9 and a restart on the same data directory.
#include "tests/e2e/workflow_fixture.h"

namespace buzz::test {
namespace {

class WorkflowRestartTest : public WorkflowTest {
 protected:
  static std::unique_ptr<RelayProcess> start_on(const std::string& data_dir) {
    return start_relay(RelayOptions{{"--open", "--rate-limits", "false"}, relay_env(), data_dir});
  }
};

TEST_F(WorkflowRestartTest, ADelayResumesAfterKill9) {
  auto first = start_on("");
  ASSERT_NE(first, nullptr);
  Peer owner = make_peer(*first);
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, R"(name: Slow
trigger: {on: webhook}
steps:
  - id: begin
    action: send_message
    text: "settling"
  - id: settle
    action: delay
    duration: 5s
  - id: after
    action: send_message
    text: "settled"
)", nullptr, first.get());
  ASSERT_FALSE(id.empty());
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + id + "/trigger", "", first.get()).status, 202);
  // A run's step index is saved when a step ends, and again by a delay with
  // its wake-up time: at step 1, the delay is on disk.
  auto before = wait_newest(owner, id, [](const RunView& r) { return r.current_step == 1; }, 10000, first.get());
  ASSERT_TRUE(before.has_value());
  ASSERT_EQ(before->current_step, 1);
  EXPECT_EQ(before->status, "running");
  ASSERT_EQ(runs(owner, id, first.get()).size(), 1u);
  const auto killed_at = std::chrono::steady_clock::now();
  first->kill_hard();
  auto second = start_on(first->data_dir());
  ASSERT_NE(second, nullptr);
  Peer again{owner.key, owner.hex, nullptr};
  auto run = wait_status(again, id, "completed", 15000, second.get());
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "completed") << run->error;
  // It woke at the stored time, not five seconds after the restart.
  EXPECT_LT(std::chrono::steady_clock::now() - killed_at, std::chrono::seconds(9));
  EXPECT_NE(run->trace.find(R"("slept_secs":5)"), std::string::npos) << run->trace;
}

TEST_F(WorkflowRestartTest, APendingApprovalSurvivesARestart) {
  auto first = start_on("");
  ASSERT_NE(first, nullptr);
  Peer owner = make_peer(*first);
  std::string channel = create_channel(owner);
  std::string id = create_workflow(owner, channel, R"(name: Gate
trigger: {on: webhook}
steps:
  - id: approve
    action: request_approval
    from: any
    message: "ok?"
  - id: after
    action: send_message
    text: "approved by {{steps.approve.output.approver}}"
)", nullptr, first.get());
  subscribe(owner, "asks", h_filter(channel, "46010"));
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + id + "/trigger", "", first.get()).status, 202);
  auto m = owner->wait_for([&](const RelayMessage& r) { return r.type == "EVENT" && r.event.kind == 46010; });
  ASSERT_TRUE(m.has_value());
  const std::string hash(m->event.first_tag_value("approval"));
  first->kill_hard();
  auto second = start_on(first->data_dir());
  ASSERT_NE(second, nullptr);
  Peer again{owner.key, owner.hex, nullptr};
  auto parked = wait_run(again, id, 1, 5000, second.get());
  ASSERT_TRUE(parked.has_value());
  EXPECT_EQ(parked->status, "waiting_approval");
  HttpReply granted = rest(owner.key, "POST", "/api/approvals/by-hash/" + hash + "/grant", "", second.get());
  ASSERT_EQ(granted.status, 202) << granted.body;
  auto run = wait_status(again, id, "completed", 10000, second.get());
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, "completed") << run->error;
  // The grant is in the audit chain, under the approver's name.
  ASSERT_TRUE(second->terminate());
  int status = -1;
  const std::string chain = run_buzz("audit tail -n 200 --data-dir " + first->data_dir(), &status);
  EXPECT_EQ(status, 0) << chain;
  size_t at = chain.find("\"kind\":46011");
  ASSERT_NE(at, std::string::npos) << chain;
  const std::string line = chain.substr(chain.rfind('\n', at) + 1, chain.find('\n', at) - chain.rfind('\n', at) - 1);
  EXPECT_NE(line.find("\"actor\":\"" + owner.hex + "\""), std::string::npos) << line;
}

}  // namespace
}  // namespace buzz::test
