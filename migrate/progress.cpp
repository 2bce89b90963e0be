// Progress output; see progress.h.
#include "migrate/progress.h"

#include <unistd.h>

#include <cstdio>

#include "engine/json_text.h"

namespace buzz::migrate {

Progress::Mode Progress::mode_for(bool json) {
  return json ? Mode::kJson : isatty(STDERR_FILENO) ? Mode::kBar : Mode::kLines;
}

void Progress::begin(const std::string& step, uint64_t total) {
  std::lock_guard lock(mu_);
  step_ = step;
  total_ = total;
  done_ = 0;
  started_ = last_print_ = std::chrono::steady_clock::now();
}

void Progress::advance(uint64_t n) {
  std::lock_guard lock(mu_);
  done_ += n;
  const auto now = std::chrono::steady_clock::now();
  const auto every = mode_ == Mode::kBar ? std::chrono::milliseconds(100) : std::chrono::seconds(5);
  if (now - last_print_ >= every && mode_ != Mode::kJson) {
    last_print_ = now;
    print(false, {});
  }
}

void Progress::end(const std::string& note) {
  std::lock_guard lock(mu_);
  print(true, note);
}

double Progress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

double Progress::rate() const {
  const double secs = seconds();
  return secs > 0 ? double(done_) / secs : 0;
}

void Progress::print(bool final, const std::string& note) {
  const bool bytes = unit_ == Unit::kBytes;
  const char* unit = bytes ? "bytes" : "rows";
  // What a person reads: rows as they are, bytes in MiB.
  const double scale = bytes ? 1.0 / (1 << 20) : 1.0;
  const char* shown = bytes ? "MiB" : "rows";
  const double done = double(done_) * scale, total = double(total_) * scale;
  std::string of_total;
  if (total_) {
    char text[48];
    std::snprintf(text, sizeof text, " / %.*f", bytes ? 1 : 0, total);
    of_total = text;
  }
  switch (mode_) {
    case Mode::kQuiet: return;
    case Mode::kJson: {
      JsonFields line;
      line.string("step", step_)
          .number(unit, done_)
          .number(std::string(unit) + "_per_s", uint64_t(rate()))
          .decimal("seconds", seconds(), 3);
      if (!note.empty()) line.string("note", note);
      std::printf("%s\n", line.str().c_str());
      std::fflush(stdout);
      return;
    }
    case Mode::kBar: {
      constexpr int kWidth = 30;
      const double share = total_ ? std::min(1.0, double(done_) / double(total_)) : (final ? 1.0 : 0.0);
      const int filled = int(share * kWidth);
      std::fprintf(stderr, "\r%-16s [%.*s%*s] %.*f%s %s  %.0f %s/s %s", step_.c_str(), filled,
                   "##############################", kWidth - filled, "", bytes ? 1 : 0, done, of_total.c_str(), shown,
                   rate() * scale, shown, note.c_str());
      if (final) std::fputc('\n', stderr);
      return;
    }
    case Mode::kLines:
      std::fprintf(stderr, "%s: %.*f%s %s, %.0f %s/s, %.2f s%s%s%s\n", step_.c_str(), bytes ? 1 : 0, done,
                   of_total.c_str(), shown, rate() * scale, shown, seconds(), final ? ", done" : "",
                   note.empty() ? "" : ", ", note.c_str());
      return;
  }
}

}  // namespace buzz::migrate
