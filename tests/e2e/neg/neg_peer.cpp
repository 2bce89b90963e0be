// buzz-neg-peer: the C++ side of the NIP-77 interop grid
// (tests/e2e/js/negentropy_interop.test.mjs), test-only.
//
//   buzz-neg-peer fill DIR PUBKEY_HEX N ITEMS_OUT
//       writes N kind-1 events by PUBKEY straight into DIR's store (ids
//       computed, signatures random: the relay serving DIR reconciles them, no
//       one verifies them), and their (created_at, id) to ITEMS_OUT.
//   buzz-neg-peer reconcile URL FILTER_JSON ITEMS_IN OUT_JSON
//       runs `buzz sync`'s negentropy initiator (RelayLink::reconcile, AUTH
//       with a fresh key) against URL with ITEMS_IN as its set, and writes
//       {"have":[hex…],"need":[hex…],"rounds":…,"bytes_up":…,"bytes_down":…}.
//
// An items file is 40 bytes an item: created_at (u64, little-endian), then the id.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/hex.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "tools/sync/relay_link.h"

using namespace buzz;
namespace neg = engine::negentropy;

namespace {

int fail(const std::string& why) {
  std::fprintf(stderr, "buzz-neg-peer: %s\n", why.c_str());
  return 1;
}

bool write_items(const std::string& path, const std::vector<neg::Item>& items) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (const neg::Item& it : items) {
    uint8_t rec[40];
    for (int b = 0; b < 8; ++b) rec[b] = uint8_t(it.created_at >> (8 * b));
    std::memcpy(rec + 8, it.id.data(), 32);
    out.write(reinterpret_cast<const char*>(rec), sizeof rec);
  }
  return bool(out.flush());
}

bool read_items(const std::string& path, std::vector<neg::Item>* items) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  uint8_t rec[40];
  while (in.read(reinterpret_cast<char*>(rec), sizeof rec)) {
    neg::Item it;
    for (int b = 0; b < 8; ++b) it.created_at |= uint64_t(rec[b]) << (8 * b);
    std::memcpy(it.id.data(), rec + 8, 32);
    items->push_back(it);
  }
  return in.eof() && in.gcount() == 0;
}

int fill(const std::string& dir, const std::string& pubkey_hex, size_t n, const std::string& out) {
  engine::Pubkey author;
  if (!engine::from_hex(pubkey_hex, &author)) return fail("bad pubkey");
  std::filesystem::create_directories(dir);
  auto db = engine::RocksDatabase::open(dir + "/db", engine::DatabaseOptions{});
  if (!db) return fail(db.error());
  engine::RocksEventStore store(**db);
  std::vector<neg::Item> items;
  std::vector<engine::Event> batch;
  auto flush = [&]() -> bool {
    std::vector<engine::WriteRequest> reqs;
    for (const engine::Event& e : batch) reqs.push_back({&e, {}});
    auto r = store.write(reqs);
    batch.clear();
    return bool(r);
  };
  const uint64_t now = engine::unix_now();
  for (size_t i = 0; i < n; ++i) {
    engine::Event e;
    e.pubkey = author;
    e.kind = 1;
    e.created_at = now - 86400 + (86400 * i) / std::max<size_t>(n, 1);  // many share a second
    e.content = "grid " + std::to_string(i);
    e.id = engine::compute_id(e);
    engine::random_bytes(e.sig.data(), e.sig.size());
    e.raw = engine::serialize_event(e);
    items.push_back({e.created_at, e.id});
    batch.push_back(std::move(e));
    if (batch.size() == 5000 && !flush()) return fail("write failed");
  }
  if (!flush()) return fail("write failed");
  return write_items(out, items) ? 0 : fail("cannot write " + out);
}

int reconcile(const std::string& url, const std::string& filter, const std::string& in, const std::string& out) {
  std::vector<neg::Item> items;
  if (!read_items(in, &items)) return fail("cannot read " + in);
  auto link = sync::RelayLink::open(url, {engine::generate_keypair(), ""});
  if (!link) return fail(link.error());
  auto r = (*link)->reconcile(filter, neg::ItemSet(std::move(items)));
  if (!r) return fail(r.error());
  std::string json = "{\"have\":[";
  for (size_t i = 0; i < r->have.size(); ++i) json += (i ? ",\"" : "\"") + engine::to_hex(r->have[i]) + "\"";
  json += "],\"need\":[";
  for (size_t i = 0; i < r->need.size(); ++i) json += (i ? ",\"" : "\"") + engine::to_hex(r->need[i]) + "\"";
  json += "],\"rounds\":" + std::to_string(r->rounds) + ",\"bytes_up\":" + std::to_string(r->bytes_up) +
          ",\"bytes_down\":" + std::to_string(r->bytes_down) + "}\n";
  std::ofstream o(out, std::ios::trunc);
  return (o << json) && o.flush() ? 0 : fail("cannot write " + out);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "fill" && argc == 6) return fill(argv[2], argv[3], std::strtoull(argv[4], nullptr, 10), argv[5]);
  if (cmd == "reconcile" && argc == 6) return reconcile(argv[2], argv[3], argv[4], argv[5]);
  std::fputs("usage: buzz-neg-peer fill DIR PUBKEY_HEX N ITEMS_OUT\n"
             "       buzz-neg-peer reconcile URL FILTER_JSON ITEMS_IN OUT_JSON\n", stderr);
  return 2;
}
