// The store with banned events screened out; see banned_events_store.h.
#include "server/access/banned_events_store.h"

namespace buzz::server {

using engine::id_of;

engine::QueryOptions BannedEventsStore::screened(const engine::QueryOptions& options) const {
  if (!policy_.events_banned()) return options;
  engine::QueryOptions out = options;
  out.accept = [this, accept = options.accept](const engine::EventFields& f) {
    return !policy_.event_banned(id_of(f)) && (!accept || accept(f));
  };
  return out;
}

engine::Status BannedEventsStore::scan_kind(uint16_t kind, const engine::EventSink& sink) {
  if (!policy_.events_banned()) return store_.scan_kind(kind, sink);
  return store_.scan_kind(kind, [&](std::string_view raw, const engine::EventFields& f) {
    if (!policy_.event_banned(id_of(f))) sink(raw, f);
  });
}

std::optional<engine::StoredEvent> BannedEventsStore::lookup(const engine::Id& id) {
  std::optional<engine::StoredEvent> found = store_.lookup(id);
  if (found && policy_.event_banned(id)) found->deleted = true;  // a banned event answers as a deleted one
  return found;
}

}  // namespace buzz::server
