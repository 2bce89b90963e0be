// CommandRunner: command kinds that a room above the relay runs (the workflow
// commands 30620, 46020, 46030 and 46031 of docs/reference/workflows.md §14). The relay runs
// every check a stored event gets (signature, clock window, scope, token
// channels, rate limits, a stored duplicate) and then hands the event over on
// the loop thread. An accepted command is then stored as it is, never fanned
// out, so that sending it again answers "duplicate: already processed".
#pragma once

#include <cstdint>
#include <string>

#include "engine/event.h"

namespace buzz::server {

class CommandRunner {
 public:
  struct Outcome {
    bool accepted = false;
    std::string reason;   // the OK message: "response:{…}", or the refusal
    std::string channel;  // where the accepted command is stored; empty = global
  };

  virtual ~CommandRunner() = default;
  virtual bool runs(uint16_t kind) const = 0;
  // Loop thread. Must not wait for the store writer.
  virtual Outcome run(const engine::Event& command) = 0;
};

}  // namespace buzz::server
