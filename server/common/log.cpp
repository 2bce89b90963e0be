// Structured logging; see log.h.
#include "server/common/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>

#include "engine/json_text.h"

namespace buzz::server {
namespace {

std::atomic<LogLevel> g_level{LogLevel::kInfo};

std::string timestamp() {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t t = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(buf + n, sizeof buf - n, ".%03dZ", int(ms));
  return buf;
}

const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kError: return "error";
  }
  return "info";
}

}  // namespace

void set_log_level(LogLevel level) { g_level = level; }

bool parse_log_level(std::string_view s, LogLevel* out) {
  for (LogLevel l : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError}) {
    if (s == level_name(l)) {
      *out = l;
      return true;
    }
  }
  return false;
}

void log(LogLevel level, std::string_view msg, std::initializer_list<LogField> fields) {
  if (level < g_level.load(std::memory_order_relaxed)) return;
  JsonFields record;
  record.string("ts", timestamp()).string("level", level_name(level)).string("msg", msg);
  for (const auto& [k, v] : fields) record.string(k, v);
  const std::string line = record.str() + "\n";
  ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
  (void)n;
}

}  // namespace buzz::server
