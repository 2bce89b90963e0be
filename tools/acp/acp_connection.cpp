// AcpConnection; see acp_connection.h.
#include "tools/acp/acp_connection.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "engine/json_rpc.h"
#include "engine/json_text.h"

namespace buzz::acp {
namespace {

constexpr auto kCancelDrainIdle = std::chrono::seconds(30);

// The option to pick for a permission request (§A.6.3): allow_once, else
// reject_once, else the id "reject". Never a hard-coded id when one is offered.
std::string permission_choice(simdjson::dom::element params) {
  simdjson::dom::array options;
  std::string reject = "reject";
  bool have_reject = false;
  if (!params["options"].get(options)) {
    for (simdjson::dom::element o : options) {
      std::string_view kind, id;
      if (o["kind"].get(kind) || o["optionId"].get(id)) continue;
      if (kind == "allow_once") return std::string(id);
      if (kind == "reject_once" && !have_reject) {
        reject = std::string(id);
        have_reject = true;
      }
    }
  }
  return reject;
}

void log_update(simdjson::dom::element params) {
  std::string_view what;
  if (params["update"]["sessionUpdate"].get(what)) return;
  if (what == "tool_call") {
    std::string_view title;
    if (!params["update"]["title"].get(title)) std::fprintf(stderr, "buzz acp: agent tool call: %.*s\n", int(title.size()), title.data());
  }
}

}  // namespace

const char* ending_name(Ending e) {
  switch (e) {
    case Ending::kOk: return "ok";
    case Ending::kCancelled: return "cancelled";
    case Ending::kAppError: return "application error";
    case Ending::kTimeout: return "request timeout";
    case Ending::kIdleTimeout: return "idle timeout";
    case Ending::kHardTimeout: return "max turn duration";
    case Ending::kExited: return "agent exited";
    case Ending::kTransport: return "transport error";
  }
  return "?";
}

bool needs_respawn(Ending e) {
  return e == Ending::kIdleTimeout || e == Ending::kHardTimeout || e == Ending::kExited || e == Ending::kTransport;
}

bool AcpConnection::notify(const std::string& method, const std::string& params_json) {
  return process_.write_line(engine::jsonrpc_notification(method, params_json));
}

Answer AcpConnection::request(const std::string& method, const std::string& params_json, Clock::duration timeout) {
  const long id = next_id_++;
  if (!process_.write_line(engine::jsonrpc_request(id, method, params_json))) {
    return {Ending::kTransport, "", "cannot write " + method + " to the agent", ""};
  }
  const auto deadline = Clock::now() + timeout;
  return await(id, timeout, deadline, -1, Ending::kTimeout, Ending::kTimeout);
}

Answer AcpConnection::initialize(Clock::duration timeout) {
  const std::string client = JsonFields().string("name", "buzz-acp").string("version", BUZZ_VERSION).str();
  return request(
      "initialize",
      JsonFields().number("protocolVersion", 1).json("clientCapabilities", "{}").json("clientInfo", client).str(),
      timeout);
}

Answer AcpConnection::new_session(const std::string& cwd, const std::string& mcp_servers_json,
                                  Clock::duration timeout) {
  return request("session/new", JsonFields().string("cwd", cwd).json("mcpServers", mcp_servers_json).str(), timeout);
}

Answer AcpConnection::prompt(const std::string& session_id, const std::string& text, Clock::duration idle_timeout,
                             Clock::time_point hard_deadline, int cancel_fd) {
  const long id = next_id_++;
  const std::string block = JsonFields().string("type", "text").string("text", text).str();
  const std::string params = JsonFields().string("sessionId", session_id).json("prompt", json_array({block})).str();
  if (!process_.write_line(engine::jsonrpc_request(id, "session/prompt", params))) {
    return {Ending::kTransport, "", "cannot write session/prompt to the agent", ""};
  }
  Answer a = await(id, idle_timeout, hard_deadline, cancel_fd, Ending::kIdleTimeout, Ending::kHardTimeout);
  const bool woken = a.ending == Ending::kCancelled && a.result.empty() && a.detail.empty();
  if (woken || a.ending == Ending::kIdleTimeout || a.ending == Ending::kHardTimeout) {
    // Cancel, then drain until the prompt answers (§A.6.4 cancel cleanup).
    const Ending why = woken ? Ending::kCancelled : a.ending;
    if (!notify("session/cancel", json_object({{"sessionId", json_string(session_id)}}))) {
      return {Ending::kTransport, "", "cannot write session/cancel", ""};
    }
    const auto drain_deadline = std::max(hard_deadline, Clock::now() + kCancelDrainIdle);
    Answer drained = await(id, kCancelDrainIdle, drain_deadline, -1, Ending::kTransport, Ending::kTransport);
    if (drained.ending == Ending::kTransport || drained.ending == Ending::kExited) {
      drained.detail = "cancel cleanup failed: " + (drained.detail.empty() ? std::string("no answer") : drained.detail);
      return drained;
    }
    return {why, "", why == Ending::kCancelled ? "" : "cancelled; it answered " + drained.stop_reason, drained.stop_reason};
  }
  if (a.ending != Ending::kOk) return a;
  static constexpr const char* kStops[] = {"end_turn", "cancelled", "max_tokens", "max_turn_requests", "refusal"};
  if (a.stop_reason.empty()) return {Ending::kTransport, "", "session/prompt response missing stopReason", ""};
  if (std::find(std::begin(kStops), std::end(kStops), a.stop_reason) == std::end(kStops)) {
    return {Ending::kTransport, "", "unknown stopReason: \"" + a.stop_reason + "\"", ""};
  }
  return a;
}

Answer AcpConnection::await(long id, Clock::duration idle, Clock::time_point deadline, int cancel_fd, Ending on_idle,
                            Ending on_deadline) {
  thread_local simdjson::dom::parser parser;
  std::string line;
  for (;;) {
    const auto now = Clock::now();
    const bool idle_first = now + idle < deadline;
    const auto wait_until = idle_first ? now + idle : deadline;
    switch (process_.read_line(&line, wait_until, cancel_fd)) {
      case AgentProcess::Read::kLine: break;
      case AgentProcess::Read::kTimeout:
        return {idle_first ? on_idle : on_deadline, "", "", ""};
      case AgentProcess::Read::kWoken: return {Ending::kCancelled, "", "", ""};
      case AgentProcess::Read::kEof: return {Ending::kExited, "", "the agent closed its stdout", ""};
      case AgentProcess::Read::kTooLong: return {Ending::kTransport, "", "a line over 10,000,000 bytes", ""};
    }
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    simdjson::dom::object msg;
    if (parser.parse(line).get(msg)) {
      return {Ending::kTransport, "", "not a JSON-RPC message: " + line.substr(0, 120), ""};
    }
    std::string_view method;
    simdjson::dom::element id_element, params;
    const bool has_method = !msg["method"].get(method);
    const bool has_id = !msg["id"].get(id_element);
    const bool has_params = !msg["params"].get(params);
    if (has_method && has_id) {  // the agent asks us something
      const std::string rid = simdjson::minify(id_element);
      std::string reply;
      if (method == "session/request_permission") {
        const std::string choice = has_params ? permission_choice(params) : "reject";
        const std::string outcome = JsonFields().string("outcome", "selected").string("optionId", choice).str();
        reply = engine::jsonrpc_result(rid, json_object({{"outcome", outcome}}));
      } else {
        reply = engine::jsonrpc_error(rid, -32601, "Method not found: " + std::string(method));
      }
      if (!process_.write_line(reply)) return {Ending::kTransport, "", "cannot answer the agent", ""};
      continue;
    }
    if (has_method) {  // a notification: session/update and the like, logged only
      if (method == "session/update" && has_params) log_update(params);
      continue;
    }
    int64_t got = 0;
    if (!has_id || id_element.get(got) || got != id) continue;  // a late answer to a request that timed out
    simdjson::dom::element error, result;
    if (!msg["error"].get(error)) {
      std::string_view text;
      if (error["message"].get(text)) text = "error";
      return {Ending::kAppError, "", std::string(text), ""};
    }
    if (msg["result"].get(result)) return {Ending::kTransport, "", "an answer with neither result nor error", ""};
    Answer a{Ending::kOk, simdjson::minify(result), "", ""};
    std::string_view stop;
    if (!result["stopReason"].get(stop)) {
      a.stop_reason = std::string(stop);
      std::transform(a.stop_reason.begin(), a.stop_reason.end(), a.stop_reason.begin(),
                     [](unsigned char c) { return char(std::tolower(c)); });
    }
    return a;
  }
}

}  // namespace buzz::acp
