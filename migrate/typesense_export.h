// `buzz migrate export --to typesense-jsonl DIR`: the search collection in
// Typesense's own formats (docs/reference/compat-backends.md §4.2–4.3): DIR/collection.json,
// the schema to POST to /collections, and DIR/documents.jsonl, the documents
// for /collections/<name>/documents/import?action=upsert. The load commands
// are in migrate/README.md.
#pragma once

#include <cstdint>
#include <string>

#include "engine/event.h"
#include "engine/result.h"
#include "migrate/progress.h"

namespace buzz::migrate {

// One document line (no newline) for a live event, or "" for the kinds the
// index never takes (gift wraps 1059, 30622, ephemeral).
std::string typesense_document(const engine::Event& e, std::string_view channel);

engine::Result<uint64_t> export_typesense(const std::string& data_dir, const std::string& out_dir,
                                          const std::string& collection, Progress& progress);

}  // namespace buzz::migrate
