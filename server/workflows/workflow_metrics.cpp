// The workflow counters as Prometheus text, appended to /metrics by the ops
// room through MetricsSources::more (ops may not include this room).
#include "server/workflows/workflows.h"

namespace buzz::server {
namespace {

void header(std::string& out, const char* name, const char* type, const char* help) {
  out += "# HELP " + std::string(name) + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

std::string Workflows::metrics_text() const {
  auto get = [](const std::atomic<uint64_t>& a) { return std::to_string(a.load(std::memory_order_relaxed)); };
  std::string out;
  header(out, "buzz_workflow_runs_total", "counter", "workflow runs created, by trigger");
  for (size_t k = 0; k < 6; ++k) {
    const std::string trigger = k < 5 ? std::string(trigger_name(TriggerKind(k))) : "manual";
    out += "buzz_workflow_runs_total{trigger=\"" + trigger + "\"} " + get(counters_.runs_by_trigger[k]) + "\n";
  }
  header(out, "buzz_workflow_runs_finished_total", "counter", "workflow runs ended, by outcome");
  out += "buzz_workflow_runs_finished_total{outcome=\"completed\"} " + get(counters_.runs_completed) + "\n";
  out += "buzz_workflow_runs_finished_total{outcome=\"failed\"} " + get(counters_.runs_failed) + "\n";
  out += "buzz_workflow_runs_finished_total{outcome=\"cancelled\"} " + get(counters_.runs_cancelled) + "\n";
  header(out, "buzz_workflow_actions_total", "counter", "workflow steps completed, by action");
  for (size_t a = 0; a < 7; ++a) {
    out += "buzz_workflow_actions_total{action=\"" + std::string(action_name(ActionKind(a))) + "\"} " +
           get(counters_.actions[a]) + "\n";
  }
  header(out, "buzz_workflow_webhook_latency_ms", "summary", "call_webhook request time in milliseconds");
  out += "buzz_workflow_webhook_latency_ms_sum " + get(counters_.webhook_ms_total) + "\n";
  out += "buzz_workflow_webhook_latency_ms_count " + get(counters_.webhook_calls) + "\n";
  header(out, "buzz_workflow_approvals_pending", "gauge", "approvals waiting for a decision");
  out += "buzz_workflow_approvals_pending " + std::to_string(approvals_pending()) + "\n";
  header(out, "buzz_workflow_runs_active", "gauge", "workflow runs holding a permit");
  out += "buzz_workflow_runs_active " + std::to_string(runs_active()) + "\n";
  header(out, "buzz_workflow_triggers_dropped_total", "counter", "events not matched because the trigger queue was full");
  out += "buzz_workflow_triggers_dropped_total " + get(counters_.triggers_dropped) + "\n";
  header(out, "buzz_workflow_ticks_total", "counter", "scheduler ticks done (schedules, expiries, parked runs)");
  out += "buzz_workflow_ticks_total " + get(counters_.ticks) + "\n";
  return out;
}

}  // namespace buzz::server
