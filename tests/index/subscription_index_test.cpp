// Differential test of index/subscription_index against a dumb scan, as
// strfry checks its live index: random subscriptions and events over small
// value domains (so that matches are common), and for every event the index
// must offer exactly the subscriptions a linear walk picks — the membership
// boundary (a channel's event reaches only that channel's subscriptions and
// the global ones listing it; the relay's group state also the global ones
// naming its kind) and then Filter::matches. Subscriptions come and
// go between events, so removal is checked too.
#include "index/subscription_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <set>

namespace buzz::index {
namespace {

constexpr uint16_t kKinds[] = {1, 7, 9, 1059, 40002, 39000, 39002};
const std::string kChannels[] = {"c0000000-0000-4000-8000-000000000000", "c1111111-1111-4111-8111-111111111111",
                                 "c2222222-2222-4222-8222-222222222222"};
const std::string kPeople[] = {std::string(64, 'a'), std::string(64, 'b'), std::string(64, 'c')};
const std::string kTopics[] = {"ops", "web"};

class World {
 public:
  explicit World(uint32_t seed) : rng_(seed) {
    for (uint8_t i = 0; i < 3; ++i) authors_[i].fill(uint8_t(i + 1));
  }

  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool coin(int percent) { return int(pick(100)) < percent; }

  // A filter naming a random subset of fields; sometimes an empty list (matches nothing).
  engine::Filter filter() {
    engine::Filter f;
    if (coin(70)) f.kinds = some<uint16_t>(kKinds);
    if (coin(30)) f.authors = some<engine::Pubkey>(authors_);
    if (coin(40)) f.tags.push_back({'p', some<std::string>(kPeople)});
    if (coin(20)) f.tags.push_back({'t', some<std::string>(kTopics)});
    if (coin(15)) f.since = 100 + pick(20);
    if (coin(15)) f.until = 100 + pick(20);
    f.normalize();
    return f;
  }

  std::unique_ptr<Subscription> subscription(uint64_t owner) {
    auto s = std::make_unique<Subscription>();
    s->owner = owner;
    s->id = "s" + std::to_string(owner);
    for (size_t n = 1 + pick(3); n > 0; --n) s->filters.push_back(filter());
    const size_t shape = pick(3);
    if (shape == 0) {
      s->channel = kChannels[pick(3)];  // channel-scoped
    } else if (shape == 1) {
      for (const std::string& c : kChannels) {  // global, listing channels its caller may read
        if (coin(50)) s->channels.push_back(c);
      }
    }
    return s;
  }

  // An event and the fields the fan-out offers; `tags` owns what the fields point at.
  struct Sample {
    engine::Id id{};
    engine::Pubkey pubkey{};
    std::vector<std::pair<char, std::string>> tags;
    std::string channel;
    engine::EventFields fields;
  };
  std::unique_ptr<Sample> event(uint32_t n) {
    auto e = std::make_unique<Sample>();
    e->id[0] = uint8_t(n);
    e->id[1] = uint8_t(n >> 8);
    e->pubkey = authors_[pick(3)];
    if (coin(60)) e->channel = kChannels[pick(3)];
    if (coin(60)) e->tags.push_back({'p', kPeople[pick(3)]});
    if (coin(20)) e->tags.push_back({'p', kPeople[pick(3)]});
    if (coin(30)) e->tags.push_back({'t', kTopics[pick(2)]});
    e->fields.id = e->id.data();
    e->fields.pubkey = e->pubkey.data();
    e->fields.created_at = 100 + pick(20);
    e->fields.kind = kKinds[pick(std::size(kKinds))];
    e->fields.channel = e->channel;
    for (const auto& [name, value] : e->tags) e->fields.tags.push_back({name, value});
    return e;
  }

 private:
  // A random subset (possibly empty) of a domain.
  template <class T, class Domain>
  std::vector<T> some(const Domain& domain) {
    std::vector<T> out;
    for (const auto& v : domain) {
      if (coin(45)) out.push_back(T(v));
    }
    return out;
  }

  std::mt19937 rng_;
  engine::Pubkey authors_[3];
};

// The rule the index implements, written as plainly as it can be.
bool should_see(const Subscription& s, const engine::EventFields& e) {
  auto names_kinds = [](const engine::Filter& f) { return f.kinds.has_value(); };
  const bool global_naming_kinds = s.channel.empty() && std::all_of(s.filters.begin(), s.filters.end(), names_kinds);
  const bool in_scope = e.channel.empty()
                            ? s.channel.empty()
                            : s.channel == e.channel ||
                                  std::find(s.channels.begin(), s.channels.end(), e.channel) != s.channels.end() ||
                                  (is_group_state(e.kind) && global_naming_kinds);
  return in_scope && std::any_of(s.filters.begin(), s.filters.end(), [&](const engine::Filter& f) { return f.matches(e); });
}

void run(uint32_t seed) {
  World world(seed);
  SubscriptionIndex index;
  std::vector<std::unique_ptr<Subscription>> live;
  uint64_t next_owner = 1;
  size_t delivered = 0;
  for (uint32_t round = 0; round < 3000; ++round) {
    // Churn: mostly adds until about 60 are live, then as many removals.
    if (live.size() < 20 || world.coin(live.size() < 60 ? 70 : 45)) {
      live.push_back(world.subscription(next_owner++));
      index.add(live.back().get());
    } else {
      const size_t at = world.pick(live.size());
      index.remove(live[at].get());
      live.erase(live.begin() + ptrdiff_t(at));
    }
    ASSERT_EQ(index.size(), live.size());
    auto e = world.event(round);
    std::multiset<uint64_t> got, want;
    index.match(e->fields, [&](const Subscription& s) { got.insert(s.owner); });
    for (const auto& s : live) {
      if (should_see(*s, e->fields)) want.insert(s->owner);
    }
    ASSERT_EQ(got, want) << "seed " << seed << ", round " << round << ", channel '" << e->channel << "', kind "
                         << e->fields.kind;
    delivered += got.size();
  }
  EXPECT_GT(delivered, 1000u) << "the domains are too sparse for the comparison to mean anything";
}

TEST(SubscriptionIndexTest, OffersExactlyWhatALinearScanMatches) {
  for (uint32_t seed = 1; seed <= 20; ++seed) run(seed);
}

TEST(SubscriptionIndexTest, AChannelEventNeverReachesAGlobalSubscriptionThatDoesNotListItsChannel) {
  SubscriptionIndex index;
  Subscription wildcard, listing;
  wildcard.filters.push_back({});                  // {}: every event, but only global ones
  listing.filters.push_back({});
  listing.channels = {"c0000000-0000-4000-8000-000000000000"};
  index.add(&wildcard);
  index.add(&listing);
  engine::Id id{};
  engine::Pubkey pk{};
  engine::EventFields e;
  e.id = id.data();
  e.pubkey = pk.data();
  e.kind = 9;
  e.channel = "c1111111-1111-4111-8111-111111111111";
  size_t offered = 0;
  index.match(e, [&](const Subscription&) { ++offered; });
  EXPECT_EQ(offered, 0u);
  e.channel = "c0000000-0000-4000-8000-000000000000";
  std::vector<const Subscription*> got;
  index.match(e, [&](const Subscription& s) { got.push_back(&s); });
  EXPECT_EQ(got, std::vector<const Subscription*>{&listing});
}

// A channel's group state reaches the global subscriptions naming its kind (a
// client's one subscription for the whole channel list), never a wildcard one
// nor one scoped to another channel; a channel's other kinds stay in its tiers.
TEST(SubscriptionIndexTest, AChannelsGroupStateAlsoReachesGlobalSubscriptionsNamingItsKind) {
  SubscriptionIndex index;
  Subscription by_kind, by_kind_and_p, wildcard, elsewhere, messages;
  by_kind.filters.push_back({});
  by_kind.filters.back().kinds = std::vector<uint16_t>{kind::kGroupMetadata, kind::kGroupMembers};
  by_kind_and_p.filters.push_back(by_kind.filters.back());
  by_kind_and_p.filters.back().tags.push_back({'p', {std::string(64, 'a')}});
  wildcard.filters.push_back({});
  elsewhere.filters.push_back(by_kind.filters.back());
  elsewhere.channel = "c1111111-1111-4111-8111-111111111111";
  messages.filters.push_back({});
  messages.filters.back().kinds = std::vector<uint16_t>{9};
  for (Subscription* s : {&by_kind, &by_kind_and_p, &wildcard, &elsewhere, &messages}) index.add(s);
  engine::Id id{};
  engine::Pubkey pk{};
  const std::string member(64, 'a');
  engine::EventFields e;
  e.id = id.data();
  e.pubkey = pk.data();
  e.kind = kind::kGroupMetadata;
  e.channel = "c0000000-0000-4000-8000-000000000000";
  e.tags.push_back({'p', member});
  std::set<const Subscription*> got;
  index.match(e, [&](const Subscription& s) { got.insert(&s); });
  EXPECT_EQ(got, (std::set<const Subscription*>{&by_kind, &by_kind_and_p}));
  got.clear();
  e.kind = 9;
  index.match(e, [&](const Subscription& s) { got.insert(&s); });
  EXPECT_TRUE(got.empty()) << "a channel's message reached a global subscription";
}

}  // namespace
}  // namespace buzz::index
