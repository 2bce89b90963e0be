// PgSearchIndex: full-text search over the live store's events table, so every
// node on one database searches the same documents (issue 17 §2). The words of
// an event's content are PostgreSQL's tsvector ('simple' configuration: lower
// case, no stemming) under a GIN index (pg_schema.cpp serve_schema_sql); the
// events table is the index, so add/remove/commit have nothing to do and a
// committed event is searchable at once.
//
// The permission filter is inside the one SQL statement, as SearchIndex
// requires: only rows in the caller's channels (and global ones when allowed)
// are matched, ranked, counted (total) and cut to the page.
//
// Differences from the CLucene index: the text matched is the content as
// stored (a 40002's JSON and a profile's JSON included, so their keys match
// too), and words split as PostgreSQL's parser splits them (no CJK bigrams).
#pragma once

#include "index/search_index.h"
#include "migrate/pg_thread_connections.h"

namespace buzz::migrate {

class PgSearchIndex final : public index::SearchIndex {
 public:
  explicit PgSearchIndex(PgThreadConnections& conns) : conns_(conns) {}

  engine::Status add(const engine::Event&, std::string_view) override { return {}; }
  engine::Status remove(const engine::Id&) override { return {}; }
  engine::Status remove_channel(std::string_view) override { return {}; }
  engine::Status commit() override { return {}; }
  engine::Status clear() override { return {}; }

  engine::Result<index::SearchResult> search(const index::SearchQuery& query) const override;
  uint64_t size() const override;

 private:
  PgThreadConnections& conns_;
};

}  // namespace buzz::migrate
