// Unit tests for tools/load/delivery_reader: the load tool's latency readers
// over a real socket pair, with frames split across reads, a ping between
// them, frames that are not deliveries, and the peer's close.
#include "tools/load/delivery_reader.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "net/websocket.h"

namespace buzz::load {
namespace {

class DeliveryReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds_), 0); }
  void TearDown() override {
    for (int fd : fds_) {
      if (fd >= 0) ::close(fd);
    }
  }
  void send(std::string_view bytes) { ASSERT_EQ(::write(fds_[0], bytes.data(), bytes.size()), ssize_t(bytes.size())); }
  static std::string frame(net::ws::Opcode op, std::string_view payload) {
    uint8_t header[net::ws::kMaxHeaderBytes];
    const size_t n = net::ws::encode_header(header, op, payload.size());
    return std::string(reinterpret_cast<const char*>(header), n) + std::string(payload);
  }
  int fds_[2] = {-1, -1};
};

TEST_F(DeliveryReaderTest, FloorFramesAreTheirSizeAndReadBackAsTheirEvent) {
  const std::string f = delivery_frame(4711, 400);
  EXPECT_EQ(f.size(), 400u);
  DeliveryReader reader;
  std::vector<int> events;
  send(f);
  EXPECT_TRUE(reader.drain(fds_[1], &events));
  EXPECT_EQ(events, std::vector<int>{4711});
}

TEST_F(DeliveryReaderTest, FramesSplitAcrossReadsPingsAndOtherMessages) {
  const std::string relay = frame(net::ws::Opcode::kText, R"(["EVENT","live",{"id":"ab","content":"7","tags":[]}])");
  const std::string second = delivery_frame(8, 200);
  // What a WebSocket client read before handing the socket over comes first.
  DeliveryReader reader(relay.substr(0, 5));
  std::vector<int> events;
  send(relay.substr(5));
  send(frame(net::ws::Opcode::kPing, "hb"));
  send(frame(net::ws::Opcode::kText, R"(["EOSE","live"])"));  // not a delivery
  send(second.substr(0, 100));
  EXPECT_TRUE(reader.drain(fds_[1], &events));
  EXPECT_EQ(events, std::vector<int>{7});
  send(second.substr(100));
  EXPECT_TRUE(reader.drain(fds_[1], &events));
  EXPECT_EQ(events, (std::vector<int>{7, 8}));
}

TEST_F(DeliveryReaderTest, ACloseOrAMaskedFrameEndsTheConnection) {
  DeliveryReader reader;
  std::vector<int> events;
  send(delivery_frame(1, 150));
  ::close(fds_[0]);
  fds_[0] = -1;
  EXPECT_FALSE(reader.drain(fds_[1], &events));  // the peer closed
  EXPECT_EQ(events, std::vector<int>{1});         // what came before still counts

  int more[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, more), 0);
  const uint8_t mask[4] = {1, 2, 3, 4};
  uint8_t header[net::ws::kMaxHeaderBytes];
  const size_t n = net::ws::encode_header(header, net::ws::Opcode::kText, 3, true, mask);
  ASSERT_EQ(::write(more[0], header, n), ssize_t(n));
  ASSERT_EQ(::write(more[0], "abc", 3), 3);
  DeliveryReader masked;
  EXPECT_FALSE(masked.drain(more[1], &events));  // a server never masks
  ::close(more[0]);
  ::close(more[1]);
}

}  // namespace
}  // namespace buzz::load
