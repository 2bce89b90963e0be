// CLuceneSearchIndex: the embedded SearchIndex, a CLucene index in one
// directory (<data-dir>/search), in process.
//
// Writes go to an IndexWriter and become visible when commit() flushes them
// and opens a new SearchSnapshot (search_snapshot.h), which searches then share
// until the next one replaces it. The caller decides how often to commit (the
// SearchFeeder does every 250 ms while there are changes).
//
// Adds only ever append (an id already indexed is skipped: one id is one
// immutable event). Removals wait for the commit and are applied through a
// deleting IndexReader while the writer is briefly closed, because CLucene
// 2.3.3.4's writer leaks memory on every flush that carries deletions.
//
// Threads: add, remove, remove_channel, commit and clear are serialised by a
// writer lock (one writer thread is the intended use). search() and size() take
// the current snapshot under a short lock and run without one, concurrently with
// each other and with the writer. CLucene merges segments inside the writer
// calls, so a large merge delays the next commit, never a search.
//
// Crash safety: CLucene writes a new commit point on every flush and never
// changes an old one, so a crash loses at most what was added since the last
// commit; a write.lock left behind by a crash is stale (the data directory is
// single-process) and is removed at open.
#pragma once

#include <memory>
#include <string>

#include "index/search_index.h"

namespace buzz::index {

class CLuceneSearchIndex final : public SearchIndex {
 public:
  enum class OpenFor { kUse, kRebuild };
  // Opens the index in `directory`, creating the directory and an empty index
  // if needed. kRebuild starts it empty whatever it held; kUse refuses an index
  // in an older layout (document_ids.h), which only a rebuild can read.
  static engine::Result<std::unique_ptr<CLuceneSearchIndex>> open(const std::string& directory,
                                                                  OpenFor purpose = OpenFor::kUse);
  // Searches must have returned before the index is destroyed.
  ~CLuceneSearchIndex() override;
  CLuceneSearchIndex(const CLuceneSearchIndex&) = delete;
  CLuceneSearchIndex& operator=(const CLuceneSearchIndex&) = delete;

  engine::Status add(const engine::Event& event, std::string_view channel) override;
  engine::Status remove(const engine::Id& id) override;
  engine::Status remove_channel(std::string_view channel) override;
  engine::Status commit() override;
  engine::Status clear() override;
  engine::Result<SearchResult> search(const SearchQuery& query) const override;
  uint64_t size() const override;

  // How many commits carried the per-document columns over instead of reading
  // them back from the index (search_snapshot.h); for tests and benchmarks.
  uint64_t commits_carrying_columns() const;

 private:
  struct State;
  explicit CLuceneSearchIndex(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace buzz::index
