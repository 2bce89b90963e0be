// The latency floor under live fan-out, measured beside `buzz-load fanout` in
// the same run: for each event, only what any durable relay must do before
// its subscribers can read it — verify its signature, make it durable (one
// append and fdatasync on the data directory's file system, as the store's
// group commit), then one send of a delivery-sized frame to each subscriber's
// loopback connection, split over two sending threads as the relay splits its
// subscribers over two loops. The frames are WebSocket text frames, read by
// the relay's own latency readers (latency_readers.h). What the relay's p99 has above this
// floor's is the relay's own; what the floor's p99 has is the machine's.
#pragma once

#include <string>
#include <vector>

#include "engine/event.h"
#include "tools/load/latency_readers.h"

namespace buzz::load {

struct FanoutFloorOptions {
  int connections = 1000;
  int rate = 50;      // events per second
  int seconds = 10;
  size_t frame_bytes = 400;
  std::string dir;    // where the durable append goes: the relay's data directory's file system
};

// As many deliveries as arrived within the run and a 10-second grace.
// `signed_event` is what each event's verify checks.
Deliveries fanout_latency_floor(const FanoutFloorOptions& o, const engine::Event& signed_event);

}  // namespace buzz::load
