// The handshake and admission of a huddle socket (docs/reference/huddle.md §3.1, §3.2, §5):
// the auth event as a NIP-42 AUTH, relay membership, channel membership (an
// auto-add through the store writer for a parent channel's member), the room
// and its version pin, then `joined` to everyone and a 48101.
#include <simdjson.h>

#include <cstring>

#include "engine/filter.h"
#include "engine/kind_numbers.h"
#include "server/access/nip42.h"
#include "server/common/log.h"
#include "server/huddle/peer.h"

namespace buzz::server::huddle {

void Huddle::refuse(net::Loop& loop, net::Connection& conn, Peer& peer, const std::string& error) {
  peer.stage = Peer::Stage::kOut;
  loop.send_text(conn, error);
  loop.close(conn);
}

void Huddle::handle_auth(net::Loop& loop, net::Connection& conn, Peer& peer, AuthMessage&& m) {
  if (m.kind == AuthMessage::Kind::kBad ||
      !nip42_auth_valid(m.event, engine::to_hex(peer.challenge), relay_url_normalized_)) {
    return refuse(loop, conn, peer, error_message("auth failed"));
  }
  peer.pubkey = m.event.pubkey;
  peer.version = m.protocol_version;
  if (!s_.gatekeeper.admits_auth(m.event)) return refuse(loop, conn, peer, error_message("restricted: not a relay member"));
  peer.owner = s_.gatekeeper.vouching_owner(m.event);
  bool linked = false;
  const Entry entry = channel_entry(peer, m.parent_channel_id, &linked);
  if (entry == Entry::kRefused) return refuse(loop, conn, peer, error_message("not a member"));
  // P of §8.1: the parent named in auth, when it does announce this huddle.
  peer.parent = linked ? *m.parent_channel_id : peer.channel;
  if (entry == Entry::kAutoAdd) return auto_add(loop, conn, peer);
  admit(loop, conn, peer);
}

Huddle::Entry Huddle::channel_entry(const Peer& peer, const std::optional<std::string>& parent, bool* linked) const {
  *linked = parent && announces(*parent, peer.channel);
  const engine::ChannelAccess access = s_.team.access(peer.channel, peer.pubkey);
  if (!access.exists || access.archived) return Entry::kRefused;
  if (access.role || access.visibility == engine::Visibility::kOpen) return Entry::kMember;
  // A private channel with a TTL (a huddle channel) lets in the active members
  // of a live parent channel that announced it (§5 step 4).
  std::optional<engine::Channel> ch = s_.team.find_channel(peer.channel);
  if (!ch || ch->ttl_seconds == 0 || !*linked) return Entry::kRefused;
  const engine::ChannelAccess in_parent = s_.team.access(*parent, peer.pubkey);
  if (!in_parent.exists || in_parent.archived || !in_parent.role) return Entry::kRefused;
  return Entry::kAutoAdd;
}

bool Huddle::announces(const std::string& parent, const std::string& channel) const {
  if (!engine::is_canonical_uuid(parent)) return false;
  auto filter = engine::parse_filter_json(R"({"kinds":[48100],"#h":[")" + parent + R"("]})");
  if (!filter) return false;
  bool found = false;
  thread_local simdjson::dom::parser parser;
  engine::QueryOptions options;
  options.limit = 100;
  auto status = s_.store.query(*filter, options, [&](std::string_view raw, const engine::EventFields& fields) {
    std::string_view content, id;
    if (found || parser.parse(raw.data(), raw.size())["content"].get_string().get(content)) return;
    simdjson::dom::parser inner;  // `content` points into the outer parser's document
    if (inner.parse(content.data(), content.size())["ephemeral_channel_id"].get_string().get(id) || id != channel) return;
    // Only an announcement by someone who may still announce the channel counts
    // (a 48100 stored before that rule, or whose author lost the right since).
    engine::Pubkey author;
    std::memcpy(author.data(), fields.pubkey, author.size());
    found = may_announce_huddle(s_.team, channel, author);
  });
  if (!status) log_warn("huddle parent lookup failed", {{"error", status.error()}});
  return found;
}

void Huddle::auto_add(net::Loop& loop, net::Connection& conn, Peer& peer) {
  peer.stage = Peer::Stage::kAdmitting;
  ChangeTeam add{TeamChange{TeamChange::Op::kAddMember, peer.channel, peer.pubkey, peer.parent}};
  const net::ConnId id = conn.id();
  // Writer thread: back to the socket's loop, where the admission goes on.
  add.done = [this, id](bool) {
    net::Loop* home = loops_[id.loop];
    home->post([this, home, id] {
      net::Connection* c = home->find(id);
      auto* p = c ? static_cast<Peer*>(c->context()) : nullptr;
      if (!p || p->stage != Peer::Stage::kAdmitting) return;
      // Added or not, the channel decides now: a failed add is "not a member".
      if (!s_.team.is_member(p->channel, p->pubkey)) {
        return refuse(*home, *c, *p, error_message(s_.team.access(p->channel, p->pubkey).archived ? "huddle has ended" : "not a member"));
      }
      admit(*home, *c, *p);
    });
  };
  if (!s_.writer.submit({std::move(add), kUnanswered, peer.pubkey})) loop.close(conn);  // the writer is full: closed silently, as a DB failure (§3.2 step 4)
}

void Huddle::admit(net::Loop& loop, net::Connection& conn, Peer& peer) {
  for (;;) {
    std::shared_ptr<Room> room = rooms_.get_or_create(peer.channel);
    // Step 4: the channel may have been archived meanwhile.
    if (s_.team.access(peer.channel, peer.pubkey).archived) {
      rooms_.drop_if_empty(peer.channel, room);
      return refuse(loop, conn, peer, error_message("huddle has ended"));
    }
    if (peer.version < 1 || peer.version > kCurrentVersion) {
      return refuse(loop, conn, peer, unsupported_version_message(peer.version));
    }
    Room::Admission a = room->admit(conn.id(), peer.pubkey, int(peer.version));
    switch (a.result) {
      case Room::Admit::kRemoved: continue;  // dropped between the lookup and the admission: a fresh room
      case Room::Admit::kEnded: return refuse(loop, conn, peer, room_ended_message());
      case Room::Admit::kFull: return refuse(loop, conn, peer, room_full_message());
      case Room::Admit::kVersionMismatch:
        return refuse(loop, conn, peer, upgrade_required_message(a.pinned_version, peer.version));
      case Room::Admit::kOk: break;
    }
    peer.stage = Peer::Stage::kIn;
    loop.vouch(conn);  // an admitted peer no longer counts against its address's unauthenticated cap
    states_[loop.index()]->in_call.push_back(conn.id());
    peer.room = std::move(room);
    peer.index = a.index;
    stats_.admitted.fetch_add(1, std::memory_order_relaxed);
    std::vector<PeerEntry> roster;
    std::vector<net::ConnId> everyone;
    for (const RoomPeer& p : a.peers) {
      roster.push_back({p.index, engine::to_hex(p.pubkey)});
      everyone.push_back(p.conn);
    }
    auto joined = std::make_shared<const std::string>(joined_message({peer.index, engine::to_hex(peer.pubkey)}, roster));
    send_to(loop, everyone, std::move(joined), Send::kControl);
    emit(kind::kHuddleParticipantJoined, peer.parent, peer.channel, peer.pubkey);
    if (a.recording) {
      // Told on joining, after its `joined`, before any frame of its is kept (§11.1).
      peer.recording = a.recording;
      loop.send_text(conn, recording_message(true, peer.recording->id, engine::to_hex(peer.recording->by)));
    }
    return;
  }
}

}  // namespace buzz::server::huddle
