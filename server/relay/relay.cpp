// The relay service: connection lifecycle, dispatch and fan-out; see relay.h.
// The message handlers live in handle_*.cpp, one file per message type.
#include "server/relay/relay.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/kinds.h"
#include "server/access/read_access.h"
#include "server/common/log.h"
#include "server/common/relay_url.h"
#include "server/team/group_state.h"

namespace buzz::server {
namespace {

// Drops a connection from a map of connections by pubkey (LoopState's).
template <class ConnsByKey>
void forget(ConnsByKey& map, const engine::Pubkey& pk, net::ConnId id) {
  auto it = map.find(pk);
  if (it == map.end()) return;
  std::erase(it->second, id);
  if (it->second.empty()) map.erase(it);
}

// Whether every filter lists kinds: a subscription of the live index's tiers
// 3a–3b, never the wildcard (docs/reference/protocol.md §9.5).
bool names_kinds_in_every_filter(const std::vector<engine::Filter>& filters) {
  return std::all_of(filters.begin(), filters.end(), [](const engine::Filter& f) { return f.kinds.has_value(); });
}

}  // namespace

Relay::Relay(const Services& services, SearchFeeder* search_feeder, std::string_view relay_url,
             const engine::Keypair& key, NegLimits neg_limits, SessionLimits session_limits)
    : s_(services),
      search_feeder_(search_feeder),
      key_(key),
      relay_url_normalized_(normalize_relay_url(relay_url)),
      neg_limits_(neg_limits),
      session_limits_(session_limits) {}

Relay::~Relay() { stop(); }

void Relay::stop() { neg_builder_.stop(); }

void Relay::attach(std::vector<net::Loop*> loops, HttpAnswers* http, CommandRunner* commands, RightsLost rights_lost) {
  loops_ = std::move(loops);
  http_ = http;
  commands_ = commands;
  rights_lost_ = std::move(rights_lost);
  states_.clear();
  for (size_t i = 0; i < loops_.size(); ++i) states_.push_back(std::make_unique<LoopState>());
  neg_builder_.start();
}

void Relay::on_open(net::Loop& loop, net::Connection& conn) {
  auto session = std::make_unique<Session>();
  engine::random_bytes(session->challenge.data(), session->challenge.size());
  std::string auth = "[\"AUTH\",\"" + session->challenge_hex() + "\"]";
  conn.set_context(std::move(session));
  loop.send_text(conn, auth);  // the challenge is the first frame (NIP-42)
  if (s_.membership.enforced() && session_limits_.auth_timeout_ms > 0) {
    state(loop).awaiting_auth.emplace_back(conn.id(), engine::steady_now_ms() + session_limits_.auth_timeout_ms);
  }
}

void Relay::expire_unauthenticated(net::Loop& loop) {
  auto& awaiting = state(loop).awaiting_auth;
  const int64_t now = engine::steady_now_ms();
  while (!awaiting.empty() && awaiting.front().second <= now) {
    net::Connection* conn = loop.find(awaiting.front().first);
    awaiting.pop_front();
    auto* session = conn ? static_cast<Session*>(conn->context()) : nullptr;  // the id names this session
    if (!session || session->authenticated()) continue;
    s_.stats.auth_timeouts.fetch_add(1, std::memory_order_relaxed);
    loop.close(*conn, 1008, "auth-required: no AUTH within " + std::to_string(session_limits_.auth_timeout_ms / 1000) + " s");
  }
}

bool Relay::claim_session(const engine::Pubkey& pk) {
  std::lock_guard lock(online_mu_);
  uint32_t& n = online_[pk];
  if (session_limits_.max_per_pubkey && n >= session_limits_.max_per_pubkey) {
    if (n == 0) online_.erase(pk);
    return false;
  }
  ++n;
  return true;
}

void Relay::on_close(net::Loop& loop, net::Connection& conn) {
  auto* session = static_cast<Session*>(conn.context());
  if (!session) return;
  LoopState& st = state(loop);
  for (auto& [id, sub] : session->subs) st.subs.remove(sub.get());
  s_.stats.subscriptions_active.fetch_sub(int64_t(session->subs.size()), std::memory_order_relaxed);
  session->subs.clear();
  if (session->authenticated()) {
    forget(st.by_pubkey, session->pubkey, conn.id());
    if (session->owner) forget(st.by_owner, *session->owner, conn.id());
    // The last connection is gone (docs/reference/protocol.md §12.1): offline, and said so.
    if (release_session(session->pubkey) && s_.presence.clear(session->pubkey, engine::unix_now())) {
      announce_offline(session->pubkey);
    }
  }
}

bool Relay::release_session(const engine::Pubkey& pk) {
  std::lock_guard lock(online_mu_);
  auto online = online_.find(pk);
  if (online == online_.end() || --online->second > 0) return false;
  online_.erase(online);
  return true;
}

void Relay::on_message(net::Loop& loop, net::Connection& conn, std::string_view text) {
  auto* session = static_cast<Session*>(conn.context());
  if (!session) return;
  Context c{loop, conn, *session, state(loop)};
  if (text.size() > session_limits_.max_message_bytes) return refuse_oversized(c, text);
  ClientMessage msg = parse_client_message(text);
  if (auto* m = std::get_if<EventMessage>(&msg)) return handle_event(c, std::move(m->event));
  if (auto* m = std::get_if<ReqMessage>(&msg)) return m->is_count ? handle_count(c, *m) : handle_req(c, std::move(*m));
  if (auto* m = std::get_if<CloseMessage>(&msg)) return handle_close(c, m->sub_id);
  if (auto* m = std::get_if<NegOpenMessage>(&msg)) return handle_neg_open(c, std::move(*m));
  if (auto* m = std::get_if<NegMsgMessage>(&msg)) return handle_neg_msg(c, *m);
  if (auto* m = std::get_if<NegCloseMessage>(&msg)) return handle_neg_close(c, *m);
  if (auto* m = std::get_if<AuthMessage>(&msg)) {
    bool was_pending = session->auth == Session::Auth::kPending;
    handle_auth(c, m->event);
    if (was_pending && session->authenticated()) {
      c.state.by_pubkey[session->pubkey].push_back(conn.id());  // online_ counted it (claim_session)
      session->owner = s_.gatekeeper.vouching_owner(m->event);
      if (session->owner) c.state.by_owner[*session->owner].push_back(conn.id());
      loop.vouch(conn);
    }
    return;
  }
  handle_parse_failure(c, std::get<ParseFailure>(msg));
}

void Relay::handle_parse_failure(Context& c, const ParseFailure& f) {
  send_notice(c, f.notice);
  if (f.event_id) send_ok(c, *f.event_id, false, "invalid: malformed event");
  if (f.sub_id && f.negentropy) {
    c.session.negs.erase(*f.sub_id);
    send_neg_err(c.loop, c.conn, *f.sub_id, "invalid: " + f.detail);
  } else if (f.sub_id) {
    send_closed(c, *f.sub_id, "invalid: malformed filter");
  }
}

void Relay::refuse_oversized(Context& c, std::string_view text) {
  const std::string too_big = "message exceeds maximum size of " + std::to_string(session_limits_.max_message_bytes) +
                              " bytes (got " + std::to_string(text.size()) + ")";
  ClientMessage msg = parse_client_message(text);
  if (auto* m = std::get_if<EventMessage>(&msg)) return send_ok(c, m->event.id, false, "invalid: " + too_big);
  if (auto* m = std::get_if<AuthMessage>(&msg)) return send_ok(c, m->event.id, false, "invalid: " + too_big);
  if (auto* m = std::get_if<ReqMessage>(&msg)) return send_closed(c, m->sub_id, "invalid: " + too_big);
  const std::string* neg = nullptr;
  if (auto* m = std::get_if<NegOpenMessage>(&msg)) neg = &m->sub_id;
  if (auto* m = std::get_if<NegMsgMessage>(&msg)) neg = &m->sub_id;
  if (neg) {
    send_neg_err(c.loop, c.conn, *neg, "blocked: " + too_big);
    return void(c.session.negs.erase(*neg));  // the reconciliation ends, as for any NEG-ERR
  }
  if (auto* f = std::get_if<ParseFailure>(&msg)) return handle_parse_failure(c, *f);
  send_notice(c, "error: " + too_big);
}

void Relay::send_ok(Context& c, const engine::Id& id, bool accepted, std::string_view reason) {
  send_ok(c, engine::to_hex(id), accepted, reason);
}

std::string Relay::ok_frame(std::string_view id_hex, bool accepted, std::string_view reason) {
  std::string out = "[\"OK\",";
  engine::append_json_string(out, id_hex);
  out += accepted ? ",true," : ",false,";
  engine::append_json_string(out, reason);
  out += "]";
  return out;
}

void Relay::send_ok(Context& c, std::string_view id_hex, bool accepted, std::string_view reason) {
  c.loop.send_text(c.conn, ok_frame(id_hex, accepted, reason));
  (accepted ? s_.stats.events_accepted : s_.stats.events_rejected).fetch_add(1, std::memory_order_relaxed);
}

void Relay::send_closed(Context& c, std::string_view sub_id, std::string_view reason) {
  std::string out = "[\"CLOSED\",";
  engine::append_json_string(out, sub_id);
  out += ",";
  engine::append_json_string(out, reason);
  out += "]";
  c.loop.send_text(c.conn, out);
}

void Relay::send_notice(Context& c, std::string_view text) {
  std::string out = "[\"NOTICE\",";
  engine::append_json_string(out, text);
  out += "]";
  c.loop.send_text(c.conn, out);
}

void Relay::on_write_batch(WriteBatchOutcome&& outcome) {
  if (search_feeder_) {  // never blocks: a full queue keeps only ids (server/feeds/search_feeder.h)
    for (const engine::Id& id : outcome.removed) search_feeder_->remove(id);
    for (const CommittedEvent& ev : outcome.committed) {
      if (ev.event->kind == kind::kDeleteGroup) search_feeder_->remove_channel(ev.channel);
      search_feeder_->offer(ev.event, ev.channel);
    }
  }
  // Profiles change before any reply goes out: whoever hears OK reads the new one.
  for (const CommittedEvent& c : outcome.committed) s_.profiles.apply(*c.event);
  std::vector<CommittedEvent> remote_events = deliverable_remote(std::move(outcome.remote));
  for (const CommittedEvent& c : remote_events) s_.profiles.apply(*c.event);  // another node's kind 0
  // DM calls over REST: their HTTP answers, ready here (the batch is durable).
  for (DmReply& r : outcome.dm_replies) {
    if (r.to.loop >= loops_.size()) continue;
    net::Loop* loop = loops_[r.to.loop];
    loop->post([this, loop, reply = std::move(r)] { http_->answer_dm(*loop, reply); });
  }
  // Replies go to the loop that owns each connection, in one task per loop.
  std::vector<std::vector<OkReply>> by_loop(loops_.size());
  for (OkReply& r : outcome.replies) {
    if (r.to.loop < loops_.size()) by_loop[r.to.loop].push_back(std::move(r));
  }
  auto committed = std::make_shared<const std::vector<CommittedEvent>>(std::move(outcome.committed));
  auto lost = std::make_shared<const std::vector<engine::Pubkey>>(std::move(outcome.lost_membership));
  auto revoked = std::make_shared<const std::vector<Revocation>>(std::move(outcome.revoked));
  auto notices = std::make_shared<const std::vector<std::shared_ptr<const engine::Event>>>(sign_gone_notices(*revoked));
  auto remote = std::make_shared<const std::vector<CommittedEvent>>(std::move(remote_events));
  for (size_t i = 0; i < loops_.size(); ++i) {
    net::Loop* loop = loops_[i];
    // Every batch's task resumes the loop's paused readers once the writer has caught up.
    if (by_loop[i].empty() && committed->empty() && remote->empty() && lost->empty() && revoked->empty() &&
        !outcome.relieved) {
      continue;
    }
    loop->post([this, loop, replies = std::move(by_loop[i]), committed, remote, lost, revoked, notices,
                batch = outcome.batch] {
      resume_paused(*loop);
      for (const OkReply& r : replies) {
        net::Connection* conn = loop->find(r.to);
        if (!conn || !conn->is_websocket()) {  // a deferred HTTP request, or one whose connection is gone
          http_->answer_event(*loop, r.to, r.event_id, Verdict{r.accepted, r.reason});
          continue;
        }
        auto* session = static_cast<Session*>(conn->context());
        if (!session) continue;
        Context c{*loop, *conn, *session, state(*loop)};
        send_ok(c, r.event_id, r.accepted, r.reason);
      }
      if (!committed->empty()) fanout(*loop, *committed, batch);
      if (batch) settle_replays(*loop, batch);
      if (!remote->empty()) fanout(*loop, *remote, 0);
      for (size_t r = 0; r < revoked->size(); ++r) revoke(*loop, (*revoked)[r], (*notices)[r]);
      static const std::vector<engine::Pubkey> kNobody;
      const std::vector<engine::Pubkey>& gone = s_.membership.enforced() ? *lost : kNobody;
      for (const engine::Pubkey& pk : gone) close_pubkey(*loop, pk);
      if (rights_lost_ && (!revoked->empty() || !gone.empty())) rights_lost_(*loop, *revoked, gone);
    });
  }
}

void Relay::on_remote_events(std::vector<engine::RemoteEvent>&& events) {
  take_admin_changes(events);
  // Through the store writer, which catches the team state up before they fan out.
  if (size_t lagged = s_.writer.submit_remote(std::move(events))) {
    s_.stats.remote_lagged.fetch_add(lagged, std::memory_order_relaxed);
  }
}

std::vector<CommittedEvent> Relay::deliverable_remote(std::vector<engine::RemoteEvent>&& events) {
  std::vector<CommittedEvent> batch;
  batch.reserve(events.size());
  for (engine::RemoteEvent& e : events) {
    // A channel this node does not know (not in a shared store either) has no
    // members here to check against: its events are not delivered (fail closed).
    if (!e.channel.empty() && !s_.team.find_channel(e.channel)) {
      s_.stats.remote_unknown_channel.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    // Another node's typer, who may type here too: this node's typing window
    // holds them as well, so GET …/typing answers alike on every node.
    if (e.event->kind == kind::kTyping && s_.team.access(e.channel, e.event->pubkey).can_post()) {
      s_.presence.set_typing(e.channel, e.event->pubkey, engine::unix_now());
    }
    // Another node's proxy guest: its channels' members here see its status too.
    if (e.event->kind == kind::kPresence && !e.event->first_tag_value("h").empty()) {
      std::vector<std::string> channels;
      for (const engine::Tag& t : e.event->tags) {
        if (t.size() >= 2 && t[0] == "h" && channels.size() < engine::kMaxGuestChannels) channels.push_back(t[1]);
      }
      s_.presence.set_guest_channels(presence_subject(*e.event), std::move(channels), engine::unix_now());
    }
    batch.push_back({e.event, std::move(e.channel), raw_of(e.event)});
  }
  s_.stats.remote_events.fetch_add(batch.size(), std::memory_order_relaxed);
  return batch;
}

void Relay::fanout(net::Loop& loop, const std::vector<CommittedEvent>& events, uint64_t batch) {
  LoopState& st = state(loop);
  if (st.subs.size() == 0) return;  // a loop with no live subscriptions has no one to deliver to
  engine::EventFields fields;
  std::optional<DeliveryRecorder::Appender> record;  // receipts: this task's deliveries, one lock
  if (deliveries_) record.emplace(*deliveries_, loop.index());
  for (const CommittedEvent& ev : events) {
    fields.assign(*ev.event, ev.channel);
    // A stored channel event's deliveries to other members' sessions are recorded
    // (receipts.h); not the relay's group state, which no receipt asks about.
    const bool recorded = record && !ev.channel.empty() && !index::is_group_state(ev.event->kind) &&
                          engine::kind_class(ev.event->kind) != engine::KindClass::kEphemeral;
    const uint32_t day = uint32_t(ev.event->created_at / engine::kSecondsPerDay);
    // A read marker goes to its author's sessions only (engine::is_self_only).
    const bool self_only = engine::is_self_only(ev.event->kind);
    // A private channel's event goes to its current members only, checked per
    // delivery: a subscription that outlived its access never sees it, nor a
    // global one its group state reaches (index::is_group_state), which no REQ
    // admitted to the channel: with the token's reach below, the read rule.
    const bool members_only = !ev.channel.empty() && s_.team.is_private(ev.channel);
    // Presence is visible to the members sharing a channel with the pubkey it reports.
    std::optional<std::unordered_set<engine::Pubkey, engine::KeyBytesHash>> audience;
    if (ev.event->kind == kind::kPresence) {
      audience = s_.team.co_members(presence_subject(*ev.event));
      add_guest_audience(*ev.event, *audience);
    }
    // A p-gated kind goes only to the pubkeys it names, whatever else a filter matched on.
    const bool p_gated = engine::is_p_gated(ev.event->kind);
    st.subs.match(fields, [&](index::Subscription& sub) {
      net::Connection* conn = loop.find(subscription_conn(loop.index(), sub.owner));
      auto* session = conn ? static_cast<const Session*>(conn->context()) : nullptr;
      if (!session) return;
      if (sub.horizon.replayed(batch, ev.event->id)) return;  // sent by its history replay
      if (members_only && !s_.team.is_member(ev.channel, session->pubkey)) return;
      if (!ev.channel.empty() && !session->grant.allows_channel(ev.channel)) return;  // a channel-scoped token
      if (audience && !audience->count(session->pubkey)) return;
      if (p_gated && !names_reader(fields, engine::to_hex(session->pubkey))) return;
      if (self_only && session->pubkey != ev.event->pubkey) return;
      // Per recipient only the prefix differs; the event bytes are shared.
      if (loop.send_shared(*conn, sub.event_prefix, ev.raw, "]")) {
        s_.stats.events_delivered.fetch_add(1, std::memory_order_relaxed);
        if (recorded && session->pubkey != ev.event->pubkey) record->add(ev.event->id, day, session->pubkey);
      }
    });
  }
}

void Relay::add_guest_audience(const engine::Event& e,
                               std::unordered_set<engine::Pubkey, engine::KeyBytesHash>& audience) const {
  for (const engine::Tag& t : e.tags) {
    if (t.size() < 2 || t[0] != "h") continue;
    for (const engine::ChannelMember& m : s_.team.members_of(t[1])) audience.insert(m.pubkey);
  }
}

void Relay::settle_replays(net::Loop& loop, uint64_t batch) {
  auto& overlapping = state(loop).overlapping;
  std::erase_if(overlapping, [&](const LoopState::Overlap& o) {
    if (o.until > batch) return false;
    net::Connection* conn = loop.find(o.conn);
    auto* session = conn ? static_cast<Session*>(conn->context()) : nullptr;
    if (session) {
      auto it = session->subs.find(o.sub_id);
      if (it != session->subs.end()) it->second->horizon.settle(batch);
    }
    return true;
  });
}

engine::Pubkey Relay::presence_subject(const engine::Event& e) const {
  engine::Pubkey pk;
  if (e.pubkey == key_.pubkey && engine::from_hex(e.first_tag_value("p"), &pk)) return pk;
  return e.pubkey;
}

void Relay::announce_offline(const engine::Pubkey& pk) {
  const uint64_t now = engine::unix_now();
  std::vector<engine::Tag> tags = {{"p", engine::to_hex(pk)}};
  // A proxy guest's channels, so their members hear it as they heard it come online.
  for (std::string& ch : s_.presence.guest_channels(pk, now)) tags.push_back({"h", std::move(ch)});
  auto e = std::make_shared<engine::Event>(engine::signed_event(key_, kind::kPresence, now, std::move(tags), "offline"));
  broadcast(std::move(e), "");
}

void Relay::on_tick(net::Loop& loop) {
  resume_paused(loop);  // a safety net: the writer's relief normally comes with a batch
  expire_neg_sessions(loop);
  expire_unauthenticated(loop);
  // One loop sweeps for the whole relay: statuses not refreshed within their
  // 90 s go offline, and say so (docs/reference/protocol.md §12.1).
  if (loop.index() != 0) return;
  for (const engine::Pubkey& pk : s_.presence.expire(engine::unix_now())) announce_offline(pk);
}

void Relay::hold_back(Context& c) {
  if (c.conn.reading_paused()) return;
  c.loop.pause_reading(c.conn);
  c.state.paused.push_back(c.conn.id());
  s_.stats.ingest_pauses.fetch_add(1, std::memory_order_relaxed);
}

void Relay::resume_paused(net::Loop& loop) {
  LoopState& st = state(loop);
  if (st.paused.empty() || s_.writer.congested()) return;
  // Resuming handles what each one had buffered, which may pause it again.
  std::vector<net::ConnId> resumed;
  resumed.swap(st.paused);
  for (net::ConnId id : resumed) {
    if (net::Connection* conn = loop.find(id)) loop.resume_reading(*conn);
  }
}

void Relay::drop_subscription(LoopState& st, Session& session, const std::string& sub_id) {
  auto it = session.subs.find(sub_id);
  if (it == session.subs.end()) return;
  st.subs.remove(it->second.get());
  session.held_filter_values -= filter_values(it->second->filters);
  session.subs.erase(it);
  s_.stats.subscriptions_active.fetch_sub(1, std::memory_order_relaxed);
}

std::vector<std::shared_ptr<const engine::Event>> Relay::sign_gone_notices(
    const std::vector<Revocation>& revoked) const {
  std::vector<std::shared_ptr<const engine::Event>> out;
  std::unordered_map<std::string, std::shared_ptr<const engine::Event>> signed_for;  // one per channel and reason
  const uint64_t now = engine::unix_now();
  for (const Revocation& r : revoked) {
    auto& gone = signed_for[r.channel + '\n' + r.reason];
    if (!gone) gone = std::make_shared<const engine::Event>(group_state_gone(key_, r.channel, r.reason, now));
    out.push_back(gone);
  }
  return out;
}

void Relay::revoke(net::Loop& loop, const Revocation& r, const std::shared_ptr<const engine::Event>& gone) {
  LoopState& st = state(loop);
  engine::EventFields fields;
  fields.assign(*gone, "");
  auto revoke_conn = [&](net::ConnId id) {
    net::Connection* conn = loop.find(id);
    auto* session = conn ? static_cast<Session*>(conn->context()) : nullptr;
    if (!session) return;
    // The revocation names only sessions that could read the channel before
    // (its member, or everyone when it was open); the grant is each session's
    // own. Those the read rule now refuses lost its group state, and are told
    // on their global subscriptions naming the kind (never a wildcard, as
    // for the group state itself: index/subscription_index.h).
    const bool lost = session->grant.allows_channel(r.channel) &&
                      !may_read_channel(r.channel, s_.team, session->grant, session->pubkey);
    std::vector<std::string> ended;
    for (const auto& [sub_id, sub] : session->subs) {
      if (sub->channel == r.channel) {
        ended.push_back(sub_id);
      } else if (lost && sub->channel.empty() && names_kinds_in_every_filter(sub->filters) && sub->matches(fields)) {
        if (loop.send_shared(*conn, sub->event_prefix, raw_of(gone), "]")) {
          s_.stats.events_delivered.fetch_add(1, std::memory_order_relaxed);
        }
      }
    }
    Context c{loop, *conn, *session, st};
    for (const std::string& sub_id : ended) {
      drop_subscription(st, *session, sub_id);
      send_closed(c, sub_id, r.reason);
    }
  };
  if (r.pubkey) {
    auto it = st.by_pubkey.find(*r.pubkey);
    if (it == st.by_pubkey.end()) return;
    for (net::ConnId id : std::vector<net::ConnId>(it->second)) revoke_conn(id);
    return;
  }
  // Everyone who can no longer read the channel (it turned private, or was deleted).
  for (const auto& [pk, conns] : st.by_pubkey) {
    if (s_.team.can_read(r.channel, pk)) continue;
    for (net::ConnId id : std::vector<net::ConnId>(conns)) revoke_conn(id);
  }
}

template <class Ends>
void Relay::close_sessions(net::Loop& loop, const ConnsByPubkey& map, const engine::Pubkey& pk, std::string_view why,
                           Ends ends) {
  auto it = map.find(pk);
  if (it == map.end()) return;
  for (net::ConnId id : std::vector<net::ConnId>(it->second)) {  // a close may change the list
    net::Connection* conn = loop.find(id);
    auto* session = conn ? static_cast<const Session*>(conn->context()) : nullptr;
    if (session && ends(*session)) loop.close(*conn, 1008, why);
  }
}

void Relay::close_pubkey(net::Loop& loop, const engine::Pubkey& pk, std::string_view why) {
  LoopState& st = state(loop);
  auto all = [](const Session&) { return true; };
  close_sessions(loop, st.by_pubkey, pk, why, all);
  close_sessions(loop, st.by_owner, pk, why, all);  // her agents (NIP-OA)
}

void Relay::on_policy_change(const RelayPolicy::Change& change, bool here) {
  using Op = RelayPolicy::Op;
  if (change.op == Op::kBanPubkey) {
    engine::Pubkey pk;
    engine::from_hex(change.subject, &pk);
    for (net::Loop* loop : loops_) loop->post([this, loop, pk] { close_pubkey(*loop, pk, "blocked: pubkey is banned"); });
  } else if (change.op == Op::kBlockIp) {
    // The authenticated sessions from the address; a new connection from it is refused at the door.
    for (net::Loop* loop : loops_) {
      loop->post([this, loop] {
        const RelayPolicy* policy = s_.gatekeeper.policy();
        std::vector<net::ConnId> blocked;
        for (const auto& [pk, conns] : state(*loop).by_pubkey) {
          for (net::ConnId id : conns) {
            net::Connection* conn = loop->find(id);
            if (conn && policy->address_blocked(conn->peer())) blocked.push_back(id);
          }
        }
        for (net::ConnId id : blocked) {
          if (net::Connection* conn = loop->find(id)) loop->close(*conn, 1008, "blocked: address is blocked");
        }
      });
    }
  }
  if (!here || !pubsub_) return;
  // The other nodes hear of it as a relay-signed event of a kind no client may send.
  const engine::Event notice =
      engine::signed_event(key_, kind::kPolicyNotice, engine::unix_now(), {}, RelayPolicy::encode(change));
  pubsub_->publish(notice.id, "", notice.raw);
}

void Relay::take_admin_changes(std::vector<engine::RemoteEvent>& events) {
  bool members_changed = false;
  std::erase_if(events, [&](const engine::RemoteEvent& e) {
    members_changed |= e.event->kind == kind::kRelayMembershipList;
    if (e.event->kind != kind::kPolicyNotice) return false;
    auto change = RelayPolicy::decode(e.event->content);
    RelayPolicy* policy = s_.gatekeeper.policy();
    if (!change || !policy) {
      const std::string why = change ? "no relay policy" : change.error();
      log_warn("another node's relay policy change not applied", {{"error", why}});
    } else if (auto s = policy->apply(*change); !s) {
      log_warn("another node's relay policy change not applied", {{"error", s.error()}});
    } else {
      on_policy_change(*change, /*here=*/false);
    }
    return true;  // never fanned out
  });
  if (!members_changed) return;
  // Another node changed the relay members: on a shared store its table is ours.
  auto lost = s_.membership.reload();
  if (!lost) return log_warn("relay members not re-read", {{"error", lost.error()}});
  if (!s_.membership.enforced() || lost->empty()) return;
  for (net::Loop* loop : loops_) {
    loop->post([this, loop, lost = *lost] {
      for (const engine::Pubkey& pk : lost) close_pubkey(*loop, pk);
    });
  }
}

void Relay::end_token_sessions(const engine::Pubkey& owner, std::vector<engine::TokenHash> tokens) {
  auto revoked = std::make_shared<const std::vector<engine::TokenHash>>(std::move(tokens));
  // Sessions live on their loops: each loop closes its own, as for a removed member.
  for (net::Loop* loop : loops_) {
    loop->post([this, loop, owner, revoked] {
      close_sessions(*loop, state(*loop).by_pubkey, owner, "token revoked", [&](const Session& s) {
        return s.token && std::find(revoked->begin(), revoked->end(), *s.token) != revoked->end();
      });
    });
  }
}

}  // namespace buzz::server
