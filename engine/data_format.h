// The data directory's format version (docs/storage.md, "Format version"): a
// number in the store's default family, written by the binary that last
// upgraded it, with that binary's version beside it.
//
// Runs inside RocksDatabase::open, before anything reads the store: a
// directory of an older format is upgraded in place, step by step (format 1,
// records keyed by id, becomes 2 through record_key_upgrade.h, 2 becomes 3,
// records with their NIP-40 expiration, through expiry_upgrade.h, 3 becomes 4,
// tags indexed with their kind, through tag_kind_upgrade.h); a directory of a
// newer format is refused with the version it needs, and nothing is written.
#pragma once

#include <cstdint>
#include <string>

#include "engine/result.h"

namespace buzz::engine {

class RocksDatabase;

// The format this binary reads and writes.
inline constexpr uint32_t kDataFormatVersion = 4;

// The default family's keys.
inline constexpr const char* kDataFormatKey = "data_format";
inline constexpr const char* kDataFormatWriterKey = "data_format_written_by";

struct DataFormat {
  uint32_t version = 0;   // 0 if unreadable
  std::string written_by;  // the buzz version that wrote it, when known
};

// Checks and upgrades an open store; this binary's version is recorded as the writer.
Status upgrade_data_format(RocksDatabase& db);

// Why a directory of a newer format than this binary's is not opened.
std::string newer_format_refusal(const DataFormat& found);

// The format of the store at `db_path`, read without taking its lock (a
// running relay may hold it): for `buzz version --json --data-dir`.
Result<DataFormat> read_data_format(const std::string& db_path);

}  // namespace buzz::engine
