// EVENT (docs/reference/protocol.md §8) and POST /api/events (docs/reference/rest-api.md §3.4): one
// pipeline for both. Order matters — the first failing check decides the
// reply — and follows docs/reference/protocol.md §8.2. Checks that need a consistent view of
// the store (duplicates within a batch, channel rules, deletion rights) run on
// the writer thread, which answers through on_write_batch().
#include <cstdlib>

#include "engine/clock.h"
#include "engine/expiration.h"
#include "engine/kinds.h"
#include "engine/signature.h"
#include "server/relay/relay.h"

namespace buzz::server {
namespace {

constexpr size_t kMaxContentBytes = 262144;
constexpr const char* kNotYourEvent = "invalid: event pubkey does not match authenticated identity";

Verdict refuse(std::string reason) { return {false, std::move(reason)}; }

}  // namespace

void Relay::handle_event(Context& c, engine::Event&& e) {
  if (!c.session.authenticated()) return send_ok(c, e.id, false, "auth-required: not authenticated");
  // An agent in on its owner's word (NIP-OA) acts only while she is a member:
  // her removal closes this session too, and whatever it sends meanwhile is refused.
  if (c.session.owner && !s_.gatekeeper.still_vouched(c.session.pubkey, *c.session.owner)) {
    send_ok(c, e.id, false, "restricted: not a relay member");
    return c.loop.close(c.conn, 1008, "relay membership revoked");
  }
  if (auto refusal = admit_write(c)) return send_ok(c, e.id, false, *refusal);
  const engine::Id id = e.id;
  Submitter who{c.conn.id(), c.session.pubkey, c.session.grant, false};
  std::optional<Verdict> v = ingest(who, std::move(e));
  if (s_.writer.congested()) hold_back(c);
  if (!v) return;
  // A full writer queue drops the message with a NOTICE and no OK (docs/reference/protocol.md §2.5).
  if (v->busy) return send_notice(c, v->reason);
  send_ok(c, id, v->accepted, v->reason);
}

std::optional<Verdict> Relay::ingest(const Submitter& who, engine::Event&& e) {
  const engine::KindInfo* info = engine::find_kind(e.kind);
  s_.stats.count_received(info);
  const bool proxy = who.grant.has(Scope::kProxySubmit);
  // NIP-86 bans (docs/reference/nip86.md): one atomic load each while nothing is banned.
  if (s_.gatekeeper.banned(e.pubkey)) return refuse("blocked: pubkey is banned");
  if (const RelayPolicy* policy = s_.gatekeeper.policy(); policy && policy->event_banned(e.id)) {
    return refuse("blocked: event is banned");
  }
  // Gift wraps are signed by throw-away keys (NIP-59); a proxy submits for others.
  const bool own_event = e.pubkey == who.pubkey || e.kind == kind::kGiftWrap || proxy;
  // The socket checks the author before anything else (§8.1 W2, W3); HTTP
  // reaches the same check only after the signature (§8.2 step 3).
  if (!who.via_http) {
    if (!own_event) return refuse(kNotYourEvent);
    if (e.kind == kind::kAuth) return refuse("invalid: AUTH events cannot be submitted via EVENT");
  }
  if (e.kind == kind::kAuth) return refuse("invalid: AUTH events cannot be submitted");
  // A still-valid upload authorization must never be broadcast (docs/reference/media.md §8.4).
  if (e.kind == kind::kBlossomAuth) return refuse("restricted: blossom auth events are not relayed");
  if (e.kind == kind::kMemberAddedNotification || e.kind == kind::kMemberRemovedNotification)
    return refuse("invalid: membership notifications are relay-signed only");
  if (who.via_http && (e.kind == kind::kGiftWrap || e.kind == kind::kPresence)) {
    return refuse("invalid: kind " + std::to_string(e.kind) + " is only accepted via WebSocket");
  }
  if (info && info->sender == engine::Sender::kRelayOnly) return refuse("restricted: relay-only kind");
  const bool known = info && info->sender == engine::Sender::kClient;
  const bool membership_kind =
      known && (info->role == engine::KindRole::kRelayAdmin || info->role == engine::KindRole::kRelayLeave);
  if (engine::kind_class(e.kind) == engine::KindClass::kEphemeral && !membership_kind) {
    return ingest_ephemeral(who, std::move(e), known ? info : nullptr, own_event);
  }

  // An id already stored is answered without verifying it again: the stored
  // copy was verified, and this one is not stored either way.
  if (!membership_kind && s_.store.contains(e.id, e.kind)) return Verdict{true, std::string(duplicate_reason(e.kind))};
  std::string reason;
  if (engine::check_event(e, &reason) != engine::EventCheck::kOk) return refuse(std::move(reason));
  if (!proxy && std::llabs(engine::seconds_from(engine::unix_now(), e.created_at)) > engine::kIngestClockSkewSecs) {
    return refuse("invalid: event timestamp too far from server time");
  }
  // NIP-40 (docs/reference/kinds.md §7): an expired event would only be hidden, then erased.
  if (e.first_tag("expiration")) {
    const std::optional<uint64_t> expires_at = engine::expiration_of(e);
    if (!expires_at) return refuse("invalid: expiration tag must be a Unix timestamp");
    if (engine::has_expired(*expires_at, engine::unix_now())) return refuse("invalid: event has expired");
  }
  if (e.content.size() > kMaxContentBytes) {
    return refuse("invalid: content exceeds maximum size of 262144 bytes (got " + std::to_string(e.content.size()) + ")");
  }
  if (!own_event) return refuse(kNotYourEvent);
  if (!known) return refuse("restricted: unknown event kind");
  if (auto refused = check_grant(who.grant, e, *info)) return refused;
  // Attachments (docs/reference/media.md §8) are checked here, on the loop, not on the writer
  // thread the channel rules run on: they read the media store's files.
  if (engine::ImetaChecker::has_imeta(e)) {
    if (auto refused = s_.imeta.check(e)) return refuse("invalid: " + *refused);
  }
  std::shared_ptr<engine::RateTicket> rate;  // several nodes: the shared count's answer, asked by the writer
  if (auto refused = s_.throttle.admit_message(e, who.pubkey, &rate)) return refused;
  auto event = std::make_shared<const engine::Event>(std::move(e));
  if (membership_kind) {
    return submit_write({RunMembership{event}, who.origin, who.pubkey, std::move(rate)});
  }
  if (event->kind == kind::kProfile) {
    // NIP-01 profile metadata must be JSON (docs/reference/kinds.md §2.1).
    thread_local simdjson::dom::parser parser;
    if (parser.parse(event->content).error()) return refuse("invalid: kind:0 content must be valid JSON");
  }
  if (commands_ && info->role == engine::KindRole::kCommand && commands_->runs(event->kind)) {
    CommandRunner::Outcome ran = commands_->run(*event);
    if (!ran.accepted) return refuse(std::move(ran.reason));
    StoreEvent command{event, std::move(ran.channel)};
    command.ran = std::move(ran.reason);
    return submit_write({std::move(command), who.origin, who.pubkey, std::move(rate)});
  }
  // Channel rules need a consistent view of the team state: the writer runs them (server/team/team_model.h).
  return submit_write({StoreEvent{.event = event, .proxy = proxy}, who.origin, who.pubkey, std::move(rate)});
}

// Ephemeral kinds (docs/reference/protocol.md §12): the allow-list and scope, then the
// signature, then the kind's own handling. No clock window, no content cap.
std::optional<Verdict> Relay::ingest_ephemeral(const Submitter& who, engine::Event&& e,
                                                      const engine::KindInfo* info, bool own_event) {
  if (!info) return refuse("restricted: unknown event kind");
  if (auto refused = check_grant(who.grant, e, *info)) return refused;
  std::string reason;
  if (engine::check_event(e, &reason) != engine::EventCheck::kOk) return refuse(std::move(reason));
  if (!own_event) return refuse(kNotYourEvent);  // reached only over HTTP
  if (auto refused = s_.throttle.admit_message(e, who.pubkey)) return refused;
  return handle_ephemeral(who, std::make_shared<const engine::Event>(std::move(e)));
}

// Scopes and the token channel list (docs/reference/protocol.md §6.5–6.6). A session without
// a token holds every scope and no list, so this only ever refuses tokens.
std::optional<Verdict> Relay::check_grant(const Grant& g, const engine::Event& e, const engine::KindInfo& info) {
  // The common case on the hot path: a session without a token may do anything a scope allows.
  if (g.unrestricted()) return std::nullopt;
  const bool proxy = g.has(Scope::kProxySubmit);
  if (info.role == engine::KindRole::kRelayAdmin) {
    if (proxy) return refuse("invalid: relay admin commands cannot be submitted via proxy");
    if (g.channel_restricted()) return refuse("restricted: relay admin commands require a global token, not a channel-scoped token");
  }
  if (info.role == engine::KindRole::kRelayLeave && g.channel_restricted()) {
    return refuse("restricted: leave requests require a global token");
  }
  if (engine::kind_class(e.kind) == engine::KindClass::kEphemeral) {
    if (!g.has(Scope::kMessagesWrite) && !proxy) return refuse("restricted: insufficient scope for ephemeral events");
  } else if (!proxy) {
    std::optional<Scope> need = parse_scope(info.scope);
    if (need && !g.has(*need)) return refuse("restricted: insufficient scope (need " + std::string(info.scope) + ")");
  }
  if (!g.channel_restricted() || info.role == engine::KindRole::kRelayAdmin || info.role == engine::KindRole::kRelayLeave) {
    return std::nullopt;
  }
  std::string channel = resolve_channel(e, s_.store);
  // A reaction's or deletion's target beyond the token's channels answers as a
  // missing one, whose channel is none (docs/access.md, "Unreadable events look absent").
  const bool hidden_target = info.channel == engine::ChannelRule::kTarget && !g.allows_channel(channel);
  if (channel.empty() || hidden_target) return refuse("restricted: channel-scoped tokens cannot publish global events");
  if (!g.allows_channel(channel)) return refuse("restricted: token does not have access to this channel");
  return std::nullopt;
}

std::optional<Verdict> Relay::submit_write(WriteJob&& job) {
  if (s_.writer.submit(std::move(job))) return std::nullopt;
  Verdict busy{false, "rate-limited: too many concurrent requests"};
  busy.busy = true;
  return busy;
}

std::optional<Verdict> Relay::guest_channels(const Submitter& who, const engine::Event& e,
                                             std::vector<std::string>* out) {
  for (const engine::Tag& t : e.tags) {
    if (t.size() < 2 || t[0] != "h") continue;
    if (!who.grant.has(Scope::kProxySubmit)) return refuse("invalid: channel tags on presence are for proxy guests");
    if (out->size() == engine::kMaxGuestChannels) return refuse("invalid: too many channel tags on presence");
    if (!engine::is_canonical_uuid(t[1])) return refuse("invalid: h tag must be a canonical lowercase UUID");
    if (!s_.team.can_read(t[1], who.pubkey)) return refuse("restricted: not a channel member");
    out->push_back(t[1]);
  }
  return std::nullopt;
}

std::optional<Verdict> Relay::handle_ephemeral(const Submitter& who, std::shared_ptr<const engine::Event> event) {
  const uint64_t now = engine::unix_now();
  if (event->kind == kind::kPresence) {
    std::vector<std::string> channels;
    if (auto refused = guest_channels(who, *event, &channels)) return refused;
    s_.presence.set_status(event->pubkey, presence_status(event->content), now);
    if (!channels.empty()) s_.presence.set_guest_channels(event->pubkey, std::move(channels), now);
    broadcast(std::move(event), "");
    return Verdict{true, ""};
  }
  // Typing (20002) lives in a channel: members, or anyone on an open channel.
  std::string_view h = event->first_tag_value("h");
  if (h.empty()) return refuse("invalid: channel-scoped events must include an h tag");
  if (!engine::is_canonical_uuid(h)) return refuse("invalid: h tag must be a canonical lowercase UUID");
  if (!s_.team.access(h, event->pubkey).can_post()) return refuse("restricted: not a channel member");
  s_.presence.set_typing(h, event->pubkey, now);
  std::string channel(h);
  broadcast(std::move(event), std::move(channel));
  return Verdict{true, ""};
}

void Relay::broadcast(std::shared_ptr<const engine::Event> event, std::string channel) {
  if (pubsub_) pubsub_->publish(event->id, channel, event->raw);
  auto committed = std::make_shared<const std::vector<CommittedEvent>>(
      std::vector<CommittedEvent>{{event, std::move(channel), raw_of(event)}});
  // Posted on this loop too, so the sender's OK goes out before its own echo.
  for (net::Loop* loop : loops_) loop->post([this, loop, committed] { fanout(*loop, *committed, 0); });
}

}  // namespace buzz::server
