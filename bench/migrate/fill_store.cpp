// buzz-migrate-fill: writes a data directory with a relaybench-style mix of
// signed events for the `buzz migrate` throughput figures (docs/performance.md):
//   buzz-migrate-fill DIR N
// 60 % channel messages (h tag, 40–400 bytes), 15 % global notes with a t tag,
// 15 % reactions (e, p tags), 5 % replies (e root tag), 3 % kind 0 / kind 3
// replaceables, 2 % kind 30023 articles (d tag, 2 KB); 200 authors, 20 channels,
// created_at spread over 2025-11 .. 2026-08 so every partition gets rows.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "engine/channel.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"

using namespace buzz::engine;

int main(int argc, char** argv) {
  if (argc != 3) return std::fputs("usage: buzz-migrate-fill DIR N\n", stderr), 2;
  const std::string dir = argv[1];
  const size_t n = std::strtoull(argv[2], nullptr, 10);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  auto db = RocksDatabase::open(dir + "/db", DatabaseOptions{});
  if (!db) return std::fprintf(stderr, "%s\n", db.error().c_str()), 1;
  RocksEventStore store(**db);
  std::mt19937_64 rng(42);
  std::vector<Keypair> authors(200);
  for (auto& k : authors) k = generate_keypair();
  std::vector<std::string> channels(20);
  for (auto& c : channels) c = random_uuid();
  std::vector<std::string> recent;  // ids to react to and reply to
  const uint64_t start = 1761955200, span = 300 * 86400;  // 2025-11-01, 300 days
  std::vector<Event> batch;
  auto text = [&](size_t len) {
    std::string s;
    while (s.size() < len) s += "the quick brown fox jumps over the lazy dog ";
    s.resize(len);
    return s;
  };
  for (size_t i = 0; i < n; ++i) {
    Event e;
    e.created_at = start + span * i / n;
    const Keypair& key = authors[rng() % authors.size()];
    const unsigned roll = unsigned(rng() % 100);
    const std::string target = recent.empty() ? std::string(64, 'a') : recent[rng() % recent.size()];
    if (roll < 60) {
      e.kind = 9;
      e.content = text(40 + rng() % 360);
      e.tags = {{"h", channels[rng() % channels.size()]}};
    } else if (roll < 75) {
      e.kind = 1;
      e.content = text(20 + rng() % 200);
      e.tags = {{"t", "bench"}};
    } else if (roll < 90) {
      e.kind = 7;
      e.content = "+";
      e.tags = {{"e", target}, {"p", to_hex(key.pubkey)}};
    } else if (roll < 95) {
      e.kind = 1;
      e.content = text(30 + rng() % 100);
      e.tags = {{"e", target, "", "root"}};
    } else if (roll < 98) {
      e.kind = roll % 2 ? 0 : 3;
      e.content = e.kind == 0 ? R"({"name":"bench","about":"a bench user"})" : "";
      if (e.kind == 3) e.tags = {{"p", to_hex(authors[rng() % authors.size()].pubkey)}};
    } else {
      e.kind = 30023;
      e.content = text(2000);
      e.tags = {{"d", "post-" + std::to_string(rng() % 1000)}, {"title", "bench"}};
    }
    sign_event(key, &e);
    if (recent.size() < 1000) recent.push_back(e.id_hex());
    else recent[rng() % recent.size()] = e.id_hex();
    batch.push_back(std::move(e));
    if (batch.size() == 2000 || i + 1 == n) {
      std::vector<WriteRequest> reqs;
      for (const Event& b : batch) reqs.push_back({&b, b.kind == 9 ? b.first_tag_value("h") : std::string_view()});
      if (auto r = store.write(reqs); !r) return std::fprintf(stderr, "%s\n", r.error().c_str()), 1;
      batch.clear();
    }
  }
  std::printf("wrote %zu events into %s\n", n, dir.c_str());
  return 0;
}
