// Relay: the Nostr relay application on top of net/ (the net::Service).
//
// Threads: the Service callbacks and every handler run on the loop thread that
// owns the connection and never block on another thread. Events that must be
// stored go to the StoreWriter; its results come back through
// on_write_batch() (writer thread), which only posts work to the loops.
// Each loop has its own LoopState (subscription index, sessions by pubkey):
// nothing in it is shared, so nothing in it is locked.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/event_store.h"
#include "engine/media_store.h"
#include "engine/signature.h"
#include "engine/team_state.h"
#include "net/loop.h"
#include "net/service.h"
#include "server/client_message.h"
#include "server/config.h"
#include "server/metrics.h"
#include "server/nip98.h"
#include "server/presence_store.h"
#include "server/relay_membership.h"
#include "server/session.h"
#include "server/store_writer.h"

namespace buzz::server {

// A REST error: {"error": message} with the status (rest-api.md §0.1).
net::HttpResponse api_error(int status, std::string_view message);

// The scopes of an API token (rest-api.md §2), for media uploads
// (media.md §2.3): given the X-Auth-Token value (`buzz_…`) and the Blossom
// signer, the token's scope names ("files:write", …), or why it is refused
// (unknown, revoked, expired, owned by another pubkey; logged, never sent).
// Runs on the network loops: thread-safe, and quick.
using TokenScopes =
    std::function<engine::Result<std::vector<std::string>>(std::string_view token, const engine::Pubkey& signer)>;

class Relay final : public net::Service {
 public:
  Relay(const Config& config, engine::EventStore& store, RelayMembership& membership, engine::TeamState& team,
        PresenceStore& presence, engine::MediaStore& media, const engine::Keypair& key);
  ~Relay() override;

  // Before the loops run: the loops to fan out to, the writer to store through,
  // and what GET /metrics reports beyond the relay's own counters.
  void attach(std::vector<net::Loop*> loops, StoreWriter* writer, MetricsSources metrics);
  // Before the loops run: where API tokens are checked. Until it is set no
  // token is checked: dev mode ignores one, and with require_auth_token every
  // upload is refused (401).
  void set_token_scopes(TokenScopes scopes) { token_scopes_ = std::move(scopes); }

  net::HeadDecision on_request_head(net::Loop& loop, const net::HttpRequest& head) override;
  net::HttpResponse on_http(net::Loop& loop, const net::HttpRequest& request) override;
  bool on_upgrade(net::Loop& loop, const net::HttpRequest& request, net::HttpResponse* refusal) override;
  void on_open(net::Loop& loop, net::Connection& conn) override;
  void on_message(net::Loop& loop, net::Connection& conn, std::string_view text) override;
  void on_close(net::Loop& loop, net::Connection& conn) override;

  // Writer thread: hands replies and committed events to their loops.
  void on_write_batch(WriteBatchOutcome&& outcome);

  const engine::Keypair& relay_key() const { return key_; }
  const RelayStats& stats() const { return stats_; }

 private:
  // What one loop knows; touched only on that loop's thread.
  struct LoopState {
    index::SubscriptionIndex subs;
    // Authenticated connections by pubkey, to close them when membership ends.
    std::unordered_map<engine::Pubkey, std::vector<net::ConnId>, engine::KeyBytesHash> by_pubkey;
  };
  struct Context {  // one message being handled
    net::Loop& loop;
    net::Connection& conn;
    Session& session;
    LoopState& state;
  };

  // handlers/*.cpp, one per message type
  void handle_event(Context& c, engine::Event&& event);
  void handle_auth(Context& c, const engine::Event& event);
  void handle_req(Context& c, ReqMessage&& req);
  void handle_count(Context& c, const ReqMessage& req);
  void handle_close(Context& c, const std::string& sub_id);
  void handle_parse_failure(Context& c, const ParseFailure& failure);

  void handle_ephemeral(Context& c, std::shared_ptr<const engine::Event> event);
  // Fans an ephemeral event out on every loop (it is never stored).
  void broadcast(net::Loop& here, std::shared_ptr<const engine::Event> event, std::string channel);
  void submit_write(Context& c, WriteJob&& job);
  // Matches committed events against this loop's subscriptions and sends them.
  void fanout(net::Loop& loop, const std::vector<CommittedEvent>& events);
  void drop_subscription(LoopState& state, Session& session, const std::string& sub_id);
  void close_pubkey(net::Loop& loop, const engine::Pubkey& pk);
  // Ends the channel subscriptions a membership change took away (protocol.md §9.7).
  void revoke(net::Loop& loop, const Revocation& r);

  static std::string ok_frame(std::string_view id_hex, bool accepted, std::string_view reason);
  void send_ok(Context& c, const engine::Id& id, bool accepted, std::string_view reason);
  void send_ok(Context& c, std::string_view id_hex, bool accepted, std::string_view reason);
  void send_closed(Context& c, std::string_view sub_id, std::string_view reason);
  void send_notice(Context& c, std::string_view text);

  std::string nip11_document() const;
  // handlers/api_*.cpp: the REST API. authenticate_http answers the refusal,
  // or nullopt with *who set to the caller.
  net::HttpResponse route_api(const net::HttpRequest& req);
  std::optional<net::HttpResponse> authenticate_http(const net::HttpRequest& req, engine::Pubkey* who);
  net::HttpResponse get_event(const net::HttpRequest& req, std::string_view id_hex);
  net::HttpResponse list_channels(const net::HttpRequest& req);
  net::HttpResponse get_channel(const net::HttpRequest& req, std::string_view id, bool members);
  net::HttpResponse get_canvas(const net::HttpRequest& req, std::string_view id);
  net::HttpResponse get_presence(const net::HttpRequest& req);
  net::HttpResponse put_presence(const net::HttpRequest& req);

  // The /media/ routes (relay_http.cpp); handlers/media_*.cpp serve them (media.md).
  net::HttpResponse route_media(const net::HttpRequest& req);
  // PUT /media/upload before its body is read: refused, or allowed the image limit.
  net::HeadDecision admit_upload(const net::HttpRequest& head);
  // Steps 1–16 of media.md §2.2 (and 17 given the body's hash): the refusal,
  // or nullopt with *who set to the signer.
  std::optional<net::HttpResponse> authorize_upload(const net::HttpRequest& req, uint64_t max_age,
                                                    std::string_view body_sha256, engine::Pubkey* who);
  engine::Result<std::vector<std::string>> upload_scopes(std::string_view token, const engine::Pubkey& signer) const;
  net::HttpResponse upload_media(const net::HttpRequest& req);
  net::HttpResponse serve_media(const net::HttpRequest& req, std::string_view name);
  LoopState& state(net::Loop& loop) { return *states_[loop.index()]; }

  const Config& config_;
  engine::EventStore& store_;
  RelayMembership& membership_;
  engine::TeamState& team_;
  PresenceStore& presence_;
  engine::MediaStore& media_;
  engine::Keypair key_;
  std::string relay_url_normalized_;
  std::string media_base_url_;   // descriptor URLs: <base>/<sha>.<ext>
  std::string media_authority_;  // what Blossom `server` tags must name
  TokenScopes token_scopes_;
  std::vector<net::Loop*> loops_;
  std::vector<std::unique_ptr<LoopState>> states_;
  StoreWriter* writer_ = nullptr;
  RelayStats stats_;
  MetricsSources metrics_;
  Nip98ReplayCache nip98_replays_;
  // Authenticated connections per pubkey across loops: the last one to close clears its presence.
  std::mutex online_mu_;
  std::unordered_map<engine::Pubkey, uint32_t, engine::KeyBytesHash> online_;
};

}  // namespace buzz::server
