// The huddle socket's JSON text messages (docs/reference/huddle.md §3, §6): the challenge,
// the client's auth message, and the relay's joined / left / error messages,
// keys in the alphabetical order upstream writes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/event.h"

namespace buzz::server::huddle {

inline constexpr size_t kMaxTextBytes = 8192;  // a bigger text frame is dropped (§3.1, §6)
inline constexpr int kCurrentVersion = 2;

// {"challenge":"<64 hex>","type":"challenge"}
std::string challenge_message(std::string_view challenge_hex);

// What a text frame is before admission (§3.1).
struct AuthMessage {
  enum class Kind : uint8_t {
    kIgnored,  // too big, not JSON, or not {"type":"auth"}: the relay waits on
    kBad,      // an auth message whose event (or another field) cannot be read: "auth failed"
    kAuth,
  };
  Kind kind = Kind::kIgnored;
  engine::Event event;
  std::optional<std::string> parent_channel_id;
  int64_t protocol_version = 1;  // 1 when absent
};
AuthMessage parse_auth_message(std::string_view text);

// What a text frame after admission asks (§6, §11): {"type":"leave"},
// {"type":"recording","action":"start"|"stop"}, {"type":"track","action":"publish"|"unpublish"};
// anything else is ignored.
enum class Control : uint8_t { kIgnored, kLeave, kRecordStart, kRecordStop, kTrackPublish, kTrackUnpublish };
Control parse_control_message(std::string_view text);

struct PeerEntry {
  uint8_t index = 0;
  std::string pubkey_hex;
};
std::string joined_message(const PeerEntry& newcomer, const std::vector<PeerEntry>& peers);
std::string left_message(const PeerEntry& leaver);
// The room's recording state (§11.1): to everyone when it starts or stops, and
// to a newcomer after its `joined` while one runs.
std::string recording_message(bool on, std::string_view recording_id, std::string_view started_by_hex);
// A participant's own track published live, or no longer (§11.3).
std::string track_message(std::string_view pubkey_hex, bool published);
// A refused recording or track control (§11.1): the socket stays.
std::string control_error_message(std::string_view code, std::string_view message);

// The admission errors of §3.3.
std::string error_message(std::string_view message);  // auth failed, not a member, …
std::string unsupported_version_message(int64_t requested);
std::string room_full_message();
std::string room_ended_message();
std::string upgrade_required_message(int pinned, int64_t requested);

}  // namespace buzz::server::huddle
