#!/usr/bin/env bash
# PostgreSQL's own floor for `buzz migrate export` (docs/performance.md): the rows
# an export wrote, loaded again by psql's \copy with nothing of ours, then the
# seven idx_events_* indexes built as the export builds them (two connections).
#
#   bench/migrate/export_floor.sh SOCKDIR DB
#
# DB is a database `buzz migrate export` filled. Its events and event_mentions
# rows go to files (not timed); a copy of DB (CREATE DATABASE … TEMPLATE) is
# emptied, its events indexes dropped, and the timed part is:
#   copy:    \copy events FROM the file, then \copy event_mentions FROM its file
#   indexes: the seven CREATE INDEX statements, split over two connections, once
#            with PostgreSQL's default parallel workers and once without; the
#            floor counts the faster
# Prints one JSON line; the copy is dropped afterwards.
set -euo pipefail
sock=${1:?SOCKDIR}; db=${2:?DB}
url() { echo "postgresql://buzz:buzz_dev@/$1?host=$sock"; }
work=$(mktemp -d /tmp/buzz-export-floor.XXXXXX)
trap 'rm -rf "$work"; psql -q "$(url postgres)" -c "DROP DATABASE IF EXISTS export_floor" >/dev/null 2>&1 || true' EXIT
chmod 777 "$work"
now() { date +%s.%N; }

psql -q "$(url "$db")" -c "\\copy (SELECT * FROM events) TO '$work/events'" \
  -c "\\copy (SELECT * FROM event_mentions) TO '$work/mentions'"
rows=$(psql -qtA "$(url "$db")" -c "SELECT count(*) FROM events")
psql -q "$(url postgres)" -c "DROP DATABASE IF EXISTS export_floor" -c "CREATE DATABASE export_floor TEMPLATE $db"
floor=$(url export_floor)
psql -q "$floor" -c "TRUNCATE events, event_mentions" \
  -c "DROP INDEX IF EXISTS idx_events_pubkey_kind_created, idx_events_channel_created, idx_events_kind_created,
      idx_events_id, idx_events_deleted, idx_events_addressable, idx_events_parameterized" -c CHECKPOINT

# The seven indexes as the export builds them: the statements over two connections
# (0, 2, 4, 6 and 1, 3, 5). $1: settings for both connections.
build_indexes() {
  psql -q "$floor" -c "$1" -c "CREATE INDEX idx_events_pubkey_kind_created ON events (pubkey, kind, created_at)" \
    -c "CREATE INDEX idx_events_kind_created ON events (kind, created_at)" \
    -c "CREATE INDEX idx_events_deleted ON events (deleted_at)" \
    -c "CREATE INDEX idx_events_parameterized ON events (kind, pubkey, d_tag, deleted_at) WHERE d_tag IS NOT NULL" &
  psql -q "$floor" -c "$1" -c "CREATE INDEX idx_events_channel_created ON events (channel_id, created_at)" \
    -c "CREATE INDEX idx_events_id ON events (id)" \
    -c "CREATE INDEX idx_events_addressable ON events (kind, pubkey, channel_id, deleted_at)"
  wait
}
drop_indexes() {
  psql -q "$floor" -c "DROP INDEX idx_events_pubkey_kind_created, idx_events_channel_created, idx_events_kind_created,
      idx_events_id, idx_events_deleted, idx_events_addressable, idx_events_parameterized"
}

t0=$(now)
psql -q "$floor" -c "\\copy events FROM '$work/events'" -c "\\copy event_mentions FROM '$work/mentions'"
t1=$(now)
# PostgreSQL's default (parallel workers per build where it sees fit), then none:
# the faster of the two is the floor.
build_indexes "SET max_parallel_maintenance_workers = 2"
t2=$(now)
drop_indexes
t3=$(now)
build_indexes "SET max_parallel_maintenance_workers = 0"
t4=$(now)
awk -v n="$rows" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" 'BEGIN {
  i = (c - b < e - d) ? c - b : e - d
  printf "{\"events\":%d,\"copy_s\":%.3f,\"indexes_default_s\":%.3f,\"indexes_no_workers_s\":%.3f,", n, b - a, c - b, e - d
  printf "\"floor_s\":%.3f,\"floor_events_per_s\":%.0f}\n", b - a + i, n / (b - a + i) }'
