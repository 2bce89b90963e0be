// NIP-01 subscription filters (docs/reference/protocol.md §9.2).
//
// One Filter::matches decides both the history replay (on fields decoded from
// the store) and the live fan-out (on fields of the new event), so the two can
// never disagree. Absent fields match everything; an empty list matches nothing.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/event.h"
#include "engine/result.h"

namespace buzz::engine {

struct TagFilter {
  char name;                        // the letter after '#', case-sensitive
  std::vector<std::string> values;  // sorted, deduplicated
};

struct Filter {
  std::optional<std::vector<Id>> ids;          // sorted
  std::optional<std::vector<Pubkey>> authors;  // sorted
  std::optional<std::vector<uint16_t>> kinds;  // sorted, deduplicated
  std::vector<TagFilter> tags;                 // sorted by name
  std::optional<uint64_t> since;               // inclusive
  std::optional<uint64_t> until;               // inclusive
  std::optional<uint64_t> limit;
  std::optional<std::string> search;           // NIP-50

  bool matches(const EventFields& e) const;
  // Establishes the invariants above; a filter built by hand calls it once.
  void normalize();

  // How many values the filter lists (ids, authors, kinds, tag values), plus
  // one for the filter itself: what keeping it as a live subscription costs.
  size_t value_count() const;

  // True when the filter can never match anything (an empty list somewhere).
  bool matches_nothing() const;
  const TagFilter* tag(char name) const;
  bool has_kind(uint16_t kind) const;
};

// Parses one filter object; the error text follows "invalid filter: ".
Result<Filter> parse_filter(simdjson::dom::element value);

// Parses a filter from JSON text (tools and tests).
Result<Filter> parse_filter_json(std::string_view json);

}  // namespace buzz::engine
