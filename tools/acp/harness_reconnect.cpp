// The harness's relay connection (harness_loop.h): the first connect and
// every reconnect (one backoff sequence, 1, 2, 4 … 32 s, ±20 %, the attempt on
// a thread of its own), the subscriptions renewed on each (membership, then
// every channel from just before what it last saw), and the frames read and
// routed to membership or the author gate.
#include "tools/acp/harness_loop.h"

#include <simdjson.h>

#include <algorithm>

#include "engine/clock.h"
#include "engine/event_parse.h"
#include "engine/json_text.h"
#include "tools/acp/relay_socket.h"

namespace buzz::acp::harness {

void Loop::send(const std::string& text) {
  if (ws_ && !ws_->send_text(text)) schedule_reconnect("send failed");
}

std::string Loop::filter_for(const std::string& channel_id, uint64_t since) const {
  const ChannelFilter merged = *channel_filter(rules_, channel_id);
  JsonFields f;
  if (!merged.kinds.empty()) {
    std::vector<std::string> kinds;
    for (auto k : merged.kinds) kinds.push_back(std::to_string(k));
    f.json("kinds", json_array(kinds));
  }
  f.json("#h", json_string_array(std::vector{channel_id}));
  if (merged.require_mention) f.json("#p", json_string_array(std::vector{self_hex_}));
  return f.number("since", since).str();
}

uint64_t Loop::since_for(const ChannelState& ch) const {
  std::optional<uint64_t> earliest;
  if (ch.last_seen) earliest = ch.last_seen;
  if (auto dropped = queues_.first_dropped(ch.info.id)) earliest = std::min(earliest.value_or(*dropped), *dropped);
  if (earliest) return *earliest > 5 ? *earliest - 5 : 0;
  return ch.first_subscribed ? ch.first_subscribed : watermark_;
}

void Loop::subscribe(ChannelState& ch) {
  if (!channel_filter(rules_, ch.info.id)) return;  // no rule covers it
  if (!ch.first_subscribed) ch.first_subscribed = engine::unix_now();
  ch.subscribed = true;
  send(json_array({json_string("REQ"), json_string("ch-" + ch.info.id), filter_for(ch.info.id, since_for(ch))}));
}

void Loop::connect_now() {
  if (connecting_) return;
  connecting_ = true;
  if (connector_.joinable()) connector_.join();
  connector_ = std::thread([this] {
    std::string error;
    auto ws = connect_relay(cfg_.relay_url, cfg_.key, token_, &error);
    std::shared_ptr<client::WsClient> shared(std::move(ws));
    post([this, shared, error]() mutable {
      connecting_ = false;
      if (!shared) {
        schedule_reconnect(error);
        return;
      }
      ws_ = std::move(shared);
      on_connected();
    });
  });
}

void Loop::schedule_reconnect(const std::string& why) {
  ws_.reset();
  if (shutdown_ || connecting_ || reconnect_at_ != Clock::time_point{}) return;
  static constexpr int kDelays[] = {1, 2, 4, 8, 16, 32};
  const int step = std::min(reconnect_attempt_, 5);
  ++reconnect_attempt_;
  const auto delay = jittered(seconds(kDelays[step]));
  log("relay connection lost (" + why + "); reconnecting in " +
      std::to_string(std::chrono::duration_cast<milliseconds>(delay).count()) + " ms");
  reconnect_at_ = Clock::now() + delay;
}

void Loop::on_connected() {
  log(std::string(reconnect_attempt_ ? "reconnected to " : "connected to ") + cfg_.relay_url);
  reconnect_attempt_ = 0;
  partial_.clear();
  next_ping_ = Clock::now() + kPingInterval;
  pong_deadline_ = {};
  if (!membership_since_) membership_since_ = watermark_;
  send(R"(["REQ","membership-notif",{"kinds":[44100,44101],"#p":[")" + self_hex_ + R"("],"since":)" +
       std::to_string(membership_since_ > 5 ? membership_since_ - 5 : 0) + "}]");
  for (auto& [id, ch] : channels_) {
    if (ch.subscribed && !ch.removed) subscribe(ch);
  }
}

// Frame by frame rather than WsClient::recv, to see the pongs that answer
// our keep-alive pings; pings from the relay are answered here. At most
// BUZZ_ACP_EVENT_BUFFER messages a call: a flood from the relay waits in the
// socket (TCP slows the relay) while the agents' reports and timers get their
// turn, the part the original's bounded event channel played.
void Loop::read_frames() {
  int messages = 0;
  for (frames_pending_ = false; ws_; ) {
    if (messages == cfg_.event_buffer) {
      frames_pending_ = true;  // maybe already in the client's buffer, where poll cannot see them
      return;
    }
    auto f = ws_->recv_frame(0);
    if (!f) {
      if (ws_->closed()) schedule_reconnect("closed by the relay");
      return;
    }
    switch (f->opcode) {
      case net::ws::Opcode::kPing: ws_->send_frame(net::ws::Opcode::kPong, f->payload); break;
      case net::ws::Opcode::kPong: pong_deadline_ = {}; break;
      case net::ws::Opcode::kText:
      case net::ws::Opcode::kBinary:
      case net::ws::Opcode::kContinuation:
        partial_ += f->payload;
        if (f->fin) {
          std::string message = std::move(partial_);
          partial_.clear();
          ++messages;
          on_message(message);
        }
        break;
      default: break;
    }
  }
}

void Loop::on_message(const std::string& text) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::array arr;
  std::string_view verb;
  if (parser.parse(text).get(arr) || arr.size() == 0 || arr.at(0).get(verb)) return;
  if (verb == "EVENT" && arr.size() >= 3) {
    std::string_view sub;
    simdjson::dom::element obj;
    if (arr.at(1).get(sub) || arr.at(2).get(obj)) return;
    auto e = engine::parse_event(obj, simdjson::minify(obj));
    if (!e) return;
    if (!seen_.insert(e->id_hex())) return;  // a replay after a reconnect
    if (sub == kMembershipSub) return on_membership(*e);
    if (sub.starts_with("ch-")) return on_channel_event(std::string(sub.substr(3)), std::move(*e));
    return;
  }
  if (verb == "CLOSED" || verb == "NOTICE") log("relay: " + text);
}

}  // namespace buzz::acp::harness
