// Unit tests for index/search_analyzer: the terms query text becomes, with the
// stop words the index drops, and CJK runs paired as at index time.
#include "index/search_analyzer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace buzz::index {
namespace {

std::vector<std::wstring> texts(const std::vector<QueryTerm>& terms) {
  std::vector<std::wstring> out;
  for (const QueryTerm& t : terms) out.push_back(t.text);
  return out;
}

TEST(SearchAnalyzerTest, LowercasesAndDropsEnglishStopWords) {
  EXPECT_EQ(texts(analyze_query_text(L"The Deploy of the Relay")), (std::vector<std::wstring>{L"deploy", L"relay"}));
  EXPECT_TRUE(analyze_query_text(L"the and of").empty());
}

TEST(SearchAnalyzerTest, CjkRunsBecomePairsAtQueryTime) {
  EXPECT_EQ(texts(analyze_query_text(L"東京都")), (std::vector<std::wstring>{L"東京", L"京都"}));
  EXPECT_EQ(texts(analyze_query_text(L"東")), (std::vector<std::wstring>{L"東"}));
}

// The stop-word set is built once and shared: streams on several threads at once.
TEST(SearchAnalyzerTest, StreamsOnManyThreadsShareTheStopWords) {
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        if (texts(analyze_query_text(L"a note for the team")) != std::vector<std::wstring>{L"note", L"team"}) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace buzz::index
