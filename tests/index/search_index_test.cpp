// Unit tests for index/clucene_search_index (with search_snapshot, search_text,
// search_analyzer, search_document, wide_text) on a real CLucene index in a temp
// dir: matching words and phrases, the channel scope (a private document never
// changes a reader's hits, order, scores or total), global events, kinds,
// authors, since/until, limits, ordering, removal (within an id bucket too),
// hostile query text, Unicode and CJK, reopening, an index in the layout before
// id buckets, column carry-over across merges, and concurrent searches.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "index/clucene.h"
#include "index/clucene_search_index.h"
#include "index/search_document.h"
#include "tests/temp_dir.h"

namespace buzz::index {
namespace {

const std::string kChannelA = "0b6a3d4e-1f2a-4c3b-9d8e-7f6a5b4c3d2a";
const std::string kChannelB = "9c8b7a6f-5e4d-4c3b-8a29-180f1e2d3c4b";

engine::Pubkey author(uint8_t n) {
  engine::Pubkey p{};
  p[0] = n;
  return p;
}

// Distinct ids without signing: the index never verifies events.
engine::Event indexed_event(uint16_t kind, std::string content, uint64_t created_at, uint8_t by = 1) {
  static uint32_t counter = 0;
  engine::Event e;
  ++counter;
  e.id[0] = uint8_t(counter >> 24);
  e.id[1] = uint8_t(counter >> 16);
  e.id[2] = uint8_t(counter >> 8);
  e.id[3] = uint8_t(counter);
  e.id[31] = 0x5a;
  e.pubkey = author(by);
  e.kind = kind;
  e.content = std::move(content);
  e.created_at = created_at;
  return e;
}

std::vector<engine::Id> ids(const SearchResult& r) {
  std::vector<engine::Id> out;
  for (const SearchHit& h : r.hits) out.push_back(h.id);
  return out;
}

class SearchIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("buzz_search_test");
    open();
  }
  void TearDown() override {
    index_.reset();
    std::filesystem::remove_all(dir_);
  }
  void open() {
    auto opened = CLuceneSearchIndex::open(dir_ + "/search");
    ASSERT_TRUE(opened.ok()) << opened.error();
    index_ = std::move(opened.value());
  }

  // Adds and commits.
  void add(const engine::Event& e, const std::string& channel = kChannelA) {
    ASSERT_TRUE(index_->add(e, channel).ok());
    ASSERT_TRUE(index_->commit().ok());
  }
  void add_all(const std::vector<std::pair<engine::Event, std::string>>& events) {
    for (const auto& [e, channel] : events) ASSERT_TRUE(index_->add(e, channel).ok());
    ASSERT_TRUE(index_->commit().ok());
  }

  SearchQuery in_a(std::string text) {
    SearchQuery q;
    q.text = std::move(text);
    q.channels = {kChannelA};
    return q;
  }
  SearchResult search(const SearchQuery& q) {
    auto r = index_->search(q);
    EXPECT_TRUE(r.ok()) << r.error();
    return r.ok() ? *r : SearchResult{};
  }
  SearchResult search_a(std::string text) { return search(in_a(std::move(text))); }

  std::string dir_;
  std::unique_ptr<CLuceneSearchIndex> index_;
};

TEST_F(SearchIndexTest, FindsEveryWordAndNothingElse) {
  engine::Event plan = indexed_event(9, "The release plan is ready for review", 100);
  engine::Event other = indexed_event(9, "lunch at noon, anyone?", 101);
  engine::Event release_only = indexed_event(9, "release notes are out", 102);
  add_all({{plan, kChannelA}, {other, kChannelA}, {release_only, kChannelA}});

  SearchResult r = search_a("plan");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].id, plan.id);
  EXPECT_EQ(r.total, 1u);
  EXPECT_EQ(search_a("RELEASE").total, 2u);  // case-insensitive
  EXPECT_EQ(ids(search_a("release plan")), std::vector{plan.id});  // every word must appear
  EXPECT_EQ(ids(search_a("plan release")), std::vector{plan.id});  // in any order
  EXPECT_TRUE(search_a("banana").hits.empty());
  EXPECT_EQ(index_->size(), 3u);
}

TEST_F(SearchIndexTest, QuotedTextMustAppearAsWritten) {
  engine::Event e = indexed_event(9, "the release plan is ready", 100);
  add(e);
  EXPECT_EQ(ids(search_a("\"release plan\"")), std::vector{e.id});
  EXPECT_TRUE(search_a("\"plan release\"").hits.empty());
  EXPECT_EQ(ids(search_a("ready \"release plan\"")), std::vector{e.id});
  // A word the analyzer splits is a phrase too: "e-mail" is e + mail in sequence.
  engine::Event mail = indexed_event(9, "send the e-mail today", 101);
  add(mail);
  EXPECT_EQ(ids(search_a("e-mail")), std::vector{mail.id});
  EXPECT_TRUE(search_a("mail-e").hits.empty());
}

TEST_F(SearchIndexTest, APrivateChannelNeverShowsUpForANonMember) {
  engine::Event mine = indexed_event(9, "quarterly secret numbers", 100);
  engine::Event theirs = indexed_event(9, "quarterly secret numbers", 200);  // newer: would rank first
  add_all({{mine, kChannelA}, {theirs, kChannelB}});

  SearchResult r = search_a("secret");
  EXPECT_EQ(ids(r), std::vector{mine.id});
  EXPECT_EQ(r.total, 1u);

  SearchQuery both = in_a("secret");
  both.channels.push_back(kChannelB);
  EXPECT_EQ(ids(search(both)), (std::vector{theirs.id, mine.id}));

  SearchQuery nothing = in_a("secret");
  nothing.channels.clear();
  EXPECT_TRUE(search(nothing).hits.empty());
  // The global marker is not a channel a caller can name.
  nothing.channels = {std::string(kGlobalChannel)};
  EXPECT_TRUE(search(nothing).hits.empty());
}

// What a reader of A sees must be identical with or without B's documents:
// the same page, in the same order, with the same scores and the same total.
// B's documents are newer and mention "alpha" heavily, which would both take
// the page and (with inverse document frequency) reorder A's hits.
TEST_F(SearchIndexTest, PrivateDocumentsChangeNeitherPageOrderScoresNorTotal) {
  std::vector<std::pair<engine::Event, std::string>> in_channel_a;
  for (int i = 0; i < 12; ++i) {
    std::string text = i % 3 == 0 ? "alpha beta beta gamma" : (i % 3 == 1 ? "alpha alpha beta" : "beta gamma delta alpha");
    in_channel_a.push_back({indexed_event(9, text + " " + std::to_string(i), 1000 + i), kChannelA});
  }
  add_all(in_channel_a);
  SearchQuery q = in_a("alpha beta");
  q.limit = 5;
  SearchResult before = search(q);
  ASSERT_EQ(before.hits.size(), 5u);
  ASSERT_EQ(before.total, 12u);

  std::vector<std::pair<engine::Event, std::string>> in_channel_b;
  for (int i = 0; i < 200; ++i) in_channel_b.push_back({indexed_event(9, "alpha alpha alpha beta", 5000 + i), kChannelB});
  add_all(in_channel_b);
  SearchResult after = search(q);
  ASSERT_EQ(after.hits.size(), before.hits.size());
  EXPECT_EQ(after.total, before.total);
  for (size_t i = 0; i < before.hits.size(); ++i) {
    EXPECT_EQ(after.hits[i].id, before.hits[i].id) << i;
    EXPECT_EQ(after.hits[i].score, before.hits[i].score) << i;
  }
  q.order = SearchOrder::kNewest;
  EXPECT_EQ(search(q).total, 12u);
}

TEST_F(SearchIndexTest, GlobalEventsOnlyWhenIncluded) {
  engine::Event note = indexed_event(1, "hello from the global feed", 100);
  engine::Event message = indexed_event(9, "hello from channel a", 101);
  add_all({{note, ""}, {message, kChannelA}});

  EXPECT_EQ(ids(search_a("hello")), std::vector{message.id});
  SearchQuery with_global = in_a("hello");
  with_global.include_global = true;
  EXPECT_EQ(ids(search(with_global)), (std::vector{message.id, note.id}));
  SearchQuery only_global = with_global;
  only_global.channels.clear();
  EXPECT_EQ(ids(search(only_global)), std::vector{note.id});
}

TEST_F(SearchIndexTest, KindsAuthorsSinceAndUntilNarrowTheScope) {
  engine::Event post = indexed_event(45001, "deploy checklist", 100, 1);
  engine::Event message = indexed_event(9, "deploy today", 200, 2);
  engine::Event edit = indexed_event(40003, "deploy tomorrow", 300, 1);
  add_all({{post, kChannelA}, {message, kChannelA}, {edit, kChannelA}});

  SearchQuery q = in_a("deploy");
  q.kinds = {9, 40003};
  EXPECT_EQ(ids(search(q)), (std::vector{edit.id, message.id}));
  q.kinds.clear();
  q.authors = {author(1)};
  EXPECT_EQ(ids(search(q)), (std::vector{edit.id, post.id}));
  q.authors = {author(1), author(2)};
  EXPECT_EQ(search(q).total, 3u);
  q.authors = {author(9)};
  EXPECT_TRUE(search(q).hits.empty());
  q.authors.clear();
  q.since = 200;
  EXPECT_EQ(ids(search(q)), (std::vector{edit.id, message.id}));
  q.until = 200;
  EXPECT_EQ(ids(search(q)), std::vector{message.id});
  q.since = 201;
  EXPECT_TRUE(search(q).hits.empty());
}

TEST_F(SearchIndexTest, LimitCutsThePageNotTheTotal) {
  std::vector<std::pair<engine::Event, std::string>> events;
  for (int i = 0; i < 30; ++i) events.push_back({indexed_event(9, "standup notes", 1000 + i), kChannelA});
  add_all(events);
  SearchQuery q = in_a("standup");
  q.limit = 10;
  SearchResult r = search(q);
  EXPECT_EQ(r.hits.size(), 10u);
  EXPECT_EQ(r.total, 30u);
  EXPECT_EQ(r.hits[0].created_at, 1029u);  // equal scores: newest first
  q.limit = 0;
  EXPECT_EQ(search(q).hits.size(), 1u);
  q.limit = 100000;
  EXPECT_EQ(search(q).hits.size(), 30u);
}

TEST_F(SearchIndexTest, RelevanceFirstThenNewestOrNewestOnly) {
  engine::Event strong = indexed_event(9, "incident incident incident", 100);
  engine::Event weak_old = indexed_event(9, "an incident report for the weekly meeting minutes", 200);
  engine::Event weak_new = indexed_event(9, "an incident report for the weekly meeting minutes", 300);
  add_all({{strong, kChannelA}, {weak_old, kChannelA}, {weak_new, kChannelA}});

  SearchResult r = search_a("incident");
  EXPECT_EQ(ids(r), (std::vector{strong.id, weak_new.id, weak_old.id}));
  EXPECT_GT(r.hits[0].score, r.hits[1].score);
  EXPECT_EQ(r.hits[1].score, r.hits[2].score);

  SearchQuery newest = in_a("incident");
  newest.order = SearchOrder::kNewest;
  EXPECT_EQ(ids(search(newest)), (std::vector{weak_new.id, weak_old.id, strong.id}));
}

TEST_F(SearchIndexTest, EmptyTextOrStarMatchesEverythingInScopeNewestFirst) {
  engine::Event a1 = indexed_event(9, "first", 100);
  engine::Event a2 = indexed_event(45003, "second", 300);
  engine::Event b = indexed_event(9, "third", 200);
  add_all({{a1, kChannelA}, {a2, kChannelA}, {b, kChannelB}});
  EXPECT_EQ(ids(search_a("")), (std::vector{a2.id, a1.id}));
  EXPECT_EQ(ids(search_a("  *  ")), (std::vector{a2.id, a1.id}));
}

// The writer refills one document per shape (with content, without): nothing
// of one event's fields may stay behind in the next's.
TEST_F(SearchIndexTest, EachDocumentCarriesOnlyItsOwnFields) {
  engine::Event worded = indexed_event(9, "orchid", 100, 1);
  engine::Event empty = indexed_event(1, "", 200, 2);
  engine::Event after = indexed_event(9, "tulip", 300, 3);
  add_all({{worded, kChannelA}, {empty, kChannelB}, {after, kChannelA}});
  EXPECT_EQ(ids(search_a("orchid")), std::vector{worded.id});
  EXPECT_EQ(ids(search_a("tulip")), std::vector{after.id});
  SearchQuery b = in_a("");
  b.channels = {kChannelB};
  EXPECT_EQ(ids(search(b)), std::vector{empty.id});  // indexed, in its own channel only
  b.text = "orchid";
  EXPECT_TRUE(search(b).hits.empty());
  SearchQuery by_author = in_a("");
  by_author.authors = {author(3)};
  EXPECT_EQ(ids(search(by_author)), std::vector{after.id});
  SearchQuery by_kind = in_a("");
  by_kind.kinds = {9};
  by_kind.until = 250;
  EXPECT_EQ(ids(search(by_kind)), std::vector{worded.id});
}

TEST_F(SearchIndexTest, RemovedDocumentsDisappear) {
  engine::Event keep = indexed_event(9, "budget review", 100);
  engine::Event gone = indexed_event(9, "budget draft", 200);
  engine::Event elsewhere = indexed_event(9, "budget in b", 300);
  add_all({{keep, kChannelA}, {gone, kChannelA}, {elsewhere, kChannelB}});
  ASSERT_EQ(search_a("budget").total, 2u);

  ASSERT_TRUE(index_->remove(gone.id).ok());
  EXPECT_EQ(search_a("budget").total, 2u);  // not before the commit
  ASSERT_TRUE(index_->commit().ok());
  EXPECT_EQ(ids(search_a("budget")), std::vector{keep.id});
  EXPECT_EQ(index_->size(), 2u);
  ASSERT_TRUE(index_->remove(gone.id).ok());  // unknown ids are fine

  ASSERT_TRUE(index_->remove_channel(kChannelB).ok());
  ASSERT_TRUE(index_->commit().ok());
  SearchQuery b = in_a("budget");
  b.channels = {kChannelB};
  EXPECT_TRUE(search(b).hits.empty());
  EXPECT_EQ(index_->size(), 1u);
  EXPECT_FALSE(index_->remove_channel("").ok());
}

TEST_F(SearchIndexTest, AddingTheSameEventTwiceKeepsOneDocument) {
  engine::Event e = indexed_event(9, "twice", 100);
  add(e);
  add(e);
  engine::Event f = indexed_event(9, "twice again", 200);
  ASSERT_TRUE(index_->add(f, kChannelA).ok());  // twice within one commit
  add(f);
  EXPECT_EQ(search_a("twice").total, 2u);
  EXPECT_EQ(index_->size(), 2u);
  // After a reopen the repeat is found on disk, not in the writer's memory.
  index_.reset();
  open();
  add(e);
  add(f);
  EXPECT_EQ(index_->size(), 2u);
}

// Ids are indexed by their first four hex digits only (clucene_fields.h): the
// events of one bucket are told apart by their stored ids.
TEST_F(SearchIndexTest, RemovingAnEventLeavesTheOthersInItsIdBucket) {
  engine::Event a = indexed_event(9, "shared bucket alpha", 100);
  engine::Event b = indexed_event(9, "shared bucket beta", 101);
  a.id[0] = b.id[0] = 0xab;
  a.id[1] = b.id[1] = 0xcd;
  add_all({{a, kChannelA}, {b, kChannelA}});
  ASSERT_TRUE(index_->remove(a.id).ok());
  ASSERT_TRUE(index_->commit().ok());
  EXPECT_EQ(ids(search_a("bucket")), std::vector{b.id});
  add(b);  // still held: not added twice
  add(a);  // removed: added again
  EXPECT_EQ(search_a("bucket").total, 2u);
  EXPECT_EQ(index_->size(), 2u);
}

// An index written before id buckets, with a term per id, as CLucene left it.
void write_index_with_a_term_per_id(const std::string& dir) {
  lucene::analysis::WhitespaceAnalyzer analyzer;
  lucene::index::IndexWriter writer(dir.c_str(), &analyzer, /*create=*/true);
  lucene::document::Document doc;
  using lucene::document::Field;
  doc.add(*new Field(L"id", std::wstring(64, L'a').c_str(), field_flags(Field::STORE_YES, Field::INDEX_UNTOKENIZED)));
  doc.add(*new Field(L"content", L"written long ago", field_flags(Field::STORE_NO, Field::INDEX_TOKENIZED)));
  writer.addDocument(&doc);
  writer.close();
}

TEST_F(SearchIndexTest, AnIndexFromBeforeIdBucketsIsRefusedUntilRebuilt) {
  index_.reset();
  const std::string search_dir = dir_ + "/search";
  std::filesystem::remove_all(search_dir);
  write_index_with_a_term_per_id(search_dir);
  auto refused = CLuceneSearchIndex::open(search_dir);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("must be rebuilt"), std::string::npos) << refused.error();

  auto rebuilt = CLuceneSearchIndex::open(search_dir, CLuceneSearchIndex::OpenFor::kRebuild);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.error();
  index_ = std::move(*rebuilt);
  EXPECT_EQ(index_->size(), 0u);
  engine::Event e = indexed_event(9, "written today", 100);
  add(e);
  index_.reset();
  open();  // the rebuilt index opens for use
  EXPECT_EQ(ids(search_a("written")), std::vector{e.id});
}

TEST_F(SearchIndexTest, AnEventRemovedAndAddedAgainBeforeTheCommitIsBack) {
  engine::Event e = indexed_event(9, "comeback", 100);
  add(e);
  ASSERT_TRUE(index_->remove(e.id).ok());
  add(e);
  EXPECT_EQ(ids(search_a("comeback")), std::vector{e.id});
  ASSERT_TRUE(index_->remove_channel(kChannelA).ok());
  add(e);
  EXPECT_EQ(ids(search_a("comeback")), std::vector{e.id});
  EXPECT_EQ(index_->size(), 1u);
}

TEST_F(SearchIndexTest, OnlySearchableKindsAreIndexed) {
  add(indexed_event(7, "+", 100));                  // reaction
  add(indexed_event(1059, "ciphertext words", 101));  // gift wrap
  add(indexed_event(30078, "read state words", 102));
  EXPECT_EQ(index_->size(), 0u);
  EXPECT_TRUE(is_searchable_kind(9) && is_searchable_kind(40002) && is_searchable_kind(0));
}

TEST_F(SearchIndexTest, ProfilesAndRichMessagesIndexTheirText) {
  engine::Event profile = indexed_event(0, R"({"name":"ada","display_name":" Ada Lovelace ","about":"engines"})", 100);
  engine::Event rich = indexed_event(40002, R"({"text":"rich hello","blocks":[{"type":"quote"}]})", 101);
  add_all({{profile, ""}, {rich, kChannelA}});
  SearchQuery global = in_a("lovelace");
  global.channels.clear();
  global.include_global = true;
  EXPECT_EQ(ids(search(global)), std::vector{profile.id});
  EXPECT_EQ(ids(search_a("rich hello")), std::vector{rich.id});
  EXPECT_TRUE(search_a("blocks").hits.empty());  // JSON keys are not text
  EXPECT_EQ(searchable_text(profile), profile.content + " Ada Lovelace ada");
}

TEST_F(SearchIndexTest, HostileQueryTextGivesCleanResultsOrReasons) {
  engine::Event e = indexed_event(9, "release plan: content review", 100);
  add(e);
  // Not syntax: quotes that never close, operators, wildcards, fields, brackets.
  EXPECT_EQ(ids(search_a("\"release plan")), std::vector{e.id});
  EXPECT_EQ(ids(search_a("release*")), std::vector{e.id});
  EXPECT_EQ(ids(search_a("content:review")), std::vector{e.id});  // the words content, review in sequence
  EXPECT_TRUE(search_a("title:release").hits.empty());
  EXPECT_EQ(search_a("(release OR nothing) AND NOT plan~2 [a TO z] ^3 \\ ! ? {}").total, 0u);
  EXPECT_EQ(ids(search_a("release && plan")), std::vector{e.id});
  EXPECT_TRUE(search_a("release^10").hits.empty());  // the words release, 10 in sequence
  EXPECT_TRUE(search_a("*:*").hits.empty());
  EXPECT_TRUE(search_a("\"\"").hits.empty());
  // Only stop words or punctuation: nothing to match, not an error.
  SearchResult stop = search_a("the and of");
  EXPECT_TRUE(stop.hits.empty());
  EXPECT_EQ(stop.total, 0u);
  EXPECT_TRUE(search_a("!!! ??? ...").hits.empty());
  // Invalid UTF-8 and NUL are replaced, not fatal.
  EXPECT_EQ(ids(search_a("\xff\xfe\xc3 release \xed\xa0\x80")), std::vector{e.id});
  EXPECT_EQ(ids(search_a(std::string("release\0plan", 12))), std::vector{e.id});
  // Size is refused with a reason.
  auto huge = index_->search(in_a(std::string(10000, 'a')));
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error(), "invalid: search query too long (max 1024 bytes)");
  std::string many;
  for (int i = 0; i < 65; ++i) many += "w" + std::to_string(i) + " ";
  auto too_many = index_->search(in_a(many));
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.error(), "invalid: search query has too many terms (max 64)");
  // A hostile channel id is just a term that matches nothing.
  SearchQuery odd = in_a("release");
  odd.channels = {"*", "channel_id:*", std::string("\xff\0", 2)};
  EXPECT_TRUE(search(odd).hits.empty());
}

TEST_F(SearchIndexTest, UnicodeAndCjkText) {
  engine::Event french = indexed_event(9, "Café crème à l'heure", 100);
  engine::Event japanese = indexed_event(9, "東京都に住んでいます", 101);
  engine::Event chinese = indexed_event(9, "我们明天开会 meeting", 102);
  engine::Event russian = indexed_event(9, "Привет, мир", 103);
  engine::Event broken = indexed_event(9, "valid \xc3\x28 then \xf0\x9f\x8e\x89 party", 104);
  add_all({{french, kChannelA}, {japanese, kChannelA}, {chinese, kChannelA}, {russian, kChannelA}, {broken, kChannelA}});

  EXPECT_EQ(ids(search_a("café")), std::vector{french.id});
  EXPECT_EQ(ids(search_a("CAFÉ CRÈME")), std::vector{french.id});
  EXPECT_EQ(ids(search_a("東京")), std::vector{japanese.id});
  EXPECT_EQ(ids(search_a("住んで")), std::vector{japanese.id});
  EXPECT_EQ(ids(search_a("東")), std::vector{japanese.id});  // one character
  EXPECT_TRUE(search_a("京東").hits.empty());                 // pairs keep their order
  EXPECT_EQ(ids(search_a("明天")), std::vector{chinese.id});
  EXPECT_EQ(ids(search_a("开会 meeting")), std::vector{chinese.id});
  EXPECT_EQ(ids(search_a("мир")), std::vector{russian.id});
  EXPECT_EQ(ids(search_a("party")), std::vector{broken.id});
}

TEST_F(SearchIndexTest, ReopeningKeepsCommittedDocuments) {
  engine::Event e = indexed_event(9, "persistent memory", 100);
  add(e);
  index_.reset();
  open();
  EXPECT_EQ(ids(search_a("persistent")), std::vector{e.id});
  EXPECT_EQ(index_->size(), 1u);
  engine::Event later = indexed_event(9, "persistent again", 200);
  add(later);
  EXPECT_EQ(ids(search_a("persistent")), (std::vector{later.id, e.id}));
}

TEST_F(SearchIndexTest, ClearDropsEverythingAndRebuildRefills) {
  std::vector<engine::Event> events = {indexed_event(9, "rebuild one", 100), indexed_event(9, "rebuild two", 200),
                                       indexed_event(7, "rebuild reaction", 300)};
  for (const engine::Event& e : events) add(e);
  ASSERT_TRUE(index_->clear().ok());
  ASSERT_TRUE(index_->commit().ok());
  EXPECT_EQ(index_->size(), 0u);
  EXPECT_TRUE(search_a("rebuild").hits.empty());

  auto rebuilt = rebuild(*index_, [&](const auto& visit) {
    for (const engine::Event& e : events) visit(e, kChannelA);
  });
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.error();
  EXPECT_EQ(*rebuilt, 2u);
  EXPECT_EQ(ids(search_a("rebuild")), (std::vector{events[1].id, events[0].id}));
}

// Many small commits make CLucene merge segments, purging deleted documents
// and renumbering the rest: the columns must stay right through all of it.
TEST_F(SearchIndexTest, ColumnsStayRightThroughMergesAndDeletes) {
  std::vector<engine::Event> live;
  for (int round = 0; round < 60; ++round) {
    for (int i = 0; i < 5; ++i) {
      engine::Event e = indexed_event(i % 2 ? 9 : 45003, "churn round", uint64_t(10'000 + round * 7 + (i * 13) % 5));
      ASSERT_TRUE(index_->add(e, kChannelA).ok());
      live.push_back(e);
    }
    if (round % 4 == 3) {  // delete an older one now and then
      ASSERT_TRUE(index_->remove(live[size_t(round)].id).ok());
      live.erase(live.begin() + round);
    }
    ASSERT_TRUE(index_->commit().ok());
  }
  EXPECT_GT(index_->commits_carrying_columns(), 0u);  // appended columns
  EXPECT_LT(index_->commits_carrying_columns(), 60u);  // and full reads after merges purged deletions

  std::sort(live.begin(), live.end(), [](const engine::Event& a, const engine::Event& b) {
    return a.created_at > b.created_at;
  });
  SearchQuery q = in_a("churn");
  q.order = SearchOrder::kNewest;
  q.limit = kMaxSearchLimit;
  SearchResult r = search(q);
  ASSERT_EQ(r.total, live.size());
  for (size_t i = 0; i < r.hits.size(); ++i) EXPECT_EQ(r.hits[i].created_at, live[i].created_at) << i;
  q.kinds = {45003};
  q.since = 10'100;
  q.until = 10'200;
  size_t expected = 0;
  for (const engine::Event& e : live) expected += e.kind == 45003 && e.created_at >= 10'100 && e.created_at <= 10'200;
  EXPECT_EQ(search(q).total, expected);

  // And after a restart, read back from the postings.
  index_.reset();
  open();
  q.kinds.clear();
  q.since.reset();
  q.until.reset();
  r = search(q);
  ASSERT_EQ(r.total, live.size());
  for (size_t i = 0; i < r.hits.size(); ++i) EXPECT_EQ(r.hits[i].created_at, live[i].created_at) << i;
}

TEST_F(SearchIndexTest, SearchesRunConcurrentlyWithTheWriter) {
  add(indexed_event(9, "concurrent seed", 1));
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      uint64_t last_total = 0;
      while (!done) {
        auto r = index_->search(in_a("concurrent"));
        if (!r.ok() || r->total < last_total || r->hits.empty()) ++failures;
        if (r.ok()) last_total = r->total;
      }
    });
  }
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(index_->add(indexed_event(9, "concurrent writes " + std::to_string(i), uint64_t(10 + i)), kChannelA).ok());
    if (i % 10 == 9) {
      ASSERT_TRUE(index_->commit().ok());
    }
  }
  done = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(search_a("concurrent").total, 201u);
}

}  // namespace
}  // namespace buzz::index
