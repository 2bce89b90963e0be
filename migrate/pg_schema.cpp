// The upstream schema and its version check; see pg_schema.h.
#include "migrate/pg_schema.h"

#include <map>
#include <set>

namespace buzz::migrate {

const std::string& head_schema_sql() {
  static const std::string sql = std::string(R"SQL(
DO $$ BEGIN
  CREATE TYPE channel_type AS ENUM ('stream', 'forum', 'dm', 'workflow');
  CREATE TYPE channel_visibility AS ENUM ('open', 'private');
  CREATE TYPE member_role AS ENUM ('owner', 'admin', 'member', 'guest', 'bot');
  CREATE TYPE workflow_status AS ENUM ('active', 'disabled', 'archived');
  CREATE TYPE run_status AS ENUM ('pending', 'running', 'waiting_approval', 'completed', 'failed', 'cancelled');
  CREATE TYPE approval_status AS ENUM ('pending', 'granted', 'denied', 'expired');
  CREATE TYPE delivery_method AS ENUM ('webhook', 'websocket');
  CREATE TYPE subscription_status AS ENUM ('active', 'paused', 'deleted');
  CREATE TYPE pause_reason AS ENUM ('user', 'system', 'rate_limit');
  CREATE TYPE channel_add_policy AS ENUM ('anyone', 'owner_only', 'nobody');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

CREATE TABLE IF NOT EXISTS channels (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  name VARCHAR(255) NOT NULL,
  channel_type channel_type NOT NULL DEFAULT 'stream',
  visibility channel_visibility NOT NULL DEFAULT 'open',
  description TEXT, canvas TEXT,
  created_by BYTEA NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(), updated_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
  archived_at TIMESTAMPTZ, deleted_at TIMESTAMPTZ,
  nip29_group_id VARCHAR(255) UNIQUE,
  topic_required BOOLEAN NOT NULL DEFAULT FALSE,
  max_members INT,
  topic TEXT, topic_set_by BYTEA, topic_set_at TIMESTAMPTZ,
  purpose TEXT, purpose_set_by BYTEA, purpose_set_at TIMESTAMPTZ,
  participant_hash BYTEA,
  ttl_seconds INT, ttl_deadline TIMESTAMPTZ,
  CONSTRAINT chk_channels_id_not_nil CHECK (id <> '00000000-0000-0000-0000-000000000000'));
CREATE INDEX IF NOT EXISTS idx_channels_type ON channels (channel_type);
CREATE INDEX IF NOT EXISTS idx_channels_visibility ON channels (visibility);
CREATE INDEX IF NOT EXISTS idx_channels_created_by ON channels (created_by);
CREATE UNIQUE INDEX IF NOT EXISTS idx_channels_dm_hash ON channels (participant_hash);
CREATE INDEX IF NOT EXISTS idx_channels_ttl_expiry ON channels (ttl_deadline)
  WHERE ttl_seconds IS NOT NULL AND archived_at IS NULL AND deleted_at IS NULL;

CREATE TABLE IF NOT EXISTS channel_members (
  channel_id UUID NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
  pubkey BYTEA NOT NULL,
  role member_role NOT NULL DEFAULT 'member',
  joined_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
  invited_by BYTEA, removed_at TIMESTAMPTZ, removed_by BYTEA, hidden_at TIMESTAMPTZ,
  PRIMARY KEY (channel_id, pubkey));
CREATE INDEX IF NOT EXISTS idx_channel_members_pubkey ON channel_members (pubkey) WHERE removed_at IS NULL;

CREATE TABLE IF NOT EXISTS users (
  pubkey BYTEA PRIMARY KEY,
  nip05_handle VARCHAR(255) UNIQUE,
  display_name VARCHAR(255), avatar_url TEXT, about TEXT, agent_type VARCHAR(255), capabilities JSONB,
  okta_user_id VARCHAR(255) UNIQUE,
  created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(), updated_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
  deactivated_at TIMESTAMPTZ,
  metadata_event_id BYTEA,
  agent_owner_pubkey BYTEA REFERENCES users(pubkey) ON DELETE SET NULL,
  channel_add_policy channel_add_policy NOT NULL DEFAULT 'anyone',
  CONSTRAINT chk_users_pubkey_len CHECK (LENGTH(pubkey) = 32));

CREATE TABLE IF NOT EXISTS events (
  id BYTEA NOT NULL, pubkey BYTEA NOT NULL, created_at TIMESTAMPTZ NOT NULL, kind INT NOT NULL,
  tags JSONB NOT NULL, content TEXT NOT NULL, sig BYTEA NOT NULL,
  received_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
  channel_id UUID, deleted_at TIMESTAMPTZ, d_tag TEXT,
  PRIMARY KEY (created_at, id)) PARTITION BY RANGE (created_at);
CREATE TABLE IF NOT EXISTS events_p_past PARTITION OF events FOR VALUES FROM (MINVALUE) TO ('2026-01-01');
CREATE TABLE IF NOT EXISTS events_p2026_01 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2026-02-01');
CREATE TABLE IF NOT EXISTS events_p2026_02 PARTITION OF events FOR VALUES FROM ('2026-02-01') TO ('2026-03-01');
CREATE TABLE IF NOT EXISTS events_p2026_03 PARTITION OF events FOR VALUES FROM ('2026-03-01') TO ('2026-04-01');
CREATE TABLE IF NOT EXISTS events_p2026_04 PARTITION OF events FOR VALUES FROM ('2026-04-01') TO ('2026-05-01');
CREATE TABLE IF NOT EXISTS events_p2026_05 PARTITION OF events FOR VALUES FROM ('2026-05-01') TO ('2026-06-01');
CREATE TABLE IF NOT EXISTS events_p2026_06 PARTITION OF events FOR VALUES FROM ('2026-06-01') TO ('2026-07-01');
CREATE TABLE IF NOT EXISTS events_p_future PARTITION OF events FOR VALUES FROM ('2026-07-01') TO (MAXVALUE);

CREATE TABLE IF NOT EXISTS event_mentions (
  pubkey_hex VARCHAR(64) NOT NULL, event_id BYTEA NOT NULL, event_created_at TIMESTAMPTZ NOT NULL,
  channel_id UUID, event_kind INT,
  PRIMARY KEY (pubkey_hex, event_id));
CREATE INDEX IF NOT EXISTS idx_event_mentions_pubkey_created ON event_mentions (pubkey_hex, event_created_at DESC);
CREATE INDEX IF NOT EXISTS idx_event_mentions_pubkey_kind_created ON event_mentions (pubkey_hex, event_kind, event_created_at DESC);

CREATE TABLE IF NOT EXISTS subscriptions (
  id VARCHAR(255) PRIMARY KEY, owner_pubkey BYTEA NOT NULL REFERENCES users(pubkey),
  filter_kinds JSONB, filter_authors JSONB, filter_channel_ids JSONB,
  filter_since TIMESTAMPTZ, filter_until TIMESTAMPTZ,
  delivery_method delivery_method NOT NULL DEFAULT 'webhook', delivery_url TEXT,
  status subscription_status NOT NULL DEFAULT 'active', pause_reason pause_reason,
  delivered_count BIGINT NOT NULL DEFAULT 0, error_count BIGINT NOT NULL DEFAULT 0,
  created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(), updated_at TIMESTAMPTZ NOT NULL DEFAULT NOW());

CREATE TABLE IF NOT EXISTS delivery_log (
  id BIGINT GENERATED ALWAYS AS IDENTITY, subscription_id VARCHAR(255), event_id BYTEA,
  method delivery_method, delivered_at TIMESTAMPTZ NOT NULL DEFAULT NOW(), success BOOLEAN,
  http_status INT, error_message TEXT, attempt_number INT DEFAULT 1,
  PRIMARY KEY (delivered_at, id)) PARTITION BY RANGE (delivered_at);
CREATE TABLE IF NOT EXISTS delivery_log_p_past PARTITION OF delivery_log FOR VALUES FROM (MINVALUE) TO ('2026-03-01');
CREATE TABLE IF NOT EXISTS delivery_log_p2026_03 PARTITION OF delivery_log FOR VALUES FROM ('2026-03-01') TO ('2026-04-01');
CREATE TABLE IF NOT EXISTS delivery_log_p2026_04 PARTITION OF delivery_log FOR VALUES FROM ('2026-04-01') TO ('2026-05-01');
CREATE TABLE IF NOT EXISTS delivery_log_p2026_05 PARTITION OF delivery_log FOR VALUES FROM ('2026-05-01') TO ('2026-06-01');
CREATE TABLE IF NOT EXISTS delivery_log_p2026_06 PARTITION OF delivery_log FOR VALUES FROM ('2026-06-01') TO ('2026-07-01');
CREATE TABLE IF NOT EXISTS delivery_log_p_future PARTITION OF delivery_log FOR VALUES FROM ('2026-07-01') TO (MAXVALUE);

CREATE TABLE IF NOT EXISTS workflows (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(), name VARCHAR(255) NOT NULL,
  owner_pubkey BYTEA NOT NULL REFERENCES users(pubkey), channel_id UUID REFERENCES channels(id),
  definition JSONB NOT NULL, definition_hash BYTEA NOT NULL,
  status workflow_status NOT NULL DEFAULT 'active', enabled BOOLEAN NOT NULL DEFAULT TRUE,
  created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(), updated_at TIMESTAMPTZ NOT NULL DEFAULT NOW());
CREATE INDEX IF NOT EXISTS idx_workflows_channel_active ON workflows (channel_id, status, enabled);

CREATE TABLE IF NOT EXISTS workflow_runs (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  workflow_id UUID NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
  status run_status NOT NULL DEFAULT 'pending', trigger_event_id BYTEA,
  current_step INT NOT NULL DEFAULT 0, execution_trace JSONB NOT NULL DEFAULT '[]', trigger_context JSONB,
  started_at TIMESTAMPTZ, completed_at TIMESTAMPTZ, error_message TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT NOW());
CREATE INDEX IF NOT EXISTS idx_workflow_runs_workflow ON workflow_runs (workflow_id);
CREATE INDEX IF NOT EXISTS idx_workflow_runs_status ON workflow_runs (status);

CREATE TABLE IF NOT EXISTS workflow_approvals (
  token BYTEA PRIMARY KEY,
  workflow_id UUID NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
  run_id UUID NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
  step_id VARCHAR(64) NOT NULL, step_index INT NOT NULL, approver_spec TEXT NOT NULL,
  status approval_status NOT NULL DEFAULT 'pending', approver_pubkey BYTEA, note TEXT,
  granted_at TIMESTAMPTZ, denied_at TIMESTAMPTZ, expires_at TIMESTAMPTZ NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT NOW());
CREATE INDEX IF NOT EXISTS idx_workflow_approvals_workflow ON workflow_approvals (workflow_id);
CREATE INDEX IF NOT EXISTS idx_workflow_approvals_run ON workflow_approvals (run_id);
CREATE INDEX IF NOT EXISTS idx_workflow_approvals_status ON workflow_approvals (status);

CREATE TABLE IF NOT EXISTS api_tokens (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash BYTEA NOT NULL UNIQUE,
  owner_pubkey BYTEA NOT NULL REFERENCES users(pubkey),
  name VARCHAR(255) NOT NULL, scopes JSONB NOT NULL, channel_ids JSONB,
  created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
  expires_at TIMESTAMPTZ, last_used_at TIMESTAMPTZ, revoked_at TIMESTAMPTZ, revoked_by BYTEA,
  created_by_self_mint BOOLEAN NOT NULL DEFAULT FALSE,
  CONSTRAINT chk_api_tokens_hash_len CHECK (LENGTH(token_hash) = 32));

CREATE TABLE IF NOT EXISTS rate_limit_violations (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, pubkey BYTEA,
  violation_at TIMESTAMPTZ NOT NULL DEFAULT NOW(), limit_type VARCHAR(64),
  limit_value INT, actual_value INT, action_taken VARCHAR(64));

CREATE TABLE IF NOT EXISTS thread_metadata (
  event_created_at TIMESTAMPTZ NOT NULL, event_id BYTEA NOT NULL,
  channel_id UUID NOT NULL REFERENCES channels(id),
  parent_event_id BYTEA, parent_event_created_at TIMESTAMPTZ,
  root_event_id BYTEA, root_event_created_at TIMESTAMPTZ,
  depth INT NOT NULL DEFAULT 0, reply_count INT NOT NULL DEFAULT 0, descendant_count INT NOT NULL DEFAULT 0,
  last_reply_at TIMESTAMPTZ, broadcast BOOLEAN NOT NULL DEFAULT FALSE,
  PRIMARY KEY (event_created_at, event_id));
CREATE INDEX IF NOT EXISTS idx_thread_metadata_parent ON thread_metadata (parent_event_id);
CREATE INDEX IF NOT EXISTS idx_thread_metadata_root ON thread_metadata (root_event_id);
CREATE INDEX IF NOT EXISTS idx_thread_metadata_channel_depth ON thread_metadata (channel_id, depth, event_created_at);
CREATE INDEX IF NOT EXISTS idx_thread_metadata_event_id ON thread_metadata (event_id);

CREATE TABLE IF NOT EXISTS reactions (
  event_created_at TIMESTAMPTZ NOT NULL, event_id BYTEA NOT NULL, pubkey BYTEA NOT NULL,
  emoji VARCHAR(64) NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
  removed_at TIMESTAMPTZ, reaction_event_id BYTEA,
  PRIMARY KEY (event_created_at, event_id, pubkey, emoji));
CREATE INDEX IF NOT EXISTS idx_reactions_event ON reactions (event_id, event_created_at);
CREATE INDEX IF NOT EXISTS idx_reactions_pubkey ON reactions (pubkey);
CREATE UNIQUE INDEX IF NOT EXISTS idx_reactions_source_event ON reactions (reaction_event_id);

CREATE TABLE IF NOT EXISTS pubkey_allowlist (
  pubkey BYTEA PRIMARY KEY, added_by BYTEA, added_at TIMESTAMPTZ NOT NULL DEFAULT NOW(), note TEXT);

CREATE TABLE IF NOT EXISTS relay_members (
  pubkey TEXT PRIMARY KEY,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  added_by TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(), updated_at TIMESTAMPTZ NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS idx_relay_members_role ON relay_members (role);

CREATE TABLE IF NOT EXISTS archived_identities (
  pubkey TEXT PRIMARY KEY,
  consent_path TEXT NOT NULL CHECK (consent_path IN ('self', 'owner', 'admin')),
  actor TEXT NOT NULL, reason TEXT, replaced_by TEXT, request_event_id TEXT NOT NULL,
  archived_at TIMESTAMPTZ NOT NULL DEFAULT now());

CREATE TABLE IF NOT EXISTS buzz_event_raw (id BYTEA PRIMARY KEY, raw TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS buzz_migrate_progress (step TEXT PRIMARY KEY, last_key BYTEA NOT NULL, done BOOLEAN NOT NULL);
)SQL") + audit_schema_sql();
  return sql;
}

const std::string& audit_schema_sql() {
  static const std::string sql = R"SQL(
CREATE TABLE IF NOT EXISTS audit_log (
  seq BIGINT NOT NULL PRIMARY KEY, timestamp TIMESTAMPTZ NOT NULL DEFAULT NOW(),
  event_id VARCHAR(255) NOT NULL, event_kind INT NOT NULL, actor_pubkey VARCHAR(255) NOT NULL,
  action VARCHAR(64) NOT NULL, channel_id BYTEA, metadata JSONB NOT NULL,
  prev_hash VARCHAR(64) NOT NULL, hash VARCHAR(64) NOT NULL);
CREATE INDEX IF NOT EXISTS idx_audit_log_timestamp ON audit_log (timestamp);
CREATE INDEX IF NOT EXISTS idx_audit_log_actor ON audit_log (actor_pubkey);
CREATE INDEX IF NOT EXISTS idx_audit_log_channel ON audit_log (channel_id);
)SQL";
  return sql;
}

const std::vector<std::string>& event_index_statements() {
  static const std::vector<std::string> statements = {
      "CREATE INDEX IF NOT EXISTS idx_events_pubkey_kind_created ON events (pubkey, kind, created_at)",
      "CREATE INDEX IF NOT EXISTS idx_events_channel_created ON events (channel_id, created_at)",
      "CREATE INDEX IF NOT EXISTS idx_events_kind_created ON events (kind, created_at)",
      "CREATE INDEX IF NOT EXISTS idx_events_id ON events (id)",
      "CREATE INDEX IF NOT EXISTS idx_events_deleted ON events (deleted_at)",
      "CREATE INDEX IF NOT EXISTS idx_events_addressable ON events (kind, pubkey, channel_id, deleted_at)",
      "CREATE INDEX IF NOT EXISTS idx_events_parameterized ON events (kind, pubkey, d_tag, deleted_at) WHERE d_tag IS NOT NULL",
  };
  return statements;
}

const std::string& event_index_sql() {
  static const std::string sql = [] {
    std::string out;
    for (const std::string& st : event_index_statements()) out += st + ";\n";
    return out;
  }();
  return sql;
}

const std::string& event_index_drop_sql() {
  static const std::string sql =
      "DROP INDEX IF EXISTS idx_events_pubkey_kind_created, idx_events_channel_created, idx_events_kind_created, "
      "idx_events_id, idx_events_deleted, idx_events_addressable, idx_events_parameterized";
  return sql;
}

const std::string& serve_schema_sql() {
  static const std::string sql = std::string(R"SQL(
CREATE TABLE IF NOT EXISTS buzz_event_raw (id BYTEA PRIMARY KEY, raw TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS buzz_state (
  tbl SMALLINT NOT NULL, node TEXT NOT NULL DEFAULT '', key BYTEA NOT NULL, value BYTEA NOT NULL,
  PRIMARY KEY (tbl, node, key));
CREATE TABLE IF NOT EXISTS buzz_serve_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO buzz_serve_meta (key, value) VALUES ('team_version', '0') ON CONFLICT (key) DO NOTHING;
CREATE TABLE IF NOT EXISTS buzz_team_changes (channel TEXT PRIMARY KEY, version BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS buzz_team_changes_version ON buzz_team_changes (version);
CREATE INDEX IF NOT EXISTS buzz_events_tags ON events USING GIN (tags jsonb_path_ops);
-- Receipts: one message's deliveries on every node (docs/storage.md, "Deliveries").
CREATE INDEX IF NOT EXISTS buzz_delivery_log_event ON delivery_log (event_id);
-- NIP-40: the expiration the reads and the reaper use (docs/storage.md, "Expiration");
-- rows written before the column, or by an import, get it from their first expiration tag.
ALTER TABLE events ADD COLUMN IF NOT EXISTS expires_at TIMESTAMPTZ;
CREATE INDEX IF NOT EXISTS buzz_events_expiry ON events (expires_at) WHERE expires_at IS NOT NULL;
UPDATE events e SET expires_at = to_timestamp(LEAST(x.v::numeric, 9000000000000)) FROM (
  SELECT id, created_at, (SELECT t->>1 FROM jsonb_array_elements(tags) WITH ORDINALITY AS a(t, n)
                          WHERE jsonb_typeof(t) = 'array' AND t->>0 = 'expiration' AND jsonb_array_length(t) >= 2
                          ORDER BY n LIMIT 1) AS v
  FROM events WHERE expires_at IS NULL AND tags @> '[["expiration"]]') x
WHERE e.id = x.id AND e.created_at = x.created_at AND x.v ~ '^[0-9]{1,19}$';
CREATE INDEX IF NOT EXISTS buzz_events_text ON events USING GIN ()SQL") + kSearchVector + ");\n";
  return sql;
}

engine::Result<SchemaVersion> detect_schema(PgConnection& pg) {
  auto rows = pg.query(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()");
  if (!rows) return engine::Error{"cannot read the schema: " + rows.error()};
  std::map<std::string, std::set<std::string>> columns;
  for (const PgRow& r : *rows) columns[r.values[0]].insert(r.values[1]);
  if (!columns.count("events")) return SchemaVersion::kEmpty;
  // The columns every version has, which the importer reads.
  const std::map<std::string, std::vector<std::string>> required = {
      {"events", {"id", "pubkey", "created_at", "kind", "tags", "content", "sig", "channel_id", "deleted_at"}},
      {"channels", {"id", "name", "channel_type", "visibility", "created_by", "created_at", "deleted_at", "participant_hash"}},
      {"channel_members", {"channel_id", "pubkey", "role", "joined_at", "removed_at"}},
      {"users", {"pubkey", "agent_owner_pubkey", "channel_add_policy"}},
      {"api_tokens", {"token_hash", "owner_pubkey", "scopes", "channel_ids"}},
  };
  for (const auto& [table, cols] : required) {
    auto it = columns.find(table);
    if (it == columns.end()) return engine::Error{"unknown schema version: table " + table + " is missing"};
    for (const std::string& c : cols) {
      if (!it->second.count(c)) return engine::Error{"unknown schema version: table " + table + " has no column " + c};
    }
  }
  const bool head = columns["events"].count("d_tag") && columns.count("relay_members");
  const bool seed = !columns["events"].count("d_tag") && !columns.count("relay_members");
  if (head) return SchemaVersion::kHead;
  if (seed) return SchemaVersion::kSeed;
  return engine::Error{"unknown schema version: events.d_tag and the relay_members table must come together"};
}

}  // namespace buzz::migrate
