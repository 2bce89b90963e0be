// The huddle socket's life: upgrade, challenge, messages, close and the auth
// deadline; see huddle.h. The handshake is in handshake.cpp, leaving in
// lifecycle.cpp, the audio path in forward.cpp.
#include "server/huddle/huddle.h"

#include <algorithm>
#include <cctype>

#include "engine/channel.h"
#include "engine/clock.h"
#include "server/common/relay_url.h"
#include "server/huddle/audio_frame.h"
#include "server/huddle/peer.h"

namespace buzz::server::huddle {
namespace {

constexpr std::string_view kPathSuffix = "/audio";

// The channel of /huddle/{channel_id}/audio, lowercased; "" when the path is not one.
std::string channel_of(std::string_view path) {
  if (!path.starts_with(Huddle::kPathPrefix) || !path.ends_with(kPathSuffix)) return {};
  path.remove_prefix(Huddle::kPathPrefix.size());
  path.remove_suffix(kPathSuffix.size());
  std::string id(path);
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return engine::is_canonical_uuid(id) ? id : std::string();
}

}  // namespace

Huddle::Huddle(const Services& services, std::string_view relay_url, const engine::Keypair& key,
               Recorder::Settings recording)
    : s_(services),
      relay_url_normalized_(normalize_relay_url(relay_url)),
      key_(key),
      recorder_({services.writer, services.media, key_}, std::move(recording)) {}

Huddle::~Huddle() = default;

void Huddle::start() {
  recorder_.start([this](const std::shared_ptr<Recording>& rec) { on_self_stopped(rec); });
}

void Huddle::stop() { recorder_.stop(); }

void Huddle::attach(std::vector<net::Loop*> loops) {
  loops_ = std::move(loops);
  states_.clear();
  for (size_t i = 0; i < loops_.size(); ++i) states_.push_back(std::make_unique<LoopState>());
}

bool Huddle::on_upgrade(net::Loop&, const net::HttpRequest& request, net::HttpResponse* refusal) {
  if (!channel_of(request.path).empty()) return true;
  *refusal = net::HttpResponse::json(400, R"({"error":"the huddle audio endpoint is /huddle/{channel_id}/audio with a UUID channel_id"})");
  return false;
}

void Huddle::on_open(net::Loop& loop, net::Connection& conn, const net::HttpRequest& upgrade) {
  auto peer = std::make_unique<Peer>();
  peer->conn = conn.id();
  peer->channel = channel_of(upgrade.path);
  engine::random_bytes(peer->challenge.data(), peer->challenge.size());
  const std::string challenge = challenge_message(engine::to_hex(peer->challenge));
  conn.set_context(std::move(peer));
  states_[loop.index()]->awaiting_auth.emplace_back(conn.id(), steady_ms() + kAuthTimeoutMs);
  loop.send_text(conn, challenge);
}

void Huddle::on_message(net::Loop& loop, net::Connection& conn, std::string_view text) {
  auto& peer = *static_cast<Peer*>(conn.context());
  switch (peer.stage) {
    case Peer::Stage::kChallenged: {
      AuthMessage m = parse_auth_message(text);
      if (m.kind != AuthMessage::Kind::kIgnored) handle_auth(loop, conn, peer, std::move(m));
      return;
    }
    case Peer::Stage::kIn: return on_control(loop, conn, peer, parse_control_message(text));
    case Peer::Stage::kAdmitting:
    case Peer::Stage::kOut: return;
  }
}

void Huddle::on_binary(net::Loop& loop, net::Connection& conn, std::string_view bytes) {
  auto& peer = *static_cast<Peer*>(conn.context());
  if (peer.stage != Peer::Stage::kIn) return;  // before admission binary frames are ignored (§3.1)
  stats_.frames_in.fetch_add(1, std::memory_order_relaxed);
  if (check_frame(bytes, int(peer.version)) != FrameCheck::kForward) {
    stats_.frames_invalid.fetch_add(1, std::memory_order_relaxed);
    return;  // dropped; the connection stays up (§4.1)
  }
  forward_audio(loop, peer, bytes);
  if (peer.recording || peer.track) keep(peer, bytes);
}

void Huddle::on_close(net::Loop& loop, net::Connection& conn) {
  auto* peer = static_cast<Peer*>(conn.context());
  if (peer && peer->stage == Peer::Stage::kIn) depart(loop, *peer);
  if (peer) peer->stage = Peer::Stage::kOut;
}

void Huddle::on_tick(net::Loop& loop) {
  // Sockets that sent no valid auth within 5 s are closed without a message (§3.1).
  auto& waiting = states_[loop.index()]->awaiting_auth;
  const int64_t now = steady_ms();
  std::erase_if(waiting, [&](const std::pair<net::ConnId, int64_t>& w) {
    net::Connection* conn = loop.find(w.first);
    auto* peer = conn ? static_cast<Peer*>(conn->context()) : nullptr;
    if (!peer || peer->stage != Peer::Stage::kChallenged) return true;
    if (now < w.second) return false;
    peer->stage = Peer::Stage::kOut;
    loop.close(*conn);
    return true;
  });
}

}  // namespace buzz::server::huddle
