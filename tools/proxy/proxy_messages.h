// The relay messages the proxy writes (NIP-01 arrays), to clients and upstream.
#pragma once

#include <string>
#include <string_view>

#include "engine/canonical.h"

namespace buzz::proxy {

inline std::string with_string(std::string_view head, std::string_view s, std::string_view tail = "]") {
  std::string out(head);
  engine::append_json_string(out, s);
  out += tail;
  return out;
}

inline std::string auth_msg(std::string_view challenge) { return with_string("[\"AUTH\",", challenge); }
inline std::string notice_msg(std::string_view text) { return with_string("[\"NOTICE\",", text); }
inline std::string eose_msg(std::string_view sub) { return with_string("[\"EOSE\",", sub); }
inline std::string close_msg(std::string_view sub) { return with_string("[\"CLOSE\",", sub); }
inline std::string closed_msg(std::string_view sub, std::string_view reason) {
  return with_string(with_string("[\"CLOSED\",", sub, ","), reason);
}
inline std::string ok_msg(std::string_view id, bool accepted, std::string_view reason) {
  return with_string(with_string("[\"OK\",", id, accepted ? ",true," : ",false,"), reason);
}
// ["REQ","<sub>",<filters>]: `filters` is already a comma-separated list of objects.
inline std::string req_msg(std::string_view sub, std::string_view filters) {
  return with_string("[\"REQ\",", sub, ",") + std::string(filters) + "]";
}

}  // namespace buzz::proxy
