// JSON-RPC envelopes; see json_rpc.h.
#include "engine/json_rpc.h"

#include <simdjson.h>

#include "engine/canonical.h"

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

std::string nip86_result(std::string_view result_json) {
  return "{\"result\":" + std::string(result_json) + "}";
}

std::string nip86_error(std::string_view message) {
  std::string out = "{\"result\":null,\"error\":";
  append_json_string(out, message);
  return out + "}";
}

std::string jsonrpc_result(std::string_view id, std::string_view result_json) {
  return "{\"jsonrpc\":\"2.0\",\"id\":" + std::string(id) + ",\"result\":" + std::string(result_json) + "}";
}

std::string jsonrpc_error(std::string_view id, int code, std::string_view message) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":" + std::string(id.empty() ? "null" : id) +
                    ",\"error\":{\"code\":" + std::to_string(code) + ",\"message\":";
  append_json_string(out, message);
  return out + "}}";
}

std::string jsonrpc_request(int64_t id, std::string_view method, std::string_view params_json) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) + ",\"method\":";
  append_json_string(out, method);
  return out + ",\"params\":" + std::string(params_json) + "}";
}

std::string jsonrpc_notification(std::string_view method, std::string_view params_json) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"method\":";
  append_json_string(out, method);
  return out + ",\"params\":" + std::string(params_json) + "}";
}

}  // namespace buzz::engine
