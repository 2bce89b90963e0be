// Progress of a long step (a migration's, a backup's), in the form the caller
// asked for: a bar with counts and rate on a terminal (stderr), a plain line
// every few seconds and at each step's end otherwise, or JSON lines on stdout
// for agents. It counts rows, or bytes (shown in MiB).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace buzz::migrate {

// advance() may be called from several threads (an export's two event streams).
class Progress {
 public:
  enum class Mode { kBar, kLines, kJson, kQuiet };
  enum class Unit { kRows, kBytes };
  explicit Progress(Mode mode, Unit unit = Unit::kRows) : mode_(mode), unit_(unit) {}
  // A bar on a terminal, lines otherwise; JSON lines for --json.
  static Mode mode_for(bool json);

  // A new step; total 0 when unknown.
  void begin(const std::string& step, uint64_t total);
  void advance(uint64_t n);
  // The step is over; `note` (may be empty) is added to its last line.
  void end(const std::string& note = {});

  uint64_t done() const {
    std::lock_guard lock(mu_);
    return done_;
  }

 private:
  void print(bool final, const std::string& note);
  double rate() const;
  double seconds() const;  // since the step began

  mutable std::mutex mu_;
  Mode mode_;
  Unit unit_;
  std::string step_;
  uint64_t total_ = 0, done_ = 0;
  std::chrono::steady_clock::time_point started_, last_print_;
};

}  // namespace buzz::migrate
