// The huddle socket's JSON messages; see messages.h.
#include "server/huddle/messages.h"

#include <simdjson.h>

#include "engine/event_parse.h"
#include "engine/json_text.h"

namespace buzz::server::huddle {

std::string challenge_message(std::string_view challenge_hex) {
  return json_object({{"challenge", json_string(challenge_hex)}, {"type", json_string("challenge")}});
}

AuthMessage parse_auth_message(std::string_view text) {
  AuthMessage m;
  if (text.size() > kMaxTextBytes) return m;
  thread_local simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(text.data(), text.size()).get_object().get(obj)) return m;
  std::string_view type;
  if (obj["type"].get_string().get(type) || type != "auth") return m;
  m.kind = AuthMessage::Kind::kBad;
  simdjson::dom::element event;
  if (obj["event"].get(event) || !event.is_object()) return m;
  auto parsed = engine::parse_event(event, simdjson::minify(event));
  if (!parsed) return m;
  m.event = std::move(*parsed);
  simdjson::dom::element parent;
  if (!obj["parent_channel_id"].get(parent) && !parent.is_null()) {
    std::string_view id;
    if (parent.get_string().get(id)) return m;
    m.parent_channel_id = std::string(id);
  }
  simdjson::dom::element version;
  if (!obj["protocol_version"].get(version) && !version.is_null()) {
    int64_t v = 0;
    if (version.get_int64().get(v)) return m;
    m.protocol_version = v;
  }
  m.kind = AuthMessage::Kind::kAuth;
  return m;
}

Control parse_control_message(std::string_view text) {
  if (text.size() > kMaxTextBytes) return Control::kIgnored;
  thread_local simdjson::dom::parser parser;
  simdjson::dom::object obj;
  std::string_view type, action;
  if (parser.parse(text.data(), text.size()).get_object().get(obj) || obj["type"].get_string().get(type)) {
    return Control::kIgnored;
  }
  if (type == "leave") return Control::kLeave;
  if (obj["action"].get_string().get(action)) return Control::kIgnored;
  if (type == "recording") {
    if (action == "start") return Control::kRecordStart;
    if (action == "stop") return Control::kRecordStop;
  } else if (type == "track") {
    if (action == "publish") return Control::kTrackPublish;
    if (action == "unpublish") return Control::kTrackUnpublish;
  }
  return Control::kIgnored;
}

namespace {

std::string peer_fields(const PeerEntry& p) {
  return json_object({{"peer_index", std::to_string(p.index)}, {"pubkey", json_string(p.pubkey_hex)}});
}

}  // namespace

std::string joined_message(const PeerEntry& newcomer, const std::vector<PeerEntry>& peers) {
  std::vector<std::string> roster;
  for (const PeerEntry& p : peers) roster.push_back(peer_fields(p));
  return json_object({{"peer_index", std::to_string(newcomer.index)},
                      {"peers", json_array(roster)},
                      {"pubkey", json_string(newcomer.pubkey_hex)},
                      {"type", json_string("joined")}});
}

std::string left_message(const PeerEntry& leaver) {
  return json_object({{"peer_index", std::to_string(leaver.index)},
                      {"pubkey", json_string(leaver.pubkey_hex)},
                      {"type", json_string("left")}});
}

std::string recording_message(bool on, std::string_view recording_id, std::string_view started_by_hex) {
  return json_object({{"recording", on ? "true" : "false"},
                      {"recording_id", json_string(recording_id)},
                      {"started_by", json_string(started_by_hex)},
                      {"type", json_string("recording")}});
}

std::string track_message(std::string_view pubkey_hex, bool published) {
  return json_object({{"pubkey", json_string(pubkey_hex)},
                      {"published", published ? "true" : "false"},
                      {"type", json_string("track")}});
}

std::string control_error_message(std::string_view code, std::string_view message) {
  return json_object({{"code", json_string(code)}, {"message", json_string(message)}, {"type", json_string("error")}});
}

std::string error_message(std::string_view message) {
  return json_object({{"message", json_string(message)}, {"type", json_string("error")}});
}

std::string unsupported_version_message(int64_t requested) {
  return json_object({{"code", json_string("unsupported_version")},
                      {"current_version", std::to_string(kCurrentVersion)},
                      {"message", json_string("huddle audio protocol v" + std::to_string(requested) +
                                              " not supported; relay max is v" + std::to_string(kCurrentVersion))},
                      {"type", json_string("error")}});
}

std::string room_full_message() {
  return json_object({{"code", json_string("room_full")},
                      {"message", json_string("peer index space exhausted")},
                      {"type", json_string("error")}});
}

std::string room_ended_message() {
  return json_object({{"code", json_string("room_ended")},
                      {"message", json_string("huddle has ended")},
                      {"type", json_string("error")}});
}

std::string upgrade_required_message(int pinned, int64_t requested) {
  return json_object({{"code", json_string("upgrade_required")},
                      {"message", json_string("this huddle is using audio protocol v" + std::to_string(pinned) +
                                              "; your client requested v" + std::to_string(requested))},
                      {"pinned_version", std::to_string(pinned)},
                      {"requested_version", std::to_string(requested)},
                      {"type", json_string("error")}});
}

}  // namespace buzz::server::huddle
