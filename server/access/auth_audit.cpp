// The audit entry of an authentication; see auth_audit.h.
#include "server/access/auth_audit.h"

#include <string>
#include <utility>
#include <vector>

#include "engine/json_text.h"

namespace buzz::server {
namespace {

constexpr uint64_t kMinute = 60;

engine::AuditRecord record(std::string actor, std::string_view method, std::string_view reason,
                           const engine::Pubkey* claimed) {
  std::vector<std::pair<std::string, std::string>> meta = {{"method", json_string(method)}};
  if (!reason.empty()) meta.emplace_back("reason", json_string(reason));
  if (claimed) meta.emplace_back("claimed_pubkey", json_string(engine::to_hex(*claimed)));
  // 48001 is the sentinel kind of entries without an event: never the AUTH's own 22242.
  return {"", engine::kKindAuditEntry, std::move(actor),
          std::string(reason.empty() ? engine::kActionAuthSuccess : engine::kActionAuthFailure), "",
          json_object(std::move(meta))};
}

}  // namespace

engine::AuditRecord auth_audit_record(const engine::Pubkey& actor, std::string_view method, std::string_view reason) {
  return record(engine::to_hex(actor), method, reason, nullptr);
}

engine::AuditRecord unproven_auth_failure_record(const engine::Pubkey& claimed, std::string_view method,
                                                 std::string_view reason) {
  return record("", method, reason, &claimed);
}

bool AuthFailureAudit::due(std::string_view peer, uint64_t now) {
  const std::string address(peer.substr(0, peer.rfind(':')));
  std::lock_guard lock(mu_);
  auto it = windows_.find(address);
  if (it == windows_.end()) {
    if (windows_.size() >= kMaxAddresses) {
      std::erase_if(windows_, [&](const auto& kv) { return kv.second.start + kMinute <= now; });
      if (windows_.size() >= kMaxAddresses) return false;
    }
    it = windows_.emplace(address, Window{now, 0}).first;
  }
  Window& w = it->second;
  if (w.start + kMinute <= now) w = Window{now, 0};
  if (w.used >= kPerAddressPerMinute) return false;
  ++w.used;
  return true;
}

}  // namespace buzz::server
