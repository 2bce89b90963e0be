// Relay: the relay's WebSocket side, and the end of the write pipeline.
//
// It owns the sessions at "/" (NIP-42, EVENT, REQ, COUNT, CLOSE, NEG-*, one
// handle_*.cpp each; the front door, server/door/, hands it their sockets),
// runs the ingest rules shared with the HTTP API (`ingest`), and receives the
// store writer's outcomes: it answers the submitters (a WebSocket OK, or
// through HttpAnswers the HTTP request waiting) and fans committed events out.
//
// Threads: every socket callback and handler runs on the loop thread that owns
// the connection and never blocks on another thread. Events that must be
// stored go to the StoreWriter (server/pipeline/); its results come back
// through on_write_batch() (writer thread), which only posts work to the loops.
// Each loop has its own LoopState (subscription index, sessions by pubkey):
// nothing in it is shared, so nothing in it is locked.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/pubsub.h"
#include "engine/signature.h"
#include "net/loop.h"
#include "server/access/grant.h"
#include "server/common/bounded_worker.h"
#include "server/feeds/search_feeder.h"
#include "server/pipeline/command_runner.h"
#include "server/pipeline/store_writer.h"
#include "server/pipeline/verdict.h"
#include "server/relay/client_message.h"
#include "server/relay/delivery_recorder.h"
#include "server/relay/http_answers.h"
#include "server/relay/services.h"
#include "server/relay/session.h"

namespace buzz::server {

class Relay final {
 public:
  // Who submits an event, and where the writer's answer goes (a WebSocket OK,
  // or the HTTP response of a deferred request).
  struct Submitter {
    net::ConnId origin;
    engine::Pubkey pubkey;
    const Grant& grant;
    bool via_http;
  };
  // `relay_url`: the public URL a NIP-42 AUTH must name.
  // `search_feeder` may be null: no full-text index to feed.
  Relay(const Services& services, SearchFeeder* search_feeder, std::string_view relay_url, const engine::Keypair& key,
        NegLimits neg_limits = {}, SessionLimits session_limits = {});
  ~Relay();

  // Told on every loop, in the task that ends the subscriptions a write batch
  // took away: the channel memberships that ended, and the relay members
  // removed on a closed relay (the huddles drop such peers from their rooms).
  using RightsLost = std::function<void(net::Loop&, const std::vector<Revocation>& channels,
                                        const std::vector<engine::Pubkey>& members)>;
  // Before the loops run: the loops to fan out to, where the answers to HTTP
  // requests go, the room that runs command kinds beyond the team's (null:
  // refused), and who else hears of lost rights (may be empty).
  void attach(std::vector<net::Loop*> loops, HttpAnswers* http, CommandRunner* commands = nullptr,
              RightsLost rights_lost = {});
  // After the loops have stopped, before they are destroyed: ends the NEG worker.
  void stop();
  // A socket upgraded at "/": its session starts with the NIP-42 challenge.
  void on_open(net::Loop& loop, net::Connection& conn);
  void on_message(net::Loop& loop, net::Connection& conn, std::string_view text);
  void on_close(net::Loop& loop, net::Connection& conn);
  // Once a second on every loop.
  void on_tick(net::Loop& loop);

  // Several nodes serving one team: each committed or ephemeral event is also
  // published to the other nodes, and theirs come in through on_remote_events.
  // Before the loops and the store writer run; null (the default) = a lone
  // node. The writer publishes the committed events, the relay the ephemeral ones.
  void set_pubsub(engine::PubSub* pubsub) {
    pubsub_ = pubsub;
    s_.writer.set_pubsub(pubsub);
  }
  // Receipts (receipts.h): the fan-out records each stored channel event's
  // deliveries here. Before the loops run; null (the default) = not recorded.
  void set_deliveries(DeliveryRecorder* deliveries) { deliveries_ = deliveries; }
  DeliveryRecorder* deliveries() const { return deliveries_; }
  // The PubSub's thread: another node's events, queued for the store writer
  // (RemoteQueue), whose outcome fans them out on every loop like this node's
  // own, with the same read rules per recipient. Never blocks.
  void on_remote_events(std::vector<engine::RemoteEvent>&& events);

  // Writer thread: hands replies and committed events to their loops.
  void on_write_batch(WriteBatchOutcome&& outcome);

  // Any thread: a NIP-86 change (RelayPolicy) now applied on this node. A
  // banned pubkey's sessions close on every loop (its agents' too), and a
  // blocked address's; one made here (`here`) is told to the other nodes,
  // which apply it and come here in turn (docs/reference/nip86.md §3).
  void on_policy_change(const RelayPolicy::Change& change, bool here);

  // Any thread: the owner's WebSocket sessions authenticated with one of these
  // (revoked) tokens are closed on every loop, their subscriptions with them.
  void end_token_sessions(const engine::Pubkey& owner, std::vector<engine::TokenHash> tokens);

  // The event pipeline shared by EVENT and the HTTP API: the verdict now, or
  // nullopt when the store writer answers later (to `who.origin`). Loop thread.
  std::optional<Verdict> ingest(const Submitter& who, engine::Event&& event);

 private:
  using ConnsByPubkey = std::unordered_map<engine::Pubkey, std::vector<net::ConnId>, engine::KeyBytesHash>;
  // What one loop knows; touched only on that loop's thread.
  struct LoopState {
    index::SubscriptionIndex subs;
    // Authenticated connections by pubkey, to close them when membership ends.
    ConnsByPubkey by_pubkey;
    // Agents' connections by the member who vouched for them (NIP-OA), to close them with hers.
    ConnsByPubkey by_owner;
    // Connections not read from while the store writer is congested (back-pressure).
    std::vector<net::ConnId> paused;
    // Connections with NIP-77 sessions open, swept for idle ones each tick.
    std::vector<net::ConnId> negotiating;
    // Sessions owing their AUTH on a closed relay, by deadline (steady ms;
    // one timeout for all, so in order).
    std::deque<std::pair<net::ConnId, int64_t>> awaiting_auth;
    uint64_t neg_tickets = 0;  // NEG-OPENs seen, to tell a build's session from its replacement
    // Subscriptions whose replay overlapped a write batch, and until which batch.
    struct Overlap {
      net::ConnId conn;
      std::string sub_id;
      uint64_t until;
    };
    std::vector<Overlap> overlapping;
  };
  struct Context {  // one message being handled
    net::Loop& loop;
    net::Connection& conn;
    Session& session;
    LoopState& state;
  };

  // A frame against a human connection's frame limits (before AUTH every such
  // frame is refused anyway, and cheaply): nullopt, or the refusal to send.
  // Writes are EVENTs; reads are REQ, COUNT and NEG frames (server/pipeline/throttle.h).
  std::optional<std::string> admit_write(Context& c) {
    if (!c.session.authenticated()) return std::nullopt;
    auto wait = s_.throttle.admit_write(c.session.writes, c.session.pubkey, c.session.grant);
    if (!wait) return std::nullopt;
    return "rate-limited: too many events, retry in " + std::to_string(*wait) + " s";
  }
  std::optional<std::string> admit_read(Context& c) {
    if (!c.session.authenticated()) return std::nullopt;
    auto wait = s_.throttle.admit_read(c.session.reads, c.session.pubkey, c.session.grant);
    if (!wait) return std::nullopt;
    return "rate-limited: too many requests, retry in " + std::to_string(*wait) + " s";
  }

  // handle_*.cpp, one per message type
  void handle_event(Context& c, engine::Event&& event);
  void handle_auth(Context& c, const engine::Event& event);
  void handle_req(Context& c, ReqMessage&& req);
  void handle_count(Context& c, const ReqMessage& req);
  void handle_close(Context& c, const std::string& sub_id);
  void handle_parse_failure(Context& c, const ParseFailure& failure);
  // A message past SessionLimits::max_message_bytes: answered in its own words
  // (OK false, CLOSED, NEG-ERR, or a NOTICE), and nothing else done.
  void refuse_oversized(Context& c, std::string_view text);
  // handle_neg.cpp: NIP-77
  void handle_neg_open(Context& c, NegOpenMessage&& m);
  void handle_neg_msg(Context& c, const NegMsgMessage& m);
  void handle_neg_close(Context& c, const NegCloseMessage& m);
  // Worker thread: builds the set of one NEG-OPEN and answers its message on the loop.
  struct NegBuild;
  void build_neg_set(const std::shared_ptr<NegBuild>& build);
  void finish_neg_open(net::Loop& loop, NegBuild& build);
  void send_neg_msg(net::Loop& loop, net::Connection& conn, std::string_view sub_id, std::string_view binary);
  void neg_step(Context& c, const std::string& sub_id, NegSession& session, std::string_view hex);
  static engine::Result<std::string> neg_message(std::string_view hex);
  void send_neg_err(net::Loop& loop, net::Connection& conn, std::string_view sub_id, std::string_view reason);
  void expire_neg_sessions(net::Loop& loop);
  std::optional<Verdict> ingest_ephemeral(const Submitter& who, engine::Event&& event, const engine::KindInfo* info,
                                          bool own_event);
  std::optional<Verdict> check_grant(const Grant& grant, const engine::Event& e, const engine::KindInfo& info);
  std::optional<Verdict> handle_ephemeral(const Submitter& who, std::shared_ptr<const engine::Event> event);
  // A 20001's h tags: the channels of a proxy guest (docs/reference/proxy.md §11), which
  // only a proxy:submit session may name, each one it may read itself.
  std::optional<Verdict> guest_channels(const Submitter& who, const engine::Event& e, std::vector<std::string>* out);
  // The members of the channels a 20001's h tags name, added to its audience.
  void add_guest_audience(const engine::Event& e, std::unordered_set<engine::Pubkey, engine::KeyBytesHash>& audience) const;
  std::optional<Verdict> submit_write(WriteJob&& job);
  // A relay-signed kind 20001 "offline" for pk (["p", hex]), fanned out like
  // the user's own presence (docs/reference/protocol.md §12.1).
  void announce_offline(const engine::Pubkey& pk);
  // Whose presence a 20001 reports: its author, or the p tag of the relay's own.
  engine::Pubkey presence_subject(const engine::Event& e) const;
  // Fans an ephemeral event out on every loop (it is never stored).
  void broadcast(std::shared_ptr<const engine::Event> event, std::string channel);
  // Writer thread: the remote events of channels this node knows, ready for fan-out.
  std::vector<CommittedEvent> deliverable_remote(std::vector<engine::RemoteEvent>&& events);
  // Matches committed events against this loop's subscriptions and sends them.
  // `batch`: the write batch that stored them (0: none of this node's), so a
  // subscription whose replay already sent one skips it (index/replay_horizon.h).
  void fanout(net::Loop& loop, const std::vector<CommittedEvent>& events, uint64_t batch);
  // Write batch `batch` has been fanned out on this loop: the replays that
  // overlapped it let go of their ids.
  void settle_replays(net::Loop& loop, uint64_t batch);
  void drop_subscription(LoopState& state, Session& session, const std::string& sub_id);
  // Back-pressure: a connection that sends EVENTs while the writer is
  // congested is not read from until it is not (StoreWriter::congested).
  void hold_back(Context& c);
  void resume_paused(net::Loop& loop);
  // A relay member is gone (or banned): her connections close, and her agents' (NIP-OA).
  void close_pubkey(net::Loop& loop, const engine::Pubkey& pk, std::string_view why = "relay membership revoked");
  // PubSub's thread: another node's NIP-86 change, or its new membership list
  // (kind 13534: the shared member table is read again), taken out of `events`.
  void take_admin_changes(std::vector<engine::RemoteEvent>& events);
  // Closes (1008, `why`) this loop's sessions filed under pk in `map` for which `ends` holds.
  template <class Ends>
  void close_sessions(net::Loop& loop, const ConnsByPubkey& map, const engine::Pubkey& pk, std::string_view why,
                      Ends ends);
  // An AUTH about to succeed takes one of its pubkey's sessions
  // (SessionLimits::max_per_pubkey); false, and nothing taken, past the cap.
  // release_session gives it back: true when it was the pubkey's last.
  bool claim_session(const engine::Pubkey& pk);
  bool release_session(const engine::Pubkey& pk);
  // Closes this loop's sessions whose AUTH deadline passed unauthenticated.
  void expire_unauthenticated(net::Loop& loop);
  // Ends the channel subscriptions a membership change took away (docs/reference/protocol.md §9.7),
  // and tells those who lost the channel's group state by it (`gone`, docs/reference/kinds.md §4.13).
  void revoke(net::Loop& loop, const Revocation& r, const std::shared_ptr<const engine::Event>& gone);
  // Writer thread: for each revocation, the kind 5 its channel's former readers
  // get (server::group_state_gone), signed once per channel and reason.
  std::vector<std::shared_ptr<const engine::Event>> sign_gone_notices(const std::vector<Revocation>& revoked) const;

  static std::string ok_frame(std::string_view id_hex, bool accepted, std::string_view reason);
  void send_ok(Context& c, const engine::Id& id, bool accepted, std::string_view reason);
  void send_ok(Context& c, std::string_view id_hex, bool accepted, std::string_view reason);
  void send_closed(Context& c, std::string_view sub_id, std::string_view reason);
  void send_notice(Context& c, std::string_view text);

  // handle_receipts.cpp: a REQ of kind::kDeliveryReceipt filters, answered once from the
  // delivery log and the read markers, for the messages the caller may see receipts of.
  void handle_receipt_req(Context& c, const ReqMessage& req);
  // search.cpp: a REQ of NIP-50 filters.
  void handle_search_req(Context& c, const ReqMessage& req);
  // The hits such a REQ would send, each once (search.cpp); the error is a CLOSED reason.
  engine::Result<std::vector<EventRow>> search_rows(const Session& s, const ReqMessage& req);
  LoopState& state(net::Loop& loop) { return *states_[loop.index()]; }

  const Services& s_;
  SearchFeeder* search_feeder_;
  const engine::Keypair key_;
  const std::string relay_url_normalized_;
  const NegLimits neg_limits_;
  const SessionLimits session_limits_;
  // Builds NEG-OPEN sets off the loops: reading and checking a million events takes
  // seconds (docs/performance.md); past 8 waiting, a NEG-OPEN is refused (rate-limited).
  BoundedWorker neg_builder_{"buzz-neg", 8};
  std::vector<net::Loop*> loops_;
  std::vector<std::unique_ptr<LoopState>> states_;
  HttpAnswers* http_ = nullptr;
  RightsLost rights_lost_;
  CommandRunner* commands_ = nullptr;
  engine::PubSub* pubsub_ = nullptr;
  DeliveryRecorder* deliveries_ = nullptr;
  // Authenticated connections per pubkey across loops: the last one to close clears its presence.
  std::mutex online_mu_;
  std::unordered_map<engine::Pubkey, uint32_t, engine::KeyBytesHash> online_;
};

}  // namespace buzz::server
