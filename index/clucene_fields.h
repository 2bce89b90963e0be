// How a SearchDocument (search_document.h) is laid out as CLucene fields.
// Only the id is stored: hits are re-read from the event store, and the values
// a search needs per document come from the postings (search_snapshot.h).
#pragma once

#include <cstdint>

namespace buzz::index {

inline const wchar_t* const kIdField = L"id";             // stored; the key of update and delete
inline const wchar_t* const kContentField = L"content";   // analyzed (search_analyzer.h), not stored
inline const wchar_t* const kKindField = L"kind";         // decimal
inline const wchar_t* const kPubkeyField = L"pubkey";     // 64 hex
inline const wchar_t* const kChannelField = L"channel_id";  // UUID or kGlobalChannel
// created_at is indexed as two terms, its high bits and its low kCreatedLowBits
// bits, so that reading the per-document created_at column back walks a few
// thousand terms instead of one per distinct second.
inline const wchar_t* const kCreatedHighField = L"created_at_hi";
inline const wchar_t* const kCreatedLowField = L"created_at_lo";
inline constexpr int kCreatedLowBits = 12;
inline constexpr uint64_t kCreatedLowMask = (uint64_t{1} << kCreatedLowBits) - 1;

}  // namespace buzz::index
