// Full-text search (index/clucene_search_index) over a synthetic chat corpus:
// the index build rate, query latency percentiles for a reader of 20 of 200
// channels plus global, and the commit that makes a burst of 250 new messages
// searchable. The target: search p99 < 20 ms over 1 000 000 messages.
//
// Corpus: messages of 4–24 words drawn Zipf-like (s = 1) from a 4 000-word
// vocabulary whose 33 most frequent words are the English stop words (as in
// real text; the analyzer drops them); 200 channels with equal traffic, 5 %
// global notes, 500 authors, one message every ~30 s. Queries draw their words
// Zipf-like from the non-stop words, so common words are asked for most.
//
// Size: BUZZ_BENCH_SEARCH_DOCS (default 100 000, so a bench run stays short):
//   BUZZ_BENCH_SEARCH_DOCS=1000000 build/bench/buzz_bench --benchmark_filter=Search
// BUZZ_BENCH_SEARCH_DIR=<dir> keeps the index there and reuses it on the next
// run (building 1M documents takes minutes). Percentiles come from per-query
// timing, wall clock and this thread's CPU time, as counters in milliseconds.
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "index/clucene_search_index.h"

namespace {

namespace fs = std::filesystem;
using namespace buzz;
using Clock = std::chrono::steady_clock;

constexpr size_t kChannels = 200;
constexpr size_t kReadableChannels = 20;
constexpr size_t kAuthors = 500;
constexpr size_t kVocabulary = 4000;
constexpr uint64_t kFirstCreatedAt = 1'700'000'000;

// Lucene's English stop words, in rough order of frequency.
const char* const kStopWords[] = {"the", "to", "and", "a",    "of",   "in",   "is",   "it",   "that", "for", "on",
                                  "with", "as", "was", "be",  "at",   "this", "not",  "but",  "by",   "are", "or",
                                  "they", "if", "will", "an", "there", "no",  "their", "then", "these", "into", "such"};
constexpr size_t kStopWordCount = std::size(kStopWords);

std::string channel_id(size_t n) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "00000000-0000-4000-8000-%012zu", n);
  return buf;
}

size_t docs_wanted() {
  const char* env = std::getenv("BUZZ_BENCH_SEARCH_DOCS");
  return env ? size_t(std::strtoull(env, nullptr, 10)) : 100'000;
}

// The vocabulary and its Zipf weights; callers bring their own generator, so
// the queries are the same whether the index was built now or kept from before.
class Corpus {
 public:
  Corpus() {
    for (const char* w : kStopWords) words_.push_back(w);
    static const char* const kSyllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa",
                                             "do", "fe", "gu", "hi", "ja", "bre", "sto", "qui", "mar", "tel"};
    for (size_t i = 0; words_.size() < kVocabulary; ++i) {
      std::string w;
      for (size_t x = i + 20; x > 0; x /= 20) w += kSyllables[x % 20];
      words_.push_back(w);
    }
    all_ = zipf_cdf(0);
    content_ = zipf_cdf(kStopWordCount);
  }

  std::string message(std::mt19937_64& rng) const {
    size_t n = 4 + rng() % 21;
    std::string text;
    for (size_t i = 0; i < n; ++i) {
      if (i) text += ' ';
      text += words_[draw(all_, rng)];
    }
    return text;
  }
  const std::string& query_word(std::mt19937_64& rng) const { return words_[kStopWordCount + draw(content_, rng)]; }
  const std::string& most_common_content_word() const { return words_[kStopWordCount]; }

 private:
  std::vector<double> zipf_cdf(size_t first_rank) const {
    std::vector<double> cdf;
    double sum = 0;
    for (size_t r = first_rank; r < words_.size(); ++r) cdf.push_back(sum += 1.0 / double(r + 1));
    for (double& c : cdf) c /= sum;
    return cdf;
  }
  static size_t draw(const std::vector<double>& cdf, std::mt19937_64& rng) {
    double u = std::uniform_real_distribution<double>(0, 1)(rng);
    return size_t(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
  }

  std::vector<std::string> words_;
  std::vector<double> all_, content_;
};

// Message number n; the same n always gives the same id and created_at.
engine::Event make_message(const Corpus& corpus, std::mt19937_64& rng, uint64_t n, std::string* channel) {
  engine::Event e;
  for (size_t i = 0; i < 8; ++i) e.id[i] = uint8_t(n >> (8 * i));
  e.id[31] = 0xbe;
  uint64_t by = rng() % kAuthors;
  e.pubkey[0] = uint8_t(by);
  e.pubkey[1] = uint8_t(by >> 8);
  e.created_at = kFirstCreatedAt + n * 30 + n % 29;
  e.content = corpus.message(rng);
  if (rng() % 100 < 5) {
    e.kind = 1;
    channel->clear();
  } else {
    static const uint16_t kKinds[] = {9, 9, 9, 9, 9, 9, 40003, 45001, 45003, 40002};
    e.kind = kKinds[rng() % std::size(kKinds)];
    if (e.kind == 40002) e.content = R"({"text":")" + e.content + R"("})";
    *channel = channel_id(rng() % kChannels);
  }
  return e;
}

double process_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

struct BenchIndex {
  const char* kept = std::getenv("BUZZ_BENCH_SEARCH_DIR");
  fs::path dir = kept ? fs::path(kept) : fs::temp_directory_path() / ("buzz-search-bench-" + std::to_string(::getpid()));
  std::unique_ptr<index::CLuceneSearchIndex> index;
  Corpus corpus;
  std::mt19937_64 rng{42};
  uint64_t docs = 0;  // also the number of the next message
  double build_seconds = 0;
  double build_cpu_seconds = 0;

  BenchIndex() {
    auto opened = index::CLuceneSearchIndex::open(dir.string());
    if (!opened) {
      std::fprintf(stderr, "%s\n", opened.error().c_str());
      std::exit(1);
    }
    index = std::move(*opened);
    const size_t wanted = docs_wanted();
    docs = index->size();  // a kept index
    if (docs >= wanted) return;
    auto start = Clock::now();
    double cpu_start = process_cpu_seconds();
    std::string channel;
    for (; docs < wanted; ++docs) {
      (void)index->add(make_message(corpus, rng, docs, &channel), channel);
      if (docs % 100'000 == 99'999) (void)index->commit();  // as a rebuild would
    }
    (void)index->commit();
    build_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    build_cpu_seconds = process_cpu_seconds() - cpu_start;
  }
  ~BenchIndex() {
    index.reset();
    if (!kept) fs::remove_all(dir);
  }

  index::SearchQuery reader_query(std::string text) const {
    index::SearchQuery q;
    q.text = std::move(text);
    for (size_t c = 0; c < kReadableChannels; ++c) q.channels.push_back(channel_id(c * (kChannels / kReadableChannels)));
    q.include_global = true;
    return q;
  }
};

// Built on first use, removed at exit.
BenchIndex& bench_index() {
  static BenchIndex built;
  return built;
}

// This thread's CPU time in ms: unlike wall time, not inflated when other
// processes share the cores.
double thread_cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

double percentile(std::vector<double> sorted, double p) {
  std::sort(sorted.begin(), sorted.end());
  size_t at = size_t(std::max(0.0, std::ceil(p * double(sorted.size())) - 1));
  return sorted[std::min(at, sorted.size() - 1)];
}

// Wall-time percentiles, plus CPU-time ones when given.
void report(benchmark::State& state, const std::vector<double>& ms, const std::vector<double>& cpu_ms = {}) {
  state.counters["p50_ms"] = percentile(ms, 0.50);
  state.counters["p90_ms"] = percentile(ms, 0.90);
  state.counters["p99_ms"] = percentile(ms, 0.99);
  state.counters["max_ms"] = percentile(ms, 1.0);
  if (!cpu_ms.empty()) {
    state.counters["cpu_p50_ms"] = percentile(cpu_ms, 0.50);
    state.counters["cpu_p99_ms"] = percentile(cpu_ms, 0.99);
  }
  state.counters["docs"] = double(bench_index().docs);
}

void BM_SearchBuild(benchmark::State& state) {
  BenchIndex& b = bench_index();
  for (auto _ : state) benchmark::DoNotOptimize(b.index->size());
  state.counters["docs"] = double(b.docs);
  if (b.build_seconds > 0) {  // not when reusing a kept index
    state.counters["build_s"] = b.build_seconds;
    state.counters["docs_per_s"] = double(b.docs) / b.build_seconds;
    state.counters["docs_per_cpu_s"] = double(b.docs) / b.build_cpu_seconds;
  }
}
BENCHMARK(BM_SearchBuild)->Iterations(1)->Unit(benchmark::kMillisecond);

enum QueryMix { kMixed, kMostCommonWord, kMatchAll };

// Queries a reader might type: one word (50 %), two words (35 %), a quoted
// two-word phrase (10 %), or an empty box (5 %, newest first).
std::vector<index::SearchQuery> make_queries(QueryMix mix, size_t n) {
  BenchIndex& b = bench_index();
  std::mt19937_64 rng(7);
  std::vector<index::SearchQuery> out;
  for (size_t i = 0; i < n; ++i) {
    std::string text;
    uint64_t kind = rng() % 100;
    if (mix == kMostCommonWord) {
      text = b.corpus.most_common_content_word();
    } else if (mix == kMatchAll || kind < 5) {
      text = "";
    } else if (kind < 55) {
      text = b.corpus.query_word(rng);
    } else if (kind < 90) {
      text = b.corpus.query_word(rng) + " " + b.corpus.query_word(rng);
    } else {
      text = "\"" + b.corpus.query_word(rng) + " " + b.corpus.query_word(rng) + "\"";
    }
    index::SearchQuery q = b.reader_query(text);
    if (text.empty()) q.order = index::SearchOrder::kNewest;
    out.push_back(std::move(q));
  }
  return out;
}

void BM_SearchQuery(benchmark::State& state) {
  BenchIndex& b = bench_index();
  constexpr size_t kWarmup = 200;
  std::vector<index::SearchQuery> queries = make_queries(QueryMix(state.range(0)), 4000);
  for (size_t i = 0; i < kWarmup; ++i) (void)b.index->search(queries[i]);
  std::vector<double> ms, cpu_ms;
  uint64_t hits = 0, total = 0;
  size_t next = kWarmup;
  for (auto _ : state) {
    const index::SearchQuery& q = queries[next++ % queries.size()];
    double cpu_start = thread_cpu_ms();
    auto start = Clock::now();
    auto r = b.index->search(q);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    cpu_ms.push_back(thread_cpu_ms() - cpu_start);
    if (!r) state.SkipWithError(r.error().c_str());
    if (r) hits += r->hits.size(), total += r->total;
  }
  report(state, ms, cpu_ms);
  state.counters["avg_total"] = double(total) / double(ms.size());
  state.counters["avg_hits"] = double(hits) / double(ms.size());
}
BENCHMARK(BM_SearchQuery)->ArgName("mix")->Arg(kMixed)->Arg(kMostCommonWord)->Arg(kMatchAll)
    ->Iterations(2000)->Unit(benchmark::kMicrosecond)->UseRealTime();

// A burst of 250 messages (about 250 ms of a busy relay) made searchable;
// with removals:1 the burst also deletes one older message.
void BM_SearchCommit(benchmark::State& state) {
  BenchIndex& b = bench_index();
  const bool with_removal = state.range(0) != 0;
  std::vector<double> ms;
  std::string channel;
  for (auto _ : state) {
    state.PauseTiming();
    for (int i = 0; i < 250; ++i) (void)b.index->add(make_message(b.corpus, b.rng, b.docs++, &channel), channel);
    if (with_removal) (void)b.index->remove(make_message(b.corpus, b.rng, b.docs / 2 + ms.size(), &channel).id);
    state.ResumeTiming();
    auto start = Clock::now();
    (void)b.index->commit();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  report(state, ms);
  state.counters["carried_over"] = double(b.index->commits_carrying_columns());
}
BENCHMARK(BM_SearchCommit)->ArgName("removals")->Arg(0)->Arg(1)->Iterations(40)->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
