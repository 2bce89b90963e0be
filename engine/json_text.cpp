// JSON writers; see json_text.h.
#include "engine/json_text.h"

#include <algorithm>

#include "engine/canonical.h"
#include "engine/channel.h"

namespace buzz {

std::string json_string(std::string_view s) {
  std::string out;
  engine::append_json_string(out, s);
  return out;
}

std::string json_string_or_null(std::string_view s) { return s.empty() ? "null" : json_string(s); }

std::string json_object(std::vector<std::pair<std::string, std::string>> fields) {
  std::sort(fields.begin(), fields.end());
  std::string out = "{";
  for (const auto& [k, v] : fields) {
    if (out.size() > 1) out += ',';
    engine::append_json_string(out, k);
    out += ':';
    out += v;
  }
  return out + "}";
}

std::string json_time_or_null(uint64_t t) { return t ? json_string(engine::rfc3339(t)) : "null"; }

std::string json_array(const std::vector<std::string>& values) {
  std::string out = "[";
  for (const std::string& v : values) {
    if (out.size() > 1) out += ',';
    out += v;
  }
  return out + "]";
}

}  // namespace buzz
