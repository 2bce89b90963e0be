// `buzz sync`: the command line of tools/sync/ (a client of two relays).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "engine/filter.h"
#include "server/app/cli.h"
#include "tools/sync/sync.h"

namespace buzz::server {
namespace {

constexpr const char* kSyncUsage = R"(Usage: buzz sync --from ws://HOST:PORT (--to ws://HOST:PORT | --data-dir DIR) [options]

Brings the destination up to date with the source, moving only what is
missing: NIP-77 (negentropy) finds the difference, the missing events are
fetched in batches and published to the other relay, whose ingest checks
signatures and team rules as for any client. Each run starts by reconciling,
so a run cut short is finished by the next.

Options:
  --from URL         the source relay (ws://; the central one)
  --to URL           the destination relay (ws://), already running
  --data-dir DIR     instead of --to: run `buzz serve` on DIR on loopback while
                     syncing (the appliance's relay must be stopped)
  --filter JSON      NIP-01 filter of what to sync (default {}; no limit/until)
  --direction D      down (from → to, default), up (to → from) or both
  --key HEX          secret key for NIP-42 AUTH on both relays (env BUZZ_SYNC_KEY)
  --key-file PATH    the secret key in a file instead
  --from-token T     API token for the source (env BUZZ_SYNC_FROM_TOKEN)
  --to-token T       API token for the destination (env BUZZ_SYNC_TO_TOKEN);
                     publishing events others signed needs the proxy:submit scope
  --watch            after catching up, keep copying new events (down only)
  --json             the report as JSON on stdout
  --help             this help

Exit codes: 0 done, 1 a relay failed or refused, 2 bad usage.
)";

int usage(const std::string& why) { return usage_error("sync", kSyncUsage, why); }

std::string env_or(const char* name, const std::optional<std::string>& given) {
  if (given) return *given;
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

int run_sync(int argc, char** argv) {
  ParsedArgs args = parse_args(argc, argv, 2, {"json", "watch"},
                               {"from", "to", "data-dir", "filter", "direction", "key", "key-file", "from-token", "to-token"});
  if (args.has("help")) return std::fputs(kSyncUsage, stdout), kExitOk;
  if (!args.error.empty()) return usage(args.error);
  if (!args.positional.empty()) return usage("unexpected argument '" + args.positional[0] + "'");

  sync::SyncOptions o;
  o.from = args.get("from").value_or("");
  o.to = args.get("to").value_or("");
  o.data_dir = args.get("data-dir").value_or("");
  if (o.from.empty()) return usage("--from is required");
  if (o.to.empty() == o.data_dir.empty()) return usage("give one of --to and --data-dir");
  o.filter = args.get("filter").value_or("{}");
  auto filter = engine::parse_filter_json(o.filter);
  if (!filter) return usage("--filter: " + filter.error());
  if (filter->limit || filter->until) return usage("--filter: limit and until are set by buzz sync itself");
  if (filter->search) return usage("--filter: a search filter cannot be synced");
  const std::string direction = args.get("direction").value_or("down");
  if (direction == "down") o.direction = sync::Direction::kDown;
  else if (direction == "up") o.direction = sync::Direction::kUp;
  else if (direction == "both") o.direction = sync::Direction::kBoth;
  else return usage("--direction must be down, up or both");

  std::string key_hex = env_or("BUZZ_SYNC_KEY", args.get("key"));
  if (auto path = args.get("key-file")) {
    std::ifstream in(*path);
    if (!(in >> key_hex)) return usage("--key-file: cannot read " + *path);
  }
  engine::SecretKey secret{};
  if (!engine::from_hex_any_case(key_hex, secret.data(), secret.size())) {
    return usage("a secret key is required: --key HEX, --key-file PATH or BUZZ_SYNC_KEY (64 hex characters)");
  }
  auto key = engine::keypair_from_secret(secret);
  if (!key) return usage("the secret key is not a valid key");
  o.from_identity = {*key, env_or("BUZZ_SYNC_FROM_TOKEN", args.get("from-token"))};
  o.to_identity = {*key, env_or("BUZZ_SYNC_TO_TOKEN", args.get("to-token"))};
  o.watch = args.has("watch");
  if (o.watch && o.direction != sync::Direction::kDown) return usage("--watch copies down only");
  o.json = args.has("json");
  o.progress = !o.json && isatty(STDERR_FILENO);
  return sync::run_sync(o);
}

}  // namespace buzz::server
