// Canonical serialization; see canonical.h.
#include "engine/canonical.h"

#include "engine/hex.h"

namespace buzz::engine {

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t run = 0;  // start of the pending run of bytes that need no escape
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\b': out.append("\\b"); break;
      case '\t': out.append("\\t"); break;
      case '\n': out.append("\\n"); break;
      case '\f': out.append("\\f"); break;
      case '\r': out.append("\\r"); break;
      default: {
        char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
        out.append(esc, 6);
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

void append_json_tags(std::string& out, const std::vector<Tag>& tags) {
  out.push_back('[');
  for (size_t i = 0; i < tags.size(); ++i) {
    if (i) out.push_back(',');
    out.push_back('[');
    for (size_t j = 0; j < tags[i].size(); ++j) {
      if (j) out.push_back(',');
      append_json_string(out, tags[i][j]);
    }
    out.push_back(']');
  }
  out.push_back(']');
}

void canonical_serialization(const Event& e, std::string& out) {
  out.clear();
  out.append("[0,\"");
  char hex[64];
  hex_encode(e.pubkey.data(), 32, hex);
  out.append(hex, 64);
  out.append("\",");
  out.append(std::to_string(e.created_at));
  out.push_back(',');
  out.append(std::to_string(e.kind));
  out.push_back(',');
  append_json_tags(out, e.tags);
  out.push_back(',');
  append_json_string(out, e.content);
  out.push_back(']');
}

Id compute_id(const Event& e) {
  thread_local std::string buf;
  canonical_serialization(e, buf);
  Id id;
  sha256(buf.data(), buf.size(), id.data());
  return id;
}

std::string sha256_hex(std::string_view bytes) {
  uint8_t digest[32];
  sha256(bytes.data(), bytes.size(), digest);
  return to_hex(digest, sizeof digest);
}

}  // namespace buzz::engine
