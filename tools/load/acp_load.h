// buzz-load acp: the agent harness's latency from a mention to the prompt in
// the agent's hands, with every agent of a full pool (32) kept busy. A real
// `buzz acp` runs against the real relay; its agents are this binary in
// `acp-agent` mode, a minimal ACP agent that notes when each prompt arrived
// (steady clock, comparable across processes on one machine) and then works
// for a while. The floor, measured in the same run: the relay's own delivery
// of the same mentions to a plain subscriber.
#pragma once

#include <map>
#include <string>

#include "tools/load/server_process.h"

namespace buzz::load {

struct AcpLoadOptions {
  std::string buzz_binary, self_binary;
  int agents = 32;      // also the number of channels: one turn in flight per channel
  int rounds = 20;      // mentions per channel
  int work_ms = 400;    // each turn's work; a channel's next mention comes work_ms + 100 ms later
};

std::map<std::string, double> run_acp_load(const ServerProcess& server, const AcpLoadOptions& o);

// `buzz-load acp-agent LOG WORK_MS`: the agent side (stdin/stdout ACP).
int run_acp_bench_agent(int argc, char** argv);

}  // namespace buzz::load
