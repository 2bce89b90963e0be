// The embedded CLucene SearchIndex; see clucene_search_index.h.
#include "index/clucene_search_index.h"

#include <array>
#include <atomic>
#include <filesystem>
#include <exception>
#include <mutex>
#include <optional>
#include <unordered_set>
#include <vector>

#include "index/clucene.h"
#include "index/clucene_fields.h"
#include "index/document_ids.h"
#include "index/id_filter.h"
#include "index/search_analyzer.h"
#include "index/search_document.h"
#include "index/search_snapshot.h"
#include "index/search_text.h"
#include "index/wide_text.h"

namespace buzz::index {
namespace {

using lucene::document::Document;
using lucene::document::Field;
using lucene::index::IndexReader;
using lucene::index::IndexWriter;

// Content tokens past this are not indexed (CLucene's default of 10 000 would
// cut a long 40008 diff short).
constexpr int32_t kMaxTermsPerDocument = 100'000;
// Writer memory before it flushes on its own; commits normally flush first.
constexpr float kWriterBufferMB = 32;

struct WriterClose {
  void operator()(IndexWriter* writer) const {
    try {
      writer->close();
    } catch (...) {  // destruction cannot report; commit() is where failures surface
    }
    delete writer;
  }
};
using WriterPtr = std::unique_ptr<IndexWriter, WriterClose>;

// Runs a CLucene call and turns whatever it throws into an error value.
template <class Body>
engine::Status guarded(const char* what, Body&& body) {
  try {
    body();
    return {};
  } catch (CLuceneError& e) {
    return engine::Error{std::string("error: search index ") + what + " failed: " + e.what()};
  } catch (const std::exception& e) {
    return engine::Error{std::string("error: search index ") + what + " failed: " + e.what()};
  }
}

WriterPtr open_writer(lucene::store::Directory* directory, lucene::analysis::Analyzer* analyzer, bool create) {
  WriterPtr writer(new IndexWriter(directory, analyzer, create, /*closeDirOnShutdown=*/false));
  writer->setMaxFieldLength(kMaxTermsPerDocument);
  writer->setRAMBufferSizeMB(kWriterBufferMB);
  writer->setMaxBufferedDocs(IndexWriter::DISABLE_AUTO_FLUSH);
  return writer;
}

// Decimal, as std::to_wstring writes it, without its swprintf (4 % of an add under perf).
std::wstring decimal(uint64_t n) { return ascii_to_wide(std::to_string(n)); }

// The CLucene form of a SearchDocument (clucene_fields.h), one Document per
// shape kept for the writer's life and refilled for each add: constructing a
// Field interns its name in CLucene's global table under a lock, and freeing it
// releases the name the same way (a tenth of an add's CPU under perf).
class ReusedDocument {
 public:
  explicit ReusedDocument(bool with_content) {
    fields_ = {field(kIdField, field_flags(Field::STORE_YES, Field::INDEX_NO)),
               keyword(kIdBucketField), keyword(kKindField),        keyword(kPubkeyField),
               keyword(kChannelField),  keyword(kCreatedHighField), keyword(kCreatedLowField)};
    if (with_content) content_ = field(kContentField, field_flags(Field::STORE_NO, Field::INDEX_TOKENIZED));
  }

  // `content` is d.content in wide form, non-empty exactly when this shape has it.
  Document& fill(const SearchDocument& d, std::wstring& content) {
    std::array<std::wstring, 7> values = {ascii_to_wide(d.id),
                                          id_bucket(d.id),
                                          decimal(d.kind),
                                          ascii_to_wide(d.pubkey),
                                          utf8_to_wide(d.channel_id),
                                          decimal(d.created_at >> kCreatedLowBits),
                                          decimal(d.created_at & kCreatedLowMask)};
    for (size_t i = 0; i < fields_.size(); ++i) set(fields_[i], values[i]);
    if (content_ != nullptr) set(content_, content);
    return doc_;
  }

 private:
  // With a placeholder value (CLucene refuses an empty one) until fill().
  Field* field(const wchar_t* name, int flags) {
    auto* f = new Field(name, L"-", flags);
    doc_.add(*f);  // the document owns it
    return f;
  }
  Field* keyword(const wchar_t* name) {
    return field(name, field_flags(Field::STORE_NO, Field::INDEX_UNTOKENIZED, Field::INDEX_NONORMS));
  }
  static void set(Field* f, std::wstring& value) { f->setValue(value.data(), /*duplicateValue=*/true); }

  Document doc_;
  std::array<Field*, 7> fields_{};  // the id, then the keywords
  Field* content_ = nullptr;
};

}  // namespace

// A removal waiting for the next commit: the documents of an event, or of a channel.
struct Removal {
  std::optional<engine::Id> id;
  std::wstring channel;  // when there is no id
};

struct CLuceneSearchIndex::State {
  lucene::store::FSDirectory* directory = nullptr;
  SearchAnalyzer analyzer;
  ReusedDocument with_content{true}, without_content{false};  // writer lock held to fill one

  std::mutex writer_mu;  // guards the fields below up to snapshot_mu
  WriterPtr writer;      // null only if reopening it failed
  std::vector<AddedDocument> added;                                 // since the snapshot, in add order
  std::unordered_set<engine::Id, engine::KeyBytesHash> added_ids;  // the same, for duplicate checks
  std::vector<Removal> removals;                                    // since the snapshot
  bool dirty = false;                                               // changes since the snapshot
  // Which ids may be indexed already, without asking the index: a document from
  // before open (or clear) has created_at <= horizon; one added since is in the filter.
  uint64_t horizon = 0;
  IdFilter added_in_run;

  mutable std::mutex snapshot_mu;
  std::shared_ptr<const SearchSnapshot> snapshot;
  std::atomic<uint64_t> commits_carrying_columns{0};

  ~State() {
    writer.reset();
    snapshot.reset();
    if (directory == nullptr) return;
    try {
      directory->close();
    } catch (...) {  // nothing left to report to
    }
    _CLDECDELETE(directory);
  }

  std::shared_ptr<const SearchSnapshot> current() const {
    std::lock_guard lock(snapshot_mu);
    return snapshot;
  }

  void publish(std::shared_ptr<const SearchSnapshot> next) {
    {
      std::lock_guard lock(snapshot_mu);
      snapshot.swap(next);
    }
    // `next` now holds the old snapshot; it closes here or when its last search ends.
  }

  engine::Status writable() const {
    if (writer) return {};
    return engine::Error{"error: search index lost its writer after a failed deletion; reopen the index"};
  }

  // Writer lock held. Deletes through an IndexReader, with the writer closed
  // for the moment (the reader needs the index's write lock): CLucene 2.3.3.4's
  // IndexWriter leaks a SegmentReader per segment on every flush that carries
  // buffered deletions (IndexWriter::applyDeletes), which with updateDocument
  // or deleteDocuments would be every commit. Throws CLuceneError.
  void apply_removals() {
    writer->flush();  // documents added before their removal must be on disk to be found
    writer.reset();
    std::exception_ptr failure;
    try {
      ReaderPtr reader(IndexReader::open(directory, /*closeDirectoryOnCleanup=*/false));
      for (const Removal& removal : removals) {
        if (removal.id) {
          for_each_document_with_id(reader.get(), *removal.id, [&](int32_t doc) { reader->deleteDocument(doc); });
        } else {
          reader->deleteDocuments(make_term(kChannelField, removal.channel).get());
        }
      }
      reader->close();  // commits the deletions
    } catch (...) {
      failure = std::current_exception();
    }
    writer = open_writer(directory, &analyzer, /*create=*/false);  // also after a failure
    if (failure) std::rethrow_exception(failure);
    removals.clear();
  }

  // Writer lock held: whether the event's document is in the index or about to be.
  bool holds(const engine::Event& event) const {
    if (event.created_at > horizon && !added_in_run.may_contain(event.id)) return false;
    return added_ids.contains(event.id) || current()->contains(event.id);
  }

  // Writer lock held: whether a pending removal would take this document.
  bool removal_covers(const engine::Id& id, const SearchDocument& doc) const {
    for (const Removal& r : removals) {
      if (r.id ? *r.id == id : r.channel == utf8_to_wide(doc.channel_id)) return true;
    }
    return false;
  }
};

engine::Result<std::unique_ptr<CLuceneSearchIndex>> CLuceneSearchIndex::open(const std::string& directory,
                                                                               OpenFor purpose) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) return engine::Error{"error: cannot create search index directory " + directory + ": " + ec.message()};
  auto state = std::make_unique<State>();
  bool outdated = false;
  engine::Status opened = guarded("open", [&] {
    state->directory = lucene::store::FSDirectory::getDirectory(directory.c_str());
    state->directory->setUseMMap(true);
    // One process owns the data directory, so a lock found now is a crash's leftover.
    if (IndexReader::isLocked(state->directory)) IndexReader::unlock(state->directory);
    bool exists = IndexReader::indexExists(state->directory) && purpose == OpenFor::kUse;
    if (exists) {
      ReaderPtr reader(IndexReader::open(state->directory, /*closeDirectoryOnCleanup=*/false));
      outdated = predates_id_buckets(reader.get());
      if (outdated) return;
    }
    state->writer = open_writer(state->directory, &state->analyzer, /*create=*/!exists);
    if (!exists) state->writer->flush();  // a first commit point, so a reader can open
    state->snapshot = SearchSnapshot::open(state->directory, nullptr, {});
    state->horizon = state->snapshot->newest_created_at();
  });
  if (!opened) return engine::Error{opened.error() + " (" + directory + ")"};
  if (outdated) {
    return engine::Error{"error: the search index in " + directory +
                         " indexes a term per event id, the layout before 2026-12-05: it must be rebuilt"};
  }
  return std::unique_ptr<CLuceneSearchIndex>(new CLuceneSearchIndex(std::move(state)));
}

CLuceneSearchIndex::CLuceneSearchIndex(std::unique_ptr<State> state) : state_(std::move(state)) {}
CLuceneSearchIndex::~CLuceneSearchIndex() = default;

engine::Status CLuceneSearchIndex::add(const engine::Event& event, std::string_view channel) {
  std::optional<SearchDocument> document = make_search_document(event, channel);
  if (!document) return {};
  std::lock_guard lock(state_->writer_mu);
  if (engine::Status s = state_->writable(); !s) return s;
  return guarded("add", [&] {
    if (state_->removal_covers(event.id, *document)) {
      state_->apply_removals();  // first, or at the commit it would take this copy too
    } else if (state_->holds(event)) {
      return;  // one id is one immutable event: adding it again (a rebuild racing the feeder) changes nothing
    }
    std::wstring content = utf8_to_wide(document->content);
    ReusedDocument& doc = content.empty() ? state_->without_content : state_->with_content;  // CLucene refuses empty values
    state_->writer->addDocument(&doc.fill(*document, content));
    state_->added.push_back({event.id, event.created_at, event.kind});
    state_->added_ids.insert(event.id);
    state_->added_in_run.insert(event.id);
    state_->dirty = true;
  });
}

engine::Status CLuceneSearchIndex::remove(const engine::Id& id) {
  std::lock_guard lock(state_->writer_mu);
  if (engine::Status s = state_->writable(); !s) return s;
  state_->removals.push_back({id, {}});
  state_->dirty = true;
  return {};
}

engine::Status CLuceneSearchIndex::remove_channel(std::string_view channel) {
  if (channel.empty() || channel == kGlobalChannel) {
    return engine::Error{"invalid: remove_channel needs a channel id"};
  }
  std::lock_guard lock(state_->writer_mu);
  if (engine::Status s = state_->writable(); !s) return s;
  state_->removals.push_back({std::nullopt, utf8_to_wide(channel)});
  state_->dirty = true;
  return {};
}

engine::Status CLuceneSearchIndex::commit() {
  std::lock_guard lock(state_->writer_mu);
  if (engine::Status s = state_->writable(); !s) return s;
  if (!state_->dirty) return {};
  return guarded("commit", [&] {
    if (state_->removals.empty()) {
      state_->writer->flush();
    } else {
      state_->apply_removals();
    }
    std::shared_ptr<const SearchSnapshot> previous = state_->current();
    std::shared_ptr<const SearchSnapshot> next = SearchSnapshot::open(state_->directory, previous.get(), state_->added);
    if (next->columns_carried_over()) ++state_->commits_carrying_columns;
    state_->added.clear();
    state_->added_ids.clear();
    state_->dirty = false;
    state_->publish(std::move(next));
  });
}

engine::Status CLuceneSearchIndex::clear() {
  std::lock_guard lock(state_->writer_mu);
  return guarded("clear", [&] {
    state_->writer.reset();  // one writer at a time: the new one needs the old one's lock
    state_->writer = open_writer(state_->directory, &state_->analyzer, /*create=*/true);
    state_->added.clear();
    state_->added_ids.clear();
    state_->removals.clear();
    state_->horizon = 0;
    state_->added_in_run.clear();
    state_->dirty = true;
  });
}

engine::Result<SearchResult> CLuceneSearchIndex::search(const SearchQuery& query) const {
  engine::Result<SearchText> text = parse_search_text(query.text);
  if (!text) return engine::Error{text.error()};
  return state_->current()->search(query, *text);
}

uint64_t CLuceneSearchIndex::size() const { return state_->current()->size(); }

uint64_t CLuceneSearchIndex::commits_carrying_columns() const { return state_->commits_carrying_columns.load(); }

}  // namespace buzz::index
