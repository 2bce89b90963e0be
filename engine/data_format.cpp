// The data directory's format version; see data_format.h.
#include "engine/data_format.h"

#include <memory>
#include <optional>
#include <vector>

#include "engine/expiry_upgrade.h"
#include "engine/record_key_upgrade.h"
#include "engine/rocks_database.h"
#include "engine/tag_kind_upgrade.h"

namespace buzz::engine {
namespace {

std::optional<uint32_t> parse_version(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return uint32_t(std::stoul(text));
}

}  // namespace

std::string newer_format_refusal(const DataFormat& found) {
  const std::string& writer = found.written_by;
  return "error: the data directory is format " + std::to_string(found.version) +
         (writer.empty() ? "" : " (written by buzz " + writer + ")") + "; this buzz (" + BUZZ_VERSION +
         ") reads format " + std::to_string(kDataFormatVersion) + " or older: run a buzz that reads format " +
         std::to_string(found.version) + (writer.empty() ? "" : ", such as buzz " + writer + " or newer");
}

Status upgrade_data_format(RocksDatabase& db) {
  const std::string binary_version = BUZZ_VERSION;
  std::string text, writer;
  rocksdb::DB& rdb = *db.db();
  const bool recorded = rdb.Get(rocksdb::ReadOptions(), db.defaults(), kDataFormatKey, &text).ok();
  (void)rdb.Get(rocksdb::ReadOptions(), db.defaults(), kDataFormatWriterKey, &writer);
  const std::optional<uint32_t> found = recorded ? parse_version(text) : std::optional<uint32_t>(1);
  if (!found) return Error{"error: the data directory's format version is unreadable ('" + text + "')"};
  if (*found > kDataFormatVersion) return Error{newer_format_refusal({*found, writer})};
  if (*found == kDataFormatVersion) return {};
  // One step per format; each is resumable, and the number moves only after it.
  if (*found < 2) {
    if (Status s = upgrade_record_keys(db); !s) return s;  // 1 -> 2
  }
  if (*found < 3) {
    if (Status s = upgrade_expiry_index(db); !s) return s;  // 2 -> 3
  }
  if (Status s = upgrade_tag_kind_index(db); !s) return s;  // 3 -> 4
  rocksdb::WriteBatch batch;
  (void)batch.Put(db.defaults(), kDataFormatKey, std::to_string(kDataFormatVersion));
  (void)batch.Put(db.defaults(), kDataFormatWriterKey, binary_version);
  rocksdb::WriteOptions sync;
  sync.sync = true;
  if (rocksdb::Status s = rdb.Write(sync, &batch); !s.ok()) return Error{"error: recording the data format: " + s.ToString()};
  return {};
}

Result<DataFormat> read_data_format(const std::string& db_path) {
  rocksdb::DBOptions options;
  std::vector<rocksdb::ColumnFamilyDescriptor> families{{rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  // Read-only takes no lock; opening the default family alone is allowed.
  rocksdb::Status s = rocksdb::DB::OpenForReadOnly(options, db_path, families, &handles, &raw);
  if (!s.ok()) return Error{"cannot read the data directory's format at " + db_path + ": " + s.ToString()};
  std::unique_ptr<rocksdb::DB> rdb(raw);
  DataFormat out;
  std::string text;
  if (rdb->Get(rocksdb::ReadOptions(), handles[0], kDataFormatKey, &text).ok()) {
    out.version = parse_version(text).value_or(0);
  } else {
    // Written before the format was recorded: the record layout tells 2 from 1.
    out.version = rdb->Get(rocksdb::ReadOptions(), handles[0], "record_layout", &text).ok() && text == "2" ? 2 : 1;
  }
  (void)rdb->Get(rocksdb::ReadOptions(), handles[0], kDataFormatWriterKey, &out.written_by);
  for (auto* h : handles) rdb->DestroyColumnFamilyHandle(h);
  return out;
}

}  // namespace buzz::engine
