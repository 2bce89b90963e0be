// NIP-01 canonical serialization and the event id.
//
// id = SHA-256 of [0,"<pubkey>",<created_at>,<kind>,<tags>,"<content>"] written
// compactly with serde_json's escaping (docs/reference/protocol.md §2.2). Any difference in
// escaping changes the id, so this file is the one place that escapes strings
// for hashing and for events the relay writes itself.
#pragma once

#include <string>
#include <string_view>

#include "engine/event.h"

namespace buzz::engine {

// Appends s as a JSON string literal, escaped exactly as serde_json does.
void append_json_string(std::string& out, std::string_view s);

// Appends the tags as a compact JSON array of arrays.
void append_json_tags(std::string& out, const std::vector<Tag>& tags);

// Writes the canonical array into out (cleared first).
void canonical_serialization(const Event& e, std::string& out);

// SHA-256 of the canonical serialization.
Id compute_id(const Event& e);

void sha256(const void* data, size_t len, uint8_t out[32]);

// SHA-256 of the bytes as lowercase hex.
std::string sha256_hex(std::string_view bytes);

}  // namespace buzz::engine
