// NIP-50: a REQ whose filters carry `search` (protocol.md §9.8), answered
// from the full-text index within the caller's read scope (history.h).
#include <unordered_set>

#include "engine/canonical.h"
#include "server/relay/relay.h"

namespace buzz::server {

void Relay::handle_search_req(Context& c, const ReqMessage& req) {
  std::unordered_set<engine::Id, engine::KeyBytesHash> sent;  // a hit of two filters is sent once
  const Readable readable = s_.history.readable_to(c.session.grant, c.session.pubkey);
  std::string prefix = "[\"EVENT\",";
  engine::append_json_string(prefix, req.sub_id);
  prefix += ",";
  for (const engine::Filter& f : req.filters) {
    auto rows = s_.history.rows(f, c.session.pubkey, c.session.grant, readable);
    if (!rows) return send_closed(c, req.sub_id, rows.error());
    for (const EventRow& row : *rows) {
      // A full send queue ends the replay, without EOSE (protocol.md §5.4).
      if (sent.insert(row.id).second && !c.loop.send_history(c.conn, prefix + row.raw + "]")) return;
    }
  }
  std::string eose = "[\"EOSE\",";
  engine::append_json_string(eose, req.sub_id);
  c.loop.send_text(c.conn, eose + "]");
}

}  // namespace buzz::server
