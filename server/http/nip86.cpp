// NIP-86, the relay management API (docs/reference/nip86.md): JSON-RPC over
// `POST /` with Content-Type application/nostr+json+rpc, signed with NIP-98,
// for the relay's owner and admins. Membership calls run as the NIP-43
// commands they stand for, in the store writer, so they follow the same role
// rules and emit the same relay-signed 8000 / 8001 / 13534; the rest change
// the RelayPolicy, which every node applies (Relay::on_policy_change).
#include "engine/audit_entry.h"
#include "engine/clock.h"
#include "engine/json_rpc.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "server/common/log.h"
#include "server/http/http_api.h"

namespace buzz::server {
namespace {

using engine::RelayRole;

constexpr std::string_view kSupported[] = {
    "supportedmethods", "allowpubkey",   "disallowpubkey", "unallowpubkey",  "listallowedpubkeys",
    "banpubkey",        "unbanpubkey",   "listbannedpubkeys", "banevent",    "allowevent",
    "listbannedevents", "changerelayname", "changerelaydescription", "changerelayicon",
    "blockip",          "unblockip",     "listblockedips",
};

net::HttpResponse rpc_reply(int status, std::string body) { return net::HttpResponse::json(status, std::move(body)); }
net::HttpResponse rpc_error(int status, std::string_view message) {
  return rpc_reply(status, engine::nip86_error(message));
}

// A NIP-43 refusal: an actor the rules do not allow is 403, anything else 400.
net::HttpResponse refusal(const std::string& reason) {
  return rpc_error(reason.find("not authorized") != std::string::npos ? 403 : 400, reason);
}

std::string params_json(const engine::RpcCall& call) {
  std::vector<std::string> out;
  for (const engine::RpcParam& p : call.params) out.push_back(p.is_string ? json_string(p.text) : p.text);
  return json_array(out);
}

// The NIP-43 command a membership call stands for: built here, never signed or
// stored (the writer runs it; StoreWriter's RunMembership).
std::shared_ptr<const engine::Event> membership_command(uint16_t kind, const engine::Pubkey& actor,
                                                        const engine::Pubkey& target, std::string_view role) {
  auto e = std::make_shared<engine::Event>();
  engine::random_bytes(e->id.data(), e->id.size());
  e->pubkey = actor;
  e->kind = kind;
  e->created_at = engine::unix_now();
  e->tags = {{"p", engine::to_hex(target)}};
  if (!role.empty()) e->tags.push_back({"role", std::string(role)});
  return e;
}

}  // namespace

bool HttpApi::is_nip86(const net::HttpRequest& req) {
  const std::string_view type = req.header("content-type");
  return req.method == "POST" && (req.path == "/" || req.path.empty()) &&
         type.substr(0, type.find(';')) == "application/nostr+json+rpc";
}

std::optional<net::HttpResponse> HttpApi::nip86_call(net::Loop& loop, net::Connection& conn, const net::HttpRequest& req) {
  const uint64_t now = engine::unix_now();
  std::string_view auth = req.header("authorization");
  if (!auth.starts_with("Nostr ")) return rpc_error(401, "unauthorized: a NIP-98 Authorization header is required");
  auto proven = s_.prover.prove(req, {.url = signed_url_, .body = req.body, .payload_required = true}, now);
  if (const ProofError* e = std::get_if<ProofError>(&proven)) return rpc_error(401, "unauthorized: " + e->detail);
  const std::optional<Nip98Signer>& signer = std::get<KeyProof>(proven).signed_request;
  const std::optional<RelayRole> role = s_.membership.role(signer->pubkey);
  if (s_.gatekeeper.banned(signer->pubkey) || !role || *role == RelayRole::kMember) {
    return rpc_error(403, "forbidden: only the relay owner and admins may manage the relay");
  }
  if (auto refused = s_.throttle.admit_api_call(signer->pubkey)) return refused;
  Nip98ReplayCache::Use use = s_.prover.first_use(*signer, now);
  if (use == Nip98ReplayCache::Use::kReplay) return rpc_error(401, "unauthorized: NIP-98: replay detected");
  if (use == Nip98ReplayCache::Use::kFull) return rpc_error(503, "NIP-98: too many signed requests in flight, retry");

  auto call = engine::parse_rpc_call(req.body);
  if (!call) return rpc_error(400, "invalid request: " + call.error());
  Admin admin{signer->pubkey, *role, call->method, params_json(*call)};
  const std::string& method = call->method;
  auto param = [&](size_t n) { return std::string(call->string_param(n).value_or("")); };
  auto needs = [&](size_t n, std::string_view what) -> std::optional<net::HttpResponse> {
    if (call->string_param(n)) return std::nullopt;
    return rpc_error(400, "invalid params: " + method + " needs " + std::string(what));
  };

  if (method == "supportedmethods") return rpc_reply(200, engine::nip86_result(json_string_array(kSupported)));
  if (method == "listallowedpubkeys") {
    auto all = s_.membership.members();
    if (!all) return rpc_error(500, "internal error: " + all.error());
    std::vector<std::string> rows;
    for (const engine::RelayMember& m : *all) {
      rows.push_back(json_object({{"pubkey", json_string(engine::to_hex(m.pubkey))}, {"reason", "\"\""},
                                  {"role", json_string(engine::relay_role_name(m.role))},
                                  {"created_at", std::to_string(m.created_at)}}));
    }
    return rpc_reply(200, engine::nip86_result(json_array(rows)));
  }
  if (method == "listbannedpubkeys" || method == "listbannedevents" || method == "listblockedips") {
    using List = RelayPolicy::List;
    const List which = method == "listbannedpubkeys" ? List::kPubkeys
                       : method == "listbannedevents" ? List::kEvents
                                                      : List::kAddresses;
    const char* field = which == List::kPubkeys ? "pubkey" : which == List::kEvents ? "id" : "ip";
    std::vector<std::string> rows;
    for (const RelayPolicy::Entry& e : s_.gatekeeper.policy()->list(which)) {
      rows.push_back(json_object({{field, json_string(e.subject)}, {"reason", json_string(e.reason)}}));
    }
    return rpc_reply(200, engine::nip86_result(json_array(rows)));
  }
  if (method == "allowpubkey" || method == "disallowpubkey" || method == "unallowpubkey") {
    if (auto bad = needs(0, "a pubkey")) return bad;
    engine::Pubkey target;
    if (!engine::from_hex_any_case(param(0), target.data(), target.size())) {
      return rpc_error(400, "invalid params: invalid pubkey: expected 64 hex characters");
    }
    uint16_t kind = kind::kRemoveRelayMember;
    std::string new_role;
    if (method == "allowpubkey") {
      // Buzz: a third parameter names the role, member (the default) or admin.
      new_role = call->string_param(2).value_or("member");
      if (new_role.empty()) new_role = "member";
      std::optional<engine::RelayMember> existing = s_.membership.member(target);
      kind = existing && relay_role_name(existing->role) != new_role ? kind::kChangeRelayRole : kind::kAddRelayMember;
    }
    if (!s_.writer.submit({RunMembership{membership_command(kind, signer->pubkey, target, new_role)}, conn.id(), signer->pubkey})) {
      return rpc_error(503, "busy: the writer queue is full, retry");
    }
    nip86_pending_[loop.index()][subscription_owner(conn.id())] = std::move(admin);
    return std::nullopt;
  }

  auto op = RelayPolicy::parse_method(method);
  if (!op) return rpc_error(400, "unknown method: " + method + " (supportedmethods lists them)");
  using Op = RelayPolicy::Op;
  const bool text = *op == Op::kChangeName || *op == Op::kChangeDescription || *op == Op::kChangeIcon;
  if (auto bad = needs(0, text ? "the new text" : *op == Op::kBlockIp || *op == Op::kUnblockIp ? "an IP address"
                              : *op == Op::kBanEvent || *op == Op::kAllowEvent          ? "an event id"
                                                                                        : "a pubkey")) {
    return bad;
  }
  auto change = RelayPolicy::make(*op, param(0), param(1));
  if (!change) return rpc_error(400, "invalid params: " + change.error());
  if (*op == Op::kBanPubkey) {
    // As for a removal (kind 9031): never the owner, nor oneself; an admin bans only members and strangers.
    engine::Pubkey target;
    engine::from_hex(change->subject, &target);
    const std::optional<RelayRole> target_role = s_.membership.role(target);
    if (target == signer->pubkey) return rpc_error(400, "cannot ban yourself");
    if (target_role == RelayRole::kOwner) return rpc_error(403, "actor not authorized: cannot ban the relay owner");
    if (*role == RelayRole::kAdmin && target_role == RelayRole::kAdmin) {
      return rpc_error(403, "actor not authorized: admins can only ban members and non-members");
    }
  }
  if (!s_.writer.submit_audit(admin_audit_record(admin))) return rpc_error(503, "busy: audit backlog full, retry");
  if (auto s = s_.gatekeeper.policy()->apply(*change); !s) {
    log_warn("NIP-86 change not written", {{"method", method}, {"error", s.error()}});
    return rpc_error(500, "internal error: the change was not written");
  }
  relay_.on_policy_change(*change, /*here=*/true);
  return rpc_reply(200, engine::nip86_result("true"));
}

engine::AuditRecord HttpApi::admin_audit_record(const Admin& admin) {
  return {"", engine::kKindAuditEntry, engine::to_hex(admin.actor), std::string(engine::kActionRelayAdmin), "",
          json_object({{"method", json_string(admin.method)}, {"params", admin.params},
                       {"role", json_string(engine::relay_role_name(admin.role))}})};
}

net::HttpResponse HttpApi::nip86_answer(const Admin& admin, const Verdict& verdict) {
  if (verdict.busy) return rpc_error(503, "busy: the writer queue is full, retry");
  if (!verdict.accepted) return refusal(verdict.reason);
  if (!s_.writer.submit_audit(admin_audit_record(admin))) log_warn("NIP-86 membership change not audited: writer queue full");
  return rpc_reply(200, engine::nip86_result("true"));
}

}  // namespace buzz::server
