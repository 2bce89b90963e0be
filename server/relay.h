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
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/api_tokens.h"
#include "engine/event_store.h"
#include "engine/media_store.h"
#include "engine/pubkey_allowlist.h"
#include "engine/signature.h"
#include "engine/team_state.h"
#include "engine/thread_row.h"
#include "index/search_index.h"
#include "net/loop.h"
#include "net/service.h"
#include "server/client_message.h"
#include "server/config.h"
#include "server/cors.h"
#include "server/grant.h"
#include "server/metrics.h"
#include "server/nip98.h"
#include "server/nip_oa.h"
#include "server/presence_store.h"
#include "server/profile_directory.h"
#include "server/rate_limiter.h"
#include "server/rate_limits.h"
#include "server/relay_membership.h"
#include "server/search_feeder.h"
#include "server/session.h"
#include "server/store_writer.h"

namespace buzz::server {

// A REST error: {"error": message} with the status (rest-api.md §0.1).
net::HttpResponse api_error(int status, std::string_view message);
// {"error": code, "message": message}: the coded form of auth and token errors.
net::HttpResponse api_error(int status, std::string_view code, std::string_view message);
// What a token lets its holder do.
Grant grant_of(const engine::ApiToken& token);

// One filter of an HTTP-bridge /query or /count, with the extension keys of its object (rest-api.md §6).
struct BridgeFilter {
  engine::Filter filter;
  std::optional<engine::Id> before_id;  // keyset cursor: what follows (until, before_id) in query order
  std::optional<uint64_t> depth_limit;  // with one #e: that thread's replies, to this depth
  std::vector<std::string> feed_types;  // mentions, needs_action, activity, agent_activity
};

class Relay final : public net::Service {
 public:
  // Who submits an event, and where the writer's answer goes (a WebSocket OK,
  // or the HTTP response of a deferred POST /api/events).
  struct Submitter {
    net::ConnId origin;
    engine::Pubkey pubkey;
    const Grant& grant;
    bool via_http;
  };
  // An authenticated REST caller.
  struct Caller {
    engine::Pubkey pubkey{};
    Grant grant;
    std::optional<engine::TokenHash> token;  // set when a bearer token authenticated the call
  };
  // An event's OK: accepted or not, and why. `busy`: refused for a full
  // writer queue (a NOTICE on WebSocket, 503 over HTTP).
  struct Verdict {
    bool accepted = false;
    std::string reason;
    bool busy = false;
    uint64_t retry_after = 0;  // rate-limited: seconds until the window ends (HTTP Retry-After)
  };

  Relay(const Config& config, engine::EventStore& store, RelayMembership& membership, engine::TeamState& team,
        PresenceStore& presence, engine::ApiTokens& tokens, ProfileDirectory& profiles, engine::MediaStore& media,
        const engine::Keypair& key);
  ~Relay() override;

  // Before the loops run: the loops to fan out to, the writer to store through,
  // and what GET /metrics reports beyond the relay's own counters.
  void attach(std::vector<net::Loop*> loops, StoreWriter* writer, MetricsSources metrics);
  net::HeadDecision on_request_head(net::Loop& loop, const net::HttpRequest& head) override;
  std::optional<net::HttpResponse> on_http(net::Loop& loop, net::Connection& conn, const net::HttpRequest& request) override;
  bool on_upgrade(net::Loop& loop, const net::HttpRequest& request, net::HttpResponse* refusal) override;
  void on_open(net::Loop& loop, net::Connection& conn) override;
  void on_message(net::Loop& loop, net::Connection& conn, std::string_view text) override;
  void on_close(net::Loop& loop, net::Connection& conn) override;
  void on_tick(net::Loop& loop) override;

  // Before the loops run: BUZZ_PUBKEY_ALLOWLIST, the legacy gate on key-only
  // AUTH and dev-mode uploads (protocol.md §6.2).
  void restrict_to(const std::vector<engine::AllowedPubkey>& allowed) {
    allowlist_.emplace();
    for (const engine::AllowedPubkey& a : allowed) allowlist_->insert(a.pubkey);
  }
  bool allowlisted(const engine::Pubkey& pk) const { return !allowlist_ || allowlist_->count(pk); }

  // Before the loops run: full-text search (optional; without it search answers "not enabled").
  void attach_search(index::SearchIndex* index, SearchFeeder* feeder) {
    search_ = index;
    search_feeder_ = feeder;
  }

  // Writer thread: hands replies and committed events to their loops.
  void on_write_batch(WriteBatchOutcome&& outcome);

  // Health checks (rest-api.md §3.16), on the main port and the health port;
  // `health_port` adds /_status, which only that port serves. Any thread.
  std::optional<net::HttpResponse> health_check(std::string_view path, bool health_port) const;
  // Prometheus text, on the main port and the metrics port. Any thread.
  net::HttpResponse metrics_page() const;
  // SIGTERM handling began: readiness answers 503 from now until exit.
  void begin_shutdown() { shutting_down_.store(true, std::memory_order_relaxed); }

  const engine::Keypair& relay_key() const { return key_; }
  const RelayStats& stats() const { return stats_; }

 private:
  // What one loop knows; touched only on that loop's thread.
  struct LoopState {
    index::SubscriptionIndex subs;
    // Authenticated connections by pubkey, to close them when membership ends.
    std::unordered_map<engine::Pubkey, std::vector<net::ConnId>, engine::KeyBytesHash> by_pubkey;
    // HTTP requests waiting for the writer's answer: their Origin, for CORS.
    // Every submitted job is answered, so each entry is consumed.
    std::unordered_map<uint64_t, std::string> deferred_origins;
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
  // Records an authentication attempt (audit.md §5.2); false if the writer queue is full.
  bool audit_auth(const engine::Pubkey& actor, std::string_view method, std::string_view reason);
  // NIP-OA (protocol.md §6.7): whether a closed relay admits `agent`, not a
  // member, on its owner's attestation. Needs allow-nip-oa-auth, a valid
  // attestation and an owner who is a member; records agent → owner (first
  // write wins).
  bool vouched_by_owner(const std::optional<OwnerAttestation>& a, const engine::Pubkey& agent, const AttestedUse& use);
  // The same for an HTTP request's X-Auth-Tag header (rest-api.md §1.5).
  enum class HeaderVouch : uint8_t { kVouched, kNot, kMultipleHeaders };
  HeaderVouch vouched_by_header(const net::HttpRequest& req, const engine::Pubkey& agent, const AttestedUse& use);
  // Queues an audit entry that belongs to no stored event; false if the writer queue is full.
  bool submit_audit(engine::AuditRecord record);

  // Rate limits (protocol.md §14; handlers/rate_limits.cpp). Each counts one
  // use and answers whether it may proceed; a refusal is counted and audited.
  Tier tier_of(const engine::Pubkey& pk) const;
  // An EVENT, REQ or COUNT frame on this connection: false past the human frame limit.
  bool admit_frame(Context& c);
  // A message (counts_as_message) by its author.
  std::optional<Verdict> admit_message(const engine::Event& e);
  // An authenticated HTTP API call.
  std::optional<net::HttpResponse> admit_api_call(const engine::Pubkey& pk);
  void note_rate_limited(const engine::Pubkey& pk, RateLimit limit, std::string_view channel);

  // The event pipeline shared by EVENT and POST /api/events: the verdict now,
  // or nullopt when the store writer answers later (to `origin`).
  std::optional<Verdict> ingest(const Submitter& who, engine::Event&& event);
  std::optional<Verdict> ingest_ephemeral(const Submitter& who, engine::Event&& event, const engine::KindInfo* info,
                                          bool own_event);
  std::optional<Verdict> check_grant(const Grant& grant, const engine::Event& e, const engine::KindInfo& info);
  std::optional<Verdict> handle_ephemeral(std::shared_ptr<const engine::Event> event);
  std::optional<Verdict> submit_write(WriteJob&& job);
  // A relay-signed kind 20001 "offline" for pk (["p", hex]), fanned out like
  // the user's own presence (protocol.md §12.1).
  void announce_offline(const engine::Pubkey& pk);
  // Whose presence a 20001 reports: its author, or the p tag of the relay's own.
  engine::Pubkey presence_subject(const engine::Event& e) const;
  // Fans an ephemeral event out on every loop (it is never stored).
  void broadcast(std::shared_ptr<const engine::Event> event, std::string channel);
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
  // handlers/api_*.cpp: the REST API. The router authenticates once per
  // request (authenticate_http answers the refusal, or nullopt with *who set)
  // and hands each handler its Caller. nullopt from a route = answered later.
  std::optional<net::HttpResponse> route_api(net::Connection& conn, const net::HttpRequest& req);
  // kMint: the NIP-98 bootstrap of POST /api/tokens (payload tag required);
  // kNoMembershipGate: GET /api/relay/members/me, which answers non-members too.
  // kNip98Only: the HTTP bridge, which takes no bearer tokens.
  enum class AuthMode : uint8_t { kStandard, kMint, kNoMembershipGate, kNip98Only };
  std::optional<net::HttpResponse> authenticate_http(const net::HttpRequest& req, std::optional<Scope> need, Caller* who,
                                                     AuthMode mode = AuthMode::kStandard);
  // The token channel list, then channel access (rest-api.md §1.6).
  std::optional<net::HttpResponse> check_channel(const Caller& who, std::string_view channel);
  std::optional<net::HttpResponse> post_event(const Caller& who, net::Connection& conn, const net::HttpRequest& req);
  net::HttpResponse event_response(const engine::Id& id, const Verdict& verdict);
  net::HttpResponse get_event(const Caller& who, std::string_view id_hex);
  net::HttpResponse list_channels(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse get_channel(const Caller& who, std::string_view id, bool members);
  net::HttpResponse get_canvas(const Caller& who, std::string_view id);
  net::HttpResponse get_presence(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse put_presence(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse get_messages(const Caller& who, std::string_view channel, const net::HttpRequest& req);
  net::HttpResponse get_thread(const Caller& who, std::string_view channel, std::string_view root_hex,
                               const net::HttpRequest& req);
  net::HttpResponse get_reactions(const Caller& who, std::string_view target_hex, const net::HttpRequest& req);
  // One message as the REST pages show it (api_messages.cpp).
  struct MessageView {
    engine::Id id{};
    engine::Pubkey author{};  // the effective author
    uint64_t created_at = 0;
    uint16_t kind = 0;
    std::string content_json, tags_json;
    std::vector<std::pair<std::string, std::string>> fields(std::string_view channel) const;
  };
  std::optional<MessageView> view_message(std::string_view raw, const engine::EventFields& fields) const;
  std::optional<engine::ThreadRow> thread_row(const engine::Id& id);
  net::HttpResponse get_feed(const Caller& who, const net::HttpRequest& req);
  // handlers/search.cpp: NIP-50 and GET /api/search.
  struct EventRow {
    engine::Id id;
    std::string raw;
    std::string channel;
  };
  index::SearchQuery search_scope(const engine::Pubkey& who, const Grant& grant) const;
  using Readable = std::function<bool(const engine::EventFields&)>;
  // readable_by (read_access.h) for one caller, as a store query's `accept`;
  // `grant` must outlive it.
  Readable readable_to(const Grant& grant, const engine::Pubkey& reader) const;
  // The hits still live, readable and matching `rest` (the filter without its search), in hit order.
  std::vector<EventRow> search_hits(const index::SearchResult& result, engine::Filter rest, const Readable& readable);
  // One filter's history as a REQ replays it: from the store, or from the
  // search index for a NIP-50 filter. The error is a CLOSED reason.
  engine::Result<std::vector<EventRow>> filter_rows(const engine::Filter& f, const engine::Pubkey& who, const Grant& grant,
                                                    const Readable& readable);
  void handle_search_req(Context& c, const ReqMessage& req);
  net::HttpResponse get_search(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse mint_token(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse list_tokens(const Caller& who);
  net::HttpResponse revoke_token(const Caller& who, std::string_view id);
  net::HttpResponse revoke_all_tokens(const Caller& who);
  // Users, agents, DMs, relay members and NIP-05 (rest-api.md §3.9–§3.12, §3.15):
  // handlers/api_users.cpp, api_agents.cpp, api_dms.cpp, api_relay_members.cpp, nip05.cpp.
  net::HttpResponse get_profile(const Caller& who, std::string_view pubkey);  // "me" = the caller
  net::HttpResponse batch_profiles(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse search_users(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse put_channel_add_policy(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse get_notes(const Caller& who, std::string_view pubkey, const net::HttpRequest& req);
  net::HttpResponse get_contact_list(const Caller& who, std::string_view pubkey);
  net::HttpResponse list_agents(const Caller& who);
  net::HttpResponse list_dms(const Caller& who, const net::HttpRequest& req);
  // POST /api/dms (`dm` empty), …/{dm}/members and …/{dm}/hide: answered by the store writer.
  std::optional<net::HttpResponse> change_dm(const Caller& who, net::Connection& conn, const net::HttpRequest& req,
                                             DmOp op, std::string_view dm);
  // Any thread: the HTTP answer to a DM operation (on_write_batch).
  net::HttpResponse dm_response(const DmReply& reply) const;
  net::HttpResponse list_relay_members(const Caller& who);
  net::HttpResponse get_relay_membership(const Caller& who);
  net::HttpResponse nip05_names(const net::HttpRequest& req) const;

  // handlers/bridge.cpp: the Nostr HTTP bridge, POST /events, /query, /count (rest-api.md §6).
  static bool is_bridge_path(std::string_view path);
  std::optional<net::HttpResponse> route_bridge(net::Connection& conn, const net::HttpRequest& req);
  net::HttpResponse bridge_query(const Caller& who, const std::vector<BridgeFilter>& filters);
  net::HttpResponse bridge_count(const Caller& who, const std::vector<BridgeFilter>& filters);
  std::vector<EventRow> feed_events(const Caller& who, const BridgeFilter& bf);
  std::vector<engine::Event> presence_events(const Caller& who, const engine::Filter& f);

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
  std::vector<net::Loop*> loops_;
  std::vector<std::unique_ptr<LoopState>> states_;
  StoreWriter* writer_ = nullptr;
  RelayStats stats_;
  MetricsSources metrics_;
  Nip98ReplayCache nip98_replays_;
  engine::ApiTokens& tokens_;
  ProfileDirectory& profiles_;
  index::SearchIndex* search_ = nullptr;
  SearchFeeder* search_feeder_ = nullptr;
  CorsPolicy cors_;
  RateLimiter mint_limiter_;
  RateCounters rate_counters_;
  std::string media_base_url_;   // descriptor URLs: <base>/<sha>.<ext>
  std::string media_authority_;  // what Blossom `server` tags must name
  // Set: only these pubkeys may AUTH by key alone (read-only once the loops run).
  std::optional<std::unordered_set<engine::Pubkey, engine::KeyBytesHash>> allowlist_;
  // Authenticated connections per pubkey across loops: the last one to close clears its presence.
  std::mutex online_mu_;
  std::unordered_map<engine::Pubkey, uint32_t, engine::KeyBytesHash> online_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::atomic<bool> shutting_down_{false};
};

}  // namespace buzz::server
