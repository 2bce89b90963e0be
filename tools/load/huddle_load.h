// `buzz-load huddle`: live audio through the relay (issue 19 §1): `rooms`
// huddles of `speakers` peers each, every peer sending real 20 ms Opus frames
// (libopus) at `rate` frames a second; every other peer of its room times each
// frame from its send to its arrival. Reports the forward latency, the frames
// lost, and the server's CPU per forwarded frame next to one loopback send
// measured in the same run (LoopbackFloor).
#pragma once

#include <map>
#include <string>

#include "tools/load/server_process.h"

namespace buzz::load {

struct HuddleLoad {
  int rooms = 50;
  int speakers = 4;
  int rate = 50;  // frames per second per speaker
  int seconds = 10;
};

std::map<std::string, double> run_huddle_load(const ServerProcess& server, const HuddleLoad& load);

}  // namespace buzz::load
