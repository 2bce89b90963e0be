// A huddle's recording and its participants' published tracks, on the loops
// (docs/reference/huddle.md §11): the control messages, the right to record checked at
// the moment of the act, and telling every participant. A peer's frames are
// kept only once that peer's own loop has queued it the news (the `recording`
// message, or its own `track`), so nobody's voice is kept before they are
// told; the files themselves are the Recorder's (recorder.h).
#include <algorithm>

#include "engine/channel.h"
#include "server/huddle/audio_frame.h"
#include "server/huddle/peer.h"

namespace buzz::server::huddle {

void Huddle::on_control(net::Loop& loop, net::Connection& conn, Peer& peer, Control c) {
  switch (c) {
    case Control::kLeave:
      depart(loop, peer);
      loop.close(conn);
      return;
    case Control::kRecordStart: return start_recording(loop, conn, peer);
    case Control::kRecordStop: return stop_recording(loop, conn, peer);
    case Control::kTrackPublish: return publish_track(loop, conn, peer);
    case Control::kTrackUnpublish: return unpublish_track(loop, peer);
    case Control::kIgnored: return;  // any other text is ignored (§6)
  }
}

bool Huddle::may_record(const Peer& peer) const {
  const engine::ChannelAccess a = s_.team.access(peer.channel, peer.pubkey);
  return a.exists && !a.archived && a.role && engine::is_elevated(*a.role);
}

void Huddle::start_recording(net::Loop& loop, net::Connection& conn, Peer& peer) {
  if (!may_record(peer)) {
    loop.send_text(conn, control_error_message("forbidden", "forbidden: only the huddle channel's owners and admins may record"));
    return;
  }
  std::shared_ptr<Recording> rec = recorder_.reserve(Recording::Kind::kRoom, peer.channel, peer.pubkey);
  if (!rec) {
    loop.send_text(conn, control_error_message("recording_limit", "the relay records as many huddles as it may"));
    return;
  }
  std::vector<RoomPeer> peers;
  if (!peer.room->start_recording(rec, &peers)) {
    recorder_.release(rec);
    loop.send_text(conn, control_error_message("recording", "this huddle is being recorded already"));
    return;
  }
  recorder_.begin(rec);  // its 48110 is with the store writer before any frame can be kept
  tell_recording(loop, peers, peer.room, rec, true);
}

void Huddle::stop_recording(net::Loop& loop, net::Connection& conn, Peer& peer) {
  if (!may_record(peer)) {
    loop.send_text(conn, control_error_message("forbidden", "forbidden: only the huddle channel's owners and admins may record"));
    return;
  }
  std::vector<RoomPeer> peers;
  std::shared_ptr<Recording> rec = peer.room->stop_recording(nullptr, &peers);
  if (!rec) {
    loop.send_text(conn, control_error_message("not_recording", "this huddle is not being recorded"));
    return;
  }
  recorder_.end(rec, steady_ms());
  tell_recording(loop, peers, peer.room, rec, false);
}

void Huddle::publish_track(net::Loop& loop, net::Connection& conn, Peer& peer) {
  if (peer.track) return;  // published already
  std::shared_ptr<Recording> track = recorder_.reserve(Recording::Kind::kTrack, peer.channel, peer.pubkey);
  if (!track) {
    loop.send_text(conn, control_error_message("recording_limit", "the relay records as many huddles as it may"));
    return;
  }
  recorder_.begin(track);
  peer.track = track;
  tell_track(loop, peer.room, peer.room->peers(), peer.pubkey, track, true);
}

void Huddle::unpublish_track(net::Loop& loop, Peer& peer) {
  if (!peer.track) return;
  std::shared_ptr<Recording> track = std::move(peer.track);
  recorder_.end(track, steady_ms());
  tell_track(loop, peer.room, peer.room->peers(), peer.pubkey, track, false);
}

void Huddle::end_recordings(net::Loop& loop, Peer& peer, const std::shared_ptr<Room>& room,
                            const std::vector<RoomPeer>& remaining) {
  const int64_t now = steady_ms();
  peer.recording.reset();
  if (peer.track) {
    recorder_.end(peer.track, now);
    tell_track(loop, room, remaining, peer.pubkey, peer.track, false);
    peer.track.reset();
  }
  if (!remaining.empty()) return;
  std::vector<RoomPeer> none;
  if (std::shared_ptr<Recording> rec = room->stop_recording(nullptr, &none)) recorder_.end(rec, now);
}

void Huddle::on_self_stopped(const std::shared_ptr<Recording>& rec) {
  if (loops_.empty()) return;
  net::Loop* home = loops_.front();
  home->post([this, home, rec] {
    std::shared_ptr<Room> room = rooms_.find(rec->channel);
    if (!room) return;
    if (rec->kind == Recording::Kind::kTrack) return tell_track(*home, room, room->peers(), rec->by, rec, false);
    std::vector<RoomPeer> peers;
    if (room->stop_recording(rec.get(), &peers)) tell_recording(*home, peers, room, rec, false);
  });
}

void Huddle::keep(const Peer& peer, std::string_view frame) {
  std::optional<uint32_t> ts;
  std::string_view opus = frame;
  if (peer.version == 2) {
    ts = parse_v2_header(frame)->ts_48k;  // check_frame passed: the header is there
    opus.remove_prefix(kV2HeaderBytes);
  }
  const int64_t now = steady_ms();
  if (peer.recording) recorder_.frame(peer.recording, peer.pubkey, opus, now, ts);
  if (peer.track) recorder_.frame(peer.track, peer.pubkey, opus, now, ts);
}

void Huddle::tell_recording(net::Loop& here, const std::vector<RoomPeer>& peers, const std::shared_ptr<Room>& room,
                            const std::shared_ptr<Recording>& rec, bool on) {
  auto text = std::make_shared<const std::string>(recording_message(on, rec->id, engine::to_hex(rec->by)));
  on_each(here, peers, room, [rec, on, text](net::Loop& loop, net::Connection& conn, Peer& p) {
    // The message is queued first: a frame this loop reads after it is kept.
    loop.send_text(conn, *text);
    if (on) {
      p.recording = rec;
    } else if (p.recording == rec) {
      p.recording.reset();
    }
  });
}

void Huddle::tell_track(net::Loop& here, const std::shared_ptr<Room>& room, const std::vector<RoomPeer>& peers,
                        const engine::Pubkey& pubkey, const std::shared_ptr<Recording>& track, bool on) {
  auto text = std::make_shared<const std::string>(track_message(engine::to_hex(pubkey), on));
  on_each(here, peers, room, [track, on, text](net::Loop& loop, net::Connection& conn, Peer& p) {
    loop.send_text(conn, *text);
    if (!on && p.track == track) p.track.reset();
  });
}

void Huddle::on_each(net::Loop& here, const std::vector<RoomPeer>& to, const std::shared_ptr<Room>& room,
                     std::function<void(net::Loop&, net::Connection&, Peer&)> fn) {
  auto visit = [room, fn](net::Loop& loop, net::ConnId id) {
    net::Connection* c = loop.find(id);
    auto* p = c ? static_cast<Peer*>(c->context()) : nullptr;
    if (p && p->stage == Peer::Stage::kIn && p->room == room) fn(loop, *c, *p);
  };
  for (uint16_t l = 0; l < loops_.size(); ++l) {
    std::vector<net::ConnId> theirs;
    for (const RoomPeer& p : to) {
      if (p.conn.loop == l) theirs.push_back(p.conn);
    }
    if (theirs.empty()) continue;
    if (l == here.index()) {
      for (net::ConnId id : theirs) visit(here, id);
    } else {
      net::Loop* loop = loops_[l];
      loop->post([loop, visit, theirs = std::move(theirs)] {
        for (net::ConnId id : theirs) visit(*loop, id);
      });
    }
  }
}

}  // namespace buzz::server::huddle
