// The PostgreSQL event store; see pg_event_store.h.
#include "migrate/pg_event_store.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/expiration.h"
#include "engine/hex.h"
#include "engine/kinds.h"
#include "engine/signature.h"
#include "engine/write_rules.h"
#include "migrate/pg_event_row.h"
#include "migrate/pg_filter_sql.h"
#include "migrate/pg_import.h"
#include "migrate/pg_schema.h"
#include "migrate/pg_team_rows.h"
#include "migrate/pg_workflow_rows.h"

namespace buzz::migrate {
namespace {

using engine::Error;
using engine::Id;
using engine::Status;

// Rows one query or count may examine before it stops (the embedded store's budgets).
constexpr size_t kQueryScanBudget = 100'000;
constexpr size_t kCountScanBudget = 10'000'000;
constexpr size_t kScanPage = 1000;
// Serializes the schema set-up and the team-state adoption of nodes starting together.
constexpr const char* kSetupLock = "SELECT pg_advisory_lock(6012455564262815077)";
constexpr const char* kSetupUnlock = "SELECT pg_advisory_unlock(6012455564262815077)";
// The team lock (lock_team): "buzzteam" in ASCII.
constexpr const char* kTeamLock = "SELECT pg_advisory_lock(7094711454349484397)";
constexpr const char* kTeamUnlock = "SELECT pg_advisory_unlock(7094711454349484397)";
// with_table_lock's first key: "buzz" in ASCII (the second is the table).
constexpr int32_t kTableLockSpace = 1651866234;

// NIP-40: the condition that an events row has not expired at the Unix time
// in parameter `now` (the relay's clock, as the embedded store reads it).
std::string unexpired(const std::string& now) {
  return "(e.expires_at IS NULL OR e.expires_at > to_timestamp(" + now + "::bigint))";
}

std::string hex(std::string_view bytes) { return engine::to_hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()); }
std::string hex(const Id& id) { return engine::to_hex(id); }
std::string unhex(std::string_view text) {
  std::string out(text.size() / 2, '\0');
  engine::hex_decode(text, reinterpret_cast<uint8_t*>(out.data()), out.size());
  return out;
}

// One row of kEventSelect as the event and the fields a sink needs.
struct ReadRow {
  engine::Event event;
  std::string channel;
  bool deleted = false;
  engine::EventFields fields;
};

engine::Result<ReadRow> read_row(const PgRow& r, simdjson::dom::parser& parser) {
  const auto& v = r.values;
  EventColumns cols{v[0], v[1], v[2], v[3], v[4], v[5], v[6], r.nulls[8] ? nullptr : &v[8]};
  auto e = event_from_columns(cols, parser);
  if (!e) return Error{"events row id=" + v[0] + ": " + e.error()};
  ReadRow out{std::move(*e), r.nulls[7] ? std::string() : v[7], v[9] == "t", {}};
  return out;
}

// A replaceable slot as the key of its advisory lock and of the batch's cache.
std::string slot_text(const engine::ReplaceSlot& slot) {
  return std::to_string(slot.kind) + ":" + engine::to_hex(slot.pubkey) + (slot.by_channel ? ":a:" : ":b:") +
         std::string(slot.value);
}

}  // namespace

// One write transaction, with what it has read and changed so far, so that
// later events of the batch see the earlier ones (read-your-writes). A batch
// of new events costs three round trips, each a pipeline: BEGIN with the ids'
// lookup; the rows (one INSERT from arrays) with their side tables; the state
// rows with COMMIT. Every acknowledgement waits for the batch, and another
// node's delivery for its COMMIT: each round trip is on that path.
class PgEventStore::Batch final : public engine::WriteView {
 public:
  explicit Batch(PgConnection& pg) : pg_(pg) {}

  struct Row {
    bool exists = false;
    bool live = false;
    engine::Pubkey pubkey{};
    int added = -1;  // index in added_, or -1 for a stored row
  };
  struct Added {
    const engine::Event* event;
    std::string channel;
    bool deleted = false;
  };

  // Opens the transaction and reads which of the batch's ids are stored: one round trip.
  Status begin(std::span<const engine::WriteRequest> requests) {
    std::vector<std::string_view> ids;
    for (const auto& r : requests) ids.emplace_back(reinterpret_cast<const char*>(r.event->id.data()), 32);
    auto results = pg_.pipeline(
        {{"BEGIN"},
         {"SELECT encode(id, 'hex'), encode(pubkey, 'hex'), deleted_at IS NULL FROM events WHERE id = ANY($1::bytea[])",
          {bytea_array(ids)}}});
    if (!results) return Error{results.error()};
    for (const auto& r : requests) rows_[r.event->id] = Row{};
    for (const PgRow& r : results->back()) remember(r);
    return {};
  }

  engine::Result<bool> contains(const Id& id) override {
    auto row = row_of(id);
    if (!row) return Error{row.error()};
    return row->exists;
  }

  engine::Result<std::optional<Stored>> find(const Id& id) override {
    auto row = row_of(id);
    if (!row) return Error{row.error()};
    if (!row->exists) return std::optional<Stored>{};
    return std::optional<Stored>{Stored{row->pubkey, row->live}};
  }

  engine::Result<std::optional<Version>> current(const engine::ReplaceSlot& slot) override {
    const std::string text = slot_text(slot);
    if (auto it = pointers_.find(text); it != pointers_.end()) {
      if (it->second && rows_[it->second->id].live) return it->second;
      return std::optional<Version>{};
    }
    // Upstream's lock for this key (docs/reference/compat-backends.md §2): another node's
    // version of it waits for this transaction.
    if (auto s = pg_.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", {text}); !s) return Error{s.error()};
    PgParams p;
    std::string sql = "SELECT encode(id, 'hex'), encode(pubkey, 'hex'), deleted_at IS NULL, extract(epoch from created_at)::bigint "
                      "FROM events WHERE kind = " + p.add(std::to_string(slot.kind)) + "::int AND pubkey = decode(" +
                      p.add(engine::to_hex(slot.pubkey)) + ", 'hex') AND deleted_at IS NULL AND ";
    if (!slot.by_channel) sql += "d_tag = " + p.add(std::string(slot.value));
    else if (slot.value.empty()) sql += "channel_id IS NULL";
    else sql += "channel_id = " + p.add(std::string(slot.value)) + "::uuid";
    sql += " ORDER BY created_at DESC, id ASC";
    auto rows = pg_.query(sql, p.values());
    if (!rows) return Error{rows.error()};
    std::optional<Version> found;
    for (const PgRow& r : *rows) {
      const Id id = remember(r);
      if (!found && rows_[id].live) found = Version{id, std::strtoull(r.values[3].c_str(), nullptr, 10)};
    }
    pointers_[text] = found;
    return found;
  }

  void add(const engine::Event& e, std::string_view channel, const engine::ReplaceSlot* slot) override {
    if (slot) pointers_[slot_text(*slot)] = Version{e.id, e.created_at};
    rows_[e.id] = Row{true, true, e.pubkey, int(added_.size())};
    added_.push_back({&e, std::string(channel)});
  }

  // Marks a row deleted (a stored one at commit).
  void soft_delete(const Id& id) override {
    auto it = rows_.find(id);
    if (it == rows_.end() || !it->second.live) return;
    it->second.live = false;
    if (it->second.added >= 0) added_[size_t(it->second.added)].deleted = true;
    else deleted_.push_back(id);
  }

  std::string unstorable(const engine::Event& e) override {
    if (holds_nul(e)) return "invalid: text holding U+0000 cannot be stored";
    if (e.created_at > kMaxPgEventTime) return "invalid: created_at out of range";
    return {};
  }

  // Writes the new rows and the deletions, in one round trip; returns the ids
  // another node inserted first (their results become duplicates).
  engine::Result<std::set<Id>> flush() {
    std::vector<PgConnection::Statement> writes;
    if (!added_.empty()) insert_events(writes);
    if (!deleted_.empty()) {
      std::vector<std::string_view> ids;
      for (const Id& id : deleted_) ids.emplace_back(reinterpret_cast<const char*>(id.data()), 32);
      writes.push_back({"UPDATE events SET deleted_at = now() WHERE id = ANY($1::bytea[]) AND deleted_at IS NULL",
                        {bytea_array(ids)}});
    }
    std::set<Id> raced;
    if (writes.empty()) return raced;
    auto results = pg_.pipeline(writes);
    if (!results) return Error{results.error()};
    if (!added_.empty()) {
      std::unordered_set<std::string> done;
      for (const PgRow& r : results->front()) done.insert(r.values[0]);
      for (const Added& a : added_) {
        if (!done.count(hex(a.event->id))) raced.insert(a.event->id);
      }
    }
    return raced;
  }

 private:
  engine::Result<Row> row_of(const Id& id) {
    if (auto it = rows_.find(id); it != rows_.end()) return it->second;
    auto rows = pg_.query("SELECT encode(id, 'hex'), encode(pubkey, 'hex'), deleted_at IS NULL FROM events WHERE id = decode($1, 'hex')",
                          {hex(id)});
    if (!rows) return Error{rows.error()};
    rows_[id] = Row{};
    for (const PgRow& r : *rows) remember(r);
    return rows_[id];
  }

  Id remember(const PgRow& r) {
    Id id{};
    engine::from_hex(r.values[0], &id);
    Row& row = rows_[id];
    if (row.added >= 0) return id;  // this batch's own
    row.exists = true;
    row.live = row.live || r.values[2] == "t";
    if (std::find(deleted_.begin(), deleted_.end(), id) != deleted_.end()) row.live = false;
    engine::from_hex(r.values[1], &row.pubkey);
    return id;
  }

  // The new rows as statements, the events' INSERT first: INSERT … ON CONFLICT
  // DO NOTHING, as upstream inserts, so a row another node wrote meanwhile is
  // a duplicate, not an error (its id is missing from the RETURNING rows).
  void insert_events(std::vector<PgConnection::Statement>& out) {
    std::vector<std::string> ids, pubkeys, times, kinds, tags, contents, sigs, channels, deleted, d_tags, has_d, expires;
    std::vector<std::string> raw_ids, raws, m_pubkeys, m_ids, m_times, m_channels, m_kinds;
    for (const Added& a : added_) {
      const engine::Event& e = *a.event;
      ids.push_back(hex(e.id));
      pubkeys.push_back(hex(e.pubkey));
      times.push_back(std::to_string(e.created_at));
      kinds.push_back(std::to_string(e.kind));
      tags.emplace_back();
      engine::append_json_tags(tags.back(), e.tags);
      contents.push_back(e.content);
      sigs.push_back(engine::to_hex(e.sig.data(), e.sig.size()));
      channels.push_back(a.channel);
      deleted.push_back(a.deleted ? "t" : "f");
      const bool addressable = engine::kind_class(e.kind) == engine::KindClass::kAddressable;
      d_tags.emplace_back(addressable ? e.first_tag_value("d") : "");
      has_d.push_back(addressable ? "t" : "f");
      const std::optional<uint64_t> expires_at = engine::expiration_of(e);
      expires.push_back(expires_at ? std::to_string(std::min(*expires_at, kMaxPgEventTime)) : "-1");
      if (engine::serialize_event(e) != e.raw) {
        raw_ids.push_back(hex(e.id));
        raws.push_back(e.raw);
      }
      std::set<std::string> mentioned;  // one row per distinct valid p tag (§1.2 event_mentions)
      for (const engine::Tag& t : e.tags) {
        engine::Pubkey p;
        if (t.size() < 2 || t[0] != "p" || !engine::from_hex_any_case(t[1], p.data(), 32)) continue;
        if (!mentioned.insert(engine::to_hex(p)).second) continue;
        m_pubkeys.push_back(engine::to_hex(p));
        m_ids.push_back(hex(e.id));
        m_times.push_back(std::to_string(e.created_at));
        m_channels.push_back(a.channel);
        m_kinds.push_back(std::to_string(e.kind));
      }
    }
    out.push_back(
        {"INSERT INTO events (id, pubkey, created_at, kind, tags, content, sig, channel_id, deleted_at, d_tag, expires_at) "
         "SELECT decode(i, 'hex'), decode(p, 'hex'), to_timestamp(t), k, g::jsonb, c, decode(s, 'hex'), NULLIF(h, '')::uuid, "
         "CASE WHEN x THEN now() END, CASE WHEN hd THEN d END, CASE WHEN xe >= 0 THEN to_timestamp(xe) END "
         "FROM unnest($1::text[], $2::text[], $3::bigint[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], "
         "$9::bool[], $10::text[], $11::bool[], $12::bigint[]) AS n(i, p, t, k, g, c, s, h, x, d, hd, xe) "
         "ON CONFLICT DO NOTHING RETURNING encode(id, 'hex')",
         {text_array(ids), text_array(pubkeys), text_array(times), text_array(kinds), text_array(tags),
          text_array(contents), text_array(sigs), text_array(channels), text_array(deleted), text_array(d_tags),
          text_array(has_d), text_array(expires)}});
    if (!raws.empty()) {
      out.push_back({"INSERT INTO buzz_event_raw (id, raw) SELECT decode(i, 'hex'), w FROM unnest($1::text[], $2::text[]) "
                     "AS t(i, w) ON CONFLICT DO NOTHING",
                     {text_array(raw_ids), text_array(raws)}});
    }
    if (!m_ids.empty()) {
      out.push_back(
          {"INSERT INTO event_mentions (pubkey_hex, event_id, event_created_at, channel_id, event_kind) "
           "SELECT p, decode(i, 'hex'), to_timestamp(t), NULLIF(c, '')::uuid, k FROM "
           "unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::int[]) AS x(p, i, t, c, k) ON CONFLICT DO NOTHING",
           {text_array(m_pubkeys), text_array(m_ids), text_array(m_times), text_array(m_channels), text_array(m_kinds)}});
    }
  }

  PgConnection& pg_;
  std::unordered_map<Id, Row, engine::KeyBytesHash> rows_;
  std::map<std::string, std::optional<Version>> pointers_;
  std::vector<Added> added_;
  std::vector<Id> deleted_;
};

namespace {

using engine::WriteOutcome;
using engine::WriteResult;

std::string state_select(const std::string& where) {
  return "SELECT encode(key, 'hex'), encode(value, 'hex') FROM buzz_state WHERE tbl = $1 AND node = $2" + where + " ORDER BY key";
}

}  // namespace

engine::Result<std::unique_ptr<PgEventStore>> PgEventStore::open(const std::string& url, const std::string& node) {
  auto pg = PgConnection::connect(url, "buzz-serve");
  if (!pg) return Error{pg.error()};
  if (Status s = (*pg)->exec(kSetupLock); !s) return Error{s.error()};
  // One transaction (PostgreSQL's DDL is transactional): a start that fails
  // here leaves the database as it found it.
  auto set_up = [&pg]() -> Status {
    auto version = detect_schema(**pg);
    if (!version) return Error{version.error()};
    if (*version == SchemaVersion::kSeed) {
      return Error{"the database has the seed-era schema (no events.d_tag, no relay_members): "
                   "upgrade it with the original's migrations, or move it with `buzz migrate import`"};
    }
    if (Status s = (*pg)->exec("BEGIN"); !s) return s;
    if (*version == SchemaVersion::kEmpty) {
      if (Status s = (*pg)->exec(head_schema_sql()); !s) return Error{"creating the schema: " + s.error()};
    }
    if (Status s = (*pg)->exec(audit_schema_sql()); !s) return Error{"creating the audit table: " + s.error()};
    if (Status s = (*pg)->exec(event_index_sql()); !s) return Error{"creating the events indexes: " + s.error()};
    if (Status s = (*pg)->exec(serve_schema_sql()); !s) return Error{"creating the live store's tables: " + s.error()};
    return (*pg)->exec("COMMIT");
  };
  Status s = set_up();
  if (!s) (void)(*pg)->exec("ROLLBACK");
  (void)(*pg)->exec(kSetupUnlock);
  if (!s) return Error{s.error()};
  return std::unique_ptr<PgEventStore>(new PgEventStore(url, node));
}

Status PgEventStore::adopt_original_team_state() {
  auto pg = PgConnection::connect(url_, "buzz-serve");
  if (!pg) return Error{pg.error()};
  if (Status s = (*pg)->exec(kSetupLock); !s) return Error{s.error()};
  auto adopt = [&]() -> Status {
    auto marks = (*pg)->query("SELECT key FROM buzz_serve_meta WHERE key IN ('team_state_adopted', 'team_mirrored')");
    if (!marks) return Error{marks.error()};
    bool adopted = false, mirrored = false;
    for (const PgRow& r : *marks) (r.values[0] == "team_mirrored" ? mirrored : adopted) = true;
    if (adopted && mirrored) return {};
    std::vector<PgConnection::Statement> tx = {{"BEGIN"}};
    if (!adopted) {
      // The records and the marks in one transaction: all of them or none. They
      // came from the original's tables, which need not be written again.
      auto rows = original_team_state(**pg, *this, TeamTables::kAll);
      if (!rows) return Error{"adopting the team state: " + rows.error()};
      for (auto& st : state_statements(*rows, false)) tx.push_back(std::move(st));
      if (auto team = team_change_statement(*rows)) tx.push_back(std::move(*team));
      tx.push_back({"INSERT INTO buzz_serve_meta (key, value) VALUES ('team_state_adopted', now()::text)"});
    } else {
      // A database an earlier Buzz served, which kept the channels made while
      // serving in buzz_state only: they (and the workflows' channel_id) go to
      // the original's tables once.
      auto rows = mirrored_state(**pg);
      if (!rows) return Error{"writing the team to the original's tables: " + rows.error()};
      append_mirror(tx, *rows);
    }
    tx.push_back({"INSERT INTO buzz_serve_meta (key, value) VALUES ('team_mirrored', now()::text)"});
    tx.push_back({"COMMIT"});
    if (auto done = (*pg)->pipeline(tx); !done) {
      (void)(*pg)->exec("ROLLBACK");
      return Error{"adopting the team state: " + done.error()};
    }
    return {};
  };
  Status s = adopt();
  (void)(*pg)->exec(kSetupUnlock);
  return s;
}

engine::Result<std::vector<engine::StateWrite>> PgEventStore::mirrored_state(PgConnection& pg) const {
  using engine::StateTable;
  // The workflows without their runs and approvals (keys 'r…', 'a…'): only a workflow's row names a channel.
  auto rows = pg.query("SELECT tbl, encode(key, 'hex'), encode(value, 'hex') FROM buzz_state WHERE node = '' AND "
                       "(tbl IN ($1, $2) OR (tbl = $3 AND substr(key, 1, 1) = 'w'::bytea)) ORDER BY tbl, key",
                       {std::to_string(int(StateTable::kChannels)), std::to_string(int(StateTable::kChannelMembers)),
                        std::to_string(int(StateTable::kWorkflows))});
  if (!rows) return Error{rows.error()};
  std::vector<engine::StateWrite> out;
  for (const PgRow& r : *rows) out.push_back({StateTable(std::stoi(r.values[0])), unhex(r.values[1]), unhex(r.values[2])});
  return out;
}

engine::Result<std::vector<engine::StateWrite>> PgEventStore::original_channels() {
  return with_connection(conns_, [&](PgConnection& pg) { return original_team_state(pg, *this, TeamTables::kChannels); });
}

engine::Result<std::vector<WriteResult>> PgEventStore::write(std::span<const engine::WriteRequest> requests,
                                                             std::span<const engine::StateWrite> state,
                                                             const engine::WriteFinisher& finish) {
  auto conn = conns_.get();
  if (!conn) return Error{"error: database unavailable: " + conn.error()};
  PgConnection& pg = **conn;
  auto fail = [&pg](const std::string& why) -> engine::Result<std::vector<WriteResult>> {
    (void)pg.exec("ROLLBACK");
    return Error{"error: database write failed: " + why};
  };
  Batch batch(pg);
  if (Status s = batch.begin(requests); !s) return fail(s.error());
  std::vector<WriteResult> results;
  results.reserve(requests.size());
  for (const engine::WriteRequest& r : requests) {
    auto result = engine::apply_write_rules(batch, r);
    if (!result) return fail(result.error());
    results.push_back(std::move(*result));
  }
  auto raced = batch.flush();
  if (!raced) return fail(raced.error());
  for (size_t i = 0; i < requests.size(); ++i) {
    if (results[i].outcome == WriteOutcome::kStored && raced->count(requests[i].event->id)) {
      results[i] = WriteResult{WriteOutcome::kDuplicate, {}, {}};
    }
  }
  std::vector<engine::StateWrite> finished;
  if (finish) finish(results, finished);
  std::vector<engine::StateWrite> all(state.begin(), state.end());
  all.insert(all.end(), std::make_move_iterator(finished.begin()), std::make_move_iterator(finished.end()));
  // The state rows, the team version and COMMIT: one round trip.
  std::vector<PgConnection::Statement> tail = state_statements(all);
  if (auto team = team_change_statement(all)) tail.push_back(std::move(*team));
  tail.push_back({"COMMIT"});
  if (auto done = pg.pipeline(tail); !done) return fail(done.error());
  return results;
}

std::vector<PgConnection::Statement> PgEventStore::state_statements(std::span<const engine::StateWrite> writes,
                                                                     bool mirror) const {
  std::vector<PgConnection::Statement> out;
  if (writes.empty()) return out;
  // In order, so a later write of the same key wins: deletes and upserts one by one would
  // cost a round trip each; here the last value per key is kept and applied in two statements.
  std::map<std::tuple<std::string, std::string, std::string>, std::string> last;
  for (const engine::StateWrite& w : writes) last[{std::to_string(int(w.table)), node_of(w.table), hex(w.key)}] = hex(w.value);
  std::vector<std::string> put_t, put_n, put_k, put_v, del_t, del_n, del_k;
  for (const auto& [k, v] : last) {
    const auto& [t, n, key] = k;
    if (v.empty()) {
      del_t.push_back(t), del_n.push_back(n), del_k.push_back(key);
    } else {
      put_t.push_back(t), put_n.push_back(n), put_k.push_back(key), put_v.push_back(v);
    }
  }
  if (!del_k.empty()) {
    out.push_back({"DELETE FROM buzz_state s USING unnest($1::smallint[], $2::text[], $3::text[]) AS d(t, n, k) "
                   "WHERE s.tbl = d.t AND s.node = d.n AND s.key = decode(d.k, 'hex')",
                   {text_array(del_t), text_array(del_n), text_array(del_k)}});
  }
  if (!put_k.empty()) {
    out.push_back({"INSERT INTO buzz_state (tbl, node, key, value) SELECT t, n, decode(k, 'hex'), decode(v, 'hex') "
                   "FROM unnest($1::smallint[], $2::text[], $3::text[], $4::text[]) AS p(t, n, k, v) "
                   "ON CONFLICT (tbl, node, key) DO UPDATE SET value = EXCLUDED.value",
                   {text_array(put_t), text_array(put_n), text_array(put_k), text_array(put_v)}});
  }
  if (mirror) append_mirror(out, writes);
  return out;
}

void PgEventStore::append_mirror(std::vector<PgConnection::Statement>& out, std::span<const engine::StateWrite> writes) {
  // The channels and members first: a workflow's row names its channel's.
  for (PgConnection::Statement& s : team_mirror_statements(writes)) out.push_back(std::move(s));
  for (PgConnection::Statement& s : workflow_mirror_statements(writes)) out.push_back(std::move(s));
}

std::optional<PgConnection::Statement> PgEventStore::team_change_statement(std::span<const engine::StateWrite> writes) {
  std::set<std::string> channels;
  for (const engine::StateWrite& w : writes) {
    const bool team = w.table == engine::StateTable::kChannels || w.table == engine::StateTable::kChannelMembers;
    if (team && w.key.size() >= 36) channels.insert(w.key.substr(0, 36));  // a member's key: channel id + pubkey
  }
  if (channels.empty()) return std::nullopt;
  // The version row's lock is held to COMMIT: the next team change on any node
  // waits for it, so versions are handed out in commit order with no gap.
  return PgConnection::Statement{
      "WITH v AS (UPDATE buzz_serve_meta SET value = (value::bigint + 1)::text WHERE key = 'team_version' "
      "RETURNING value::bigint AS n) "
      "INSERT INTO buzz_team_changes (channel, version) SELECT c, v.n FROM unnest($1::text[]) AS c, v "
      "ON CONFLICT (channel) DO UPDATE SET version = EXCLUDED.version",
      {text_array({channels.begin(), channels.end()})}};
}

engine::Result<engine::TeamChanges> PgEventStore::team_changes(uint64_t since) {
  // One statement, one snapshot: the version and the channels changed up to it.
  auto rows = with_connection(conns_, [&](PgConnection& pg) {
    return pg.query("SELECT NULL, value::bigint FROM buzz_serve_meta WHERE key = 'team_version' "
                    "UNION ALL SELECT channel, version FROM buzz_team_changes WHERE version > $1",
                    {std::to_string(std::min<uint64_t>(since, INT64_MAX))});
  });
  if (!rows) return Error{rows.error()};
  engine::TeamChanges out;
  for (const PgRow& row : *rows) {
    if (row.nulls[0]) out.version = std::stoull(row.values[1]);
    else out.channels.push_back(row.values[0]);
  }
  return out;
}

const std::string& PgEventStore::node_of(engine::StateTable table) const {
  static const std::string shared;
  return table == engine::StateTable::kAuditPending ? node_ : shared;
}

bool PgEventStore::contains(const Id& id, uint16_t) {
  auto rows = with_connection(conns_, [&](PgConnection& pg) {
    return pg.query("SELECT 1 FROM events WHERE id = decode($1, 'hex') LIMIT 1", {hex(id)});
  });
  return rows && !rows->empty();
}

std::optional<engine::StoredEvent> PgEventStore::read_one(const Id& id, bool live_only) {
  auto rows = with_connection(conns_, [&](PgConnection& pg) {
    return pg.query(std::string(kEventSelect) + " WHERE e.id = decode($1, 'hex')" + (live_only ? " AND e.deleted_at IS NULL" : "") +
                        " ORDER BY e.deleted_at IS NULL DESC LIMIT 1",
                    {hex(id)});
  });
  if (!rows || rows->empty()) return std::nullopt;
  simdjson::dom::parser parser;
  auto row = read_row((*rows)[0], parser);
  if (!row) return std::nullopt;
  // An expired event reads as deleted: its removal is only waiting for the reaper.
  const std::optional<uint64_t> expires_at = engine::expiration_of(row->event);
  const bool hidden = row->deleted || (expires_at && engine::has_expired(*expires_at, engine::unix_now()));
  if (live_only && hidden) return std::nullopt;
  engine::StoredEvent out{std::move(row->event.raw), std::move(row->channel), row->event.pubkey, row->event.kind,
                          row->event.created_at, hidden};
  return out;
}

std::optional<std::string> PgEventStore::get(const Id& id) {
  auto e = read_one(id, true);
  if (!e) return std::nullopt;
  return std::move(e->raw);
}

std::optional<engine::StoredEvent> PgEventStore::lookup(const Id& id) { return read_one(id, false); }

Status PgEventStore::scan(const engine::Filter& filter, size_t page, size_t budget,
                          const std::function<bool(std::string_view, const engine::EventFields&)>& visit) {
  if (filter.matches_nothing()) return {};
  simdjson::dom::parser parser;
  std::optional<std::pair<uint64_t, std::string>> after;  // the last row seen: (created_at, id hex)
  const std::string now = std::to_string(engine::unix_now());
  while (budget > 0) {
    PgParams params;
    std::string sql = std::string(kEventSelect) + " WHERE " + filter_conditions(filter, params) + " AND " +
                      unexpired(params.add(now));
    if (after) {
      const std::string t = params.add(std::to_string(after->first));
      sql += " AND (e.created_at < to_timestamp(" + t + "::bigint) OR (e.created_at = to_timestamp(" + t +
             "::bigint) AND e.id > decode(" + params.add(after->second) + ", 'hex')))";
    }
    const size_t n = std::min(page, budget);
    sql += " ORDER BY e.created_at DESC, e.id ASC LIMIT " + std::to_string(n);
    auto rows = with_connection(conns_, [&](PgConnection& pg) { return pg.query(sql, params.values()); });
    if (!rows) return Error{"error: database read failed: " + rows.error()};
    for (const PgRow& r : *rows) {
      auto row = read_row(r, parser);
      if (!row) return Error{"error: " + row.error()};
      row->fields.assign(row->event, row->channel);
      if (filter.matches(row->fields) && !visit(row->event.raw, row->fields)) return {};
      after = {row->event.created_at, r.values[0]};
    }
    budget -= std::min(budget, rows->size());
    if (rows->size() < n) return {};
    page = std::min(page * 4, kScanPage);
  }
  return {};
}

Status PgEventStore::query(const engine::Filter& filter, const engine::QueryOptions& options, const engine::EventSink& sink) {
  const size_t limit = std::min<size_t>(options.limit, filter.limit.value_or(options.limit));
  if (limit == 0) return {};
  size_t sent = 0;
  return scan(filter, std::min(limit + 1, kScanPage), kQueryScanBudget, [&](std::string_view raw, const engine::EventFields& f) {
    if (options.accept && !options.accept(f)) return true;
    sink(raw, f);
    return ++sent < limit;
  });
}

Status PgEventStore::scan_kind(uint16_t kind, const engine::EventSink& sink) {
  engine::Filter f;
  f.kinds = std::vector<uint16_t>{kind};
  return scan(f, kScanPage, std::numeric_limits<size_t>::max(), [&](std::string_view raw, const engine::EventFields& fields) {
    sink(raw, fields);
    return true;
  });
}

Status PgEventStore::scan_all(const engine::Filter& filter, const engine::QueryOptions& options, size_t max_events,
                              const std::function<void(const engine::EventFields&)>& sink) {
  const uint64_t limit = filter.limit.value_or(UINT64_MAX);
  uint64_t n = 0;
  bool too_many = false;
  Status s = scan(filter, kScanPage, std::numeric_limits<size_t>::max(), [&](std::string_view, const engine::EventFields& f) {
    if (options.accept && !options.accept(f)) return true;
    if (n == max_events) return !(too_many = true);
    sink(f);
    return ++n < limit;
  });
  if (!s) return s;
  if (too_many) return Error{"blocked: more than " + std::to_string(max_events) + " events match, narrow the filter"};
  return {};
}

engine::Result<uint64_t> PgEventStore::count(std::span<const engine::Filter> filters, const engine::QueryOptions& options) {
  std::unordered_set<Id, engine::KeyBytesHash> seen;
  uint64_t n = 0;
  for (const engine::Filter& f : filters) {
    Status s = scan(f, kScanPage, kCountScanBudget, [&](std::string_view, const engine::EventFields& fields) {
      if (options.accept && !options.accept(fields)) return true;
      if (filters.size() == 1 || seen.insert(engine::id_of(fields)).second) ++n;
      return true;
    });
    if (!s) return Error{s.error()};
  }
  return n;
}

engine::Result<std::vector<engine::ExpiredEvent>> PgEventStore::expired(uint64_t now, size_t max) {
  auto rows = with_connection(conns_, [&](PgConnection& pg) {
    return pg.query("SELECT encode(id, 'hex'), encode(pubkey, 'hex'), kind, extract(epoch from created_at)::bigint, "
                    "extract(epoch from expires_at)::bigint, COALESCE(channel_id::text, '') FROM events "
                    "WHERE expires_at <= to_timestamp($1::bigint) ORDER BY expires_at LIMIT $2",
                    {std::to_string(std::min(now, kMaxPgEventTime)), std::to_string(max)});
  });
  if (!rows) return Error{"error: database read failed: " + rows.error()};
  std::vector<engine::ExpiredEvent> out;
  for (const PgRow& r : *rows) {
    engine::ExpiredEvent e;
    engine::from_hex(r.values[0], &e.id);
    engine::from_hex(r.values[1], &e.pubkey);
    e.kind = uint16_t(std::stoul(r.values[2]));
    e.created_at = std::stoull(r.values[3]);
    e.expires_at = std::stoull(r.values[4]);
    e.channel = r.values[5];
    out.push_back(std::move(e));
  }
  return out;
}

Status PgEventStore::erase_expired(std::span<const engine::ExpiredEvent> events, std::span<const engine::StateWrite> state) {
  auto conn = conns_.get();
  if (!conn) return Error{"error: database unavailable: " + conn.error()};
  PgConnection& pg = **conn;
  std::vector<std::string_view> ids;
  for (const engine::ExpiredEvent& e : events) ids.emplace_back(reinterpret_cast<const char*>(e.id.data()), 32);
  const std::string id_list = bytea_array(ids);
  // The rows and what hangs off them, with the audit's state rows: one transaction, one round trip.
  std::vector<PgConnection::Statement> statements{
      {"BEGIN"},
      {"DELETE FROM events WHERE id = ANY($1::bytea[])", {id_list}},
      {"DELETE FROM buzz_event_raw WHERE id = ANY($1::bytea[])", {id_list}},
      {"DELETE FROM event_mentions WHERE event_id = ANY($1::bytea[])", {id_list}},
  };
  std::vector<PgConnection::Statement> rows = state_statements(state);
  std::move(rows.begin(), rows.end(), std::back_inserter(statements));
  statements.push_back({"COMMIT"});
  if (auto done = pg.pipeline(statements); !done) {
    (void)pg.exec("ROLLBACK");
    return Error{"error: database write failed: " + done.error()};
  }
  return {};
}

std::optional<std::string> PgEventStore::get_state(engine::StateTable table, std::string_view key) {
  auto rows = with_connection(conns_, [&](PgConnection& pg) {
    return pg.query("SELECT encode(value, 'hex') FROM buzz_state WHERE tbl = $1 AND node = $2 AND key = decode($3, 'hex')",
                    {std::to_string(int(table)), node_of(table), hex(key)});
  });
  if (!rows || rows->empty()) return std::nullopt;
  return unhex((*rows)[0].values[0]);
}

Status PgEventStore::scan_state(engine::StateTable table, const std::function<void(std::string_view, std::string_view)>& visit) {
  return scan_state_prefix(table, {}, visit);
}

Status PgEventStore::scan_state_prefix(engine::StateTable table, std::string_view prefix,
                                       const std::function<void(std::string_view, std::string_view)>& visit) {
  auto rows = with_connection(conns_, [&](PgConnection& pg) {
    return pg.query(state_select(" AND key >= decode($3, 'hex') AND substr(key, 1, $4) = decode($3, 'hex')"),
                    {std::to_string(int(table)), node_of(table), hex(prefix), std::to_string(prefix.size())});
  });
  if (!rows) return Error{"error: database read failed: " + rows.error()};
  for (const PgRow& r : *rows) visit(unhex(r.values[0]), unhex(r.values[1]));
  return {};
}

Status PgEventStore::put_state(engine::StateTable table, std::string_view key, std::string_view value) {
  engine::StateWrite w{table, std::string(key), std::string(value)};
  return put_states({&w, 1});
}

Status PgEventStore::put_states(std::span<const engine::StateWrite> writes) {
  auto r = write({}, writes);
  if (!r) return Error{r.error()};
  return {};
}

Status PgEventStore::lock_team() {
  auto conn = conns_.get();
  if (!conn) return Error{"error: database unavailable: " + conn.error()};
  if (Status s = (*conn)->exec(kTeamLock); !s) return Error{"error: team lock: " + s.error()};
  return {};
}

void PgEventStore::unlock_team() {
  // A connection that went away took its lock with it.
  if (auto conn = conns_.get()) (void)(*conn)->exec(kTeamUnlock);
}

Status PgEventStore::with_table_lock(engine::StateTable table, const std::function<Status()>& section) {
  auto conn = conns_.get();
  if (!conn) return Error{"error: database unavailable: " + conn.error()};
  // The two-key form keeps these apart from the single-key locks above.
  const std::string key = std::to_string(kTableLockSpace) + ", " + std::to_string(int(table));
  if (Status s = (*conn)->exec("SELECT pg_advisory_lock(" + key + ")"); !s) return Error{"error: table lock: " + s.error()};
  Status result = section();
  // A connection that went away took its lock with it.
  (void)(*conn)->exec("SELECT pg_advisory_unlock(" + key + ")");
  return result;
}

Status PgEventStore::update_state(engine::StateTable table, std::string_view key, const engine::StateChange& change) {
  auto conn = conns_.get();
  if (!conn) return Error{"error: database unavailable: " + conn.error()};
  PgConnection& pg = **conn;
  auto fail = [&pg](const std::string& why) -> Status {
    (void)pg.exec("ROLLBACK");
    return Error{"error: database write failed: " + why};
  };
  const std::vector<std::string> where = {std::to_string(int(table)), node_of(table), hex(key)};
  if (Status s = pg.exec("BEGIN"); !s) return fail(s.error());
  auto rows = pg.query("SELECT encode(value, 'hex') FROM buzz_state WHERE tbl = $1 AND node = $2 AND key = decode($3, 'hex') FOR UPDATE",
                       where);
  if (!rows) return fail(rows.error());
  std::optional<std::string> current;
  if (!rows->empty()) current = unhex((*rows)[0].values[0]);
  if (std::optional<std::string> next = change(current)) {
    auto r = pg.query("INSERT INTO buzz_state (tbl, node, key, value) VALUES ($1, $2, decode($3, 'hex'), decode($4, 'hex')) "
                      "ON CONFLICT (tbl, node, key) DO UPDATE SET value = EXCLUDED.value",
                      {where[0], where[1], where[2], hex(*next)});
    if (!r) return fail(r.error());
  }
  if (Status s = pg.exec("COMMIT"); !s) return fail(s.error());
  return {};
}

Status PgEventStore::erase_state(engine::StateTable table, std::string_view from, std::string_view to) {
  auto r = with_connection(conns_, [&](PgConnection& pg) {
    return pg.query("DELETE FROM buzz_state WHERE tbl = $1 AND node = $2 AND key >= decode($3, 'hex') AND key < decode($4, 'hex')",
                    {std::to_string(int(table)), node_of(table), hex(from), hex(to)});
  });
  if (!r) return Error{"error: database write failed: " + r.error()};
  return {};
}

}  // namespace buzz::migrate
