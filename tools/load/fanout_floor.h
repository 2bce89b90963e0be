// The latency floor under live fan-out, measured beside `buzz-load fanout` in
// the same run: for each event, only what any durable relay must do before
// its subscribers can read it — verify its signature, make it durable (one
// append and fdatasync on the data directory's file system, as the store's
// group commit), then one send of a delivery-sized frame to each subscriber's
// loopback connection, split over two sending threads as the relay splits its
// subscribers over two loops. The frames are WebSocket text frames, and two
// reader threads stamp and read each arrival as the relay's readers do (epoll,
// then delivery_reader.h). What the relay's p99 has above this
// floor's is the relay's own; what the floor's p99 has is the machine's.
#pragma once

#include <string>
#include <vector>

#include "engine/event.h"

namespace buzz::load {

struct FanoutFloorOptions {
  int connections = 1000;
  int rate = 50;      // events per second
  int seconds = 10;
  size_t frame_bytes = 400;
  std::string dir;    // where the durable append goes: the relay's data directory's file system
};

struct FanoutFloorRun {
  // Publish→arrival latencies in seconds, sorted; as many as arrived within
  // the run and a 10-second grace.
  std::vector<double> latencies;
  double reader_cpu_s = 0;  // the reader threads' own CPU, on the cores the senders use
};

// `signed_event` is what each event's verify checks.
FanoutFloorRun fanout_latency_floor(const FanoutFloorOptions& o, const engine::Event& signed_event);

}  // namespace buzz::load
