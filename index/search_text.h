// SearchText: the user's query text turned into something safe to run.
//
// Query text is hostile input. Nothing in it is syntax except double quotes:
// each whitespace-separated word must appear, "quoted text" must appear as
// written, and a word the analyzer splits into several terms ("e-mail", a run
// of CJK characters) must appear as that sequence. Field names, wildcards,
// operators and brackets are just characters (mostly dropped by the analyzer);
// invalid UTF-8 is replaced; an unbalanced quote runs to the end. Only size is
// refused, with a reason, never cut silently.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "engine/result.h"
#include "index/search_analyzer.h"

namespace buzz::index {

// Terms across all clauses; far below CLucene's 1024-clause limit.
inline constexpr size_t kMaxSearchTerms = 64;

// One required match: a single term, or a phrase of terms at their positions.
struct TextClause {
  std::vector<QueryTerm> terms;
};

struct SearchText {
  bool match_all = false;           // empty text or "*": everything in scope
  std::vector<TextClause> clauses;  // all required; none and !match_all = matches nothing
};

engine::Result<SearchText> parse_search_text(std::string_view text);

}  // namespace buzz::index
