// Finding the documents of an event id. The id is stored with each document and
// indexed only as its bucket (clucene_fields.h), so a lookup reads the stored
// ids of the bucket's live documents: about documents ÷ 65,536 of them, each a
// read of one stored field. Deletions and duplicate checks use it; both are off
// the ingest path (the filter of added ids answers most duplicate checks first).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "engine/hex.h"
#include "index/clucene.h"

namespace buzz::index {

// The bucket term's text for an id given in hex.
std::wstring id_bucket(std::string_view id_hex);

// Calls found(doc) for every live document of `reader` whose stored id is `id`.
// Throws CLuceneError.
void for_each_document_with_id(lucene::index::IndexReader* reader, const engine::Id& id,
                               const std::function<void(int32_t doc)>& found);

// Whether the index holds documents but no id buckets: written before them
// (2026-12-05), with a term per id. Such an index is rebuilt, not read.
bool predates_id_buckets(lucene::index::IndexReader* reader);

}  // namespace buzz::index
