// SearchDocument: what a search backend holds for one event, the same for
// every backend (the Typesense schema of docs/reference/compat-backends.md §4.2–4.3), so that
// backends are interchangeable and a rebuild from the store gives the same index.
//
// Searchable kinds are the message-like ones (docs/reference/rest-api.md §3.6, Buzz decision):
//   9 stream message, 40002 rich message, 40003 edit (searchable as its own
//   document, docs/reference/channels.md §8: the original stays searchable too), 40008 diff,
//   45001 forum post, 45003 forum comment, 1 note, 30023 article, 0 profile.
// Never: 1059 gift wraps and 30622 (ciphertext / private state), 30078 read
// state, and every other state, command or signalling kind.
// Replaceable and addressable kinds (0, 30023) keep one document per version:
// the owner removes the superseded ids the store reports (WriteResult::removed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/event.h"

namespace buzz::index {

// The channel_id of an event without a channel (Typesense's `__global__`).
inline constexpr std::string_view kGlobalChannel = "__global__";

bool is_searchable_kind(uint16_t kind);

struct SearchDocument {
  std::string id;          // event id, 64 lowercase hex
  std::string content;     // the text that is matched (see searchable_text)
  uint16_t kind = 0;
  std::string pubkey;      // author, 64 lowercase hex
  std::string channel_id;  // canonical channel UUID, or kGlobalChannel
  uint64_t created_at = 0;
  // No tags_flat: no SearchQuery reads tags yet (the Typesense export writes
  // them, migrate/typesense_export.cpp). Add them with the first that does.
};

// The text a reader searches for: the content, except that a kind-0 profile
// adds its display_name, name and nip05 (docs/reference/compat-backends.md §4.3) and a 40002
// rich message contributes its `text` field rather than its JSON.
std::string searchable_text(const engine::Event& event);

// nullopt for kinds that are not searchable.
std::optional<SearchDocument> make_search_document(const engine::Event& event, std::string_view channel);

}  // namespace buzz::index
