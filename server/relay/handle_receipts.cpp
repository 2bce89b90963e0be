// A REQ for delivery receipts (kind::kDeliveryReceipt, docs/reference/kinds.md §4): for
// each message its #e names whose receipt the caller may see (its author, or
// an admin or owner of its channel), one relay-signed event, then EOSE. It
// registers nothing: receipts are read when asked, never pushed.
#include <unordered_set>
#include <vector>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "server/relay/receipts.h"
#include "server/relay/relay.h"

namespace buzz::server {
namespace {

constexpr size_t kMaxReceiptsPerReq = 100;

}  // namespace

void Relay::handle_receipt_req(Context& c, const ReqMessage& req) {
  if (!deliveries_) return send_closed(c, req.sub_id, "error: delivery receipts are not recorded on this relay");
  std::string prefix = "[\"EVENT\",";
  engine::append_json_string(prefix, req.sub_id);
  prefix += ",";
  std::unordered_set<engine::Id, engine::KeyBytesHash> seen;
  std::vector<engine::Id> asked;
  for (const engine::Filter& f : req.filters) {
    const engine::TagFilter* e = f.tag('e');
    if (!e) continue;
    for (const std::string& hex : e->values) {
      engine::Id id;
      if (asked.size() < kMaxReceiptsPerReq && engine::from_hex(hex, &id) && seen.insert(id).second) asked.push_back(id);
    }
  }
  ReceiptReader receipts(s_.store, s_.team, deliveries_->log());
  for (const Receipt& r : receipts.of(asked, c.session.pubkey, c.session.grant)) {
    if (r.access != Receipt::Access::kShown) continue;  // never says why: as if there were none
    std::vector<engine::Tag> tags = {{"e", engine::to_hex(r.id)}, {"h", r.channel}, {"p", engine::to_hex(r.author)}};
    const engine::Event ev =
        engine::signed_event(key_, kind::kDeliveryReceipt, engine::unix_now(), std::move(tags), receipt_json(r));
    if (!c.loop.send_history(c.conn, prefix + ev.raw + "]")) return;  // a full queue ends it, without EOSE
  }
  std::string eose = "[\"EOSE\",";
  engine::append_json_string(eose, req.sub_id);
  c.loop.send_text(c.conn, eose + "]");
}

}  // namespace buzz::server
