// RemoteQueue: the bounded queue between the Redis subscriber and the fan-out
// (docs/reference/compat-backends.md §3.2): in order, and when full the oldest make room, counted.
#include "server/pipeline/remote_queue.h"

#include <gtest/gtest.h>

namespace buzz::server {
namespace {

std::vector<engine::RemoteEvent> events(int from, int to) {
  std::vector<engine::RemoteEvent> out;
  for (int i = from; i < to; ++i) {
    auto e = std::make_shared<engine::Event>();
    e->content = std::to_string(i);
    out.push_back({std::move(e), ""});
  }
  return out;
}

TEST(RemoteQueue, KeepsOrderBelowCapacity) {
  RemoteQueue q;
  EXPECT_EQ(q.push(events(0, 3)), 0u);
  EXPECT_EQ(q.push(events(3, 5)), 0u);
  auto out = q.take();
  ASSERT_EQ(out.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out[size_t(i)].event->content, std::to_string(i));
  EXPECT_TRUE(q.empty());
}

TEST(RemoteQueue, AFullQueueDropsItsOldestAndCountsThem) {
  RemoteQueue q;  // 4096, upstream's capacity
  EXPECT_EQ(q.push(events(0, 4000)), 0u);
  EXPECT_EQ(q.push(events(4000, 4096)), 0u);
  EXPECT_EQ(q.size(), kRemoteQueueCapacity);
  EXPECT_EQ(q.push(events(4096, 5000)), 904u);
  auto out = q.take();
  ASSERT_EQ(out.size(), kRemoteQueueCapacity);
  EXPECT_EQ(out.front().event->content, "904");
  EXPECT_EQ(out.back().event->content, "4999");
  EXPECT_EQ(q.push(events(0, 1)), 0u) << "taking empties it";
}

}  // namespace
}  // namespace buzz::server
