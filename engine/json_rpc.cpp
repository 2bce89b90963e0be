// JSON-RPC envelopes; see json_rpc.h.
#include "engine/json_rpc.h"

#include <simdjson.h>

#include "engine/json_text.h"

namespace buzz::engine {

Result<RpcCall> parse_rpc_call(std::string_view body) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(body.data(), body.size()).get(root)) return Error{"invalid JSON"};
  simdjson::dom::object obj;
  if (root.get(obj)) return Error{"the request must be a JSON object"};
  RpcCall call;
  std::string_view method;
  if (obj["method"].get(method)) return Error{"missing or non-string \"method\""};
  call.method = method;
  simdjson::dom::element id;
  if (!obj["id"].get(id)) call.id = simdjson::minify(id);
  simdjson::dom::element params;
  if (obj["params"].get(params)) return call;
  simdjson::dom::array list;
  if (params.get(list)) return Error{"\"params\" must be an array"};
  for (simdjson::dom::element p : list) {
    std::string_view s;
    if (!p.get(s)) {
      call.params.push_back({true, std::string(s)});
    } else {
      call.params.push_back({false, simdjson::minify(p)});
    }
  }
  return call;
}

// Each envelope's keys in the order the dialect's peers have always been sent them.
std::string nip86_result(std::string_view result_json) { return JsonFields().json("result", result_json).str(); }

std::string nip86_error(std::string_view message) {
  return JsonFields().json("result", "null").string("error", message).str();
}

std::string jsonrpc_result(std::string_view id, std::string_view result_json) {
  return JsonFields().string("jsonrpc", "2.0").json("id", id).json("result", result_json).str();
}

std::string jsonrpc_error(std::string_view id, int code, std::string_view message) {
  const std::string error = JsonFields().number("code", code).string("message", message).str();
  return JsonFields().string("jsonrpc", "2.0").json("id", id.empty() ? "null" : id).json("error", error).str();
}

std::string jsonrpc_request(int64_t id, std::string_view method, std::string_view params_json) {
  return JsonFields()
      .string("jsonrpc", "2.0")
      .number("id", id)
      .string("method", method)
      .json("params", params_json)
      .str();
}

std::string jsonrpc_notification(std::string_view method, std::string_view params_json) {
  return JsonFields().string("jsonrpc", "2.0").string("method", method).json("params", params_json).str();
}

}  // namespace buzz::engine
