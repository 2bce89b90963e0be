// The analysis chain shared by indexing and querying; see search_analyzer.h.
#include "index/search_analyzer.h"

namespace buzz::index {
namespace {

using lucene::analysis::LowerCaseFilter;
using lucene::analysis::StopAnalyzer;
using lucene::analysis::StopFilter;
using lucene::analysis::Token;
using lucene::analysis::TokenStream;
using lucene::analysis::standard::StandardFilter;
using lucene::analysis::standard::StandardTokenizer;
using lucene::util::BufferedReader;
using lucene::util::FilteredBufferedReader;
using lucene::util::Reader;

// Han, kana and Hangul: the scripts written without spaces between words (the
// set Lucene's CJKBigramFilter pairs up).
bool is_cjk(wchar_t c) {
  auto in = [c](char32_t lo, char32_t hi) { return char32_t(c) >= lo && char32_t(c) <= hi; };
  return in(0x1100, 0x11FF)      // Hangul Jamo
         || in(0x3040, 0x30FF)   // Hiragana, Katakana
         || in(0x3130, 0x318F)   // Hangul compatibility Jamo
         || in(0x31F0, 0x31FF)   // Katakana phonetic extensions
         || in(0x3400, 0x4DBF)   // Han extension A
         || in(0x4E00, 0x9FFF)   // Han
         || in(0xAC00, 0xD7AF)   // Hangul syllables
         || in(0xF900, 0xFAFF)   // Han compatibility
         || in(0xFF66, 0xFF9F)   // halfwidth Katakana
         || in(0x20000, 0x2FA1F);  // Han extensions B and later
}

// The English stop words as the set StopFilter looks tokens up in, built once:
// handing StopFilter the word list instead rebuilds the set (33 inserts) for
// every document. Never freed; StopFilter only reads it, so threads share it.
lucene::analysis::CLTCSetList* english_stop_words() {
  static lucene::analysis::CLTCSetList* const words = [] {
    auto* set = new lucene::analysis::CLTCSetList(/*deleteValue=*/false);  // the words are CLucene's static strings
    StopFilter::fillStopTable(set, StopAnalyzer::ENGLISH_STOP_WORDS);
    return set;
  }();
  return words;
}

}  // namespace

SearchTokenStream::SearchTokenStream(Reader* input, CjkTerms mode) : mode_(mode), tokenizer_(nullptr) {
  reset(input);
}

SearchTokenStream::~SearchTokenStream() = default;

// A fresh chain per input: cheap next to indexing a document, and it relies on
// no CLucene reset semantics.
void SearchTokenStream::reset(Reader* input) {
  chain_.reset();
  BufferedReader* buffered = input->__asBufferedReader();
  tokenizer_ = buffered ? new StandardTokenizer(buffered)
                        : new StandardTokenizer(new FilteredBufferedReader(input, false), /*deleteReader=*/true);
  TokenStream* stream = tokenizer_;
  stream = new StandardFilter(stream, true);
  stream = new LowerCaseFilter(stream, true);
  stream = new StopFilter(stream, true, english_stop_words());
  chain_.reset(stream);
  pieces_.clear();
  next_piece_ = 0;
}

void SearchTokenStream::close() {
  if (chain_) chain_->close();
}

Token* SearchTokenStream::next(Token* token) {
  while (next_piece_ == pieces_.size()) {
    pieces_.clear();
    next_piece_ = 0;
    if (chain_->next(token) == nullptr) return nullptr;
    const wchar_t* text = token->termBuffer();
    size_t length = token->termLength();
    bool has_cjk = false;
    for (size_t i = 0; i < length && !has_cjk; ++i) has_cjk = is_cjk(text[i]);
    if (!has_cjk) return token;
    split_cjk(text, length, token->getPositionIncrement());
  }
  const Piece& piece = pieces_[next_piece_++];
  token->setText(piece.text.c_str(), int32_t(piece.text.size()));
  token->setPositionIncrement(piece.position_increment);
  return token;
}

// Non-CJK stretches stay whole; a CJK run c1..cn becomes
//   index: c1 c1c2 c2 c2c3 … cn   (each pair at its first character's position)
//   query: c1c2 c2c3 …            (or c1 alone when n = 1)
void SearchTokenStream::split_cjk(const wchar_t* text, size_t length, int32_t position_increment) {
  int32_t increment = position_increment;  // for the first piece; 1 after it
  auto emit = [&](std::wstring piece, bool same_position) {
    pieces_.push_back({std::move(piece), same_position ? 0 : increment});
    if (!same_position) increment = 1;
  };
  size_t i = 0;
  while (i < length) {
    size_t end = i;
    bool cjk = is_cjk(text[i]);
    while (end < length && is_cjk(text[end]) == cjk) ++end;
    if (!cjk) {
      emit(std::wstring(text + i, end - i), false);
    } else if (end - i == 1) {
      emit(std::wstring(1, text[i]), false);
    } else {
      for (size_t k = i; k + 1 < end; ++k) {
        if (mode_ == CjkTerms::kIndex) emit(std::wstring(1, text[k]), false);
        emit(std::wstring(text + k, 2), mode_ == CjkTerms::kIndex);
      }
      if (mode_ == CjkTerms::kIndex) emit(std::wstring(1, text[end - 1]), false);
    }
    i = end;
  }
}

SearchAnalyzer::SearchAnalyzer() = default;
SearchAnalyzer::~SearchAnalyzer() = default;

TokenStream* SearchAnalyzer::tokenStream(const TCHAR*, Reader* input) {
  return new SearchTokenStream(input, CjkTerms::kIndex);
}

TokenStream* SearchAnalyzer::reusableTokenStream(const TCHAR*, Reader* input) {
  if (reusable_) {
    reusable_->reset(input);
  } else {
    reusable_ = std::make_unique<SearchTokenStream>(input, CjkTerms::kIndex);
  }
  return reusable_.get();
}

std::vector<QueryTerm> analyze_query_text(std::wstring_view text) {
  std::wstring copy(text);  // StringReader reads up to a NUL; wide_text.h never produces one
  lucene::util::StringReader reader(copy.c_str(), int32_t(copy.size()), /*copyData=*/false);
  SearchTokenStream stream(&reader, CjkTerms::kQuery);
  std::vector<QueryTerm> terms;
  Token token;
  int32_t position = -1;
  while (stream.next(&token) != nullptr) {
    position += terms.empty() ? 1 : token.getPositionIncrement();
    terms.push_back({std::wstring(token.termBuffer(), token.termLength()), position});
  }
  stream.close();
  return terms;
}

}  // namespace buzz::index
