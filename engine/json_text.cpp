// JSON writers; see json_text.h.
#include "engine/json_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

JsonFields& JsonFields::string(std::string_view key, std::string_view value) {
  engine::append_json_string(field(key), value);
  return *this;
}

JsonFields& JsonFields::string_or_null(std::string_view key, std::string_view value) {
  return value.empty() ? json(key, "null") : string(key, value);
}

JsonFields& JsonFields::decimal(std::string_view key, double value, int places) {
  if (!std::isfinite(value)) return json(key, "null");
  char text[64];
  const int n = std::snprintf(text, sizeof text, "%.*f", places, value);
  return json(key, std::string_view(text, size_t(std::clamp(n, 0, int(sizeof text) - 1))));
}

JsonFields& JsonFields::json(std::string_view key, std::string_view value) {
  field(key) += value;
  return *this;
}

std::string& JsonFields::field(std::string_view key) {
  if (out_.size() > 1) out_ += ',';
  engine::append_json_string(out_, key);
  out_ += ':';
  return out_;
}

}  // namespace buzz
