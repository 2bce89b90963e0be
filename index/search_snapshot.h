// SearchSnapshot: one committed state of the CLucene index, with everything a
// search reads from it.
//
// Beside the reader it keeps two per-document columns (doc_columns.h),
// created_at and kind, which ranking (ties newest first), ordering by time and
// the kind / since / until restrictions need for every candidate. Reading them
// back from the postings costs ~100 ms per million documents, so a new
// snapshot appends the documents added since the previous one instead,
// whenever no document number has moved. CLucene appends new documents in add
// order and keeps the order of the rest when it merges segments, so numbers
// move only when a merge purges deleted documents, and then the reader's
// maxDoc falls short of the old one plus the documents added. That
// arithmetic, and the stored id of the newest added document, decide; anything
// else reads the columns back in full.
//
// How a search keeps to the caller's scope: the readable channels (and global,
// and the authors if given) become a bitset of documents, built from their
// postings, and the text query is required to match inside it (a
// ConstantScoreQuery clause), so a document outside it is never scored,
// counted or ranked. Kinds, since and until are checked on the columns as each
// match is collected, before it counts. Scores use no inverse document
// frequency (NoIdfSimilarity), so unreadable documents cannot shift the
// scores or order of readable ones either.
//
// Immutable once opened; any number of threads may search it at once. The last
// owner closes the reader.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "engine/hex.h"
#include "engine/result.h"
#include "index/clucene.h"
#include "index/doc_columns.h"
#include "index/search_index.h"
#include "index/search_text.h"

namespace buzz::index {

class SearchSnapshot {
 public:
  // Opens the directory's latest commit. `previous` (may be null) is the
  // snapshot before it and `added` what was added in between. Throws CLuceneError.
  static std::shared_ptr<const SearchSnapshot> open(lucene::store::Directory* directory,
                                                    const SearchSnapshot* previous,
                                                    std::span<const AddedDocument> added);
  ~SearchSnapshot();
  SearchSnapshot(const SearchSnapshot&) = delete;
  SearchSnapshot& operator=(const SearchSnapshot&) = delete;

  // Any thread; catches everything CLucene throws.
  engine::Result<SearchResult> search(const SearchQuery& query, const SearchText& text) const;

  // Whether a live document holds this event id. Throws CLuceneError.
  bool contains(const engine::Id& id) const;

  uint64_t size() const { return live_documents_; }
  // The largest created_at of any document, deleted ones included; 0 if none.
  uint64_t newest_created_at() const;
  // Whether the columns were carried over from the previous snapshot (for tests).
  bool columns_carried_over() const { return carried_over_; }

 private:
  SearchSnapshot(lucene::index::IndexReader* reader, DocColumns columns, bool carried_over);
  static DocColumns read_columns(lucene::index::IndexReader* reader);
  static bool carries_over(lucene::index::IndexReader* reader, const SearchSnapshot& previous,
                           std::span<const AddedDocument> added);
  // The documents in the query's channels (by its authors), or null if none.
  std::unique_ptr<lucene::util::BitSet> scope(const SearchQuery& query) const;

  lucene::index::IndexReader* reader_;
  std::unique_ptr<lucene::search::IndexSearcher> searcher_;
  DocColumns columns_;
  uint64_t live_documents_ = 0;
  bool carried_over_ = false;
};

}  // namespace buzz::index
