// Rooms and their admission; see room.h.
#include "server/huddle/room.h"

#include <algorithm>

namespace buzz::server::huddle {

Room::Admission Room::admit(net::ConnId conn, const engine::Pubkey& pk, int version) {
  std::lock_guard lock(mu_);
  Admission a;
  if (removed_) {
    a.result = Admit::kRemoved;
  } else if (ended_) {
    a.result = Admit::kEnded;
  } else if (peers_.size() >= kMaxPeers) {
    a.result = Admit::kFull;
  } else if (pinned_version_ != 0 && pinned_version_ != version) {
    a.result = Admit::kVersionMismatch;
    a.pinned_version = pinned_version_;
  } else if (freed_.empty() && next_fresh_ >= kIndexSpace) {
    a.result = Admit::kFull;
  } else {
    if (!freed_.empty()) {
      a.index = freed_.back();
      freed_.pop_back();
    } else {
      a.index = uint8_t(next_fresh_++);
    }
    if (pinned_version_ == 0) pinned_version_ = version;
    peers_.push_back({conn, pk, a.index});
    a.peers = peers_;
    a.recording = recording_;
  }
  return a;
}

Room::Departure Room::leave(net::ConnId conn) {
  std::lock_guard lock(mu_);
  Departure d;
  auto it = std::find_if(peers_.begin(), peers_.end(), [&](const RoomPeer& p) { return p.conn == conn; });
  if (it == peers_.end()) return d;
  d.found = true;
  d.peer = *it;
  peers_.erase(it);
  freed_.push_back(d.peer.index);
  if (peers_.empty() && !ended_) {
    ended_ = true;
    d.ended_room = true;
  }
  d.remaining = peers_;
  return d;
}

void Room::clear_ended() {
  std::lock_guard lock(mu_);
  ended_ = false;
}

bool Room::start_recording(std::shared_ptr<Recording> r, std::vector<RoomPeer>* peers) {
  std::lock_guard lock(mu_);
  if (recording_) return false;
  recording_ = std::move(r);
  *peers = peers_;
  return true;
}

std::shared_ptr<Recording> Room::stop_recording(const Recording* which, std::vector<RoomPeer>* peers) {
  std::lock_guard lock(mu_);
  if (!recording_ || (which && recording_.get() != which)) return nullptr;
  *peers = peers_;
  return std::move(recording_);
}

std::vector<RoomPeer> Room::peers() const {
  std::lock_guard lock(mu_);
  return peers_;
}

size_t Room::others(net::ConnId self, std::array<net::ConnId, kMaxPeers>& out) const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const RoomPeer& p : peers_) {
    if (!(p.conn == self)) out[n++] = p.conn;
  }
  return n;
}

std::shared_ptr<Room> Rooms::get_or_create(const std::string& channel) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Room>& room = rooms_[channel];
  if (!room) room = std::make_shared<Room>();
  return room;
}

std::shared_ptr<Room> Rooms::find(const std::string& channel) const {
  std::lock_guard lock(mu_);
  auto it = rooms_.find(channel);
  return it == rooms_.end() ? nullptr : it->second;
}

void Rooms::drop_if_empty(const std::string& channel, const std::shared_ptr<Room>& room) {
  std::lock_guard lock(mu_);
  auto it = rooms_.find(channel);
  if (it == rooms_.end() || it->second != room) return;
  std::lock_guard room_lock(room->mu_);
  if (!room->peers_.empty()) return;
  room->removed_ = true;
  rooms_.erase(it);
}

size_t Rooms::size() const {
  std::lock_guard lock(mu_);
  return rooms_.size();
}

}  // namespace buzz::server::huddle
