// Differential test of both event stores: ~2000 random events and ~200
// random filters (fixed seeds) through the indexed query path, checked against
// a naive in-memory matcher built on Filter::matches, like strfry's dumbFilter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/kinds.h"
#include "tests/engine/event_store_fixture.h"

namespace buzz::engine {
namespace {

// ---------------------------------------------------------------------------
// differential test: indexed store vs naive matcher

struct DiffParams {
  uint64_t seed;
  bool inherited_channels;  // kinds 5/7 take their target's channel without an h tag
};

void PrintTo(const DiffParams& p, std::ostream* os) {
  *os << "seed " << p.seed << (p.inherited_channels ? ", inherited channels" : "");
}

class StoreDifferential : public EventStoreFixture,
                          public ::testing::WithParamInterface<std::tuple<DiffParams, Backend>> {
 protected:
  Backend backend() const override { return std::get<1>(GetParam()); }
};

// The naive model: what must be live after the writes, derived from the rules
// of docs/reference/protocol.md §10–11 without the store's indexes.
struct Model {
  struct Entry {
    Event event;
    std::string channel;
  };
  std::vector<Entry> stored;               // every accepted event
  std::map<Id, size_t> by_id;              // index into stored
  std::set<Id> dead;                       // superseded or deleted
  std::map<std::string, Id> pointer;       // replaceable/addressable winners

  static std::string pointer_key(const Event& e, const std::string& channel) {
    std::string k = std::to_string(e.kind) + "|" + e.pubkey_hex() + "|";
    bool rule_a = kind_class(e.kind) == KindClass::kReplaceable || (e.kind >= 39000 && e.kind <= 39002);
    return k + (rule_a ? channel : std::string(e.first_tag_value("d")));
  }

  // Applies one write and returns the outcome the store must report.
  WriteOutcome apply(const Event& e, const std::string& channel, std::vector<Id>* removed) {
    if (by_id.count(e.id)) return WriteOutcome::kDuplicate;
    if (e.kind == 5) {
      Id target;
      EXPECT_TRUE(from_hex(e.first_tag_value("e"), &target));
      EXPECT_TRUE(by_id.count(target));
      if (dead.insert(target).second) removed->push_back(target);
    }
    KindClass cls = kind_class(e.kind);
    if (cls == KindClass::kReplaceable || cls == KindClass::kAddressable) {
      std::string key = pointer_key(e, channel);
      auto it = pointer.find(key);
      if (it != pointer.end()) {
        const Event& cur = stored[by_id[it->second]].event;
        if (e.created_at < cur.created_at || (e.created_at == cur.created_at && e.id >= cur.id)) {
          return WriteOutcome::kStale;
        }
        dead.insert(cur.id);
        removed->push_back(cur.id);
      }
      pointer[key] = e.id;
    }
    by_id[e.id] = stored.size();
    stored.push_back({e, channel});
    return WriteOutcome::kStored;
  }

  std::vector<std::string> query(const Filter& f, size_t cap, uint64_t* total) const {
    std::vector<const Event*> hits;
    for (const Entry& s : stored) {
      if (dead.count(s.event.id)) continue;
      EventFields fields;
      fields.assign(s.event, s.channel);
      if (f.matches(fields)) hits.push_back(&s.event);
    }
    *total = hits.size();
    std::vector<std::string> out = newest_first(hits);
    size_t limit = std::min<size_t>(cap, f.limit.value_or(cap));
    if (out.size() > limit) out.resize(limit);
    return out;
  }
};

TEST_P(StoreDifferential, IndexedQueriesMatchTheNaiveMatcher) {
  const DiffParams params = std::get<0>(GetParam());
  std::mt19937_64 rng(params.seed);
  auto pick = [&](size_t n) { return size_t(rng() % n); };
  auto chance = [&](int percent) { return int(rng() % 100) < percent; };

  std::vector<Keypair> authors;
  for (uint8_t i = 0; i < 5; ++i) authors.push_back(key(uint8_t(10 + i)));
  const std::vector<std::string> channels = {"0b9a2d3c-2a0c-4a4e-9b7e-1f2d3c4b5a69",
                                             "7d1f0e2a-98b1-4c55-a0f4-4f3c2b1a0d9e",
                                             "e3c4d5f6-1a2b-4c3d-8e9f-0a1b2c3d4e5f"};
  const std::vector<std::string> t_values = {"a", "b", "c", "d", "nostr"};
  std::vector<std::string> p_values;
  for (const Keypair& k : authors) p_values.push_back(to_hex(k.pubkey));
  p_values.push_back(std::string(64, '7'));
  std::vector<std::string> e_values;
  for (int i = 0; i < 6; ++i) e_values.push_back(std::string(63, 'e') + char('0' + i));
  const std::vector<std::string> d_values = {"x", "y", "z", ""};
  const std::vector<uint16_t> kind_pool = {1, 1, 1, 1, 1, 7, 7, 9, 9, 9, 9, 40002, 40002, 1059,
                                           10002, 10002, 30023, 30023, 30023, 0, 5, 5};
  const uint64_t base = 1'700'000'000;

  std::vector<std::pair<Event, std::string>> generated;  // every event written, with its channel
  std::map<size_t, std::vector<size_t>> regular_by_author;  // deletable targets
  Model model;

  auto random_tag = [&]() -> Tag {
    switch (pick(8)) {
      case 0: case 1: return {"t", t_values[pick(t_values.size())]};
      case 2: case 3: return {"p", p_values[pick(p_values.size())]};
      case 4: return {"e", e_values[pick(e_values.size())], "wss://relay.example"};
      case 5: return {"t"};
      case 6: return {"title", t_values[pick(t_values.size())]};
      default: return {"T", t_values[pick(t_values.size())]};
    }
  };

  std::map<WriteOutcome, size_t> outcomes;
  size_t deletions = 0;
  const size_t kEvents = 2000;
  size_t written = 0;
  while (written < kEvents) {
    size_t batch_size = 1 + pick(40);
    std::vector<std::pair<Event, std::string>> batch;
    for (size_t b = 0; b < batch_size && written < kEvents; ++b, ++written) {
      if (!generated.empty() && chance(3)) {  // resubmit an earlier event
        batch.push_back(generated[pick(generated.size())]);
        continue;
      }
      size_t author = pick(authors.size());
      uint16_t kind = kind_pool[pick(kind_pool.size())];
      uint64_t at = base + pick(400);
      std::vector<Tag> tags;
      std::string channel;
      if (kind == 5) {
        auto& targets = regular_by_author[author];
        if (targets.empty()) {
          kind = 1;
        } else {
          const auto& [target, target_channel] = generated[targets[pick(targets.size())]];
          tags.push_back({"e", target.id_hex()});
          channel = target_channel;
          if (!channel.empty() && !params.inherited_channels) tags.push_back({"h", channel});
        }
      }
      if (kind == 7) {
        // A reaction to some earlier event, in that event's channel.
        if (!generated.empty()) {
          const auto& [target, target_channel] = generated[pick(generated.size())];
          tags.push_back({"e", target.id_hex()});
          channel = target_channel;
          if (!channel.empty() && !params.inherited_channels) tags.push_back({"h", channel});
        }
      }
      if (kind == 9 || kind == 40002) {
        channel = channels[pick(channels.size())];
        tags.push_back({"h", channel});
      }
      if (kind == 1 && chance(10)) tags.push_back({"h", channels[pick(channels.size())]});  // global: h ignored
      if (kind == 30023 && !chance(15)) tags.push_back({"d", d_values[pick(d_values.size())]});
      if (kind == 30023 && chance(10)) tags.push_back({"d", d_values[pick(d_values.size())]});
      for (size_t n = pick(4); n > 0; --n) {
        Tag t = random_tag();
        if (kind == 5 && t[0] == "e") continue;  // a deletion names exactly one target
        tags.push_back(std::move(t));
      }
      if (chance(5)) std::shuffle(tags.begin(), tags.end(), rng);
      std::string content = "m" + std::to_string(written);
      Event e = make_event(authors[author], kind, at, tags, content);
      generated.push_back({e, channel});
      if (kind == 1 || kind == 7 || kind == 9 || kind == 40002 || kind == 1059) {
        regular_by_author[author].push_back(generated.size() - 1);
      }
      batch.push_back({e, channel});
    }
    std::vector<std::pair<const Event*, std::string>> requests;
    for (const auto& [e, ch] : batch) requests.push_back({&e, ch});
    std::vector<WriteResult> results = write_batch(requests);
    ASSERT_EQ(results.size(), batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      std::vector<Id> expected_removed;
      WriteOutcome expected = model.apply(batch[i].first, batch[i].second, &expected_removed);
      ++outcomes[expected];
      deletions += batch[i].first.kind == 5 && expected == WriteOutcome::kStored;
      ASSERT_EQ(int(results[i].outcome), int(expected))
          << "write " << i << " kind " << batch[i].first.kind << ": " << results[i].reason;
      std::sort(expected_removed.begin(), expected_removed.end());
      std::vector<Id> got_removed = results[i].removed;
      std::sort(got_removed.begin(), got_removed.end());
      EXPECT_EQ(got_removed, expected_removed) << "write " << i << " kind " << batch[i].first.kind;
    }
  }
  ASSERT_GT(model.stored.size(), 1500u);
  // The generator must exercise every write rule, not just inserts.
  EXPECT_GT(outcomes[WriteOutcome::kDuplicate], 20u);
  EXPECT_GT(outcomes[WriteOutcome::kStale], 20u);
  EXPECT_GT(deletions, 20u);
  EXPECT_GT(model.dead.size(), 100u);

  // Random filters, written as JSON so the parser is exercised too.
  auto json_list = [](const std::vector<std::string>& v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ",\"" : "\"") + v[i] + "\"";
    return out + "]";
  };
  auto sample = [&](const std::vector<std::string>& pool, size_t max_n) {
    std::vector<std::string> out;
    for (size_t n = 1 + pick(max_n); n > 0; --n) out.push_back(pool[pick(pool.size())]);
    return out;
  };
  std::vector<std::string> all_ids;
  for (const auto& [e, ch] : generated) all_ids.push_back(e.id_hex());
  std::vector<std::string> author_pool = p_values;
  author_pool.pop_back();
  author_pool.push_back(to_hex(key(200).pubkey));  // a valid key with no events

  std::vector<std::string> filter_jsons = {"{}", R"({"limit":3})", R"({"kinds":[1,9]})"};
  while (filter_jsons.size() < 200) {
    std::vector<std::string> parts;
    if (chance(10)) {
      auto ids = sample(all_ids, 6);
      if (chance(30)) ids.push_back(std::string(64, '0'));
      parts.push_back("\"ids\":" + json_list(ids));
    }
    if (chance(35)) parts.push_back("\"authors\":" + json_list(sample(author_pool, 3)));
    if (chance(45)) {
      std::string kinds = "[";
      if (!chance(3)) {
        for (size_t n = 1 + pick(3); n > 0; --n) {
          uint16_t k = chance(10) ? 3 : kind_pool[pick(kind_pool.size())];
          kinds += (kinds.size() > 1 ? "," : "") + std::to_string(k);
        }
      }
      parts.push_back("\"kinds\":" + kinds + "]");
    }
    for (int n = chance(40) + chance(10); n > 0; --n) {
      switch (pick(7)) {
        case 0: parts.push_back("\"#t\":" + json_list(sample(t_values, 3))); break;
        case 1: parts.push_back("\"#p\":" + json_list(sample(p_values, 3))); break;
        case 2: {
          std::vector<std::string> pool = e_values;
          for (int i = 0; i < 6; ++i) pool.push_back(all_ids[pick(all_ids.size())]);
          parts.push_back("\"#e\":" + json_list(sample(pool, 3)));
          break;
        }
        case 3: parts.push_back("\"#h\":" + json_list(sample(channels, 2))); break;
        case 4: parts.push_back("\"#d\":" + json_list(sample(d_values, 2))); break;
        case 5: parts.push_back("\"#T\":" + json_list(sample(t_values, 2))); break;
        default: parts.push_back("\"#title\":[\"a\"]"); break;  // ignored key
      }
    }
    if (chance(25)) parts.push_back("\"since\":" + std::to_string(base - 10 + pick(420)));
    if (chance(25)) parts.push_back("\"until\":" + std::to_string(base - 10 + pick(420)));
    if (chance(40)) parts.push_back("\"limit\":" + std::to_string(chance(5) ? 1000 : pick(60)));
    std::shuffle(parts.begin(), parts.end(), rng);
    std::string json = "{";
    for (size_t i = 0; i < parts.size(); ++i) json += (i ? "," : "") + parts[i];
    filter_jsons.push_back(json + "}");
  }

  size_t nonempty = 0, mismatches = 0;
  std::vector<Filter> filters;
  for (const std::string& json : filter_jsons) {
    auto parsed = parse_filter_json(json);
    ASSERT_TRUE(parsed.ok()) << json << ": " << parsed.error();
    filters.push_back(*parsed);
    uint64_t total = 0;
    std::vector<std::string> expected = model.query(*parsed, kMaxQueryLimit, &total);
    std::vector<std::string> got = query(*parsed);
    nonempty += !expected.empty();
    if (got != expected && ++mismatches <= 10) {
      ADD_FAILURE() << "filter " << json << "\n  expected " << expected.size() << " events, got " << got.size();
    }
    uint64_t counted = 0;
    auto n = store_->count(std::span<const Filter>(&filters.back(), 1), {});
    ASSERT_TRUE(n.ok()) << n.error();
    counted = *n;
    EXPECT_EQ(counted, total) << "count of " << json;
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(nonempty, 100u);  // the generator must produce meaningful filters

  // COUNT over groups of filters is the size of the union.
  for (size_t g = 0; g + 4 <= filters.size(); g += 4) {
    std::set<std::string> uni;
    for (size_t i = g; i < g + 4; ++i) {
      uint64_t total;
      Filter unlimited = filters[i];
      unlimited.limit.reset();
      for (const std::string& id : model.query(unlimited, SIZE_MAX, &total)) uni.insert(id);
    }
    auto n = store_->count(std::span<const Filter>(filters.data() + g, 4), {});
    ASSERT_TRUE(n.ok()) << n.error();
    EXPECT_EQ(*n, uni.size()) << "count over filters " << g << ".." << g + 3;
  }
}

std::string diff_name(const ::testing::TestParamInfo<std::tuple<DiffParams, Backend>>& info) {
  const DiffParams& params = std::get<0>(info.param);
  return "Seed" + std::to_string(params.seed) + (params.inherited_channels ? "InheritedChannels" : "") + "_" +
         backend_name(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(FixedSeeds, StoreDifferential,
                         ::testing::Combine(::testing::Values(DiffParams{20240601, false}, DiffParams{7, false},
                                                              DiffParams{99, false}, DiffParams{20240601, true}),
                                            ::testing::Values(Backend::kRocksDB, Backend::kPostgreSQL)),
                         diff_name);

}  // namespace
}  // namespace buzz::engine
