// A backup's point in time (docs/storage.md, "Backup"): the event store as a
// RocksDB checkpoint in a staging directory beside the data, and the audit
// chain's head and segment lengths at the same moment. `buzz backup` copies
// from there; media blobs are content-addressed and never change, so copying
// them afterwards loses nothing the point refers to.
//
// Online, the relay takes the point between two store-writer batches, after
// the audit chain holds every record committed so far (AuditFeed::wait_durable):
// the store and the chain then describe the same events. The memtables are
// flushed before that moment, so inside it the checkpoint only links table
// files and copies the short log written since. Offline (a stopped data
// directory, opened by `buzz backup` itself) nothing writes, and the same steps
// run without the pause.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/audit_chain.h"
#include "engine/result.h"
#include "engine/rocks_database.h"

namespace buzz::server {

class AuditFeed;
class StoreWriter;

struct BackupSegment {
  std::string name;    // the segment's file name in <data-dir>/audit
  uint64_t bytes = 0;  // its length at the point: copy no more
};

struct BackupPoint {
  std::string staging;  // absolute; its db/ is the store's checkpoint
  uint64_t store_sequence = 0;
  engine::AuditHead audit;
  std::vector<BackupSegment> segments;
  uint64_t taken_at = 0;  // unix seconds
  double paused_ms = 0;   // how long the store writer stood still for it
  bool online = false;
};

// One JSON line, the control socket's answer; and back.
std::string backup_point_json(const BackupPoint& point);
engine::Result<BackupPoint> parse_backup_point(std::string_view json);

// What the point is taken from. Online: the relay's writer, feed and chain;
// offline: all three null, and the chain is read from its files.
struct PointSources {
  engine::RocksDatabase& db;
  StoreWriter* writer = nullptr;
  AuditFeed* feed = nullptr;
  const engine::AuditChain* chain = nullptr;
};

engine::Result<BackupPoint> take_backup_point(const std::string& data_dir, const PointSources& sources);

// Removes a point's staging directory; with "", every one a crash left in the data directory.
void remove_backup_staging(const std::string& data_dir, const std::string& staging = "");

}  // namespace buzz::server
