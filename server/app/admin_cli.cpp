// `buzz admin …`: relay membership and keys, offline on the data directory
// (the server must not be running: RocksDB's lock makes that an error, not a race).
// Writes the table directly and emits no NIP-43 events (docs/reference/protocol.md §7.1).
#include <cstdio>
#include <filesystem>

#include "engine/api_tokens.h"
#include "engine/channel.h"
#include "engine/clock.h"
#include "engine/pubkey_allowlist.h"
#include "engine/nip19.h"
#include "engine/relay_members.h"
#include "engine/rocks_database.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "engine/team_state.h"
#include "server/access/grant.h"
#include "server/access/relay_key.h"
#include "server/app/cli.h"
#include "server/common/json_text.h"
#include "server/team/group_state.h"

namespace buzz::server {
namespace {

constexpr const char* kAdminUsage = R"(Usage: buzz admin <command> [options]

Commands:
  add-member --pubkey HEX [--role member|admin|owner]   add (or change) a relay member
  remove-member --pubkey HEX                           remove a relay member
  list-members [--json]                                list relay members, oldest first
  allowlist-add --pubkey HEX [--note TEXT]             add a pubkey to the legacy allow-list
  allowlist-remove --pubkey HEX                        remove a pubkey from the allow-list
  allowlist-list [--json]                              list the allow-list, oldest first
                                                       (enforced with BUZZ_PUBKEY_ALLOWLIST=true)
  generate-key [--json]                                print a new keypair (secret + pubkey)
  mint-token --pubkey HEX --name NAME --scopes S,S [--channels ID,ID] [--expires-days N] [--json]
                                                       mint an API token for HEX (any scope, admin and
                                                       proxy:submit included); it is shown once
  reconcile-channels [--relay-key HEX|nsec] [--json]   give each channel without group state its 39000,
                                                       39001 and 39002 (after importing a database),
                                                       signed with the relay's key

Options:
  --data-dir DIR   data directory (env BUZZ_DATA_DIR, default ./data)
  --relay-key K    the relay's secret key, hex or nsec (env BUZZ_RELAY_PRIVATE_KEY,
                   default the data directory's relay.key, as `buzz serve` uses)
  --json           machine-readable output
)";

int usage_error(const std::string& why) {
  std::fprintf(stderr, "buzz admin: %s\n\n%s", why.c_str(), kAdminUsage);
  return kExitUsage;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= s.size();) {
    size_t end = std::min(s.find(',', start), s.size());
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The operator's mint (docs/reference/rest-api.md §1.2): unlike POST /api/tokens it may grant
// admin scopes and proxy:submit, but still only scopes the relay knows.
int mint_token(const ParsedArgs& args, const engine::Pubkey& owner, engine::RocksDatabase& db, bool json) {
  auto name = args.get("name");
  if (!name || name->empty() || name->size() > 100) return usage_error("--name must be 1-100 characters");
  std::vector<std::string> scopes = split_list(args.get("scopes").value_or(""));
  if (scopes.empty()) return usage_error("--scopes needs at least one scope, e.g. messages:read,messages:write");
  for (const std::string& s : scopes) {
    if (!parse_scope(s)) return usage_error("unknown scope '" + s + "'");
  }
  engine::ApiToken t;
  if (auto channels = args.get("channels")) {
    t.channels = split_list(*channels);
    for (const std::string& c : *t.channels) {
      if (!engine::is_canonical_uuid(c)) return usage_error("--channels must list lowercase channel UUIDs, got '" + c + "'");
    }
  }
  const uint64_t now = engine::unix_now();
  if (auto days = args.get("expires-days")) {
    int64_t n = std::atoll(days->c_str());
    if (n < 1 || n > 365) return usage_error("--expires-days must be 1-365");
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
    std::printf(json ? "{\"removed\":\"%s\"}\n" : "removed %s\n", engine::to_hex(pk).c_str());
    return kExitOk;
  }
  if (auto s = list.put({pk, std::nullopt, engine::unix_now(), args.get("note").value_or("")}); !s) return failed(s.error());
  std::printf(json ? "{\"allowed\":\"%s\"}\n" : "allowed %s\n", engine::to_hex(pk).c_str());
  return kExitOk;
}

// Part C's reconcile-channels. The key defaults to the one `buzz serve` signs
// with, not the original's throwaway key: clients trust group state only from
// the relay's own pubkey (NIP-11 `self`).
int reconcile(const ParsedArgs& args, const std::string& data_dir, engine::RocksDatabase& db, bool json) {
  auto failed = [](const std::string& why) { return std::fprintf(stderr, "buzz admin: %s\n", why.c_str()), kExitFailure; };
  const char* env_key = std::getenv("BUZZ_RELAY_PRIVATE_KEY");
  std::string given = args.get("relay-key").value_or(env_key ? env_key : "");
  engine::Result<engine::Keypair> key = engine::Error{""};
  if (given.empty()) {
    key = load_relay_key(data_dir, "");
  } else if (auto parsed = engine::parse_secret_key(given)) {
    key = *parsed;
  } else {
    return usage_error("--relay-key must be a 64-hex or nsec secret key");
  }
  if (!key) return failed(key.error());
  engine::RocksEventStore store(db);
  engine::TeamState team;
  if (auto s = team.load(store); !s) return failed(s.error());
  auto report = reconcile_channels(store, team, *key, engine::unix_now());
  if (!report) return failed(report.error());
  if (json) {
    std::printf("{\"reconciled\":%zu,\"already\":%zu,\"total\":%zu}\n", report->reconciled, report->already,
                report->total());
  } else if (report->total() == 0) {
    std::printf("No channels in database.\n");
  } else {
    std::printf("Reconciled %zu channels (%zu already had events, %zu total).\n", report->reconciled, report->already,
                report->total());
  }
  return kExitOk;
}

}  // namespace

int run_admin(int argc, char** argv) {
  ParsedArgs args = parse_args(argc, argv, 2, {"help", "json"});
  if (args.has("help") || args.positional.empty()) {
    std::fputs(kAdminUsage, args.has("help") ? stdout : stderr);
    return args.has("help") ? kExitOk : kExitUsage;
  }
  if (!args.error.empty()) return usage_error(args.error);
  const std::string cmd = args.positional[0];
  const bool json = args.has("json");

  if (cmd == "generate-key") {
    engine::Keypair kp = engine::generate_keypair();
    if (json) {
      std::printf("{\"secret_key\":\"%s\",\"pubkey\":\"%s\"}\n", engine::to_hex(kp.secret).c_str(),
                  engine::to_hex(kp.pubkey).c_str());
    } else {
      // The original's words (docs/reference/agents-and-cli.md Part C), so its operators' scripts still read it.
      std::printf("Public key:  %s\nSecret key:  %s\n\nSet BUZZ_PRIVATE_KEY to the secret key to use this identity.\n",
                  engine::to_hex(kp.pubkey).c_str(), engine::to_hex(kp.secret).c_str());
    }
    return kExitOk;
  }
  const bool allowlist_cmd = cmd == "allowlist-add" || cmd == "allowlist-remove" || cmd == "allowlist-list";
  if (cmd != "add-member" && cmd != "remove-member" && cmd != "list-members" && cmd != "mint-token" &&
      cmd != "reconcile-channels" && !allowlist_cmd) {
    return usage_error("unknown command '" + cmd + "'");
  }

  const char* env_dir = std::getenv("BUZZ_DATA_DIR");
  std::string data_dir = args.get("data-dir").value_or(env_dir ? env_dir : "./data");
  engine::Pubkey pk{};
  if (cmd != "list-members" && cmd != "allowlist-list" && cmd != "reconcile-channels") {
    auto hex = args.get("pubkey");
    if (!hex || !engine::from_hex_any_case(*hex, pk.data(), pk.size())) {
      return usage_error("pubkey must be 32 bytes (64 hex chars)");
    }
  }
  engine::RelayRole role = engine::RelayRole::kMember;
  if (auto r = args.get("role")) {
    auto parsed = engine::parse_relay_role(*r);
    if (!parsed) return usage_error("--role must be member, admin or owner");
    role = *parsed;
  }

  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  auto db = engine::RocksDatabase::open(data_dir + "/db", engine::DatabaseOptions{});
  if (!db) {
    std::fprintf(stderr, "buzz admin: %s\n", db.error().c_str());
    return kExitFailure;
  }
  if (cmd == "mint-token") return mint_token(args, pk, **db, json);
  if (cmd == "reconcile-channels") return reconcile(args, data_dir, **db, json);
  if (allowlist_cmd) return allowlist(cmd, args, pk, **db, json);
  engine::RelayMembers members(**db);

  if (cmd == "list-members") {
    auto all = members.list();
    if (!all) return std::fprintf(stderr, "buzz admin: %s\n", all.error().c_str()), kExitFailure;
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
        std::printf("%s{\"pubkey\":\"%s\",\"role\":\"%s\",\"created_at\":%llu}", i ? "," : "", hex.c_str(),
                    role_name.c_str(), static_cast<unsigned long long>(m.created_at));
      } else {
        std::printf("%-66s  %-10s\n", hex.c_str(), role_name.c_str());
      }
    }
    if (json) std::printf("]\n");
    return kExitOk;
  }
  if (cmd == "remove-member") {
    auto removed = members.remove(pk);
    if (!removed) return std::fprintf(stderr, "buzz admin: %s\n", removed.error().c_str()), kExitFailure;
    if (!*removed) return std::fprintf(stderr, "buzz admin: %s is not a relay member\n", engine::to_hex(pk).c_str()), kExitFailure;
    std::printf(json ? "{\"removed\":\"%s\"}\n" : "removed %s\n", engine::to_hex(pk).c_str());
    return kExitOk;
  }
  uint64_t now = engine::unix_now();
  engine::Status s;
  auto existing = members.get(pk);
  const bool unchanged = existing && existing->role == role;
  if (unchanged) {
    // Nothing to write; said plainly, where the original printed "Added" again.
  } else if (role == engine::RelayRole::kOwner) {
    s = members.set_owner(pk, now);
  } else {
    engine::RelayMember m{pk, role, std::nullopt, existing ? existing->created_at : now, now};
    s = members.put(m);
  }
  if (!s) return std::fprintf(stderr, "buzz admin: %s\n", s.error().c_str()), kExitFailure;
  const std::string hex = engine::to_hex(pk), role_name(relay_role_name(role));
  if (json) {
    std::printf("{\"pubkey\":\"%s\",\"role\":\"%s\",\"already_member\":%s}\n", hex.c_str(), role_name.c_str(),
                unchanged ? "true" : "false");
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

}  // namespace buzz::server
