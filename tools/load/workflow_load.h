// `buzz-load workflows`: what workflows cost the relay (issue 16's benchmarks).
//
// Overhead: the same kind-9 ingest into 100 open channels on two fresh relays,
// one holding 1,000 enabled message_posted workflows whose filters the
// messages never match (every filter is evaluated, no action runs), one
// holding none; the figure is the ratio of relay CPU per stored message.
// Latency: one workflow answering every message of its channel with a
// send_message; a subscriber times each post to the workflow's answer.
#pragma once

#include <map>
#include <string>

#include "tools/load/server_process.h"

namespace buzz::load {

struct WorkflowLoad {
  int workflows = 1000;
  int channels = 100;
  int messages = 20000;  // posted for the overhead, 8 connections, 50 in flight each
  int rate = 200;        // triggering messages per second, for the latency
  int seconds = 10;
};

// Relay CPU per stored kind-9 message (server_cpu_us_per_message) with the
// relay as it is; `with_workflows` first creates WorkflowLoad::workflows of them.
std::map<std::string, double> run_workflow_overhead(const ServerProcess& server, const WorkflowLoad& load,
                                                    bool with_workflows);
// Trigger to effect: posted, answered, lost, p50_ms, p99_ms.
std::map<std::string, double> run_workflow_latency(const ServerProcess& server, const WorkflowLoad& load);

}  // namespace buzz::load
