// SearchIndex: full-text search over message-like events (docs/reference/rest-api.md §3.6,
// NIP-50 in docs/reference/protocol.md §9.8). The embedded CLucene index is the default
// (clucene_search_index.h); a Typesense backend in migrate/ will implement the
// same interface over the same documents (search_document.h).
//
// Invariant (security): a query names the channels its caller may read, and an
// implementation restricts matching to them inside the search itself, before
// anything is counted, ranked or cut to a page. A document the caller cannot
// read must not change the result in any way: not its hits, not their order or
// scores, not `total`.
//
// Threads: the writer side (add, remove, remove_channel, commit, clear) is used
// by one thread at a time (the SearchFeeder's worker, or a rebuild); search()
// and size() may run on any thread, concurrently with each other and with the
// writer. Nothing throws: failures come back as values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/event.h"
#include "engine/result.h"

namespace buzz::index {

inline constexpr size_t kDefaultSearchLimit = 20;
// NIP-50's cap (the historical cap, docs/reference/protocol.md §9.8); REST clamps to 100 itself.
inline constexpr size_t kMaxSearchLimit = 500;
// Longer query texts are refused rather than cut, so a query never means less than it says.
inline constexpr size_t kMaxSearchTextBytes = 1024;

enum class SearchOrder : uint8_t {
  kRelevance,  // best match first, ties newest first (NIP-50)
  kNewest,     // newest first among the matches (REST: sort_by=created_at:desc)
};

struct SearchQuery {
  // What the user typed. Empty or "*" matches every document in scope. Words
  // must all appear (any order); "quoted text" must appear as written. Other
  // query syntax (field:, wildcards, operators) is not interpreted: it is text.
  std::string text;
  std::vector<std::string> channels;  // canonical channel UUIDs the caller may read
  bool include_global = false;        // also events without a channel
  std::vector<uint16_t> kinds;        // empty = every searchable kind
  std::vector<engine::Pubkey> authors;  // empty = any author
  std::optional<uint64_t> since;      // created_at >= since
  std::optional<uint64_t> until;      // created_at <= until
  size_t limit = kDefaultSearchLimit;  // clamped to [1, kMaxSearchLimit]
  SearchOrder order = SearchOrder::kRelevance;
};

struct SearchHit {
  engine::Id id{};
  float score = 0;  // relevance; comparable only within one result
  uint64_t created_at = 0;
};

struct SearchResult {
  std::vector<SearchHit> hits;  // at most `limit`, in the query's order
  uint64_t total = 0;           // every match in the caller's scope, not only this page
};

class SearchIndex {
 public:
  virtual ~SearchIndex() = default;

  // Indexes (or replaces, by event id) the event's document; `channel` is its
  // canonical channel id, empty for a global event. Events of kinds that are not
  // searchable (search_document.h) are ignored. Visible to search after commit().
  virtual engine::Status add(const engine::Event& event, std::string_view channel) = 0;
  // Drops the document of one event (deleted or superseded); unknown ids are fine.
  virtual engine::Status remove(const engine::Id& id) = 0;
  // Drops every document of a deleted channel.
  virtual engine::Status remove_channel(std::string_view channel) = 0;
  // Makes everything added or removed so far visible to search().
  virtual engine::Status commit() = 0;
  // Drops every document (the first step of a rebuild); visible after commit().
  virtual engine::Status clear() = 0;

  virtual engine::Result<SearchResult> search(const SearchQuery& query) const = 0;
  // Documents visible to search().
  virtual uint64_t size() const = 0;
};

// Hands every event to index, e.g. from a store scan: visit(event, channel).
using EventScan = std::function<void(const std::function<void(const engine::Event&, std::string_view channel)>& visit)>;

// Replaces the whole index with what `scan` yields: clear, add each, commit.
// Returns the number of documents indexed. Searches meanwhile may see a partial
// index. Runs on the caller's thread, as the index's writer.
engine::Result<uint64_t> rebuild(SearchIndex& index, const EventScan& scan);

}  // namespace buzz::index
