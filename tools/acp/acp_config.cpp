// The harness's configuration; see acp_config.h.
#include "tools/acp/acp_config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/hex.h"
#include "engine/nip19.h"
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

const char* const kAcpHelp = R"(buzz acp — run ACP agents as members of a Buzz team

Usage: buzz acp [options]
       buzz acp models [--agent-command CMD] [--agent-args A,B] [--json]

Connects to the relay as the agent's key (NIP-42, with an API token), listens in
the agent's channels, and hands what it hears to 1–32 agent processes speaking the
Agent Client Protocol (one JSON-RPC message per line on their stdin/stdout). The
agents answer through their own tools (the MCP server `buzz mcp`, handed to them
in session/new, or the `buzz` commands); the harness adds 👀 and 💬 reactions and
typing indicators, restarts crashed agents and keeps no state on disk.
Each option can be set by its environment variable; the flag wins.

Relay and identity:
  --relay-url URL            BUZZ_RELAY_URL            [default: ws://localhost:3000]
  --private-key KEY          BUZZ_PRIVATE_KEY          64 hex or nsec1… (required)
  --api-token TOKEN          BUZZ_API_TOKEN            sent in NIP-42 AUTH and as Bearer;
                                                       without it one is minted with the key
Agents:
  --agent-command CMD        BUZZ_ACP_AGENT_COMMAND    [default: goose]
  --agent-args A,B           BUZZ_ACP_AGENT_ARGS       [default: acp for goose]
  --agents N                 BUZZ_ACP_AGENTS           1..32 [default: 1]
  --mcp-command CMD          BUZZ_ACP_MCP_COMMAND      MCP server for the agents, "" for none
                                                       [default: this binary's `buzz mcp`]
  --idle-timeout S           BUZZ_ACP_IDLE_TIMEOUT     kill a turn silent this long [default: 320]
  --max-turn-duration S      BUZZ_ACP_MAX_TURN_DURATION  cap per turn [default: 3600]
  --system-prompt TEXT       BUZZ_ACP_SYSTEM_PROMPT    (or --system-prompt-file PATH)
  --base-prompt-file PATH    BUZZ_ACP_BASE_PROMPT_FILE what a new session is told first
                                                       [default: the built-in one about `buzz`]
  --no-base-prompt           BUZZ_ACP_NO_BASE_PROMPT
  --turn-liveness-secs S     BUZZ_ACP_TURN_LIVENESS_SECS  check a silent turn's agent this
                                                       often, so an agent that exited while
                                                       a child holds its stdout ends the turn
                                                       [default: 10]
  --initial-message TEXT     BUZZ_ACP_INITIAL_MESSAGE  sent once per new channel session
  --heartbeat-interval S     BUZZ_ACP_HEARTBEAT_INTERVAL  0 = off, else >= 10 [default: 0]
  --heartbeat-prompt TEXT    BUZZ_ACP_HEARTBEAT_PROMPT (or --heartbeat-prompt-file PATH)
  --max-turns-per-session N  BUZZ_ACP_MAX_TURNS_PER_SESSION  rotate sessions [default: 0 = off]
  --model ID                 BUZZ_ACP_MODEL
  --permission-mode MODE     BUZZ_ACP_PERMISSION_MODE  default, accept-edits, bypass-permissions,
                                                       dont-ask, plan [default: bypass-permissions]
What reaches the agents:
  --subscribe MODE           BUZZ_ACP_SUBSCRIBE        mentions | all | config [default: mentions]
  --config PATH              BUZZ_ACP_CONFIG           the rules file of config mode [default: ./buzz-acp.toml]
  --kinds 9,46010            BUZZ_ACP_KINDS            [default in mentions mode: 9,46010,40007]
  --channels UUID,…          BUZZ_ACP_CHANNELS         [default: every channel the agent is in]
  --no-mention-filter        BUZZ_ACP_NO_MENTION_FILTER
  --respond-to WHO           BUZZ_ACP_RESPOND_TO       owner-only | allowlist | anyone | nobody
                                                       [default: owner-only]
  --respond-to-allowlist HEX,…  BUZZ_ACP_RESPOND_TO_ALLOWLIST
  --agent-owner KEY          BUZZ_ACP_AGENT_OWNER      the owner (hex or npub); without it the
                                                       agent's profile names it
  --dedup MODE               BUZZ_ACP_DEDUP            queue | drop [default: queue]
  --multiple-event-handling M  BUZZ_ACP_MULTIPLE_EVENT_HANDLING  queue | interrupt | owner-interrupt
  --no-ignore-self           BUZZ_ACP_NO_IGNORE_SELF   also hear the agent's own events
  --context-message-limit N  BUZZ_ACP_CONTEXT_MESSAGE_LIMIT  0..100, 0 = no context [default: 12]
  --no-presence              BUZZ_ACP_NO_PRESENCE
  --no-typing                BUZZ_ACP_NO_TYPING
  BUZZ_ACP_EVENT_BUFFER      relay messages handled before the agents' reports get
                             their turn [default: 256]

The owner (--agent-owner, or the agent_owner_pubkey of the agent's profile) can
send `!cancel`, `!rotate` (cancel and start the channel's session afresh) or
`!shutdown` in a message that mentions the agent.
)";

namespace {

struct Option {
  const char* flag;
  const char* env;
  bool is_switch = false;
};

constexpr Option kOptions[] = {
    {"relay-url", "BUZZ_RELAY_URL"},
    {"private-key", "BUZZ_PRIVATE_KEY"},
    {"api-token", "BUZZ_API_TOKEN"},
    {"agent-command", "BUZZ_ACP_AGENT_COMMAND"},
    {"agent-args", "BUZZ_ACP_AGENT_ARGS"},
    {"mcp-command", "BUZZ_ACP_MCP_COMMAND"},
    {"idle-timeout", "BUZZ_ACP_IDLE_TIMEOUT"},
    {"max-turn-duration", "BUZZ_ACP_MAX_TURN_DURATION"},
    {"turn-timeout", "BUZZ_ACP_TURN_TIMEOUT"},
    {"system-prompt", "BUZZ_ACP_SYSTEM_PROMPT"},
    {"system-prompt-file", "BUZZ_ACP_SYSTEM_PROMPT_FILE"},
    {"agents", "BUZZ_ACP_AGENTS"},
    {"heartbeat-interval", "BUZZ_ACP_HEARTBEAT_INTERVAL"},
    {"heartbeat-prompt", "BUZZ_ACP_HEARTBEAT_PROMPT"},
    {"heartbeat-prompt-file", "BUZZ_ACP_HEARTBEAT_PROMPT_FILE"},
    {"initial-message", "BUZZ_ACP_INITIAL_MESSAGE"},
    {"subscribe", "BUZZ_ACP_SUBSCRIBE"},
    {"kinds", "BUZZ_ACP_KINDS"},
    {"channels", "BUZZ_ACP_CHANNELS"},
    {"no-mention-filter", "BUZZ_ACP_NO_MENTION_FILTER", true},
    {"config", "BUZZ_ACP_CONFIG"},
    {"dedup", "BUZZ_ACP_DEDUP"},
    {"multiple-event-handling", "BUZZ_ACP_MULTIPLE_EVENT_HANDLING"},
    {"no-ignore-self", "BUZZ_ACP_NO_IGNORE_SELF", true},
    {"context-message-limit", "BUZZ_ACP_CONTEXT_MESSAGE_LIMIT"},
    {"max-turns-per-session", "BUZZ_ACP_MAX_TURNS_PER_SESSION"},
    {"no-presence", "BUZZ_ACP_NO_PRESENCE", true},
    {"no-typing", "BUZZ_ACP_NO_TYPING", true},
    {"model", "BUZZ_ACP_MODEL"},
    {"permission-mode", "BUZZ_ACP_PERMISSION_MODE"},
    {"respond-to", "BUZZ_ACP_RESPOND_TO"},
    {"respond-to-allowlist", "BUZZ_ACP_RESPOND_TO_ALLOWLIST"},
    {"agent-owner", "BUZZ_ACP_AGENT_OWNER"},
    {"turn-liveness-secs", "BUZZ_ACP_TURN_LIVENESS_SECS"},
    {"base-prompt-file", "BUZZ_ACP_BASE_PROMPT_FILE"},
    {"no-base-prompt", "BUZZ_ACP_NO_BASE_PROMPT", true},
};

struct ConfigError {
  std::string message;
};

void warn(const std::string& text) { std::fprintf(stderr, "buzz acp: warning: %s\n", text.c_str()); }

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\r\n"));
  s.erase(s.find_last_not_of(" \t\r\n") + 1);
  return s;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) {
    part = trim(part);
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

uint64_t number(const std::string& name, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || text[0] == '-') {
    throw ConfigError{"invalid value '" + text + "' for --" + name + ": expected a non-negative integer"};
  }
  return v;
}

bool truthy(const std::string& v) {
  const std::string l = lower(trim(v));
  return l == "1" || l == "true" || l == "yes" || l == "on";
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

Config build(std::map<std::string, std::string>& v) {
  Config c;
  auto get = [&](const char* name) -> std::optional<std::string> {
    auto it = v.find(name);
    return it == v.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  auto on = [&](const char* name) { return get(name) && truthy(*get(name)); };

  if (auto u = get("relay-url")) c.relay_url = *u;
  c.rest_url = cli::normalize_relay_url(c.relay_url);

  auto key = get("private-key");
  if (!key || trim(*key).empty()) throw ConfigError{"a private key is required: --private-key or BUZZ_PRIVATE_KEY"};
  std::string key_text = trim(*key);
  std::fill(key->begin(), key->end(), '\0');  // the secret does not linger in the option map
  auto kp = engine::parse_secret_key(key_text);
  std::fill(key_text.begin(), key_text.end(), '\0');
  if (!kp) throw ConfigError{"invalid private key: expected 64 hex characters or nsec1…"};
  c.key = *kp;
  c.private_key_hex = engine::to_hex(kp->secret);

  if (auto t = get("api-token"); t && !trim(*t).empty()) c.api_token = trim(*t);

  if (auto cmd = get("agent-command")) c.agent_command = trim(*cmd);
  if (c.agent_command.empty()) throw ConfigError{"agent_command must not be empty"};
  c.agent_args = normalize_agent_args(c.agent_command, split_list(get("agent-args").value_or("")));

  if (auto m = get("mcp-command")) {
    std::stringstream words(*m);
    for (std::string w; words >> w;) (c.mcp_command.empty() ? c.mcp_command : c.mcp_args.emplace_back()) = w;
  } else {
    c.mcp_command = self_path();
    c.mcp_args = {"mcp"};
  }

  std::optional<uint64_t> idle;
  if (auto s = get("idle-timeout")) idle = number("idle-timeout", *s);
  if (auto s = get("turn-timeout")) {
    if (idle) {
      warn("--turn-timeout is deprecated and ignored because --idle-timeout is set");
    } else {
      warn("--turn-timeout is deprecated: use --idle-timeout");
      idle = number("turn-timeout", *s);
    }
  }
  if (idle) c.idle_timeout_s = std::max<uint64_t>(*idle, 1);
  if (auto s = get("max-turn-duration")) c.max_turn_duration_s = number("max-turn-duration", *s);
  if (c.max_turn_duration_s == 0) c.max_turn_duration_s = 60;
  if (c.idle_timeout_s >= c.max_turn_duration_s) {
    throw ConfigError{"idle_timeout (" + std::to_string(c.idle_timeout_s) + "s) must be less than max_turn_duration (" +
                      std::to_string(c.max_turn_duration_s) + "s)"};
  }

  if (get("system-prompt") && get("system-prompt-file")) {
    throw ConfigError{"--system-prompt and --system-prompt-file are mutually exclusive"};
  }
  if (auto s = get("system-prompt")) c.system_prompt = *s;
  if (auto f = get("system-prompt-file")) c.system_prompt = read_file("system-prompt-file", *f);
  if (on("no-base-prompt") && get("base-prompt-file")) {
    throw ConfigError{"--no-base-prompt and --base-prompt-file are mutually exclusive"};
  }
  if (on("no-base-prompt")) c.base_prompt.reset();
  if (auto f = get("base-prompt-file")) c.base_prompt = read_file("base-prompt-file", *f);
  if (auto s = get("turn-liveness-secs")) c.turn_liveness_s = std::max<uint64_t>(number("turn-liveness-secs", *s), 1);

  if (auto s = get("agents")) {
    const uint64_t n = number("agents", *s);
    if (n < 1 || n > 32) throw ConfigError{"--agents must be between 1 and 32, got " + *s};
    c.agents = int(n);
  }
  if (auto s = get("heartbeat-interval")) {
    const uint64_t n = number("heartbeat-interval", *s);
    if (n != 0 && n < 10) throw ConfigError{"heartbeat interval must be 0 (disabled) or ≥10 seconds"};
    c.heartbeat_interval_s = std::min<uint64_t>(n, 86400);
  }
  if (get("heartbeat-prompt") && get("heartbeat-prompt-file")) {
    throw ConfigError{"--heartbeat-prompt and --heartbeat-prompt-file are mutually exclusive"};
  }
  if (auto s = get("heartbeat-prompt")) c.heartbeat_prompt = *s;
  if (auto f = get("heartbeat-prompt-file")) c.heartbeat_prompt = read_file("heartbeat-prompt-file", *f);
  if (auto s = get("initial-message"); s && !s->empty()) c.initial_message = *s;

  const std::string mode = lower(trim(get("subscribe").value_or("mentions")));
  if (mode == "mentions") c.subscribe = SubscribeMode::kMentions;
  else if (mode == "all") c.subscribe = SubscribeMode::kAll;
  else if (mode == "config") c.subscribe = SubscribeMode::kConfig;
  else throw ConfigError{"--subscribe must be mentions, all or config, got '" + mode + "'"};
  if (auto s = get("kinds")) {
    std::vector<int> kinds;
    for (const std::string& k : split_list(*s)) {
      const uint64_t n = number("kinds", k);
      if (n > 65535) throw ConfigError{"invalid kind in --kinds: " + k};
      kinds.push_back(int(n));
    }
    c.kinds = kinds;
  }
  if (auto s = get("channels")) {
    for (std::string ch : split_list(*s)) {
      ch = lower(ch);
      if (is_uuid(ch)) c.channels.push_back(ch);
      else warn("ignoring invalid channel id in --channels: " + ch);
    }
  }
  c.no_mention_filter = on("no-mention-filter");
  if (auto s = get("config")) c.config_path = *s;
  if (c.subscribe == SubscribeMode::kConfig) {  // the rules file says all of it
    if (c.kinds) warn("--kinds is ignored with --subscribe config");
    if (!c.channels.empty()) warn("--channels is ignored with --subscribe config");
    if (c.no_mention_filter) warn("--no-mention-filter is ignored with --subscribe config");
    c.kinds.reset();
    c.channels.clear();
    c.no_mention_filter = false;
  }

  const std::string dedup = lower(trim(get("dedup").value_or("queue")));
  if (dedup == "queue") c.dedup = Dedup::kQueue;
  else if (dedup == "drop") c.dedup = Dedup::kDrop;
  else throw ConfigError{"--dedup must be queue or drop, got '" + dedup + "'"};
  const std::string multiple = lower(trim(get("multiple-event-handling").value_or("queue")));
  if (multiple == "queue") c.multiple = MultipleEvents::kQueue;
  else if (multiple == "interrupt") c.multiple = MultipleEvents::kInterrupt;
  else if (multiple == "owner-interrupt") c.multiple = MultipleEvents::kOwnerInterrupt;
  else throw ConfigError{"--multiple-event-handling must be queue, interrupt or owner-interrupt, got '" + multiple + "'"};
  if (c.multiple != MultipleEvents::kQueue && c.dedup != Dedup::kQueue) {
    throw ConfigError{"--multiple-event-handling=" + multiple + " requires --dedup=queue"};
  }
  c.ignore_self = !on("no-ignore-self");
  if (auto s = get("context-message-limit")) {
    const uint64_t n = number("context-message-limit", *s);
    if (n > 100) throw ConfigError{"--context-message-limit must be between 0 and 100, got " + *s};
    c.context_message_limit = int(n);
  }
  if (auto s = get("max-turns-per-session")) c.max_turns_per_session = int(std::min<uint64_t>(number("max-turns-per-session", *s), 1u << 30));
  c.presence = !on("no-presence");
  c.typing = !on("no-typing");
  if (auto s = get("model"); s && !trim(*s).empty()) c.model = trim(*s);

  static const std::map<std::string, std::string> kModes = {
      {"default", "default"},          {"accept-edits", "acceptEdits"},
      {"acceptedits", "acceptEdits"},  {"bypass-permissions", "bypassPermissions"},
      {"bypasspermissions", "bypassPermissions"}, {"dont-ask", "dontAsk"},
      {"dontask", "dontAsk"},          {"plan", "plan"}};
  if (auto s = get("permission-mode")) {
    auto it = kModes.find(lower(trim(*s)));
    if (it == kModes.end()) {
      throw ConfigError{"--permission-mode must be default, accept-edits, bypass-permissions, dont-ask or plan, got '" +
                        *s + "'"};
    }
    c.permission_mode = it->second;
  }

  const std::string respond = lower(trim(get("respond-to").value_or("owner-only")));
  if (respond == "owner-only") c.respond_to = RespondTo::kOwnerOnly;
  else if (respond == "allowlist") c.respond_to = RespondTo::kAllowlist;
  else if (respond == "anyone") c.respond_to = RespondTo::kAnyone;
  else if (respond == "nobody") c.respond_to = RespondTo::kNobody;
  else throw ConfigError{"--respond-to must be owner-only, allowlist, anyone or nobody, got '" + respond + "'"};
  auto allow = get("respond-to-allowlist");
  if (c.respond_to == RespondTo::kAllowlist) {
    for (std::string p : split_list(allow.value_or(""))) {
      p = lower(p);
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
  if (auto o = get("agent-owner"); o && !trim(*o).empty()) {
    const std::string owner = lower(trim(*o));
    if (engine::is_lower_hex(owner, 32)) {
      c.agent_owner = owner;
    } else if (auto pk = engine::decode_bech32_key(owner, "npub")) {
      c.agent_owner = engine::to_hex(*pk);
    } else {
      throw ConfigError{"invalid --agent-owner: '" + owner + "' (expected 64 hex characters or npub1…)"};
    }
  }
  if (const char* b = std::getenv("BUZZ_ACP_EVENT_BUFFER"); b && *b) {
    c.event_buffer = int(std::clamp<uint64_t>(number("BUZZ_ACP_EVENT_BUFFER", b), 1, 1u << 20));
  }
  return c;
}

}  // namespace

std::vector<std::string> normalize_agent_args(const std::string& command, const std::vector<std::string>& given) {
  std::string id = command.substr(command.find_last_of('/') == std::string::npos ? 0 : command.find_last_of('/') + 1);
  id = lower(id);
  if (id.ends_with(".exe")) id.resize(id.size() - 4);
  std::replace(id.begin(), id.end(), ' ', '-');
  std::replace(id.begin(), id.end(), '_', '-');
  static const char* kZeroArg[] = {"codex", "codex-acp", "claude-agent-acp", "claude-code-acp", "claude-code", "claudecode"};
  const bool zero_arg = std::find_if(std::begin(kZeroArg), std::end(kZeroArg), [&](const char* n) { return id == n; }) !=
                        std::end(kZeroArg);
  std::vector<std::string> args;
  for (const std::string& a : given) {
    if (!trim(a).empty()) args.push_back(trim(a));
  }
  if (zero_arg && args == std::vector<std::string>{"acp"}) return {};  // the old goose default, left over
  if (!args.empty()) return args;
  if (id == "goose") return {"acp"};
  return {};
}

std::optional<Config> parse_config(int argc, char** argv, int first_arg, std::string* error, bool* help) {
  *help = false;
  std::map<std::string, std::string> values;
  // Environment first, the legacy aliases only where the canonical name is unset.
  auto env = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  for (const Option& o : kOptions) {
    if (auto v = env(o.env)) values[o.flag] = *v;
  }
  if (!values.count("private-key")) {
    if (auto v = env("BUZZ_ACP_PRIVATE_KEY")) values["private-key"] = *v;
  }
  if (!values.count("api-token")) {
    if (auto v = env("BUZZ_ACP_API_TOKEN")) values["api-token"] = *v;
  }
  for (int i = first_arg; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      return std::nullopt;
    }
    std::optional<std::string> inline_value;
    if (size_t eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) {
      inline_value = arg.substr(eq + 1);
      arg.resize(eq);
    }
    const Option* o = arg.starts_with("--") ? std::find_if(std::begin(kOptions), std::end(kOptions),
                                                           [&](const Option& x) { return arg.substr(2) == x.flag; })
                                            : std::end(kOptions);
    if (o == std::end(kOptions)) {
      *error = "unexpected argument '" + arg + "' (see buzz acp --help)";
      return std::nullopt;
    }
    if (o->is_switch) {
      values[o->flag] = inline_value.value_or("true");
    } else if (inline_value) {
      values[o->flag] = *inline_value;
    } else if (i + 1 < argc) {
      values[o->flag] = argv[++i];
    } else {
      *error = "--" + std::string(o->flag) + " needs a value";
      return std::nullopt;
    }
  }
  try {
    return build(values);
  } catch (const ConfigError& e) {
    *error = e.message;
    return std::nullopt;
  }
}

}  // namespace buzz::acp
