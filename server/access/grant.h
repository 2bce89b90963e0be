// Grant: what an authenticated caller may do beyond who it is — token scopes
// and an optional channel allow-list (docs/reference/rest-api.md §1.2, docs/reference/protocol.md §6.4–6.6).
//
// A NIP-42 or NIP-98 session holds every known scope and no channel list; an
// API token holds exactly what it was minted with. Per-channel rights never
// come from here: they come from membership and roles (TeamState).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api_tokens.h"

namespace buzz::server {

enum class Scope : uint8_t {
  kMessagesRead,
  kMessagesWrite,
  kChannelsRead,
  kChannelsWrite,
  kAdminChannels,
  kUsersRead,
  kUsersWrite,
  kAdminUsers,
  kJobsRead,
  kJobsWrite,
  kSubscriptionsRead,
  kSubscriptionsWrite,
  kFilesRead,
  kFilesWrite,
  kProxySubmit,  // service scope: never self-mintable, never in all_known()
};
inline constexpr size_t kScopeCount = 15;

std::string_view scope_name(Scope s);
std::optional<Scope> parse_scope(std::string_view name);
// Scopes a user may mint for itself with POST /api/tokens.
bool self_mintable(Scope s);

// A set of scopes as a bit mask.
class Scopes {
 public:
  constexpr Scopes() = default;
  static Scopes all_known();  // the 14 scopes of a pubkey-only session
  bool has(Scope s) const { return bits_ >> unsigned(s) & 1; }
  void add(Scope s) { bits_ |= uint32_t(1) << unsigned(s); }
  bool empty() const { return bits_ == 0; }
  bool contains_all(Scopes other) const { return (bits_ & other.bits_) == other.bits_; }
  // In scope order; each name once.
  std::vector<std::string_view> names() const;

 private:
  uint32_t bits_ = 0;
};

struct Grant {
  Scopes scopes = Scopes::all_known();
  // Token channel allow-list; nullopt = every channel. An empty list allows none.
  std::optional<std::vector<std::string>> channels;

  bool has(Scope s) const { return scopes.has(s); }
  bool channel_restricted() const { return channels.has_value(); }
  // Every known scope, no channel list and no proxy powers: a NIP-42 / NIP-98 session.
  bool unrestricted() const {
    return !channels && !scopes.has(Scope::kProxySubmit) && scopes.contains_all(Scopes::all_known());
  }
  bool allows_channel(std::string_view channel) const;
};

// What a token lets its holder do: its scopes (unknown strings grant nothing) and channel list.
Grant grant_of(const engine::ApiToken& token);

}  // namespace buzz::server
