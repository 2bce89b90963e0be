// How a SearchDocument (search_document.h) is laid out as CLucene fields.
// Only the id is stored: hits are re-read from the event store, and the values
// a search needs per document come from the postings (search_snapshot.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace buzz::index {

inline const wchar_t* const kIdField = L"id";             // stored, not indexed: read back for hits
// The id's first kIdBucketDigits hex digits, indexed: a document is found by its
// id through its bucket's postings and their stored ids (document_ids.h). A term
// per id cost a quarter of every add, and a term-index entry in memory per 128
// documents.
inline const wchar_t* const kIdBucketField = L"id_bucket";
inline constexpr size_t kIdBucketDigits = 4;  // 65,536 buckets: ~15 documents each per million
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
