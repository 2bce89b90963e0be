// Relay members over REST (docs/reference/rest-api.md §3.12, NIP-43): the member list, and
// the caller's own record. The latter skips the membership gate so that a
// non-member gets a clean 404 rather than the gate's 403.
#include "engine/channel.h"
#include "engine/json_text.h"
#include "server/common/api_error.h"
#include "server/http/http_api.h"

namespace buzz::server {
namespace {

std::string member_json(const engine::RelayMember& m) {
  return json_object({{"pubkey", json_string(engine::to_hex(m.pubkey))},
                      {"role", json_string(engine::relay_role_name(m.role))},
                      {"added_by", m.added_by ? json_string(engine::to_hex(*m.added_by)) : "null"},
                      {"created_at", json_string(engine::rfc3339(m.created_at))}});
}

}  // namespace

net::HttpResponse HttpApi::list_relay_members(const Caller& who) {
  if (!who.grant.has(Scope::kUsersRead) && !who.grant.has(Scope::kAdminUsers)) {
    return api_error(403, "insufficient_scope", "Requires users:read or admin:users scope");
  }
  auto all = s_.membership.members();
  if (!all) return api_error(500, "internal server error");
  std::vector<std::string> rows;
  for (const engine::RelayMember& m : *all) rows.push_back(member_json(m));
  return net::HttpResponse::json(200, json_object({{"members", json_array(rows)}}));
}

net::HttpResponse HttpApi::get_relay_membership(const Caller& who) {
  std::optional<engine::RelayMember> m = s_.membership.member(who.pubkey);
  if (!m) return api_error(404, "not_a_member", "You are not a relay member");
  return net::HttpResponse::json(200, member_json(*m));
}

}  // namespace buzz::server
