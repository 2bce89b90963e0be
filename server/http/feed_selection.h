// The feed's categories (docs/reference/channels.md §13): the kinds each selects, and whether
// only events addressed to the caller (a p tag) count. GET /api/feed and the
// bridge's `feed_types` read them here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/filter.h"
#include "engine/kind_numbers.h"

namespace buzz::server {

struct FeedSelection {
  std::vector<uint16_t> kinds;
  bool addressed_to_caller = false;
};

// The index scan of one category for the caller (lowercase hex), from `since` on.
inline engine::Filter feed_filter(FeedSelection selection, const std::string& caller_hex, std::optional<uint64_t> since) {
  engine::Filter f;
  f.kinds = std::move(selection.kinds);
  if (selection.addressed_to_caller) f.tags.push_back({'p', {caller_hex}});
  f.since = since;
  f.normalize();
  return f;
}

// "mentions", "needs_action", "activity" or its alias "agent_activity".
inline std::optional<FeedSelection> feed_selection(std::string_view type) {
  if (type == "mentions")
    return FeedSelection{{kind::kStreamMessage, kind::kStreamMessageV2, kind::kForumPost, kind::kForumComment}, true};
  if (type == "needs_action") return FeedSelection{{kind::kApprovalRequested, kind::kReminder}, true};
  if (type == "activity" || type == "agent_activity")
    return FeedSelection{{kind::kStreamMessage, kind::kStreamMessageV2, kind::kForumPost, kind::kJobRequest,
                          kind::kJobProgress, kind::kJobResult},
                         false};
  return std::nullopt;
}

}  // namespace buzz::server
