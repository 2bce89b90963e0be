// Rendering templates; see template.h.
#include "server/workflows/template.h"
#include "engine/text.h"

#include <optional>

namespace buzz::server {
namespace {

std::optional<std::string> resolve(std::string_view path, const RunContext& c) {
  if (path.starts_with("trigger.")) {
    std::string_view name = path.substr(8);
    const TriggerContext& t = c.trigger;
    if (name == "text") return t.text;
    if (name == "author") return t.author;
    if (name == "channel_id") return t.channel_id;
    if (name == "timestamp") return t.timestamp;
    if (name == "emoji") return t.emoji;
    if (name == "message_id") return t.message_id;
    for (const auto& [k, v] : t.webhook_fields) {
      if (k == name) return v;
    }
    return std::nullopt;
  }
  if (path.starts_with("steps.")) {
    // steps.ID.output.FIELD: FIELD is the remainder, used as one key.
    std::string_view rest = path.substr(6);
    size_t dot = rest.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    std::string_view id = rest.substr(0, dot);
    rest = rest.substr(dot + 1);
    if (!rest.starts_with("output.")) return std::nullopt;
    std::string_view field = rest.substr(7);
    auto it = c.outputs.find(std::string(id));
    if (it == c.outputs.end()) return std::nullopt;
    for (const auto& [k, v] : it->second) {
      if (k == field) return v.kind == OutputValue::Kind::kNull ? std::string() : v.text;
    }
  }
  return std::nullopt;
}

// The first n Unicode scalar values of UTF-8 text.
std::string first_chars(const std::string& s, uint64_t n) {
  size_t i = 0;
  for (uint64_t count = 0; i < s.size() && count < n; ++count) {
    ++i;
    while (i < s.size() && (uint8_t(s[i]) & 0xC0) == 0x80) ++i;
  }
  return s.substr(0, i);
}

size_t char_count(const std::string& s) {
  size_t n = 0;
  for (char ch : s) n += (uint8_t(ch) & 0xC0) != 0x80;
  return n;
}

engine::Result<std::string> apply_filter(std::string_view filter, std::string value) {
  if (filter == "truncate_pubkey") {
    if (char_count(value) < 12) return value;
    std::string head = first_chars(value, 6);
    // The last six characters.
    size_t cut = value.size(), count = 0;
    while (cut > 0 && count < 6) {
      --cut;
      if ((uint8_t(value[cut]) & 0xC0) != 0x80) ++count;
    }
    return head + "..." + value.substr(cut);
  }
  if (filter.starts_with("truncate(") && filter.ends_with(")")) {
    std::string_view arg = engine::trim(filter.substr(9, filter.size() - 10));
    uint64_t n = 0;
    bool ok = !arg.empty();
    for (char ch : arg) ok = ok && ch >= '0' && ch <= '9' && !__builtin_mul_overflow(n, 10, &n) &&
                             !__builtin_add_overflow(n, uint64_t(ch - '0'), &n);
    if (!ok) return engine::Error{"template error: truncate() requires a number, got: " + std::string(arg)};
    return first_chars(value, n);
  }
  return engine::Error{"template error: unknown filter: " + std::string(filter)};
}

}  // namespace

engine::Result<std::string> render_template(std::string_view text, const RunContext& context) {
  if (text.find("{{") == std::string_view::npos) return std::string(text);
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) {
      out += text.substr(pos);
      break;
    }
    out += text.substr(pos, open - pos);
    size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) {
      out += text.substr(open);
      break;
    }
    std::string_view expr = engine::trim(text.substr(open + 2, close - open - 2));
    std::string_view path = expr, filter;
    if (size_t bar = expr.find('|'); bar != std::string_view::npos) {
      path = engine::trim(expr.substr(0, bar));
      filter = engine::trim(expr.substr(bar + 1));
    }
    std::optional<std::string> value = resolve(path, context);
    if (!value) {
      out += "{{" + std::string(expr) + "}}";
    } else if (expr.find('|') != std::string_view::npos) {
      auto filtered = apply_filter(filter, std::move(*value));
      if (!filtered) return filtered;
      out += *filtered;
    } else {
      out += *value;
    }
    pos = close + 2;
  }
  return out;
}

}  // namespace buzz::server
