// NIP-09 deletion targets; see deletion_target.h.
#include "engine/deletion_target.h"

#include "engine/hex.h"

namespace buzz::engine {

Result<DeletionTarget> parse_deletion_target(const Event& e) {
  size_t n_e = 0, n_a = 0;
  const Tag* target = nullptr;
  for (const Tag& t : e.tags) {
    if (t.empty() || (t[0] != "e" && t[0] != "a")) continue;
    (t[0] == "e" ? n_e : n_a)++;
    target = &t;
  }
  if (n_e + n_a != 1 || target->size() < 2) {
    return Error{"invalid: deletion events must reference exactly one target via e or a tag (got e=" +
                 std::to_string(n_e) + ", a=" + std::to_string(n_a) + ")"};
  }
  DeletionTarget out;
  const std::string& ref = (*target)[1];
  if ((*target)[0] == "e") {
    out.by_id = true;
    if (!from_hex(ref, &out.id)) return Error{"invalid: target event not found"};
    return out;
  }
  // a tag: "kind:pubkey:d" — d may itself contain ':'.
  size_t c1 = ref.find(':');
  size_t c2 = c1 == std::string::npos ? c1 : ref.find(':', c1 + 1);
  if (c2 == std::string::npos || c1 == 0 || c1 > 5) return Error{"invalid: invalid a-tag format"};
  uint32_t kind = 0;
  for (size_t i = 0; i < c1; ++i) {
    if (ref[i] < '0' || ref[i] > '9') return Error{"invalid: invalid a-tag format"};
    kind = kind * 10 + uint32_t(ref[i] - '0');
  }
  if (kind > 65535) return Error{"invalid: invalid a-tag format"};
  if (!from_hex(std::string_view(ref).substr(c1 + 1, c2 - c1 - 1), &out.pubkey)) {
    return Error{"invalid: invalid pubkey in a-tag"};
  }
  if (out.pubkey != e.pubkey) return Error{"invalid: must be event author"};
  out.kind = uint16_t(kind);
  out.d = ref.substr(c2 + 1);
  return out;
}

}  // namespace buzz::engine
