// Splitting a client's REQ (docs/reference/proxy.md §6): kinds 40 and 41 are answered from
// the channel map; the rest goes upstream with its kinds translated, its
// channel `#e` turned into `#h`, and `#h` limited to the session's channels,
// one upstream filter per channel (the relay delivers channel events live
// only to single-channel subscriptions).
// Loop thread only.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/result.h"
#include "tools/proxy/channel_map.h"
#include "tools/proxy/id_cache.h"
#include "tools/proxy/translate.h"

namespace buzz::proxy {

// The part of a filter served from the channel map.
struct LocalFilter {
  std::set<uint16_t> kinds;  // 40 and/or 41
  std::optional<std::set<std::string>> ids, authors, channel_ids;  // channel_ids: the filter's #e
  std::optional<uint64_t> since, until, limit;
};

// One translated upstream filter: its fields in order, each value as JSON.
struct UpstreamFilter {
  std::vector<std::pair<std::string, std::string>> fields;
  std::optional<uint64_t> since;
  bool wants_history = true;  // false for `limit: 0`: only live events

  // The filter as sent for history.
  std::string history() const;
  // The filter of a live subscription: `limit: 0` (no history); with
  // `catch_up_from`, the history since then instead (after a reconnect).
  std::string live(std::optional<uint64_t> catch_up_from = std::nullopt) const;
};

// One client REQ, split.
struct SplitReq {
  std::vector<LocalFilter> local;
  // Upstream filters grouped by the one channel each is limited to.
  std::map<std::string, std::vector<UpstreamFilter>> upstream;
};

// Filters as the body of a REQ: `f1,f2,…`; join_history leaves out those
// that want no history (empty: no history REQ is needed).
std::string join_history(const std::vector<UpstreamFilter>& filters);
std::string join_live(const std::vector<UpstreamFilter>& filters, std::optional<uint64_t> catch_up_from = std::nullopt);

// Splits the filters of one REQ; the error is the CLOSED reason.
engine::Result<SplitReq> split_req(const std::vector<simdjson::dom::element>& filters, const ChannelMap& channels,
                                   IdCaches& ids, const ChannelSet& allowed);

// The synthesized kind 40 and 41 events one local filter selects, for the
// channels the session may see, kind 40 then 41 per channel, up to `limit`.
std::vector<const engine::Event*> local_events(const LocalFilter& f, const ChannelMap& channels,
                                               const ChannelSet& allowed, const std::string& server_pubkey);

}  // namespace buzz::proxy
