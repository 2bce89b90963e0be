// NIP-50: a REQ whose filters carry `search` (docs/reference/protocol.md §9.8), answered
// from the full-text index within the caller's read scope (history.h).
#include <unordered_set>

#include "engine/canonical.h"
#include "server/relay/relay.h"

namespace buzz::server {

void Relay::handle_search_req(Context& c, const ReqMessage& req) {
  auto rows = search_rows(c.session, req);
  if (!rows) return send_closed(c, req.sub_id, rows.error());
  std::string prefix = "[\"EVENT\",";
  engine::append_json_string(prefix, req.sub_id);
  prefix += ",";
  for (const EventRow& row : *rows) {
    // A full send queue ends the replay, without EOSE (docs/reference/protocol.md §5.4).
    if (!c.loop.send_history(c.conn, prefix + row.raw + "]")) return;
  }
  std::string eose = "[\"EOSE\",";
  engine::append_json_string(eose, req.sub_id);
  c.loop.send_text(c.conn, eose + "]");
}

engine::Result<std::vector<EventRow>> Relay::search_rows(const Session& s, const ReqMessage& req) {
  std::unordered_set<engine::Id, engine::KeyBytesHash> seen;  // a hit of two filters is sent once
  const Readable readable = s_.history.readable_to(s.grant, s.pubkey);
  std::vector<EventRow> out;
  for (const engine::Filter& f : req.filters) {
    auto rows = s_.history.rows(f, s.pubkey, s.grant, readable);
    if (!rows) return engine::Error{rows.error()};
    for (EventRow& row : *rows) {
      if (seen.insert(row.id).second) out.push_back(std::move(row));
    }
  }
  return out;
}

}  // namespace buzz::server
