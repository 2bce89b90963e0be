// ProxyService's per-connection and per-subscription state, shared by its
// two source files (clients: proxy_service.cpp; the relay: proxy_upstream.cpp).
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/proxy/proxy_service.h"

namespace buzz::proxy {

// A connection's key in ProxyService::sessions_ (one loop: slot and generation suffice).
inline uint64_t session_key(net::ConnId id) { return uint64_t(id.slot) << 32 | id.gen; }

struct ProxyService::ClientSub {
  std::set<std::string> history;  // upstream ids still replaying (EOSE pending)
  std::vector<std::string> live;  // keys of the shared live subscriptions it is in
};

struct ProxyService::Session : net::ConnectionContext {
  uint64_t key = 0;
  net::ConnId conn;
  std::string challenge;  // UUID v4, hyphenated
  std::string token;      // ?token= of the upgrade
  std::string prefix;     // 8 hex: this session's upstream subscription namespace
  uint64_t opened_at = 0;
  bool authed = false;
  std::string pubkey;     // lowercase hex, once authenticated
  ChannelSet allowed;
  std::unordered_map<std::string, ClientSub> subs;
  size_t pending = 0;     // EVENTs sent upstream, not yet answered
};

struct ProxyService::LiveSub {
  std::string id;   // upstream subscription id
  std::vector<UpstreamFilter> filters;
  std::set<std::pair<uint64_t, std::string>> members;  // (session, client sub)
  bool replaying = true;        // before its EOSE
  bool forward_history = false;  // after a reconnect: what was missed goes to the members
};

}  // namespace buzz::proxy
