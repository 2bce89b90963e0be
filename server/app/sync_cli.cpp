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

constexpr const char* kSyncHead = R"(Usage: buzz sync --from ws://HOST:PORT (--to ws://HOST:PORT | --data-dir DIR) [options]

Brings the destination up to date with the source, moving only what is
missing: NIP-77 (negentropy) finds the difference, the missing events are
fetched in batches and published to the other relay, whose ingest checks
signatures and team rules as for any client. Each run starts by reconciling,
so a run cut short is finished by the next.
)";

const options::Option kSyncOptions[] = {
    {.name = "from", .value = "URL", .help = "the source relay (ws://; the central one)"},
    {.name = "to", .value = "URL", .help = "the destination relay (ws://), already running"},
    {.name = "data-dir", .value = "DIR",
     .help = "instead of --to: run `buzz serve` on DIR on loopback while syncing (the appliance's relay must be stopped)"},
    {.name = "filter", .value = "JSON", .default_text = "{}", .help = "NIP-01 filter of what to sync (no limit/until)"},
    {.name = "direction", .value = "D", .default_text = "down",
     .help = "down (from → to), up (to → from) or both"},
    {.name = "key", .env = "BUZZ_SYNC_KEY", .value = "HEX", .help = "secret key for NIP-42 AUTH on both relays"},
    {.name = "key-file", .value = "PATH", .help = "the secret key in a file instead"},
    {.name = "from-token", .env = "BUZZ_SYNC_FROM_TOKEN", .value = "T", .help = "API token for the source"},
    {.name = "to-token", .env = "BUZZ_SYNC_TO_TOKEN", .value = "T",
     .help = "API token for the destination; publishing events others signed needs the proxy:submit scope"},
    {.name = "watch", .help = "after catching up, keep copying new events (down only)"},
    {.name = "json", .help = "the report as JSON on stdout"},
};

constexpr const char* kSyncTail = "\nExit codes: 0 done, 1 a relay failed or refused, 2 bad usage.\n";

int usage(const std::string& why) { return usage_error("sync", usage_text(kSyncHead, kSyncOptions, kSyncTail), why); }

}  // namespace

int run_sync(int argc, char** argv) {
  ParsedArgs args = parse_args(argc, argv, 2, kSyncOptions);
  if (args.has("help")) return std::fputs(usage_text(kSyncHead, kSyncOptions, kSyncTail).c_str(), stdout), kExitOk;
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

  std::string key_hex = args.get("key").value_or("");
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
  o.from_identity = {*key, args.get("from-token").value_or("")};
  o.to_identity = {*key, args.get("to-token").value_or("")};
  o.watch = args.has("watch");
  if (o.watch && o.direction != sync::Direction::kDown) return usage("--watch copies down only");
  o.json = args.has("json");
  o.progress = !o.json && isatty(STDERR_FILENO);
  return sync::run_sync(o);
}

}  // namespace buzz::server
