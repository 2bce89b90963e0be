// A backup's manifest; see backup_manifest.h.
#include "server/app/backup_manifest.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include <simdjson.h>

#include "engine/audit_segment.h"
#include "engine/audit_verify.h"
#include "engine/file_digest.h"
#include "engine/hex.h"
#include "engine/json_text.h"

namespace buzz::server {
namespace {

namespace fs = std::filesystem;

}  // namespace

engine::Status write_manifest(const std::string& dir, const BackupManifest& m) {
  std::vector<std::string> files;
  for (const ManifestFile& f : m.files) {
    files.push_back(json_object({{"path", json_string(f.path)}, {"bytes", std::to_string(f.bytes)}, {"sha256", json_string(f.sha256)}}));
  }
  std::string text = json_object({{"format", json_string("buzz-backup")},
                                  {"version", std::to_string(kManifestVersion)},
                                  {"buzz", json_string(m.buzz_version)},
                                  {"data_format", std::to_string(m.data_format)},
                                  {"taken_at", std::to_string(m.taken_at)},
                                  {"online", m.online ? "true" : "false"},
                                  {"store_sequence", std::to_string(m.store_sequence)},
                                  {"audit_head", json_object({{"seq", std::to_string(m.audit.seq)}, {"hash", json_string(m.audit.hash)}})},
                                  {"search", json_string("rebuild")},
                                  {"files", json_array(files)}});
  text.push_back('\n');
  const std::string tmp = dir + "/" + kManifestName + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return engine::Error{"cannot write " + tmp};
  engine::Status written = engine::write_at(fd, text, 0);
  if (written && ::fsync(fd) != 0) written = engine::Error{"cannot fsync " + tmp};
  ::close(fd);
  if (!written) return written;
  std::error_code ec;
  fs::rename(tmp, dir + "/" + kManifestName, ec);
  if (ec) return engine::Error{"cannot rename " + tmp + ": " + ec.message()};
  return engine::fsync_dir(dir);
}

engine::Result<BackupManifest> read_manifest(const std::string& dir) {
  const std::string path = dir + "/" + kManifestName;
  auto text = engine::read_whole_file(path);
  if (!text) return engine::Error{"no manifest: " + text.error() + " (not a backup directory, or an unfinished backup)"};
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(*text).get(root)) return engine::Error{path + " is not JSON"};
  std::string_view format, buzz, hash;
  uint64_t version = 0, data_format = 0;
  BackupManifest m;
  simdjson::dom::array files;
  if (root["format"].get(format) || format != "buzz-backup" || root["version"].get(version)) {
    return engine::Error{path + " is not a buzz backup manifest"};
  }
  if (version > kManifestVersion) {
    return engine::Error{path + " is manifest version " + std::to_string(version) + "; this buzz reads version " +
                         std::to_string(kManifestVersion)};
  }
  if (root["buzz"].get(buzz) || root["data_format"].get(data_format) || root["taken_at"].get(m.taken_at) ||
      root["online"].get(m.online) || root["store_sequence"].get(m.store_sequence) ||
      root["audit_head"]["seq"].get(m.audit.seq) || root["audit_head"]["hash"].get(hash) || root["files"].get(files)) {
    return engine::Error{path + " lacks a field"};
  }
  m.buzz_version = buzz;
  m.data_format = uint32_t(data_format);
  m.audit.hash = hash;
  for (simdjson::dom::element f : files) {
    std::string_view p, sha;
    ManifestFile mf;
    if (f["path"].get(p) || f["bytes"].get(mf.bytes) || f["sha256"].get(sha)) return engine::Error{path + ": a malformed file entry"};
    mf.path = p;
    mf.sha256 = sha;
    // Restore writes each path under the new data directory: nothing may climb out of it.
    if (mf.path.empty() || mf.path[0] == '/' || fs::path(mf.path).lexically_normal().string().rfind("..", 0) == 0) {
      return engine::Error{path + ": a file path leaves the backup: " + mf.path};
    }
    m.files.push_back(std::move(mf));
  }
  return m;
}

BackupCheck check_backup(const std::string& dir, const BackupManifest& m, const std::function<void(uint64_t)>& progress) {
  BackupCheck out;
  std::set<std::string> listed;
  for (const ManifestFile& f : m.files) {
    listed.insert(f.path);
    uint8_t digest[32];
    auto bytes = engine::copy_file_sha256(dir + "/" + f.path, "", UINT64_MAX, digest, progress);
    if (!bytes) {
      out.problems.push_back(f.path + ": missing or unreadable (" + bytes.error() + ")");
    } else if (*bytes != f.bytes) {
      out.problems.push_back(f.path + ": " + std::to_string(*bytes) + " bytes, the manifest says " + std::to_string(f.bytes));
    } else if (engine::to_hex(digest, 32) != f.sha256) {
      out.problems.push_back(f.path + ": its SHA-256 differs from the manifest's");
    }
    ++out.files;
    out.bytes += bytes ? *bytes : 0;
  }
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const std::string rel = fs::relative(it->path(), dir).string();
    if (rel != kManifestName && !listed.count(rel)) out.problems.push_back(rel + ": not in the manifest");
  }
  engine::VerifyReport chain = engine::verify_audit(dir + "/audit");
  if (!chain.ok) {
    out.problems.push_back("audit chain: " + engine::describe(chain.failure));
  } else {
    out.chain = {chain.last_seq, chain.last_hash};
    if (chain.last_seq != m.audit.seq || chain.last_hash != m.audit.hash) {
      out.problems.push_back("audit chain ends at seq " + std::to_string(chain.last_seq) + " (" + chain.last_hash +
                             "), the manifest's head is seq " + std::to_string(m.audit.seq) + " (" + m.audit.hash + ")");
    }
  }
  return out;
}

}  // namespace buzz::server
