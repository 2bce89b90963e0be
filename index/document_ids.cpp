// Finding documents by event id; see document_ids.h.
#include "index/document_ids.h"

#include <cwchar>
#include <vector>

#include "index/clucene_fields.h"
#include "index/wide_text.h"

namespace buzz::index {

std::wstring id_bucket(std::string_view id_hex) { return ascii_to_wide(id_hex.substr(0, kIdBucketDigits)); }

void for_each_document_with_id(lucene::index::IndexReader* reader, const engine::Id& id,
                               const std::function<void(int32_t doc)>& found) {
  const std::string hex = engine::to_hex(id);
  TermDocsPtr docs(reader->termDocs());
  docs->seek(make_term(kIdBucketField, id_bucket(hex)).get());
  std::vector<int32_t> bucket;  // read first: `found` may delete documents
  for_each_posting(docs.get(), [&](int32_t doc) { bucket.push_back(doc); });
  for (int32_t doc : bucket) {
    lucene::document::Document stored;
    reader->document(doc, stored);
    const wchar_t* stored_id = stored.get(kIdField);
    if (stored_id != nullptr && wide_to_ascii(stored_id) == hex) found(doc);
  }
}

bool predates_id_buckets(lucene::index::IndexReader* reader) {
  if (reader->numDocs() == 0) return false;
  TermEnumPtr terms(reader->terms(make_term(kIdBucketField, L"").get()));
  const lucene::index::Term* first = terms->term(false);
  return first == nullptr || std::wcscmp(first->field(), kIdBucketField) != 0;
}

}  // namespace buzz::index
