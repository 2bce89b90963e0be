// The audit entry of an authentication; see auth_audit.h.
#include "server/access/auth_audit.h"

#include <string>
#include <utility>
#include <vector>

#include "server/common/json_text.h"

namespace buzz::server {

engine::AuditRecord auth_audit_record(const engine::Pubkey& actor, std::string_view method, std::string_view reason) {
  std::vector<std::pair<std::string, std::string>> meta = {{"method", json_string(method)}};
  if (!reason.empty()) meta.emplace_back("reason", json_string(reason));
  // 48001 is the sentinel kind of entries without an event: never the AUTH's own 22242.
  return {"", engine::kKindAuditEntry, engine::to_hex(actor),
          std::string(reason.empty() ? engine::kActionAuthSuccess : engine::kActionAuthFailure), "",
          json_object(std::move(meta))};
}

}  // namespace buzz::server
