// `buzz reindex`: rebuilds the full-text index (<data-dir>/search) from the
// event store, offline (the server holds the store's lock while it runs).
// Two passes over the searchable kinds: one to count, one to index, so the
// progress bar knows its end.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/event_parse.h"
#include "engine/json_text.h"
#include "engine/rocks_database.h"
#include "engine/rocks_event_store.h"
#include "index/clucene_search_index.h"
#include "index/search_document.h"
#include "server/app/cli.h"
#include "server/app/reindex.h"

namespace buzz::server {
namespace {

constexpr const char* kReindexHead = R"(Usage: buzz reindex [options]

Rebuilds the full-text search index from the stored events. Run it with the
server stopped; searches answer from the new index at the next start.
)";

const options::Option kReindexOptions[] = {
    {.name = "data-dir", .env = "BUZZ_DATA_DIR", .value = "DIR", .default_text = "./data", .help = "data directory"},
    {.name = "json", .help = "one JSON line with the result instead of a progress bar"},
};

// The kinds the index takes, in one list for both passes.
std::vector<uint16_t> searchable_kinds() {
  std::vector<uint16_t> out;
  for (uint32_t k = 0; k <= 65535; ++k) {
    if (index::is_searchable_kind(uint16_t(k))) out.push_back(uint16_t(k));
  }
  return out;
}

void draw_progress(uint64_t done, uint64_t total) {
  constexpr int kWidth = 30;
  const double share = total ? double(done) / double(total) : 1.0;
  const int filled = int(share * kWidth);
  std::fprintf(stderr, "\rindexing [%.*s%*s] %3d%%  %llu / %llu events", filled, "##############################",
               kWidth - filled, "", int(share * 100), static_cast<unsigned long long>(done),
               static_cast<unsigned long long>(total));
}

}  // namespace

engine::Result<ReindexReport> rebuild_search_index(const std::string& data_dir, bool bar) {
  auto db = engine::RocksDatabase::open(data_dir + "/db", engine::DatabaseOptions{});
  if (!db) return engine::Error{db.error()};
  engine::RocksEventStore store(**db);
  auto search = index::CLuceneSearchIndex::open(data_dir + "/search", index::CLuceneSearchIndex::OpenFor::kRebuild);
  if (!search) return engine::Error{search.error()};

  const std::vector<uint16_t> kinds = searchable_kinds();
  uint64_t total = 0;
  for (uint16_t k : kinds) {
    if (auto s = store.scan_kind(k, [&](std::string_view, const engine::EventFields&) { ++total; }); !s) return engine::Error{s.error()};
  }
  uint64_t seen = 0;
  ReindexReport report;
  auto indexed = index::rebuild(**search, [&](const auto& visit) {
    for (uint16_t k : kinds) {
      (void)store.scan_kind(k, [&](std::string_view raw, const engine::EventFields& f) {
        auto e = engine::parse_event_json(raw);
        if (e) visit(*e, f.channel);
        else ++report.unreadable;
        if (bar && (++seen % 1000 == 0 || seen == total)) draw_progress(seen, total);
      });
    }
  });
  if (bar) {
    draw_progress(total, total);
    std::fputc('\n', stderr);
  }
  if (!indexed) return engine::Error{indexed.error()};
  report.indexed = *indexed;
  return report;
}

int run_reindex(int argc, char** argv) {
  ParsedArgs args = parse_args(argc, argv, 2, kReindexOptions);
  const std::string usage = usage_text(kReindexHead, kReindexOptions);
  if (args.has("help")) return std::fputs(usage.c_str(), stdout), kExitOk;
  if (!args.error.empty() || !args.positional.empty()) {
    return usage_error("reindex", usage, args.error.empty() ? "unexpected argument" : args.error);
  }
  const bool json = args.has("json");
  const std::string data_dir = args.get("data-dir").value_or("./data");
  const auto started = std::chrono::steady_clock::now();
  auto report = rebuild_search_index(data_dir, !json && isatty(STDERR_FILENO));
  if (!report) return std::fprintf(stderr, "buzz reindex: %s\n", report.error().c_str()), kExitFailure;
  const uint64_t indexed = report->indexed, unreadable = report->unreadable;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (json) {
    std::printf("%s\n", json_object({{"indexed", std::to_string(indexed)},
                                     {"unreadable", std::to_string(unreadable)},
                                     {"seconds", std::to_string(secs)}})
                            .c_str());
  } else {
    std::printf("indexed %llu events in %.1f s into %s/search\n", static_cast<unsigned long long>(indexed), secs,
                data_dir.c_str());
  }
  return unreadable ? kExitFailure : kExitOk;
}

}  // namespace buzz::server
