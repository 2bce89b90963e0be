// Fuzz target: the search box (GET /api/search?q=, NIP-50 "search" filters).
//
// Query text is hostile input that reaches CLucene; parse_search_text must
// turn any bytes into bounded, non-empty terms or refuse them with a reason.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "index/search_text.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = buzz::index::parse_search_text(text);
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().empty());
    return 0;
  }
  size_t terms = 0;
  for (const auto& clause : parsed->clauses) {
    FUZZ_CHECK(!clause.terms.empty());
    for (const auto& term : clause.terms) FUZZ_CHECK(!term.text.empty());
    terms += clause.terms.size();
  }
  FUZZ_CHECK(terms <= buzz::index::kMaxSearchTerms);
  if (parsed->match_all) FUZZ_CHECK(parsed->clauses.empty());
  return 0;
}
