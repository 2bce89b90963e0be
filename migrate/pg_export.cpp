// The export into PostgreSQL; see pg_export.h. One function per step, in the
// foreign-key load order of docs/reference/compat-backends.md §1.4.
#include "migrate/pg_export.h"

#include <simdjson.h>

#include <atomic>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "engine/api_tokens.h"
#include "engine/audit_verify.h"
#include "engine/canonical.h"
#include "engine/delivery_log.h"
#include "engine/channel.h"
#include "engine/clock.h"
#include "engine/event_parse.h"
#include "engine/event_record.h"
#include "engine/json_text.h"
#include "engine/kinds.h"
#include "engine/relay_members.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "engine/thread_row.h"
#include "engine/user_record.h"
#include "engine/workflow_records.h"
#include "migrate/copy_binary_row.h"
#include "migrate/copy_row.h"
#include "migrate/pg_delivery_log.h"
#include "migrate/pg_event_row.h"
#include "migrate/pg_schema.h"
#include "migrate/pg_team_rows.h"
#include "migrate/pg_workflow_rows.h"
#include "migrate/record_split.h"
#include "migrate/step_writer.h"

namespace buzz::migrate {
namespace {

using engine::Error;
using engine::Status;

std::string hex_label(std::string_view name, const uint8_t* p, size_t n) {
  return std::string(name) + "=" + engine::to_hex(p, n);
}

// A UUID's 16 bytes as BYTEA (audit_log.channel_id): its hex without hyphens.
std::string uuid_hex(std::string_view uuid) {
  std::string out;
  for (char c : uuid) {
    if (c != '-') out.push_back(c);
  }
  return out;
}

// Each batch's commit returns before PostgreSQL has flushed it to disk (a
// flush took ~50 ms here, for each of dozens of batches): a crash of the
// database then loses the last batches whole, their progress rows with them,
// and a rerun sends them again. The export's last commit waits for the disk,
// and with it every earlier one, so an export that reports success is durable.
constexpr const char* kExportSessionSql = "SET synchronous_commit = off";

// What one export needs at hand.
struct ExportContext {
  PgConnection& pg;
  std::string url;  // for a second connection (the index builds)
  engine::RocksDatabase& db;
  engine::RocksEventStore& store;
  Progress& progress;
  size_t batch_rows;
  std::string data_dir;
  uint64_t now = engine::unix_now();
  ExportSummary summary;
};

// Runs one step unless a previous run finished it; `body` gets the resume key.
template <class Body>
Status run_step(ExportContext& cx, const std::string& step, std::vector<std::string> tables, Body body) {
  StepWriter w(cx.pg, step, std::move(tables), cx.progress, cx.batch_rows);
  auto resume = w.resume();
  if (!resume) return Error{resume.error()};
  cx.progress.begin(step, 0);
  if (!*resume) {
    cx.progress.end("done by an earlier run");
    return {};
  }
  if (Status s = body(w, **resume); !s) return s;
  if (Status s = w.finish(); !s) return s;
  cx.progress.end((*resume)->empty() ? "" : "resumed");
  return {};
}

// --- users --------------------------------------------------------------------

struct UserRow {
  engine::UserRecord record;
  bool has_record = false;
  std::string display_name, avatar_url, about, nip05;
  engine::Id profile_event{};
  uint64_t profile_at = 0;
};

// Every user: those REST knows, the authors of profiles, and the owners that
// api_tokens and users.agent_owner_pubkey point at (stub rows, §1.4).
engine::Result<std::map<engine::Pubkey, UserRow>> collect_users(ExportContext& cx) {
  std::map<engine::Pubkey, UserRow> users;
  std::string bad;
  Status s = cx.store.scan_state(engine::StateTable::kUsers, [&](std::string_view key, std::string_view value) {
    engine::Pubkey pk;
    engine::UserRecord rec;
    if (key.size() != 32 || !engine::decode_user_record(value, &rec)) return void(bad = "users");
    std::memcpy(pk.data(), key.data(), 32);
    users[pk].record = rec;
    users[pk].has_record = true;
    if (rec.agent_owner) users[*rec.agent_owner];
  });
  if (!s) return Error{s.error()};
  s = cx.store.scan_state(engine::StateTable::kApiTokens, [&](std::string_view, std::string_view value) {
    engine::ApiToken t;
    if (engine::decode_token(value, &t)) users[t.owner];
  });
  if (!s) return Error{s.error()};
  auto workflows = engine::WorkflowTables(cx.store).workflows();  // workflows.owner_pubkey too
  if (!workflows) return Error{workflows.error()};
  for (const engine::WorkflowRecord& w : *workflows) users[w.owner];
  // Kind 0 projection (§1.2 users): newest first, so the first seen per author wins.
  simdjson::dom::parser parser;
  s = cx.store.scan_kind(0, [&](std::string_view raw, const engine::EventFields& f) {
    engine::Pubkey pk;
    std::memcpy(pk.data(), f.pubkey, 32);
    UserRow& u = users[pk];
    if (u.profile_at) return;
    auto e = engine::parse_event_json(raw);
    if (!e) return;
    u.profile_at = e->created_at ? e->created_at : 1;
    u.profile_event = e->id;
    simdjson::dom::object obj;
    if (parser.parse(e->content).get(obj)) return;
    auto field = [&](const char* name) {
      std::string_view v;
      return obj[name].get(v) ? std::string() : std::string(v);
    };
    u.display_name = field("display_name");
    u.avatar_url = field("picture");
    u.about = field("about");
    u.nip05 = field("nip05");
  });
  if (!s) return Error{s.error()};
  // nip05_handle is unique upstream: the earliest profile keeps a handle.
  std::map<std::string, std::pair<uint64_t, engine::Pubkey>> claims;
  for (auto& [pk, u] : users) {
    if (u.nip05.empty()) continue;
    auto [it, fresh] = claims.try_emplace(u.nip05, u.profile_at, pk);
    if (!fresh && u.profile_at < it->second.first) it->second = {u.profile_at, pk};
  }
  for (auto& [pk, u] : users) {
    if (!u.nip05.empty() && claims[u.nip05].second != pk) u.nip05.clear();
  }
  if (!bad.empty()) return Error{"unreadable record in the data directory's " + bad + " table"};
  return users;
}

Status export_users(ExportContext& cx) {
  auto users = collect_users(cx);
  if (!users) return Error{users.error()};
  Status s = run_step(cx, "users",
                      {"users (pubkey, nip05_handle, display_name, avatar_url, about, created_at, updated_at, "
                       "metadata_event_id, channel_add_policy)"},
                      [&](StepWriter& w, const std::string& after) -> Status {
                        for (const auto& [pk, u] : *users) {
                          std::string_view key(reinterpret_cast<const char*>(pk.data()), 32);
                          if (!after.empty() && key <= after) continue;
                          CopyRow r(w.row(0, hex_label("pubkey", pk.data(), 32)));
                          r.key(pk).text_or_null(u.nip05).text_or_null(u.display_name).text_or_null(u.avatar_url);
                          r.text_or_null(u.about).time(cx.now);
                          // updated_at carries when the add policy was set (0: never).
                          u.record.policy_at_ms ? r.time_us(u.record.policy_at_ms / 1000, uint32_t(u.record.policy_at_ms % 1000) * 1000) : r.time(cx.now);
                          u.profile_at ? r.key(u.profile_event) : r.null();
                          r.text(engine::add_policy_name(u.record.channel_add_policy));
                          cx.summary.users++;
                          if (Status st = w.item_done(key); !st) return st;
                        }
                        return {};
                      });
  if (!s) return s;
  // Second pass (§1.4): the owner links, now that every owner row exists. Idempotent.
  std::string sql = "BEGIN;";
  for (const auto& [pk, u] : *users) {
    if (!u.record.agent_owner) continue;
    sql += "UPDATE users SET agent_owner_pubkey = decode('" + engine::to_hex(*u.record.agent_owner) +
           "', 'hex') WHERE pubkey = decode('" + engine::to_hex(pk) + "', 'hex');";
  }
  if (Status st = cx.pg.exec(sql + "COMMIT;"); !st) {
    (void)cx.pg.exec("ROLLBACK");
    return Error{"table users, agent_owner_pubkey: " + st.error()};
  }
  return {};
}

// --- channels and members -------------------------------------------------------

Status export_channels(ExportContext& cx) {
  return run_step(cx, "channels", {channels_copy()}, [&](StepWriter& w, const std::string& after) -> Status {
    Status inner;
    Status s = cx.store.scan_state(engine::StateTable::kChannels, [&](std::string_view key, std::string_view v) {
      if (!inner || (!after.empty() && key <= after)) return;
      engine::Channel c;
      if (!engine::decode_channel(v, &c)) return void(inner = Error{"unreadable channel " + std::string(key)});
      CopyRow r(w.row(0, "id=" + c.id));
      append_channel(r, c);
      cx.summary.channels++;
      inner = w.item_done(key);
    });
    return s ? inner : s;
  });
}

Status export_members(ExportContext& cx) {
  return run_step(cx, "channel_members", {channel_members_copy()}, [&](StepWriter& w, const std::string& after) -> Status {
    Status inner;
    Status s = cx.store.scan_state(engine::StateTable::kChannelMembers, [&](std::string_view key, std::string_view v) {
      if (!inner || (!after.empty() && key <= after)) return;
      engine::ChannelMember m;
      if (key.size() != 36 + 32 || !engine::decode_member(v, &m)) return void(inner = Error{"unreadable channel member record"});
      const std::string channel(key.substr(0, 36));
      CopyRow r(w.row(0, "channel_id=" + channel + " " + hex_label("pubkey", m.pubkey.data(), 32)));
      append_member(r, channel, m);
      cx.summary.members++;
      inner = w.item_done(key);
    });
    return s ? inner : s;
  });
}

// --- events -------------------------------------------------------------------

// The events indexes, dropped for the load, built again over two connections
// at once, one partition's index at a time: PostgreSQL builds an index on one
// core, and partition by partition the two connections stay evenly busy (a
// whole index on the parent builds every partition in turn). Each parent
// index is made first ON ONLY the parent (invalid, empty), and becomes valid
// once every partition's index is attached to it. An index that already
// exists whole (a database that kept its indexes) is left as it is; a rerun
// after an interruption builds what is missing.
Status build_event_indexes(ExportContext& cx) {
  auto indexes = cx.pg.query("SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                             "WHERE i.indrelid = 'events'::regclass");
  if (!indexes) return Error{indexes.error()};
  std::map<std::string, bool> existing;  // name -> valid
  for (const PgRow& r : *indexes) existing[r.values[0]] = r.values[1] == "t";
  auto partitions = cx.pg.query("SELECT c.relname FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid "
                                "WHERE h.inhparent = 'events'::regclass ORDER BY pg_relation_size(c.oid) DESC, c.relname");
  if (!partitions) return Error{partitions.error()};
  std::vector<std::string> work;  // largest partitions first, so the last items are short
  std::vector<std::pair<std::string, std::string>> pending;  // (name, statement) of the indexes to build
  for (const std::string& st : event_index_statements()) {
    // "CREATE INDEX IF NOT EXISTS <name> ON events (…)…"
    const size_t name_at = st.find("EXISTS ") + 7, on_at = st.find(" ON events ");
    if (name_at < 7 || on_at == std::string::npos) return Error{"unexpected index statement: " + st};
    const std::string name = st.substr(name_at, on_at - name_at);
    if (existing.count(name) && existing[name]) continue;
    std::string parent = st;
    parent.replace(on_at, 11, " ON ONLY events ");
    if (Status s = cx.pg.exec(parent); !s) return s;
    pending.emplace_back(name, st);
  }
  for (const PgRow& p : *partitions) {
    const std::string& part = p.values[0];
    for (const auto& [name, st] : pending) {
      const std::string child = name.substr(0, 30) + "_" + part.substr(0, 30);
      std::string create = st;
      create.replace(create.find(" ON events "), 11, " ON " + part + " ");
      create.replace(create.find(name), name.size(), child);
      // One implicit transaction: an index is never left built and unattached.
      work.push_back(create + "; ALTER INDEX " + name + " ATTACH PARTITION " + child);
    }
  }
  std::atomic<size_t> next{0};
  auto build = [&](PgConnection& pg) -> Status {
    // The two connections are the parallelism: no extra workers per build.
    if (Status s = pg.exec("SET max_parallel_maintenance_workers = 0"); !s) return s;
    for (size_t i; (i = next.fetch_add(1)) < work.size();) {
      if (Status s = pg.exec(work[i]); !s) {
        next = work.size();
        return s;
      }
    }
    return {};
  };
  auto second = PgConnection::connect(cx.url);
  Status other;
  std::thread helper;
  if (second) helper = std::thread([&] { other = build(**second); });  // without it one connection is slower, not wrong
  Status mine = build(cx.pg);
  if (helper.joinable()) helper.join();
  return !mine ? mine : other;
}

// One stream of the events step: every storage family's records from the
// regular family's `start_after` (a record key or a key prefix; "" = its
// start) on, ending before the regular family's records from the key prefix
// `stop_before` on ("" = through every family). Resumable on its own: its
// progress row is `step`'s, keyed by storage family (1 byte) then record key.
struct EventStream {
  std::string step;
  std::string start_after;
  std::string stop_before;
};

Status stream_events(ExportContext& cx, PgConnection& pg, const EventStream& stream, ExportSummary& sum,
                     const std::atomic<bool>& stop) {
  StepWriter w(pg, stream.step,
               {"events (id, pubkey, created_at, kind, tags, content, sig, received_at, channel_id, deleted_at, d_tag)",
                "buzz_event_raw (id, raw)", "event_mentions (pubkey_hex, event_id, event_created_at, channel_id, event_kind)"},
               cx.progress, cx.batch_rows, /*binary=*/true);
  auto resume = w.resume();
  if (!resume) return Error{resume.error()};
  if (!*resume) return {};  // done by an earlier run
  const std::string& after = **resume;
  if (!after.empty() && after.size() != 1 + engine::kKeySuffixBytes) {
    return Error{"table events: this export was interrupted before the data directory's records moved to the "
                 "time-ordered layout and cannot resume; export into an empty database"};
  }
  const auto first = after.empty() ? engine::StorageFamily::kRegular : engine::StorageFamily(uint8_t(after[0]));
  const std::string_view after_key = after.empty() ? std::string_view(stream.start_after) : std::string_view(after).substr(1);
  Status inner;
  std::string key;
  Status s = cx.store.scan_records(first, after_key, [&](engine::StorageFamily fam, const engine::RecordView& rec) {
    key.assign(1, char(fam));
    key += engine::record_key(rec.fields.created_at, rec.fields.id);
    if (!stream.stop_before.empty() &&
        (fam != engine::StorageFamily::kRegular || std::string_view(key).substr(1, stream.stop_before.size()) >= stream.stop_before)) {
      return false;  // the other stream's part
    }
    if (stop.load(std::memory_order_relaxed)) {
      inner = Error{"stopped"};
      return false;
    }
    auto e = engine::parse_event_json(rec.raw);
    if (!e) {
      inner = Error{"unreadable stored event " + engine::to_hex(rec.fields.id, 32) + ": " + e.error()};
      return false;
    }
    if (holds_nul(*e)) {
      sum.events_skipped++;
      inner = w.item_done(key);
      return bool(inner);
    }
    const std::string label = hex_label("id", e->id.data(), 32);
    // timestamptz ends in the year 294276; the channel is a canonical UUID (as stored).
    if (e->created_at > kMaxPgEventTime) {
      inner = Error{"table events, row " + label + ": created_at " + std::to_string(e->created_at) + " is past timestamptz"};
      return false;
    }
    const std::string_view channel = rec.fields.channel;
    {
      BinaryCopyRow r(w.row(0, label), 11);
      r.key(e->id).key(e->pubkey).time(e->created_at).int4(e->kind);
      std::string tags;
      engine::append_json_tags(tags, e->tags);
      r.jsonb(tags).text(e->content).key(e->sig).time(e->created_at);
      if (channel.empty()) {
        r.null();
      } else if (!r.uuid(channel)) {
        inner = Error{"table events, row " + label + ": channel " + std::string(channel) + " is not a UUID"};
        return false;
      }
      rec.deleted() ? r.time(cx.now) : r.null();
      engine::kind_class(e->kind) == engine::KindClass::kAddressable ? r.text(e->first_tag_value("d")) : r.null();
    }
    // The columns rebuild the NIP-01 serialization; keep any other bytes as sent.
    if (engine::serialize_event(*e) != rec.raw) {
      BinaryCopyRow(w.row(1, label), 2).key(e->id).text(rec.raw);
      sum.events_raw++;
    }
    // One mention row per distinct valid p tag, lowercased (§1.2 event_mentions).
    std::set<std::string> mentioned;
    for (const engine::Tag& t : e->tags) {
      engine::Pubkey p;
      if (t.size() < 2 || t[0] != "p" || !engine::from_hex_any_case(t[1], p.data(), 32)) continue;
      const std::string hex = engine::to_hex(p);
      if (!mentioned.insert(hex).second) continue;
      BinaryCopyRow r(w.row(2, label + " pubkey_hex=" + hex), 5);
      r.text(hex).key(e->id).time(e->created_at);
      channel.empty() ? (void)r.null() : (void)r.uuid(channel);
      r.int4(e->kind);
    }
    sum.events++;
    inner = w.item_done(key);
    return bool(inner);
  });
  if (!s) return s;
  if (!inner) return inner;
  return w.finish();
}

// The events go over two connections at once, the regular family's newer half
// on one and the rest on the other: one COPY keeps one of PostgreSQL's
// backends busy, and the export is otherwise bound by it. Where the halves
// meet is decided once and kept in buzz_migrate_progress ("events split"), so
// a rerun resumes each half where it stopped. An export begun by a version
// that sent one stream (an "events" row and no split) finishes as one.
Status export_events(ExportContext& cx) {
  auto rows = cx.pg.query(
      "SELECT step, encode(last_key, 'hex') FROM buzz_migrate_progress WHERE step IN ('events', 'events split')");
  if (!rows) return Error{"table buzz_migrate_progress: " + rows.error()};
  bool begun = false;
  std::optional<std::string> split;
  for (const PgRow& r : *rows) {
    if (r.values[0] == "events") begun = true;
    if (r.values[0] != "events split") continue;
    split.emplace(r.values[1].size() / 2, '\0');
    engine::hex_decode(r.values[1], reinterpret_cast<uint8_t*>(split->data()), split->size());
  }
  if (!split && !begun) {
    auto empty = cx.pg.query("SELECT NOT EXISTS (SELECT 1 FROM events)");
    if (!empty) return Error{"table events: " + empty.error()};
    if ((*empty)[0].values[0] == "t") {
      if (Status st = cx.pg.exec(event_index_drop_sql()); !st) return Error{"table events: " + st.error()};
    }
    split = record_split_prefix(cx.db, engine::StorageFamily::kRegular);
    Status st = cx.pg.exec("INSERT INTO buzz_migrate_progress (step, last_key, done) VALUES ('events split', decode('" +
                           engine::to_hex(reinterpret_cast<const uint8_t*>(split->data()), split->size()) + "', 'hex'), true)");
    if (!st) return Error{"table buzz_migrate_progress: " + st.error()};
  }
  std::vector<EventStream> streams = {{"events", "", split.value_or("")}};
  if (split && !split->empty()) streams.push_back({"events, older half", *split, ""});

  cx.progress.begin("events", 0);
  std::atomic<bool> stop{false};
  std::vector<ExportSummary> sums(streams.size());
  std::vector<Status> results(streams.size());
  std::unique_ptr<PgConnection> second;
  if (streams.size() > 1) {
    auto c = PgConnection::connect(cx.url);
    if (c && (*c)->exec(kExportSessionSql)) second = std::move(*c);
  }
  auto run = [&](size_t i, PgConnection& pg) {
    results[i] = stream_events(cx, pg, streams[i], sums[i], stop);
    if (!results[i]) stop = true;
  };
  if (second) {
    std::thread other(run, 1, std::ref(*second));
    run(0, cx.pg);
    other.join();
  } else {
    for (size_t i = 0; i < streams.size() && !stop; ++i) run(i, cx.pg);  // one connection is slower, not wrong
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    cx.summary.events += sums[i].events;
    cx.summary.events_raw += sums[i].events_raw;
    cx.summary.events_skipped += sums[i].events_skipped;
  }
  // The first real failure, not the other stream's "stopped".
  for (const Status& r : results) {
    if (!r && r.error() != "stopped") return r;
  }
  for (const Status& r : results) {
    if (!r) return r;
  }
  cx.progress.end(begun ? "resumed" : "");
  cx.progress.begin("events indexes", 0);
  if (Status st = build_event_indexes(cx); !st) return Error{"table events, creating its indexes: " + st.error()};
  cx.progress.end();
  return {};
}

// --- threads, tokens, relay members ---------------------------------------------

Status export_threads(ExportContext& cx) {
  std::set<std::string> channels;
  Status s = cx.store.scan_state(engine::StateTable::kChannels, [&](std::string_view key, std::string_view) {
    channels.emplace(key);
  });
  if (!s) return s;
  return run_step(
      cx, "thread_metadata",
      {"thread_metadata (event_created_at, event_id, channel_id, parent_event_id, parent_event_created_at, "
       "root_event_id, root_event_created_at, depth, reply_count, descendant_count, last_reply_at, broadcast)"},
      [&](StepWriter& w, const std::string& after) -> Status {
        Status inner;
        Status st = cx.store.scan_state(engine::StateTable::kThreads, [&](std::string_view key, std::string_view v) {
          if (!inner || (!after.empty() && key <= after) || key.size() != 32) return;
          auto row = engine::ThreadRow::decode(v);
          engine::Id id;
          std::memcpy(id.data(), key.data(), 32);
          auto event = cx.store.lookup(id);
          // channel_id is NOT NULL with a foreign key: rows of channel-less events cannot go.
          if (!row || !event || !channels.count(event->channel)) return void(inner = w.item_done(key));
          auto created = [&](const engine::Id& other) -> uint64_t {
            auto e = cx.store.lookup(other);
            return e ? e->created_at : 0;
          };
          CopyRow r(w.row(0, hex_label("event_id", id.data(), 32)));
          r.time(event->created_at).key(id).text(event->channel);
          r.key_or_null(row->parent).time_or_null(created(row->parent));
          r.key_or_null(row->root).time_or_null(created(row->root));
          r.number(row->depth).number(int64_t(row->reply_count)).number(int64_t(row->descendant_count));
          r.time_or_null(row->last_reply_at).boolean(row->broadcast);
          cx.summary.threads++;
          inner = w.item_done(key);
        });
        return st ? inner : st;
      });
}

Status export_tokens(ExportContext& cx) {
  return run_step(cx, "api_tokens",
                  {"api_tokens (id, token_hash, owner_pubkey, name, scopes, channel_ids, created_at, expires_at, "
                   "last_used_at, revoked_at, revoked_by, created_by_self_mint)"},
                  [&](StepWriter& w, const std::string& after) -> Status {
                    Status inner;
                    Status s = cx.store.scan_state(engine::StateTable::kApiTokens, [&](std::string_view key, std::string_view v) {
                      if (!inner || (!after.empty() && key <= after)) return;
                      engine::ApiToken t;
                      if (key.size() != 32 || !engine::decode_token(v, &t)) return void(inner = Error{"unreadable API token record"});
                      std::memcpy(t.hash.data(), key.data(), 32);  // the record is stored under its hash
                      CopyRow r(w.row(0, "id=" + t.id));
                      r.text(t.id).key(t.hash).key(t.owner).text(t.name).text(json_string_array(t.scopes));
                      t.channels ? r.text(json_string_array(*t.channels)) : r.null();
                      r.time(t.created_at).time_or_null(t.expires_at).time_or_null(t.last_used_at);
                      r.time_or_null(t.revoked_at).key_or_null(t.revoked_by).boolean(t.self_minted);
                      cx.summary.tokens++;
                      inner = w.item_done(key);
                    });
                    return s ? inner : s;
                  });
}

Status export_relay_members(ExportContext& cx) {
  auto members = engine::RelayMembers(cx.db).list();
  if (!members) return Error{members.error()};
  return run_step(cx, "relay_members", {"relay_members (pubkey, role, added_by, created_at, updated_at)"},
                  [&](StepWriter& w, const std::string& after) -> Status {
                    std::map<std::string, const engine::RelayMember*> by_key;
                    for (const engine::RelayMember& m : *members) by_key[engine::to_hex(m.pubkey)] = &m;
                    for (const auto& [hex, m] : by_key) {
                      if (!after.empty() && hex <= after) continue;
                      CopyRow r(w.row(0, "pubkey=" + hex));
                      r.text(hex).text(engine::relay_role_name(m->role));
                      m->added_by ? r.text(engine::to_hex(*m->added_by)) : r.null();
                      r.time(m->created_at).time(m->updated_at);
                      cx.summary.relay_members++;
                      if (Status s = w.item_done(hex); !s) return s;
                    }
                    return {};
                  });
}

// --- deliveries (receipts) ------------------------------------------------------

// <data-dir>/deliveries as the original's delivery_log rows, as the live store
// writes them (pg_delivery_log.h): one row a member and run, delivered_at the
// event's created_at (the embedded log keeps no time of its own: a live
// message is sent within a moment of it). One item per run; the monthly
// partitions the rows need are made first.
Status export_deliveries(ExportContext& cx) {
  std::error_code ec;
  if (!std::filesystem::exists(cx.data_dir + "/deliveries", ec)) return {};
  auto log = engine::RocksDeliveryLog::open(cx.data_dir + "/deliveries");
  if (!log) return Error{log.error()};
  uint32_t first_day = UINT32_MAX;
  if (Status s = (*log)->scan("", [&](std::string_view, uint32_t day, const engine::Id&, std::span<const engine::Pubkey>) {
        first_day = day;
        return false;
      });
      !s) {
    return s;
  }
  if (first_day == UINT32_MAX) return {};
  if (Status s = maintain_delivery_partitions(cx.pg, uint64_t(first_day) * engine::kSecondsPerDay, cx.now, 0); !s) return s;
  return run_step(cx, "delivery_log", {"delivery_log (subscription_id, event_id, method, delivered_at, success)"},
                  [&](StepWriter& w, const std::string& after) -> Status {
                    Status inner;
                    Status s = (*log)->scan(after, [&](std::string_view key, uint32_t day, const engine::Id& event,
                                                       std::span<const engine::Pubkey> members) {
                      const auto stored = cx.store.lookup(event);
                      const uint64_t at = stored ? stored->created_at : uint64_t(day) * engine::kSecondsPerDay;
                      for (const engine::Pubkey& m : members) {
                        CopyRow(w.row(0, hex_label("event_id", event.data(), 32)))
                            .text(engine::to_hex(m)).key(event).text("websocket").time(at).boolean(true);
                        cx.summary.deliveries++;
                      }
                      inner = w.item_done(key);
                      return bool(inner);
                    });
                    return s ? inner : s;
                  });
}

// --- workflows, their runs and approvals ------------------------------------------

// One item per workflow: its row, its runs' and its approvals' (the three
// blocks go in this order in each batch, so every foreign key holds).
Status export_workflows(ExportContext& cx) {
  engine::WorkflowTables tables(cx.store);
  auto workflows = tables.workflows();
  auto runs = tables.all_runs();
  auto approvals = tables.all_approvals();
  if (!workflows || !runs || !approvals) return Error{"unreadable workflows table in the data directory"};
  std::set<std::string> channels;
  Status s = cx.store.scan_state(engine::StateTable::kChannels, [&](std::string_view key, std::string_view) {
    channels.emplace(key);
  });
  if (!s) return s;
  std::map<std::string, const engine::WorkflowRecord*> by_id;
  for (const engine::WorkflowRecord& w : *workflows) {
    // channel_id has a foreign key: a workflow of a channel with no record cannot go.
    if (w.channel_id.empty() || channels.count(w.channel_id)) by_id[w.id] = &w;
  }
  std::map<std::string, std::vector<const engine::RunRecord*>> runs_of;
  std::set<std::string> run_ids;
  for (const engine::RunRecord& r : *runs) {
    runs_of[r.workflow_id].push_back(&r);
    run_ids.insert(r.id);
  }
  std::map<std::string, std::vector<const engine::ApprovalRecord*>> approvals_of;
  for (const engine::ApprovalRecord& a : *approvals) {
    if (run_ids.count(a.run_id)) approvals_of[a.workflow_id].push_back(&a);
  }
  return run_step(cx, "workflows", {kWorkflowsCopy, kWorkflowRunsCopy, kWorkflowApprovalsCopy},
                  [&](StepWriter& w, const std::string& after) -> Status {
                    for (const auto& [id, workflow] : by_id) {
                      if (!after.empty() && id <= after) continue;
                      {
                        CopyRow r(w.row(0, "id=" + id));
                        append_workflow(r, *workflow);
                      }
                      for (const engine::RunRecord* run : runs_of[id]) {
                        CopyRow r(w.row(1, "id=" + run->id));
                        append_run(r, *run);
                      }
                      for (const engine::ApprovalRecord* a : approvals_of[id]) {
                        CopyRow r(w.row(2, "token=" + a->token_hash));
                        append_approval(r, *a);
                      }
                      cx.summary.workflows++;
                      cx.summary.workflow_runs += runs_of[id].size();
                      cx.summary.workflow_approvals += approvals_of[id].size();
                      if (Status s = w.item_done(id); !s) return s;
                    }
                    return {};
                  });
}

// --- audit log (docs/reference/audit.md §8.8) ------------------------------------------------

Status export_audit(ExportContext& cx) {
  const std::string dir = cx.data_dir + "/audit";
  return run_step(
      cx, "audit_log",
      {"audit_log (seq, timestamp, event_id, event_kind, actor_pubkey, action, channel_id, metadata, prev_hash, hash)"},
      [&](StepWriter& w, const std::string& after) -> Status {
        if (after.empty()) {
          auto rows = cx.pg.query("SELECT count(*) FROM audit_log");
          if (!rows) return Error{"table audit_log: " + rows.error()};
          if ((*rows)[0].values[0] != "0") {
            return Error{"table audit_log: not empty (" + (*rows)[0].values[0] + " rows); a chain cannot be merged into another"};
          }
        }
        // The upstream writers' lock (docs/reference/audit.md §2), so no relay appends meanwhile.
        if (Status s = cx.pg.exec("SELECT pg_advisory_lock(6012455564262815076)"); !s) return Error{"audit_log lock: " + s.error()};
        const uint64_t resume_seq = after.size() == 8 ? engine::get_u64(after.data()) : 0;
        auto segments = engine::list_segments(dir);
        if (!segments) return Error{segments.error()};
        Status inner;
        for (const engine::SegmentFile& file : *segments) {
          auto bytes = engine::read_whole_file(dir + "/" + file.name);
          if (!bytes) return Error{bytes.error()};
          engine::SegmentScan scan = engine::scan_segment(*bytes, file, [&](engine::AuditEntry&& e) {
            if (!inner || e.seq <= resume_seq) return;
            CopyRow r(w.row(0, "seq=" + std::to_string(e.seq)));
            r.number(int64_t(e.seq)).text(e.ts).text(e.event_id).number(e.kind).text(e.actor).text(e.action);
            if (e.channel.empty()) {
              r.null();
            } else {
              uint8_t uuid[16];
              engine::hex_decode(uuid_hex(e.channel), uuid, 16);
              r.bytes(uuid, 16);
            }
            r.text(e.meta).text(e.prev_hash).text(e.hash);
            std::string key;
            engine::put_u64(&key, e.seq);
            cx.summary.audit_entries++;
            inner = w.item_done(key);
          });
          if (!inner) return inner;
          if (scan.end == engine::SegmentScan::End::kCorrupt || scan.end == engine::SegmentScan::End::kTorn) {
            return Error{"the audit log is damaged: " + engine::describe(scan.failure) + " (run buzz audit verify)"};
          }
        }
        return {};
      });
}

}  // namespace

engine::Result<ExportSummary> export_to_postgres(const PgExportOptions& options, Progress& progress) {
  auto db = engine::RocksDatabase::open(options.data_dir + "/db", engine::DatabaseOptions{});
  if (!db) return Error{db.error()};
  engine::RocksEventStore store(**db);
  auto pg = PgConnection::connect(options.url);
  if (!pg) return Error{pg.error()};
  auto version = detect_schema(**pg);
  if (!version) return Error{version.error()};
  if (*version == SchemaVersion::kSeed) {
    return Error{"the target holds the seed-era schema; export writes the HEAD schema into an empty database or a HEAD one"};
  }
  if (Status s = (*pg)->exec(head_schema_sql()); !s) return Error{"creating the schema: " + s.error()};
  if (Status s = (*pg)->exec(kExportSessionSql); !s) return Error{s.error()};
  ExportContext cx{**pg, options.url, **db, store, progress, options.batch_rows, options.data_dir, engine::unix_now(), {}};
  for (Status (*step)(ExportContext&) : {export_users, export_channels, export_members, export_events, export_threads,
                                    export_tokens, export_relay_members, export_workflows, export_deliveries,
                                    export_audit}) {
    if (Status s = step(cx); !s) return Error{s.error()};
  }
  // A write committed synchronously flushes the WAL up to it: every batch above.
  if (Status s = cx.pg.exec("SET synchronous_commit = on; UPDATE buzz_migrate_progress SET done = true WHERE step = 'audit_log'");
      !s) {
    return Error{"table buzz_migrate_progress: " + s.error()};
  }
  return cx.summary;
}

}  // namespace buzz::migrate
