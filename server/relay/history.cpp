// History: the stored events a caller may read; see history.h.
//
// Security: the channels a caller may read (and its token may reach) go into
// the index query itself, so a private hit never counts, ranks or shows
// (index/search_index.h). Every hit is then re-read from the store and
// re-checked — live, still readable, and matching the rest of the filter —
// before it is returned, so an index that lags a deletion never resurrects it.
#include "server/relay/history.h"

#include <algorithm>
#include <unordered_map>

#include "server/access/read_access.h"

namespace buzz::server {

Readable History::readable_to(const Grant& grant, const engine::Pubkey& reader) const {
  return [this, &grant, reader, hex = engine::to_hex(reader)](const engine::EventFields& f) {
    return readable_by(f, team_, grant, reader, hex);
  };
}

index::SearchQuery History::search_scope(const engine::Pubkey& who, const Grant& grant) const {
  index::SearchQuery q;
  for (std::string& id : team_.readable_channels(who)) {
    if (grant.allows_channel(id)) q.channels.push_back(std::move(id));
  }
  // A channel-scoped token never sees global events through search (docs/reference/protocol.md §6.5).
  q.include_global = !grant.channel_restricted();
  return q;
}

std::vector<EventRow> History::search_hits(const index::SearchResult& result, engine::Filter rest,
                                             const Readable& readable) {
  std::vector<EventRow> out;
  if (result.hits.empty()) return out;
  rest.search.reset();
  rest.limit.reset();
  rest.ids.emplace();
  for (const index::SearchHit& h : result.hits) rest.ids->push_back(h.id);
  rest.normalize();
  std::unordered_map<engine::Id, EventRow, engine::KeyBytesHash> found;
  engine::QueryOptions opts;
  opts.limit = result.hits.size();
  opts.accept = readable;
  (void)store_.query(rest, opts, [&](std::string_view raw, const engine::EventFields& f) {
    const engine::Id id = engine::id_of(f);
    found.emplace(id, EventRow{id, std::string(raw), std::string(f.channel)});
  });
  for (const index::SearchHit& h : result.hits) {  // back in the index's order
    auto it = found.find(h.id);
    if (it != found.end()) out.push_back(std::move(it->second));
  }
  return out;
}

engine::Result<std::vector<EventRow>> History::rows(const engine::Filter& f, const engine::Pubkey& who,
                                                                  const Grant& grant, const Readable& readable) {
  std::vector<EventRow> rows;
  if (!f.search) {
    engine::QueryOptions opts;
    opts.accept = readable;
    engine::Status s = store_.query(f, opts, [&](std::string_view raw, const engine::EventFields& e) {
      rows.push_back({engine::id_of(e), std::string(raw), std::string(e.channel)});
    });
    if (!s) return engine::Error{"error: " + s.error()};
    return rows;
  }
  if (!search_) return engine::Error{"error: full-text search is not enabled on this relay"};
  // An empty search is skipped (docs/reference/protocol.md §9.8).
  if (f.search->find_first_not_of(" \t\r\n") == std::string::npos) return rows;
  index::SearchQuery q = search_scope(who, grant);
  q.text = *f.search;
  if (const engine::TagFilter* h = f.tag('h')) {  // #h narrows the scope, never widens it
    std::erase_if(q.channels, [&](const std::string& ch) {
      return std::find(h->values.begin(), h->values.end(), ch) == h->values.end();
    });
    q.include_global = false;
  }
  if (f.kinds) q.kinds = *f.kinds;
  if (f.authors) q.authors = *f.authors;
  q.since = f.since;
  q.until = f.until;
  q.limit = std::min<size_t>(f.limit.value_or(index::kMaxSearchLimit), index::kMaxSearchLimit);  // default = max = the cap
  auto result = search_->search(q);
  if (!result) return engine::Error{"invalid: " + result.error()};
  return search_hits(*result, f, readable);
}

}  // namespace buzz::server
