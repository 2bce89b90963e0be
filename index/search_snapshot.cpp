// One committed state of the CLucene index and the searches run on it; see
// search_snapshot.h.
#include "index/search_snapshot.h"

#include <algorithm>
#include <cmath>
#include <cwchar>
#include <limits>
#include <string>

#include "index/clucene_fields.h"
#include "index/document_ids.h"
#include "index/search_document.h"
#include "index/wide_text.h"

namespace buzz::index {
namespace {

using lucene::index::IndexReader;
using lucene::index::Term;
using lucene::search::BooleanClause;
using lucene::search::BooleanQuery;
using lucene::search::ConstantScoreQuery;
using lucene::search::PhraseQuery;
using lucene::search::Query;
using lucene::search::TermQuery;
using lucene::util::BitSet;

// Scores that depend only on the document and the query. With the default
// idf, documents the caller cannot read would change how rare a term looks,
// and so the scores and order of the ones it can. The rest is Lucene's
// DefaultSimilarity (written out: Debian's CLucene does not export its tf()).
class NoIdfSimilarity final : public lucene::search::Similarity {
 public:
  using lucene::search::Similarity::idf;
  using lucene::search::Similarity::tf;
  float_t idf(int32_t, int32_t) override { return 1.0f; }
  float_t tf(float_t freq) override { return std::sqrt(freq); }
  float_t lengthNorm(const TCHAR*, int32_t terms) override { return terms > 0 ? 1.0f / std::sqrt(float_t(terms)) : 0.0f; }
  float_t queryNorm(float_t sum_of_squares) override {
    return sum_of_squares > 0 ? 1.0f / std::sqrt(sum_of_squares) : 1.0f;
  }
  float_t sloppyFreq(int32_t distance) override { return 1.0f / float_t(distance + 1); }
  float_t coord(int32_t overlap, int32_t max_overlap) override { return float_t(overlap) / float_t(max_overlap); }
};

NoIdfSimilarity& no_idf_similarity() {
  static NoIdfSimilarity similarity;
  return similarity;
}

// Hands the bitset to CLucene's ConstantScorer, which deletes whatever bits()
// returns, so every call gets its own copy.
class ScopeFilter final : public lucene::search::Filter {
 public:
  explicit ScopeFilter(std::unique_ptr<BitSet> bits) : bits_(std::move(bits)) {}
  BitSet* bits(IndexReader*) override { return bits_->clone(); }
  bool shouldDeleteBitSet(const BitSet*) const override { return true; }
  Filter* clone() const override { return new ScopeFilter(std::unique_ptr<BitSet>(bits_->clone())); }
  TCHAR* toString() override {
    static constexpr wchar_t kName[] = L"scope";
    TCHAR* out = new TCHAR[std::size(kName)];  // CLucene frees it with delete[]
    std::wmemcpy(out, kName, std::size(kName));
    return out;
  }

 private:
  std::unique_ptr<BitSet> bits_;
};

Query* clause_query(const TextClause& clause) {
  if (clause.terms.size() == 1) return new TermQuery(make_term(kContentField, clause.terms[0].text).get());
  auto phrase = std::make_unique<PhraseQuery>();
  for (const QueryTerm& term : clause.terms) phrase->add(make_term(kContentField, term.text).get(), term.position);
  return phrase.release();
}

struct Candidate {
  float score;
  uint64_t created_at;
  int32_t doc;
};

// Best first: higher score (unless ordering by time), then newer, then added later.
struct Better {
  bool by_score;
  bool operator()(const Candidate& a, const Candidate& b) const {
    if (by_score && a.score != b.score) return a.score > b.score;
    if (a.created_at != b.created_at) return a.created_at > b.created_at;
    return a.doc > b.doc;
  }
};

// Sees every document that matches the text inside the channel scope: drops
// those outside the query's kinds and time range before counting them, counts
// the rest, and keeps the best `limit`.
//
// Selection is buffered: candidates better than the current threshold collect
// in a buffer of 2 × limit, which is cut back to the best `limit` (nth_element)
// when full. A heap would pay log(limit) for nearly every document when they
// arrive oldest first and ordering is by time, which is the usual case here.
class TopHits final : public lucene::search::HitCollector {
 public:
  TopHits(const SearchQuery& query, size_t limit, const DocColumns& columns)
      : limit_(limit),
        better_{query.order == SearchOrder::kRelevance},
        since_(query.since.value_or(0)),
        until_(query.until.value_or(std::numeric_limits<uint64_t>::max())),
        kinds_(query.kinds),
        narrowed_(query.since || query.until || !query.kinds.empty()),
        columns_(columns) {
    buffer_.reserve(2 * limit);
  }

  void collect(const int32_t doc, const float_t score) override {
    // By score, most documents lose to the threshold without a column read.
    if (full_ && better_.by_score && score < threshold_.score) {
      if (in_range(doc)) ++total_;
      return;
    }
    if (!in_range(doc)) return;
    ++total_;
    Candidate c{score, columns_.created_at(size_t(doc)), doc};
    if (full_ && !better_(c, threshold_)) return;
    buffer_.push_back(c);
    if (buffer_.size() == 2 * limit_) cut();
  }

  uint64_t total() const { return total_; }
  std::vector<Candidate> take_best_first() {
    if (buffer_.size() > limit_) cut();
    std::sort(buffer_.begin(), buffer_.end(), better_);
    return std::move(buffer_);
  }

 private:
  bool in_range(int32_t doc) const {
    if (!narrowed_) return true;
    uint64_t created_at = columns_.created_at(size_t(doc));
    if (created_at < since_ || created_at > until_) return false;
    return kinds_.empty() || std::find(kinds_.begin(), kinds_.end(), columns_.kind(size_t(doc))) != kinds_.end();
  }
  void cut() {
    std::nth_element(buffer_.begin(), buffer_.begin() + ptrdiff_t(limit_ - 1), buffer_.end(), better_);
    buffer_.resize(limit_);
    threshold_ = buffer_.back();
    full_ = true;
  }

  const size_t limit_;
  const Better better_;
  const uint64_t since_;
  const uint64_t until_;
  const std::vector<uint16_t>& kinds_;
  const bool narrowed_;  // by kinds or time at all
  const DocColumns& columns_;
  std::vector<Candidate> buffer_;
  Candidate threshold_{};  // the worst of the best `limit` so far, once full_
  bool full_ = false;
  uint64_t total_ = 0;
};

}  // namespace

std::shared_ptr<const SearchSnapshot> SearchSnapshot::open(lucene::store::Directory* directory,
                                                           const SearchSnapshot* previous,
                                                           std::span<const AddedDocument> added) {
  ReaderPtr reader(IndexReader::open(directory, /*closeDirectoryOnCleanup=*/false));
  bool carried_over = previous != nullptr && carries_over(reader.get(), *previous, added);
  DocColumns columns = carried_over ? previous->columns_.extended(added) : read_columns(reader.get());
  std::unique_ptr<SearchSnapshot> snapshot(new SearchSnapshot(reader.get(), std::move(columns), carried_over));
  reader.release();  // the snapshot closes it now
  return snapshot;
}

SearchSnapshot::SearchSnapshot(IndexReader* reader, DocColumns columns, bool carried_over)
    : reader_(reader),
      searcher_(std::make_unique<lucene::search::IndexSearcher>(reader)),
      columns_(std::move(columns)),
      live_documents_(uint64_t(reader->numDocs())),
      carried_over_(carried_over) {
  searcher_->setSimilarity(&no_idf_similarity());
}

SearchSnapshot::~SearchSnapshot() {
  try {
    searcher_->close();  // leaves the reader open: the searcher does not own it
  } catch (...) {
  }
  searcher_.reset();
  CloseAndDelete{}(reader_);
}

DocColumns SearchSnapshot::read_columns(IndexReader* reader) {
  const size_t max_doc = size_t(reader->maxDoc());
  std::vector<uint64_t> created_at(max_doc, 0);
  std::vector<uint16_t> kind(max_doc, 0);
  // Calls apply(doc, value) for every live document with a term in `field`.
  auto walk = [&](const wchar_t* field, auto apply) {
    TermPtr first = make_term(field, L"");
    TermEnumPtr terms(reader->terms(first.get()));
    TermDocsPtr docs(reader->termDocs());
    for (Term* t = terms->term(false); t != nullptr && std::wcscmp(t->field(), field) == 0;
         t = terms->next() ? terms->term(false) : nullptr) {
      uint64_t value = std::wcstoull(t->text(), nullptr, 10);
      docs->seek(terms.get());
      for_each_posting(docs.get(), [&](int32_t doc) { apply(size_t(doc), value); });
    }
  };
  walk(kCreatedHighField, [&](size_t doc, uint64_t high) { created_at[doc] |= high << kCreatedLowBits; });
  walk(kCreatedLowField, [&](size_t doc, uint64_t low) { created_at[doc] |= low; });
  walk(kKindField, [&](size_t doc, uint64_t value) { kind[doc] = uint16_t(value); });
  return DocColumns(created_at, kind);
}

bool SearchSnapshot::carries_over(IndexReader* reader, const SearchSnapshot& previous,
                                  std::span<const AddedDocument> added) {
  const size_t before = previous.columns_.size();
  if (size_t(reader->maxDoc()) != before + added.size()) return false;  // a merge purged deleted documents
  if (added.empty()) return true;
  // The newest added document still live must be where add order puts it.
  for (size_t i = added.size(); i-- > 0;) {
    int32_t doc = int32_t(before + i);
    if (reader->isDeleted(doc)) continue;
    lucene::document::Document stored;
    reader->document(doc, stored);
    const TCHAR* id = stored.get(kIdField);
    return id != nullptr && wide_to_ascii(id) == engine::to_hex(added[i].id);
  }
  return false;  // everything added was deleted again: nothing to check against
}

bool SearchSnapshot::contains(const engine::Id& id) const {
  bool found = false;
  for_each_document_with_id(reader_, id, [&](int32_t) { found = true; });
  return found;
}

uint64_t SearchSnapshot::newest_created_at() const {
  uint64_t newest = 0;
  for (size_t doc = 0; doc < columns_.size(); ++doc) newest = std::max(newest, columns_.created_at(doc));
  return newest;
}

std::unique_ptr<BitSet> SearchSnapshot::scope(const SearchQuery& query) const {
  const int32_t max_doc = int32_t(columns_.size());
  if (max_doc == 0) return nullptr;
  TermDocsPtr docs(reader_->termDocs());

  std::unique_ptr<BitSet> by_author;
  if (!query.authors.empty()) {
    by_author = std::make_unique<BitSet>(max_doc);
    for (const engine::Pubkey& author : query.authors) {
      docs->seek(make_term(kPubkeyField, ascii_to_wide(engine::to_hex(author))).get());
      for_each_posting(docs.get(), [&](int32_t doc) { by_author->set(doc); });
    }
  }
  auto bits = std::make_unique<BitSet>(max_doc);
  bool any = false;
  auto add_channel = [&](const std::wstring& channel) {
    docs->seek(make_term(kChannelField, channel).get());
    for_each_posting(docs.get(), [&](int32_t doc) {
      if (by_author && !by_author->get(doc)) return;
      bits->set(doc);
      any = true;
    });
  };
  for (const std::string& channel : query.channels) {
    // The global marker is never a channel id; global events come only through include_global.
    if (!channel.empty() && channel != kGlobalChannel) add_channel(utf8_to_wide(channel));
  }
  if (query.include_global) add_channel(ascii_to_wide(kGlobalChannel));
  return any ? std::move(bits) : nullptr;
}

engine::Result<SearchResult> SearchSnapshot::search(const SearchQuery& query, const SearchText& text) const {
  try {
    SearchResult result;
    if (!text.match_all && text.clauses.empty()) return result;  // only stop words or punctuation
    std::unique_ptr<BitSet> in_scope = scope(query);
    if (!in_scope) return result;

    // The scope is a required clause, so the text is matched only inside it.
    std::unique_ptr<Query> root;
    auto scope_query = std::make_unique<ConstantScoreQuery>(new ScopeFilter(std::move(in_scope)));
    if (text.match_all) {
      root = std::move(scope_query);
    } else {
      auto all = std::make_unique<BooleanQuery>();
      for (const TextClause& clause : text.clauses) all->add(clause_query(clause), true, BooleanClause::MUST);
      scope_query->setBoost(0);  // it restricts; it adds nothing to the score
      all->add(scope_query.release(), true, BooleanClause::MUST);
      root = std::move(all);
    }

    TopHits top(query, std::clamp<size_t>(query.limit, 1, kMaxSearchLimit), columns_);
    searcher_->_search(root.get(), nullptr, &top);
    result.total = top.total();
    for (const Candidate& c : top.take_best_first()) {
      lucene::document::Document stored;
      reader_->document(c.doc, stored);
      const TCHAR* id = stored.get(kIdField);
      SearchHit hit;
      hit.score = c.score;
      hit.created_at = c.created_at;
      if (id == nullptr || !engine::from_hex(wide_to_ascii(id), &hit.id)) {
        return engine::Error{"error: search index holds a document without a valid id"};
      }
      result.hits.push_back(hit);
    }
    return result;
  } catch (CLuceneError& e) {
    return engine::Error{std::string("error: search failed: ") + e.what()};
  } catch (const std::exception& e) {
    return engine::Error{std::string("error: search failed: ") + e.what()};
  }
}

}  // namespace buzz::index
