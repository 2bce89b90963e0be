// A backup's point in time; see backup_point.h.
#include "server/app/backup_point.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>

#include <simdjson.h>

#include "engine/audit_entry.h"
#include "engine/audit_segment.h"
#include "engine/audit_verify.h"
#include "engine/clock.h"
#include "engine/json_text.h"
#include "server/feeds/audit_feed.h"
#include "server/pipeline/store_writer.h"

namespace buzz::server {
namespace {

namespace fs = std::filesystem;
constexpr const char* kStagingPrefix = "backup-staging-";

// The chain's segments and their lengths now; nothing may append meanwhile.
engine::Status list_segment_lengths(const std::string& audit_dir, std::vector<BackupSegment>* out) {
  auto segments = engine::list_segments(audit_dir);
  if (!segments) return engine::Error{segments.error()};
  for (const engine::SegmentFile& f : *segments) {
    std::error_code ec;
    const uint64_t bytes = fs::file_size(audit_dir + "/" + f.name, ec);
    if (ec) return engine::Error{"cannot read the size of audit segment " + f.name + ": " + ec.message()};
    out->push_back({f.name, bytes});
  }
  return {};
}

engine::Result<engine::AuditHead> head_from_files(const std::string& audit_dir) {
  auto tail = engine::read_audit_tail(audit_dir, 1);
  if (!tail) return engine::Error{tail.error()};
  if (tail->empty()) return engine::AuditHead{0, std::string(engine::kAuditGenesisHash)};
  return engine::AuditHead{tail->back().seq, tail->back().hash};
}

}  // namespace

std::string backup_point_json(const BackupPoint& p) {
  std::vector<std::string> segments;
  for (const BackupSegment& s : p.segments) {
    segments.push_back(json_object({{"name", json_string(s.name)}, {"bytes", std::to_string(s.bytes)}}));
  }
  return json_object({{"ok", "true"},
                      {"staging", json_string(p.staging)},
                      {"store_sequence", std::to_string(p.store_sequence)},
                      {"audit_seq", std::to_string(p.audit.seq)},
                      {"audit_hash", json_string(p.audit.hash)},
                      {"segments", json_array(segments)},
                      {"taken_at", std::to_string(p.taken_at)},
                      {"paused_ms", std::to_string(p.paused_ms)},
                      {"online", p.online ? "true" : "false"}});
}

engine::Result<BackupPoint> parse_backup_point(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json.data(), json.size()).get(root)) return engine::Error{"the relay's answer is not JSON"};
  bool ok = false;
  if (root["ok"].get(ok) || !ok) {
    std::string_view why;
    return engine::Error{root["error"].get(why) ? "the relay refused without a reason" : std::string(why)};
  }
  BackupPoint p;
  std::string_view staging, hash;
  simdjson::dom::array segments;
  if (root["staging"].get(staging) || root["store_sequence"].get(p.store_sequence) || root["audit_seq"].get(p.audit.seq) ||
      root["audit_hash"].get(hash) || root["segments"].get(segments) || root["taken_at"].get(p.taken_at) ||
      root["paused_ms"].get(p.paused_ms) || root["online"].get(p.online)) {
    return engine::Error{"the relay's answer lacks a field of a backup point"};
  }
  p.staging = staging;
  p.audit.hash = hash;
  for (simdjson::dom::element s : segments) {
    std::string_view name;
    BackupSegment seg;
    if (s["name"].get(name) || s["bytes"].get(seg.bytes)) return engine::Error{"a segment of the answer is malformed"};
    seg.name = name;
    p.segments.push_back(std::move(seg));
  }
  return p;
}

engine::Result<BackupPoint> take_backup_point(const std::string& data_dir, const PointSources& src) {
  static std::atomic<unsigned> counter{0};
  BackupPoint p;
  p.online = src.writer != nullptr;
  std::error_code ec;
  p.staging = fs::absolute(data_dir, ec).lexically_normal().string() + "/" + kStagingPrefix + std::to_string(::getpid()) +
              "-" + std::to_string(counter++);
  fs::create_directories(p.staging, ec);
  if (ec) return engine::Error{"cannot create " + p.staging + ": " + ec.message()};
  fs::permissions(p.staging, fs::perms::owner_all, ec);
  // Outside the moment, while the writer goes on: what is flushed now is
  // linked, not copied, inside it.
  if (engine::Status s = src.db.flush(); !s) return remove_backup_staging(data_dir, p.staging), engine::Error{s.error()};

  const std::string audit_dir = data_dir + "/audit";
  engine::Status inside;
  auto moment = [&] {
    const auto began = std::chrono::steady_clock::now();
    if (src.feed && !src.feed->wait_durable()) {
      inside = engine::Error{"the audit log has stopped: " + src.chain->status().error()};
      return;
    }
    if (inside = src.db.checkpoint(p.staging + "/db"); !inside) return;
    p.store_sequence = src.db.sequence();
    if (src.chain) {
      p.audit = src.chain->head();
    } else if (auto head = head_from_files(audit_dir)) {
      p.audit = *head;
    } else {
      inside = engine::Error{head.error()};
      return;
    }
    inside = list_segment_lengths(audit_dir, &p.segments);
    p.paused_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  };
  if (!src.writer) {
    moment();
  } else if (!src.writer->run_between_batches(moment)) {
    inside = engine::Error{"the relay is stopping"};
  }
  if (!inside) return remove_backup_staging(data_dir, p.staging), engine::Error{inside.error()};
  p.taken_at = engine::unix_now();
  return p;
}

void remove_backup_staging(const std::string& data_dir, const std::string& staging) {
  std::error_code ec;
  if (!staging.empty()) {
    fs::remove_all(staging, ec);
    return;
  }
  for (const auto& entry : fs::directory_iterator(data_dir, ec)) {
    if (entry.path().filename().string().rfind(kStagingPrefix, 0) == 0) fs::remove_all(entry.path(), ec);
  }
}

}  // namespace buzz::server
