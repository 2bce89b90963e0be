#include "tools/mcp/mcp_server.h"

#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/json_rpc.h"
#include "engine/json_text.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/session.h"
#include "tools/mcp/tool_schema.h"

namespace buzz::mcp {
namespace {

// JSON-RPC 2.0 error codes.
constexpr int kParseError = -32700, kInvalidRequest = -32600, kMethodNotFound = -32601, kInvalidParams = -32602;

// Newest first; a client asking for one of these gets it, any other gets the first.
constexpr const char* kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

constexpr const char* kHelp = R"(buzz mcp — a Model Context Protocol server on stdio for AI agents

Usage: buzz mcp [OPTIONS]

Serves the agent commands (send_message, get_messages, search, add_reaction, …)
as MCP tools: one JSON-RPC 2.0 message per line on stdin and stdout, logs on
stderr. Auth as for the agent commands; a key without a token mints a 1-day
one for the server's lifetime.
)";

constexpr const char* kHelpTail = R"(
A failing tool answers isError with {"error":"<category>","message":"..."}.
)";

void send_line(const std::string& message) {
  std::fwrite(message.data(), 1, message.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

void send_result(const std::string& id, const std::string& result) { send_line(engine::jsonrpc_result(id, result)); }

void send_error(const std::string& id, int code, const std::string& message) {
  send_line(engine::jsonrpc_error(id, code, message));
}

std::string text_result(const std::string& text, bool is_error) {
  const std::string content = JsonFields().string("type", "text").string("text", text).str();
  return json_object({{"content", json_array({content})}, {"isError", is_error ? "true" : "false"}});
}

std::string initialize_result(simdjson::dom::element params) {
  std::string_view asked;
  const char* version = kProtocolVersions[0];
  if (!params["protocolVersion"].get(asked)) {
    for (const char* v : kProtocolVersions) {
      if (asked == v) version = v;
    }
  }
  return JsonFields()
      .string("protocolVersion", version)
      .json("capabilities", R"({"tools":{"listChanged":false}})")
      .json("serverInfo", JsonFields().string("name", "buzz").string("version", BUZZ_VERSION).str())
      .string("instructions",
              "Tools for a Buzz team-communication relay: channels are UUIDs (list_channels), "
              "events are 64-hex ids; every tool answers the relay's JSON.")
      .str();
}

std::string tools_list() {
  std::vector<std::string> tools;
  for (const cli::Command& c : cli::tool_commands()) tools.push_back(tool_json(c));
  return json_object({{"tools", json_array(tools)}});
}

class Server {
 public:
  explicit Server(cli::GlobalOptions identity) : identity_(std::move(identity)) {}
  // Handles one line; answers on stdout unless it was a notification.
  void handle(const std::string& line);

 private:
  std::string call_tool(const cli::Command& c, simdjson::dom::element arguments);
  cli::Session& session();

  const cli::GlobalOptions identity_;  // the relay and the credentials, from flags and environment
  simdjson::dom::parser parser_;
  std::unique_ptr<cli::Session> session_;  // made at the first tool call
  std::chrono::steady_clock::time_point session_made_;
};

// A key alone gets a 1-day token (session.h): a server that outlives it makes
// a new session well before, and the old one revokes its token as it goes.
constexpr auto kSessionLife = std::chrono::hours(12);

cli::Session& Server::session() {
  if (session_ && std::chrono::steady_clock::now() - session_made_ > kSessionLife) session_.reset();
  if (!session_) {
    session_made_ = std::chrono::steady_clock::now();
    session_ = std::make_unique<cli::Session>(identity_, true);  // a failure is retried at the next call
  }
  return *session_;
}

std::string Server::call_tool(const cli::Command& c, simdjson::dom::element arguments) {
  try {
    cli::Args args = args_from_json(c, arguments);
    return text_result(c.run(session(), args), false);
  } catch (const cli::CliError& e) {
    std::fprintf(stderr, "buzz mcp: %s: %s\n", c.name, cli::error_json(e).c_str());
    return text_result(cli::error_json(e), true);
  } catch (const std::exception& e) {
    const cli::CliError other(cli::Category::kOther, e.what());
    std::fprintf(stderr, "buzz mcp: %s: %s\n", c.name, cli::error_json(other).c_str());
    return text_result(cli::error_json(other), true);
  }
}

void Server::handle(const std::string& line) {
  simdjson::dom::element message;
  if (parser_.parse(line).get(message)) return send_error("null", kParseError, "Parse error: not JSON");
  simdjson::dom::object object;
  if (message.get(object)) return send_error("null", kInvalidRequest, "Invalid Request: not a JSON-RPC object");
  simdjson::dom::element id_element;
  const bool is_request = !object["id"].get(id_element);
  const std::string id = is_request ? simdjson::minify(id_element) : "null";
  std::string_view method;
  if (object["method"].get(method)) {
    if (is_request) send_error(id, kInvalidRequest, "Invalid Request: no method");
    return;  // a response to us (we send no requests) or junk without an id
  }
  if (!is_request) return;  // notifications/initialized, notifications/cancelled, …: nothing to answer
  simdjson::dom::element params;
  const bool has_params = !object["params"].get(params);

  if (method == "initialize") {
    if (!has_params) return send_error(id, kInvalidParams, "initialize needs params");
    return send_result(id, initialize_result(params));
  }
  if (method == "ping") return send_result(id, "{}");
  if (method == "tools/list") return send_result(id, tools_list());
  if (method == "tools/call") {
    std::string_view name;
    if (!has_params || params["name"].get(name)) return send_error(id, kInvalidParams, "tools/call needs params.name");
    const cli::Command* c = find_tool(name);
    if (!c) return send_error(id, kInvalidParams, "Unknown tool: " + std::string(name));
    simdjson::dom::element arguments;
    if (params["arguments"].get(arguments)) {
      simdjson::dom::parser empty;
      return send_result(id, call_tool(*c, empty.parse(std::string("{}"))));
    }
    return send_result(id, call_tool(*c, arguments));
  }
  send_error(id, kMethodNotFound, "Method not found: " + std::string(method));
}

}  // namespace

int run_mcp(int argc, char** argv) {
  cli::GlobalOptions identity;
  const std::vector<options::Option> rows = cli::global_options(&identity);
  const options::Parsed parsed = options::parse(rows, argc, argv, 2);
  if (parsed.outcome == options::Parsed::Outcome::kHelp) {
    std::printf("%s\nOptions (each also from its environment variable; the flag wins):\n%s%s", kHelp,
                options::help(rows).c_str(), kHelpTail);
    return 0;
  }
  if (std::string refused = parsed.ok() ? options::apply_environment(rows, parsed) : parsed.error; !refused.empty()) {
    std::fprintf(stderr, "buzz mcp: %s (see buzz mcp --help)\n", refused.c_str());
    return options::kExitUsage;
  }
  std::fprintf(stderr, "buzz mcp: serving %zu tools on stdio\n", cli::tool_commands().size());
  Server server(std::move(identity));
  for (std::string line; std::getline(std::cin, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    server.handle(line);
  }
  return 0;  // stdin closed: the client is gone; the session revokes its auto-minted token
}

}  // namespace buzz::mcp
