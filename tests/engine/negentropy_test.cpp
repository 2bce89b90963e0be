// Negentropy protocol v1 (engine/negentropy.h): the wire pieces, the
// fingerprint, and whole reconciliations between two in-memory sets, with and
// without a frame limit. Interop with the reference implementation is in
// tests/e2e/js/negentropy.test.mjs.
#include "engine/negentropy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "engine/canonical.h"

namespace buzz::engine::negentropy {
namespace {

std::string bytes(std::initializer_list<uint8_t> b) { return std::string(b.begin(), b.end()); }

TEST(NegentropyVarint, RoundTripsAndRefusesBadInput) {
  for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(127), uint64_t(128), uint64_t(16383), uint64_t(1) << 40,
                     UINT64_MAX}) {
    std::string out;
    put_varint(out, n);
    size_t pos = 0;
    uint64_t back = 1;
    ASSERT_TRUE(get_varint(out, pos, back)) << n;
    EXPECT_EQ(back, n);
    EXPECT_EQ(pos, out.size());
  }
  std::string out;
  put_varint(out, 300);
  EXPECT_EQ(out, bytes({0x82, 0x2c}));  // big-endian base 128
  size_t pos = 0;
  uint64_t n = 0;
  EXPECT_FALSE(get_varint(bytes({0x82}), pos, n));  // cut short
  pos = 0;
  EXPECT_FALSE(get_varint(std::string(11, char(0xff)) + '\x01', pos, n));  // more than 64 bits
}

TEST(NegentropyFingerprint, SumsIdsModTwoToThe256) {
  // 0xff..ff + 1 wraps to zero, so the sum equals the empty sum; only the count differs.
  Id all_ones;
  all_ones.fill(0xff);
  Id one{};
  one[0] = 1;  // little-endian: the lowest byte first
  Accumulator wrapped;
  wrapped.add(all_ones);
  wrapped.add(one);
  EXPECT_EQ(wrapped.fingerprint(2), Accumulator().fingerprint(2));
  EXPECT_NE(wrapped.fingerprint(2), Accumulator().fingerprint(0));

  // The empty set: sha256 of 32 zero bytes and varint(0).
  std::string input(33, '\0');
  uint8_t hash[32];
  sha256(input.data(), input.size(), hash);
  Fingerprint expected;
  std::copy_n(hash, 16, expected.begin());
  EXPECT_EQ(Accumulator().fingerprint(0), expected);
}

Item item(std::mt19937_64& rng, uint64_t ts);

TEST(NegentropyFingerprint, RangeFromKeptSumsEqualsTheDirectSum) {
  std::mt19937_64 rng(11);
  for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000)}) {
    std::vector<Item> items;
    for (size_t i = 0; i < n; ++i) items.push_back(item(rng, i));
    ItemSet set(items);
    for (int trial = 0; trial < 50; ++trial) {
      size_t a = n ? rng() % (n + 1) : 0, b = n ? rng() % (n + 1) : 0;
      if (a > b) std::swap(a, b);
      Accumulator direct;
      for (size_t i = a; i < b; ++i) direct.add(set[i].id);
      ASSERT_EQ(set.fingerprint(a, b), direct.fingerprint(b - a)) << n << " [" << a << ", " << b << ")";
    }
  }
}

TEST(NegentropyWire, HexIsStrict) {
  std::string bin;
  EXPECT_TRUE(from_wire("6100", bin));
  EXPECT_EQ(bin, bytes({0x61, 0x00}));
  EXPECT_FALSE(from_wire("610", bin));
  EXPECT_FALSE(from_wire("zz", bin));
  EXPECT_EQ(to_wire(bytes({0x61, 0xab})), "61ab");
}

Item item(std::mt19937_64& rng, uint64_t ts) {
  Item it;
  it.created_at = ts;
  for (auto& b : it.id) b = uint8_t(rng());
  return it;
}

struct Pair {
  ItemSet client, server;
  std::set<Id> only_client, only_server;
};

// `size` shared-or-not items; `diff_percent` of them on one side only, half each way.
Pair make_sets(size_t size, int diff_percent, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Item> c, s;
  Pair p;
  for (size_t i = 0; i < size; ++i) {
    // Few distinct timestamps, so bounds need id prefixes too.
    Item it = item(rng, 1'700'000'000 + rng() % (size / 4 + 1));
    const bool differs = int(rng() % 100) < diff_percent;
    if (!differs || i % 2 == 0) c.push_back(it);
    if (!differs || i % 2 == 1) s.push_back(it);
    if (differs) (i % 2 == 0 ? p.only_client : p.only_server).insert(it.id);
  }
  p.client = ItemSet(std::move(c));
  p.server = ItemSet(std::move(s));
  return p;
}

// How the reference implementation splits: 16 buckets, ranges under 32 items listed.
SplitPolicy reference_policy() {
  SplitPolicy p;
  p.wide_above = 0;
  p.wide_buckets = 16;
  p.initiator_list_at_most = p.responder_list_at_most = 31;
  return p;
}

// Stores list newest first, a run per storage family (with ids ascending
// within a second); any order must give the same set.
TEST(NegentropyItemSet, OrdersNewestFirstRunsAndAnyOtherOrder) {
  std::mt19937_64 rng(3);
  std::vector<Item> main_run, tail;
  for (size_t i = 0; i < 20'000; ++i) main_run.push_back(item(rng, 1'700'000'000 + rng() % 5'000));  // many ties
  for (size_t i = 0; i < 50; ++i) tail.push_back(item(rng, 1'700'000'000 + rng() % 10'000));
  auto newest_first = [](std::vector<Item>& v) {
    std::sort(v.begin(), v.end(), [](const Item& a, const Item& b) {
      return a.created_at != b.created_at ? a.created_at > b.created_at : a.id < b.id;
    });
  };
  newest_first(main_run);
  newest_first(tail);
  std::vector<Item> stored = main_run;
  stored.insert(stored.end(), tail.begin(), tail.end());
  stored.push_back(stored.front());  // a duplicate goes
  std::vector<Item> expected(stored.begin(), stored.end() - 1);
  std::sort(expected.begin(), expected.end());
  EXPECT_TRUE(ItemSet(stored).items() == expected);
  std::shuffle(stored.begin(), stored.end(), rng);
  EXPECT_TRUE(ItemSet(stored).items() == expected);
  std::sort(stored.begin(), stored.end());
  EXPECT_TRUE(ItemSet(stored).items() == expected);
}

struct Exchange {
  int rounds = 0;
  size_t up = 0, down = 0;  // binary bytes each way
};

// Runs the protocol to the end. Each id must be reported once.
Exchange reconcile_all(const Pair& p, size_t client_limit, size_t server_limit, std::set<Id>& have, std::set<Id>& need,
                  SplitPolicy client_policy = {}, SplitPolicy server_policy = {}) {
  Reconciler client(p.client, client_limit, client_policy), server(p.server, server_limit, server_policy);
  std::string msg = client.initiate();
  Exchange run;
  while (!msg.empty()) {
    EXPECT_LT(++run.rounds, 2000);  // 4,096-byte frames move 5,000 differences in a few hundred
    if (run.rounds >= 2000) break;
    if (client_limit) {
      EXPECT_LE(msg.size(), client_limit);
    }
    run.up += msg.size();
    auto reply = server.reconcile(msg);
    EXPECT_TRUE(reply.ok()) << reply.error();
    if (!reply) break;
    if (server_limit) {
      EXPECT_LE(reply->next.size(), server_limit);
    }
    run.down += reply->next.size();
    auto out = client.reconcile(reply->next);
    EXPECT_TRUE(out.ok()) << out.error();
    if (!out) break;
    for (const Id& id : out->have) EXPECT_TRUE(have.insert(id).second) << "reported twice";
    for (const Id& id : out->need) EXPECT_TRUE(need.insert(id).second) << "reported twice";
    msg = out->next;
  }
  return run;
}

int reconcile_all(const Pair& p, size_t frame_limit, std::set<Id>& have, std::set<Id>& need) {
  return reconcile_all(p, frame_limit, frame_limit, have, need).rounds;
}

class NegentropyReconcile : public ::testing::TestWithParam<std::tuple<size_t, int, size_t>> {};

TEST_P(NegentropyReconcile, FindsExactlyTheDifference) {
  auto [size, diff, frame_limit] = GetParam();
  Pair p = make_sets(size, diff, size * 131 + diff);
  std::set<Id> have, need;
  const int rounds = reconcile_all(p, frame_limit, have, need);
  // Sizes first: a failing set comparison would print thousands of ids.
  ASSERT_EQ(have.size(), p.only_client.size()) << rounds << " rounds";
  ASSERT_EQ(need.size(), p.only_server.size()) << rounds << " rounds";
  EXPECT_TRUE(have == p.only_client);
  EXPECT_TRUE(need == p.only_server);
}

INSTANTIATE_TEST_SUITE_P(Sizes, NegentropyReconcile,
                         ::testing::Combine(::testing::Values(0, 1, 31, 32, 10'000), ::testing::Values(0, 1, 50),
                                            ::testing::Values(0, kMinFrameLimit)));

// Our reconciler against one that splits like the reference, in both roles,
// and against a responder whose smaller frames fold most answers.
class NegentropyMixed : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(NegentropyMixed, FindsExactlyTheDifference) {
  auto [diff, variant] = GetParam();
  Pair p = make_sets(10'000, diff, 77 + diff);
  std::set<Id> have, need;
  Exchange run;
  if (variant == 0) run = reconcile_all(p, 30'000, 30'000, have, need, {}, reference_policy());
  if (variant == 1) run = reconcile_all(p, 30'000, 30'000, have, need, reference_policy(), {});
  if (variant == 2) run = reconcile_all(p, 30'000, kMinFrameLimit, have, need);
  ASSERT_EQ(have.size(), p.only_client.size()) << run.rounds << " rounds";
  ASSERT_EQ(need.size(), p.only_server.size()) << run.rounds << " rounds";
  EXPECT_TRUE(have == p.only_client);
  EXPECT_TRUE(need == p.only_server);
}

INSTANTIATE_TEST_SUITE_P(Peers, NegentropyMixed, ::testing::Combine(::testing::Values(0, 1, 50), ::testing::Values(0, 1, 2)));

// A message of `ranges` fingerprints over `every` items each, all of them
// wrong, and the rest of the set skipped.
std::string wrong_fingerprints(const ItemSet& set, size_t ranges, size_t every) {
  std::string msg(1, char(kProtocolVersion));
  uint64_t last = 0;
  for (size_t r = 1; r <= ranges; ++r) {
    const Item& upper = set[r * every];
    put_varint(msg, upper.created_at - last + 1);
    last = upper.created_at;
    put_varint(msg, 32);
    msg.append(reinterpret_cast<const char*>(upper.id.data()), 32);
    put_varint(msg, 1);  // fingerprint
    msg.append(kFingerprintBytes, '\0');
  }
  return msg + bytes({0x00, 0x00, 0x00});  // infinity, skip
}

// Where most items differ the responder lists a differing range instead of
// splitting it. A range whose ids do not fit one frame is listed as far as
// the frame goes and the rest folded: answering nothing and folding it all
// made the reference's JavaScript client ask the same range again forever
// (the 1,000,000-id, 50 % interop cell; it splits the folded rest into 16
// fingerprints of thousands of items each).
TEST(NegentropyReconcile, AWholeDifferingRangeIsListedAsFarAsTheFrameGoes) {
  Pair p = make_sets(100'000, 0, 13);
  Reconciler server(p.server, 30'000);
  // 60 small ranges that all differ: the responder now lists what differs.
  ASSERT_TRUE(server.reconcile(wrong_fingerprints(p.server, 60, 10)).ok());
  std::string whole(1, char(kProtocolVersion));
  whole += bytes({0x00, 0x00, 0x01});  // up to infinity, a fingerprint
  whole.append(kFingerprintBytes, '\0');
  auto reply = server.reconcile(whole);
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_LE(reply->next.size(), 30'000u);
  EXPECT_GT(reply->next.size(), 25'000u) << "the answer lists the ids that fit, not just the folded rest";
}

// The bytes of scattered differences (docs/performance.md): about 12
// fingerprints a difference, where the reference's split lists ~15 ids each
// way for each. 100,000 items, 1 %: 1,000 differences.
TEST(NegentropyReconcile, ScatteredDifferencesCostFingerprintsNotIdLists) {
  Pair p = make_sets(100'000, 1, 5);
  const size_t differences = p.only_client.size() + p.only_server.size();
  std::set<Id> have, need, have_ref, need_ref;
  const Exchange ours = reconcile_all(p, 30'000, 30'000, have, need);
  const Exchange ref = reconcile_all(p, 30'000, 30'000, have_ref, need_ref, reference_policy(), reference_policy());
  EXPECT_EQ(have.size() + need.size(), differences);
  EXPECT_EQ(have_ref.size() + need_ref.size(), differences);
  EXPECT_LT(ours.up, 200 * differences) << ours.up << " bytes up";
  EXPECT_LT(ours.down, 200 * differences) << ours.down << " bytes down";
  EXPECT_LT(ours.up + ours.down, (ref.up + ref.down) / 2);
}

TEST(NegentropyReconcile, EqualSetsFinishInOneRound) {
  Pair p = make_sets(10'000, 0, 7);
  std::set<Id> have, need;
  EXPECT_EQ(reconcile_all(p, 0, have, need), 1);
  EXPECT_TRUE(have.empty() && need.empty());
}

TEST(NegentropyReconcile, HostileMessagesAreErrorsNotCrashes) {
  Pair p = make_sets(1000, 10, 3);
  Reconciler server(p.server, kMinFrameLimit);
  auto error = [&](const std::string& msg) {
    auto r = server.reconcile(msg);
    return r.ok() ? std::string("ok") : r.error();
  };
  EXPECT_EQ(error(""), "empty message");
  EXPECT_EQ(error(bytes({0x01})), "invalid protocol version byte");
  EXPECT_EQ(error(bytes({0x61, 0x00})), "parse ends prematurely");                    // bound cut short
  EXPECT_EQ(error(bytes({0x61, 0x00, 0x21}) + std::string(33, 'x') + '\0'), "parse ends prematurely");  // prefix > 32
  EXPECT_EQ(error(bytes({0x61, 0x00, 0x00, 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f})), "parse ends prematurely");  // huge IdList
  EXPECT_EQ(error(bytes({0x61, 0x00, 0x00, 0x01, 1, 2, 3})), "parse ends prematurely");  // fingerprint cut short
  EXPECT_EQ(error(bytes({0x61, 0x00, 0x00, 0x05})), "unexpected mode 5");
  std::string huge_ts(1, char(kProtocolVersion));
  put_varint(huge_ts, UINT64_MAX);  // a timestamp past every item: the whole set, as infinity
  huge_ts += bytes({0x00, 0x00});
  EXPECT_EQ(error(huge_ts), "ok");
  // Another protocol version: the answer names ours and carries nothing else.
  auto other = server.reconcile(bytes({0x62}));
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->next, bytes({0x61}));
}

}  // namespace
}  // namespace buzz::engine::negentropy
