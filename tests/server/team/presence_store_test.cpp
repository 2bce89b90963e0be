// Unit tests for server/presence_store: status parsing (bare string, legacy
// {"status": …}, the 128-byte cut on a character boundary), the 90 s presence
// TTL and "offline" clearing it, and the 5 s typing window per channel.
#include <gtest/gtest.h>

#include "server/team/presence_store.h"

namespace buzz::server {
namespace {

engine::Pubkey presence_pk(uint8_t n) {
  engine::Pubkey p{};
  p[0] = n;
  return p;
}

TEST(PresenceStoreTest, StatusTextFromContent) {
  EXPECT_EQ(presence_status("online"), "online");
  EXPECT_EQ(presence_status(R"({"status":"away"})"), "away");
  EXPECT_EQ(presence_status("{not json"), "{not json");
  EXPECT_EQ(presence_status(std::string(200, 'x')).size(), kMaxPresenceStatusBytes);
  // 127 ASCII bytes then a 2-byte character: the cut keeps the text valid UTF-8.
  std::string s = std::string(127, 'a') + "\xc3\xa9" + "tail";
  EXPECT_EQ(presence_status(s), std::string(127, 'a'));
}

TEST(PresenceStoreTest, StatusExpiresAfterTheTtlAndOfflineClearsIt) {
  MemoryPresenceStore store;
  store.set_status(presence_pk(1), "online", 1000);
  EXPECT_EQ(store.status(presence_pk(1), 1000), "online");
  EXPECT_EQ(store.status(presence_pk(1), 1000 + kPresenceTtlSecs - 1), "online");
  EXPECT_FALSE(store.status(presence_pk(1), 1000 + kPresenceTtlSecs));
  store.set_status(presence_pk(1), "away", 2000);
  store.set_status(presence_pk(1), "offline", 2001);
  EXPECT_FALSE(store.status(presence_pk(1), 2001));
  store.set_status(presence_pk(2), "online", 3000);
  EXPECT_TRUE(store.clear(presence_pk(2), 3001));  // it was online
  EXPECT_FALSE(store.status(presence_pk(2), 3000));
  EXPECT_FALSE(store.clear(presence_pk(2), 3001));
  store.set_status(presence_pk(3), "away", 3000);
  EXPECT_FALSE(store.clear(presence_pk(3), 3000 + kPresenceTtlSecs));  // already expired
}

TEST(PresenceStoreTest, ExpireForgetsAndNamesTheStatusesPastTheirTtl) {
  MemoryPresenceStore store;
  store.set_status(presence_pk(1), "online", 1000);
  store.set_status(presence_pk(2), "away", 1050);
  EXPECT_TRUE(store.expire(1000 + kPresenceTtlSecs - 1).empty());
  EXPECT_EQ(store.expire(1000 + kPresenceTtlSecs), std::vector<engine::Pubkey>{presence_pk(1)});
  EXPECT_TRUE(store.expire(1000 + kPresenceTtlSecs).empty());  // forgotten
  EXPECT_EQ(store.status(presence_pk(2), 1000 + kPresenceTtlSecs), "away");
}

TEST(PresenceStoreTest, TypingLastsFiveSecondsPerChannel) {
  MemoryPresenceStore store;
  store.set_typing("chan-a", presence_pk(1), 100);
  store.set_typing("chan-a", presence_pk(2), 103);
  store.set_typing("chan-b", presence_pk(3), 103);
  EXPECT_EQ(store.typing("chan-a", 104).size(), 2u);
  std::vector<engine::Pubkey> later = store.typing("chan-a", 100 + kTypingWindowSecs);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0], presence_pk(2));
  EXPECT_TRUE(store.typing("chan-c", 100).empty());
}

// A proxy guest's channels outlive its status (so the offline announced when
// the status lapses can name them), then go at the next expire().
TEST(PresenceStoreTest, GuestChannelsOutliveTheStatusThenExpire) {
  MemoryPresenceStore store;
  store.set_status(presence_pk(4), "online", 1000);
  store.set_guest_channels(presence_pk(4), {"chan-a", "chan-b"}, 1000);
  EXPECT_EQ(store.expire(1000 + kPresenceTtlSecs), std::vector<engine::Pubkey>{presence_pk(4)});
  EXPECT_EQ(store.guest_channels(presence_pk(4), 1000 + kPresenceTtlSecs), (std::vector<std::string>{"chan-a", "chan-b"}));
  (void)store.expire(1000 + engine::kGuestChannelsSecs);
  EXPECT_TRUE(store.guest_channels(presence_pk(4), 1000 + engine::kGuestChannelsSecs).empty());
  EXPECT_TRUE(store.guest_channels(presence_pk(5), 1000).empty());
}

}  // namespace
}  // namespace buzz::server
