// Parsing one client→relay message (docs/reference/protocol.md §3.1, §3.3).
//
// A message that fails to parse becomes a ParseFailure carrying the exact
// NOTICE text, plus the event id or subscription id when they could still be
// read, so the handler can also answer OK false / CLOSED and the client fails
// fast instead of waiting (a Buzz-C++ decision).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/event.h"
#include "engine/filter.h"

namespace buzz::server {

inline constexpr size_t kMaxFiltersPerReq = 10;
inline constexpr size_t kMaxSubIdBytes = 256;

struct EventMessage {
  engine::Event event;
};
struct AuthMessage {
  engine::Event event;
};
struct ReqMessage {
  bool is_count = false;  // COUNT instead of REQ
  std::string sub_id;
  std::vector<engine::Filter> filters;
};
struct CloseMessage {
  std::string sub_id;
};
// NIP-77 negentropy: the message fields are lowercase hex, checked by the handler.
struct NegOpenMessage {
  std::string sub_id;
  engine::Filter filter;
  std::string message;
};
struct NegMsgMessage {
  std::string sub_id;
  std::string message;
};
struct NegCloseMessage {
  std::string sub_id;
};
struct ParseFailure {
  std::string notice;                   // full NOTICE text
  std::string detail;                   // what was wrong, the notice without its prefix
  std::optional<std::string> event_id;  // hex, if it could be read
  std::optional<std::string> sub_id;
  bool negentropy = false;              // the sub_id is a NEG-* one: answer NEG-ERR, not CLOSED
};

using ClientMessage = std::variant<EventMessage, AuthMessage, ReqMessage, CloseMessage, NegOpenMessage, NegMsgMessage,
                                   NegCloseMessage, ParseFailure>;

ClientMessage parse_client_message(std::string_view text);

}  // namespace buzz::server
