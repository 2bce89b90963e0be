// HttpApi: the plain-HTTP half of the relay's port (the front door hands it
// every request that is not a WebSocket upgrade): NIP-11, the health probes and
// metrics, NIP-05 names, the REST API (docs/reference/rest-api.md §3, one api_*.cpp per
// area), the Nostr HTTP bridge (§6), and the /media/ area, which it passes to
// Media. Every REST call is authenticated once, in the router, and each
// handler is handed its Caller.
//
// Loop thread: every call runs on the loop that owns the request; a request
// whose answer waits for the store writer is answered through HttpAnswers.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/signature.h"
#include "engine/thread_row.h"
#include "server/access/grant.h"
#include "server/access/nip98.h"
#include "server/http/audit_reads.h"
#include "server/http/cors.h"
#include "server/http/link_preview.h"
#include "server/media/media.h"
#include "server/ops/health.h"
#include "server/ops/metrics.h"
#include "server/pipeline/rate_limiter.h"
#include "server/relay/http_answers.h"
#include "server/relay/relay.h"
#include "server/relay/services.h"
#include "server/workflows/workflows.h"

namespace buzz::server {

// One filter of an HTTP-bridge /query or /count, with the extension keys of its object (docs/reference/rest-api.md §6).
struct BridgeFilter {
  engine::Filter filter;
  std::optional<engine::Id> before_id;  // keyset cursor: what follows (until, before_id) in query order
  std::optional<uint64_t> depth_limit;  // with one #e: that thread's replies, to this depth
  std::vector<std::string> feed_types;  // mentions, needs_action, activity, agent_activity
};

// What NIP-11 says of the relay, from the configuration (docs/configuration.md);
// NIP-86's changerelay* calls override name, description and icon.
struct RelayInfo {
  std::string name = "Buzz Relay";
  std::string description = "Buzz \u2014 private team communication relay";
  std::string icon, banner, contact, terms_of_service;  // empty = not said
  std::optional<engine::Pubkey> pubkey;                   // the operator's; unset = null
  // `limitation`: the limits the relay enforces.
  size_t max_message_length = 65536;
  size_t max_subscriptions = kMaxSubscriptionsPerConnection;
  size_t max_filters = kMaxFiltersPerReq;
  size_t max_limit = engine::kMaxQueryLimit;
  size_t max_subid_length = kMaxSubIdBytes;
  size_t max_content_length = 262144;
  bool auth_required = true;
  bool restricted_writes = true;
};

class HttpApi final : public HttpAnswers {
 public:
  struct Options {
    std::string relay_url;     // the public URL: NIP-98's base, NIP-05's relay
    std::string cors_origins;  // comma list of browser origins; empty = any
    uint32_t mint_rate_limit = 50;  // API tokens one pubkey may mint per hour
    // The original's development authentication (BUZZ_REQUIRE_AUTH_TOKEN=false,
    // a loopback bind): an unsigned X-Pubkey header names the caller.
    bool pubkey_header_auth = false;
    RelayInfo info{};
    // Internal hosts a link preview may fetch: the workflows' webhook allow-list.
    std::vector<std::string> preview_allow_hosts{};
  };
  // Beyond the shared Services: the pipeline (POST /api/events and the bridge's
  // POST /events ingest through it), the media area, the probes and the metrics.
  struct Rooms {
    Relay& relay;
    Media& media;
    const Health& health;
    const MetricsSources& metrics;
    Workflows* workflows = nullptr;  // null: no workflow endpoints
    AuditSource audit{};             // unset: no audit endpoints
  };
  // `loops`: how many loops will hand it requests.
  HttpApi(Options options, const Services& services, const Rooms& rooms, const engine::Keypair& key, size_t loops);

  // The front door's plain requests (net::Service's calls of the same names).
  net::HeadDecision on_request_head(net::Loop& loop, const net::HttpRequest& head);
  std::optional<net::HttpResponse> on_http(net::Loop& loop, net::Connection& conn, const net::HttpRequest& req);
  void answer_event(net::Loop& loop, net::ConnId to, const engine::Id& id, const Verdict& verdict) override;
  void answer_dm(net::Loop& loop, const DmReply& reply) override;
  // After the loops stopped: the link previews' and audit reads' workers end (a read in hand finishes).
  void stop() {
    previews_.stop();
    if (audit_) audit_->stop();
  }

 private:
  // An authenticated REST caller.
  struct Caller {
    engine::Pubkey pubkey{};
    Grant grant;
    std::optional<engine::TokenHash> token;  // set when a bearer token authenticated the call
    bool unverified = false;                  // the development mode's X-Pubkey named the caller, unsigned
  };

  std::string nip11_document() const;
  // nip86.cpp: the relay management API (docs/reference/nip86.md). nullopt = a
  // membership call, answered once the store writer has run it (answer_event).
  static bool is_nip86(const net::HttpRequest& req);
  std::optional<net::HttpResponse> nip86_call(net::Loop& loop, net::Connection& conn, const net::HttpRequest& req);
  struct Admin {  // one management call: who, and what, for its audit entry
    engine::Pubkey actor{};
    engine::RelayRole role = engine::RelayRole::kMember;
    std::string method;
    std::string params;  // JSON array
  };
  static engine::AuditRecord admin_audit_record(const Admin& admin);
  net::HttpResponse nip86_answer(const Admin& admin, const Verdict& verdict);
  // api_*.cpp: the REST API (docs/reference/rest-api.md §3). The router authenticates once per
  // request (authenticate_http answers the refusal, or nullopt with *who set)
  // and hands each handler its Caller. nullopt from a route = answered later.
  std::optional<net::HttpResponse> route_api(net::Loop& loop, net::Connection& conn, const net::HttpRequest& req);
  // api_workflows.cpp: the workflow and approval endpoints (docs/reference/rest-api.md §3.13–§3.14)
  // and POST /hooks/{id}: the paths is_workflow_path() names. nullopt = answered later.
  static bool is_workflow_path(std::string_view path);
  std::optional<net::HttpResponse> route_workflows(net::Loop& loop, net::Connection& conn, const net::HttpRequest& req);
  // kMint: the NIP-98 bootstrap of POST /api/tokens (payload tag required);
  // kNoMembershipGate: GET /api/relay/members/me, which answers non-members too.
  // kNip98Only: the HTTP bridge, which takes no bearer tokens.
  enum class AuthMode : uint8_t { kStandard, kMint, kNoMembershipGate, kNip98Only };
  std::optional<net::HttpResponse> authenticate_http(const net::HttpRequest& req, std::optional<Scope> need, Caller* who,
                                                     AuthMode mode = AuthMode::kStandard);
  // The token channel list, then channel access (docs/reference/rest-api.md §1.6).
  std::optional<net::HttpResponse> check_channel(const Caller& who, std::string_view channel);
  // Whether the caller may read a stored event by id: what GET /api/events/{id}
  // shows. Every path answers an event it may not read as a missing one (docs/access.md).
  bool readable_event(const Caller& who, const engine::StoredEvent& stored);
  std::optional<net::HttpResponse> post_event(const Caller& who, net::Connection& conn, const net::HttpRequest& req);
  net::HttpResponse event_response(const engine::Id& id, const Verdict& verdict);
  net::HttpResponse get_event(const Caller& who, std::string_view id_hex);
  net::HttpResponse list_channels(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse get_channel(const Caller& who, std::string_view id, bool members);
  net::HttpResponse get_canvas(const Caller& who, std::string_view id);
  // Who typed in the channel within the typing window (kind 20002), on any node.
  net::HttpResponse get_typing(const Caller& who, std::string_view id);
  net::HttpResponse get_presence(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse put_presence(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse get_messages(const Caller& who, std::string_view channel, const net::HttpRequest& req);
  net::HttpResponse get_thread(const Caller& who, std::string_view channel, std::string_view root_hex,
                               const net::HttpRequest& req);
  net::HttpResponse get_reactions(const Caller& who, std::string_view target_hex, const net::HttpRequest& req);
  // "Delivered to N of M, read by K" for the message's author or a channel admin (server/relay/receipts.h).
  net::HttpResponse get_receipts(const Caller& who, std::string_view id_hex);
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
  net::HttpResponse get_search(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse mint_token(const Caller& who, const net::HttpRequest& req);
  net::HttpResponse list_tokens(const Caller& who);
  net::HttpResponse revoke_token(const Caller& who, std::string_view id);
  net::HttpResponse revoke_all_tokens(const Caller& who);
  // Users, agents, DMs, relay members and NIP-05 (docs/reference/rest-api.md §3.9–§3.12, §3.15):
  // api_users.cpp, api_agents.cpp, api_dms.cpp, api_relay_members.cpp, nip05.cpp.
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
  // The HTTP answer to a DM operation (answer_dm).
  net::HttpResponse dm_response(const DmReply& reply) const;
  net::HttpResponse list_relay_members(const Caller& who);
  net::HttpResponse get_relay_membership(const Caller& who);
  net::HttpResponse nip05_names(const net::HttpRequest& req) const;
  // GET /api/audit?limit=N (newest first) and GET /api/audit/verify, for the
  // relay's owner and admins: answered by the AuditReads worker (api_audit.cpp).
  static constexpr size_t kAuditTailDefault = 50, kAuditTailMax = 200;
  std::optional<net::HttpResponse> read_audit(const Caller& who, net::Loop& loop, net::Connection& conn,
                                              const net::HttpRequest& req, bool verify);
  // GET /api/link-preview?url=…: answered now (cached or refused) or by a LinkPreviews worker.
  std::optional<net::HttpResponse> get_link_preview(net::Loop& loop, net::Connection& conn, const net::HttpRequest& req);

  // bridge.cpp: the Nostr HTTP bridge, POST /events, /query, /count (docs/reference/rest-api.md §6).
  static bool is_bridge_path(std::string_view path);
  std::optional<net::HttpResponse> route_bridge(net::Connection& conn, const net::HttpRequest& req);
  net::HttpResponse bridge_query(const Caller& who, const std::vector<BridgeFilter>& filters);
  net::HttpResponse bridge_count(const Caller& who, const std::vector<BridgeFilter>& filters);
  // One filter's rows as /query lists them (before an event two filters match is
  // dropped), for a filter a store count cannot answer: search, feed, thread,
  // cursor or presence. /count counts these, so it counts what /query returns.
  engine::Result<std::vector<EventRow>> bridge_rows(const Caller& who, const BridgeFilter& bf, const Readable& readable);
  std::vector<EventRow> feed_events(const Caller& who, const BridgeFilter& bf);
  std::vector<engine::Event> presence_events(const Caller& who, const engine::Filter& f);
  // Whether `who` sees pk's presence: pk shares a channel with it (`audience`,
  // TeamState::co_members), or is a proxy guest of a channel it is a member of.
  bool sees_presence(const Caller& who, const std::unordered_set<engine::Pubkey, engine::KeyBytesHash>& audience,
                     const engine::Pubkey& pk, uint64_t now) const;
  // A deferred answer, with the CORS header of the request's Origin.
  void respond_later(net::Loop& loop, net::ConnId to, net::HttpResponse response);
  // What a room calls, from any thread, to answer a request it deferred: the
  // answer goes back to the request's loop (respond_later), if the client is still there.
  std::function<void(net::HttpResponse)> answer_later(net::Loop& loop, net::ConnId to);

  const Options options_;
  const std::string signed_url_;  // what a NIP-98 signature names: RELAY_URL as http(s), made once
  const Services& s_;
  Relay& relay_;
  Media& media_;
  const Health& health_;
  const MetricsSources& metrics_;
  Workflows* workflows_;
  const engine::Keypair key_;
  CorsPolicy cors_;
  RateLimiter mint_limiter_;
  LinkPreviews previews_;
  std::unique_ptr<AuditReads> audit_;  // null without an AuditSource
  // Per loop, the requests waiting for the writer's answer: their Origin, for
  // CORS. Every submitted job is answered, so each entry is consumed.
  std::vector<std::unordered_map<uint64_t, std::string>> deferred_origins_;
  // Per loop, the NIP-86 membership calls waiting for the writer, by connection.
  std::vector<std::unordered_map<uint64_t, Admin>> nip86_pending_;
};

}  // namespace buzz::server
