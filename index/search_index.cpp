// What every SearchIndex shares; see search_index.h.
#include "index/search_index.h"

#include "index/search_document.h"

namespace buzz::index {

engine::Result<uint64_t> rebuild(SearchIndex& index, const EventScan& scan) {
  if (engine::Status s = index.clear(); !s) return engine::Error{s.error()};
  uint64_t indexed = 0;
  engine::Status status;
  scan([&](const engine::Event& event, std::string_view channel) {
    if (!status || !is_searchable_kind(event.kind)) return;  // after a failure, skip the rest
    status = index.add(event, channel);
    if (status) ++indexed;
  });
  if (!status) return engine::Error{status.error()};
  if (engine::Status s = index.commit(); !s) return engine::Error{s.error()};
  return indexed;
}

}  // namespace buzz::index
