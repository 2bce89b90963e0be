// EVENT (protocol.md §8): the checks a client event passes before it is handed
// to the store writer. Order matters — the first failing check decides the
// reply — and follows protocol.md §8.1–8.2. Checks that need a consistent view
// of the store (duplicates within a batch, replaceable order, deletion rights)
// happen on the writer thread.
#include <cstdlib>

#include "engine/clock.h"
#include "engine/kinds.h"
#include "engine/signature.h"
#include "server/relay.h"

namespace buzz::server {
namespace {

constexpr int64_t kClockSkewSecs = 900;
constexpr size_t kMaxContentBytes = 262144;

}  // namespace

void Relay::handle_event(Context& c, engine::Event&& e) {
  if (!c.session.authenticated()) return send_ok(c, e.id, false, "auth-required: not authenticated");
  // Gift wraps are signed by throw-away keys (NIP-59).
  if (e.pubkey != c.session.pubkey && e.kind != 1059) {
    return send_ok(c, e.id, false, "invalid: event pubkey does not match authenticated identity");
  }
  if (e.kind == 22242) return send_ok(c, e.id, false, "invalid: AUTH events cannot be submitted via EVENT");
  if (e.kind == 44100 || e.kind == 44101) {
    return send_ok(c, e.id, false, "invalid: membership notifications are relay-signed only");
  }
  const engine::KindInfo* info = engine::find_kind(e.kind);
  if (info && info->sender == engine::Sender::kRelayOnly) return send_ok(c, e.id, false, "restricted: relay-only kind");
  if (!info || info->sender != engine::Sender::kClient) return send_ok(c, e.id, false, "restricted: unknown event kind");

  const bool ephemeral = engine::kind_class(e.kind) == engine::KindClass::kEphemeral;
  const bool membership_kind = info->role == engine::KindRole::kRelayAdmin || info->role == engine::KindRole::kRelayLeave;
  // An id already stored is answered without verifying it again: the stored
  // copy was verified, and this one is not stored either way.
  if (!ephemeral && !membership_kind && store_.contains(e.id, e.kind)) return send_ok(c, e.id, true, duplicate_reason(e.kind));

  std::string reason;
  if (engine::check_event(e, &reason) != engine::EventCheck::kOk) return send_ok(c, e.id, false, reason);

  auto event = std::make_shared<const engine::Event>(std::move(e));
  if (membership_kind) return submit_write(c, {WriteJob::Type::kMembership, event, {}, c.conn.id(), c.session.pubkey});

  // The clock window and the content cap apply to stored kinds only (protocol.md §12).
  if (!ephemeral && std::llabs(engine::seconds_from(engine::unix_now(), event->created_at)) > kClockSkewSecs) {
    return send_ok(c, event->id, false, "invalid: event timestamp too far from server time");
  }
  if (!ephemeral && event->content.size() > kMaxContentBytes) {
    return send_ok(c, event->id, false,
                   "invalid: content exceeds maximum size of 262144 bytes (got " + std::to_string(event->content.size()) + ")");
  }
  if (ephemeral) return handle_ephemeral(c, std::move(event));
  if (event->kind == 0) {
    // NIP-01 profile metadata must be JSON (kinds.md §2.1).
    thread_local simdjson::dom::parser parser;
    if (parser.parse(event->content).error()) return send_ok(c, event->id, false, "invalid: kind:0 content must be valid JSON");
  }
  // Channel rules need a consistent view of the team state: the writer runs them (server/team_model.h).
  submit_write(c, {WriteJob::Type::kStore, event, {}, c.conn.id(), c.session.pubkey});
}

void Relay::submit_write(Context& c, WriteJob&& job) {
  // A full writer queue drops the message with a NOTICE and no OK (protocol.md §2.5).
  if (!writer_->submit(std::move(job))) send_notice(c, "rate-limited: too many concurrent requests");
}

void Relay::handle_ephemeral(Context& c, std::shared_ptr<const engine::Event> event) {
  const uint64_t now = engine::unix_now();
  if (event->kind == 20001) {
    presence_.set_status(event->pubkey, presence_status(event->content), now);
    send_ok(c, event->id, true, "");
    return broadcast(c.loop, std::move(event), "");
  }
  // Typing (20002) lives in a channel: members, or anyone on an open channel.
  std::string_view h = event->first_tag_value("h");
  if (h.empty()) return send_ok(c, event->id, false, "invalid: channel-scoped events must include an h tag");
  if (!engine::is_canonical_uuid(h)) return send_ok(c, event->id, false, "invalid: h tag must be a canonical lowercase UUID");
  if (!team_.access(h, event->pubkey).can_post()) return send_ok(c, event->id, false, "restricted: not a channel member");
  presence_.set_typing(h, event->pubkey, now);
  send_ok(c, event->id, true, "");
  broadcast(c.loop, event, std::string(h));
}

void Relay::broadcast(net::Loop& here, std::shared_ptr<const engine::Event> event, std::string channel) {
  auto committed = std::make_shared<const std::vector<CommittedEvent>>(
      std::vector<CommittedEvent>{{event, std::move(channel), raw_of(event)}});
  for (net::Loop* loop : loops_) {
    if (loop == &here) {
      fanout(*loop, *committed);
    } else {
      loop->post([this, loop, committed] { fanout(*loop, *committed); });
    }
  }
}

}  // namespace buzz::server
