// Channel and member rows; see pg_team_rows.h.
#include "migrate/pg_team_rows.h"

#include <map>

namespace buzz::migrate {
namespace {

// A column and the type its text is read as.
struct Column {
  const char* name;
  const char* type;
};

constexpr Column kChannelColumns[] = {
    {"id", "uuid"},
    {"name", "varchar"},
    {"channel_type", "channel_type"},
    {"visibility", "channel_visibility"},
    {"description", "text"},
    {"canvas", "text"},
    {"created_by", "bytea"},
    {"created_at", "timestamptz"},
    {"updated_at", "timestamptz"},
    {"archived_at", "timestamptz"},
    {"deleted_at", "timestamptz"},
    {"topic", "text"},
    {"topic_set_by", "bytea"},
    {"topic_set_at", "timestamptz"},
    {"purpose", "text"},
    {"purpose_set_by", "bytea"},
    {"purpose_set_at", "timestamptz"},
    {"participant_hash", "bytea"},
    {"ttl_seconds", "int"},
    {"ttl_deadline", "timestamptz"},
};
constexpr size_t kHashColumn = 17;  // participant_hash, 0-based

constexpr Column kMemberColumns[] = {
    {"channel_id", "uuid"},
    {"pubkey", "bytea"},
    {"role", "member_role"},
    {"joined_at", "timestamptz"},
    {"invited_by", "bytea"},
    {"removed_at", "timestamptz"},
    {"removed_by", "bytea"},
    {"hidden_at", "timestamptz"},
};

template <size_t N>
std::string copy_header(const char* table, const Column (&cols)[N]) {
  std::string out = std::string(table) + " (";
  for (size_t i = 0; i < N; ++i) out += (i ? ", " : "") + std::string(cols[i].name);
  return out + ")";
}

// INSERT … SELECT $1::type, … [WHERE …] ON CONFLICT (the first `keys` columns)
// DO UPDATE SET every other column: the same row as the COPY's, written again.
template <size_t N>
std::string upsert_sql(const char* table, const Column (&cols)[N], size_t keys, const std::string& where = "",
                       const std::map<size_t, std::string>& exprs = {}) {
  std::string sql = "INSERT INTO " + copy_header(table, cols) + " SELECT ";
  for (size_t i = 0; i < N; ++i) {
    auto e = exprs.find(i);
    sql += (i ? ", " : "") + (e != exprs.end() ? e->second : "$" + std::to_string(i + 1) + "::" + cols[i].type);
  }
  sql += where + " ON CONFLICT (";
  for (size_t i = 0; i < keys; ++i) sql += (i ? ", " : "") + std::string(cols[i].name);
  sql += ") DO UPDATE SET ";
  for (size_t i = keys; i < N; ++i) sql += (i > keys ? ", " : "") + std::string(cols[i].name) + " = EXCLUDED." + cols[i].name;
  return sql;
}

// The row append() writes, as statement parameters: COPY's text split into
// fields, its \N as NULL.
template <typename Append>
bool row_params(PgConnection::Statement& st, Append append) {
  std::string line;
  {
    CopyRow r(line);
    append(r);
  }
  line.pop_back();  // the newline
  return copy_text::split(line, st.params, st.nulls);
}

}  // namespace

std::string channels_copy() { return copy_header("channels", kChannelColumns); }
std::string channel_members_copy() { return copy_header("channel_members", kMemberColumns); }

void append_channel(CopyRow& r, const engine::Channel& c) {
  r.text(c.id).text(c.name).text(engine::channel_type_name(c.type)).text(engine::visibility_name(c.visibility));
  r.text_or_null(c.description).text_or_null(c.canvas).key(c.created_by).time(c.created_at);
  r.time(c.updated_at()).time_or_null(c.archived_at).time_or_null(c.deleted_at);
  r.text_or_null(c.topic).key_or_null(c.topic_set_by).time_or_null(c.topic_set_at);
  r.text_or_null(c.purpose).key_or_null(c.purpose_set_by).time_or_null(c.purpose_set_at);
  engine::Id hash;
  engine::from_hex(c.participant_hash, &hash) ? r.key(hash) : r.null();
  c.ttl_seconds ? r.number(c.ttl_seconds) : r.null();
  r.time_or_null(c.ttl_deadline);
}

void append_member(CopyRow& r, std::string_view channel, const engine::ChannelMember& m) {
  r.text(channel).key(m.pubkey).text(engine::channel_role_name(m.role)).time_us(m.joined_at, uint32_t(m.join_seq % 1000000));
  r.key_or_null(m.invited_by).time_or_null(m.removed_at).key_or_null(m.removed_by).time_or_null(m.hidden_at);
}

std::vector<PgConnection::Statement> team_mirror_statements(std::span<const engine::StateWrite> writes) {
  std::map<std::string_view, std::string_view> channels, members;  // key -> the last value written
  for (const engine::StateWrite& w : writes) {
    if (w.table == engine::StateTable::kChannels) channels[w.key] = w.value;
    if (w.table == engine::StateTable::kChannelMembers) members[w.key] = w.value;
  }
  std::vector<PgConnection::Statement> out;
  if (channels.empty() && members.empty()) return out;
  static const std::string channel_sql = [] {
    const std::string hash = "$" + std::to_string(kHashColumn + 1) + "::bytea";
    return upsert_sql("channels", kChannelColumns, 1, "",
                      {{kHashColumn, "CASE WHEN EXISTS (SELECT 1 FROM channels o WHERE o.participant_hash = " + hash +
                                         " AND o.id <> $1::uuid) THEN NULL ELSE " + hash + " END"}});
  }();
  static const std::string member_sql =
      upsert_sql("channel_members", kMemberColumns, 2, " WHERE EXISTS (SELECT 1 FROM channels WHERE id = $1::uuid)");
  for (const auto& [key, value] : channels) {
    engine::Channel c;
    if (value.empty() || !engine::decode_channel(value, &c)) continue;  // records are never erased
    PgConnection::Statement st{channel_sql};
    if (!row_params(st, [&](CopyRow& r) { append_channel(r, c); })) continue;
    if (!st.nulls[kHashColumn]) {
      out.push_back({"UPDATE channels SET participant_hash = NULL WHERE participant_hash = $1::bytea AND id <> $2::uuid "
                     "AND (deleted_at IS NOT NULL OR $3::bool)",
                     {st.params[kHashColumn], c.id, c.deleted() ? "f" : "t"}});
    }
    out.push_back(std::move(st));
  }
  for (const auto& [key, value] : members) {
    engine::ChannelMember m;
    if (key.size() != 36 + 32 || value.empty() || !engine::decode_member(value, &m)) continue;
    PgConnection::Statement st{member_sql};
    if (row_params(st, [&](CopyRow& r) { append_member(r, key.substr(0, 36), m); })) out.push_back(std::move(st));
  }
  return out;
}

}  // namespace buzz::migrate
