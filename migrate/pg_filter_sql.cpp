// Filters as SQL; see pg_filter_sql.h.
#include "migrate/pg_filter_sql.h"

#include "engine/canonical.h"
#include "engine/channel.h"
#include "migrate/pg_event_row.h"

namespace buzz::migrate {
namespace {

std::string key_list(const std::vector<engine::Id>& keys) {
  std::vector<std::string_view> bytes;
  for (const auto& k : keys) bytes.emplace_back(reinterpret_cast<const char*>(k.data()), k.size());
  return bytea_array(bytes);
}

// One tag condition: any of the values as a [name, value, …] tag (GIN containment);
// an h value is also the stored channel (Filter::matches: kinds 5 and 7 inherit theirs).
std::string tag_condition(const engine::TagFilter& t, PgParams& params) {
  std::string out = "(";
  std::vector<std::string> channels;
  for (const std::string& v : t.values) {
    if (out.size() > 1) out += " OR ";
    std::string tag = "[[";
    engine::append_json_string(tag, std::string_view(&t.name, 1));
    tag += ',';
    engine::append_json_string(tag, v);
    tag += "]]";
    out += "e.tags @> " + params.add(std::move(tag)) + "::jsonb";
    if (t.name == 'h' && engine::is_canonical_uuid(v)) channels.push_back(v);
  }
  if (!channels.empty()) out += " OR e.channel_id = ANY(" + params.add(text_array(channels)) + "::uuid[])";
  return out + ")";
}

}  // namespace

std::string filter_conditions(const engine::Filter& f, PgParams& params) {
  std::string where = "e.deleted_at IS NULL";
  if (f.ids) where += " AND e.id = ANY(" + params.add(key_list(*f.ids)) + "::bytea[])";
  if (f.authors) where += " AND e.pubkey = ANY(" + params.add(key_list(*f.authors)) + "::bytea[])";
  if (f.kinds) {
    std::string list = "{";
    for (uint16_t k : *f.kinds) list += (list.size() > 1 ? "," : "") + std::to_string(k);
    where += " AND e.kind = ANY(" + params.add(list + "}") + "::int[])";
  }
  if (f.since) where += " AND e.created_at >= to_timestamp(" + params.add(std::to_string(*f.since)) + "::bigint)";
  if (f.until) {
    where += " AND e.created_at <= to_timestamp(" + params.add(std::to_string(std::min(*f.until, kMaxPgEventTime))) + "::bigint)";
  }
  for (const engine::TagFilter& t : f.tags) where += " AND " + tag_condition(t, params);
  return where;
}

}  // namespace buzz::migrate
