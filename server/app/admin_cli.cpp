// `buzz admin …`: relay membership, bans, blocked addresses, the relay's
// NIP-11 texts, and keys. The same commands work on a stopped data directory
// (the tables are written directly, and no NIP-43 events are emitted,
// docs/reference/protocol.md §7.1) and against a running relay through NIP-86
// (docs/reference/nip86.md): with --relay URL, or when the data directory is
// held by a relay serving it, whose address `buzz serve` left in
// <data-dir>/serving. The output is the same either way (AdminTarget).
#include <cstdio>
#include <filesystem>

#include "engine/api_tokens.h"
#include "engine/channel.h"
#include "engine/clock.h"
#include "engine/json_text.h"
#include "engine/nip19.h"
#include "engine/pubkey_allowlist.h"
#include "engine/relay_members.h"
#include "engine/rocks_database.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "engine/team_state.h"
#include "server/access/grant.h"
#include "server/access/nip98.h"
#include "server/access/relay_key.h"
#include "server/access/relay_policy.h"
#include "server/app/admin_target.h"
#include "server/app/cli.h"
#include "server/team/group_state.h"

namespace buzz::server {
namespace {

constexpr const char* kAdminHead = R"(Usage: buzz admin <command> [options]

Commands that work offline and on a running relay (NIP-86; docs/reference/nip86.md):
  add-member --pubkey HEX [--role member|admin|owner]   add (or change) a relay member; online the
                                                       NIP-43 rules apply (no owner, admin by the owner)
  remove-member --pubkey HEX                           remove a relay member
  list-members [--json]                                list relay members, oldest first
  ban-pubkey --pubkey HEX [--reason TEXT]              refuse a pubkey at AUTH, on EVENT and over HTTP
  unban-pubkey --pubkey HEX                            lift a ban
  list-banned-pubkeys [--json]
  ban-event --id HEX [--reason TEXT]                   hide an event from every read, refuse it again
  allow-event --id HEX                                 lift an event's ban
  list-banned-events [--json]
  block-ip --ip ADDRESS [--reason TEXT]                refuse connections from an address
  unblock-ip --ip ADDRESS
  list-blocked-ips [--json]
  set-relay-info [--name T] [--description T] [--icon URL]
                                                       NIP-11 texts, overriding the configured ones
                                                       (an empty value goes back to the configured one)

Offline only (the data directory must not be in use):
  allowlist-add --pubkey HEX [--note TEXT]             add a pubkey to the legacy allow-list
  allowlist-remove --pubkey HEX                        remove a pubkey from the allow-list
  allowlist-list [--json]                              list the allow-list, oldest first
                                                       (enforced with BUZZ_PUBKEY_ALLOWLIST=true)
  generate-key [--json]                                print a new keypair (secret + pubkey) (no data directory)
  mint-token --pubkey HEX --name NAME --scopes S,S [--channels ID,ID] [--expires-days N] [--json]
                                                       mint an API token for HEX (any scope, admin and
                                                       proxy:submit included); it is shown once
  reconcile-channels [--relay-key HEX|nsec] [--json]   give each channel without group state its 39000,
                                                       39001 and 39002 (after importing a database),
                                                       signed with the relay's key
)";

const options::Option kAdminOptions[] = {
    {.name = "data-dir", .env = "BUZZ_DATA_DIR", .value = "DIR", .default_text = "./data", .help = "data directory"},
    {.name = "relay", .value = "URL",
     .help = "a running relay (ws://, wss://, http:// or https://): its NIP-86 API. Without it, a data directory a "
             "relay is serving is reached at the address in <data-dir>/serving"},
    {.name = "key", .env = "BUZZ_PRIVATE_KEY", .value = "K", .default_text = "<data-dir>/owner.key when the relay made one",
     .help = "the owner's or an admin's secret key, hex or nsec, for NIP-86"},
    {.name = "relay-key", .env = "BUZZ_RELAY_PRIVATE_KEY", .value = "K",
     .default_text = "the data directory's relay.key, as `buzz serve` uses", .help = "the relay's secret key, hex or nsec"},
    {.name = "json", .help = "machine-readable output"},
    options::section("Options of the commands above:"),
    {.name = "pubkey", .value = "HEX", .help = "the member's, banned or allowed pubkey, or the token's owner"},
    {.name = "role", .value = "ROLE", .default_text = "member", .help = "add-member: member, admin or owner"},
    {.name = "reason", .value = "TEXT", .help = "why a pubkey, event or address is refused"},
    {.name = "id", .value = "HEX", .help = "the event's id"},
    {.name = "ip", .value = "ADDRESS", .help = "the address to block or unblock"},
    {.name = "note", .value = "TEXT", .help = "allowlist-add: a note kept beside the pubkey"},
    {.name = "name", .value = "T", .help = "set-relay-info: the NIP-11 name; mint-token: the token's name"},
    {.name = "description", .value = "T", .help = "set-relay-info: the NIP-11 description"},
    {.name = "icon", .value = "URL", .help = "set-relay-info: the NIP-11 icon"},
    {.name = "scopes", .value = "S,S", .help = "mint-token: the token's scopes"},
    {.name = "channels", .value = "ID,ID", .help = "mint-token: the channels the token is limited to"},
    {.name = "expires-days", .value = "N", .help = "mint-token: days until the token expires (1-365)"},
};

std::string admin_usage() { return usage_text(kAdminHead, kAdminOptions); }

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= s.size();) {
    size_t end = std::min(s.find(',', start), s.size());
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// What a change to one subject (a key, an address, an event) reports: `done subject`,
// or {"done":"subject"} with --json.
int print_change(bool json, const std::string& done, const std::string& subject) {
  if (json) {
    std::printf("%s\n", json_object({{done, json_string(subject)}}).c_str());
  } else {
    std::printf("%s %s\n", done.c_str(), subject.c_str());
  }
  return kExitOk;
}

// The operator's mint (docs/reference/rest-api.md §1.2): unlike POST /api/tokens it may grant
// admin scopes and proxy:submit, but still only scopes the relay knows.
int mint_token(const ParsedArgs& args, const engine::Pubkey& owner, engine::RocksDatabase& db, bool json) {
  auto name = args.get("name");
  if (!name || name->empty() || name->size() > 100) return usage_error("admin", admin_usage(), "--name must be 1-100 characters");
  std::vector<std::string> scopes = split_list(args.get("scopes").value_or(""));
  if (scopes.empty()) return usage_error("admin", admin_usage(), "--scopes needs at least one scope, e.g. messages:read,messages:write");
  for (const std::string& s : scopes) {
    if (!parse_scope(s)) return usage_error("admin", admin_usage(), "unknown scope '" + s + "'");
  }
  engine::ApiToken t;
  if (auto channels = args.get("channels")) {
    t.channels = split_list(*channels);
    for (const std::string& c : *t.channels) {
      if (!engine::is_canonical_uuid(c)) return usage_error("admin", admin_usage(), "--channels must list lowercase channel UUIDs, got '" + c + "'");
    }
  }
  const uint64_t now = engine::unix_now();
  if (auto days = args.get("expires-days")) {
    int64_t n = std::atoll(days->c_str());
    if (n < 1 || n > 365) return usage_error("admin", admin_usage(), "--expires-days must be 1-365");
    t.expires_at = now + uint64_t(n) * 86400;
  }
  engine::RocksEventStore store(db);
  engine::ApiTokens tokens(store);
  if (auto s = tokens.check(); !s) return std::fprintf(stderr, "buzz admin: %s\n", s.error().c_str()), kExitFailure;
  auto [secret, hash] = engine::generate_token();
  t.id = engine::random_uuid();
  t.hash = hash;
  t.owner = owner;
  t.name = *name;
  t.scopes = scopes;
  t.created_at = now;
  auto inserted = tokens.insert(t, now);
  if (!inserted) return std::fprintf(stderr, "buzz admin: %s\n", inserted.error().c_str()), kExitFailure;
  if (!*inserted) {
    return std::fprintf(stderr, "buzz admin: %s already has %zu active tokens; revoke one first\n",
                        engine::to_hex(owner).c_str(), engine::kMaxActiveTokensPerOwner),
           kExitFailure;
  }
  if (json) {
    std::printf("%s\n", json_object({{"id", json_string(t.id)}, {"token", json_string(secret)},
                                      {"pubkey", json_string(engine::to_hex(owner))}, {"scopes", json_string_array(scopes)}})
                           .c_str());
  } else {
    std::printf("token: %s\nid:    %s\n(shown once; only its hash is stored)\n", secret.c_str(), t.id.c_str());
  }
  return kExitOk;
}

// allowlist-add / -remove / -list (docs/reference/protocol.md §6.2, the legacy gate).
int allowlist(const std::string& cmd, const ParsedArgs& args, const engine::Pubkey& pk, engine::RocksDatabase& db,
              bool json) {
  engine::PubkeyAllowlist list(db);
  auto failed = [](const std::string& why) { return std::fprintf(stderr, "buzz admin: %s\n", why.c_str()), kExitFailure; };
  if (cmd == "allowlist-list") {
    auto all = list.list();
    if (!all) return failed(all.error());
    std::vector<std::string> rows;
    for (const engine::AllowedPubkey& a : *all) {
      if (!json) {
        std::printf("%s  %s\n", engine::to_hex(a.pubkey).c_str(), a.note.c_str());
        continue;
      }
      rows.push_back(json_object({{"pubkey", json_string(engine::to_hex(a.pubkey))},
                                  {"added_at", std::to_string(a.added_at)},
                                  {"note", json_string(a.note)}}));
    }
    if (json) std::printf("%s\n", json_array(rows).c_str());
    return kExitOk;
  }
  if (cmd == "allowlist-remove") {
    auto removed = list.remove(pk);
    if (!removed) return failed(removed.error());
    if (!*removed) return failed(engine::to_hex(pk) + " is not on the allow-list");
    return print_change(json, "removed", engine::to_hex(pk));
  }
  if (auto s = list.put({pk, std::nullopt, engine::unix_now(), args.get("note").value_or("")}); !s) return failed(s.error());
  return print_change(json, "allowed", engine::to_hex(pk));
}

// Part C's reconcile-channels. The key defaults to the one `buzz serve` signs
// with, not the original's throwaway key: clients trust group state only from
// the relay's own pubkey (NIP-11 `self`).
int reconcile(const ParsedArgs& args, const std::string& data_dir, engine::RocksDatabase& db, bool json) {
  auto failed = [](const std::string& why) { return std::fprintf(stderr, "buzz admin: %s\n", why.c_str()), kExitFailure; };
  std::string given = args.get("relay-key").value_or("");
  engine::Result<engine::Keypair> key = engine::Error{""};
  if (given.empty()) {
    key = load_relay_key(data_dir, "");
  } else if (auto parsed = engine::parse_secret_key(given)) {
    key = *parsed;
  } else {
    return usage_error("admin", admin_usage(), "--relay-key must be a 64-hex or nsec secret key");
  }
  if (!key) return failed(key.error());
  engine::RocksEventStore store(db);
  engine::TeamState team;
  if (auto s = team.load(store); !s) return failed(s.error());
  auto report = reconcile_channels(store, team, *key, engine::unix_now());
  if (!report) return failed(report.error());
  if (json) {
    const std::string line = JsonFields()
                                 .number("reconciled", report->reconciled)
                                 .number("already", report->already)
                                 .number("total", report->total())
                                 .str();
    std::printf("%s\n", line.c_str());
  } else if (report->total() == 0) {
    std::printf("No channels in database.\n");
  } else {
    std::printf("Reconciled %zu channels (%zu already had events, %zu total).\n", report->reconciled, report->already,
                report->total());
  }
  return kExitOk;
}

}  // namespace

namespace {

int failed(const std::string& why) { return std::fprintf(stderr, "buzz admin: %s\n", why.c_str()), kExitFailure; }

// The relay a command reaches over NIP-86: --relay, or the one serving the
// data directory. The key: --key, BUZZ_PRIVATE_KEY, or the owner key the relay made.
engine::Result<std::unique_ptr<AdminTarget>> online_admin(const ParsedArgs& args, const std::string& data_dir,
                                                          const std::optional<ServingRelay>& serving) {
  std::string endpoint, signed_url;
  if (auto relay = args.get("relay")) {
    signed_url = nip98_base_url(*relay) + "/";
    endpoint = signed_url;
  } else {
    signed_url = nip98_base_url(serving->relay_url) + "/";
    std::string listen = serving->listen;
    if (listen.starts_with("0.0.0.0:")) listen = "127.0.0.1" + listen.substr(7);
    endpoint = "http://" + listen + "/";
  }
  std::string given = args.get("key").value_or("");
  engine::Result<engine::Keypair> key = engine::Error{""};
  if (!given.empty()) {
    auto parsed = engine::parse_secret_key(given);
    if (!parsed) return engine::Error{"--key must be a 64-hex or nsec secret key"};
    key = *parsed;
  } else if (std::filesystem::exists(data_dir + "/owner.key")) {
    bool created = false;
    key = load_or_create_key_file(data_dir + "/owner.key", &created);
  } else {
    return engine::Error{"a running relay needs the owner's or an admin's key: --key or BUZZ_PRIVATE_KEY"};
  }
  if (!key) return engine::Error{key.error()};
  return remote_admin(endpoint, signed_url, *key);
}

int list_members(AdminTarget& target, bool json) {
  auto all = target.members();
  if (!all) return failed(all.error());
  if (json) {
    std::printf("[");
  } else if (all->empty()) {
    std::printf("No relay members found.\n");
  } else {
    std::printf("%-66s  %-10s\n%s\n", "Pubkey", "Role", std::string(78, '-').c_str());
  }
  for (size_t i = 0; i < all->size(); ++i) {
    const auto& m = (*all)[i];
    std::string hex = engine::to_hex(m.pubkey);
    std::string role_name(relay_role_name(m.role));
    if (json) {
      const std::string row =
          JsonFields().string("pubkey", hex).string("role", role_name).number("created_at", m.created_at).str();
      std::printf("%s%s", i ? "," : "", row.c_str());
    } else {
      std::printf("%-66s  %-10s\n", hex.c_str(), role_name.c_str());
    }
  }
  if (json) std::printf("]\n");
  return kExitOk;
}

std::optional<engine::RelayMember> find_member(const std::vector<engine::RelayMember>& all, const engine::Pubkey& pk) {
  for (const auto& m : all) {
    if (m.pubkey == pk) return m;
  }
  return std::nullopt;
}

int change_member(AdminTarget& target, const std::string& cmd, const engine::Pubkey& pk, engine::RelayRole role,
                  bool json) {
  auto all = target.members();
  if (!all) return failed(all.error());
  const std::optional<engine::RelayMember> existing = find_member(*all, pk);
  const std::string hex = engine::to_hex(pk);
  if (cmd == "remove-member") {
    if (!existing) return failed(hex + " is not a relay member");
    if (auto s = target.remove_member(pk); !s) return failed(s.error());
    return print_change(json, "removed", hex);
  }
  const bool unchanged = existing && existing->role == role;
  // Nothing to write when unchanged; said plainly, where the original printed "Added" again.
  if (!unchanged) {
    if (auto s = target.put_member(pk, role, existing); !s) return failed(s.error());
  }
  const std::string role_name(relay_role_name(role));
  if (json) {
    const std::string line =
        JsonFields().string("pubkey", hex).string("role", role_name).boolean("already_member", unchanged).str();
    std::printf("%s\n", line.c_str());
  } else if (unchanged) {
    std::printf("%s is already a relay member as %s.\n", hex.c_str(), role_name.c_str());
  } else if (existing) {
    std::printf("Changed %s from %s to %s in relay membership list.\n", hex.c_str(),
                std::string(relay_role_name(existing->role)).c_str(), role_name.c_str());
  } else {
    std::printf("Added %s as %s to relay membership list.\n", hex.c_str(), role_name.c_str());
  }
  return kExitOk;
}

// The ban, block and NIP-11 commands: each one NIP-86 method.
struct PolicyCommand {
  const char* name;
  RelayPolicy::Op op;
  const char* arg;   // the option naming the subject
  const char* done;  // the past tense printed, and the JSON key
};
constexpr PolicyCommand kPolicyCommands[] = {
    {"ban-pubkey", RelayPolicy::Op::kBanPubkey, "pubkey", "banned"},
    {"unban-pubkey", RelayPolicy::Op::kUnbanPubkey, "pubkey", "unbanned"},
    {"ban-event", RelayPolicy::Op::kBanEvent, "id", "banned"},
    {"allow-event", RelayPolicy::Op::kAllowEvent, "id", "allowed"},
    {"block-ip", RelayPolicy::Op::kBlockIp, "ip", "blocked"},
    {"unblock-ip", RelayPolicy::Op::kUnblockIp, "ip", "unblocked"},
};
const PolicyCommand* policy_command(const std::string& cmd) {
  for (const PolicyCommand& c : kPolicyCommands) {
    if (cmd == c.name) return &c;
  }
  return nullptr;
}

std::optional<RelayPolicy::List> list_command(const std::string& cmd) {
  if (cmd == "list-banned-pubkeys") return RelayPolicy::List::kPubkeys;
  if (cmd == "list-banned-events") return RelayPolicy::List::kEvents;
  if (cmd == "list-blocked-ips") return RelayPolicy::List::kAddresses;
  return std::nullopt;
}

int policy_list(AdminTarget& target, RelayPolicy::List which, bool json) {
  auto rows = target.list(which);
  if (!rows) return failed(rows.error());
  const char* field = which == RelayPolicy::List::kPubkeys ? "pubkey" : which == RelayPolicy::List::kEvents ? "id" : "ip";
  std::vector<std::string> out;
  for (const RelayPolicy::Entry& e : *rows) {
    if (json) {
      out.push_back(json_object({{field, json_string(e.subject)}, {"reason", json_string(e.reason)}}));
    } else {
      std::printf("%s  %s\n", e.subject.c_str(), e.reason.c_str());
    }
  }
  if (json) std::printf("%s\n", json_array(out).c_str());
  return kExitOk;
}

int policy_change(AdminTarget& target, const PolicyCommand& cmd, const ParsedArgs& args, bool json) {
  auto subject = args.get(cmd.arg);
  if (!subject) return usage_error("admin", admin_usage(), std::string(cmd.name) + " needs --" + cmd.arg);
  auto change = RelayPolicy::make(cmd.op, *subject, args.get("reason").value_or(""));
  if (!change) return usage_error("admin", admin_usage(), change.error());
  if (auto s = target.change(*change); !s) return failed(s.error());
  return print_change(json, cmd.done, change->subject);
}

int set_relay_info(AdminTarget& target, const ParsedArgs& args, bool json) {
  using Op = RelayPolicy::Op;
  const std::pair<const char*, Op> fields[] = {
      {"name", Op::kChangeName}, {"description", Op::kChangeDescription}, {"icon", Op::kChangeIcon}};
  std::vector<std::pair<std::string, std::string>> set;
  for (const auto& [field, op] : fields) {
    auto value = args.get(field);
    if (!value) continue;
    auto change = RelayPolicy::make(op, *value, "");
    if (!change) return usage_error("admin", admin_usage(), change.error());
    if (auto s = target.change(*change); !s) return failed(s.error());
    set.emplace_back(field, json_string(*value));
    if (!json) std::printf("%s set to \"%s\"\n", field, value->c_str());
  }
  if (set.empty()) return usage_error("admin", admin_usage(), "set-relay-info needs --name, --description or --icon");
  if (json) std::printf("%s\n", json_object(set).c_str());
  return kExitOk;
}

}  // namespace

int run_admin(int argc, char** argv) {
  ParsedArgs args = parse_args(argc, argv, 2, kAdminOptions);
  if (auto done = without_subcommand("admin", admin_usage(), args)) return *done;
  const std::string cmd = args.positional[0];
  const bool json = args.has("json");

  if (cmd == "generate-key") {
    engine::Keypair kp = engine::generate_keypair();
    if (json) {
      const std::string line = JsonFields()
                                   .string("secret_key", engine::to_hex(kp.secret))
                                   .string("pubkey", engine::to_hex(kp.pubkey))
                                   .str();
      std::printf("%s\n", line.c_str());
    } else {
      // The original's words (docs/reference/agents-and-cli.md Part C), so its operators' scripts still read it.
      std::printf("Public key:  %s\nSecret key:  %s\n\nSet BUZZ_PRIVATE_KEY to the secret key to use this identity.\n",
                  engine::to_hex(kp.pubkey).c_str(), engine::to_hex(kp.secret).c_str());
    }
    return kExitOk;
  }
  const bool allowlist_cmd = cmd == "allowlist-add" || cmd == "allowlist-remove" || cmd == "allowlist-list";
  const bool member_cmd = cmd == "add-member" || cmd == "remove-member" || cmd == "list-members";
  const PolicyCommand* policy_cmd = policy_command(cmd);
  const std::optional<RelayPolicy::List> list_cmd = list_command(cmd);
  const bool online_capable = member_cmd || policy_cmd || list_cmd || cmd == "set-relay-info";
  if (!online_capable && cmd != "mint-token" && cmd != "reconcile-channels" && !allowlist_cmd) {
    return usage_error("admin", admin_usage(), "unknown command '" + cmd + "'");
  }

  std::string data_dir = args.get("data-dir").value_or("./data");
  engine::Pubkey pk{};
  if (cmd == "add-member" || cmd == "remove-member" || cmd == "mint-token" || cmd == "allowlist-add" ||
      cmd == "allowlist-remove") {
    auto hex = args.get("pubkey");
    if (!hex || !engine::from_hex_any_case(*hex, pk.data(), pk.size())) {
      return usage_error("admin", admin_usage(), "pubkey must be 32 bytes (64 hex chars)");
    }
  }
  engine::RelayRole role = engine::RelayRole::kMember;
  if (auto r = args.get("role")) {
    auto parsed = engine::parse_relay_role(*r);
    if (!parsed) return usage_error("admin", admin_usage(), "--role must be member, admin or owner");
    role = *parsed;
  }
  // The same commands run on whichever target answers: a running relay, or the tables.
  auto run = [&](AdminTarget& target) {
    if (cmd == "list-members") return list_members(target, json);
    if (member_cmd) return change_member(target, cmd, pk, role, json);
    if (list_cmd) return policy_list(target, *list_cmd, json);
    if (policy_cmd) return policy_change(target, *policy_cmd, args, json);
    return set_relay_info(target, args, json);
  };
  if (args.has("relay")) {
    if (!online_capable) return usage_error("admin", admin_usage(), cmd + " works on a stopped data directory only, not with --relay");
    auto target = online_admin(args, data_dir, std::nullopt);
    if (!target) return failed(target.error());
    return run(**target);
  }

  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  auto db = engine::RocksDatabase::open(data_dir + "/db", engine::DatabaseOptions{});
  if (!db) {
    // A relay serving the directory holds its lock: reach it instead, where it said it listens.
    std::optional<ServingRelay> serving = read_serving_file(data_dir);
    if (!serving) return failed(db.error());
    if (!online_capable) {
      return failed(cmd + " needs a stopped relay: the data directory is in use by the relay at " + serving->relay_url);
    }
    auto target = online_admin(args, data_dir, serving);
    if (!target) return failed(target.error());
    return run(**target);
  }
  if (cmd == "mint-token") return mint_token(args, pk, **db, json);
  if (cmd == "reconcile-channels") return reconcile(args, data_dir, **db, json);
  if (allowlist_cmd) return allowlist(cmd, args, pk, **db, json);
  auto target = local_admin(**db);
  if (!target) return failed(target.error());
  return run(**target);
}

}  // namespace buzz::server
