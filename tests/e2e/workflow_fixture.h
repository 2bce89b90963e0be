// WorkflowTest: one open relay for the workflow suites (workflow_*test.cpp),
// with the scheduler ticking every second and 127.0.0.1 on the webhook
// allow-list (so the tests' HttpReceiver can be a call_webhook target), and
// the REST helpers they share: creating workflows from YAML, reading runs,
// waiting for a run to finish. Expected texts are those of
// docs/reference/workflows.md and docs/reference/rest-api.md §3.13–§3.14.
#pragma once

#include <gtest/gtest.h>
#include <simdjson.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/channel_fixture.h"
#include "tests/e2e/http_receiver.h"

namespace buzz::test {

struct RunView {
  std::string id, status, error, trace;
  int64_t current_step = -1;
};

inline std::vector<RunView> parse_runs(const std::string& body) {
  std::vector<RunView> out;
  simdjson::dom::parser parser;
  simdjson::dom::array runs;
  if (parser.parse(body).get_array().get(runs)) return out;
  for (simdjson::dom::element r : runs) {
    RunView v;
    std::string_view s;
    if (!r["id"].get_string().get(s)) v.id = s;
    if (!r["status"].get_string().get(s)) v.status = s;
    if (!r["error_message"].get_string().get(s)) v.error = s;
    int64_t n;
    if (!r["current_step"].get_int64().get(n)) v.current_step = n;
    v.trace = simdjson::minify(r["execution_trace"]);
    out.push_back(std::move(v));
  }
  return out;
}

inline std::string wf_body(const std::string& yaml) { return "{\"yaml_definition\":" + json_quote(yaml) + "}"; }

class WorkflowTest : public ::testing::Test {
 protected:
  static std::vector<std::pair<std::string, std::string>> relay_env() {
    return {{"BUZZ_WORKFLOW_TICK_SECS", "1"}, {"BUZZ_WORKFLOW_WEBHOOK_ALLOW_HOSTS", "127.0.0.1"}, {"BUZZ_TEST_CLOCK", "1"}};
  }
  static void SetUpTestSuite() {
    relay_ = start_relay(RelayOptions{{"--open", "--rate-limits", "false"}, relay_env(), ""});
  }
  static void TearDownTestSuite() { relay_.reset(); }
  void SetUp() override { ASSERT_NE(relay_, nullptr) << "the relay did not start"; }

  static RelayProcess& relay() { return *relay_; }
  static Peer user() { return make_peer(*relay_); }

  static std::string create_channel(Peer& owner, const std::string& visibility = "open") {
    std::string id = new_uuid();
    OkReply ok = owner->publish(make_event(owner.key, 9007, "", {{"h", id}, {"name", "wf " + id.substr(0, 8)},
                                                                 {"visibility", visibility}}));
    EXPECT_TRUE(ok.accepted) << "9007: " << ok.reason;
    return id;
  }
  static void add_member(Peer& admin, const std::string& channel, Peer& who) {
    OkReply ok = admin->publish(make_event(admin.key, 9000, unique_text("put"), {{"h", channel}, {"p", who.hex}}));
    EXPECT_TRUE(ok.accepted) << "9000: " << ok.reason;
  }
  static engine::Event post(Peer& author, const std::string& channel, const std::string& text) {
    engine::Event e = make_event(author.key, 9, text, {{"h", channel}});
    OkReply ok = author->publish(e);
    EXPECT_TRUE(ok.accepted) << "kind 9: " << ok.reason;
    return e;
  }

  static HttpReply rest(const engine::Keypair& key, const std::string& method, const std::string& path,
                        const std::string& body = "", RelayProcess* on = nullptr) {
    RelayProcess& r = on ? *on : *relay_;
    const std::string url = "http://127.0.0.1:" + std::to_string(r.port()) + path;
    std::vector<std::pair<std::string, std::string>> headers = {{"Authorization", nip98_header(key, url, method, body)}};
    if (!body.empty()) headers.push_back({"Content-Type", "application/json"});
    return http_call(r.port(), method, path, headers, body);
  }
  // Creates a workflow; its id, or "" (and the reply in *out).
  static std::string create_workflow(Peer& owner, const std::string& channel, const std::string& yaml,
                                     HttpReply* out = nullptr, RelayProcess* on = nullptr) {
    HttpReply r = rest(owner.key, "POST", "/api/channels/" + channel + "/workflows", wf_body(yaml), on);
    if (out) {
      *out = r;
    } else {
      EXPECT_EQ(r.status, 200) << r.body;
    }
    return r.status == 200 ? json_str(r.body, "id") : "";
  }
  static std::vector<RunView> runs(Peer& owner, const std::string& workflow, RelayProcess* on = nullptr) {
    HttpReply r = rest(owner.key, "GET", "/api/workflows/" + workflow + "/runs", "", on);
    EXPECT_EQ(r.status, 200) << r.body;
    return parse_runs(r.body);
  }
  // Waits until the workflow has at least `count` runs and the newest is final.
  static std::optional<RunView> wait_run(Peer& owner, const std::string& workflow, size_t count = 1,
                                         int timeout_ms = 10000, RelayProcess* on = nullptr) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < deadline) {
      auto all = runs(owner, workflow, on);
      if (all.size() >= count) {
        const std::string& s = all.front().status;
        if (s == "completed" || s == "failed" || s == "cancelled" || s == "waiting_approval") return all.front();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return std::nullopt;
  }
  // Waits until the newest run is `done`; the newest run last seen.
  template <class Pred>
  static std::optional<RunView> wait_newest(Peer& owner, const std::string& workflow, Pred done, int timeout_ms = 10000,
                                            RelayProcess* on = nullptr) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    std::optional<RunView> last;
    while (std::chrono::steady_clock::now() < deadline) {
      auto all = runs(owner, workflow, on);
      if (!all.empty()) last = all.front();
      if (last && done(*last)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return last;
  }
  // Waits until the newest run has this status; the newest run last seen.
  static std::optional<RunView> wait_status(Peer& owner, const std::string& workflow, const std::string& status,
                                            int timeout_ms = 10000, RelayProcess* on = nullptr) {
    return wait_newest(owner, workflow, [&](const RunView& r) { return r.status == status; }, timeout_ms, on);
  }
  // Waits until the scheduler has finished `n` more ticks (buzz_workflow_ticks_total):
  // with n = 2, one whole tick began after this call, so whatever was due or
  // queued before it (a schedule, a committed event to match) has been seen.
  static bool await_ticks(int n = 2, RelayProcess* on = nullptr) {
    RelayProcess& r = on ? *on : *relay_;
    auto ticks = [&] { return metric_value(http_get(r.port(), "/metrics").body, "buzz_workflow_ticks_total"); };
    const int64_t target = ticks() + n;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (ticks() < target) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
  }

 private:
  static inline std::unique_ptr<RelayProcess> relay_;
};

}  // namespace buzz::test
