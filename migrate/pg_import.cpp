// The import from PostgreSQL; see pg_import.h. One function per table group,
// in the order of docs/reference/compat-backends.md §1.4.
#include "migrate/pg_import.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <filesystem>
#include <fcntl.h>
#include <unistd.h>

#include "engine/api_tokens.h"
#include "engine/audit_entry.h"
#include "engine/audit_segment.h"
#include "engine/audit_verify.h"
#include "engine/channel.h"
#include "engine/delivery_log.h"
#include "engine/event_parse.h"
#include "engine/event_record.h"
#include "engine/relay_members.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "engine/thread_row.h"
#include "engine/user_record.h"
#include "engine/workflow_records.h"
#include "migrate/event_loader.h"
#include "migrate/pg_audit_rows.h"
#include "migrate/pg_connection.h"
#include "migrate/pg_event_row.h"
#include "migrate/pg_schema.h"
#include "migrate/pg_workflow_rows.h"

namespace buzz::migrate {
namespace {

using engine::Error;
using engine::Status;

struct ImportContext {
  PgConnection& pg;
  engine::RocksDatabase* db;  // the data directory's (relay members), null when adopting
  engine::EventStore& store;
  Progress& progress;
  const PgImportOptions& options;
  bool head = true;
  ImportSummary summary;
  std::vector<engine::StateWrite>* collect = nullptr;  // set: the state rows are gathered here, not written
};

// One COPY row's fields, with the table's name for errors.
struct Fields {
  std::vector<std::string> v;
  std::vector<bool> null;
  uint64_t u64(size_t i) const { return null[i] ? 0 : std::strtoull(v[i].c_str(), nullptr, 10); }
  template <size_t N>
  std::array<uint8_t, N> key(size_t i) const {
    std::array<uint8_t, N> out{};
    if (!null[i]) engine::hex_decode(v[i], out.data(), N);
    return out;
  }
};

// Streams `select` through COPY; `row` returns an error to stop.
Status each_row(ImportContext& cx, const std::string& table, const std::string& select,
                const std::function<Status(const Fields&)>& row) {
  Fields f;
  Status inner;
  Status s = cx.pg.copy_out("COPY (" + select + ") TO STDOUT", [&](std::string_view line) {
    if (!copy_text::split(line, f.v, f.null)) return bool(inner = Error{"table " + table + ": unreadable COPY line"});
    inner = row(f);
    return bool(inner);
  });
  if (!inner) return inner;
  if (!s) return Error{"table " + table + ": " + s.error()};
  return {};
}

Status put_batch(ImportContext& cx, std::vector<engine::StateWrite>& writes, bool force) {
  if (cx.collect) {
    std::move(writes.begin(), writes.end(), std::back_inserter(*cx.collect));
    writes.clear();
    return {};
  }
  if (writes.empty() || (!force && writes.size() < cx.options.batch_rows)) return {};
  Status s = cx.store.put_states(writes);
  writes.clear();
  return s;
}

// Copies one upstream table into a state table: `to_state` turns a row into
// the (key, value) stored, or an error naming the row.
using StateRow = std::pair<std::string, std::string>;
Status import_state(ImportContext& cx, const std::string& table, const std::string& select, engine::StateTable target,
                    uint64_t& count, const std::function<engine::Result<StateRow>(const Fields&)>& to_state) {
  cx.progress.begin(table, 0);
  std::vector<engine::StateWrite> writes;
  Status s = each_row(cx, table, select, [&](const Fields& f) -> Status {
    auto row = to_state(f);
    if (!row) return Error{"table " + table + ", row " + row.error()};
    writes.push_back({target, std::move(row->first), std::move(row->second)});
    count++;
    cx.progress.advance(1);
    return put_batch(cx, writes, false);
  });
  if (s) s = put_batch(cx, writes, true);
  cx.progress.end();
  return s;
}

// "(epoch of col)::bigint", NULL-safe.
std::string epoch(const std::string& col) { return "extract(epoch from " + col + ")::bigint"; }

// --- events -------------------------------------------------------------------

Status import_events(ImportContext& cx) {
  // Our exports keep an event's JSON in buzz_event_raw only when the columns do
  // not rebuild it byte for byte: usually none, and then no row needs the join.
  auto raw_table = cx.pg.query("SELECT to_regclass('buzz_event_raw') IS NOT NULL");
  if (!raw_table) return Error{raw_table.error()};
  bool has_raw = (*raw_table)[0].values[0] == "t";
  if (has_raw) {
    auto any = cx.pg.query("SELECT EXISTS (SELECT 1 FROM buzz_event_raw)");
    if (!any) return Error{any.error()};
    has_raw = (*any)[0].values[0] == "t";
  }
  cx.progress.begin("events", 0);
  EventLoader loader(cx.store, cx.progress, cx.options.batch_rows, cx.options.verify_threads);
  simdjson::dom::parser parser;
  // Deleted rows first (each stored deleted), then live ones, oldest first: the
  // live version of a replaceable key then always finds the others deleted,
  // and a kind 5 finds its target stored. Two statements, so the live rows
  // (nearly all of them) stream in the primary key's order as PostgreSQL reads
  // them, with only equal created_at sorted by id, instead of waiting for a
  // sort of the whole table before the first row arrives.
  const std::string select =
      "SELECT encode(e.id, 'hex'), encode(e.pubkey, 'hex'), " + epoch("e.created_at") +
      ", e.kind, e.tags::text, e.content, encode(e.sig, 'hex'), e.channel_id::text, e.deleted_at IS NOT NULL, " +
      (has_raw ? "r.raw FROM events e LEFT JOIN buzz_event_raw r ON r.id = e.id" : "NULL FROM events e");
  auto row = [&](const Fields& f) -> Status {
    const std::string label = "table events, row id=" + f.v[0];
    EventColumns cols{f.v[0], f.v[1], f.v[2], f.v[3], f.v[4], f.v[5], f.v[6], f.null[9] ? nullptr : &f.v[9]};
    auto e = event_from_columns(cols, parser);
    if (!e) return Error{label + ": " + e.error()};
    return loader.add(std::move(*e), f.null[7] ? std::string() : f.v[7], f.v[8] == "t", label);
  };
  Status s = each_row(cx, "events", select + " WHERE e.deleted_at IS NOT NULL ORDER BY e.created_at, e.id DESC", row);
  // Planner settings for this statement only: the index-ordered plan over a sort.
  if (s) s = cx.pg.exec("SET enable_sort = off");
  if (s) s = each_row(cx, "events", select + " WHERE e.deleted_at IS NULL ORDER BY e.created_at, e.id DESC", row);
  if (s) s = cx.pg.exec("RESET enable_sort");
  if (s) s = loader.finish();
  if (!s) return s;
  cx.summary.events = loader.stored();
  cx.summary.events_not_stored = loader.not_stored();
  cx.summary.events_deleted = loader.deleted();
  cx.progress.end();
  return {};
}

// --- team state ---------------------------------------------------------------

Status import_channels(ImportContext& cx) {
  const std::string ttl = cx.head ? "ttl_seconds, " + epoch("ttl_deadline") : "NULL, NULL";
  return import_state(
      cx, "channels",
      "SELECT id::text, name, channel_type::text, visibility::text, description, canvas, encode(created_by, 'hex'), " +
          epoch("created_at") + ", " + epoch("archived_at") + ", " + epoch("deleted_at") + ", topic, encode(topic_set_by, 'hex'), " +
          epoch("topic_set_at") + ", purpose, encode(purpose_set_by, 'hex'), " + epoch("purpose_set_at") +
          ", encode(participant_hash, 'hex'), " + ttl + " FROM channels ORDER BY id",
      engine::StateTable::kChannels, cx.summary.channels, [&](const Fields& f) -> engine::Result<StateRow> {
        engine::Channel c;
        c.id = f.v[0];
        c.name = f.v[1];
        auto type = engine::parse_channel_type(f.v[2]);
        auto vis = engine::parse_visibility(f.v[3]);
        if (!type || !vis) return Error{"id=" + c.id + ": unknown channel_type or visibility"};
        c.type = *type;
        c.visibility = *vis;
        c.description = f.v[4];
        c.canvas = f.v[5];
        c.created_by = f.key<32>(6);
        c.created_at = f.u64(7);
        c.archived_at = f.u64(8);
        c.deleted_at = f.u64(9);
        c.topic = f.v[10];
        c.topic_set_by = f.key<32>(11);
        c.topic_set_at = f.u64(12);
        c.purpose = f.v[13];
        c.purpose_set_by = f.key<32>(14);
        c.purpose_set_at = f.u64(15);
        c.participant_hash = f.v[16];
        c.ttl_seconds = uint32_t(f.u64(17));
        c.ttl_deadline = f.u64(18);
        return StateRow{c.id, engine::encode_channel(c)};
      });
}

Status import_members(ImportContext& cx) {
  uint64_t join_seq = 0;  // join order: joined_at to the microsecond (pg_export.cpp), then pubkey
  return import_state(cx, "channel_members",
                      "SELECT channel_id::text, encode(pubkey, 'hex'), role::text, " + epoch("joined_at") +
                          ", encode(invited_by, 'hex'), " + epoch("removed_at") + ", encode(removed_by, 'hex'), " +
                          epoch("hidden_at") + " FROM channel_members ORDER BY joined_at, channel_id, pubkey",
                      engine::StateTable::kChannelMembers, cx.summary.members, [&](const Fields& f) -> engine::Result<StateRow> {
                        engine::ChannelMember m;
                        m.pubkey = f.key<32>(1);
                        auto role = engine::parse_channel_role(f.v[2]);
                        if (!role) return Error{"channel_id=" + f.v[0] + " pubkey=" + f.v[1] + ": unknown role"};
                        m.role = *role;
                        m.joined_at = f.u64(3);
                        m.join_seq = ++join_seq;
                        m.invited_by = f.key<32>(4);
                        m.removed_at = f.u64(5);
                        m.removed_by = f.key<32>(6);
                        m.hidden_at = f.u64(7);
                        return StateRow{engine::member_key(f.v[0], m.pubkey), engine::encode_member(m)};
                      });
}

Status import_users(ImportContext& cx) {
  return import_state(cx, "users",
                      "SELECT encode(pubkey, 'hex'), encode(agent_owner_pubkey, 'hex'), channel_add_policy::text, "
                      "(extract(epoch from updated_at) * 1000)::bigint FROM users ORDER BY pubkey",
                      engine::StateTable::kUsers, cx.summary.users, [&](const Fields& f) -> engine::Result<StateRow> {
                        engine::UserRecord u;
                        if (!f.null[1]) u.agent_owner = f.key<32>(1);
                        auto policy = engine::parse_add_policy(f.v[2]);
                        if (!policy) return Error{"pubkey=" + f.v[0] + ": unknown channel_add_policy"};
                        u.channel_add_policy = *policy;
                        // The export keeps when a policy was set in updated_at (pg_export.cpp).
                        u.policy_at_ms = *policy == engine::AddPolicy::kAnyone ? 0 : f.u64(3);
                        const auto pk = f.key<32>(0);
                        return StateRow{std::string(reinterpret_cast<const char*>(pk.data()), 32), engine::encode_user_record(u)};
                      });
}

// Upstream keeps no participant list: it is rebuilt from the replies, as the
// relay builds it (each reply's author joins its parent's and its root's list).
Status import_threads(ImportContext& cx) {
  cx.progress.begin("thread_metadata", 0);
  std::map<engine::Id, engine::ThreadRow> rows;
  Status s = each_row(cx, "thread_metadata",
                      "SELECT encode(event_id, 'hex'), encode(parent_event_id, 'hex'), encode(root_event_id, 'hex'), depth, "
                      "reply_count, descendant_count, " + epoch("last_reply_at") + ", broadcast FROM thread_metadata",
                      [&](const Fields& f) -> Status {
                        engine::ThreadRow& row = rows[f.key<32>(0)];
                        row.parent = f.key<32>(1);
                        row.root = f.key<32>(2);
                        row.depth = uint32_t(f.u64(3));
                        row.reply_count = f.u64(4);
                        row.descendant_count = f.u64(5);
                        row.last_reply_at = f.u64(6);
                        row.broadcast = f.v[7] == "t";
                        cx.summary.threads++;
                        cx.progress.advance(1);
                        return {};
                      });
  if (!s) return s;
  struct Reply {
    uint64_t created_at;
    engine::Pubkey author;
    engine::Id parent, root;
  };
  std::vector<Reply> replies;
  for (const auto& [id, row] : rows) {
    if (row.depth == 0) continue;
    if (auto e = cx.store.lookup(id)) replies.push_back({e->created_at, e->pubkey, row.parent, row.root});
  }
  std::stable_sort(replies.begin(), replies.end(), [](const Reply& a, const Reply& b) { return a.created_at < b.created_at; });
  for (const Reply& r : replies) {
    if (auto it = rows.find(r.parent); it != rows.end()) it->second.add_participant(r.author);
    if (r.root == r.parent) continue;
    if (auto it = rows.find(r.root); it != rows.end()) it->second.add_participant(r.author);
  }
  std::vector<engine::StateWrite> writes;
  for (const auto& [id, row] : rows) {
    writes.push_back({engine::StateTable::kThreads, std::string(engine::thread_key(id)), row.encode()});
    if (Status st = put_batch(cx, writes, false); !st) return st;
  }
  cx.progress.end();
  return put_batch(cx, writes, true);
}

// A JSON array of strings, as api_tokens.scopes and channel_ids hold them.
bool string_array(simdjson::dom::parser& parser, const std::string& json, std::vector<std::string>* out) {
  simdjson::dom::array a;
  if (parser.parse(json).get(a)) return false;
  for (simdjson::dom::element e : a) {
    std::string_view s;
    if (e.get(s)) return false;
    out->emplace_back(s);
  }
  return true;
}

Status import_tokens(ImportContext& cx) {
  simdjson::dom::parser parser;
  return import_state(cx, "api_tokens",
                      "SELECT id::text, encode(token_hash, 'hex'), encode(owner_pubkey, 'hex'), name, scopes::text, "
                      "channel_ids::text, " + epoch("created_at") + ", " + epoch("expires_at") + ", " + epoch("last_used_at") +
                          ", " + epoch("revoked_at") + ", encode(revoked_by, 'hex'), created_by_self_mint FROM api_tokens ORDER BY id",
                      engine::StateTable::kApiTokens, cx.summary.tokens, [&](const Fields& f) -> engine::Result<StateRow> {
                        engine::ApiToken t;
                        t.id = f.v[0];
                        t.hash = f.key<32>(1);
                        t.owner = f.key<32>(2);
                        t.name = f.v[3];
                        if (!string_array(parser, f.v[4], &t.scopes)) return Error{"id=" + t.id + ": scopes is not an array of strings"};
                        if (!f.null[5]) {
                          t.channels.emplace();
                          if (!string_array(parser, f.v[5], &*t.channels)) return Error{"id=" + t.id + ": channel_ids is not an array of strings"};
                        }
                        t.created_at = f.u64(6);
                        t.expires_at = f.u64(7);
                        t.last_used_at = f.u64(8);
                        t.revoked_at = f.u64(9);
                        t.revoked_by = f.key<32>(10);
                        t.self_minted = f.v[11] == "t";
                        return StateRow{std::string(reinterpret_cast<const char*>(t.hash.data()), 32), engine::encode_token(t)};
                      });
}

Status import_relay_members(ImportContext& cx) {
  if (!cx.head) return {};  // the seed era had none
  cx.progress.begin("relay_members", 0);
  engine::RelayMembers members(*cx.db);
  Status s = each_row(cx, "relay_members",
                      "SELECT pubkey, role, added_by, " + epoch("created_at") + ", " + epoch("updated_at") +
                          " FROM relay_members ORDER BY created_at, pubkey",
                      [&](const Fields& f) -> Status {
                        engine::RelayMember m;
                        auto role = engine::parse_relay_role(f.v[1]);
                        if (!engine::from_hex(f.v[0], &m.pubkey) || !role) {
                          return Error{"table relay_members, row pubkey=" + f.v[0] + ": bad pubkey or role"};
                        }
                        m.role = *role;
                        engine::Pubkey by;
                        if (!f.null[2] && engine::from_hex(f.v[2], &by)) m.added_by = by;
                        m.created_at = f.u64(3);
                        m.updated_at = f.u64(4);
                        cx.summary.relay_members++;
                        cx.progress.advance(1);
                        return members.put(m);
                      });
  cx.progress.end();
  return s;
}

// --- deliveries (receipts) ------------------------------------------------------

// delivery_log's rows of members' sessions (method websocket, subscription_id
// a pubkey: what the live store writes, pg_delivery_log.h) into
// <data-dir>/deliveries, under their event's day. Others (an original's webhook
// rows, which it never writes) and rows of events not in `events` are left out.
Status import_deliveries(ImportContext& cx) {
  auto table = cx.pg.query("SELECT to_regclass('delivery_log') IS NOT NULL");
  if (!table) return Error{"table delivery_log: " + table.error()};
  if (table->empty() || (*table)[0].values[0] != "t") return {};
  cx.progress.begin("delivery_log", 0);
  std::unique_ptr<engine::RocksDeliveryLog> log;
  std::vector<engine::Delivery> batch;
  auto flush = [&]() -> Status {
    if (batch.empty()) return {};
    if (!log) {
      auto opened = engine::RocksDeliveryLog::open(cx.options.data_dir + "/deliveries");
      if (!opened) return Error{opened.error()};
      log = std::move(*opened);
    }
    Status s = log->record(batch);
    batch.clear();
    return s;
  };
  Status s = each_row(cx, "delivery_log",
                      "SELECT DISTINCT d.subscription_id, encode(d.event_id, 'hex'), " + epoch("e.created_at") +
                          " FROM delivery_log d JOIN events e ON e.id = d.event_id"
                          " WHERE d.method = 'websocket' ORDER BY 2, 1",
                      [&](const Fields& f) -> Status {
                        engine::Delivery d;
                        if (f.null[0] || !engine::from_hex(f.v[0], &d.member) || !engine::from_hex(f.v[1], &d.event)) {
                          return {};
                        }
                        d.day = uint32_t(f.u64(2) / engine::kSecondsPerDay);
                        batch.push_back(d);
                        cx.summary.deliveries++;
                        cx.progress.advance(1);
                        return batch.size() >= cx.options.batch_rows ? flush() : Status{};
                      });
  if (s) s = flush();
  cx.progress.end();
  return s;
}

// --- workflows, their runs and approvals ------------------------------------------

// A table's rows as records written one by one through `put`.
template <class Record>
Status import_records(ImportContext& cx, const std::string& table, const std::string& select, uint64_t& count,
                      engine::Result<Record> (*from_row)(const std::vector<std::string>&, const std::vector<bool>&),
                      const std::function<Status(const Record&)>& put) {
  cx.progress.begin(table, 0);
  Status s = each_row(cx, table, select, [&](const Fields& f) -> Status {
    auto record = from_row(f.v, f.null);
    if (!record) return Error{"table " + table + ", row " + record.error()};
    if (Status st = put(*record); !st) return Error{"table " + table + ": " + st.error()};
    count++;
    cx.progress.advance(1);
    return {};
  });
  cx.progress.end();
  return s;
}

Status import_workflows(ImportContext& cx) {
  if (!cx.head) return {};  // the seed era stored none (its engine never wrote a run)
  engine::WorkflowTables tables(cx.store);
  Status s = import_records<engine::WorkflowRecord>(cx, "workflows", workflows_select(), cx.summary.workflows,
                                                    workflow_from_row,
                                                    [&](const auto& w) { return tables.put_workflow(w); });
  if (s) {
    s = import_records<engine::RunRecord>(cx, "workflow_runs", workflow_runs_select(), cx.summary.workflow_runs,
                                          run_from_row, [&](const auto& r) { return tables.put_run(r); });
  }
  if (s) {
    s = import_records<engine::ApprovalRecord>(cx, "workflow_approvals", workflow_approvals_select(),
                                               cx.summary.workflow_approvals, approval_from_row,
                                               [&](const auto& a) { return tables.put_approval(a); });
  }
  return s;
}

// --- audit log (docs/reference/audit.md §8.9) ------------------------------------------------

// Frames appended to one segment file written aside, then moved into place.
Status import_audit(ImportContext& cx) {
  const std::string dir = cx.options.data_dir + "/audit";
  const std::string aside = cx.options.data_dir + "/audit.import";
  std::error_code ec;
  if (std::filesystem::exists(dir, ec)) {
    auto segments = engine::list_segments(dir);
    if (segments && !segments->empty()) {
      return Error{"the data directory already has an audit log (" + dir + "); import into a fresh data directory"};
    }
  }
  std::filesystem::remove_all(aside, ec);
  std::filesystem::create_directories(aside, ec);
  cx.progress.begin("audit_log", 0);
  std::string frames;
  std::string prev(engine::kAuditGenesisHash);
  uint64_t expected = 1;
  Status s = each_audit_row(cx.pg, "ORDER BY seq", {}, [&](engine::AuditEntry& e, int64_t micros) -> Status {
    const std::string label = "table audit_log, row seq=" + std::to_string(e.seq);
    if (e.seq != expected) return Error{label + ": seq gap, expected " + std::to_string(expected)};
    if (e.prev_hash != prev) return Error{label + ": prev_hash does not link to seq " + std::to_string(e.seq - 1)};
    if (engine::audit_hash(e) != e.hash) {
      if (!recover_nanos(e, micros)) return Error{label + ": hash mismatch (the row is not what was hashed)"};
      cx.summary.audit_recovered++;
    }
    engine::append_frame(frames, engine::FrameType::kEntry, engine::encode_audit_payload(e));
    prev = e.hash;
    ++expected;
    cx.summary.audit_entries++;
    cx.progress.advance(1);
    return {};
  });
  if (!s) return s;
  if (cx.summary.audit_entries) {
    engine::SegmentHeader header;
    header.first_seq = 1;
    auto path = engine::create_segment(aside, header);
    if (!path) return Error{path.error()};
    int fd = ::open(path->c_str(), O_WRONLY);
    if (fd < 0) return Error{"cannot open " + *path};
    s = engine::write_at(fd, frames, engine::kSegmentHeaderBytes);
    if (s && ::fdatasync(fd) != 0) s = Error{"fdatasync failed on " + *path};
    ::close(fd);
    if (!s) return s;
  }
  std::filesystem::remove_all(dir, ec);
  std::filesystem::rename(aside, dir, ec);
  if (ec) return Error{"cannot move " + aside + " to " + dir + ": " + ec.message()};
  cx.progress.end();
  return engine::fsync_dir(cx.options.data_dir);
}

}  // namespace

engine::Result<std::vector<engine::StateWrite>> original_team_state(PgConnection& pg, engine::EventStore& store,
                                                                    TeamTables tables) {
  Progress quiet(Progress::Mode::kQuiet);
  PgImportOptions options;
  std::vector<engine::StateWrite> rows;
  ImportContext cx{pg, nullptr, store, quiet, options, true, {}, &rows};
  std::vector<Status (*)(ImportContext&)> steps = {import_channels, import_members};
  if (tables == TeamTables::kAll) steps = {import_users, import_channels, import_members, import_threads, import_tokens};
  for (Status (*step)(ImportContext&) : steps) {
    if (Status s = step(cx); !s) return Error{"reading the team tables: " + s.error()};
  }
  return rows;
}

engine::Result<ImportSummary> import_from_postgres(const PgImportOptions& options, Progress& progress) {
  auto pg = PgConnection::connect(options.url);
  if (!pg) return Error{pg.error()};
  auto version = detect_schema(**pg);
  if (!version) return Error{version.error()};
  if (*version == SchemaVersion::kEmpty) return Error{"the database holds no Buzz schema (no events table)"};
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  auto db = engine::RocksDatabase::open(options.data_dir + "/db", engine::DatabaseOptions{});
  if (!db) return Error{db.error()};
  engine::RocksEventStore store(**db);
  // One snapshot for every table, so rows written meanwhile cannot tear the copy.
  if (Status s = (*pg)->exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); !s) return Error{s.error()};
  ImportContext cx{**pg, db->get(), store, progress, options, true, {}};
  cx.head = *version == SchemaVersion::kHead;
  cx.summary.schema = cx.head ? "head" : "seed";
  for (Status (*step)(ImportContext&) : {import_users, import_channels, import_members, import_events, import_threads,
                                    import_tokens, import_relay_members, import_workflows, import_deliveries,
                                    import_audit}) {
    if (Status s = step(cx); !s) return Error{s.error()};
  }
  (void)(*pg)->exec("COMMIT");
  // The writes went to the WAL without waiting for the disk (as the relay's
  // do); one sync at the end makes the import durable before it says so.
  if (rocksdb::Status st = (*db)->db()->SyncWAL(); !st.ok()) return Error{"syncing the store: " + st.ToString()};
  return cx.summary;
}

}  // namespace buzz::migrate
