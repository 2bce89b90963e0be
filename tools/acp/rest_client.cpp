// RestClient; see rest_client.h.
#include "tools/acp/rest_client.h"

#include <simdjson.h>

#include <algorithm>
#include <random>
#include <thread>

#include "engine/json_text.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/command.h"

namespace buzz::acp {
namespace {

cli::GlobalOptions options(const std::string& rest_url, const std::string& token, const std::string& key) {
  cli::GlobalOptions g;
  g.relay = rest_url;
  g.token = token;
  g.private_key = key;
  return g;
}

bool retryable(long status) { return status == 429 || status == 502 || status == 503 || status == 504; }

std::chrono::milliseconds jittered(int ms) {
  thread_local std::mt19937 rng{std::random_device{}()};
  return std::chrono::milliseconds(int(ms * std::uniform_real_distribution<double>(0.8, 1.2)(rng)));
}

std::string text_of(simdjson::dom::element e, const char* key) {
  std::string_view v;
  return e[key].get(v) ? std::string() : std::string(v);
}

ContextMessage message_of(simdjson::dom::element m) {
  ContextMessage out;
  out.pubkey = text_of(m, "pubkey");
  out.content = text_of(m, "content");
  uint64_t at = 0;
  if (!m["created_at"].get(at)) out.created_at = at;
  return out;
}

}  // namespace

RestClient::RestClient(const std::string& rest_url, const std::string& token, const std::string& private_key_hex)
    : session_(options(rest_url, token, private_key_hex), true) {}

cli::HttpAnswer RestClient::call(const std::string& method, const std::string& path, const std::string& body) {
  static constexpr int kDelaysMs[] = {500, 1000, 2000};
  for (int attempt = 0;; ++attempt) {
    try {
      cli::HttpAnswer a = session_.request_any(method, path, body);
      if (!retryable(a.status) || attempt == 3) return a;
    } catch (const cli::CliError& e) {
      if (e.category != cli::Category::kNetwork || attempt == 3) throw;
    }
    std::this_thread::sleep_for(jittered(kDelaysMs[attempt]));
  }
}

std::string RestClient::ok_body(const std::string& method, const std::string& path, const std::string& body) {
  cli::HttpAnswer a = call(method, path, body);
  if (a.status / 100 != 2) cli::throw_relay_error(a);
  return std::move(a.body);
}

std::vector<ChannelInfo> RestClient::member_channels() {
  const std::string body = ok_body("GET", "/api/channels?member=true");
  simdjson::dom::parser parser;
  simdjson::dom::array list;
  if (parser.parse(body).get(list)) throw cli::CliError(cli::Category::kRelay, "channel list is not a JSON array");
  std::vector<ChannelInfo> out;
  for (simdjson::dom::element c : list) out.push_back({text_of(c, "id"), text_of(c, "name"), text_of(c, "channel_type")});
  return out;
}

std::optional<std::string> RestClient::agent_owner(const std::string& pubkey_hex) {
  cli::HttpAnswer a = call("GET", "/api/users/" + pubkey_hex + "/profile");
  if (a.status == 404) return std::nullopt;  // no profile yet: no owner
  if (a.status / 100 != 2) cli::throw_relay_error(a);
  simdjson::dom::parser parser;
  simdjson::dom::element profile;
  if (parser.parse(a.body).get(profile)) throw cli::CliError(cli::Category::kRelay, "profile is not JSON");
  std::string owner = text_of(profile, "agent_owner_pubkey");
  if (owner.empty()) return std::nullopt;
  std::transform(owner.begin(), owner.end(), owner.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return owner;
}

void RestClient::set_presence(bool online) {
  ok_body("PUT", "/api/presence", online ? R"({"status":"online"})" : R"({"status":"offline"})");
}

// The CLI's own add-reaction and remove-reaction commands: one way to react.
void RestClient::add_reaction(const std::string& event_id, const std::string& emoji) {
  cli::Args args;
  args.add("event", event_id);
  args.add("emoji", emoji);
  cli::find_command("add-reaction")->run(session_, args);
}

void RestClient::remove_reaction(const std::string& event_id, const std::string& emoji) {
  cli::Args args;
  args.add("event", event_id);
  args.add("emoji", emoji);
  cli::find_command("remove-reaction")->run(session_, args);
}

std::optional<ContextBlock> RestClient::thread_context(const std::string& channel, const std::string& root, int limit) {
  cli::HttpAnswer a = call("GET", "/api/channels/" + channel + "/threads/" + root + "?limit=" + std::to_string(limit));
  if (a.status / 100 != 2) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element doc, root_message;
  simdjson::dom::array replies;
  if (parser.parse(a.body).get(doc) || doc["root"].get(root_message) || doc["replies"].get(replies)) return std::nullopt;
  ContextBlock block;
  block.thread = true;
  block.messages.push_back(message_of(root_message));
  for (simdjson::dom::element r : replies) {
    if (int(block.messages.size()) >= limit) break;
    block.messages.push_back(message_of(r));
  }
  uint64_t total_replies = 0;
  if (doc["total_replies"].get(total_replies)) total_replies = replies.size();
  block.total = std::max<size_t>(1 + total_replies, block.messages.size());
  block.truncated = block.total > block.messages.size();
  return block;
}

std::optional<ContextBlock> RestClient::recent_context(const std::string& channel, int limit) {
  cli::HttpAnswer a = call("GET", "/api/channels/" + channel + "/messages?limit=" + std::to_string(limit));
  if (a.status / 100 != 2) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::array messages;
  simdjson::dom::element next;
  auto doc = parser.parse(a.body);
  if (doc["messages"].get(messages)) return std::nullopt;
  ContextBlock block;
  block.thread = false;
  for (simdjson::dom::element m : messages) block.messages.insert(block.messages.begin(), message_of(m));  // oldest first
  block.total = block.messages.size();
  block.truncated = !doc["next_cursor"].get(next) && !next.is_null();
  return block;
}

std::map<std::string, std::string> RestClient::labels(const std::vector<std::string>& pubkeys) {
  constexpr auto kLabelLife = std::chrono::minutes(5);
  constexpr size_t kMaxCached = 10'000;
  const auto now = std::chrono::steady_clock::now();
  std::map<std::string, std::string> out;
  std::vector<std::string> ask;
  for (const std::string& p : pubkeys) {
    auto it = label_cache_.find(p);
    if (it == label_cache_.end() || it->second.expires < now) ask.push_back(p);
    else if (!it->second.name.empty()) out[p] = it->second.name;
  }
  if (ask.empty()) return out;
  if (ask.size() > 200) ask.resize(200);  // the relay's batch limit
  // Quoted: a p tag's value is anyone's text, not always a key.
  cli::HttpAnswer a = call("POST", "/api/users/batch", json_object({{"pubkeys", json_string_array(ask)}}));
  if (a.status / 100 != 2) return out;
  simdjson::dom::parser parser;
  simdjson::dom::object profiles;
  if (parser.parse(a.body)["profiles"].get(profiles)) return out;
  if (label_cache_.size() > kMaxCached) label_cache_.clear();
  for (const std::string& p : ask) label_cache_[p] = {"", now + kLabelLife};
  for (auto [key, profile] : profiles) {
    std::string label = sanitize_label(text_of(profile, "display_name"));
    if (label.empty()) label = sanitize_label(text_of(profile, "nip05_handle"));
    label_cache_[std::string(key)] = {label, now + kLabelLife};
    if (!label.empty()) out[std::string(key)] = label;
  }
  return out;
}

}  // namespace buzz::acp
