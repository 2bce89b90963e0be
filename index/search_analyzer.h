// How text becomes search terms, the same way at index time and at query time.
//
// CLucene's StandardAnalyzer chain (StandardTokenizer, StandardFilter,
// lowercase, English stop words) keeps a run of CJK characters as one token, so
// "東京" would never find "東京都に住んでいます". CjkTerms splits such runs the
// way Lucene's CJKBigramFilter does: at index time every character and every
// adjacent pair (the pair at the position of its first character); at query
// time the pairs alone (a lone character stays itself), which match the index
// as a phrase.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "index/clucene.h"

namespace buzz::index {

enum class CjkTerms : uint8_t {
  kIndex,  // characters and pairs, for documents
  kQuery,  // pairs only (or the single character), for query text
};

// The analysis chain as one CLucene TokenStream that can be reset onto new input.
class SearchTokenStream final : public lucene::analysis::TokenStream {
 public:
  SearchTokenStream(lucene::util::Reader* input, CjkTerms mode);
  ~SearchTokenStream() override;

  lucene::analysis::Token* next(lucene::analysis::Token* token) override;
  void close() override;
  // Starts over on new input.
  void reset(lucene::util::Reader* input);
  using lucene::analysis::TokenStream::reset;  // the no-argument one stays callable (clang's -Woverloaded-virtual)

 private:
  struct Piece {
    std::wstring text;
    int32_t position_increment;
  };
  // Splits a token containing CJK characters into pieces_.
  void split_cjk(const wchar_t* text, size_t length, int32_t position_increment);

  const CjkTerms mode_;
  lucene::analysis::standard::StandardTokenizer* tokenizer_;  // owned by chain_
  std::unique_ptr<lucene::analysis::TokenStream> chain_;
  std::vector<Piece> pieces_;  // pending output of a split token
  size_t next_piece_ = 0;
};

// The analyzer the IndexWriter runs over the content field (CjkTerms::kIndex).
// reusableTokenStream() keeps one stream, so it serves one thread at a time:
// the index writer, which runs under the index's writer lock.
class SearchAnalyzer final : public lucene::analysis::Analyzer {
 public:
  SearchAnalyzer();
  ~SearchAnalyzer() override;
  lucene::analysis::TokenStream* tokenStream(const TCHAR* field, lucene::util::Reader* input) override;
  lucene::analysis::TokenStream* reusableTokenStream(const TCHAR* field, lucene::util::Reader* input) override;

 private:
  std::unique_ptr<SearchTokenStream> reusable_;
};

struct QueryTerm {
  std::wstring text;
  int32_t position;  // relative to the first term of the same text
};

// The terms of one piece of query text (CjkTerms::kQuery), with positions that
// a PhraseQuery can match against the indexed positions.
std::vector<QueryTerm> analyze_query_text(std::wstring_view text);

}  // namespace buzz::index
