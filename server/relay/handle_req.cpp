// REQ, COUNT and CLOSE (docs/reference/protocol.md §9): history from the store, then live
// events through this loop's SubscriptionIndex.
//
// Security: a subscription is checked (auth, scope, channel access) before it
// is registered, so a refused REQ never sees a single live event; history,
// COUNT and live delivery all pass each event through readable_by; a COUNT
// counts what the same REQ would send.
#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "engine/canonical.h"
#include "engine/channel.h"
#include "server/access/read_access.h"
#include "server/relay/receipts.h"
#include "server/relay/relay.h"

namespace buzz::server {
namespace {

// A global REQ whose every filter names channels in #h: those of them this
// caller may read, whose live events it gets as well (one subscription for a
// client's whole channel list). Each delivery is still checked as for a
// channel subscription (Relay::fanout), so access lost later ends them.
std::vector<std::string> readable_named(const std::vector<engine::Filter>& filters, const engine::TeamState& team,
                                        const Session& s) {
  std::vector<std::string> out;
  for (const engine::Filter& f : filters) {
    const engine::TagFilter* h = f.tag('h');
    if (!h) return {};
    for (const std::string& v : h->values) {
      if (engine::parses_as_uuid(v) && team.can_read(v, s.pubkey) && s.grant.allows_channel(v)) out.push_back(v);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string count_reply(std::string_view sub_id, uint64_t n) {
  std::string out = "[\"COUNT\",";
  engine::append_json_string(out, sub_id);
  return out + ",{\"count\":" + std::to_string(n) + "}]";
}

// NIP-50: a REQ (or COUNT) is all searches or none.
enum class Searches : uint8_t { kNone, kAll, kMixed };
Searches searches_of(const std::vector<engine::Filter>& filters) {
  auto search = [](const engine::Filter& f) { return f.search.has_value(); };
  if (!std::any_of(filters.begin(), filters.end(), search)) return Searches::kNone;
  return std::all_of(filters.begin(), filters.end(), search) ? Searches::kAll : Searches::kMixed;
}
constexpr std::string_view kMixedSearches = "error: mixed search and non-search filters not supported";

}  // namespace

void Relay::handle_req(Context& c, ReqMessage&& req) {
  s_.stats.reqs.fetch_add(1, std::memory_order_relaxed);
  if (!c.session.authenticated()) {
    send_notice(c, "auth-required: authenticate before subscribing");
    return send_closed(c, req.sub_id, "auth-required: not authenticated");
  }
  bool replacing = c.session.subs.count(req.sub_id) > 0;
  // A reused id replaces its subscription, so the old one ends here: if the
  // new REQ is refused below, the CLOSED for this id leaves nothing running.
  if (replacing) drop_subscription(c.state, c.session, req.sub_id);
  if (auto refusal = admit_read(c)) return send_closed(c, req.sub_id, *refusal);
  if (!replacing && c.session.subs.size() >= kMaxSubscriptionsPerConnection) {
    return send_closed(c, req.sub_id, "error: too many subscriptions");
  }
  // A token without messages:read may not read (docs/reference/protocol.md §6.6).
  if (!c.session.grant.has(Scope::kMessagesRead)) {
    send_notice(c, "restricted: insufficient scope");
    return send_closed(c, req.sub_id, "restricted: insufficient scope");
  }
  // p-gated kinds are narrowed, not refused: every path reads through
  // readable_by, which drops those not addressed to the caller (docs/channels.md).
  std::string channel = channel_scope(req.filters);
  // NIP-50 (docs/reference/protocol.md §9.1 step 6, §9.8): answered from the search index,
  // once; a search is not a live feed, so a REQ is all searches or none. It
  // registers nothing, and reads within the caller's channels (a #h outside
  // them finds nothing), so the membership check below is not its.
  switch (searches_of(req.filters)) {
    case Searches::kNone: break;
    case Searches::kAll: return handle_search_req(c, req);
    case Searches::kMixed: return send_closed(c, req.sub_id, kMixedSearches);
  }
  // Delivery receipts (receipts.h): answered once, for what the caller may see.
  if (!req.filters.empty() && std::all_of(req.filters.begin(), req.filters.end(), [](const engine::Filter& f) {
        return f.kinds && f.kinds->size() == 1 && f.kinds->front() == kind::kDeliveryReceipt;
      })) {
    return handle_receipt_req(c, req);
  }
  // Checked before registration: a refused REQ never sees a live event.
  if (!channel.empty() && !s_.team.can_read(channel, c.session.pubkey)) {
    return send_closed(c, req.sub_id, "restricted: not a channel member");
  }
  if (!channel.empty() && !c.session.grant.allows_channel(channel)) {
    return send_closed(c, req.sub_id, "restricted: token does not have access to this channel");
  }

  const size_t cost = filter_values(req.filters);
  if (c.session.held_filter_values + cost > kMaxFilterValuesPerConnection) {
    return send_closed(c, req.sub_id, "error: too many filter values across this connection's subscriptions (max " +
                                          std::to_string(kMaxFilterValuesPerConnection) + ")");
  }
  c.session.held_filter_values += cost;

  auto sub = std::make_unique<index::Subscription>();
  sub->owner = subscription_owner(c.conn.id());
  sub->id = req.sub_id;
  sub->filters = std::move(req.filters);
  sub->channel = channel;
  if (channel.empty()) sub->channels = readable_named(sub->filters, s_.team, c.session);
  sub->event_prefix = "[\"EVENT\",";
  engine::append_json_string(sub->event_prefix, sub->id);
  sub->event_prefix += ",";
  index::Subscription* registered = sub.get();
  c.state.subs.add(registered);  // registered before replay: nothing published meanwhile is missed
  s_.stats.subscriptions_active.fetch_add(1, std::memory_order_relaxed);
  c.session.subs[registered->id] = std::move(sub);

  // Each filter returns its own `limit` newest matches (NIP-01). An event an
  // earlier filter already sent still counts toward a later filter's limit —
  // it is not sent twice, and no older event takes its place.
  std::unordered_set<engine::Id, engine::KeyBytesHash> sent;
  const bool several = registered->filters.size() > 1;
  engine::QueryOptions options;
  options.accept = s_.history.readable_to(c.session.grant, c.session.pubkey);
  std::string frame;
  // Live delivery begins where this replay ends: a write batch it may have
  // read is not delivered to it again (index/replay_horizon.h).
  const uint64_t written_before = s_.writer.written();
  std::vector<engine::Id> replayed;
  bool whole = true;  // a full send queue ends the replay, without EOSE (docs/reference/protocol.md §5.4)
  for (const engine::Filter& f : registered->filters) {
    if (!whole) break;
    (void)s_.store.query(f, options, [&](std::string_view raw, const engine::EventFields& e) {
      if (!whole || (several && !sent.insert(engine::id_of(e)).second)) return;
      frame.assign(registered->event_prefix).append(raw).push_back(']');
      whole = c.loop.send_history(c.conn, frame);
      if (whole) replayed.push_back(engine::id_of(e));
    });
  }
  s_.throttle.charge_replay(c.session.reads, replayed.size());
  registered->horizon.set(written_before, s_.writer.writing(), std::move(replayed));
  if (registered->horizon.overlapping()) {
    c.state.overlapping.push_back({c.conn.id(), registered->id, registered->horizon.overlap_until()});
  }
  if (!whole) return;
  std::string eose = "[\"EOSE\",";
  engine::append_json_string(eose, registered->id);
  c.loop.send_text(c.conn, eose + "]");
}

void Relay::handle_count(Context& c, const ReqMessage& req) {
  if (!c.session.authenticated()) return send_closed(c, req.sub_id, "auth-required: not authenticated");
  if (auto refusal = admit_read(c)) return send_closed(c, req.sub_id, *refusal);
  if (!c.session.grant.has(Scope::kMessagesRead)) return send_closed(c, req.sub_id, "restricted: insufficient scope");
  // A search counts the hits the same REQ would send, not every event its other keys match.
  switch (searches_of(req.filters)) {
    case Searches::kNone: break;
    case Searches::kAll: {
      auto rows = search_rows(c.session, req);
      if (!rows) return send_closed(c, req.sub_id, rows.error());
      c.loop.send_text(c.conn, count_reply(req.sub_id, rows->size()));
      return;
    }
    case Searches::kMixed: return send_closed(c, req.sub_id, kMixedSearches);
  }
  // What the caller may not read (other channels, p-gated events addressed to others) counts zero.
  engine::QueryOptions options;
  options.accept = s_.history.readable_to(c.session.grant, c.session.pubkey);
  auto n = s_.store.count(req.filters, options);
  if (!n) return send_closed(c, req.sub_id, "error: " + n.error());
  c.loop.send_text(c.conn, count_reply(req.sub_id, *n));
}

void Relay::handle_close(Context& c, const std::string& sub_id) {
  drop_subscription(c.state, c.session, sub_id);
  send_closed(c, sub_id, "");
}

}  // namespace buzz::server
