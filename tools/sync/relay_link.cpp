// RelayLink; see relay_link.h.
#include "tools/sync/relay_link.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <simdjson.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/event_parse.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "tools/client/relay_auth.h"
#include "tools/client/url.h"

namespace buzz::sync {
namespace {

namespace neg = engine::negentropy;
using engine::Error;

constexpr size_t kPageLimit = 500;        // the relay's max_limit (NIP-11)
constexpr size_t kIdsPerFetch = 500;       // ids per REQ (a filter's results are capped at max_limit)
constexpr size_t kFetchesInFlight = 8;
constexpr size_t kPublishWindow = 256;    // EVENTs in flight before we wait for OKs
constexpr size_t kFrameBytes = 30'000;    // our NEG messages, binary (hex doubles it)

std::string array_frame(std::initializer_list<std::string_view> json_parts) {
  std::string out = "[";
  for (std::string_view p : json_parts) out.append(out.size() > 1 ? "," : "").append(p);
  return out + "]";
}

// The filter with paging fields added (the caller's must not set them).
std::string with_fields(const std::string& filter_json, const std::string& fields) {
  const size_t open = filter_json.find('{');
  std::string body = filter_json.substr(open + 1);
  const bool empty = body.find_first_not_of(" \t\r\n}") == std::string::npos;
  return "{" + fields + (empty ? "}" : "," + body);
}

// The event object of ["EVENT",sub,{…}] exactly as the relay sent it (its
// stored bytes), so what is copied is byte for byte what was signed.
std::optional<std::string_view> event_text(std::string_view msg, const std::string& sub) {
  const std::string prefix = "[\"EVENT\"," + json_string(sub) + ",";
  if (!msg.starts_with(prefix) || !msg.ends_with(']')) return std::nullopt;
  return msg.substr(prefix.size(), msg.size() - prefix.size() - 1);
}

}  // namespace

engine::Result<RelayAddress> parse_relay_url(const std::string& url) {
  if (url.starts_with("wss://")) return Error{"wss:// is not supported: run buzz sync on the relay's side of its TLS proxy"};
  if (!url.starts_with("ws://")) return Error{"relay URL must start with ws://: " + url};
  const std::optional<client::UrlParts> parts = client::split_url(url, "ws://");
  if (!parts) return Error{"bad relay URL (host, or a port from 1 to 65535): " + url};
  RelayAddress a;
  a.port = parts->port;
  a.path = parts->target;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(parts->host.c_str(), nullptr, &hints, &res) != 0 || !res) return Error{"cannot resolve " + parts->host};
  char text[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr, text, sizeof text);
  freeaddrinfo(res);
  a.host = text;
  return a;
}

engine::Result<std::unique_ptr<RelayLink>> RelayLink::open(const std::string& url, const Identity& who) {
  auto addr = parse_relay_url(url);
  if (!addr) return Error{addr.error()};
  std::string error;
  auto ws = client::WsClient::connect(addr->host, addr->port, &error, addr->path, 10000);
  if (!ws) return Error{url + ": " + error};
  std::unique_ptr<RelayLink> link(new RelayLink(std::move(ws), url));
  if (engine::Status s = link->authenticate(who); !s) return Error{url + ": " + s.error()};
  return link;
}

engine::Result<std::string> RelayLink::next(std::initializer_list<std::string_view> verbs, std::string_view sub,
                                            int timeout_ms) {
  thread_local simdjson::dom::parser parser;
  for (;;) {
    auto msg = ws_->recv(timeout_ms);
    if (!msg) return Error{ws_->closed() ? "connection closed" : "timed out waiting for the relay"};
    simdjson::dom::array arr;
    std::string_view verb;
    if (parser.parse(*msg).get(arr) || arr.size() == 0 || arr.at(0).get(verb)) continue;
    std::string_view second;
    if (!sub.empty() && (arr.size() < 2 || arr.at(1).get(second) || second != sub)) continue;
    if (std::find(verbs.begin(), verbs.end(), verb) != verbs.end()) return std::move(*msg);
  }
}

std::string RelayLink::next_sub_id() { return "sync-" + std::to_string(++subs_); }

engine::Status RelayLink::authenticate(const Identity& who) {
  thread_local simdjson::dom::parser parser;
  auto challenge_msg = next({"AUTH"}, {}, 10000);
  if (!challenge_msg) return Error{"no NIP-42 challenge: " + challenge_msg.error()};
  std::string_view challenge;
  if (parser.parse(*challenge_msg).at(1).get(challenge)) return Error{"malformed AUTH challenge"};
  ws_->send_text(array_frame({"\"AUTH\"", client::auth_event(who.key, url_, std::string(challenge), who.token).raw}));
  auto ok = next({"OK"}, {}, 10000);
  if (!ok) return Error{"no answer to AUTH: " + ok.error()};
  simdjson::dom::array arr;
  bool accepted = false;
  std::string_view reason;
  if (parser.parse(*ok).get(arr) || arr.at(2).get(accepted) || arr.at(3).get(reason)) return Error{"malformed OK"};
  if (!accepted) return Error{"AUTH refused: " + std::string(reason)};
  return {};
}

engine::Result<std::vector<neg::Item>> RelayLink::list(const std::string& filter_json) {
  thread_local simdjson::dom::parser parser;
  std::unordered_set<engine::Id, engine::KeyBytesHash> seen;
  std::vector<neg::Item> items;
  uint64_t until = engine::unix_now() + 86400 * 365;  // future-dated events too
  for (;;) {
    const std::string sub = next_sub_id();
    const std::string filter =
        with_fields(filter_json, "\"limit\":" + std::to_string(kPageLimit) + ",\"until\":" + std::to_string(until));
    ws_->send_text(array_frame({"\"REQ\"", json_string(sub), filter}));
    size_t page = 0;
    uint64_t oldest = until;
    for (;;) {
      auto msg = next({"EVENT", "EOSE", "CLOSED"}, sub);
      if (!msg) return Error{msg.error()};
      simdjson::dom::array arr;
      std::string_view verb, id_hex;
      uint64_t created_at = 0;
      if (parser.parse(*msg).get(arr) || arr.at(0).get(verb)) return Error{"malformed message"};
      if (verb == "CLOSED") {
        std::string_view reason;
        if (arr.at(2).get(reason)) reason = "(no reason)";
        return Error{"REQ refused: " + std::string(reason)};
      }
      if (verb == "EOSE") break;
      simdjson::dom::element e;
      engine::Id id;
      if (arr.at(2).get(e) || e["id"].get(id_hex) || e["created_at"].get(created_at) || !engine::from_hex(id_hex, &id)) {
        return Error{"malformed event from relay"};
      }
      ++page;
      oldest = std::min(oldest, created_at);
      if (seen.insert(id).second) items.push_back({created_at, id});
    }
    ws_->send_text(array_frame({"\"CLOSE\"", json_string(sub)}));
    if (page < kPageLimit || oldest == 0) break;
    // The next page starts at the oldest second seen, which it repeats (ids
    // already seen are skipped), unless the whole page was that one second:
    // REQ cannot page inside a second, so the rest of it is skipped, and said.
    if (oldest == until) {
      std::fprintf(stderr, "buzz sync: more than %zu events at %llu on %s; some of that second are not listed\n",
                   kPageLimit, static_cast<unsigned long long>(oldest), url_.c_str());
      --oldest;
    }
    until = oldest;
  }
  return items;
}

engine::Result<ReconcileResult> RelayLink::reconcile(const std::string& filter_json, const neg::ItemSet& ours) {
  thread_local simdjson::dom::parser parser;
  neg::Reconciler reconciler(ours, kFrameBytes);
  const std::string sub = next_sub_id();
  ReconcileResult result;
  std::string hex = neg::to_wire(reconciler.initiate());
  std::string frame = array_frame({"\"NEG-OPEN\"", json_string(sub), filter_json, json_string(hex)});
  const auto opened = std::chrono::steady_clock::now();
  for (;;) {
    result.bytes_up += hex.size();
    ws_->send_text(frame);
    auto msg = next({"NEG-MSG", "NEG-ERR"}, sub, 120000);
    if (!msg) return Error{msg.error()};
    simdjson::dom::array arr;
    std::string_view verb, payload;
    if (parser.parse(*msg).get(arr) || arr.at(0).get(verb) || arr.at(2).get(payload)) return Error{"malformed NEG reply"};
    if (verb == "NEG-ERR") return Error{"NEG-ERR: " + std::string(payload)};
    result.bytes_down += payload.size();
    if (++result.rounds == 1) {
      result.first_reply_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - opened).count();
    }
    std::string binary;
    if (!neg::from_wire(payload, binary)) return Error{"relay sent bad hex"};
    auto out = reconciler.reconcile(binary);
    if (!out) return Error{"negentropy: " + out.error()};
    result.have.insert(result.have.end(), out->have.begin(), out->have.end());
    result.need.insert(result.need.end(), out->need.begin(), out->need.end());
    if (out->next.empty()) break;
    hex = neg::to_wire(out->next);
    frame = array_frame({"\"NEG-MSG\"", json_string(sub), json_string(hex)});
  }
  ws_->send_text(array_frame({"\"NEG-CLOSE\"", json_string(sub)}));
  return result;
}

engine::Result<std::vector<engine::Event>> RelayLink::fetch(const std::vector<engine::Id>& ids) {
  thread_local simdjson::dom::parser parser;
  std::vector<engine::Event> events;
  std::unordered_set<std::string> open;  // the REQs in flight
  size_t asked = 0;
  auto ask_next = [&] {
    const size_t end = std::min(ids.size(), asked + kIdsPerFetch);
    std::vector<std::string> batch;
    for (size_t i = asked; i < end; ++i) batch.push_back(engine::to_hex(ids[i]));
    const std::string filter = json_object({{"ids", json_string_array(batch)}});
    asked = end;
    std::string sub = next_sub_id();
    ws_->send_text(array_frame({"\"REQ\"", json_string(sub), filter}));
    open.insert(std::move(sub));
  };
  // Several REQs in flight: the relay answers one while the next is on its way.
  while (asked < ids.size() && open.size() < kFetchesInFlight) ask_next();
  while (!open.empty()) {
    auto msg = ws_->recv(30000);
    if (!msg) return Error{ws_->closed() ? "connection closed" : "timed out waiting for the relay"};
    simdjson::dom::array arr;
    std::string_view verb, sub_view;
    if (parser.parse(*msg).get(arr) || arr.size() < 2 || arr.at(0).get(verb) || arr.at(1).get(sub_view)) continue;
    auto sub = open.find(std::string(sub_view));
    if (sub == open.end()) continue;
    if (verb == "CLOSED") return Error{"REQ refused"};
    if (verb == "EOSE") {
      ws_->send_text(array_frame({"\"CLOSE\"", json_string(*sub)}));
      open.erase(sub);
      if (asked < ids.size()) ask_next();
      continue;
    }
    if (verb != "EVENT") continue;
    auto text = event_text(*msg, *sub);
    auto e = text ? engine::parse_event_json(*text) : engine::Result<engine::Event>(Error{"not an event"});
    std::string reason;
    if (!e || engine::check_event(*e, &reason) != engine::EventCheck::kOk) {
      std::fprintf(stderr, "buzz sync: dropped an event from %s that does not verify\n", url_.c_str());
      continue;
    }
    events.push_back(std::move(*e));
  }
  // Oldest first, so what an event depends on (a channel's creation, a
  // membership) reaches the other relay before it; in one second, creations first.
  std::stable_sort(events.begin(), events.end(), [](const engine::Event& a, const engine::Event& b) {
    if (a.created_at != b.created_at) return a.created_at < b.created_at;
    return (a.kind == kind::kCreateGroup) > (b.kind == kind::kCreateGroup);
  });
  return events;
}

engine::Result<PublishTally> RelayLink::publish(const std::vector<engine::Event>& events) {
  thread_local simdjson::dom::parser parser;
  PublishTally tally;
  size_t sent = 0, answered = 0;
  while (answered < events.size()) {
    while (sent < events.size() && sent - answered < kPublishWindow) {
      ws_->send_text(array_frame({"\"EVENT\"", events[sent++].raw}));
    }
    auto msg = next({"OK"});
    if (!msg) return Error{msg.error()};
    simdjson::dom::array arr;
    bool accepted = false;
    std::string_view reason;
    if (parser.parse(*msg).get(arr) || arr.at(2).get(accepted) || arr.at(3).get(reason)) return Error{"malformed OK"};
    ++answered;
    if (accepted) {
      ++tally.accepted;
    } else {
      ++tally.refused;
      tally.last_refusal = reason;
    }
  }
  return tally;
}

engine::Status RelayLink::follow(const std::string& filter_json, uint64_t since,
                                 const std::function<bool(engine::Event&&)>& on_event) {
  thread_local simdjson::dom::parser parser;
  const std::string sub = next_sub_id();
  ws_->send_text(array_frame({"\"REQ\"", json_string(sub), with_fields(filter_json, "\"since\":" + std::to_string(since))}));
  for (;;) {
    auto msg = next({"EVENT", "CLOSED"}, sub, -1);
    if (!msg) return Error{msg.error()};
    simdjson::dom::array arr;
    std::string_view verb;
    if (parser.parse(*msg).get(arr) || arr.at(0).get(verb)) continue;
    if (verb == "CLOSED") return Error{"subscription closed by the relay"};
    auto text = event_text(*msg, sub);
    if (!text) continue;
    auto e = engine::parse_event_json(*text);
    std::string reason;
    if (!e || engine::check_event(*e, &reason) != engine::EventCheck::kOk) continue;
    if (!on_event(std::move(*e))) return {};
  }
}

}  // namespace buzz::sync
