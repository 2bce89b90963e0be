// The Typesense export; see typesense_export.h.
#include "migrate/typesense_export.h"

#include <simdjson.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/event_parse.h"
#include "engine/json_text.h"
#include "engine/kinds.h"
#include "engine/rocks_event_store.h"

namespace buzz::migrate {
namespace {

// The collection's fields: what each document below carries, and which are facets.
constexpr std::string_view kTypesenseFields =
    R"([{"name":"id","type":"string"},{"name":"content","type":"string"},{"name":"kind","type":"int32"},)"
    R"({"name":"pubkey","type":"string","facet":true},{"name":"channel_id","type":"string","facet":true,"optional":true},)"
    R"({"name":"created_at","type":"int64"},{"name":"tags_flat","type":"string[]","optional":true}])";

// Kind 0: the raw content, then the trimmed non-empty display_name, name and nip05 (§4.3).
std::string profile_text(const engine::Event& e) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(e.content).get(obj)) return e.content;
  std::string extra;
  for (const char* field : {"display_name", "name", "nip05"}) {
    std::string_view v;
    if (obj[field].get(v)) continue;
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    if (v.empty()) continue;
    if (!extra.empty()) extra.push_back(' ');
    extra.append(v);
  }
  return extra.empty() ? e.content : e.content + " " + extra;
}

}  // namespace

std::string typesense_document(const engine::Event& e, std::string_view channel) {
  if (e.kind == kind::kGiftWrap || e.kind == kind::kDmVisibility ||
      engine::kind_class(e.kind) == engine::KindClass::kEphemeral)
    return {};
  std::vector<std::string> tags_flat;
  for (const engine::Tag& t : e.tags) {
    if (!t.empty()) tags_flat.push_back(t.size() == 1 ? t[0] : t[0] + '\x1f' + t[1]);
  }
  return JsonFields()
      .string("id", e.id_hex())
      .string("content", e.kind == kind::kProfile ? profile_text(e) : e.content)
      .number("kind", e.kind)
      .string("pubkey", e.pubkey_hex())
      .string("channel_id", channel.empty() ? "__global__" : channel)
      .number("created_at", e.created_at)
      .json("tags_flat", json_string_array(tags_flat))
      .str();
}

engine::Result<uint64_t> export_typesense(const std::string& data_dir, const std::string& out_dir,
                                          const std::string& collection, Progress& progress) {
  auto db = engine::RocksDatabase::open(data_dir + "/db", engine::DatabaseOptions{});
  if (!db) return engine::Error{db.error()};
  engine::RocksEventStore store(**db);
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  std::ofstream schema(out_dir + "/collection.json", std::ios::binary);
  schema << JsonFields()
                .string("name", collection)
                .json("fields", kTypesenseFields)
                .string("default_sorting_field", "created_at")
                .str()
         << "\n";
  std::ofstream docs(out_dir + "/documents.jsonl", std::ios::binary);
  if (!schema || !docs) return engine::Error{"cannot write into " + out_dir};
  uint64_t n = 0;
  progress.begin("typesense", 0);
  engine::Status inner;
  engine::Status s = store.scan_records(engine::StorageFamily::kRegular, {}, [&](engine::StorageFamily, const engine::RecordView& rec) {
    if (rec.deleted()) return true;
    auto e = engine::parse_event_json(rec.raw);
    if (!e) return bool(inner = engine::Error{"unreadable stored event " + engine::to_hex(rec.fields.id, 32)});
    std::string doc = typesense_document(*e, rec.fields.channel);
    if (!doc.empty()) {
      docs << doc << '\n';
      ++n;
    }
    progress.advance(1);
    return true;
  });
  if (!s) return engine::Error{s.error()};
  if (!inner) return engine::Error{inner.error()};
  docs.flush();
  if (!docs) return engine::Error{"write into " + out_dir + " failed"};
  progress.end();
  return n;
}

}  // namespace buzz::migrate
