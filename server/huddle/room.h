// Room: one huddle channel's live state on this node (docs/reference/huddle.md §1): its
// peers and their u8 indices, the ended flag and the pinned protocol version.
// Rooms: the rooms by channel id.
//
// Threads: a room's peers may sit on different loops, so each room has a
// mutex; admission and departure are each one critical section under it
// (§3.2 step 6, §8 step 1), and the audio path takes it only to copy the
// recipients out. Not persisted, not shared across nodes.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/hex.h"
#include "net/connection.h"

namespace buzz::server::huddle {

class Recording;  // recorder.h

inline constexpr size_t kMaxPeers = 25;
inline constexpr unsigned kIndexSpace = 255;  // fresh indices 0…254; 255 is never used (§4.3)

struct RoomPeer {
  net::ConnId conn;
  engine::Pubkey pubkey{};
  uint8_t index = 0;
};

class Room {
 public:
  enum class Admit : uint8_t { kOk, kEnded, kFull, kVersionMismatch, kRemoved };
  struct Admission {
    Admit result = Admit::kOk;
    uint8_t index = 0;             // kOk: the newcomer's
    int pinned_version = 0;        // kVersionMismatch: the room's
    std::vector<RoomPeer> peers;   // kOk: everyone now in the room, the newcomer included
    std::shared_ptr<Recording> recording;  // kOk: the recording running, which the newcomer is told of
  };
  // §3.2 step 6, precedence Ended > Full > VersionMismatch; the first
  // admission pins the version. kRemoved: the room left the registry
  // meanwhile, ask Rooms again.
  Admission admit(net::ConnId conn, const engine::Pubkey& pk, int version);

  struct Departure {
    bool found = false;
    RoomPeer peer;                   // who left
    bool ended_room = false;         // this departure emptied the room and ended it (only one can)
    std::vector<RoomPeer> remaining;
  };
  // §8 step 1: removes the peer and frees its index (reused last-freed-first).
  Departure leave(net::ConnId conn);
  // An archive that failed: the room stays usable (§8 step 4).
  void clear_ended();

  // The room's recording (docs/reference/huddle.md §11.1), in the same critical section as
  // admission, so a newcomer is either among `peers` or sees the recording in
  // its Admission. Set when none runs (false otherwise).
  bool start_recording(std::shared_ptr<Recording> r, std::vector<RoomPeer>* peers);
  // Takes the recording if it is `which` (any, when nullptr); `peers` as above.
  std::shared_ptr<Recording> stop_recording(const Recording* which, std::vector<RoomPeer>* peers);
  std::vector<RoomPeer> peers() const;

  // The other peers' connections, for one audio frame: how many were written to `out`.
  size_t others(net::ConnId self, std::array<net::ConnId, kMaxPeers>& out) const;

 private:
  friend class Rooms;
  mutable std::mutex mu_;
  std::vector<RoomPeer> peers_;
  bool ended_ = false;
  bool removed_ = false;  // dropped from Rooms: a late admit must look the channel up again
  int pinned_version_ = 0;
  std::shared_ptr<Recording> recording_;
  std::vector<uint8_t> freed_;  // freed indices, the last freed at the back
  unsigned next_fresh_ = 0;
};

class Rooms {
 public:
  std::shared_ptr<Room> get_or_create(const std::string& channel);
  std::shared_ptr<Room> find(const std::string& channel) const;
  // Drops the room if it is still the channel's room and has no peers (§8 step 4, 5).
  void drop_if_empty(const std::string& channel, const std::shared_ptr<Room>& room);
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Room>> rooms_;
};

}  // namespace buzz::server::huddle
