// `buzz-load crash`: proof that an OK true survives kill -9. Each cycle starts the
// relay on one data directory, ingests from several connections, and SIGKILLs it
// at a random moment; at the end, every event ever answered OK true must be stored,
// and `buzz audit verify` must pass on the directory.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace buzz::load {

struct CrashRun {
  std::string binary;
  std::string data_dir;
  int cycles = 50;
  int connections = 4;
  uint32_t seed = 1;  // the kill moments are drawn from it, so a failure replays
};

// Figures: cycles, acknowledged (OK true), missing (acknowledged, not found after
// the last restart), audit_verify_ok (1 or 0). Throws std::runtime_error if a
// restart fails.
std::map<std::string, double> run_crash(const CrashRun& run);

}  // namespace buzz::load
