// Unit tests for the audit log (engine/audit_*): the hash test vectors of
// docs/reference/audit.md §3.4, timestamp text, canonical metadata JSON, CRC-32C, the entry
// payload; then real segment directories under /tmp: a 100,000-entry chain
// across many sealed segments, single-byte damage in a payload, a header and a
// trailer reported at the right place, torn-tail repair with quarantine,
// fail-closed recovery, replay of pending records, the queue bound and the LOCK.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/audit_entry.h"
#include "engine/audit_log.h"
#include "engine/audit_segment.h"
#include "engine/audit_verify.h"
#include "engine/canonical.h"
#include "engine/crc32c.h"
#include "engine/file_digest.h"

namespace buzz::engine {
namespace {

namespace fs = std::filesystem;
using TicketedRecord = AuditLog::TicketedRecord;

constexpr int64_t k2026 = 1767225600LL * 1000000;  // 2026-01-01T00:00:00Z in µs

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/buzz-audit-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

AuditRecord record(uint64_t i) {
  AuditRecord r;
  char id[65];
  std::snprintf(id, sizeof id, "%064llx", static_cast<unsigned long long>(i));
  r.event_id = id;
  r.kind = 9;
  r.actor = std::string(64, 'b');
  r.action = std::string(kActionEventCreated);
  if (i % 3 == 0) r.channel = "11111111-2222-3333-4444-555555555555";
  if (i % 5 == 0) r.meta = "{\"n\":" + std::to_string(i) + "}";
  return r;
}

std::vector<TicketedRecord> records(uint64_t first, uint64_t last) {
  std::vector<TicketedRecord> out;
  for (uint64_t i = first; i <= last; ++i) out.emplace_back(i, record(i));
  return out;
}

// Appends records [first, last] with tickets equal to their numbers, then stops the log.
void append_all(AuditLog& log, uint64_t first, uint64_t last) {
  for (uint64_t i = first; i <= last; i += 1000) {
    std::vector<TicketedRecord> chunk = records(i, std::min(last, i + 999));
    while (!log.try_append(std::move(chunk))) std::this_thread::yield();
  }
  log.stop();
}

// A chain of n entries under dir/audit, in segments of segment_bytes.
std::string make_chain(const TempDir& tmp, uint64_t n, uint64_t segment_bytes) {
  const std::string dir = tmp.path() + "/audit";
  auto log = AuditLog::open(dir, {.queue_capacity = 65536, .segment_bytes = segment_bytes, .on_durable = {}});
  EXPECT_TRUE(log.ok()) << log.error();
  append_all(**log, 1, n);
  return dir;
}

std::vector<SegmentFile> segments(const std::string& dir) { return *list_segments(dir); }

std::string read_file(const std::string& path) { return *read_whole_file(path); }

void write_file(const std::string& path, const std::string& bytes) {
  fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);  // sealed segments are 0444
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Byte offset of the k-th frame (0-based) after a segment's header.
size_t frame_offset(const std::string& bytes, size_t k) {
  size_t at = kSegmentHeaderBytes;
  for (size_t i = 0; i < k; ++i) at = read_frame(bytes, at).end;
  return at;
}

// ---- entries --------------------------------------------------------------

TEST(AuditEntry, HashTestVectors) {
  AuditEntry v1;
  v1.seq = 1;
  v1.ts = "2026-01-01T00:00:00+00:00";
  v1.event_id = "abc123";
  v1.kind = 1;
  v1.actor = "pubkey_alice";
  v1.action = kActionEventCreated;
  v1.prev_hash = kAuditGenesisHash;
  v1.hash = audit_hash(v1);
  EXPECT_EQ(v1.hash, "b0c9f983140450e18ee07f80c7649939fa9080946f2ba25c6791195182745508");

  AuditEntry v2;
  v2.seq = 2;
  v2.ts = "2026-01-01T00:00:01.500+00:00";
  v2.event_id = std::string(64, 'a');
  v2.kind = 9;
  v2.actor = std::string(64, 'b');
  v2.action = kActionEventCreated;
  v2.channel = "11111111-2222-3333-4444-555555555555";
  v2.prev_hash = v1.hash;
  v2.hash = audit_hash(v2);
  EXPECT_EQ(v2.hash, "d8a4876fce5a8edcf3f0f727914e2307a3f92441162afe8e25c13eee59e30e08");

  AuditEntry v3;
  v3.seq = 3;
  v3.ts = "2026-01-01T00:00:02.123456+00:00";
  v3.event_id = std::string(64, 'c');
  v3.kind = kKindMediaUpload;
  v3.actor = std::string(64, 'b');
  v3.action = kActionMediaUploaded;
  v3.meta = *canonical_json("{\"size\":1234,\"sha256\":\"" + std::string(64, 'c') + "\",\"mime\":\"image/png\"}");
  v3.prev_hash = v2.hash;
  v3.hash = audit_hash(v3);
  EXPECT_EQ(v3.hash, "640ec0a145cf4cdfad53f8a06f5c7dc8b9218c31957815596bfce6e6425e80c2");
}

TEST(AuditEntry, TimestampText) {
  EXPECT_EQ(audit_timestamp(k2026), "2026-01-01T00:00:00+00:00");
  EXPECT_EQ(audit_timestamp(k2026 + 1500000), "2026-01-01T00:00:01.500+00:00");
  EXPECT_EQ(audit_timestamp(k2026 + 2123456), "2026-01-01T00:00:02.123456+00:00");
  EXPECT_EQ(audit_timestamp(k2026 + 120000), "2026-01-01T00:00:00.120+00:00");
  EXPECT_EQ(audit_timestamp(k2026 + 1), "2026-01-01T00:00:00.000001+00:00");
  EXPECT_EQ(audit_timestamp(k2026 - 1), "2025-12-31T23:59:59.999999+00:00");
  EXPECT_EQ(audit_timestamp(0), "1970-01-01T00:00:00+00:00");
}

TEST(AuditEntry, CanonicalJson) {
  EXPECT_EQ(*canonical_json("null"), "null");
  EXPECT_EQ(*canonical_json(R"( { "b" : 1, "a" : { "d" : [3, {"z": null, "y": true}, -7], "c": "x" }, "B": false } )"),
            R"({"B":false,"a":{"c":"x","d":[3,{"y":true,"z":null},-7]},"b":1})");
  // Only ", \ and control characters are escaped (lowercase \u00xx); /, U+007F and UTF-8 stay raw.
  EXPECT_EQ(*canonical_json(R"(["\u0001\b\f\n\r\t\"\\\/\u007f\u00e9\u001F"])"),
            "[\"\\u0001\\b\\f\\n\\r\\t\\\"\\\\/\x7f\xc3\xa9\\u001f\"]");
  EXPECT_EQ(*canonical_json("{\"\xc3\xa9\":1,\"z\":2,\"\":0}"), "{\"\":0,\"z\":2,\"\xc3\xa9\":1}");
  EXPECT_EQ(*canonical_json("18446744073709551615"), "18446744073709551615");
  EXPECT_FALSE(canonical_json("1.5").ok());
  EXPECT_FALSE(canonical_json(R"({"a":1,"a":2})").ok());
  EXPECT_FALSE(canonical_json("{\"a\":").ok());
}

TEST(AuditEntry, RecordChecks) {
  AuditRecord r = record(1);
  r.kind = 22242;
  Status s = normalize_audit_record(r);
  EXPECT_EQ(s.error(), "auth events (kind 22242) must never appear in the audit log");
  r = record(1);
  r.action = "event_edited";
  EXPECT_FALSE(normalize_audit_record(r).ok());
  r = record(1);
  r.channel = "11111111-2222-3333-4444-55555555555G";
  EXPECT_FALSE(normalize_audit_record(r).ok());
  r = record(1);
  r.meta = R"({ "size": 1, "mime": "x" })";
  ASSERT_TRUE(normalize_audit_record(r).ok());
  EXPECT_EQ(r.meta, R"({"mime":"x","size":1})");
}

TEST(AuditEntry, PayloadRoundTrip) {
  AuditEntry e;
  static_cast<AuditRecord&>(e) = record(15);
  e.seq = 7;
  e.ts = audit_timestamp(k2026 + 1500000);
  e.prev_hash = kAuditGenesisHash;
  e.hash = audit_hash(e);
  const std::string payload = encode_audit_payload(e);
  EXPECT_EQ(payload.substr(0, 46), R"({"seq":7,"ts":"2026-01-01T00:00:01.500+00:00",)");
  Result<AuditEntry> back = decode_audit_payload(payload);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(encode_audit_payload(*back), payload);
  EXPECT_EQ(audit_hash(*back), e.hash);
  std::string spaced = payload;
  spaced.insert(1, " ");
  EXPECT_FALSE(decode_audit_payload(spaced).ok());
}

TEST(AuditSegment, Crc32cCheckValue) {
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(crc32c("6789", 4, crc32c("12345", 5)), 0xE3069283u);
  EXPECT_EQ(crc32c_portable("123456789", 9), 0xE3069283u);
}

// The instruction path and the table agree at every length and split point
// (the instruction takes eight bytes at a time, then single bytes).
TEST(AuditSegment, Crc32cPathsAgree) {
  std::string bytes;
  for (int i = 0; i < 100; ++i) bytes.push_back(char(i * 37 + 11));
  for (size_t len = 0; len <= bytes.size(); ++len) {
    ASSERT_EQ(crc32c(bytes.data(), len), crc32c_portable(bytes.data(), len)) << len;
    size_t half = len / 3;
    ASSERT_EQ(crc32c(bytes.data() + half, len - half, crc32c(bytes.data(), half)), crc32c_portable(bytes.data(), len))
        << len;
  }
}

// The seal's streamed digest is the one-shot digest of the same bytes, across
// several read chunks and a partial last one; a missing file is an error.
TEST(AuditSegment, StreamedFileDigestMatchesOneShot) {
  TempDir tmp;
  const std::string path = tmp.path() + "/bytes";
  std::string bytes;
  for (int i = 0; i < 200'000; ++i) bytes.push_back(char(i * 131 + 7));
  std::ofstream(path, std::ios::binary) << bytes;
  uint8_t streamed[32], one_shot[32];
  auto hashed = sha256_file(path, streamed);
  ASSERT_TRUE(hashed) << hashed.error();
  EXPECT_EQ(*hashed, bytes.size());
  sha256(bytes.data(), bytes.size(), one_shot);
  EXPECT_EQ(std::string(streamed, streamed + 32), std::string(one_shot, one_shot + 32));
  EXPECT_FALSE(sha256_file(tmp.path() + "/missing", streamed));
}

// ---- the log on disk ------------------------------------------------------

TEST(AuditLog, HundredThousandEntriesAcrossSealedSegmentsVerify) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/audit";
  std::atomic<uint64_t> durable{0};
  auto log = AuditLog::open(dir, {.queue_capacity = 65536, .segment_bytes = 1 << 20,
                                  .on_durable = [&](uint64_t t) { durable = t; }});
  ASSERT_TRUE(log.ok()) << log.error();
  EXPECT_EQ((*log)->head().seq, 0u);
  EXPECT_EQ((*log)->head().hash, kAuditGenesisHash);
  append_all(**log, 1, 100000);
  EXPECT_EQ(durable, 100000u);
  EXPECT_EQ((*log)->metrics().entries_written, 100000u);
  EXPECT_EQ((*log)->head().seq, 100000u);

  const std::vector<SegmentFile> segs = segments(dir);
  ASSERT_GT(segs.size(), 10u);
  for (size_t i = 0; i + 1 < segs.size(); ++i) EXPECT_TRUE(read_segment_trailer(dir + "/" + segs[i].name).ok());
  EXPECT_FALSE(read_segment_trailer(dir + "/" + segs.back().name).ok());

  VerifyReport all = verify_audit(dir);
  ASSERT_TRUE(all.ok) << describe(all.failure);
  EXPECT_EQ(all.entries, 100000u);
  EXPECT_EQ(all.first_seq, 1u);
  EXPECT_EQ(all.last_seq, 100000u);
  EXPECT_EQ(all.last_hash, (*log)->head().hash);

  VerifyReport range = verify_audit(dir, 50000, 60000);
  ASSERT_TRUE(range.ok) << describe(range.failure);
  EXPECT_EQ(range.entries, 10001u);
  EXPECT_EQ(range.first_seq, 50000u);
  EXPECT_EQ(range.last_seq, 60000u);

  Result<std::vector<AuditEntry>> tail = read_audit_tail(dir, 3);
  ASSERT_TRUE(tail.ok()) << tail.error();
  ASSERT_EQ(tail->size(), 3u);
  EXPECT_EQ((*tail)[0].seq, 99998u);
  EXPECT_EQ(static_cast<const AuditRecord&>((*tail)[2]), record(100000));
}

TEST(AuditVerify, EmptyOrMissingDirectoryIsOk) {
  TempDir tmp;
  VerifyReport r = verify_audit(tmp.path() + "/nothing");
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.entries, 0u);
  EXPECT_EQ(r.last_hash, kAuditGenesisHash);
}

TEST(AuditVerify, FlippedPayloadByteIsReportedAtItsEntry) {
  TempDir tmp;
  const std::string dir = make_chain(tmp, 3000, 64 << 10);
  const std::vector<SegmentFile> segs = segments(dir);
  ASSERT_GT(segs.size(), 3u);
  const std::string path = dir + "/" + segs[1].name;
  std::string bytes = read_file(path);
  const size_t at = frame_offset(bytes, 5);
  bytes[at + 5 + 20] ^= 0x01;
  write_file(path, bytes);

  VerifyReport r = verify_audit(dir);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.failure.segment, segs[1].name);
  EXPECT_EQ(r.failure.offset, at);
  EXPECT_EQ(r.failure.seq, segs[1].first_seq + 5);
}

TEST(AuditVerify, FlippedHeaderByteIsReportedAtItsSegment) {
  TempDir tmp;
  const std::string dir = make_chain(tmp, 3000, 64 << 10);
  const std::vector<SegmentFile> segs = segments(dir);
  const std::string path = dir + "/" + segs[2].name;
  std::string bytes = read_file(path);
  bytes[30] ^= 0x40;  // inside anchor_prev_hash
  write_file(path, bytes);

  VerifyReport r = verify_audit(dir);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.failure.segment, segs[2].name);
  EXPECT_EQ(r.failure.offset, 0u);
  EXPECT_EQ(r.failure.seq, segs[2].first_seq);
  EXPECT_NE(r.failure.error.find("header"), std::string::npos) << r.failure.error;
}

TEST(AuditVerify, FlippedTrailerByteIsReportedAtItsSegment) {
  TempDir tmp;
  const std::string dir = make_chain(tmp, 3000, 64 << 10);
  const std::vector<SegmentFile> segs = segments(dir);
  const std::string path = dir + "/" + segs[0].name;
  std::string bytes = read_file(path);
  bytes[bytes.size() - 40] ^= 0x01;  // inside the file digest
  write_file(path, bytes);

  VerifyReport r = verify_audit(dir);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.failure.segment, segs[0].name);
  EXPECT_EQ(r.failure.offset, bytes.size() - kTrailerFrameBytes);
  EXPECT_EQ(r.failure.seq, segs[1].first_seq);
}

TEST(AuditLog, TornTailMidFrameIsQuarantinedAndTruncated) {
  TempDir tmp;
  const std::string dir = make_chain(tmp, 1000, 64 << 20);
  const std::string path = dir + "/" + segments(dir).back().name;
  const uintmax_t size = fs::file_size(path);
  fs::resize_file(path, size - 10);
  // A frame cut short at the end reads as a write in progress, not damage.
  EXPECT_EQ(verify_audit(dir).last_seq, 999u);

  auto log = AuditLog::open(dir, {});
  ASSERT_TRUE(log.ok()) << log.error();
  const RecoveryReport& rec = (*log)->recovery();
  EXPECT_EQ(rec.head_seq, 999u);
  EXPECT_GT(rec.truncated_bytes, 0u);
  EXPECT_EQ(fs::file_size(path), size - 10 - rec.truncated_bytes);
  ASSERT_FALSE(rec.quarantine_path.empty());
  EXPECT_EQ(fs::file_size(rec.quarantine_path), rec.truncated_bytes);
  EXPECT_EQ((*log)->metrics().tail_truncated, 1u);
  append_all(**log, 1001, 1005);
  VerifyReport r = verify_audit(dir);
  ASSERT_TRUE(r.ok) << describe(r.failure);
  EXPECT_EQ(r.last_seq, 1004u);
}

TEST(AuditLog, GarbageTailIsQuarantinedAndTruncated) {
  TempDir tmp;
  const std::string dir = make_chain(tmp, 1000, 64 << 20);
  const std::string path = dir + "/" + segments(dir).back().name;
  // A whole frame whose CRC does not match, as a crash can leave behind.
  const std::string garbage("\x00\x00\x00\x08\x01garbage!\xde\xad\xbe\xef", 17);
  std::ofstream(path, std::ios::binary | std::ios::app) << garbage;
  EXPECT_FALSE(verify_audit(dir).ok);

  auto log = AuditLog::open(dir, {});
  ASSERT_TRUE(log.ok()) << log.error();
  EXPECT_EQ((*log)->recovery().truncated_bytes, garbage.size());
  EXPECT_EQ(read_file((*log)->recovery().quarantine_path), garbage);
  EXPECT_EQ((*log)->head().seq, 1000u);
  append_all(**log, 1001, 1001);
  VerifyReport r = verify_audit(dir);
  ASSERT_TRUE(r.ok) << describe(r.failure);
  EXPECT_EQ(r.last_seq, 1001u);
}

TEST(AuditLog, ValidCrcWithWrongHashFailsClosed) {
  TempDir tmp;
  const std::string dir = make_chain(tmp, 100, 64 << 20);
  const SegmentFile seg = segments(dir).back();
  const std::string path = dir + "/" + seg.name;
  std::string bytes = read_file(path);
  // Rewrite entry 50 with a different actor and a correct CRC: only the hash can tell.
  const size_t at = frame_offset(bytes, 49);
  const Frame f = read_frame(bytes, at);
  AuditEntry e = *decode_audit_payload(f.payload);
  e.actor.back() = 'c';
  std::string frame;
  append_frame(frame, FrameType::kEntry, encode_audit_payload(e));
  ASSERT_EQ(frame.size(), f.end - at);
  bytes.replace(at, frame.size(), frame);
  write_file(path, bytes);

  VerifyReport r = verify_audit(dir);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.failure.seq, 50u);
  EXPECT_EQ(r.failure.error.rfind("hash mismatch at seq 50", 0), 0u) << r.failure.error;

  auto log = AuditLog::open(dir, {});
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.error().find(seg.name), std::string::npos) << log.error();
  EXPECT_NE(log.error().find("offset " + std::to_string(at)), std::string::npos) << log.error();
  EXPECT_NE(log.error().find("seq 50"), std::string::npos) << log.error();
  EXPECT_EQ(fs::file_size(path), bytes.size());  // nothing was cut
}

TEST(AuditLog, ValidFrameAfterDamagedFrameFailsClosed) {
  TempDir tmp;
  const std::string dir = make_chain(tmp, 100, 64 << 20);
  const std::string path = dir + "/" + segments(dir).back().name;
  std::string bytes = read_file(path);
  bytes[frame_offset(bytes, 90) + 8] ^= 0x01;
  write_file(path, bytes);
  auto log = AuditLog::open(dir, {});
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.error().find("seq 91"), std::string::npos) << log.error();
}

TEST(AuditLog, ReplayPendingSkipsWhatTheChainHas) {
  TempDir tmp;
  const std::string dir = make_chain(tmp, 10, 64 << 20);
  std::atomic<uint64_t> durable{0};
  AuditOptions opts{.on_durable = [&](uint64_t t) { durable = t; }};
  {
    auto log = AuditLog::open(dir, opts);
    ASSERT_TRUE(log.ok()) << log.error();
    (*log)->replay_pending(records(8, 12));  // 8–10 are in the chain already
    (*log)->stop();
    EXPECT_EQ(durable, 12u);
    EXPECT_EQ((*log)->metrics().entries_written, 2u);
  }
  {
    auto log = AuditLog::open(dir, opts);
    ASSERT_TRUE(log.ok()) << log.error();
    (*log)->replay_pending(records(11, 12));  // all there: nothing to write, still reported
    EXPECT_EQ(durable, 12u);
    (*log)->replay_pending({{13, record(3)}});  // equal to an older entry, not to the tail
    (*log)->stop();
    EXPECT_EQ(durable, 13u);
    EXPECT_EQ((*log)->metrics().entries_written, 1u);
  }
  Result<std::vector<AuditEntry>> tail = read_audit_tail(dir, 100);
  ASSERT_TRUE(tail.ok()) << tail.error();
  ASSERT_EQ(tail->size(), 13u);
  for (uint64_t i = 1; i <= 12; ++i) EXPECT_EQ(static_cast<const AuditRecord&>((*tail)[i - 1]), record(i)) << i;
  EXPECT_EQ(static_cast<const AuditRecord&>((*tail)[12]), record(3));
  EXPECT_TRUE(verify_audit(dir).ok);
}

TEST(AuditLog, TryAppendIsAllOrNothing) {
  TempDir tmp;
  auto log = AuditLog::open(tmp.path() + "/audit", {.queue_capacity = 4, .segment_bytes = 64 << 20, .on_durable = {}});
  ASSERT_TRUE(log.ok()) << log.error();
  std::vector<TicketedRecord> five = records(1, 5);
  EXPECT_FALSE((*log)->try_append(std::move(five)));
  EXPECT_EQ(five.size(), 5u);
  EXPECT_EQ(five[4].second, record(5));  // left untouched
  EXPECT_TRUE((*log)->try_append(records(1, 4)));
  (*log)->stop();
  EXPECT_EQ((*log)->metrics().entries_written, 4u);
  EXPECT_FALSE((*log)->try_append(records(5, 5)));
}

TEST(AuditLog, ForbiddenKindIsNeverWritten) {
  TempDir tmp;
  std::atomic<uint64_t> durable{0};
  auto log = AuditLog::open(tmp.path() + "/audit", {.on_durable = [&](uint64_t t) { durable = t; }});
  ASSERT_TRUE(log.ok()) << log.error();
  std::vector<TicketedRecord> batch = records(1, 2);
  batch[1].second.kind = kAuditForbiddenKind;
  ASSERT_TRUE((*log)->try_append(std::move(batch)));
  (*log)->stop();
  EXPECT_EQ((*log)->metrics().entries_written, 1u);
  EXPECT_EQ((*log)->metrics().records_rejected, 1u);
  EXPECT_EQ(durable, 2u);
}

TEST(AuditLog, SecondOpenFailsOnTheLock) {
  TempDir tmp;
  auto first = AuditLog::open(tmp.path() + "/audit", {});
  ASSERT_TRUE(first.ok()) << first.error();
  auto second = AuditLog::open(tmp.path() + "/audit", {});
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().find("LOCK"), std::string::npos) << second.error();
  first->reset();
  EXPECT_TRUE(AuditLog::open(tmp.path() + "/audit", {}).ok());
}

}  // namespace
}  // namespace buzz::engine
