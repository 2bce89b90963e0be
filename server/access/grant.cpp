#include "server/access/grant.h"

#include <algorithm>
#include <array>

namespace buzz::server {
namespace {

// Indexed by Scope.
constexpr std::array<std::string_view, kScopeCount> kNames = {
    "messages:read",      "messages:write", "channels:read", "channels:write", "admin:channels",
    "users:read",         "users:write",    "admin:users",   "jobs:read",      "jobs:write",
    "subscriptions:read", "subscriptions:write", "files:read", "files:write",   "proxy:submit",
};

}  // namespace

std::string_view scope_name(Scope s) { return kNames[size_t(s)]; }

std::optional<Scope> parse_scope(std::string_view name) {
  auto it = std::find(kNames.begin(), kNames.end(), name);
  if (it == kNames.end()) return std::nullopt;
  return Scope(it - kNames.begin());
}

bool self_mintable(Scope s) {
  switch (s) {
    case Scope::kMessagesRead:
    case Scope::kMessagesWrite:
    case Scope::kChannelsRead:
    case Scope::kChannelsWrite:
    case Scope::kUsersRead:
    case Scope::kUsersWrite:
    case Scope::kFilesRead:
    case Scope::kFilesWrite:
      return true;
    default:
      return false;
  }
}

Scopes Scopes::all_known() {
  static const Scopes known = [] {
    Scopes s;
    for (size_t i = 0; i < kScopeCount; ++i) {
      if (Scope(i) != Scope::kProxySubmit) s.add(Scope(i));
    }
    return s;
  }();
  return known;
}

std::vector<std::string_view> Scopes::names() const {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < kScopeCount; ++i) {
    if (has(Scope(i))) out.push_back(kNames[i]);
  }
  return out;
}

bool Grant::allows_channel(std::string_view channel) const {
  return !channels || std::find(channels->begin(), channels->end(), channel) != channels->end();
}

Grant grant_of(const engine::ApiToken& t) {
  Grant g;
  g.scopes = Scopes();
  for (const std::string& s : t.scopes) {
    if (auto scope = parse_scope(s)) g.scopes.add(*scope);  // unknown strings grant nothing
  }
  g.channels = t.channels;
  return g;
}

}  // namespace buzz::server
