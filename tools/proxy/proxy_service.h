// ProxyService: the NIP-28 proxy on the project's net::Loop (docs/reference/proxy.md).
//
// To clients it is a NIP-01/11/28/42 relay with an admin API beside it; to the
// relay it is one authenticated WebSocket (UpstreamLink) that multiplexes
// every client: each client REQ becomes short-lived history subscriptions
// named "<8 hex>:<sub>" (closed at their EOSE) plus live subscriptions with
// `limit: 0` that clients with the same translated filter share, so a
// thousand guests in one channel cost the relay one subscription and one
// frame per event. The proxy's own key signs the upstream AUTH with its API
// token (scope proxy:submit), the synthetic kinds 40/41, and nothing else.
//
// Everything runs on the loop's thread: the link and the HTTP worker post
// what they receive to it.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/event.h"
#include "engine/signature.h"
#include "net/connection.h"
#include "net/loop.h"
#include "net/service.h"
#include "tools/proxy/admin_api.h"
#include "tools/proxy/channel_map.h"
#include "tools/proxy/guest_book.h"
#include "tools/proxy/id_cache.h"
#include "tools/proxy/req_split.h"
#include "tools/proxy/shadow_keys.h"
#include "tools/proxy/translate.h"

namespace buzz::proxy {

class UpstreamLink;
class RelayFetch;

struct ProxyConfig {
  std::string upstream_url;          // BUZZ_UPSTREAM_URL
  engine::Keypair server_key;        // BUZZ_PROXY_SERVER_KEY
  std::vector<uint8_t> salt;         // BUZZ_PROXY_SALT
  std::string api_token;             // BUZZ_PROXY_API_TOKEN
  engine::Pubkey relay_pubkey{};     // BUZZ_RELAY_PUBKEY
  std::string relay_url;             // BUZZ_PROXY_RELAY_URL (or ws://<bind addr>)
  bool relay_url_enforced = false;   // set explicitly: the guest's AUTH relay tag must match it
  std::optional<std::string> admin_secret;  // BUZZ_PROXY_ADMIN_SECRET; unset: the admin API is open
  int auth_timeout_secs = 30;
  int auth_window_secs = 60;         // |now − created_at| of a guest's AUTH
  int channel_refresh_secs = 30;     // the periodic GET /api/channels sweep
  std::string version;
};

// Counters for the log line and the benchmark.
struct ProxyStats {
  uint64_t sessions = 0, events_in = 0, events_out = 0, upstream_subs = 0;
};

class ProxyService : public net::Service {
 public:
  ProxyService(ProxyConfig config, ShadowKeys shadows);
  ~ProxyService() override;

  // Wires the upstream link and the HTTP worker; call before the loop runs.
  void attach(net::Loop& loop, UpstreamLink& link, RelayFetch& fetch);
  // Start-up: the channel list as the relay gave it.
  void load_channels(const std::vector<ChannelInfo>& rows) { channels_.update(rows); }

  // --- net::Service (loop thread) ---
  std::optional<net::HttpResponse> on_http(net::Loop& loop, net::Connection& conn, const net::HttpRequest& req) override;
  bool on_upgrade(net::Loop& loop, const net::HttpRequest& req, net::HttpResponse* refusal) override;
  void on_open(net::Loop& loop, net::Connection& conn, const net::HttpRequest& upgrade) override;
  void on_message(net::Loop& loop, net::Connection& conn, std::string_view text) override;
  void on_close(net::Loop& loop, net::Connection& conn) override;
  void on_tick(net::Loop& loop) override;

  // --- the upstream link's events, posted to the loop thread ---
  void upstream_open();
  void upstream_messages(const std::vector<std::string>& messages);
  void upstream_closed(const std::string& why);

  const ProxyStats& stats() const { return stats_; }

 private:
  struct Session;
  struct ClientSub;
  struct LiveSub;
  // Where an upstream subscription's frames go.
  struct HistoryRoute {
    uint64_t session = 0;
    std::string client_sub;
  };
  struct PendingOk {
    uint64_t session = 0;
    std::string client_id;
  };
  // A translated outbound event, shared by every session that may see it.
  struct Translated {
    std::shared_ptr<const std::string> raw;
    std::string channel;
  };

  // proxy_service.cpp: clients
  Session* session_of(net::Connection& conn);
  void handle_auth(Session& s, net::Connection& conn, simdjson::dom::element ev, std::string_view raw);
  void handle_event(Session& s, net::Connection& conn, simdjson::dom::element ev, std::string_view raw);
  void handle_req(Session& s, net::Connection& conn, simdjson::dom::array msg);
  void close_client_sub(Session& s, const std::string& sub);
  void close_sessions_of(const std::string& pubkey);
  void send(uint64_t session, std::string_view text);
  std::optional<net::HttpResponse> nip11(const net::HttpRequest& req) const;

  // proxy_upstream.cpp: the relay
  void to_upstream(std::string text);  // queued while the link is not authenticated
  void send_upstream_req(const std::string& id, const std::string& filters_json);
  void on_upstream_event(const std::string& sub, simdjson::dom::element ev, std::string_view raw);
  void on_upstream_eose(const std::string& sub);
  void on_upstream_closed(const std::string& sub, const std::string& reason);
  void on_upstream_ok(const std::string& id, bool accepted, const std::string& reason);
  void on_upstream_auth(const std::string& challenge);
  // Outbound translation, cached by internal id; nullopt = dropped, or
  // waiting for its targets to be fetched (then `retry` runs).
  std::optional<Translated> translate_out(const engine::Event& e, std::function<void()> retry);
  void deliver(uint64_t session, const std::string& client_sub, const Translated& t);
  void join_live_sub(Session& s, const std::string& client_sub, const std::vector<UpstreamFilter>& filters);
  void leave_live_sub(uint64_t session, const std::string& client_sub, const std::string& key);
  void refresh_channels();

  // proxy_presence.cpp: the guests' presence, under their shadow keys
  void guest_joined(const Session& s);
  void guest_left(const Session& s);
  void refresh_presence();
  void announce_presence(const std::string& guest, std::string_view status);
  static constexpr uint64_t kPresenceRefreshSecs = 60;  // the relay keeps a status 90 s
  static constexpr size_t kMaxPresenceChannels = 100;   // the relay's bound on a presence's h tags

  ProxyConfig config_;
  std::string server_pubkey_;
  ShadowKeys shadows_;
  ChannelMap channels_;
  IdCaches ids_;
  Translator translator_;
  GuestBook guests_;
  AdminApi admin_;

  static constexpr size_t kUpstreamQueue = 128;  // frames held while the relay is away (§4.2)
  simdjson::dom::parser client_parser_, upstream_parser_;
  net::Loop* loop_ = nullptr;
  UpstreamLink* link_ = nullptr;
  RelayFetch* fetch_ = nullptr;

  std::unordered_map<uint64_t, Session*> sessions_;  // by connection
  std::string upgrade_token_;  // ?token= of the upgrade on_open is about to open

  // Upstream state.
  bool upstream_authed_ = false;
  std::string upstream_auth_id_;
  std::deque<std::string> upstream_queue_;  // EVENT / CLOSE frames waiting for auth (at most 128)
  std::map<std::string, std::string> upstream_reqs_;  // id → REQ text, replayed after a reconnect
  std::unordered_map<std::string, HistoryRoute> history_;  // upstream id → its session's sub
  std::unordered_map<std::string, std::unique_ptr<LiveSub>> live_;  // by key (the filters' JSON)
  std::unordered_map<std::string, LiveSub*> live_by_id_;
  uint64_t next_live_ = 0;
  std::unordered_map<std::string, PendingOk> pending_ok_;  // internal id → the client's event
  std::unordered_map<std::string, Translated> translated_;  // internal id → outbound form
  uint64_t last_refresh_ = 0;
  std::unordered_map<std::string, size_t> online_;  // guest pubkey → its authenticated sessions
  uint64_t last_presence_ = 0;
  uint64_t disconnected_at_ = 0;  // when the authenticated link last went down (0: never)
  ProxyStats stats_;
};

}  // namespace buzz::proxy
