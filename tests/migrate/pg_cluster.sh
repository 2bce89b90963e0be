#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the migration tests (a ctest fixture):
#
#   pg_cluster.sh start STATE_FILE   initdb + pg_ctl in a fresh /tmp dir, listening on a
#                                    unix socket only; writes the socket dir to STATE_FILE
#   pg_cluster.sh stop STATE_FILE    stops it and removes the dir (always, even after failures)
#
# PostgreSQL refuses to run as root, so as root it runs as the unprivileged user
# `nobody`. The superuser is buzz / buzz_dev, password-checked (scram-sha-256).
set -euo pipefail
cmd=${1:-}; state=${2:-}
[[ ( $cmd == start || $cmd == stop ) && -n $state ]] || { echo "usage: $0 start|stop STATE_FILE" >&2; exit 2; }

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -x $bin/initdb ]] || { echo "$0: PostgreSQL server binaries not found (run tools/setup/install-deps.sh)" >&2; exit 1; }
as_pg() { if ((EUID == 0)); then runuser -u nobody -- "$@"; else "$@"; fi; }

if [[ $cmd == stop ]]; then
  [[ -f $state ]] || exit 0
  dir=$(cat "$state")
  [[ $dir == /tmp/buzz-pg.* ]] || { echo "$0: refusing to remove '$dir'" >&2; exit 1; }
  (cd "$dir" && as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1) || true
  rm -rf "$dir" "$state"
  exit 0
fi

"$0" stop "$state"  # a cluster left by an interrupted run
dir=$(mktemp -d /tmp/buzz-pg.XXXXXX)
chmod 755 "$dir"
echo buzz_dev >"$dir/pw"
((EUID == 0)) && chown nobody "$dir" "$dir/pw"
cd "$dir"
as_pg "$bin/initdb" -D "$dir/data" -U buzz --pwfile="$dir/pw" --auth=scram-sha-256 -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }
as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=200" start >/dev/null ||
  { cat "$dir/server.log" >&2; rm -rf "$dir"; exit 1; }
echo "$dir" >"$state"
