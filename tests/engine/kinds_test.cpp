// Unit tests for engine/kinds: the registry against docs/reference/kinds.md (accepted
// client kinds with their scope, channel rule and role; relay-emitted and
// relay-only kinds; refused and out-of-scope kinds absent), the kind-range
// classes of docs/reference/protocol.md §2.4, storage families, the p-gated set, and the
// table's own invariants (sorted, unique, scopes only on client kinds).
#include <gtest/gtest.h>

#include <set>

#include "engine/kinds.h"

namespace buzz::engine {
namespace {

TEST(KindRegistry, AcceptedClientKinds) {
  struct Row {
    uint16_t kind;
    ChannelRule channel;
    KindRole role;
    const char* scope;
  };
  using enum ChannelRule;
  using enum KindRole;
  for (const Row& r : std::vector<Row>{
           {0, kGlobal, kPlain, "users:write"},
           {1, kGlobal, kPlain, "messages:write"},
           {3, kGlobal, kPlain, "users:write"},
           {5, kTarget, kPlain, "messages:write"},
           {7, kTarget, kPlain, "messages:write"},
           {9, kRequired, kPlain, "messages:write"},
           {1059, kGlobal, kPlain, "messages:write"},
           {9000, kRequired, kNip29Admin, "admin:channels"},
           {9001, kRequired, kNip29Admin, "admin:channels"},
           {9002, kRequired, kNip29Admin, "channels:write"},
           {9005, kRequired, kNip29Admin, "messages:write"},
           {9007, kOptional, kNip29Admin, "channels:write"},
           {9008, kRequired, kNip29Admin, "admin:channels"},
           {9021, kRequired, kNip29Admin, "channels:read"},
           {9022, kRequired, kNip29Admin, "channels:read"},
           {9030, kGlobal, kRelayAdmin, "admin:users"},
           {9031, kGlobal, kRelayAdmin, "admin:users"},
           {9032, kGlobal, kRelayAdmin, "admin:users"},
           {10000, kGlobal, kPlain, "users:write"},
           {10002, kGlobal, kPlain, "users:write"},
           {10100, kGlobal, kPlain, "users:write"},
           {20001, kGlobal, kPlain, "messages:write"},
           {20002, kRequired, kPlain, "messages:write"},
           {28936, kGlobal, kRelayLeave, "channels:read"},
           {30023, kGlobal, kPlain, "messages:write"},
           {30078, kGlobal, kPlain, "users:write"},
           {30620, kRequired, kCommand, "messages:write"},
           {40002, kRequired, kPlain, "messages:write"},
           {40008, kRequired, kPlain, "messages:write"},
           {40100, kRequired, kPlain, "channels:write"},
           {41010, kGlobal, kCommand, "messages:write"},
           {41011, kRequired, kCommand, "messages:write"},
           {41012, kRequired, kCommand, "messages:write"},
           {43001, kRequired, kPlain, "jobs:write"},
           {43006, kRequired, kPlain, "jobs:write"},
           {45002, kRequired, kPlain, "messages:write"},
           {46020, kGlobal, kCommand, "messages:write"},
           {46030, kGlobal, kCommand, "messages:write"},
           {46031, kGlobal, kCommand, "messages:write"},
           {48100, kRequired, kPlain, "channels:write"},
           {48103, kRequired, kPlain, "channels:write"},
           {48106, kRequired, kPlain, "channels:write"},
       }) {
    const KindInfo* info = find_kind(r.kind);
    ASSERT_NE(info, nullptr) << r.kind;
    EXPECT_EQ(info->kind, r.kind);
    EXPECT_EQ(info->sender, Sender::kClient) << r.kind;
    EXPECT_EQ(info->channel, r.channel) << r.kind;
    EXPECT_EQ(info->role, r.role) << r.kind;
    EXPECT_EQ(info->scope, r.scope) << r.kind;
    EXPECT_FALSE(info->name.empty()) << r.kind;
  }
}

TEST(KindRegistry, RelayEmittedKindsAreNotClientKinds) {
  for (uint16_t k : {8000, 8001, 13534, 28990, 39000, 39001, 39002, 40099, 44100, 44101, 46010, 48101, 48102, 48110,
                     48111, 48112}) {
    const KindInfo* info = find_kind(k);
    ASSERT_NE(info, nullptr) << k;
    EXPECT_NE(info->sender, Sender::kClient) << k;
    EXPECT_TRUE(info->scope.empty()) << k;
  }
}

TEST(KindRegistry, RelayOnlyKinds) {
  for (uint16_t k : {40901, 40902, 30622, 30621}) {
    const KindInfo* info = find_kind(k);
    ASSERT_NE(info, nullptr) << k;
    EXPECT_EQ(info->sender, Sender::kRelayOnly) << k;
  }
}

TEST(KindRegistry, UnknownAndRefusedKindsAreAbsent) {
  // docs/reference/kinds.md §3 and §5: not on the allow-list, out of scope, or never a kind.
  for (uint16_t k : {2, 4, 6, 8, 41, 1063, 1617, 1633, 9003, 9009, 9035, 9036, 8002, 8003, 13535, 22242, 24134,
                     24200, 24242, 24620, 24621, 24622, 27235, 30174, 30617, 30618, 39003, 48001, 48104, 48105,
                     49001, 65535}) {
    EXPECT_EQ(find_kind(uint16_t(k)), nullptr) << k;
  }
}

TEST(KindRegistry, TableIsSortedUniqueAndConsistent) {
  std::set<uint16_t> seen;
  uint16_t prev = 0;
  bool first = true;
  for (const KindInfo& k : all_kinds()) {
    if (!first) {
      EXPECT_LT(prev, k.kind);
    }
    first = false;
    prev = k.kind;
    EXPECT_TRUE(seen.insert(k.kind).second) << k.kind;
    EXPECT_EQ(find_kind(k.kind), &k);
    // Client kinds need a token scope; relay kinds have none.
    EXPECT_EQ(k.sender == Sender::kClient, !k.scope.empty()) << k.kind;
  }
  EXPECT_GT(all_kinds().size(), 50u);
}

TEST(KindClasses, Ranges) {
  using enum KindClass;
  EXPECT_EQ(kind_class(0), kReplaceable);
  EXPECT_EQ(kind_class(3), kReplaceable);
  EXPECT_EQ(kind_class(41), kReplaceable);
  EXPECT_EQ(kind_class(10000), kReplaceable);
  EXPECT_EQ(kind_class(10002), kReplaceable);
  EXPECT_EQ(kind_class(19999), kReplaceable);
  EXPECT_EQ(kind_class(20000), kEphemeral);
  EXPECT_EQ(kind_class(20001), kEphemeral);
  EXPECT_EQ(kind_class(22242), kEphemeral);
  EXPECT_EQ(kind_class(29999), kEphemeral);
  EXPECT_EQ(kind_class(30000), kAddressable);
  EXPECT_EQ(kind_class(30023), kAddressable);
  EXPECT_EQ(kind_class(39999), kAddressable);
  for (uint16_t k : {1, 2, 4, 5, 7, 9, 40, 42, 1059, 9999, 40000, 40002, 65535}) {
    EXPECT_EQ(kind_class(k), kRegular) << k;
  }
}

TEST(KindClasses, Names) {
  EXPECT_EQ(kind_class_name(KindClass::kRegular), "regular");
  EXPECT_EQ(kind_class_name(KindClass::kReplaceable), "replaceable");
  EXPECT_EQ(kind_class_name(KindClass::kAddressable), "addressable");
  EXPECT_EQ(kind_class_name(KindClass::kEphemeral), "ephemeral");
}

TEST(KindClasses, StorageFamilies) {
  EXPECT_EQ(storage_family(1), StorageFamily::kRegular);
  EXPECT_EQ(storage_family(5), StorageFamily::kRegular);
  EXPECT_EQ(storage_family(9), StorageFamily::kRegular);
  EXPECT_EQ(storage_family(0), StorageFamily::kReplaceable);
  EXPECT_EQ(storage_family(3), StorageFamily::kReplaceable);
  EXPECT_EQ(storage_family(10002), StorageFamily::kReplaceable);
  EXPECT_EQ(storage_family(30023), StorageFamily::kAddressable);
  EXPECT_EQ(storage_family(39000), StorageFamily::kAddressable);
  EXPECT_EQ(storage_family(40000), StorageFamily::kBuzz);
  EXPECT_EQ(storage_family(40002), StorageFamily::kBuzz);
  EXPECT_EQ(storage_family(49999), StorageFamily::kBuzz);
  EXPECT_EQ(storage_family(50000), StorageFamily::kRegular);
  EXPECT_LT(int(storage_family(65535)), kStorageFamilies);
}

TEST(KindClasses, PGatedKinds) {
  for (uint16_t k : {1059, 44100, 44101, 30622}) EXPECT_TRUE(is_p_gated(k)) << k;
  for (uint16_t k : {1, 4, 9, 14, 1060, 30621, 44102}) EXPECT_FALSE(is_p_gated(k)) << k;
}

}  // namespace
}  // namespace buzz::engine
