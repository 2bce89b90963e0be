// Client message parsing; see client_message.h.
#include "server/relay/client_message.h"

#include <simdjson.h>

#include "engine/event_parse.h"

namespace buzz::server {
namespace {

using simdjson::dom::element;

ParseFailure failure(std::string detail) {
  return ParseFailure{"invalid message: Invalid message format: " + detail, std::move(detail), {}, {}};
}

// Returns the raw text of the second element of a JSON array. The input has
// already been validated by simdjson, so this only needs to track strings and
// nesting depth, not to validate anything.
std::string_view second_element(std::string_view json) {
  size_t i = json.find('[') + 1;
  auto skip_ws = [&] {
    while (i < json.size() && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n' || json[i] == '\r')) ++i;
  };
  auto skip_value = [&] {
    int depth = 0;
    bool in_string = false;
    for (; i < json.size(); ++i) {
      char c = json[i];
      if (in_string) {
        if (c == '\\') ++i;
        else if (c == '"') {
          in_string = false;
          if (depth == 0) return ++i, void();
        }
        continue;
      }
      if (c == '"') in_string = true;
      else if (c == '{' || c == '[') ++depth;
      else if (c == '}' || c == ']') {
        if (--depth == 0) return ++i, void();
        if (depth < 0) return;
      } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
        return;
      }
    }
  };
  skip_ws();
  skip_value();  // the verb
  skip_ws();
  ++i;  // ','
  skip_ws();
  size_t start = i;
  skip_value();
  return json.substr(start, i - start);
}

// The event id as written, if the object has a string "id".
std::optional<std::string> readable_id(element value) {
  std::string_view id;
  if (value["id"].get(id) == simdjson::SUCCESS && id.size() == 64) return std::string(id);
  return std::nullopt;
}

ClientMessage parse_sub(std::string_view verb, simdjson::dom::array arr, bool is_count, bool is_close) {
  std::string v(verb);
  if (arr.size() < 2) return failure(v + " requires sub_id");
  std::string_view sub;
  if (arr.at(1).get(sub)) return failure(v + " sub_id must be a string");
  if (is_close) return CloseMessage{std::string(sub)};
  if (sub.empty()) return failure(v + " sub_id must not be empty");
  if (sub.size() > kMaxSubIdBytes) return failure(v + " sub_id exceeds maximum length of 256 bytes");
  size_t n = arr.size() - 2;
  if (n > kMaxFiltersPerReq) return failure(v + " contains " + std::to_string(n) + " filters, maximum is 10");
  ReqMessage req{is_count, std::string(sub), {}};
  size_t index = 0;
  for (element f : arr) {
    if (index++ < 2) continue;
    auto parsed = engine::parse_filter(f);
    if (!parsed) {
      ParseFailure pf = failure("invalid filter: " + parsed.error());
      pf.sub_id = std::string(sub);
      return pf;
    }
    req.filters.push_back(std::move(*parsed));
  }
  return req;
}

// ["NEG-OPEN", sub, filter, hex], ["NEG-MSG", sub, hex], ["NEG-CLOSE", sub] (NIP-77).
ClientMessage parse_neg(std::string_view verb, simdjson::dom::array arr) {
  std::string v(verb);
  std::string_view sub;
  if (arr.size() < 2 || arr.at(1).get(sub)) return failure(v + " requires a string sub_id");
  if (sub.empty() || sub.size() > kMaxSubIdBytes) return failure(v + " sub_id must be 1 to 256 bytes");
  auto with_sub = [&](std::string detail) {
    ParseFailure pf = failure(v + " " + std::move(detail));
    pf.sub_id = std::string(sub);
    pf.negentropy = true;
    return pf;
  };
  if (verb == "NEG-CLOSE") return NegCloseMessage{std::string(sub)};
  const size_t at = verb == "NEG-OPEN" ? 3 : 2;
  std::string_view message;
  if (arr.size() != at + 1 || arr.at(at).get(message)) return with_sub("requires its message as a hex string");
  if (verb == "NEG-MSG") return NegMsgMessage{std::string(sub), std::string(message)};
  element f;
  if (arr.at(2).get(f)) return with_sub("requires a filter");
  auto filter = engine::parse_filter(f);
  if (!filter) return with_sub("invalid filter: " + filter.error());
  return NegOpenMessage{std::string(sub), std::move(*filter), std::string(message)};
}

}  // namespace

ClientMessage parse_client_message(std::string_view text) {
  thread_local simdjson::dom::parser parser;
  element root;
  if (auto err = parser.parse(text.data(), text.size()).get(root)) {
    return failure(std::string("JSON parse error: ") + simdjson::error_message(err));
  }
  simdjson::dom::array arr;
  if (root.get(arr)) return failure("expected JSON array");
  if (arr.size() == 0) return failure("empty array");
  std::string_view verb;
  if (arr.at(0).get(verb)) return failure("first element must be a string");

  if (verb == "EVENT" || verb == "AUTH") {
    bool is_auth = verb == "AUTH";
    element obj;
    if (arr.size() < 2 || arr.at(1).get(obj) || !obj.is_object()) {
      return failure(std::string(verb) + " requires event object");
    }
    auto event = engine::parse_event(obj, second_element(text));
    if (!event) {
      ParseFailure pf = failure(std::string(is_auth ? "invalid auth event: " : "invalid event: ") + event.error());
      pf.event_id = readable_id(obj);
      return pf;
    }
    if (is_auth) return AuthMessage{std::move(*event)};
    return EventMessage{std::move(*event)};
  }
  if (verb == "REQ") return parse_sub(verb, arr, false, false);
  if (verb == "COUNT") return parse_sub(verb, arr, true, false);
  if (verb == "CLOSE") return parse_sub(verb, arr, false, true);
  if (verb == "NEG-OPEN" || verb == "NEG-MSG" || verb == "NEG-CLOSE") return parse_neg(verb, arr);
  return failure("unknown message type: " + std::string(verb));
}

}  // namespace buzz::server
