// `buzz migrate` against a real PostgreSQL (the ctest fixture `postgres`) and
// the real binary: a data directory written by a running relay goes to
// PostgreSQL and back byte for byte; a database written as the original writes
// it imports; bad targets fail with the table and row named; a kill -9 in the
// middle of an export resumes without duplicates (both halves of the events,
// sent over two connections); JSON lines round-trip.
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "engine/api_tokens.h"
#include "engine/audit_entry.h"
#include "engine/canonical.h"
#include "engine/channel.h"
#include "engine/relay_members.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "engine/thread_row.h"
#include "engine/user_record.h"
#include "engine/workflow_records.h"
#include "migrate/pg_schema.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tests/migrate/original_db.h"
#include "tests/migrate/pg_test_db.h"
#include "tools/client/child_process.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/buzz-migrate-test.XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

std::string uuid() { return engine::random_uuid(); }

// Everything a data directory holds that the migration must carry, keyed for comparison.
struct Snapshot {
  std::map<std::string, std::string> events;    // family|id -> the whole stored record (flags, channel, raw JSON)
  std::map<std::string, std::string> channels;  // id -> record bytes
  std::map<std::string, std::string> members;   // channel|pubkey -> role, times, who (not the join counter)
  std::map<std::string, std::vector<std::string>> join_order;  // channel -> members in join order
  std::map<std::string, std::string> tokens;
  std::map<std::string, std::string> users;     // pubkey -> owner | policy | policy time
  std::map<std::string, std::string> relay_members;
  std::map<std::string, std::string> threads;   // id -> every field
};

Snapshot snapshot(const std::string& data_dir) {
  Snapshot s;
  auto db = engine::RocksDatabase::open(data_dir + "/db", engine::DatabaseOptions{});
  EXPECT_TRUE(db) << db.error();
  if (!db) return s;
  engine::RocksEventStore store(**db);
  EXPECT_TRUE(store.scan_records(engine::StorageFamily::kRegular, {}, [&](engine::StorageFamily f, const engine::RecordView& r) {
    std::string value(reinterpret_cast<const char*>(&r.flags), 1);
    value += std::string(r.fields.channel) + "|" + std::string(r.raw);
    s.events[std::to_string(int(f)) + engine::to_hex(r.fields.id, 32)] = value;
    return true;
  }));
  (void)store.scan_state(engine::StateTable::kChannels, [&](std::string_view k, std::string_view v) { s.channels[std::string(k)] = v; });
  std::map<std::string, std::map<uint64_t, std::string>> order;
  (void)store.scan_state(engine::StateTable::kChannelMembers, [&](std::string_view k, std::string_view v) {
    engine::ChannelMember m;
    ASSERT_TRUE(engine::decode_member(v, &m));
    const std::string ch(k.substr(0, 36)), pk = engine::to_hex(m.pubkey);
    s.members[ch + pk] = std::string(engine::channel_role_name(m.role)) + std::to_string(m.joined_at) + engine::to_hex(m.invited_by) +
                         std::to_string(m.removed_at) + engine::to_hex(m.removed_by) + std::to_string(m.hidden_at);
    if (m.active()) order[ch][m.join_seq] = pk;
  });
  for (auto& [ch, seqs] : order) {
    for (auto& [seq, pk] : seqs) s.join_order[ch].push_back(pk);
  }
  (void)store.scan_state(engine::StateTable::kApiTokens, [&](std::string_view k, std::string_view v) { s.tokens[std::string(k)] = v; });
  (void)store.scan_state(engine::StateTable::kUsers, [&](std::string_view k, std::string_view v) {
    engine::UserRecord u;
    ASSERT_TRUE(engine::decode_user_record(v, &u));
    if (!u.agent_owner && u.channel_add_policy == engine::AddPolicy::kAnyone) return;  // the same as no record
    s.users[engine::to_hex(reinterpret_cast<const uint8_t*>(k.data()), 32)] =
        (u.agent_owner ? engine::to_hex(*u.agent_owner) : "") + std::string(engine::add_policy_name(u.channel_add_policy)) +
        std::to_string(u.policy_at_ms);
  });
  auto members = engine::RelayMembers(**db).list();
  for (const auto& m : *members) {
    s.relay_members[engine::to_hex(m.pubkey)] = std::string(engine::relay_role_name(m.role)) +
                                                (m.added_by ? engine::to_hex(*m.added_by) : "") + std::to_string(m.created_at);
  }
  (void)store.scan_state(engine::StateTable::kThreads, [&](std::string_view k, std::string_view v) {
    auto row = engine::ThreadRow::decode(v);
    ASSERT_TRUE(row);
    s.threads[engine::to_hex(reinterpret_cast<const uint8_t*>(k.data()), 32)] =
        engine::to_hex(row->parent) + engine::to_hex(row->root) + std::to_string(row->depth) + "/" + std::to_string(row->reply_count) +
        "/" + std::to_string(row->descendant_count) + "/" + std::to_string(row->last_reply_at) + (row->broadcast ? "b" : "");
    for (const engine::Pubkey& p : row->participants) s.threads[engine::to_hex(reinterpret_cast<const uint8_t*>(k.data()), 32)] += engine::to_hex(p);
  });
  return s;
}

OkReply publish(NostrClient& c, const Event& e) {
  OkReply ok = c.publish(e);
  EXPECT_TRUE(ok.accepted) << "kind " << e.kind << ": " << ok.reason;
  return ok;
}

// A data directory written by the real relay: a private channel with two
// members, messages, a thread, a reaction, a deletion, profiles, replaceable
// and addressable events, an API token, a relay member, and the audit chain.
void populate(const std::string& data_dir, Keypair& alice, Keypair& bob) {
  {
    RelayOptions opts{{"--open", "--rate-limits", "false"}, {}, data_dir};
    std::string error;
    auto relay = RelayProcess::start(opts, &error);
    ASSERT_TRUE(relay) << error;
    auto a = NostrClient::connect_authed(*relay, alice, &error);
    auto b = NostrClient::connect_authed(*relay, bob, &error);
    ASSERT_TRUE(a && b) << error;
    const std::string ch = uuid();
    publish(*a, make_event(alice, 9007, "", {{"h", ch}, {"name", "migration"}, {"visibility", "private"}}));
    publish(*a, make_event(alice, 9000, "", {{"h", ch}, {"p", engine::to_hex(bob.pubkey)}}));
    publish(*a, make_event(alice, 0, R"({"display_name":"Alice","about":"first","nip05":"alice@127.0.0.1"})"));
    publish(*b, make_event(bob, 0, R"({"name":"bob","display_name":"Bob \"B\"\tTab ünï"})"));
    Event root = make_event(alice, 9, "hello\nworld é \\ done", {{"h", ch}});
    publish(*a, root);
    publish(*b, make_event(bob, 9, "a reply", {{"h", ch}, {"e", root.id_hex(), "", "reply"}}));
    publish(*b, make_event(bob, 7, "+", {{"h", ch}, {"e", root.id_hex()}, {"p", engine::to_hex(alice.pubkey)}}));
    Event gone = make_event(alice, 9, "to be deleted", {{"h", ch}});
    publish(*a, gone);
    publish(*a, make_event(alice, 5, "", {{"e", gone.id_hex()}, {"h", ch}}));
    publish(*a, make_event(alice, 3, "", {{"p", engine::to_hex(bob.pubkey)}}, unix_now() - 10));
    publish(*a, make_event(alice, 3, "", {{"p", engine::to_hex(bob.pubkey)}, {"t", "newer"}}));
    publish(*a, make_event(alice, 30023, "# article", {{"d", "post-1"}, {"title", "T"}}));
    publish(*a, make_event(alice, 1, "global note"));
    ASSERT_TRUE(relay->terminate());
  }
  int status = 0;
  std::string out = run_buzz("admin mint-token --data-dir " + data_dir + " --pubkey " + engine::to_hex(bob.pubkey) +
                                 " --name ci --scopes messages:read,channels:read",
                             &status);
  ASSERT_EQ(status, 0) << out;
  out = run_buzz("admin add-member --data-dir " + data_dir + " --pubkey " + engine::to_hex(bob.pubkey) + " --role admin", &status);
  ASSERT_EQ(status, 0) << out;
}

std::string buzz(const std::string& args, int expect_status) {
  int status = -1;
  std::string out = run_buzz(args, &status);
  EXPECT_EQ(status, expect_status) << "buzz " << args << "\n" << out;
  return out;
}

TEST(Migrate, PostgresRoundTripKeepsEveryByteAndTheAuditChain) {
  PgTestDb pg("roundtrip");
  TempDir a, b;
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  populate(a.path, alice, bob);
  if (HasFatalFailure()) return;
  buzz("migrate export --data-dir " + a.path + " --to '" + pg.url() + "' --json", 0);
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM channels"), "1");
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM channel_members WHERE role = 'owner'"), "1");
  EXPECT_EQ(pg.scalar("SELECT display_name FROM users WHERE pubkey = decode('" + engine::to_hex(alice.pubkey) + "', 'hex')"), "Alice");
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM api_tokens"), "1");
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM event_mentions WHERE event_kind = 7 AND pubkey_hex = '" + engine::to_hex(alice.pubkey) + "'"), "1")
      << "the reaction p-tags alice";
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM events WHERE deleted_at IS NOT NULL AND kind IN (3, 9)"), "2")
      << "the deleted message and the older kind 3";
  EXPECT_NE(pg.scalar("SELECT count(*) FROM audit_log"), "0");
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM events_p_future"), pg.scalar("SELECT count(*) FROM events"))
      << "rows routed into the partition for their month";

  buzz("migrate import --from '" + pg.url() + "' --data-dir " + b.path, 0);
  Snapshot before = snapshot(a.path), after = snapshot(b.path);
  EXPECT_EQ(before.events.size(), after.events.size());
  EXPECT_TRUE(before.events == after.events) << "every stored event, deleted ones included, byte for byte";
  EXPECT_EQ(before.channels, after.channels);
  EXPECT_EQ(before.members, after.members);
  EXPECT_EQ(before.join_order, after.join_order);
  EXPECT_EQ(before.tokens, after.tokens) << "token hashes and every token field";
  EXPECT_EQ(before.users, after.users);
  EXPECT_EQ(before.relay_members, after.relay_members);
  EXPECT_EQ(before.threads, after.threads);
  EXPECT_FALSE(before.channels.empty() || before.tokens.empty() || before.threads.empty() || before.relay_members.empty());

  const std::string verify = buzz("audit verify --data-dir " + b.path, 0);
  EXPECT_NE(verify.find("\"ok\":true"), std::string::npos) << verify;
  EXPECT_EQ(buzz("audit head --data-dir " + a.path, 0), buzz("audit head --data-dir " + b.path, 0));

  // The imported directory serves: the relay starts on it and answers.
  RelayOptions opts{{"--open"}, {}, b.path};
  std::string error;
  auto relay = RelayProcess::start(opts, &error);
  ASSERT_TRUE(relay) << error;
  auto c = NostrClient::connect_authed(*relay, alice, &error);
  ASSERT_TRUE(c) << error;
  ReqResult notes = c->req("n", R"({"kinds":[1]})");
  EXPECT_EQ(notes.events.size(), 1u);

  // A second export into the same database finds every step done: nothing doubles.
  TempDir again;
  buzz("migrate export --data-dir " + a.path + " --to '" + pg.url() + "'", 0);
  EXPECT_EQ(pg.scalar("SELECT count(*) - count(DISTINCT id) FROM events"), "0");

  // An index build interrupted with one partition's index attached: a rerun
  // builds the other partitions' and the index is whole (valid) again.
  const std::string valid = "SELECT indisvalid FROM pg_index WHERE indexrelid = 'idx_events_id'::regclass";
  ASSERT_TRUE(pg.connect()->exec(
      "DROP INDEX idx_events_id; CREATE INDEX idx_events_id ON ONLY events (id); "
      "CREATE INDEX idx_events_id_events_p_future ON events_p_future (id); "
      "ALTER INDEX idx_events_id ATTACH PARTITION idx_events_id_events_p_future"));
  EXPECT_EQ(pg.scalar(valid), "f");
  buzz("migrate export --data-dir " + a.path + " --to '" + pg.url() + "'", 0);
  EXPECT_EQ(pg.scalar(valid), "t");
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM pg_inherits WHERE inhparent = 'idx_events_id'::regclass"),
            pg.scalar("SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass"));
}

// A REST call on `relay` signed by `key` (NIP-98).
HttpReply rest(const RelayProcess& relay, const Keypair& key, const std::string& method, const std::string& path,
               const std::string& body = "") {
  const std::string url = "http://127.0.0.1:" + std::to_string(relay.port()) + path;
  std::vector<std::pair<std::string, std::string>> headers = {{"Authorization", nip98_header(key, url, method, body)}};
  if (!body.empty()) headers.push_back({"Content-Type", "application/json"});
  return http_call(relay.port(), method, path, headers, body);
}

std::string workflow_body(const std::string& yaml) { return "{\"yaml_definition\":" + json_quote(yaml) + "}"; }

// A top-level string field of a JSON object text ("" when absent).
std::string field(const std::string& json, const char* key) {
  simdjson::dom::parser parser;
  std::string_view v;
  if (parser.parse(json).at_key(key).get_string().get(v)) return "";
  return std::string(v);
}

// Every workflow record of a data directory (the relay stopped), as stored.
struct WorkflowSnapshot {
  std::map<std::string, engine::WorkflowRecord> workflows;
  std::map<std::string, engine::RunRecord> runs;
  std::map<std::string, engine::ApprovalRecord> approvals;
};

WorkflowSnapshot workflow_snapshot(const std::string& data_dir) {
  WorkflowSnapshot s;
  auto db = engine::RocksDatabase::open(data_dir + "/db", engine::DatabaseOptions{});
  EXPECT_TRUE(db) << db.error();
  if (!db) return s;
  engine::RocksEventStore store(**db);
  engine::WorkflowTables tables(store);
  auto workflows = tables.workflows();
  auto runs = tables.all_runs();
  auto approvals = tables.all_approvals();
  EXPECT_TRUE(workflows && runs && approvals);
  if (!workflows || !runs || !approvals) return s;
  for (const auto& w : *workflows) s.workflows[w.id] = w;
  for (const auto& r : *runs) s.runs[r.id] = r;
  for (const auto& a : *approvals) s.approvals[a.token_hash] = a;
  return s;
}

// Workflows, their runs and their approvals go to the original's three tables
// and come back: an active workflow with a completed run, and an archived one
// whose run waits on an approval.
TEST(Migrate, WorkflowsRunsAndApprovalsGoToTheOriginalsTablesAndBack) {
  PgTestDb pg("workflows");
  TempDir a, b;
  Keypair alice = engine::generate_keypair();
  std::string echo, gated, gated_run;
  {
    std::string error;
    auto relay = RelayProcess::start(RelayOptions{{"--open", "--rate-limits", "false"}, {}, a.path}, &error);
    ASSERT_TRUE(relay) << error;
    auto c = NostrClient::connect_authed(*relay, alice, &error);
    ASSERT_TRUE(c) << error;
    const std::string ch = uuid();
    publish(*c, make_event(alice, 9007, "", {{"h", ch}, {"name", "flows"}, {"visibility", "private"}}));
    HttpReply made = rest(*relay, alice, "POST", "/api/channels/" + ch + "/workflows", workflow_body(
        "name: Echo\ntrigger:\n  on: message_posted\nsteps:\n  - id: say\n    action: send_message\n    text: \"seen {{trigger.text}}\"\n"));
    ASSERT_EQ(made.status, 200) << made.body;
    echo = field(made.body, "id");
    made = rest(*relay, alice, "POST", "/api/channels/" + ch + "/workflows", workflow_body(
        "name: Gate\ntrigger:\n  on: webhook\nsteps:\n  - id: ok\n    action: request_approval\n    from: any\n    message: go?\n"));
    ASSERT_EQ(made.status, 200) << made.body;
    gated = field(made.body, "id");
    publish(*c, make_event(alice, 9, "first", {{"h", ch}}));
    HttpReply fired = http_call(relay->port(), "POST", "/hooks/" + gated,
                                {{"X-Webhook-Secret", field(made.body, "webhook_secret")}}, "{}");
    ASSERT_EQ(fired.status, 202) << fired.body;
    gated_run = field(fired.body, "run_id");
    for (int i = 0; i < 200; ++i) {  // the echo's run done, the gate's parked
      const std::string runs = rest(*relay, alice, "GET", "/api/workflows/" + echo + "/runs").body +
                               rest(*relay, alice, "GET", "/api/workflows/" + gated + "/runs").body;
      if (runs.find("\"completed\"") != std::string::npos && runs.find("waiting_approval") != std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_EQ(rest(*relay, alice, "PATCH", "/api/workflows/" + gated, R"({"status":"archived"})").status, 200);
    ASSERT_TRUE(relay->terminate());
  }
  const WorkflowSnapshot before = workflow_snapshot(a.path);
  ASSERT_EQ(before.workflows.size(), 2u);
  ASSERT_EQ(before.runs.size(), 2u);
  ASSERT_EQ(before.approvals.size(), 1u);

  const std::string exported = buzz("migrate export --data-dir " + a.path + " --to '" + pg.url() + "' --json", 0);
  EXPECT_NE(exported.find("\"workflows\":2"), std::string::npos) << exported;
  // As the original reads them: its enums, its JSONB, hashes as 32 bytes.
  EXPECT_EQ(pg.scalar("SELECT status FROM workflows WHERE id = '" + gated + "'"), "archived");
  EXPECT_EQ(pg.scalar("SELECT definition->'trigger'->>'on' FROM workflows WHERE id = '" + echo + "'"), "message_posted");
  EXPECT_EQ(pg.scalar("SELECT length(definition_hash) FROM workflows WHERE id = '" + echo + "'"), "32");
  EXPECT_EQ(pg.scalar("SELECT status FROM workflow_runs WHERE id = '" + gated_run + "'"), "waiting_approval");
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM workflow_runs WHERE workflow_id = '" + echo + "' AND status = 'completed' "
                      "AND trigger_event_id IS NOT NULL AND jsonb_array_length(execution_trace) = 1"), "1");
  EXPECT_EQ(pg.scalar("SELECT status || ' ' || length(token) || ' ' || approver_spec FROM workflow_approvals"), "pending 32 any");

  buzz("migrate import --from '" + pg.url() + "' --data-dir " + b.path, 0);
  const WorkflowSnapshot after = workflow_snapshot(b.path);
  ASSERT_EQ(after.workflows.size(), 2u);
  for (const auto& [id, w] : before.workflows) {
    SCOPED_TRACE(w.name);
    const engine::WorkflowRecord& x = after.workflows.at(id);
    EXPECT_EQ(x.name, w.name);
    EXPECT_EQ(x.owner, w.owner);
    EXPECT_EQ(x.channel_id, w.channel_id);
    EXPECT_EQ(x.status, w.status);
    EXPECT_EQ(x.definition_hash, w.definition_hash);
    EXPECT_EQ(x.created_at, w.created_at);
    EXPECT_EQ(x.updated_at, w.updated_at);
  }
  ASSERT_EQ(after.runs.size(), 2u);
  for (const auto& [id, r] : before.runs) {
    const engine::RunRecord& x = after.runs.at(id);
    EXPECT_EQ(x.workflow_id, r.workflow_id);
    EXPECT_EQ(x.status, r.status);
    EXPECT_EQ(x.current_step, r.current_step);
    EXPECT_EQ(x.trigger_event_id, r.trigger_event_id);
    EXPECT_EQ(x.trigger_kind, r.trigger_kind);
    EXPECT_EQ(x.created_at_ms, r.created_at_ms) << "the order within a second";
    EXPECT_EQ(x.started_at, r.started_at);
    EXPECT_EQ(x.completed_at, r.completed_at);
    EXPECT_EQ(x.error_message, r.error_message);
  }
  ASSERT_EQ(after.approvals.size(), 1u);
  const engine::ApprovalRecord &pa = before.approvals.begin()->second, &ia = after.approvals.begin()->second;
  EXPECT_EQ(engine::encode_approval(ia), engine::encode_approval(pa)) << "every field of the approval";

  // The imported directory serves them: the same definitions and statuses over REST.
  std::string error;
  auto relay = RelayProcess::start(RelayOptions{{"--open"}, {}, b.path}, &error);
  ASSERT_TRUE(relay) << error;
  HttpReply got = rest(*relay, alice, "GET", "/api/workflows/" + echo);
  EXPECT_NE(got.body.find(R"("definition":{"name":"Echo")"), std::string::npos) << got.body;
  EXPECT_EQ(field(rest(*relay, alice, "GET", "/api/workflows/" + gated).body, "status"), "archived");
  HttpReply approvals = rest(*relay, alice, "GET", "/api/workflows/" + gated + "/runs/" + gated_run + "/approvals");
  EXPECT_NE(approvals.body.find(pa.token_hash), std::string::npos) << approvals.body;
}

// The receipts' deliveries (<data-dir>/deliveries) go to the original's
// delivery_log, in their month's partition, and come back: the imported
// directory answers the same receipt.
TEST(Migrate, DeliveriesGoToTheOriginalsTableAndBack) {
  PgTestDb pg("deliveries");
  TempDir a, b;
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  Event m;
  auto receipt_when_delivered = [&](const RelayProcess& relay) {
    HttpReply r;
    for (int i = 0; i < 100; ++i) {  // the flusher writes within a quarter second
      r = rest(relay, alice, "GET", "/api/messages/" + m.id_hex() + "/receipts");
      if (r.body.find("\"delivered\":1") != std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return r;
  };
  {
    std::string error;
    auto relay = RelayProcess::start(RelayOptions{{"--open", "--rate-limits", "false"}, {}, a.path}, &error);
    ASSERT_TRUE(relay) << error;
    auto ca = NostrClient::connect_authed(*relay, alice, &error), cb = NostrClient::connect_authed(*relay, bob, &error);
    ASSERT_TRUE(ca && cb) << error;
    const std::string ch = uuid();
    publish(*ca, make_event(alice, 9007, "", {{"h", ch}, {"name", "sent"}, {"visibility", "private"}}));
    publish(*ca, make_event(alice, 9000, "", {{"h", ch}, {"p", engine::to_hex(bob.pubkey)}}));
    ASSERT_TRUE(cb->req("live", R"({"kinds":[9],"#h":[")" + ch + R"("]})").eose);
    m = make_event(alice, 9, "delivered?", {{"h", ch}});
    publish(*ca, m);
    ASSERT_TRUE(cb->wait_for([&](const RelayMessage& e) { return e.type == "EVENT" && e.event.id_hex() == m.id_hex(); }));
    HttpReply r = receipt_when_delivered(*relay);
    ASSERT_NE(r.body.find("\"delivered\":1"), std::string::npos) << r.body;
    ASSERT_TRUE(relay->terminate());
  }
  const std::string exported = buzz("migrate export --data-dir " + a.path + " --to '" + pg.url() + "' --json", 0);
  EXPECT_NE(exported.find("\"deliveries\":1"), std::string::npos) << exported;
  const std::string of_m = " FROM delivery_log WHERE event_id = decode('" + m.id_hex() + "', 'hex')";
  EXPECT_EQ(pg.scalar("SELECT subscription_id || ' ' || method || ' ' || success" + of_m),
            engine::to_hex(bob.pubkey) + " websocket true");
  EXPECT_EQ(pg.scalar("SELECT tableoid::regclass::text" + of_m),
            pg.scalar("SELECT 'delivery_log_' || to_char(to_timestamp(" + std::to_string(m.created_at) +
                      ") AT TIME ZONE 'UTC', 'YYYY_MM')"));

  const std::string imported = buzz("migrate import --from '" + pg.url() + "' --data-dir " + b.path + " --json", 0);
  EXPECT_NE(imported.find("\"deliveries\":1"), std::string::npos) << imported;
  std::string error;
  auto relay = RelayProcess::start(RelayOptions{{"--open"}, {}, b.path}, &error);
  ASSERT_TRUE(relay) << error;
  HttpReply r = receipt_when_delivered(*relay);
  EXPECT_NE(r.body.find("\"members\":1"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("\"delivered\":1"), std::string::npos) << r.body;
}

// A relay serving PostgreSQL writes its workflows, runs and approvals to the
// original's tables as it goes (besides its own buzz_state), so an original
// relay on the same database reads them: a status change and a deletion too.
TEST(Migrate, ARelayOnPostgresKeepsTheOriginalsWorkflowTablesCurrent) {
  PgTestDb pg("workflows_live");
  TempDir d;
  Keypair alice = engine::generate_keypair();
  std::string error;
  auto relay = RelayProcess::start(RelayOptions{{"--store", pg.url(), "--open", "--rate-limits", "false"}, {}, d.path}, &error);
  ASSERT_TRUE(relay) << error;
  auto c = NostrClient::connect_authed(*relay, alice, &error);
  ASSERT_TRUE(c) << error;
  const std::string ch = uuid();
  publish(*c, make_event(alice, 9007, "", {{"h", ch}, {"name", "flows"}}));
  HttpReply made = rest(*relay, alice, "POST", "/api/channels/" + ch + "/workflows", workflow_body(
      "name: Gate\ntrigger:\n  on: webhook\nsteps:\n  - id: ok\n    action: request_approval\n    from: any\n    message: go?\n"));
  ASSERT_EQ(made.status, 200) << made.body;
  const std::string id = field(made.body, "id");
  EXPECT_EQ(pg.scalar("SELECT name || ' ' || status || ' ' || (owner_pubkey = decode('" + engine::to_hex(alice.pubkey) +
                      "', 'hex')) FROM workflows WHERE id = '" + id + "'"), "Gate active true");
  HttpReply fired = http_call(relay->port(), "POST", "/hooks/" + id, {{"X-Webhook-Secret", field(made.body, "webhook_secret")}}, "{}");
  ASSERT_EQ(fired.status, 202) << fired.body;
  const std::string run = field(fired.body, "run_id");
  std::string parked;
  for (int i = 0; i < 200 && parked != "waiting_approval 1"; ++i) {
    parked = pg.scalar("SELECT r.status || ' ' || (SELECT count(*) FROM workflow_approvals a WHERE a.run_id = r.id) "
                       "FROM workflow_runs r WHERE r.id = '" + run + "'");
    if (parked != "waiting_approval 1") std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(parked, "waiting_approval 1") << "the run parked on its approval, as the original's rows";
  ASSERT_EQ(rest(*relay, alice, "PATCH", "/api/workflows/" + id, R"({"status":"archived"})").status, 200);
  EXPECT_EQ(pg.scalar("SELECT status FROM workflows WHERE id = '" + id + "'"), "archived");
  ASSERT_EQ(rest(*relay, alice, "DELETE", "/api/workflows/" + id).status, 204);
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM workflows WHERE id = '" + id + "'"), "0");
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM workflow_runs WHERE id = '" + run + "'"), "0");
}

// A relay serving PostgreSQL keeps the original's channels and channel_members
// rows current as its team changes (besides its own buzz_state), so an
// original relay on the same database reads the same team, and a workflow of a
// channel made while serving names it. What the relay refuses changes no row.
TEST(Migrate, ARelayOnPostgresKeepsTheOriginalsChannelTablesCurrent) {
  PgTestDb pg("channels_live");
  TempDir d;
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair(), carol = engine::generate_keypair(),
          mallory = engine::generate_keypair();
  std::string error;
  auto relay = RelayProcess::start(RelayOptions{{"--store", pg.url(), "--open", "--rate-limits", "false"}, {}, d.path}, &error);
  ASSERT_TRUE(relay) << error;
  auto a = NostrClient::connect_authed(*relay, alice, &error), b = NostrClient::connect_authed(*relay, bob, &error),
       m = NostrClient::connect_authed(*relay, mallory, &error);
  ASSERT_TRUE(a && b && m) << error;
  const std::string ch = uuid(), hb = engine::to_hex(bob.pubkey), hc = engine::to_hex(carol.pubkey);
  auto row = [&](const std::string& cols) { return pg.scalar("SELECT " + cols + " FROM channels WHERE id = '" + ch + "'"); };
  auto member = [&](const Keypair& k, const std::string& cols) {
    return pg.scalar("SELECT " + cols + " FROM channel_members WHERE channel_id = '" + ch + "' AND pubkey = decode('" +
                     engine::to_hex(k.pubkey) + "', 'hex')");
  };
  const std::string gone = "coalesce(removed_at::text, 'active')";

  publish(*a, make_event(alice, 9007, "", {{"h", ch}, {"name", "team"}, {"about", "plans"}, {"visibility", "private"}}));
  EXPECT_EQ(row("name || ' ' || channel_type || ' ' || visibility || ' ' || description || ' ' || "
                "(created_by = decode('" + engine::to_hex(alice.pubkey) + "', 'hex')) || ' ' || (deleted_at IS NULL)"),
            "team stream private plans true true");
  EXPECT_EQ(member(alice, "role || ' ' || " + gone), "owner active");

  publish(*a, make_event(alice, 9000, "", {{"h", ch}, {"p", hb}}));
  publish(*a, make_event(alice, 9000, "", {{"h", ch}, {"p", hc}, {"role", "admin"}}));
  EXPECT_EQ(member(bob, "role || ' ' || " + gone + " || ' ' || (invited_by = decode('" + engine::to_hex(alice.pubkey) + "', 'hex'))"),
            "member active true");
  EXPECT_EQ(member(carol, "role || ' ' || " + gone), "admin active");

  // Refused: a plain member renames, an outsider adds herself to the private channel.
  EXPECT_FALSE(b->publish(make_event(bob, 9002, "", {{"h", ch}, {"name", "bob's"}})).accepted);
  EXPECT_FALSE(m->publish(make_event(mallory, 9000, "", {{"h", ch}, {"p", engine::to_hex(mallory.pubkey)}})).accepted);
  EXPECT_FALSE(m->publish(make_event(mallory, 9021, "", {{"h", ch}})).accepted);
  EXPECT_EQ(row("name"), "team");
  EXPECT_EQ(member(mallory, "count(*)"), "0");

  // A role change, a removal, a rename.
  publish(*a, make_event(alice, 9000, "", {{"h", ch}, {"p", hb}, {"role", "admin"}}));
  EXPECT_EQ(member(bob, "role::text"), "admin");
  publish(*a, make_event(alice, 9001, "", {{"h", ch}, {"p", hc}}));
  EXPECT_EQ(member(carol, "(removed_at IS NOT NULL) || ' ' || (removed_by = decode('" + engine::to_hex(alice.pubkey) + "', 'hex'))"),
            "true true");
  publish(*a, make_event(alice, 9002, "", {{"h", ch}, {"name", "renamed"}, {"topic", "q3"}}));
  EXPECT_EQ(row("name || ' ' || topic"), "renamed q3");
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM channel_members WHERE channel_id = '" + ch + "' AND removed_at IS NULL"), "2");

  // A workflow of this channel, made while serving, names it in the original's row.
  HttpReply made = rest(*relay, alice, "POST", "/api/channels/" + ch + "/workflows", workflow_body(
      "name: Echo\ntrigger:\n  on: message_posted\nsteps:\n  - id: say\n    action: send_message\n    text: hi\n"));
  ASSERT_EQ(made.status, 200) << made.body;
  EXPECT_EQ(pg.scalar("SELECT channel_id FROM workflows WHERE id = '" + field(made.body, "id") + "'"), ch);

  // A DM: its participant hash, both members.
  OkReply dm = a->publish(make_event(alice, 41010, "", {{"p", hb}}));
  ASSERT_TRUE(dm.accepted) << dm.reason;
  EXPECT_EQ(pg.scalar("SELECT count(*) || ' ' || min(length(participant_hash)) || ' ' || "
                      "min((SELECT count(*) FROM channel_members cm WHERE cm.channel_id = c.id)) "
                      "FROM channels c WHERE channel_type = 'dm'"),
            "1 32 2");

  // Archived and back, then deleted (the original's soft delete).
  publish(*a, make_event(alice, 9002, "", {{"h", ch}, {"archived", "true"}}));
  EXPECT_EQ(row("(archived_at IS NOT NULL) || ' ' || (deleted_at IS NULL)"), "true true");
  publish(*a, make_event(alice, 9002, "", {{"h", ch}, {"archived", "false"}}));
  EXPECT_EQ(row("(archived_at IS NULL)::text"), "true");
  EXPECT_FALSE(b->publish(make_event(bob, 9008, "", {{"h", ch}})).accepted) << "only the owner deletes";
  EXPECT_EQ(row("(deleted_at IS NULL)::text"), "true");
  publish(*a, make_event(alice, 9008, "", {{"h", ch}}));
  EXPECT_EQ(row("(deleted_at IS NOT NULL)::text"), "true");
}

// A database an earlier Buzz served holds channels made while serving only in
// buzz_state: the next start writes them, their members and their workflows'
// channel_id to the original's tables, once.
TEST(Migrate, ARelayOnPostgresWritesTheChannelsAnEarlierVersionKeptToItself) {
  PgTestDb pg("channels_backfill");
  TempDir d;
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  const std::string ch = uuid();
  std::string workflow;
  RelayOptions opts{{"--store", pg.url(), "--open", "--rate-limits", "false"}, {}, d.path};
  {
    std::string error;
    auto relay = RelayProcess::start(opts, &error);
    ASSERT_TRUE(relay) << error;
    auto a = NostrClient::connect_authed(*relay, alice, &error);
    ASSERT_TRUE(a) << error;
    publish(*a, make_event(alice, 9007, "", {{"h", ch}, {"name", "older"}}));
    publish(*a, make_event(alice, 9000, "", {{"h", ch}, {"p", engine::to_hex(bob.pubkey)}}));
    HttpReply made = rest(*relay, alice, "POST", "/api/channels/" + ch + "/workflows", workflow_body(
        "name: Echo\ntrigger:\n  on: message_posted\nsteps:\n  - id: say\n    action: send_message\n    text: hi\n"));
    ASSERT_EQ(made.status, 200) << made.body;
    workflow = field(made.body, "id");
    ASSERT_TRUE(relay->terminate());
  }
  // As an earlier version left it: the team in buzz_state only.
  auto c = pg.connect();
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->exec("UPDATE workflows SET channel_id = NULL; DELETE FROM channel_members; DELETE FROM channels; "
                      "DELETE FROM buzz_serve_meta WHERE key = 'team_mirrored'"));
  std::string error;
  auto relay = RelayProcess::start(opts, &error);
  ASSERT_TRUE(relay) << error;
  EXPECT_EQ(pg.scalar("SELECT name FROM channels WHERE id = '" + ch + "'"), "older");
  EXPECT_EQ(pg.scalar("SELECT string_agg(role::text, ',' ORDER BY role) FROM channel_members WHERE channel_id = '" + ch + "'"),
            "owner,member");
  EXPECT_EQ(pg.scalar("SELECT channel_id FROM workflows WHERE id = '" + workflow + "'"), ch);
}

// A forged signature in the source stops the import with the row named; every
// event before it is stored, and once the row is right a rerun into the same
// directory finishes with nothing lost and nothing doubled.
TEST(Migrate, ImportRefusesABadSignatureAndARerunFinishes) {
  PgTestDb pg("badsig");
  TempDir a, b;
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  populate(a.path, alice, bob);
  if (HasFatalFailure()) return;
  buzz("migrate export --data-dir " + a.path + " --to '" + pg.url() + "'", 0);
  // The last event the import reads (live rows come oldest first), rebuilt from its columns.
  const std::string id = pg.scalar(
      "SELECT encode(id, 'hex') FROM events WHERE deleted_at IS NULL AND id NOT IN (SELECT id FROM buzz_event_raw) "
      "ORDER BY created_at DESC, id ASC LIMIT 1");
  const std::string sig = pg.scalar("SELECT encode(sig, 'hex') FROM events WHERE id = decode('" + id + "', 'hex')");
  auto c = pg.connect();
  ASSERT_TRUE(c->exec("UPDATE events SET sig = decode(repeat('ab', 64), 'hex') WHERE id = decode('" + id + "', 'hex')"));
  // Small batches: several are in the loader's pipeline when the bad one is checked.
  const std::string out = buzz("migrate import --from '" + pg.url() + "' --data-dir " + b.path + " --batch 3", 1);
  EXPECT_NE(out.find("table events, row id=" + id + ": invalid: invalid schnorr signature"), std::string::npos) << out;
  Snapshot before = snapshot(a.path);
  EXPECT_EQ(snapshot(b.path).events.size(), before.events.size() - 1) << "every event before the bad one is stored";

  ASSERT_TRUE(c->exec("UPDATE events SET sig = decode('" + sig + "', 'hex') WHERE id = decode('" + id + "', 'hex')"));
  buzz("migrate import --from '" + pg.url() + "' --data-dir " + b.path, 0);
  Snapshot after = snapshot(b.path);
  EXPECT_TRUE(before.events == after.events) << "every stored event, byte for byte, once each";
  EXPECT_EQ(before.channels, after.channels);
}

TEST(Migrate, JsonlRoundTrip) {
  TempDir a, b;
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  populate(a.path, alice, bob);
  if (HasFatalFailure()) return;
  const std::string file = a.path + "/events.jsonl";
  buzz("migrate export --data-dir " + a.path + " --to jsonl " + file, 0);
  buzz("migrate import --from jsonl " + file + " --data-dir " + b.path + " --json", 0);
  auto live = [](const Snapshot& s) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : s.events) {
      if (!(v[0] & engine::kRecordDeleted)) out[k] = v.substr(v.find('|') + 1);
    }
    return out;
  };
  Snapshot before = snapshot(a.path), after = snapshot(b.path);
  EXPECT_FALSE(live(before).empty());
  // A kind 5 whose target is deleted (so not exported) is refused on import,
  // as ingest refuses one whose target it never saw; everything else arrives.
  auto expected = live(before);
  std::erase_if(expected, [](const auto& kv) { return kv.second.find("\"kind\":5,") != std::string::npos; });
  EXPECT_TRUE(expected == live(after)) << "every live event, byte for byte";


  // A forged line stops the import and names the line.
  std::ofstream(file, std::ios::app) << R"({"id":"00","pubkey":"00","created_at":1,"kind":1,"tags":[],"content":"","sig":"00"})" << "\n";
  TempDir c;
  const std::string out = buzz("migrate import --from jsonl " + file + " --data-dir " + c.path, 1);
  EXPECT_NE(out.find("line " + std::to_string(live(before).size() + 1)), std::string::npos) << out;
}

TEST(Migrate, BadTargetsFailNamingTheCause) {
  TempDir a;
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  populate(a.path, alice, bob);
  if (HasFatalFailure()) return;
  PgTestDb pg("badtargets");
  std::string out = buzz("migrate export --data-dir " + a.path + "/typo --to '" + pg.url() + "'", 1);
  EXPECT_NE(out.find("no data directory"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(a.path + "/typo")) << "a mistyped path is not created";
  out = buzz("migrate export --data-dir " + a.path + " --to postgres://buzz:x@127.0.0.1:1/none", 1);
  EXPECT_NE(out.find("cannot connect"), std::string::npos) << out;
  EXPECT_EQ(out.find("buzz:x@"), std::string::npos) << "the password is not printed";
  out = buzz("migrate export --data-dir " + a.path + " --to '" + pg.url("wrong") + "'", 1);
  EXPECT_NE(out.find("password authentication failed"), std::string::npos) << out;
  out = buzz("migrate export --data-dir " + a.path + " --to '" + pg.url() + "' --batch 5x", 2);
  EXPECT_NE(out.find("--batch must be a whole number above 0, not '5x'"), std::string::npos) << out;

  PgTestDb odd("unknownschema");
  ASSERT_TRUE(odd.connect()->exec("CREATE TABLE events (id INT, body TEXT)"));
  out = buzz("migrate export --data-dir " + a.path + " --to '" + odd.url() + "'", 1);
  EXPECT_NE(out.find("unknown schema version"), std::string::npos) << out;
  out = buzz("migrate import --from '" + odd.url() + "' --data-dir " + a.path + "/new", 1);
  EXPECT_NE(out.find("unknown schema version"), std::string::npos) << out;

  // Someone else already holds alice's NIP-05 handle: the users batch breaks a
  // unique constraint, is rolled back whole, and nothing after it is written.
  auto c = pg.connect();
  ASSERT_TRUE(c->exec(migrate::head_schema_sql()));
  ASSERT_TRUE(c->exec("INSERT INTO users (pubkey, nip05_handle) VALUES (decode(repeat('ab', 32), 'hex'), 'alice@127.0.0.1')"));
  out = buzz("migrate export --data-dir " + a.path + " --to '" + pg.url() + "'", 1);
  EXPECT_NE(out.find("table users, row pubkey=" + engine::to_hex(alice.pubkey)), std::string::npos) << out;
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM users"), "1") << "the failed batch left nothing behind";
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM events"), "0");

  // The events go in COPY's binary format: a row PostgreSQL refuses there is named too.
  PgTestDb clash("eventclash");
  auto cc = clash.connect();
  ASSERT_TRUE(cc->exec(migrate::head_schema_sql()));
  engine::Id taken{};
  uint64_t taken_at = 0;
  {
    auto db = engine::RocksDatabase::open(a.path + "/db", engine::DatabaseOptions{});
    ASSERT_TRUE(db) << db.error();
    engine::RocksEventStore store(**db);
    ASSERT_TRUE(store.scan_records(engine::StorageFamily::kRegular, {}, [&](engine::StorageFamily, const engine::RecordView& r) {
      std::memcpy(taken.data(), r.fields.id, 32);
      taken_at = r.fields.created_at;
      return false;
    }));
  }
  ASSERT_TRUE(cc->exec("INSERT INTO events (id, pubkey, created_at, kind, tags, content, sig) VALUES (decode('" +
                       engine::to_hex(taken) + "', 'hex'), '\\x00', to_timestamp(" + std::to_string(taken_at) +
                       "), 1, '[]', '', '\\x00')"));
  out = buzz("migrate export --data-dir " + a.path + " --to '" + clash.url() + "'", 1);
  EXPECT_NE(out.find("table events, row id=" + engine::to_hex(taken)), std::string::npos) << out;
  EXPECT_EQ(clash.scalar("SELECT count(*) FROM events"), "1") << "the failed batch left nothing behind";
}

// Signs n short messages straight into a store (the fast way to a big directory).
void fill(const std::string& data_dir, size_t n) {
  auto db = engine::RocksDatabase::open(data_dir + "/db", engine::DatabaseOptions{});
  ASSERT_TRUE(db) << db.error();
  engine::RocksEventStore store(**db);
  Keypair key = engine::generate_keypair();
  std::vector<Event> events;
  for (size_t i = 0; i < n; ++i) {
    events.push_back(make_event(key, 1, "message " + std::to_string(i), {{"t", "bulk"}}, 1700000000 + i));
    if (events.size() == 1000 || i + 1 == n) {
      std::vector<engine::WriteRequest> reqs;
      for (const Event& e : events) reqs.push_back({&e, {}});
      ASSERT_TRUE(store.write(reqs));
      events.clear();
    }
  }
}

TEST(Migrate, KillNineMidExportThenRerunHasNoDuplicates) {
  TempDir a;
  fill(a.path, 60000);
  if (HasFatalFailure()) return;
  PgTestDb pg("killnine");
  std::string error;
  const pid_t child = client::start_child(
      {.args = {std::getenv("BUZZ_BINARY"), "migrate", "export", "--data-dir", a.path, "--to", pg.url(), "--batch", "2000", "--json"}},
      &error);
  ASSERT_GT(child, 0) << error;
  // Kill it once some event batches are committed, and before it is done.
  bool killed_mid_way = false;
  for (int i = 0; i < 600 && !killed_mid_way; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto c = migrate::PgConnection::connect(pg.url());
    if (!c) continue;
    auto rows = (*c)->query("SELECT done FROM buzz_migrate_progress WHERE step = 'events'");
    if (rows && !rows->empty() && (*rows)[0].values[0] == "f") {
      kill(child, SIGKILL);
      killed_mid_way = true;
    }
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(killed_mid_way) << "the export finished before it could be interrupted";
  const std::string partial = pg.scalar("SELECT count(*) FROM events");
  EXPECT_LT(std::stoi(partial), 60000);
  buzz("migrate export --data-dir " + a.path + " --to '" + pg.url() + "'", 0);
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM events"), "60000");
  EXPECT_EQ(pg.scalar("SELECT count(DISTINCT id) FROM events"), "60000");
  // The events went as two halves over two connections, each resumed where it stopped.
  EXPECT_EQ(pg.scalar("SELECT length(last_key) FROM buzz_migrate_progress WHERE step = 'events split'"), "8");
  EXPECT_EQ(pg.scalar("SELECT count(*) FROM buzz_migrate_progress WHERE step IN ('events', 'events, older half') AND done"), "2");
}

// A database as the original writes it (original_db.h) imports, from either schema.
TEST(Migrate, ImportsADatabaseTheOriginalWrote) {
  for (const bool seed_era : {false, true}) {
    SCOPED_TRACE(seed_era ? "seed-era schema" : "HEAD schema");
    PgTestDb pg(seed_era ? "original_seed" : "original_head");
    Keypair alice = engine::generate_keypair();
    const OriginalDb original = write_original_db(*pg.connect(), alice, seed_era);
    const std::string& ch = original.channel;
    const std::string pk = engine::to_hex(alice.pubkey);
    const Event& msg = original.message;
    const engine::AuditEntry& e = original.audit;
    TempDir d;
    const std::string out = buzz("migrate import --from '" + pg.url() + "' --data-dir " + d.path + " --json", 0);
    EXPECT_NE(out.find(seed_era ? "the seed schema" : "the head schema"), std::string::npos) << out;
    EXPECT_NE(out.find("\"audit_recovered_ns\":1"), std::string::npos) << out;
    EXPECT_EQ(buzz("audit head --data-dir " + d.path, 0), "{\"seq\":1,\"hash\":\"" + e.hash + "\"}\n");
    Snapshot s = snapshot(d.path);
    ASSERT_EQ(s.events.size(), 1u);
    EXPECT_EQ(s.events.begin()->second, std::string(1, '\0') + ch + "|" + engine::serialize_event(msg));
    ASSERT_EQ(s.channels.count(ch), 1u);
    EXPECT_EQ(s.join_order[ch], std::vector<std::string>{pk});
  }
}

TEST(Migrate, TypesenseExportFollowsTheCollectionMapping) {
  TempDir a, out;
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  populate(a.path, alice, bob);
  if (HasFatalFailure()) return;
  buzz("migrate export --data-dir " + a.path + " --to typesense-jsonl " + out.path, 0);
  std::ifstream schema(out.path + "/collection.json");
  std::string text((std::istreambuf_iterator<char>(schema)), {});
  EXPECT_NE(text.find(R"("default_sorting_field":"created_at")"), std::string::npos);
  std::ifstream docs(out.path + "/documents.jsonl");
  std::string line, all;
  size_t n = 0;
  while (std::getline(docs, line)) ++n, all += line + "\n";
  EXPECT_GT(n, 5u);
  EXPECT_NE(all.find(R"("channel_id":"__global__")"), std::string::npos);
  EXPECT_NE(all.find(R"("tags_flat":["d\u001fpost-1","title\u001fT"])"), std::string::npos) << all;
  EXPECT_NE(all.find("} Alice alice@127.0.0.1\""), std::string::npos) << "kind 0: names appended";
  EXPECT_EQ(all.find("to be deleted"), std::string::npos) << "deleted events are not documents";
}

}  // namespace
}  // namespace buzz::test
