// The harness's configuration (docs/reference/agents-and-cli.md §A.2): one option table
// (engine/options.h) where each flag has an environment variable, and a flag given
// on the command line wins over it.
// Validation uses the spec's messages; a config error is fatal at startup.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/options.h"
#include "engine/signature.h"

namespace buzz::acp {

enum class SubscribeMode { kMentions, kAll, kConfig };
enum class Dedup { kQueue, kDrop };
enum class MultipleEvents { kQueue, kInterrupt, kOwnerInterrupt };
enum class RespondTo { kOwnerOnly, kAllowlist, kAnyone, kNobody };

// The built-in base prompt (HEAD Δ): what a new session is told first about
// being a member of a Buzz team and the `buzz` commands it can use.
extern const char* const kBasePrompt;

struct Config {
  std::string relay_url = "ws://localhost:3000";  // as configured (the NIP-42 relay tag)
  std::string rest_url;                           // http(s) form, no trailing '/'
  engine::Keypair key;
  std::string private_key_hex;                    // handed to the MCP server's env
  std::optional<std::string> api_token;
  std::string agent_command = "goose";
  std::vector<std::string> agent_args;            // normalised (§A.2.1)
  std::string mcp_command;                        // "" = no MCP server
  std::vector<std::string> mcp_args;
  uint64_t idle_timeout_s = 320;
  uint64_t max_turn_duration_s = 3600;
  std::optional<std::string> system_prompt;
  int agents = 1;
  uint64_t heartbeat_interval_s = 0;
  std::optional<std::string> heartbeat_prompt;
  std::optional<std::string> initial_message;
  SubscribeMode subscribe = SubscribeMode::kMentions;
  std::optional<std::vector<int>> kinds;          // nullopt: the mode's default
  std::vector<std::string> channels;              // empty: every member channel
  bool no_mention_filter = false;
  std::string config_path = "./buzz-acp.toml";
  Dedup dedup = Dedup::kQueue;
  MultipleEvents multiple = MultipleEvents::kQueue;
  bool ignore_self = true;
  int context_message_limit = 12;
  int max_turns_per_session = 0;
  bool presence = true;
  bool typing = true;
  std::optional<std::string> model;
  std::string permission_mode = "bypassPermissions";  // wire value
  RespondTo respond_to = RespondTo::kOwnerOnly;
  std::set<std::string> respond_to_allowlist;     // lowercase hex
  std::optional<std::string> agent_owner;         // lowercase hex; set: no profile lookup
  uint64_t turn_liveness_s = 10;                  // how often a silent turn's agent is checked
  std::optional<std::string> base_prompt = std::string(kBasePrompt);  // nullopt: --no-base-prompt
  int event_buffer = 256;
};

// The parsed configuration, or a message for stderr: exit 1, or options::kExitUsage
// when the option table refused the command line or a variable (*usage_error).
// `--help` sets *help and returns nullopt with an empty *error.
std::optional<Config> parse_config(int argc, char** argv, int first_arg, std::string* error, bool* help,
                                   bool* usage_error = nullptr);

// The rows of --agent-command and --agent-args (with their variables), which
// `buzz acp models` reads as `buzz acp` does.
std::vector<options::Option> agent_options(std::optional<std::string>* command, std::optional<std::string>* args);

// §A.2.1: the agent's identity (basename, lowercased, no .exe, spaces and
// underscores as '-') decides its default arguments.
std::vector<std::string> normalize_agent_args(const std::string& command, const std::vector<std::string>& given);

// What `buzz acp --help` prints: the option table with its sections.
std::string acp_help();

}  // namespace buzz::acp
