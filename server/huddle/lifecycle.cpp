// Leaving, ending and archiving (docs/reference/huddle.md §8): the departure's one critical
// section in the room, `left` to those who remain, a 48102; the departure
// that empties the room archives the huddle channel through the store
// writer, then drops the room and emits a 48103. A peer who loses the right
// to be in the room (removed from the channel or the relay) is made to leave.
#include <algorithm>

#include "engine/clock.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "server/common/log.h"
#include "server/huddle/peer.h"

namespace buzz::server::huddle {

void Huddle::on_rights_lost(net::Loop& loop, const std::vector<Revocation>& channels,
                            const std::vector<engine::Pubkey>& members) {
  const std::vector<net::ConnId> in_call = states_[loop.index()]->in_call;  // a copy: depart() edits it
  for (net::ConnId id : in_call) {
    net::Connection* conn = loop.find(id);
    auto* peer = conn ? static_cast<Peer*>(conn->context()) : nullptr;
    if (!peer || peer->stage != Peer::Stage::kIn) continue;
    std::optional<std::string> why = lost_right(*peer, channels, members);
    if (!why) continue;
    depart(loop, *peer);
    loop.send_text(*conn, error_message(*why));
    loop.close(*conn, 1008, *why);
  }
}

std::optional<std::string> Huddle::lost_right(const Peer& peer, const std::vector<Revocation>& channels,
                                              const std::vector<engine::Pubkey>& members) const {
  auto gone = [&](const engine::Pubkey& pk) { return std::find(members.begin(), members.end(), pk) != members.end(); };
  // An agent let in on its owner's word leaves with its owner.
  if (gone(peer.pubkey) || (peer.owner && gone(*peer.owner))) return "restricted: not a relay member";
  const bool concerned = std::any_of(channels.begin(), channels.end(), [&](const Revocation& r) {
    return r.channel == peer.channel && (!r.pubkey || *r.pubkey == peer.pubkey);
  });
  if (concerned && !s_.team.can_read(peer.channel, peer.pubkey)) return "not a member";
  return std::nullopt;
}

void Huddle::depart(net::Loop& loop, Peer& peer) {
  peer.stage = Peer::Stage::kOut;
  std::erase(states_[loop.index()]->in_call, peer.conn);
  std::shared_ptr<Room> room = std::move(peer.room);
  Room::Departure d = room->leave(peer.conn);
  if (!d.found) return;
  end_recordings(loop, peer, room, d.remaining);
  std::vector<net::ConnId> remaining;
  for (const RoomPeer& p : d.remaining) remaining.push_back(p.conn);
  auto left = std::make_shared<const std::string>(left_message({d.peer.index, engine::to_hex(d.peer.pubkey)}));
  send_to(loop, remaining, std::move(left), Send::kControl);
  emit(kind::kHuddleParticipantLeft, peer.parent, peer.channel, peer.pubkey);
  if (d.ended_room) return end_room(loop, peer.channel, room, peer.parent, peer.pubkey);
  rooms_.drop_if_empty(peer.channel, room);
}

void Huddle::end_room(net::Loop& loop, const std::string& channel, const std::shared_ptr<Room>& room,
                      const std::string& parent, const engine::Pubkey& last) {
  ChangeTeam archive{TeamChange{TeamChange::Op::kArchive, channel, {}, {}}};
  net::Loop* home = &loop;
  auto archived = [this, channel, room, parent, last](bool ok) {
    if (!ok) {
      room->clear_ended();  // the room stays usable, and no 48103 (§8 step 4)
      return;
    }
    rooms_.drop_if_empty(channel, room);
    emit(kind::kHuddleEnded, parent, channel, last);
  };
  // Writer thread: the rest runs on the leaver's loop.
  archive.done = [home, archived](bool ok) { home->post([archived, ok] { archived(ok); }); };
  if (!s_.writer.submit({std::move(archive), kUnanswered, key_.pubkey})) {
    log_warn("huddle channel not archived: the store writer is full", {{"channel", channel}});
    archived(false);
  }
}

void Huddle::emit(uint16_t kind, const std::string& parent, const std::string& huddle_channel,
                  const engine::Pubkey& who) {
  auto e = std::make_shared<engine::Event>(
      engine::signed_event(key_, kind, engine::unix_now(), {{"h", parent}, {"p", engine::to_hex(who)}},
                           json_object({{"ephemeral_channel_id", json_string(huddle_channel)}})));
  if (!s_.writer.submit({StoreEvent{std::move(e), parent}, kUnanswered, key_.pubkey})) {
    log_warn("huddle lifecycle event dropped: the store writer is full", {{"kind", std::to_string(kind)}});
  }
}

}  // namespace buzz::server::huddle
