// The live-subscription index; see subscription_index.h.
#include "index/subscription_index.h"

#include <algorithm>

#include "engine/event_record.h"

namespace buzz::index {

using engine::Filter;

namespace {

std::string& start_key(std::string& out, char tier, uint16_t kind) {
  out.assign(1, tier);
  engine::put_u16(&out, kind);
  return out;
}

}  // namespace

const std::string& channel_kind_key(std::string& out, std::string_view channel, uint16_t kind) {
  return start_key(out, 'c', kind).append(channel);
}

const std::string& channel_key(std::string& out, std::string_view channel) {
  return out.assign(1, 'C').append(channel);
}

const std::string& kind_p_key(std::string& out, uint16_t kind, std::string_view p) {
  return start_key(out, 'p', kind).append(p);
}

const std::string& kind_key(std::string& out, uint16_t kind) { return start_key(out, 'k', kind); }

bool Subscription::matches(const engine::EventFields& e) const {
  return std::any_of(filters.begin(), filters.end(), [&](const Filter& f) { return f.matches(e); });
}

// Picks the tier and the bucket keys for a subscription.
static std::vector<std::string> keys_for(const Subscription& s) {
  std::vector<std::string> keys;
  std::string k;
  const auto& fs = s.filters;
  bool all_nothing = std::all_of(fs.begin(), fs.end(), [](const Filter& f) { return f.matches_nothing(); });
  if (fs.empty() || all_nothing) return keys;  // can never match: not indexed
  bool all_kinds = std::all_of(fs.begin(), fs.end(), [](const Filter& f) { return f.kinds.has_value(); });
  auto file_in_channel = [&](const std::string& channel) {
    if (!all_kinds) {
      keys.push_back(channel_key(k, channel));
      return;
    }
    for (const Filter& f : fs) {
      for (uint16_t kind : *f.kinds) keys.push_back(channel_kind_key(k, channel, kind));
    }
  };
  if (!s.channel.empty()) {
    file_in_channel(s.channel);
  } else if (!all_kinds) {
    keys.push_back(kWildcardKey);
  } else {
    bool all_p = std::all_of(fs.begin(), fs.end(), [](const Filter& f) {
      const engine::TagFilter* p = f.tag('p');
      return p && !p->values.empty();
    });
    for (const Filter& f : fs) {
      for (uint16_t kind : *f.kinds) {
        if (!all_p) {
          keys.push_back(kind_key(k, kind));
          continue;
        }
        for (const std::string& p : f.tag('p')->values) keys.push_back(kind_p_key(k, kind, p));
      }
    }
  }
  for (const std::string& channel : s.channels) file_in_channel(channel);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

void SubscriptionIndex::add(Subscription* sub) {
  sub->keys = keys_for(*sub);
  for (const std::string& k : sub->keys) buckets_[k].push_back(sub);
  ++count_;
}

void SubscriptionIndex::remove(Subscription* sub) {
  for (const std::string& k : sub->keys) {
    auto it = buckets_.find(k);
    if (it == buckets_.end()) continue;
    Bucket& b = it->second;
    auto pos = std::find(b.begin(), b.end(), sub);
    if (pos != b.end()) {
      *pos = b.back();
      b.pop_back();
    }
    if (b.empty()) buckets_.erase(it);
  }
  sub->keys.clear();
  --count_;
}

SubscriptionIndex::Bucket* SubscriptionIndex::find(const std::string& key) {
  auto it = buckets_.find(key);
  return it == buckets_.end() ? nullptr : &it->second;
}

}  // namespace buzz::index
