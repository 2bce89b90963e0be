// JSON-RPC envelopes: one parser for a call, and the reply shapes of the two
// dialects Buzz speaks — NIP-86's `{"result":…,"error":"…"}` (the relay
// management API, docs/reference/nip86.md) and JSON-RPC 2.0's, which the
// agent tools (MCP, ACP) answer in. The methods themselves live with whoever
// serves them; this holds only the envelope.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/result.h"

namespace buzz::engine {

// One positional parameter: a JSON string's value, or any other value's JSON text.
struct RpcParam {
  bool is_string = false;
  std::string text;
};

struct RpcCall {
  std::string method;
  std::vector<RpcParam> params;  // "params" absent = none
  std::string id;                // the "id" member's JSON text; empty when absent (a notification, or NIP-86)

  // The n-th parameter as a string, or nullopt when absent or not a string.
  std::optional<std::string_view> string_param(size_t n) const {
    if (n >= params.size() || !params[n].is_string) return std::nullopt;
    return params[n].text;
  }
};

// A call's body: an object with a string "method" and, when present, an array
// "params"; the error says what is wrong, in words a caller can act on.
Result<RpcCall> parse_rpc_call(std::string_view body);

// NIP-86 replies: `result` is JSON text.
std::string nip86_result(std::string_view result_json);
std::string nip86_error(std::string_view message);

// JSON-RPC 2.0 replies: `id` and `result` are JSON text.
std::string jsonrpc_result(std::string_view id, std::string_view result_json);
std::string jsonrpc_error(std::string_view id, int code, std::string_view message);

// JSON-RPC 2.0 calls, as the agent tools send them: `params_json` is JSON text; a
// notification has no id and gets no answer.
std::string jsonrpc_request(int64_t id, std::string_view method, std::string_view params_json);
std::string jsonrpc_notification(std::string_view method, std::string_view params_json);

}  // namespace buzz::engine
