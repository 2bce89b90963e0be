// The one place index/ includes CLucene (2.3.3.4, Debian's libclucene-dev).
//
// CLucene is wchar_t-based, reports failures by throwing CLuceneError, and its
// headers trip C++20 warnings (-Wdeprecated-enum-enum-conversion and friends);
// all three stay inside index/: the warnings are silenced here, and every
// CLucene call is wrapped so that no exception crosses the SearchIndex interface.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-enum-enum-conversion"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <CLucene.h>
#include <CLucene/analysis/standard/StandardFilter.h>
#include <CLucene/analysis/standard/StandardTokenizer.h>
#include <CLucene/search/ConstantScoreQuery.h>
#include <CLucene/store/FSDirectory.h>
#include <CLucene/util/BitSet.h>
#pragma GCC diagnostic pop

#include <memory>
#include <string>

namespace buzz::index {

// Field flags are separate enums that CLucene expects OR-ed into an int; doing
// it here keeps C++20's enum-enum warning out of the calling code.
template <class... Flags>
constexpr int field_flags(Flags... flags) {
  return (int(flags) | ...);
}

// Owners for what CLucene hands out: terms are reference-counted, cursors and
// readers are closed (a reader's close commits its deletions) and deleted.
struct TermRelease {
  void operator()(lucene::index::Term* t) const { _CLDECDELETE(t); }
};
using TermPtr = std::unique_ptr<lucene::index::Term, TermRelease>;

inline TermPtr make_term(const wchar_t* field, const std::wstring& text) {
  return TermPtr(new lucene::index::Term(field, text.c_str()));
}

struct CloseAndDelete {
  template <class T>
  void operator()(T* p) const {
    try {
      p->close();
    } catch (...) {  // destruction cannot report; where it matters, close() is called first
    }
    delete p;
  }
};
using TermDocsPtr = std::unique_ptr<lucene::index::TermDocs, CloseAndDelete>;
using TermEnumPtr = std::unique_ptr<lucene::index::TermEnum, CloseAndDelete>;
using ReaderPtr = std::unique_ptr<lucene::index::IndexReader, CloseAndDelete>;

// Calls visit(doc) for each document of the term `docs` was sought to.
template <class Visit>
void for_each_posting(lucene::index::TermDocs* docs, Visit&& visit) {
  constexpr int32_t kBatch = 128;
  int32_t numbers[kBatch];
  int32_t freqs[kBatch];
  for (int32_t n; (n = docs->read(numbers, freqs, kBatch)) > 0;) {
    for (int32_t i = 0; i < n; ++i) visit(numbers[i]);
  }
}

}  // namespace buzz::index
