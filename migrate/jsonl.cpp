// NIP-01 JSON lines; see jsonl.h.
#include "migrate/jsonl.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "engine/event_parse.h"
#include "engine/rocks_event_store.h"
#include "migrate/event_loader.h"

namespace buzz::migrate {

engine::Result<JsonlSummary> export_jsonl(const std::string& data_dir, const std::string& file, Progress& progress) {
  auto db = engine::RocksDatabase::open(data_dir + "/db", engine::DatabaseOptions{});
  if (!db) return engine::Error{db.error()};
  engine::RocksEventStore store(**db);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(file == "-" ? stdout : std::fopen(file.c_str(), "wb"),
                                                     file == "-" ? [](std::FILE*) { return 0; } : std::fclose);
  if (!out) return engine::Error{"cannot write " + file};
  JsonlSummary summary;
  progress.begin("events", 0);
  engine::Status s = store.scan_records(engine::StorageFamily::kRegular, {}, [&](engine::StorageFamily, const engine::RecordView& rec) {
    if (rec.deleted()) return true;
    std::fwrite(rec.raw.data(), 1, rec.raw.size(), out.get());
    std::fputc('\n', out.get());
    summary.events++;
    progress.advance(1);
    return true;
  });
  if (!s) return engine::Error{s.error()};
  if (std::fflush(out.get()) != 0 || std::ferror(out.get())) return engine::Error{"write to " + file + " failed"};
  progress.end();
  return summary;
}

engine::Result<JsonlSummary> import_jsonl(const std::string& file, const std::string& data_dir, Progress& progress) {
  std::ifstream in_file;
  if (file != "-") {
    in_file.open(file, std::ios::binary);
    if (!in_file) return engine::Error{"cannot read " + file};
  }
  std::istream& in = file == "-" ? std::cin : in_file;
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  auto db = engine::RocksDatabase::open(data_dir + "/db", engine::DatabaseOptions{});
  if (!db) return engine::Error{db.error()};
  engine::RocksEventStore store(**db);
  EventLoader loader(store, progress, 2000, 2);
  progress.begin("events", 0);
  std::string line;
  uint64_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.back() == '\r') line.pop_back();
    auto e = engine::parse_event_json(line);
    if (!e) return engine::Error{file + " line " + std::to_string(n) + ": invalid event: " + e.error()};
    if (engine::Status s = loader.add_deriving_channel(std::move(*e), file + " line " + std::to_string(n)); !s) {
      return engine::Error{s.error()};
    }
  }
  if (engine::Status s = loader.finish(); !s) return engine::Error{s.error()};
  // One sync at the end (pg_import.cpp).
  if (rocksdb::Status st = (*db)->db()->SyncWAL(); !st.ok()) return engine::Error{"syncing the store: " + st.ToString()};
  progress.end();
  return JsonlSummary{loader.stored(), loader.not_stored()};
}

}  // namespace buzz::migrate
