// A backup directory's manifest (docs/storage.md, "Backup"): manifest.json,
// written last, lists every file of the backup with its size and SHA-256, the
// audit head at the backup's point, and what the backup holds of the data
// directory. `buzz backup verify` and `buzz restore` check a backup against it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/audit_chain.h"
#include "engine/result.h"

namespace buzz::server {

inline constexpr const char* kManifestName = "manifest.json";
inline constexpr uint32_t kManifestVersion = 1;

struct ManifestFile {
  std::string path;  // relative to the backup directory, as in the data directory
  uint64_t bytes = 0;
  std::string sha256;  // hex
};

struct BackupManifest {
  std::string buzz_version;  // the binary that wrote it
  uint32_t data_format = 0;  // of the store in db/ (engine/data_format.h)
  uint64_t taken_at = 0;
  bool online = false;  // taken by a serving relay
  uint64_t store_sequence = 0;
  engine::AuditHead audit;
  std::vector<ManifestFile> files;
};

// Writes DIR/manifest.json durably (a temporary file, fsync, rename).
engine::Status write_manifest(const std::string& dir, const BackupManifest& manifest);
engine::Result<BackupManifest> read_manifest(const std::string& dir);

struct BackupCheck {
  std::vector<std::string> problems;  // empty: the backup is whole
  uint64_t files = 0, bytes = 0;
  engine::AuditHead chain;  // the head the copied chain verifies to
};

// Every listed file is there with its size and digest, no other file is, and
// the audit chain verifies to the manifest's head. `progress` sees the bytes
// read as they are.
BackupCheck check_backup(const std::string& dir, const BackupManifest& manifest,
                         const std::function<void(uint64_t)>& progress);

}  // namespace buzz::server
