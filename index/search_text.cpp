// Query text parsing; see search_text.h.
#include "index/search_text.h"

#include <string>

#include "index/search_index.h"
#include "index/wide_text.h"

namespace buzz::index {
namespace {

bool is_space(wchar_t c) {
  return c == L' ' || c == L'\t' || c == L'\n' || c == L'\r' || c == L'\f' || c == L'\v' || c == 0xA0 || c == 0x3000;
}

std::wstring_view trim(std::wstring_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool same_terms(const TextClause& a, const TextClause& b) {
  if (a.terms.size() != b.terms.size()) return false;
  for (size_t i = 0; i < a.terms.size(); ++i) {
    if (a.terms[i].text != b.terms[i].text || a.terms[i].position != b.terms[i].position) return false;
  }
  return true;
}

}  // namespace

engine::Result<SearchText> parse_search_text(std::string_view text) {
  if (text.size() > kMaxSearchTextBytes) {
    return engine::Error{"invalid: search query too long (max " + std::to_string(kMaxSearchTextBytes) + " bytes)"};
  }
  std::wstring wide = utf8_to_wide(text);
  std::wstring_view rest = trim(wide);
  SearchText out;
  if (rest.empty() || rest == L"*") {
    out.match_all = true;
    return out;
  }

  size_t term_count = 0;
  auto add_clause = [&](std::wstring_view piece) {
    TextClause clause{analyze_query_text(piece)};
    if (clause.terms.empty()) return;
    for (const TextClause& seen : out.clauses) {
      if (same_terms(seen, clause)) return;
    }
    term_count += clause.terms.size();
    out.clauses.push_back(std::move(clause));
  };
  while (!rest.empty()) {
    if (rest.front() == L'"') {
      rest.remove_prefix(1);
      size_t close = rest.find(L'"');
      add_clause(rest.substr(0, close));
      rest.remove_prefix(close == std::wstring_view::npos ? rest.size() : close + 1);
    } else {
      size_t end = 0;
      while (end < rest.size() && !is_space(rest[end]) && rest[end] != L'"') ++end;
      add_clause(rest.substr(0, end));
      rest.remove_prefix(end);
    }
    rest = trim(rest);
  }
  if (term_count > kMaxSearchTerms) {
    return engine::Error{"invalid: search query has too many terms (max " + std::to_string(kMaxSearchTerms) + ")"};
  }
  return out;
}

}  // namespace buzz::index
