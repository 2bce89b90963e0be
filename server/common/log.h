// Structured logs: one JSON object per line on stderr, e.g.
//   {"ts":"2026-12-02T10:00:00.123Z","level":"info","msg":"listening","addr":"0.0.0.0:3000"}
// Thread-safe (one write(2) per line). Level from BUZZ_LOG: debug, info, warn, error.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace buzz::server {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

void set_log_level(LogLevel level);
bool parse_log_level(std::string_view s, LogLevel* out);

using LogField = std::pair<std::string_view, std::string>;
void log(LogLevel level, std::string_view msg, std::initializer_list<LogField> fields = {});

inline void log_info(std::string_view msg, std::initializer_list<LogField> f = {}) { log(LogLevel::kInfo, msg, f); }
inline void log_warn(std::string_view msg, std::initializer_list<LogField> f = {}) { log(LogLevel::kWarn, msg, f); }
inline void log_error(std::string_view msg, std::initializer_list<LogField> f = {}) { log(LogLevel::kError, msg, f); }

}  // namespace buzz::server
