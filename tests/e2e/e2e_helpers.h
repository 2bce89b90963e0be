// Helpers the relay-core and channel suites share: starting a relay under a
// gtest expectation, reading what a REQ returned, and to_upper for the tests
// that refuse uppercase hex or UUIDs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "engine/event.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {

inline constexpr int kQuietMs = 300;  // how long "nothing arrives" is watched for

inline std::unique_ptr<RelayProcess> start_relay(const RelayOptions& opts) {
  std::string error;
  auto relay = RelayProcess::start(opts, &error);
  EXPECT_NE(relay, nullptr) << error;
  return relay;
}

inline std::vector<std::string> ids_of(const std::vector<engine::Event>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.id_hex());
  return out;
}

inline std::string to_upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

inline bool has_tag(const engine::Event& e, const engine::Tag& tag) {
  return std::find(e.tags.begin(), e.tags.end(), tag) != e.tags.end();
}

// Why a REQ did not end in EOSE, for failure messages.
inline std::string why(const ReqResult& r) {
  return r.eose ? "EOSE" : r.closed ? "CLOSED \"" + *r.closed + "\"" : "no EOSE or CLOSED in time";
}

}  // namespace buzz::test
