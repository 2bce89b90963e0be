// NEG-OPEN, NEG-MSG, NEG-CLOSE (NIP-77): negentropy set reconciliation over
// what the caller may read.
//
// Security: the set is built through the same gate as REQ and COUNT (auth,
// scope, channel membership, then readable_by on every event), so an event
// the caller may not read is neither listed nor counted in any fingerprint:
// reconciliation cannot reveal that it exists.
//
// Every failure is a NEG-ERR that ends that one session; the connection and
// its other sessions and subscriptions go on.
#include "engine/canonical.h"
#include "engine/clock.h"
#include "server/access/read_access.h"
#include "server/relay/relay.h"

namespace buzz::server {
namespace {

namespace neg = engine::negentropy;

std::string neg_frame(std::string_view verb, std::string_view sub_id, std::string_view payload) {
  std::string out = "[\"";
  out.append(verb).append("\",");
  engine::append_json_string(out, sub_id);
  out += ",";
  engine::append_json_string(out, payload);
  return out + "]";
}

}  // namespace

void Relay::send_neg_err(net::Loop& loop, net::Connection& conn, std::string_view sub_id, std::string_view reason) {
  loop.send_text(conn, neg_frame("NEG-ERR", sub_id, reason));
}

// The binary message of a hex field, or the NEG-ERR reason. Its size is the
// message limit's to bound (Relay::refuse_oversized), not ours: a client may
// hold its messages to a larger frame than we hold ours.
engine::Result<std::string> Relay::neg_message(std::string_view hex) {
  std::string binary;
  if (!neg::from_wire(hex, binary)) return engine::Error{"invalid: message is not lowercase hex"};
  return binary;
}

// What one NEG-OPEN's build needs on the worker (copies: the connection may
// close meanwhile), and what it hands back to the loop.
struct Relay::NegBuild {
  net::Loop* loop;
  net::ConnId conn;
  std::string sub_id;
  uint64_t ticket;
  engine::Filter filter;
  Grant grant;
  engine::Pubkey reader;
  std::string message;  // the NEG-OPEN's first message, binary
  // The outcome: the session's set and the answer, or the NEG-ERR reason.
  std::unique_ptr<NegSession::Ready> ready;
  std::string answer;
  std::string error;
};

void Relay::send_neg_msg(net::Loop& loop, net::Connection& conn, std::string_view sub_id, std::string_view binary) {
  loop.send_text(conn, neg_frame("NEG-MSG", sub_id, neg::to_wire(binary)));
}

// Answers one message of an open session; a protocol error ends the session.
void Relay::neg_step(Context& c, const std::string& sub_id, NegSession& session, std::string_view hex) {
  auto fail = [&](std::string_view reason) {
    send_neg_err(c.loop, c.conn, sub_id, reason);
    c.session.negs.erase(sub_id);  // last: sub_id may be the key's own string
  };
  if (!session.ready) return fail("invalid: NEG-MSG before the answer to its NEG-OPEN");
  auto binary = neg_message(hex);
  if (!binary) return fail(binary.error());
  auto reply = session.ready->reconciler.reconcile(*binary);
  if (!reply) return fail("invalid: " + reply.error());
  session.last_active_ms = engine::steady_now_ms();
  send_neg_msg(c.loop, c.conn, sub_id, reply->next);
}

void Relay::handle_neg_open(Context& c, NegOpenMessage&& m) {
  // A reused id replaces its session (NIP-77), so the old one ends first.
  c.session.negs.erase(m.sub_id);
  auto refuse = [&](std::string_view reason) { send_neg_err(c.loop, c.conn, m.sub_id, reason); };
  if (!c.session.authenticated()) return refuse("auth-required: not authenticated");
  if (auto refusal = admit_read(c)) return refuse(*refusal);
  if (!c.session.grant.has(Scope::kMessagesRead)) return refuse("restricted: insufficient scope");
  if (m.filter.search) return refuse("blocked: a search filter cannot be reconciled");
  // The same channel checks as REQ (handle_req.cpp), before anything is read.
  const std::string channel = channel_scope({m.filter});
  if (!channel.empty() && !s_.team.can_read(channel, c.session.pubkey)) return refuse("restricted: not a channel member");
  if (!channel.empty() && !c.session.grant.allows_channel(channel)) {
    return refuse("restricted: token does not have access to this channel");
  }
  if (c.session.negs.size() >= neg_limits_.sessions_per_connection) {
    return refuse("blocked: too many open reconciliations on this connection (max " +
                  std::to_string(neg_limits_.sessions_per_connection) + ")");
  }
  // The message is checked before the set is built: a bad one costs no scan.
  auto binary = neg_message(m.message);
  if (!binary) return refuse(binary.error());

  // The set is built on the NEG worker; the loop goes on serving meanwhile.
  auto session = std::make_unique<NegSession>();
  session->ticket = ++c.state.neg_tickets;
  session->last_active_ms = engine::steady_now_ms();
  auto build = std::make_shared<NegBuild>(NegBuild{&c.loop, c.conn.id(), m.sub_id, session->ticket, std::move(m.filter),
                                                   c.session.grant, c.session.pubkey, std::move(*binary), {}, {}, {}});
  if (!neg_builder_.submit([this, build] { build_neg_set(build); })) {
    return refuse("rate-limited: too many reconciliations being prepared, retry later");
  }
  c.session.negs[m.sub_id] = std::move(session);
  if (c.session.negs.size() == 1) c.state.negotiating.push_back(c.conn.id());
}

// NEG worker thread. Reads only what is safe off the loop: the store, and the
// read rules with the grant copied into the build.
void Relay::build_neg_set(const std::shared_ptr<NegBuild>& build) {
  engine::QueryOptions options;
  options.accept = s_.history.readable_to(build->grant, build->reader);
  std::vector<neg::Item> items;
  engine::Status s = s_.store.scan_all(build->filter, options, neg_limits_.max_items, [&](const engine::EventFields& f) {
    items.push_back({f.created_at, engine::id_of(f)});
  });
  if (!s) {
    build->error = s.error();
  } else {
    build->ready = std::make_unique<NegSession::Ready>(neg::ItemSet(std::move(items)), neg_limits_.frame_bytes);
    auto reply = build->ready->reconciler.reconcile(build->message);
    if (reply) build->answer = std::move(reply->next);
    else build->error = "invalid: " + reply.error();
  }
  build->loop->post([this, build] { finish_neg_open(*build->loop, *build); });
}

// Loop thread: the built set joins its session, unless the connection closed
// or the session was closed or replaced meanwhile.
void Relay::finish_neg_open(net::Loop& loop, NegBuild& build) {
  net::Connection* conn = loop.find(build.conn);
  auto* session = conn ? static_cast<Session*>(conn->context()) : nullptr;
  if (!session) return;
  auto it = session->negs.find(build.sub_id);
  if (it == session->negs.end() || it->second->ticket != build.ticket) return;
  if (!build.error.empty()) {
    send_neg_err(loop, *conn, build.sub_id, build.error);
    session->negs.erase(it);
    return;
  }
  it->second->ready = std::move(build.ready);
  it->second->last_active_ms = engine::steady_now_ms();
  send_neg_msg(loop, *conn, build.sub_id, build.answer);
}

void Relay::handle_neg_msg(Context& c, const NegMsgMessage& m) {
  auto it = c.session.negs.find(m.sub_id);
  if (it == c.session.negs.end()) return send_neg_err(c.loop, c.conn, m.sub_id, "closed: no such reconciliation open");
  if (auto refusal = admit_read(c)) {
    c.session.negs.erase(it);
    return send_neg_err(c.loop, c.conn, m.sub_id, *refusal);
  }
  neg_step(c, m.sub_id, *it->second, m.message);
}

void Relay::handle_neg_close(Context& c, const NegCloseMessage& m) { c.session.negs.erase(m.sub_id); }

// Loop tick: sessions left idle past the limit end with a NEG-ERR.
void Relay::expire_neg_sessions(net::Loop& loop) {
  LoopState& st = state(loop);
  const int64_t cutoff = engine::steady_now_ms() - neg_limits_.idle_ms;
  std::erase_if(st.negotiating, [&](net::ConnId id) {
    net::Connection* conn = loop.find(id);
    auto* session = conn ? static_cast<Session*>(conn->context()) : nullptr;
    if (!session) return true;
    std::erase_if(session->negs, [&](const auto& entry) {
      // A set still being built is not idle: the caller waits for its answer.
      if (!entry.second->ready || entry.second->last_active_ms >= cutoff) return false;
      send_neg_err(loop, *conn, entry.first, "closed: idle for more than " + std::to_string(neg_limits_.idle_ms / 1000) +
                                                 " s");
      return true;
    });
    return session->negs.empty();
  });
}

}  // namespace buzz::server
