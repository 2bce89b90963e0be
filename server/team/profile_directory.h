// ProfileDirectory: every user's profile as the REST API shows it
// (docs/reference/rest-api.md §3.11), held in memory.
//
// Built at start-up from the stored kind 0 (profile) and kind 10100 (agent
// profile) events plus what was set over REST (the `users` state table), then
// kept current: the store writer applies each kind 0 / 10100 once its batch is
// durable, and a REST setter writes to the store before it changes memory.
//
// channel_add_policy comes from a 10100 or from PUT …/channel-add-policy; the
// newer one wins (the event's created_at against the time of the call, to the
// millisecond), so a restart gives the same answer. The kind 9000 policy check reads it here and
// nowhere else (docs/reference/channels.md §4.1).
//
// Threads: reads from any thread under a shared lock; apply() (store-writer
// thread) and the REST setters (loop threads) take it exclusively.
#pragma once

#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/event.h"
#include "engine/event_store.h"
#include "engine/result.h"
#include "engine/user_record.h"

namespace buzz::server {

using engine::AddPolicy;
using engine::add_policy_name;
using engine::parse_add_policy;

struct Profile {
  engine::Pubkey pubkey{};
  // From the newest kind 0 (absolute state; "" = null).
  std::string display_name, avatar_url, about;
  std::string nip05_handle;  // "local@<relay host>", lowercased; "" when absent, elsewhere or taken
  uint64_t profile_at = 0;   // created_at of that kind 0
  // From the newest kind 10100 (Buzz: its agent_type and capabilities fields).
  std::string agent_type;
  std::vector<std::string> capabilities;
  uint64_t agent_profile_at = 0;
  AddPolicy channel_add_policy = AddPolicy::kAnyone;
  // When the policy was set, in ms: a 10100's created_at × 1000, or the REST
  // call's clock (finer: a call made after a 10100 of the same second is newer).
  uint64_t policy_at_ms = 0;
  // Set once, by the NIP-98 bootstrap mint that names it (docs/reference/rest-api.md §3.1).
  std::optional<engine::Pubkey> agent_owner;
};

class ProfileDirectory {
 public:
  // nip05_domain: the relay's host (RELAY_URL), lowercased; handles at any
  // other domain are not kept.
  ProfileDirectory(engine::EventStore& store, std::string nip05_domain)
      : store_(store), nip05_domain_(std::move(nip05_domain)) {}

  // Start-up, before any other call.
  engine::Status load();

  // Store-writer thread, after the event's batch is durable: a kind 0 or
  // 10100 (other kinds are ignored; an older version than the one held is too).
  void apply(const engine::Event& e);

  // --- any thread ---
  std::optional<Profile> find(const engine::Pubkey& pk) const;
  // A registered agent: a 10100 with an agent_type, or an owner link
  // (the rate-limit tier, docs/reference/protocol.md §14).
  bool is_agent(const engine::Pubkey& pk) const;
  // The display name, or "" when there is none.
  std::string display_name(const engine::Pubkey& pk) const;
  // The owner of the NIP-05 handle "local@domain" (compared lowercased).
  std::optional<engine::Pubkey> by_nip05(std::string_view handle) const;
  const std::string& nip05_domain() const { return nip05_domain_; }
  // Case-insensitive substring match on display name, NIP-05 handle or hex
  // pubkey, best first (docs/reference/rest-api.md §3.11): exact name, exact handle, exact
  // pubkey, then the same three as prefixes, then the rest; ties by the first
  // of name / handle / pubkey that is set. Query characters are literal.
  std::vector<Profile> search(std::string_view query, size_t limit) const;

  struct AddRule {
    AddPolicy policy = AddPolicy::kAnyone;
    std::optional<engine::Pubkey> owner;
  };
  // What the kind 9000 check needs to decide whether someone else may add pk.
  AddRule add_rule(const engine::Pubkey& pk) const;

  // --- REST setters, any thread: stored first, then applied ---
  // A user record for pk if there is none yet: every successful
  // authentication ensures one (docs/reference/rest-api.md §1.1), so a user who never
  // published a profile is still found.
  engine::Status ensure(const engine::Pubkey& pk);
  engine::Result<Profile> set_add_policy(const engine::Pubkey& pk, AddPolicy policy, uint64_t now_ms);
  enum class OwnerClaim : uint8_t { kClaimed, kAlreadyYours, kOwnedByOther };
  // Records `owner` as the agent's owner unless it already has one.
  engine::Result<OwnerClaim> claim_owner(const engine::Pubkey& agent, const engine::Pubkey& owner);

 private:
  // Each takes the lock exclusively held by the caller.
  void apply_profile(const engine::Event& e);
  void apply_agent_profile(const engine::Event& e);
  engine::Status store_settings(const Profile& p);
  Profile current(const engine::Pubkey& pk) const;  // a copy, or a fresh profile

  engine::EventStore& store_;
  const std::string nip05_domain_;
  mutable std::shared_mutex mu_;
  std::unordered_map<engine::Pubkey, Profile, engine::KeyBytesHash> profiles_;
  std::unordered_map<std::string, engine::Pubkey> nip05_owners_;  // handle -> who holds it
};

}  // namespace buzz::server
