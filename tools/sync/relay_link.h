// RelayLink: one authenticated WebSocket to a relay, with the few exchanges
// `buzz sync` needs: list what the relay holds (as negentropy items), run a
// NIP-77 reconciliation against it, fetch events by id, publish events, and
// follow a live subscription. Blocking, one request at a time; every wait has
// a timeout, and a relay's refusal comes back as an Error with its reason.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/event.h"
#include "engine/negentropy.h"
#include "engine/result.h"
#include "engine/signature.h"
#include "tools/client/ws_client.h"

namespace buzz::sync {

// Who we are to a relay: the key that signs NIP-42 AUTH, and an optional API
// token (its owner must be that key; a proxy:submit token lets us upload
// events others signed, with their original timestamps).
struct Identity {
  engine::Keypair key;
  std::string token;
};

struct PublishTally {
  size_t accepted = 0;    // stored, or already there ("duplicate:")
  size_t refused = 0;
  std::string last_refusal;  // one reason, for the report
};

struct ReconcileResult {
  std::vector<engine::Id> have;  // only on our side
  std::vector<engine::Id> need;  // only on the relay
  size_t rounds = 0;
  size_t bytes_up = 0, bytes_down = 0;  // NEG message bytes (hex) each way
  double first_reply_seconds = 0;       // NEG-OPEN to its answer: mostly the relay building its set
};

class RelayLink {
 public:
  // Connects to ws://host[:port][/path] and authenticates.
  static engine::Result<std::unique_ptr<RelayLink>> open(const std::string& url, const Identity& who);

  // The (created_at, id) of every event of `filter_json` the relay lets us read,
  // paged through REQ (newest first, `until` stepping back).
  engine::Result<std::vector<engine::negentropy::Item>> list(const std::string& filter_json);
  // NIP-77 against the relay with `ours` as our side.
  engine::Result<ReconcileResult> reconcile(const std::string& filter_json, const engine::negentropy::ItemSet& ours);
  // The events with these ids, verified (a bad signature is dropped), oldest first.
  engine::Result<std::vector<engine::Event>> fetch(const std::vector<engine::Id>& ids);
  // Publishes events in order, pipelined, and waits for every OK.
  engine::Result<PublishTally> publish(const std::vector<engine::Event>& events);
  // Subscribes to `filter_json` from `since` on and calls `on_event` for each
  // live event until it returns false or the connection ends.
  engine::Status follow(const std::string& filter_json, uint64_t since,
                        const std::function<bool(engine::Event&&)>& on_event);

  const std::string& url() const { return url_; }

 private:
  RelayLink(std::unique_ptr<client::WsClient> ws, std::string url) : ws_(std::move(ws)), url_(std::move(url)) {}
  engine::Status authenticate(const Identity& who);
  // The next message whose first element is one of `verbs` and, when `sub` is
  // given, whose second is `sub` (others are dropped: the CLOSED that answers
  // an earlier CLOSE must not end the next request).
  engine::Result<std::string> next(std::initializer_list<std::string_view> verbs, std::string_view sub = {},
                                   int timeout_ms = 30000);
  std::string next_sub_id();

  std::unique_ptr<client::WsClient> ws_;
  std::string url_;
  uint64_t subs_ = 0;
};

// Splits ws://host[:port][/path] (client::split_url); the host is resolved to an IPv4 address.
struct RelayAddress {
  std::string host;
  uint16_t port = 80;
  std::string path = "/";
};
engine::Result<RelayAddress> parse_relay_url(const std::string& url);

}  // namespace buzz::sync
