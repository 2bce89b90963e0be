// A NIP-01 filter as SQL conditions over the upstream `events` table (alias e).
// The conditions narrow the candidates with the table's indexes (and the tags
// GIN index the live store adds); every row is still checked with
// Filter::matches, which alone decides, exactly as in the embedded store.
#pragma once

#include <string>
#include <vector>

#include "engine/filter.h"

namespace buzz::migrate {

// A statement's text parameters, numbered as they are added.
class PgParams {
 public:
  // The placeholder ("$n") of a new parameter.
  std::string add(std::string value) {
    values_.push_back(std::move(value));
    return "$" + std::to_string(values_.size());
  }
  const std::vector<std::string>& values() const { return values_; }

 private:
  std::vector<std::string> values_;
};

// "cond AND cond …" (at least "e.deleted_at IS NULL").
std::string filter_conditions(const engine::Filter& f, PgParams& params);

// The event columns every reader selects, in EventColumns order, then the
// channel and the exact bytes when kept: from events e LEFT JOIN buzz_event_raw r.
inline constexpr const char* kEventSelect =
    "SELECT encode(e.id, 'hex'), encode(e.pubkey, 'hex'), extract(epoch from e.created_at)::bigint, e.kind, "
    "e.tags::text, e.content, encode(e.sig, 'hex'), e.channel_id::text, r.raw, e.deleted_at IS NOT NULL "
    "FROM events e LEFT JOIN buzz_event_raw r ON r.id = e.id";

}  // namespace buzz::migrate
