// The Redis that the ctest fixture `redis` started (tests/cluster/redis_server.sh):
// its "DIR PORT PID" line is in the file named by env BUZZ_TEST_REDIS_STATE
// (default: the build's, compiled in). Tests run in parallel on one database: each
// uses keys of its own (fresh keypairs), never FLUSHDB.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>

#include "migrate/redis_connection.h"

namespace buzz::test {

inline std::string test_redis_url() {
  const char* state = std::getenv("BUZZ_TEST_REDIS_STATE");
  std::ifstream file(state ? state : BUZZ_TEST_REDIS_STATE);
  std::string dir, port;
  file >> dir >> port;
  EXPECT_FALSE(port.empty()) << "no Redis: the ctest fixture `redis` starts one";
  return "redis://127.0.0.1:" + port;
}

// A plain connection to the test Redis, for looking at keys directly.
inline std::unique_ptr<migrate::RedisConnection> test_redis_connection() {
  auto url = migrate::parse_redis_url(test_redis_url());
  EXPECT_TRUE(url) << url.error();
  if (!url) return nullptr;
  auto c = migrate::RedisConnection::connect(*url, std::chrono::milliseconds(2000));
  EXPECT_TRUE(c) << c.error();
  return c ? std::move(*c) : nullptr;
}

}  // namespace buzz::test
