// The profile directory; see profile_directory.h.
#include "server/team/profile_directory.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>

#include "engine/event_parse.h"
#include "engine/event_record.h"
#include "engine/kind_numbers.h"

namespace buzz::server {
namespace {

// The `users` row (engine/user_record.h): what REST set.
std::string encode_settings(const Profile& p) {
  return engine::encode_user_record({p.agent_owner, p.channel_add_policy, p.policy_at_ms});
}

bool decode_settings(std::string_view v, Profile* p) {
  engine::UserRecord u;
  if (!engine::decode_user_record(v, &u)) return false;
  p->agent_owner = u.agent_owner;
  p->channel_add_policy = u.channel_add_policy;
  p->policy_at_ms = u.policy_at_ms;
  return true;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

using JsonObject = std::optional<simdjson::dom::object>;

// The event's content as a JSON object; nullopt (every field absent) for anything else.
JsonObject content_object(simdjson::dom::parser& parser, const engine::Event& e) {
  simdjson::dom::object obj;
  if (parser.parse(e.content).get(obj)) return std::nullopt;
  return obj;
}

// What a kind 0 or 10100 updates: the profile, whose part's time (`at`) is now e's, and e's
// content (read before the next call on this thread).
struct ProfilePart {
  Profile& profile;
  JsonObject content;
};

// nullopt when e is older than the part it would replace: each part is the newest event's.
std::optional<ProfilePart> newer_part(std::unordered_map<engine::Pubkey, Profile, engine::KeyBytesHash>& profiles,
                                      const engine::Event& e, uint64_t Profile::*at) {
  auto it = profiles.find(e.pubkey);
  if (it != profiles.end() && e.created_at < it->second.*at) return std::nullopt;
  Profile& p = profiles[e.pubkey];
  p.pubkey = e.pubkey;
  p.*at = e.created_at;
  thread_local simdjson::dom::parser parser;
  return ProfilePart{p, content_object(parser, e)};
}

// A string field, or "" when absent or not a string.
std::string text_field(const JsonObject& obj, std::string_view key) {
  std::string_view v;
  if (!obj || (*obj)[key].get(v)) return {};
  return std::string(v);
}

}  // namespace

engine::Status ProfileDirectory::load() {
  std::vector<engine::Event> events;
  for (uint16_t kind : {uint16_t(kind::kProfile), uint16_t(kind::kAgentProfile)}) {
    engine::Status s = store_.scan_kind(kind, [&](std::string_view raw, const engine::EventFields&) {
      if (auto e = engine::parse_event_json(raw)) events.push_back(std::move(*e));
    });
    if (!s) return s;
  }
  // Oldest first, so the earliest claimant of a NIP-05 handle keeps it.
  std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.created_at < b.created_at; });
  std::unique_lock lock(mu_);
  profiles_.clear();
  nip05_owners_.clear();
  for (const engine::Event& e : events) e.kind == kind::kProfile ? apply_profile(e) : apply_agent_profile(e);
  std::string bad;
  engine::Status s = store_.scan_state(engine::StateTable::kUsers, [&](std::string_view key, std::string_view value) {
    Profile stored;
    if (key.size() != 32 || !decode_settings(value, &stored)) {
      bad = engine::to_hex(reinterpret_cast<const uint8_t*>(key.data()), std::min<size_t>(key.size(), 32));
      return;
    }
    std::memcpy(stored.pubkey.data(), key.data(), 32);
    Profile& p = profiles_[stored.pubkey];
    p.pubkey = stored.pubkey;
    p.agent_owner = stored.agent_owner;
    if (stored.policy_at_ms > p.policy_at_ms) {  // the newer of the 10100 and the REST call (a tie is the 10100's)
      p.channel_add_policy = stored.channel_add_policy;
      p.policy_at_ms = stored.policy_at_ms;
    }
  });
  if (!s) return s;
  if (!bad.empty()) return engine::Error{"error: unreadable user record " + bad};
  return {};
}

void ProfileDirectory::apply(const engine::Event& e) {
  if (e.kind != kind::kProfile && e.kind != kind::kAgentProfile) return;
  std::unique_lock lock(mu_);
  e.kind == kind::kProfile ? apply_profile(e) : apply_agent_profile(e);
}

void ProfileDirectory::apply_profile(const engine::Event& e) {
  auto part = newer_part(profiles_, e, &Profile::profile_at);
  if (!part) return;
  auto& [p, obj] = *part;
  // The whole event replaces the last one: absent fields are cleared (docs/reference/kinds.md §2.1).
  p.display_name = text_field(obj, "display_name");
  if (p.display_name.empty()) p.display_name = text_field(obj, "name");
  p.avatar_url = text_field(obj, "picture");
  if (p.avatar_url.empty()) p.avatar_url = text_field(obj, "image");
  p.about = text_field(obj, "about");

  // Only handles at this relay's domain are kept, and each by one user only.
  std::string handle = lowercase(text_field(obj, "nip05"));
  size_t at = handle.find('@');
  bool ours = at != std::string::npos && at > 0 && handle.find('@', at + 1) == std::string::npos &&
              !nip05_domain_.empty() && std::string_view(handle).substr(at + 1) == nip05_domain_;
  if (!ours) handle.clear();
  auto holder = handle.empty() ? nip05_owners_.end() : nip05_owners_.find(handle);
  if (holder != nip05_owners_.end() && holder->second != e.pubkey) handle.clear();  // taken: synced without it
  if (handle == p.nip05_handle) return;
  if (!p.nip05_handle.empty()) nip05_owners_.erase(p.nip05_handle);
  if (!handle.empty()) nip05_owners_[handle] = e.pubkey;
  p.nip05_handle = std::move(handle);
}

void ProfileDirectory::apply_agent_profile(const engine::Event& e) {
  auto part = newer_part(profiles_, e, &Profile::agent_profile_at);
  if (!part) return;
  auto& [p, obj] = *part;
  p.agent_type = text_field(obj, "agent_type");
  p.capabilities.clear();
  simdjson::dom::array caps;
  if (obj && !(*obj)["capabilities"].get(caps)) {
    for (simdjson::dom::element c : caps) {
      std::string_view v;
      if (!c.get(v)) p.capabilities.emplace_back(v);  // strings only
    }
  }
  // A missing or unknown policy leaves the current one (docs/reference/kinds.md 10100).
  auto policy = parse_add_policy(text_field(obj, "channel_add_policy"));
  if (policy && e.created_at * 1000 >= p.policy_at_ms) {
    p.channel_add_policy = *policy;
    p.policy_at_ms = e.created_at * 1000;
  }
}

std::optional<Profile> ProfileDirectory::find(const engine::Pubkey& pk) const {
  std::shared_lock lock(mu_);
  auto it = profiles_.find(pk);
  if (it == profiles_.end()) return std::nullopt;
  return it->second;
}

bool ProfileDirectory::is_agent(const engine::Pubkey& pk) const {
  std::shared_lock lock(mu_);
  auto it = profiles_.find(pk);
  return it != profiles_.end() && (!it->second.agent_type.empty() || it->second.agent_owner);
}

std::string ProfileDirectory::display_name(const engine::Pubkey& pk) const {
  std::shared_lock lock(mu_);
  auto it = profiles_.find(pk);
  return it == profiles_.end() ? std::string() : it->second.display_name;
}

std::optional<engine::Pubkey> ProfileDirectory::by_nip05(std::string_view handle) const {
  std::shared_lock lock(mu_);
  auto it = nip05_owners_.find(lowercase(handle));
  if (it == nip05_owners_.end()) return std::nullopt;
  return it->second;
}

std::vector<Profile> ProfileDirectory::search(std::string_view query, size_t limit) const {
  const std::string q = lowercase(query);
  if (q.empty() || limit == 0) return {};
  struct Hit {
    int rank;
    std::string order;  // the tie-break text
    const Profile* profile;
  };
  std::shared_lock lock(mu_);
  std::vector<Hit> hits;
  for (const auto& [pk, p] : profiles_) {
    const std::string name = lowercase(p.display_name), hex = engine::to_hex(pk);
    const std::string& handle = p.nip05_handle;
    auto has = [&](const std::string& s) { return s.find(q) != std::string::npos; };
    if (!has(name) && !has(handle) && !has(hex)) continue;
    int rank = 6;
    const std::string* fields[] = {&name, &handle, &hex};
    for (int i = 0; i < 3 && rank == 6; ++i) {
      if (*fields[i] == q) rank = i;
    }
    for (int i = 0; i < 3 && rank == 6; ++i) {
      if (fields[i]->starts_with(q)) rank = 3 + i;
    }
    hits.push_back({rank, !p.display_name.empty() ? p.display_name : !handle.empty() ? handle : hex, &p});
  }
  auto better = [](const Hit& a, const Hit& b) { return std::tie(a.rank, a.order) < std::tie(b.rank, b.order); };
  const size_t n = std::min(limit, hits.size());
  std::partial_sort(hits.begin(), hits.begin() + ptrdiff_t(n), hits.end(), better);
  std::vector<Profile> out;
  for (size_t i = 0; i < n; ++i) out.push_back(*hits[i].profile);
  return out;
}

ProfileDirectory::AddRule ProfileDirectory::add_rule(const engine::Pubkey& pk) const {
  std::shared_lock lock(mu_);
  auto it = profiles_.find(pk);
  if (it == profiles_.end()) return {};
  return {it->second.channel_add_policy, it->second.agent_owner};
}

Profile ProfileDirectory::current(const engine::Pubkey& pk) const {
  auto it = profiles_.find(pk);
  if (it != profiles_.end()) return it->second;
  Profile fresh;
  fresh.pubkey = pk;
  return fresh;
}

engine::Status ProfileDirectory::store_settings(const Profile& p) {
  return store_.put_state(engine::StateTable::kUsers,
                          std::string_view(reinterpret_cast<const char*>(p.pubkey.data()), p.pubkey.size()),
                          encode_settings(p));
}

engine::Status ProfileDirectory::ensure(const engine::Pubkey& pk) {
  {
    std::shared_lock lock(mu_);
    if (profiles_.count(pk)) return {};  // the common case, under the shared lock only
  }
  std::unique_lock lock(mu_);
  if (profiles_.count(pk)) return {};
  Profile fresh = current(pk);
  if (engine::Status s = store_settings(fresh); !s) return s;
  profiles_[pk] = std::move(fresh);
  return {};
}

engine::Result<Profile> ProfileDirectory::set_add_policy(const engine::Pubkey& pk, AddPolicy policy, uint64_t now_ms) {
  std::unique_lock lock(mu_);
  Profile next = current(pk);
  next.channel_add_policy = policy;
  // The call is newer than the setting it replaces, even a future-dated 10100's; a
  // tie can then only be with a later 10100, which wins it here and after a reload.
  next.policy_at_ms = std::max(now_ms, next.policy_at_ms + 1);
  if (engine::Status s = store_settings(next); !s) return engine::Error{s.error()};
  profiles_[pk] = next;
  return next;
}

engine::Result<ProfileDirectory::OwnerClaim> ProfileDirectory::claim_owner(const engine::Pubkey& agent,
                                                                           const engine::Pubkey& owner) {
  std::unique_lock lock(mu_);
  Profile next = current(agent);
  if (next.agent_owner) return *next.agent_owner == owner ? OwnerClaim::kAlreadyYours : OwnerClaim::kOwnedByOther;
  next.agent_owner = owner;
  if (engine::Status s = store_settings(next); !s) return engine::Error{s.error()};
  profiles_[agent] = next;
  return OwnerClaim::kClaimed;
}

}  // namespace buzz::server
