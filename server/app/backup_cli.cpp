// `buzz backup`, `buzz backup verify` and `buzz restore` (docs/storage.md,
// "Backup"). A serving relay holds the data directory's lock, so it takes the
// backup's point itself when asked on its control socket (server/ops/
// control_socket.h); this process then copies from the point's staging
// directory and the data directory, and the relay drops the staging files
// when the connection closes. On a stopped data directory this process opens
// the store and takes the point itself. Either way the copying, the digests
// and the progress are here, off the relay's threads.
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "engine/audit_verify.h"
#include "engine/data_format.h"
#include "engine/file_digest.h"
#include "engine/hex.h"
#include "engine/json_text.h"
#include "engine/thread_role.h"
#include "migrate/progress.h"
#include "server/app/backup_manifest.h"
#include "server/app/backup_point.h"
#include "server/app/cli.h"
#include "server/app/reindex.h"
#include "server/ops/control_socket.h"

namespace buzz::server {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBackupHead = R"(Usage: buzz backup --to DIR [options]
       buzz backup verify DIR [--json]

Copies the data directory at one point in time into DIR (new or empty): the
event store (a RocksDB checkpoint), the audit chain up to its head at that
point, the media blobs, the relay's keys, and manifest.json with every file's
size and SHA-256 and the audit head. The search index is not copied; restore
rebuilds it. While the relay serves, it takes the point itself when asked on
its control socket (<data-dir>/control.sock, owner-only); on a stopped data
directory this command does it. A relay on PostgreSQL (--store) is backed up
with pg_dump instead (README, "Back up and restore").

`backup verify DIR` checks every file against the manifest and the audit chain
against its head; exit 1 if anything differs.
)";

const options::Option kBackupOptions[] = {
    {.name = "to", .value = "DIR", .help = "where the backup goes (must not exist, or be empty)"},
    {.name = "data-dir", .env = "BUZZ_DATA_DIR", .value = "DIR", .default_text = "./data", .help = "data directory"},
    {.name = "json", .help = "JSON lines (progress, then the result) instead of a progress bar"},
};

constexpr const char* kRestoreHead = R"(Usage: buzz restore BACKUP --data-dir NEW [--json]

Makes NEW (which must not exist, or be empty) a data directory from a backup
made by `buzz backup`: verifies the backup first (as `buzz backup verify`),
copies it, checking every digest again, and rebuilds the search index. Then
`buzz serve --data-dir NEW` serves it; `buzz audit head --data-dir NEW` shows
the audit head the manifest recorded.
)";

const options::Option kRestoreOptions[] = {
    {.name = "data-dir", .value = "NEW", .help = "the new data directory (required)"},
    {.name = "json", .help = "JSON lines instead of a progress bar"},
};

int fail(const char* cmd, const std::string& why, int code = kExitFailure) {
  std::fprintf(stderr, "buzz %s: %s\n", cmd, why.c_str());
  return code;
}

std::string data_dir_of(const ParsedArgs& args) { return args.get("data-dir").value_or("./data"); }

// A directory to fill: made (owner-only) if missing, refused if it holds anything.
engine::Status empty_target(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) return engine::Error{dir + " exists and is not a directory"};
    if (!fs::is_empty(dir, ec)) return engine::Error{dir + " is not empty: refusing to write into it"};
  }
  fs::create_directories(dir, ec);
  if (ec) return engine::Error{"cannot create " + dir + ": " + ec.message()};
  fs::permissions(dir, fs::perms::owner_all, ec);
  return {};
}

// One file to copy: from where, to which path of the backup, and how much of it.
struct CopyItem {
  std::string from;
  std::string path;
  uint64_t limit = UINT64_MAX;
  uint64_t bytes = 0;  // expected, for the progress total
};

void add_tree(const std::string& root, const std::string& prefix, std::vector<CopyItem>* items) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const std::string rel = fs::relative(it->path(), root).string();
    items->push_back({it->path().string(), prefix + rel, UINT64_MAX, it->file_size(ec)});
  }
}

// What a backup copies, given its point.
std::vector<CopyItem> backup_items(const std::string& data_dir, const BackupPoint& point) {
  std::vector<CopyItem> items;
  add_tree(point.staging + "/db", "db/", &items);
  for (const BackupSegment& s : point.segments) items.push_back({data_dir + "/audit/" + s.name, "audit/" + s.name, s.bytes, s.bytes});
  // Content-addressed and never rewritten; tmp/ holds uploads in progress.
  add_tree(data_dir + "/media/blobs", "media/blobs/", &items);
  add_tree(data_dir + "/media/meta", "media/meta/", &items);
  for (const char* key : {"relay.key", "owner.key"}) {
    std::error_code ec;
    const std::string path = data_dir + "/" + key;
    if (fs::is_regular_file(path, ec)) items.push_back({path, key, UINT64_MAX, fs::file_size(path, ec)});
  }
  return items;
}

// Copies each item into `to`, recording it in `files`. With `expect`, each
// digest must equal the manifest's (restore's second check).
engine::Status copy_items(const char* step, const std::vector<CopyItem>& items, const std::string& to,
                          migrate::Progress& progress, std::vector<ManifestFile>* files,
                          const std::vector<ManifestFile>* expect = nullptr) {
  uint64_t total = 0;
  for (const CopyItem& i : items) total += std::min(i.limit, i.bytes);
  progress.begin(step, total);
  for (size_t n = 0; n < items.size(); ++n) {
    const CopyItem& item = items[n];
    const fs::path target = fs::path(to) / item.path;
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    uint8_t digest[32];
    auto copied = engine::copy_file_sha256(item.from, target.string(), item.limit, digest,
                                           [&](uint64_t b) { progress.advance(b); });
    if (!copied) return engine::Error{copied.error()};
    ManifestFile f{item.path, *copied, engine::to_hex(digest, 32)};
    if (expect && ((*expect)[n].sha256 != f.sha256 || (*expect)[n].bytes != f.bytes)) {
      return engine::Error{item.path + " changed while it was restored"};
    }
    if (files) files->push_back(std::move(f));
  }
  progress.end();
  return {};
}

// The copy is a background job: it yields the cores and the disk to the relay
// (nice +10, the lowest best-effort I/O priority), as a relay's own
// compactions do (docs/threads.md).
void yield_to_the_relay() {
  engine::set_thread_role("buzz-backup", engine::ThreadRole::kBackground);
  constexpr int kIoprioWhoProcess = 1, kIoprioClassBestEffort = 2, kIoprioClassShift = 13, kLowest = 7;
  (void)::syscall(SYS_ioprio_set, kIoprioWhoProcess, 0, (kIoprioClassBestEffort << kIoprioClassShift) | kLowest);
}

// The point, from the serving relay (`*connection` then stays open until the
// copy is done) or from the stopped data directory (`*db` then holds it).
engine::Result<BackupPoint> ask_for_point(const std::string& data_dir, int* connection,
                                          std::unique_ptr<engine::RocksDatabase>* db) {
  const std::string socket = data_dir + "/control.sock";
  *connection = connect_control_socket(socket);
  if (*connection >= 0) {
    std::string reply;
    if (!write_line(*connection, "backup") || !read_line(*connection, &reply)) {
      return engine::Error{"the relay closed its control socket " + socket + " without an answer"};
    }
    return parse_backup_point(reply);
  }
  if (errno != ENOENT && errno != ECONNREFUSED) {
    return engine::Error{"cannot reach the relay's control socket " + socket + ": " + std::strerror(errno)};
  }
  auto opened = engine::RocksDatabase::open(data_dir + "/db", engine::DatabaseOptions{});
  if (!opened) {
    return engine::Error{opened.error() + (opened.error().find("in use") != std::string::npos
                                               ? "; its relay does not answer on " + socket + " (a buzz older than the control socket?)"
                                               : "")};
  }
  *db = std::move(*opened);
  return take_backup_point(data_dir, PointSources{**db});
}

int backup(const ParsedArgs& args) {
  const bool json = args.has("json");
  const std::string to = *args.get("to");
  const std::string data_dir = data_dir_of(args);
  if (const char* store = std::getenv("BUZZ_STORE"); store && *store) {
    return fail("backup", "BUZZ_STORE is set: a relay on PostgreSQL is backed up with pg_dump (README, \"Back up and restore\")");
  }
  std::error_code ec;
  if (!fs::is_directory(data_dir + "/db", ec)) return fail("backup", data_dir + " holds no data directory (no db/)");
  if (engine::Status s = empty_target(to); !s) return fail("backup", s.error(), kExitUsage);

  yield_to_the_relay();
  int connection = -1;
  std::unique_ptr<engine::RocksDatabase> db;
  auto point = ask_for_point(data_dir, &connection, &db);
  if (!point) {
    if (connection >= 0) ::close(connection);
    return fail("backup", point.error());
  }
  if (json) {
    std::printf("%s\n", json_object({{"step", json_string("point")}, {"online", point->online ? "true" : "false"},
                                     {"paused_ms", std::to_string(point->paused_ms)},
                                     {"audit_seq", std::to_string(point->audit.seq)}}).c_str());
  }
  BackupManifest manifest;
  manifest.buzz_version = BUZZ_VERSION;
  manifest.data_format = engine::kDataFormatVersion;
  manifest.taken_at = point->taken_at;
  manifest.online = point->online;
  manifest.store_sequence = point->store_sequence;
  manifest.audit = point->audit;
  migrate::Progress progress(migrate::Progress::mode_for(json), migrate::Progress::Unit::kBytes);
  engine::Status copied = copy_items("copying", backup_items(data_dir, *point), to, progress, &manifest.files);
  // The staging files go: the relay drops them when the connection closes, before it
  // closes its side, so they are gone when this command ends.
  if (connection >= 0) hang_up(connection, 10'000);
  else remove_backup_staging(data_dir, point->staging);
  db.reset();
  if (!copied) return fail("backup", copied.error());
  // The copied chain must end at the point's head, or the backup is not one point.
  engine::VerifyReport chain = engine::verify_audit(to + "/audit");
  if (!chain.ok || chain.last_seq != point->audit.seq || chain.last_hash != point->audit.hash) {
    return fail("backup", "the copied audit chain does not end at the point's head (seq " + std::to_string(point->audit.seq) + ")");
  }
  if (engine::Status s = write_manifest(to, manifest); !s) return fail("backup", s.error());
  uint64_t bytes = 0;
  for (const ManifestFile& f : manifest.files) bytes += f.bytes;
  if (json) {
    std::printf("%s\n", json_object({{"ok", "true"}, {"to", json_string(to)}, {"files", std::to_string(manifest.files.size())},
                                     {"bytes", std::to_string(bytes)}, {"online", point->online ? "true" : "false"},
                                     {"audit_seq", std::to_string(point->audit.seq)},
                                     {"audit_hash", json_string(point->audit.hash)},
                                     {"paused_ms", std::to_string(point->paused_ms)}}).c_str());
  } else {
    std::printf("backed up %s (%s) into %s: %zu files, %.1f MiB; audit head seq %llu %s\n", data_dir.c_str(),
                point->online ? "online" : "offline", to.c_str(), manifest.files.size(), double(bytes) / 1048576.0,
                static_cast<unsigned long long>(point->audit.seq), point->audit.hash.c_str());
  }
  return kExitOk;
}

// Reads and checks a backup; prints its problems (or nothing) and returns the manifest if whole.
std::optional<BackupManifest> checked_backup(const char* cmd, const std::string& dir, bool json) {
  auto manifest = read_manifest(dir);
  if (!manifest) {
    fail(cmd, manifest.error());
    return std::nullopt;
  }
  uint64_t total = 0;
  for (const ManifestFile& f : manifest->files) total += f.bytes;
  migrate::Progress progress(migrate::Progress::mode_for(json), migrate::Progress::Unit::kBytes);
  progress.begin("verifying", total);
  BackupCheck check = check_backup(dir, *manifest, [&](uint64_t b) { progress.advance(b); });
  progress.end();
  if (json) {
    std::printf("%s\n", json_object({{"ok", check.problems.empty() ? "true" : "false"},
                                     {"files", std::to_string(check.files)},
                                     {"bytes", std::to_string(check.bytes)},
                                     {"audit_seq", std::to_string(manifest->audit.seq)},
                                     {"audit_hash", json_string(manifest->audit.hash)},
                                     {"problems", json_string_array(check.problems)}}).c_str());
  } else {
    for (const std::string& p : check.problems) std::fprintf(stderr, "buzz %s: %s\n", cmd, p.c_str());
  }
  if (!check.problems.empty()) return std::nullopt;
  if (!json) {
    std::printf("%s: %llu files, %.1f MiB, as the manifest says; audit chain verifies to seq %llu %s\n", dir.c_str(),
                static_cast<unsigned long long>(check.files), double(check.bytes) / 1048576.0,
                static_cast<unsigned long long>(check.chain.seq), check.chain.hash.c_str());
  }
  return std::move(*manifest);
}

}  // namespace

int run_backup(int argc, char** argv) {
  ParsedArgs args = parse_args(argc, argv, 2, kBackupOptions);
  const std::string text = usage_text(kBackupHead, kBackupOptions);
  if (args.has("help")) return std::fputs(text.c_str(), stdout), kExitOk;
  auto usage = [&text](const std::string& why) { return usage_error("backup", text, why); };
  if (!args.error.empty()) return usage(args.error);
  if (!args.positional.empty() && args.positional[0] == "verify") {
    if (args.positional.size() != 2) return usage("backup verify takes one directory");
    for (const std::string& key : args.given) {
      if (key != "json") return usage("unknown option --" + key + " for 'verify'");
    }
    return checked_backup("backup verify", args.positional[1], args.has("json")) ? kExitOk : kExitFailure;
  }
  if (!args.positional.empty()) return usage("unexpected argument '" + args.positional[0] + "'");
  if (!args.has("to")) return usage("--to DIR is required");
  return backup(args);
}

int run_restore(int argc, char** argv) {
  ParsedArgs args = parse_args(argc, argv, 2, kRestoreOptions);
  const std::string text = usage_text(kRestoreHead, kRestoreOptions);
  if (args.has("help")) return std::fputs(text.c_str(), stdout), kExitOk;
  auto usage = [&text](const std::string& why) { return usage_error("restore", text, why); };
  if (!args.error.empty()) return usage(args.error);
  if (args.positional.size() != 1) return usage("restore takes one backup directory");
  if (!args.has("data-dir")) return usage("--data-dir NEW is required");
  const std::string from = args.positional[0], to = *args.get("data-dir");
  const bool json = args.has("json");
  std::error_code ec;
  if (fs::exists(to, ec) && (!fs::is_directory(to, ec) || !fs::is_empty(to, ec))) {
    return fail("restore", to + " is not empty: restore only into a new data directory", kExitUsage);
  }
  auto manifest = checked_backup("restore", from, json);
  if (!manifest) return fail("restore", from + " does not verify: nothing restored");
  if (manifest->data_format > engine::kDataFormatVersion) {
    return fail("restore", "the backup is data format " + std::to_string(manifest->data_format) + " (buzz " +
                               manifest->buzz_version + "); this buzz reads format " +
                               std::to_string(engine::kDataFormatVersion) + ": restore it with buzz " +
                               manifest->buzz_version + " or newer");
  }
  if (engine::Status s = empty_target(to); !s) return fail("restore", s.error(), kExitUsage);
  std::vector<CopyItem> items;
  for (const ManifestFile& f : manifest->files) items.push_back({from + "/" + f.path, f.path, UINT64_MAX, f.bytes});
  migrate::Progress progress(migrate::Progress::mode_for(json), migrate::Progress::Unit::kBytes);
  if (engine::Status s = copy_items("restoring", items, to, progress, nullptr, &manifest->files); !s) return fail("restore", s.error());
  // The backup holds no search index: build it from the restored store.
  auto indexed = rebuild_search_index(to, !json && isatty(STDERR_FILENO));
  if (!indexed) return fail("restore", "rebuilding the search index: " + indexed.error());
  if (json) {
    std::printf("%s\n", json_object({{"ok", "true"}, {"data_dir", json_string(to)},
                                     {"files", std::to_string(manifest->files.size())},
                                     {"indexed", std::to_string(indexed->indexed)},
                                     {"audit_seq", std::to_string(manifest->audit.seq)},
                                     {"audit_hash", json_string(manifest->audit.hash)}}).c_str());
  } else {
    std::printf("restored %s into %s: %zu files, %llu events indexed; audit head seq %llu %s\n", from.c_str(), to.c_str(),
                manifest->files.size(), static_cast<unsigned long long>(indexed->indexed),
                static_cast<unsigned long long>(manifest->audit.seq), manifest->audit.hash.c_str());
  }
  return kExitOk;
}

}  // namespace buzz::server
