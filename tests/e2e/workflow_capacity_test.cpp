// The permits of docs/reference/workflows.md §8.1 on a relay allowing one run at a time: a
// run triggered while another holds the permit fails with "capacity
// exceeded" (no queue), and a granted approval that finds no permit waits in
// waiting_approval and resumes on a later tick (§11.2, a Buzz decision).
#include "tests/e2e/workflow_fixture.h"

namespace buzz::test {
namespace {

class WorkflowCapacityTest : public WorkflowTest {};

TEST_F(WorkflowCapacityTest, OnePermit) {
  auto env = relay_env();
  env.push_back({"BUZZ_WORKFLOW_MAX_CONCURRENT", "1"});
  auto relay = start_relay(RelayOptions{{"--open", "--rate-limits", "false"}, env, ""});
  ASSERT_NE(relay, nullptr);
  Peer owner = make_peer(*relay);
  std::string channel = create_channel(owner);
  std::string slow = create_workflow(owner, channel, "name: Slow\ntrigger: {on: webhook}\nsteps:\n"
                                                     "  - {id: wait, action: delay, duration: 3s}\n", nullptr, relay.get());
  std::string gate = create_workflow(owner, channel, "name: Gate\ntrigger: {on: webhook}\nsteps:\n"
                                                     "  - {id: ok, action: request_approval, from: any, message: 'ok?'}\n"
                                                     "  - {id: say, action: send_message, text: 'after the grant'}\n",
                                     nullptr, relay.get());
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + gate + "/trigger", "", relay.get()).status, 202);
  auto parked = wait_run(owner, gate, 1, 5000, relay.get());
  ASSERT_TRUE(parked.has_value());
  ASSERT_EQ(parked->status, "waiting_approval");
  HttpReply approvals = rest(owner.key, "GET", "/api/workflows/" + gate + "/runs/" + parked->id + "/approvals", "",
                             relay.get());
  const std::string hash = json_str(approvals.body.substr(1, approvals.body.size() - 2), "token");
  ASSERT_EQ(hash.size(), 64u) << approvals.body;

  // The slow run takes the only permit; another run right then fails at once.
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + slow + "/trigger", "", relay.get()).status, 202);
  auto holding = wait_status(owner, slow, "running", 5000, relay.get());
  ASSERT_TRUE(holding.has_value());
  ASSERT_EQ(holding->status, "running");
  ASSERT_EQ(rest(owner.key, "POST", "/api/workflows/" + slow + "/trigger", "", relay.get()).status, 202);
  auto refused = wait_run(owner, slow, 2, 5000, relay.get());
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, "failed");
  EXPECT_EQ(refused->error, "capacity exceeded");

  // The grant finds no permit: the run waits, then resumes once the delay ends.
  // The grant itself marks the run running before it looks for a permit, so
  // waiting_approval after it is the run parked again.
  ASSERT_EQ(rest(owner.key, "POST", "/api/approvals/by-hash/" + hash + "/grant", "", relay.get()).status, 202);
  auto waiting = wait_status(owner, gate, "waiting_approval", 5000, relay.get());
  ASSERT_TRUE(waiting.has_value());
  EXPECT_EQ(waiting->status, "waiting_approval");
  EXPECT_EQ(runs(owner, gate, relay.get()).size(), 1u);
  auto done = wait_status(owner, gate, "completed", 10000, relay.get());
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->status, "completed") << done->error;
  EXPECT_EQ(done->trace.find(R"("step_id":"ok")"), done->trace.rfind(R"("step_id":"ok")"));  // one approval entry
}

}  // namespace
}  // namespace buzz::test
