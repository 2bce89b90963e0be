// `buzz-load huddle`; see huddle_load.h.
#include "tools/load/huddle_load.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/hex.h"
#include "engine/kind_numbers.h"
#include "engine/signature.h"
#include "tools/audio/opus_audio.h"
#include "tools/client/relay_auth.h"
#include "tools/load/load_client.h"
#include "tools/load/ready_set.h"
#include "tools/load/send_floor.h"

namespace buzz::load {
namespace {

constexpr int kHuddleSenders = 2;  // sending threads; two more read

// The JSON field `key` of an object text ("" when absent): its last
// occurrence, which in the relay's sorted keys is the top-level one ("pubkey"
// comes after "peers", whose entries have one each).
std::string field(const std::string& json, const std::string& key) {
  const std::string probe = "\"" + key + "\":";
  size_t p = json.rfind(probe);
  if (p == std::string::npos) return {};
  p += probe.size();
  if (json[p] == '"') return json.substr(p + 1, json.find('"', p + 1) - p - 1);
  return json.substr(p, json.find_first_of(",}", p) - p);
}

// A socket in the room, authenticated, its own `joined` read.
std::unique_ptr<client::WsClient> join(const ServerProcess& server, const std::string& channel,
                                       const engine::Keypair& key) {
  std::string error;
  auto c = client::WsClient::connect("127.0.0.1", server.port(), &error, "/huddle/" + channel + "/audio");
  if (!c) throw std::runtime_error("huddle connect: " + error);
  auto challenge = c->recv(5000);
  if (!challenge) throw std::runtime_error("huddle: no challenge");
  const engine::Event auth = client::auth_event(key, server.url(), field(*challenge, "challenge"));
  c->send_text(R"({"type":"auth","protocol_version":2,"event":)" + auth.raw + "}");
  const std::string me = engine::to_hex(key.pubkey);
  for (;;) {
    auto m = c->recv(5000);
    if (!m) throw std::runtime_error("huddle: no answer to auth");
    if (field(*m, "type") == "error") throw std::runtime_error("huddle: refused: " + *m);
    if (field(*m, "type") == "joined" && field(*m, "pubkey") == me) return c;
  }
}

}  // namespace

std::map<std::string, double> run_huddle_load(const ServerProcess& server, const HuddleLoad& load) {
  // Open channels: every speaker may enter without a membership row.
  engine::Keypair owner = engine::generate_keypair();
  auto admin = connect_authed(server, owner);
  std::vector<std::string> channels, setup;
  for (int r = 0; r < load.rooms; ++r) {
    channels.push_back(channel_uuid(r));
    setup.push_back(
        "[\"EVENT\"," +
        note(owner, "", {{"h", channels.back()}, {"name", "huddle " + std::to_string(r)}}, kind::kCreateGroup).raw +
        "]");
  }
  send_all(*admin, setup);
  // Socket r * speakers + s is speaker s of room r; joined in order, its index is s.
  std::vector<std::unique_ptr<client::WsClient>> socks;
  for (int r = 0; r < load.rooms; ++r) {
    for (int s = 0; s < load.speakers; ++s) socks.push_back(join(server, channels[size_t(r)], engine::generate_keypair()));
  }
  for (auto& c : socks) {
    while (c->recv(50)) {}  // the other peers' joined messages
  }
  // The readers take frames raw (recv_frame) and never answer a Ping: the
  // senders own the sockets' writing side, and a run is shorter than two ping intervals.
  // One second of a tone, encoded once and cycled; the frame index rides in ts_48k.
  std::vector<std::string> packets;
  audio::SineEncoder tone(440);
  for (int i = 0; i < load.rate; ++i) packets.push_back(tone.next_packet());
  const size_t frames_each = size_t(load.rate * load.seconds);
  std::vector<std::atomic<double>> sent_at(socks.size() * frames_each);

  std::atomic<size_t> received{0};
  const size_t expected = socks.size() * frames_each * size_t(load.speakers - 1);
  auto before = read_usage(server.pid());
  const double start = now_s() + 0.1;
  std::vector<std::thread> senders;
  for (int t = 0; t < kHuddleSenders; ++t) {
    senders.emplace_back([&, t] {
      std::vector<size_t> mine;
      for (size_t i = size_t(t); i < socks.size(); i += kHuddleSenders) mine.push_back(i);
      const double period = 1.0 / load.rate;
      std::string frame;
      for (size_t f = 0; f < frames_each; ++f) {
        for (size_t i : mine) {
          // Speakers spread over the 20 ms so the frames do not all land at once.
          sleep_until_s(start + double(f) * period + period * double(i) / double(socks.size()));
          const std::string& opus = packets[f % packets.size()];
          const uint32_t ts = uint32_t(f);
          frame = {char(f >> 8), char(f), char(ts >> 24), char(ts >> 16), char(ts >> 8), char(ts), char(-20), 0};
          frame += opus;
          sent_at[i * frames_each + f].store(now_s(), std::memory_order_relaxed);
          socks[i]->send_frame(net::ws::Opcode::kBinary, frame);
        }
      }
    });
  }
  constexpr size_t kReaders = 2;
  std::vector<std::vector<double>> parts(kReaders);
  const double deadline = start + load.seconds + 10;
  std::vector<std::thread> readers;
  for (size_t rd = 0; rd < kReaders; ++rd) {
    readers.emplace_back([&, rd] {
      std::vector<size_t> mine;
      for (size_t i = rd; i < socks.size(); i += kReaders) mine.push_back(i);
      ReadySet ready(socks, mine);
      while (received.load() < expected && now_s() < deadline) {
        ready.wait(200, [&](size_t i) {
          const double t = now_s();
          const size_t room = i / size_t(load.speakers);
          // The relay never fragments: a binary frame is one forwarded audio frame.
          while (auto fr = socks[i]->recv_frame(0)) {
            const std::string* m = &fr->payload;
            if (fr->opcode != net::ws::Opcode::kBinary || m->size() < 9) continue;
            const size_t from = room * size_t(load.speakers) + uint8_t((*m)[0]);
            const uint32_t f = uint32_t(uint8_t((*m)[3])) << 24 | uint32_t(uint8_t((*m)[4])) << 16 |
                               uint32_t(uint8_t((*m)[5])) << 8 | uint8_t((*m)[6]);
            if (from >= socks.size() || f >= frames_each) continue;
            parts[rd].push_back(t - sent_at[from * frames_each + f].load(std::memory_order_relaxed));
            received.fetch_add(1, std::memory_order_relaxed);
          }
        });
      }
    });
  }
  for (auto& t : senders) t.join();
  for (auto& t : readers) t.join();
  auto after = read_usage(server.pid());
  std::vector<double> latencies;
  for (auto& p : parts) latencies.insert(latencies.end(), p.begin(), p.end());
  std::sort(latencies.begin(), latencies.end());
  const size_t got = latencies.size();
  const double cpu_us = (after.cpu_seconds - before.cpu_seconds) * 1e6;
  const double per_frame = cpu_us / double(std::max<size_t>(1, got));
  // One loopback send of a forwarded frame's size, over as many sockets as peers.
  const size_t frame_bytes = 2 + 1 + 8 + packets[0].size();
  const double floor = loopback_send_floor_us(int(socks.size()), frame_bytes);
  return {{"rooms", double(load.rooms)},
          {"speakers_per_room", double(load.speakers)},
          {"frames_sent", double(socks.size() * frames_each)},
          {"forwards_expected", double(expected)},
          {"forwards_received", double(got)},
          {"lost", double(expected - got)},
          {"p50_ms", percentile_ms(latencies, 0.5)},
          {"p99_ms", percentile_ms(latencies, 0.99)},
          {"max_ms", latencies.empty() ? 0 : latencies.back() * 1000},
          {"opus_bytes", double(packets[0].size())},
          {"server_cpu_us_per_forward", per_frame},
          {"send_floor_us", floor},
          {"ratio_to_send_floor", per_frame / floor}};
}

}  // namespace buzz::load
