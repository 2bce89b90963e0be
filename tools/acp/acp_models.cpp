// `buzz acp models`; see acp_models.h.
#include "tools/acp/acp_models.h"

#include <simdjson.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "engine/json_text.h"
#include "tools/acp/acp_config.h"
#include "tools/acp/acp_connection.h"
#include "tools/acp/agent_process.h"

namespace buzz::acp {
namespace {

constexpr auto kTimeout = std::chrono::seconds(10);

constexpr const char* kHelp = R"(buzz acp models — list the models an ACP agent offers

Usage: buzz acp models [--agent-command CMD] [--agent-args A,B] [--json]

Starts the agent, sends initialize and session/new (10 s each), prints its name,
its model config options and its models, and stops it. The agent is chosen as for
`buzz acp`.
)";

int fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

// Indents compact JSON two spaces a level (strings left as they are).
std::string pretty(const std::string& json) {
  std::string out;
  int depth = 0;
  bool in_string = false;
  auto newline = [&] { out += '\n' + std::string(size_t(depth) * 2, ' '); };
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      out += c;
      if (c == '\\') out += json[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if ((c == '}' || c == ']') && i > 0 && json[i - 1] != '{' && json[i - 1] != '[') {
      --depth;
      newline();
    } else if (c == '}' || c == ']') {
      --depth;
    }
    out += c;
    if ((c == '{' || c == '[') && i + 1 < json.size() && json[i + 1] != '}' && json[i + 1] != ']') {
      ++depth;
      newline();
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == ',') {
      newline();
    } else if (c == ':') {
      out += ' ';
    }
  }
  return out;
}

std::string field(simdjson::dom::element e, const char* key) {
  std::string_view v;
  return e[key].get(v) ? "unknown" : std::string(v);
}

}  // namespace

int run_acp_models(int argc, char** argv) {
  std::optional<std::string> command, args_text;
  bool json = false;
  std::vector<options::Option> rows = agent_options(&command, &args_text);
  rows.push_back({.name = "json", .help = "one JSON object: the agent, its stable config options, its unstable models",
                  .parse = options::flag(&json)});
  const options::Parsed parsed = options::parse(rows, argc, argv, 3);
  if (parsed.outcome == options::Parsed::Outcome::kHelp) {
    std::printf("%s\nOptions:\n%s", kHelp, options::help(rows).c_str());
    return 0;
  }
  std::string refused = parsed.ok() ? options::apply_environment(rows, parsed) : parsed.error;
  if (!refused.empty()) {
    std::fprintf(stderr, "error: %s (see buzz acp models --help)\n", refused.c_str());
    return options::kExitUsage;
  }
  if (command.value_or("goose").find_first_not_of(" \t") == std::string::npos) return fail("agent_command must not be empty");
  std::vector<std::string> given;
  std::stringstream in(args_text.value_or(""));
  for (std::string part; std::getline(in, part, ',');) given.push_back(part);

  AgentProcess process;
  std::string error;
  const std::string agent = command.value_or("goose");
  if (!process.start(agent, normalize_agent_args(agent, given), &error)) return fail(error);
  AcpConnection acp(process);
  const Answer init = acp.initialize(kTimeout);
  if (init.ending != Ending::kOk) return fail(std::string("initialize: ") + ending_name(init.ending) + " " + init.detail);
  const Answer session = acp.new_session(std::filesystem::current_path().string(), "[]", kTimeout);
  process.stop();
  if (session.ending != Ending::kOk) {
    return fail(std::string("session/new: ") + ending_name(session.ending) + " " + session.detail);
  }

  simdjson::dom::parser p1, p2;
  simdjson::dom::element info_result = p1.parse(init.result).value_unsafe(), result;
  if (p2.parse(session.result).get(result)) return fail("session/new: not a JSON object");
  simdjson::dom::element info;
  if (info_result["serverInfo"].get(info) && info_result["agentInfo"].get(info)) info = info_result;
  const std::string name = field(info, "name"), version = field(info, "version");

  std::string options = "[";
  simdjson::dom::array config;
  if (!result["configOptions"].get(config)) {
    for (simdjson::dom::element o : config) {
      std::string_view category;
      if (o["category"].get(category) || category != "model") continue;
      options += (options.size() > 1 ? "," : "") + simdjson::minify(o);
    }
  }
  options += "]";
  simdjson::dom::element models;
  const bool has_models = !result["models"].get(models) && models.is_object();
  std::string current = has_models ? field(models, "currentModelId") : "";
  simdjson::dom::array available;
  const bool has_available = has_models && !models["availableModels"].get(available);

  if (json) {
    const std::string unstable =
        has_models ? JsonFields()
                         .string("currentModelId", current)
                         .json("availableModels", has_available ? simdjson::minify(available) : std::string("[]"))
                         .str()
                   : "null";
    const std::string out = JsonFields()
                                .json("agent", JsonFields().string("name", name).string("version", version).str())
                                .json("stable", json_object({{"configOptions", options}}))
                                .json("unstable", unstable)
                                .str();
    std::printf("%s\n", pretty(out).c_str());
    return 0;
  }
  std::printf("Agent: %s %s\n", name.c_str(), version.c_str());
  std::printf("Model config options: %s\n", options == "[]" ? "none" : options.c_str());
  if (!has_models) {
    std::printf("Models: not reported (no unstable models object)\n");
    return 0;
  }
  std::printf("Current model: %s\nAvailable models:\n", current.c_str());
  if (has_available) {
    for (simdjson::dom::element m : available) {
      std::printf("  %s (%s)\n", field(m, "modelId").c_str(), field(m, "name").c_str());
    }
  }
  return 0;
}

}  // namespace buzz::acp
