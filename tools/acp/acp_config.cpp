// The harness's configuration; see acp_config.h.
#include "tools/acp/acp_config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/hex.h"
#include "engine/nip19.h"
#include "engine/text.h"
#include "tools/cli/session.h"

namespace buzz::acp {

const char* const kBasePrompt = R"(You are a member of a Buzz team: a chat relay on Nostr where people and agents
are equal members. Messages reach you as "Buzz events"; nobody sees what you
write here, only what you send to the team.
- Answer with the MCP tool send_message (channel, content, reply_to = the Event
  ID you answer), or the command line: `buzz send-message --channel <uuid>
  --content <text> --reply-to <event id>`. Reply in the thread you were asked in.
- Read before you answer when you need context: get_thread / `buzz get-thread
  --channel <uuid> --event <root id>`, get_messages / `buzz get-messages
  --channel <uuid>`, search / `buzz search --query <text>`.
- Mention someone with `--mention <hex pubkey>`; react with `buzz add-reaction`.
- Your feed (get_feed / `buzz get-feed`) lists what waits for you, such as
  workflow approvals.
- `buzz <command> --help` shows every command's options; output is JSON.
Keep answers short and to the point; say so plainly when you cannot help.)";

namespace {

constexpr const char* kIntro = R"(buzz acp — run ACP agents as members of a Buzz team

Usage: buzz acp [options]
       buzz acp models [--agent-command CMD] [--agent-args A,B] [--json]

Connects to the relay as the agent's key (NIP-42, with an API token), listens in
the agent's channels, and hands what it hears to 1–32 agent processes speaking the
Agent Client Protocol (one JSON-RPC message per line on their stdin/stdout). The
agents answer through their own tools (the MCP server `buzz mcp`, handed to them
in session/new, or the `buzz` commands); the harness adds 👀 and 💬 reactions and
typing indicators, restarts crashed agents and keeps no state on disk.
Each option can be set by its environment variable; the flag wins.

)";

constexpr const char* kOutro = R"(
The owner (--agent-owner, or the agent_owner_pubkey of the agent's profile) can
send `!cancel`, `!rotate` (cancel and start the channel's session afresh) or
`!shutdown` in a message that mentions the agent.
)";

// What the option table reads, before build() holds it to the spec's rules.
struct Raw {
  std::optional<std::string> relay_url, private_key, api_token, agent_command, agent_args, mcp_command;
  std::optional<uint64_t> idle_timeout, turn_timeout, max_turn_duration, agents, heartbeat_interval;
  std::optional<uint64_t> context_message_limit, max_turns_per_session, turn_liveness, event_buffer;
  std::optional<std::string> system_prompt, system_prompt_file, base_prompt_file, heartbeat_prompt, heartbeat_prompt_file;
  std::optional<std::string> initial_message, model, permission_mode, subscribe, config, kinds, channels;
  std::optional<std::string> respond_to, respond_to_allowlist, agent_owner, dedup, multiple;
  bool no_base_prompt = false, no_mention_filter = false, no_ignore_self = false, no_presence = false, no_typing = false;
};

// The rows of `buzz acp`, each bound to its field of r.
std::vector<options::Option> table(Raw& r) {
  using options::Option, options::flag, options::number, options::section, options::text;
  std::vector<Option> rows = {
      section("Relay and identity:"),
      {.name = "relay-url", .env = "BUZZ_RELAY_URL", .value = "URL", .default_text = "ws://localhost:3000",
       .help = "the relay's WebSocket URL (the NIP-42 relay tag)", .parse = text(&r.relay_url)},
      {.name = "private-key", .env = "BUZZ_PRIVATE_KEY", .value = "KEY", .help = "64 hex or nsec1… (required)",
       .parse = text(&r.private_key), .env_alias = "BUZZ_ACP_PRIVATE_KEY"},
      {.name = "api-token", .env = "BUZZ_API_TOKEN", .value = "TOKEN",
       .help = "sent in NIP-42 AUTH and as Bearer; without it one is minted with the key", .parse = text(&r.api_token),
       .env_alias = "BUZZ_ACP_API_TOKEN"},
      section("Agents:"),
  };
  for (Option& o : agent_options(&r.agent_command, &r.agent_args)) rows.push_back(std::move(o));
  std::vector<Option> rest = {
      {.name = "agents", .env = "BUZZ_ACP_AGENTS", .value = "N", .default_text = "1", .help = "agent processes, 1..32",
       .parse = number(&r.agents)},
      {.name = "mcp-command", .env = "BUZZ_ACP_MCP_COMMAND", .value = "CMD",
       .default_text = "this binary's `buzz mcp`", .help = "the MCP server handed to the agents, \"\" for none",
       .parse = text(&r.mcp_command)},
      {.name = "idle-timeout", .env = "BUZZ_ACP_IDLE_TIMEOUT", .value = "S", .default_text = "320",
       .help = "kill a turn silent this long", .parse = number(&r.idle_timeout)},
      {.name = "turn-timeout", .env = "BUZZ_ACP_TURN_TIMEOUT", .value = "S", .parse = number(&r.turn_timeout),
       .hidden = true},  // the old name of --idle-timeout
      {.name = "max-turn-duration", .env = "BUZZ_ACP_MAX_TURN_DURATION", .value = "S", .default_text = "3600",
       .help = "cap per turn", .parse = number(&r.max_turn_duration)},
      {.name = "system-prompt", .env = "BUZZ_ACP_SYSTEM_PROMPT", .value = "TEXT", .help = "prepended to every session",
       .parse = text(&r.system_prompt)},
      {.name = "system-prompt-file", .env = "BUZZ_ACP_SYSTEM_PROMPT_FILE", .value = "PATH",
       .help = "the same, read from a file", .parse = text(&r.system_prompt_file)},
      {.name = "base-prompt-file", .env = "BUZZ_ACP_BASE_PROMPT_FILE", .value = "PATH",
       .default_text = "the built-in one about `buzz`", .help = "what a new session is told first",
       .parse = text(&r.base_prompt_file)},
      {.name = "no-base-prompt", .env = "BUZZ_ACP_NO_BASE_PROMPT", .help = "tell a new session nothing first",
       .parse = flag(&r.no_base_prompt)},
      {.name = "turn-liveness-secs", .env = "BUZZ_ACP_TURN_LIVENESS_SECS", .value = "S", .default_text = "10",
       .help = "check a silent turn's agent this often, so an agent that exited while a child holds its stdout ends "
               "the turn",
       .parse = number(&r.turn_liveness)},
      {.name = "initial-message", .env = "BUZZ_ACP_INITIAL_MESSAGE", .value = "TEXT",
       .help = "sent once per new channel session", .parse = text(&r.initial_message)},
      {.name = "heartbeat-interval", .env = "BUZZ_ACP_HEARTBEAT_INTERVAL", .value = "S", .default_text = "0",
       .help = "0 = off, else >= 10", .parse = number(&r.heartbeat_interval)},
      {.name = "heartbeat-prompt", .env = "BUZZ_ACP_HEARTBEAT_PROMPT", .value = "TEXT", .help = "what a heartbeat asks",
       .parse = text(&r.heartbeat_prompt)},
      {.name = "heartbeat-prompt-file", .env = "BUZZ_ACP_HEARTBEAT_PROMPT_FILE", .value = "PATH",
       .help = "the same, read from a file", .parse = text(&r.heartbeat_prompt_file)},
      {.name = "max-turns-per-session", .env = "BUZZ_ACP_MAX_TURNS_PER_SESSION", .value = "N",
       .default_text = "0 = off", .help = "rotate sessions", .parse = number(&r.max_turns_per_session)},
      {.name = "model", .env = "BUZZ_ACP_MODEL", .value = "ID", .help = "the model the agents are asked to use",
       .parse = text(&r.model)},
      {.name = "permission-mode", .env = "BUZZ_ACP_PERMISSION_MODE", .value = "MODE",
       .default_text = "bypass-permissions", .help = "default, accept-edits, bypass-permissions, dont-ask or plan",
       .parse = text(&r.permission_mode)},
      section("What reaches the agents:"),
      {.name = "subscribe", .env = "BUZZ_ACP_SUBSCRIBE", .value = "MODE", .default_text = "mentions",
       .help = "mentions | all | config", .parse = text(&r.subscribe)},
      {.name = "config", .env = "BUZZ_ACP_CONFIG", .value = "PATH", .default_text = "./buzz-acp.toml",
       .help = "the rules file of config mode", .parse = text(&r.config)},
      {.name = "kinds", .env = "BUZZ_ACP_KINDS", .value = "9,46010", .default_text = "in mentions mode: 9,46010,40007",
       .help = "the event kinds heard", .parse = text(&r.kinds)},
      {.name = "channels", .env = "BUZZ_ACP_CHANNELS", .value = "UUID,…", .default_text = "every channel the agent is in",
       .help = "the channels heard", .parse = text(&r.channels)},
      {.name = "no-mention-filter", .env = "BUZZ_ACP_NO_MENTION_FILTER",
       .help = "hear every message of the kinds, not only mentions", .parse = flag(&r.no_mention_filter)},
      {.name = "respond-to", .env = "BUZZ_ACP_RESPOND_TO", .value = "WHO", .default_text = "owner-only",
       .help = "owner-only | allowlist | anyone | nobody", .parse = text(&r.respond_to)},
      {.name = "respond-to-allowlist", .env = "BUZZ_ACP_RESPOND_TO_ALLOWLIST", .value = "HEX,…",
       .help = "the pubkeys of --respond-to allowlist", .parse = text(&r.respond_to_allowlist)},
      {.name = "agent-owner", .env = "BUZZ_ACP_AGENT_OWNER", .value = "KEY",
       .help = "the owner (hex or npub); without it the agent's profile names it", .parse = text(&r.agent_owner)},
      {.name = "dedup", .env = "BUZZ_ACP_DEDUP", .value = "MODE", .default_text = "queue", .help = "queue | drop",
       .parse = text(&r.dedup)},
      {.name = "multiple-event-handling", .env = "BUZZ_ACP_MULTIPLE_EVENT_HANDLING", .value = "M",
       .default_text = "queue", .help = "queue | interrupt | owner-interrupt", .parse = text(&r.multiple)},
      {.name = "no-ignore-self", .env = "BUZZ_ACP_NO_IGNORE_SELF", .help = "also hear the agent's own events",
       .parse = flag(&r.no_ignore_self)},
      {.name = "context-message-limit", .env = "BUZZ_ACP_CONTEXT_MESSAGE_LIMIT", .value = "N", .default_text = "12",
       .help = "0..100, 0 = no context", .parse = number(&r.context_message_limit)},
      {.name = "no-presence", .env = "BUZZ_ACP_NO_PRESENCE", .help = "publish no presence", .parse = flag(&r.no_presence)},
      {.name = "no-typing", .env = "BUZZ_ACP_NO_TYPING", .help = "send no typing indicators", .parse = flag(&r.no_typing)},
      // Unset when empty, as before the table.
      {.env = "BUZZ_ACP_EVENT_BUFFER", .default_text = "256",
       .help = "relay messages handled before the agents' reports get their turn",
       .parse = [&r](const std::string& v) { return v.empty() ? std::string() : number(&r.event_buffer)(v); }},
  };
  for (Option& o : rest) rows.push_back(std::move(o));
  return rows;
}

struct ConfigError {
  std::string message;
};

void warn(const std::string& text) { std::fprintf(stderr, "buzz acp: warning: %s\n", text.c_str()); }

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) {
    part = engine::trim(part);
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

std::string read_file(const std::string& flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError{"cannot read --" + flag + " " + path};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool is_uuid(const std::string& s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// The path of this binary, for the default MCP server (`buzz mcp`).
std::string self_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : "buzz";
}

Config build(Raw& r) {
  Config c;
  if (r.relay_url) c.relay_url = *r.relay_url;
  c.rest_url = cli::normalize_relay_url(c.relay_url);

  std::optional<std::string>& key = r.private_key;
  if (!key || engine::trim(*key).empty()) throw ConfigError{"a private key is required: --private-key or BUZZ_PRIVATE_KEY"};
  std::string key_text(engine::trim(*key));
  std::fill(key->begin(), key->end(), '\0');  // the secret does not linger in the raw options
  auto kp = engine::parse_secret_key(key_text);
  std::fill(key_text.begin(), key_text.end(), '\0');
  if (!kp) throw ConfigError{"invalid private key: expected 64 hex characters or nsec1…"};
  c.key = *kp;
  c.private_key_hex = engine::to_hex(kp->secret);

  if (auto& t = r.api_token; t && !engine::trim(*t).empty()) c.api_token = engine::trim(*t);

  if (r.agent_command) c.agent_command = engine::trim(*r.agent_command);
  if (c.agent_command.empty()) throw ConfigError{"agent_command must not be empty"};
  c.agent_args = normalize_agent_args(c.agent_command, split_list(r.agent_args.value_or("")));

  if (auto& m = r.mcp_command) {
    std::stringstream words(*m);
    for (std::string w; words >> w;) (c.mcp_command.empty() ? c.mcp_command : c.mcp_args.emplace_back()) = w;
  } else {
    c.mcp_command = self_path();
    c.mcp_args = {"mcp"};
  }

  std::optional<uint64_t> idle = r.idle_timeout;
  if (r.turn_timeout) {
    if (idle) {
      warn("--turn-timeout is deprecated and ignored because --idle-timeout is set");
    } else {
      warn("--turn-timeout is deprecated: use --idle-timeout");
      idle = r.turn_timeout;
    }
  }
  if (idle) c.idle_timeout_s = std::max<uint64_t>(*idle, 1);
  if (r.max_turn_duration) c.max_turn_duration_s = *r.max_turn_duration;
  if (c.max_turn_duration_s == 0) c.max_turn_duration_s = 60;
  if (c.idle_timeout_s >= c.max_turn_duration_s) {
    throw ConfigError{"idle_timeout (" + std::to_string(c.idle_timeout_s) + "s) must be less than max_turn_duration (" +
                      std::to_string(c.max_turn_duration_s) + "s)"};
  }

  if (r.system_prompt && r.system_prompt_file) {
    throw ConfigError{"--system-prompt and --system-prompt-file are mutually exclusive"};
  }
  if (r.system_prompt) c.system_prompt = *r.system_prompt;
  if (auto& f = r.system_prompt_file) c.system_prompt = read_file("system-prompt-file", *f);
  if (r.no_base_prompt && r.base_prompt_file) {
    throw ConfigError{"--no-base-prompt and --base-prompt-file are mutually exclusive"};
  }
  if (r.no_base_prompt) c.base_prompt.reset();
  if (auto& f = r.base_prompt_file) c.base_prompt = read_file("base-prompt-file", *f);
  if (r.turn_liveness) c.turn_liveness_s = std::max<uint64_t>(*r.turn_liveness, 1);

  if (auto n = r.agents) {
    if (*n < 1 || *n > 32) throw ConfigError{"--agents must be between 1 and 32, got " + std::to_string(*n)};
    c.agents = int(*n);
  }
  if (auto n = r.heartbeat_interval) {
    if (*n != 0 && *n < 10) throw ConfigError{"heartbeat interval must be 0 (disabled) or ≥10 seconds"};
    c.heartbeat_interval_s = std::min<uint64_t>(*n, 86400);
  }
  if (r.heartbeat_prompt && r.heartbeat_prompt_file) {
    throw ConfigError{"--heartbeat-prompt and --heartbeat-prompt-file are mutually exclusive"};
  }
  if (r.heartbeat_prompt) c.heartbeat_prompt = *r.heartbeat_prompt;
  if (auto& f = r.heartbeat_prompt_file) c.heartbeat_prompt = read_file("heartbeat-prompt-file", *f);
  if (auto& s = r.initial_message; s && !s->empty()) c.initial_message = *s;

  const std::string mode = engine::lower(engine::trim(r.subscribe.value_or("mentions")));
  if (mode == "mentions") c.subscribe = SubscribeMode::kMentions;
  else if (mode == "all") c.subscribe = SubscribeMode::kAll;
  else if (mode == "config") c.subscribe = SubscribeMode::kConfig;
  else throw ConfigError{"--subscribe must be mentions, all or config, got '" + mode + "'"};
  if (auto& s = r.kinds) {
    std::vector<int> kinds;
    for (const std::string& k : split_list(*s)) {
      int64_t n = 0;
      if (!options::parse_integer(k, 0, 65535, &n).empty()) throw ConfigError{"invalid kind in --kinds: " + k};
      kinds.push_back(int(n));
    }
    c.kinds = kinds;
  }
  if (auto& s = r.channels) {
    for (std::string ch : split_list(*s)) {
      ch = engine::lower(ch);
      if (is_uuid(ch)) c.channels.push_back(ch);
      else warn("ignoring invalid channel id in --channels: " + ch);
    }
  }
  c.no_mention_filter = r.no_mention_filter;
  if (r.config) c.config_path = *r.config;
  if (c.subscribe == SubscribeMode::kConfig) {  // the rules file says all of it
    if (c.kinds) warn("--kinds is ignored with --subscribe config");
    if (!c.channels.empty()) warn("--channels is ignored with --subscribe config");
    if (c.no_mention_filter) warn("--no-mention-filter is ignored with --subscribe config");
    c.kinds.reset();
    c.channels.clear();
    c.no_mention_filter = false;
  }

  const std::string dedup = engine::lower(engine::trim(r.dedup.value_or("queue")));
  if (dedup == "queue") c.dedup = Dedup::kQueue;
  else if (dedup == "drop") c.dedup = Dedup::kDrop;
  else throw ConfigError{"--dedup must be queue or drop, got '" + dedup + "'"};
  const std::string multiple = engine::lower(engine::trim(r.multiple.value_or("queue")));
  if (multiple == "queue") c.multiple = MultipleEvents::kQueue;
  else if (multiple == "interrupt") c.multiple = MultipleEvents::kInterrupt;
  else if (multiple == "owner-interrupt") c.multiple = MultipleEvents::kOwnerInterrupt;
  else throw ConfigError{"--multiple-event-handling must be queue, interrupt or owner-interrupt, got '" + multiple + "'"};
  if (c.multiple != MultipleEvents::kQueue && c.dedup != Dedup::kQueue) {
    throw ConfigError{"--multiple-event-handling=" + multiple + " requires --dedup=queue"};
  }
  c.ignore_self = !r.no_ignore_self;
  if (auto n = r.context_message_limit) {
    if (*n > 100) throw ConfigError{"--context-message-limit must be between 0 and 100, got " + std::to_string(*n)};
    c.context_message_limit = int(*n);
  }
  if (auto n = r.max_turns_per_session) c.max_turns_per_session = int(std::min<uint64_t>(*n, 1u << 30));
  c.presence = !r.no_presence;
  c.typing = !r.no_typing;
  if (auto& s = r.model; s && !engine::trim(*s).empty()) c.model = engine::trim(*s);

  static const std::map<std::string, std::string> kModes = {
      {"default", "default"},          {"accept-edits", "acceptEdits"},
      {"acceptedits", "acceptEdits"},  {"bypass-permissions", "bypassPermissions"},
      {"bypasspermissions", "bypassPermissions"}, {"dont-ask", "dontAsk"},
      {"dontask", "dontAsk"},          {"plan", "plan"}};
  if (auto& s = r.permission_mode) {
    auto it = kModes.find(engine::lower(engine::trim(*s)));
    if (it == kModes.end()) {
      throw ConfigError{"--permission-mode must be default, accept-edits, bypass-permissions, dont-ask or plan, got '" +
                        *s + "'"};
    }
    c.permission_mode = it->second;
  }

  const std::string respond = engine::lower(engine::trim(r.respond_to.value_or("owner-only")));
  if (respond == "owner-only") c.respond_to = RespondTo::kOwnerOnly;
  else if (respond == "allowlist") c.respond_to = RespondTo::kAllowlist;
  else if (respond == "anyone") c.respond_to = RespondTo::kAnyone;
  else if (respond == "nobody") c.respond_to = RespondTo::kNobody;
  else throw ConfigError{"--respond-to must be owner-only, allowlist, anyone or nobody, got '" + respond + "'"};
  auto& allow = r.respond_to_allowlist;
  if (c.respond_to == RespondTo::kAllowlist) {
    for (std::string p : split_list(allow.value_or(""))) {
      p = engine::lower(p);
      if (!engine::is_lower_hex(p, 32)) {
        throw ConfigError{"invalid pubkey in --respond-to-allowlist: '" + p + "' (must be exactly 64 hex characters)"};
      }
      c.respond_to_allowlist.insert(p);
    }
    if (c.respond_to_allowlist.empty()) {
      throw ConfigError{"--respond-to=allowlist requires --respond-to-allowlist with at least one pubkey"};
    }
  } else if (allow) {
    warn("--respond-to-allowlist is ignored unless --respond-to=allowlist");
  }
  if (auto& o = r.agent_owner; o && !engine::trim(*o).empty()) {
    const std::string owner = engine::lower(engine::trim(*o));
    if (engine::is_lower_hex(owner, 32)) {
      c.agent_owner = owner;
    } else if (auto pk = engine::decode_bech32_key(owner, "npub")) {
      c.agent_owner = engine::to_hex(*pk);
    } else {
      throw ConfigError{"invalid --agent-owner: '" + owner + "' (expected 64 hex characters or npub1…)"};
    }
  }
  if (r.event_buffer) c.event_buffer = int(std::clamp<uint64_t>(*r.event_buffer, 1, 1u << 20));
  return c;
}

}  // namespace

std::vector<std::string> normalize_agent_args(const std::string& command, const std::vector<std::string>& given) {
  std::string id = command.substr(command.find_last_of('/') == std::string::npos ? 0 : command.find_last_of('/') + 1);
  id = engine::lower(id);
  if (id.ends_with(".exe")) id.resize(id.size() - 4);
  std::replace(id.begin(), id.end(), ' ', '-');
  std::replace(id.begin(), id.end(), '_', '-');
  static const char* kZeroArg[] = {"codex", "codex-acp", "claude-agent-acp", "claude-code-acp", "claude-code", "claudecode"};
  const bool zero_arg = std::find_if(std::begin(kZeroArg), std::end(kZeroArg), [&](const char* n) { return id == n; }) !=
                        std::end(kZeroArg);
  std::vector<std::string> args;
  for (const std::string& a : given) {
    if (!engine::trim(a).empty()) args.emplace_back(engine::trim(a));
  }
  if (zero_arg && args == std::vector<std::string>{"acp"}) return {};  // the old goose default, left over
  if (!args.empty()) return args;
  if (id == "goose") return {"acp"};
  return {};
}

std::vector<options::Option> agent_options(std::optional<std::string>* command, std::optional<std::string>* args) {
  return {
      {.name = "agent-command", .env = "BUZZ_ACP_AGENT_COMMAND", .value = "CMD", .default_text = "goose",
       .help = "the agent to run", .parse = options::text(command)},
      {.name = "agent-args", .env = "BUZZ_ACP_AGENT_ARGS", .value = "A,B", .default_text = "acp for goose",
       .help = "its arguments, comma-separated", .parse = options::text(args)},
  };
}

std::string acp_help() {
  Raw unused;
  return kIntro + options::help(table(unused)) + kOutro;
}

std::optional<Config> parse_config(int argc, char** argv, int first_arg, std::string* error, bool* help,
                                   bool* usage_error) {
  Raw raw;
  const std::vector<options::Option> rows = table(raw);
  const options::Parsed parsed = options::parse(rows, argc, argv, first_arg);
  *help = parsed.outcome == options::Parsed::Outcome::kHelp;
  if (*help) return std::nullopt;
  *error = parsed.ok() ? options::apply_environment(rows, parsed) : parsed.error;
  if (usage_error) *usage_error = !error->empty();
  if (!error->empty()) return std::nullopt;
  try {
    return build(raw);
  } catch (const ConfigError& e) {
    *error = e.message;
    return std::nullopt;
  }
}

}  // namespace buzz::acp
