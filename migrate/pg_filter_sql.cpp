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

std::string tag_json(char name, std::string_view value) {
  std::string tag = "[[";
  engine::append_json_string(tag, std::string_view(&name, 1));
  tag += ',';
  engine::append_json_string(tag, value);
  return tag + "]]";
}

// Past this many values a tag condition is one array parameter, which the GIN
// index cannot serve: 10,000 ORed containments took PostgreSQL seconds to plan.
constexpr size_t kIndexedTagValues = 64;

// One tag condition: any of the values as a [name, value, …] tag (GIN containment);
// an h value is also the stored channel (Filter::matches: kinds 5 and 7 inherit theirs).
std::string tag_condition(const engine::TagFilter& t, PgParams& params) {
  std::string out = "(";
  std::vector<std::string> channels, tags;
  for (const std::string& v : t.values) {
    if (t.name == 'h' && engine::is_canonical_uuid(v)) channels.push_back(v);
    if (t.values.size() > kIndexedTagValues) {
      tags.push_back(tag_json(t.name, v));
      continue;
    }
    if (out.size() > 1) out += " OR ";
    out += "e.tags @> " + params.add(tag_json(t.name, v)) + "::jsonb";
  }
  if (!tags.empty()) out += "e.tags @> ANY(" + params.add(text_array(tags)) + "::jsonb[])";
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
