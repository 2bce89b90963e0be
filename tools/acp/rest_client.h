// RestClient: the harness's HTTP calls to the relay (docs/reference/agents-and-cli.md
// §A.4.3) through the agent CLI's Session, so auth, signing and the relay's
// error texts are the CLI's. One per thread (a Session holds one libcurl
// handle). Calls are retried on 429/502/503/504 and on network errors, up to
// 3 times, 0.5 s, 1 s and 2 s apart (±20 %); every call is idempotent.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/acp/prompt_text.h"
#include "tools/cli/session.h"

namespace buzz::acp {

class RestClient {
 public:
  // `token` authenticates; `private_key_hex` signs the events we post.
  RestClient(const std::string& rest_url, const std::string& token, const std::string& private_key_hex);

  // GET /api/channels?member=true: id, name, channel_type of each.
  std::vector<ChannelInfo> member_channels();
  // GET /api/users/{hex}/profile → agent_owner_pubkey (lowercase); nullopt
  // when there is none; throws cli::CliError when the lookup failed.
  std::optional<std::string> agent_owner(const std::string& pubkey_hex);
  void set_presence(bool online);
  // Kind 7 on `event_id`, and its removal (kind 5 of our own reaction).
  void add_reaction(const std::string& event_id, const std::string& emoji);
  void remove_reaction(const std::string& event_id, const std::string& emoji);
  // Up to `limit` messages of the thread of `root` (root first) or of the
  // channel's recent history (oldest first).
  std::optional<ContextBlock> thread_context(const std::string& channel, const std::string& root, int limit);
  std::optional<ContextBlock> recent_context(const std::string& channel, int limit);
  // POST /api/users/batch: display name (else NIP-05) of each pubkey, sanitised.
  // Names are kept 5 minutes, so a busy agent does not spend its API calls
  // per minute (docs/reference/rest-api.md rate limits) on the same few people.
  std::map<std::string, std::string> labels(const std::vector<std::string>& pubkeys);

 private:
  // One call with the retries; the last answer comes back (any status).
  cli::HttpAnswer call(const std::string& method, const std::string& path, const std::string& body = "");
  std::string ok_body(const std::string& method, const std::string& path, const std::string& body = "");

  cli::Session session_;
  struct Label {
    std::string name;  // empty: the user has none
    std::chrono::steady_clock::time_point expires;
  };
  std::map<std::string, Label> label_cache_;
};

}  // namespace buzz::acp
