// A database as the original writes it (docs/reference/compat-backends.md §1): its schema and
// rows written by its rules — a user, a private channel she owns, one message
// in it, and the audit row of that message hashed over a nanosecond timestamp
// (docs/reference/audit.md §3.2). Read by `buzz migrate import` and served by `buzz serve --store`.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "engine/audit_entry.h"
#include "engine/canonical.h"
#include "engine/channel.h"
#include "engine/signature.h"
#include "migrate/pg_connection.h"
#include "migrate/pg_schema.h"
#include "tests/e2e/nostr_client.h"

namespace buzz::test {

struct OriginalDb {
  engine::Event message;
  std::string channel;
  engine::AuditEntry audit;  // the one row of audit_log, with the text upstream hashed
};

inline OriginalDb write_original_db(migrate::PgConnection& c, const engine::Keypair& alice, bool seed_era) {
  OriginalDb db;
  EXPECT_TRUE(c.exec(migrate::head_schema_sql() + migrate::event_index_sql()));
  EXPECT_TRUE(c.exec("DROP TABLE buzz_event_raw; DROP TABLE buzz_migrate_progress"));
  if (seed_era) {
    EXPECT_TRUE(c.exec("ALTER TABLE events DROP COLUMN d_tag; DROP TABLE relay_members; DROP TABLE archived_identities;"
                       "ALTER TABLE channels DROP COLUMN ttl_seconds, DROP COLUMN ttl_deadline"));
  }
  db.channel = engine::random_uuid();
  const std::string& ch = db.channel;
  const std::string pk = engine::to_hex(alice.pubkey);
  db.message = make_event(alice, 9, "from the original", {{"h", ch}, {"p", pk}});
  const engine::Event& msg = db.message;
  EXPECT_TRUE(c.exec("INSERT INTO users (pubkey, display_name) VALUES (decode('" + pk + "', 'hex'), 'Alice')"));
  EXPECT_TRUE(c.exec("INSERT INTO channels (id, name, visibility, created_by) VALUES ('" + ch + "', 'old', 'private', decode('" + pk + "', 'hex'))"));
  EXPECT_TRUE(c.exec("INSERT INTO channel_members (channel_id, pubkey, role) VALUES ('" + ch + "', decode('" + pk + "', 'hex'), 'owner')"));
  std::string tags;
  engine::append_json_tags(tags, msg.tags);
  EXPECT_TRUE(c.exec("INSERT INTO events (id, pubkey, created_at, kind, tags, content, sig, channel_id) VALUES (decode('" +
                     msg.id_hex() + "', 'hex'), decode('" + pk + "', 'hex'), to_timestamp(" + std::to_string(msg.created_at) +
                     "), 9, '" + tags + "', 'from the original', decode('" + engine::to_hex(msg.sig) + "', 'hex'), '" + ch + "')"));
  engine::AuditEntry& e = db.audit;
  e.seq = 1;
  e.ts = "2026-05-01T10:00:00.123456789+00:00";  // what upstream hashed; the table keeps microseconds
  e.event_id = msg.id_hex();
  e.kind = 9;
  e.actor = pk;
  e.action = "event_created";
  e.channel = ch;
  e.prev_hash = std::string(engine::kAuditGenesisHash);
  e.hash = engine::audit_hash(e);
  std::string uuid_hex = ch;
  std::erase(uuid_hex, '-');
  EXPECT_TRUE(c.exec("INSERT INTO audit_log VALUES (1, '2026-05-01 10:00:00.123456+00', '" + e.event_id + "', 9, '" + pk +
                     "', 'event_created', decode('" + uuid_hex + "', 'hex'), 'null', '" + e.prev_hash + "', '" + e.hash + "')"));
  return db;
}

}  // namespace buzz::test
