// Huddles: live audio in the relay (docs/reference/huddle.md). The front door
// (server/door/) hands this room the WebSocket upgrades at
// /huddle/{channel_id}/audio and everything that then arrives on them; it
// runs the challenge and auth handshake, the admission sequence, forwards
// each peer's Opus frames to the others without decoding them, and emits the
// relay-signed lifecycle events (48101 joined, 48102 left, 48103 ended); a
// room's recordings and its participants' published tracks go through the
// Recorder (recorder.h), which keeps every disk write off the loops.
//
// Threads: every socket callback runs on the loop that owns the connection.
// A room's peers may sit on any loops: a frame or a control message for a
// peer on another loop crosses in one posted task per loop, as the relay's
// live fan-out does (Loop::post). Rooms are shared under their own mutexes
// (room.h). The store writer's answers (an auto-add, an archive) come back on
// the writer thread and are posted to a loop before anything is touched.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/event_store.h"
#include "engine/media_store.h"
#include "engine/signature.h"
#include "engine/team_state.h"
#include "net/loop.h"
#include "server/access/gatekeeper.h"
#include "server/common/socket_context.h"
#include "server/huddle/messages.h"
#include "server/huddle/recorder.h"
#include "server/huddle/room.h"
#include "server/pipeline/store_writer.h"

namespace buzz::server::huddle {

inline constexpr size_t kAudioQueueFrames = 8;  // per peer, ≈160 ms of 20 ms frames; a full one drops (§7)
inline constexpr int64_t kAuthTimeoutMs = 5000;  // §3.1

// Counted on the loops, read by anyone (the load tool's figures, tests).
struct HuddleStats {
  std::atomic<uint64_t> frames_in{0};         // binary frames from admitted peers
  std::atomic<uint64_t> frames_forwarded{0};  // frame copies queued to other peers
  std::atomic<uint64_t> frames_invalid{0};    // dropped by check_frame
  std::atomic<uint64_t> frames_lost_slow{0};  // dropped because a recipient's audio queue was full
  std::atomic<uint64_t> admitted{0};
};

class Huddle final {
 public:
  struct Services {
    engine::EventStore& store;
    const engine::TeamState& team;
    Gatekeeper& gatekeeper;
    StoreWriter& writer;
    engine::MediaStore& media;  // where finished recordings go
  };
  // `relay_url`: the RELAY_URL an auth event's relay tag must name (§3.1).
  // `key`: signs the lifecycle and recording events.
  Huddle(const Services& services, std::string_view relay_url, const engine::Keypair& key,
         Recorder::Settings recording);
  ~Huddle();

  // Before the loops run.
  void attach(std::vector<net::Loop*> loops);
  // The recorder's thread: after the store writer started (it first publishes
  // what a stopped process left); stopped after the loops, before the writer.
  void start();
  void stop();
  const HuddleStats& stats() const { return stats_; }
  const RecorderStats& recorder_stats() const { return recorder_.stats(); }

  // The path prefix of the upgrades a Huddle takes.
  static constexpr std::string_view kPathPrefix = "/huddle/";

  // An upgrade whose path starts with kPathPrefix: false with `refusal` filled to refuse it.
  bool on_upgrade(net::Loop& loop, const net::HttpRequest& request, net::HttpResponse* refusal);
  // Sets a context whose owner is kHuddle on `conn` (the front door routes by it).
  void on_open(net::Loop& loop, net::Connection& conn, const net::HttpRequest& upgrade);
  void on_message(net::Loop& loop, net::Connection& conn, std::string_view text);
  void on_binary(net::Loop& loop, net::Connection& conn, std::string_view bytes);
  void on_close(net::Loop& loop, net::Connection& conn);
  void on_tick(net::Loop& loop);
  // On every loop, in the relay's task for a write batch that took rights away:
  // channel memberships that ended (`channels`) and relay members removed on a
  // closed relay (`members`). Peers here who may no longer be in their room are
  // dropped from it (docs/access.md).
  void on_rights_lost(net::Loop& loop, const std::vector<Revocation>& channels,
                      const std::vector<engine::Pubkey>& members);

 private:
  struct Peer;
  struct LoopState {
    // Sockets still owing their auth message, with their deadlines (steady ms).
    std::vector<std::pair<net::ConnId, int64_t>> awaiting_auth;
    // Admitted peers on this loop, for on_rights_lost.
    std::vector<net::ConnId> in_call;
  };

  // handshake.cpp: §3.1, §3.2, §5
  void handle_auth(net::Loop& loop, net::Connection& conn, Peer& peer, AuthMessage&& m);
  // §5: whether the caller may enter the channel now, or once it is added (auto_add).
  enum class Entry : uint8_t { kMember, kAutoAdd, kRefused };
  Entry channel_entry(const Peer& peer, const std::optional<std::string>& parent, bool* linked) const;
  // Whether `parent` holds a 48100 announcing this huddle channel (the [Buzz-C++] decision of §5).
  bool announces(const std::string& parent, const std::string& channel) const;
  void auto_add(net::Loop& loop, net::Connection& conn, Peer& peer);
  // §3.2 steps 3–9.
  void admit(net::Loop& loop, net::Connection& conn, Peer& peer);
  void refuse(net::Loop& loop, net::Connection& conn, Peer& peer, const std::string& error);

  // lifecycle.cpp: §8
  void depart(net::Loop& loop, Peer& peer);
  // Why an admitted peer may no longer be in its room after these losses, or nullopt.
  std::optional<std::string> lost_right(const Peer& peer, const std::vector<Revocation>& channels,
                                        const std::vector<engine::Pubkey>& members) const;
  void end_room(net::Loop& loop, const std::string& channel, const std::shared_ptr<Room>& room,
                const std::string& parent, const engine::Pubkey& last);
  // A relay-signed 48101 / 48102 / 48103 in channel `parent` (§8.1).
  void emit(uint16_t kind, const std::string& parent, const std::string& huddle_channel, const engine::Pubkey& who);

  // recording.cpp: §11, recordings and published tracks.
  void on_control(net::Loop& loop, net::Connection& conn, Peer& peer, Control c);
  void start_recording(net::Loop& loop, net::Connection& conn, Peer& peer);
  void stop_recording(net::Loop& loop, net::Connection& conn, Peer& peer);
  void publish_track(net::Loop& loop, net::Connection& conn, Peer& peer);
  void unpublish_track(net::Loop& loop, Peer& peer);
  // Whether the peer may start or stop the room's recording: the huddle
  // channel's owners and admins, asked at the moment of the act.
  bool may_record(const Peer& peer) const;
  // `peers` told, each on its own loop, that `rec` started (on) or stopped.
  void tell_recording(net::Loop& here, const std::vector<RoomPeer>& peers, const std::shared_ptr<Room>& room,
                      const std::shared_ptr<Recording>& rec, bool on);
  // `peers` told that `pubkey`'s track is published or no longer; `track` is cleared on its peer when off.
  void tell_track(net::Loop& here, const std::shared_ptr<Room>& room, const std::vector<RoomPeer>& peers,
                  const engine::Pubkey& pubkey, const std::shared_ptr<Recording>& track, bool on);
  // The recordings of a departing peer: its track ends, and the room's recording with the last peer.
  void end_recordings(net::Loop& loop, Peer& peer, const std::shared_ptr<Room>& room,
                      const std::vector<RoomPeer>& remaining);
  // On the recorder's thread: a recording or track that stopped at a limit.
  void on_self_stopped(const std::shared_ptr<Recording>& rec);
  // A frame the peer's recording or track keeps (on_binary).
  void keep(const Peer& peer, std::string_view frame);
  // `fn` for each of `to` still in `room`, on the peer's own loop.
  void on_each(net::Loop& here, const std::vector<RoomPeer>& to, const std::shared_ptr<Room>& room,
               std::function<void(net::Loop&, net::Connection&, Peer&)> fn);

  // forward.cpp: one frame or message to many peers, each on its own loop.
  void forward_audio(net::Loop& loop, Peer& peer, std::string_view frame);
  enum class Send : uint8_t { kControl, kAudio };
  void send_to(net::Loop& here, std::span<net::ConnId> to, std::shared_ptr<const std::string> payload, Send how);
  void send_here(net::Loop& loop, net::ConnId to, const std::shared_ptr<const std::string>& payload, Send how);

  const Services s_;
  const std::string relay_url_normalized_;
  const engine::Keypair key_;
  std::vector<net::Loop*> loops_;
  std::vector<std::unique_ptr<LoopState>> states_;
  Rooms rooms_;
  HuddleStats stats_;
  Recorder recorder_;
};

}  // namespace buzz::server::huddle
