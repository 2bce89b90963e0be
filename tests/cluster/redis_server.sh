#!/usr/bin/env bash
# A throwaway Redis for the multi-node tests (a ctest fixture):
#
#   redis_server.sh start STATE_FILE   redis-server in a fresh /tmp dir on a free 127.0.0.1
#                                      port, no persistence; writes "DIR PORT PID" to STATE_FILE
#   redis_server.sh stop STATE_FILE    stops it and removes the dir (always, even after failures)
#
# A port is picked at random and the server's own log says whether it bound it;
# on a clash another port is tried.
set -euo pipefail
cmd=${1:-}; state=${2:-}
[[ ( $cmd == start || $cmd == stop ) && -n $state ]] || { echo "usage: $0 start|stop STATE_FILE" >&2; exit 2; }
command -v redis-server >/dev/null || { echo "$0: redis-server not found (run tools/setup/install-deps.sh)" >&2; exit 1; }

if [[ $cmd == stop ]]; then
  [[ -f $state ]] || exit 0
  read -r dir port pid <"$state" || true
  [[ ${dir:-} == /tmp/buzz-redis.* ]] || { echo "$0: refusing to remove '${dir:-}'" >&2; exit 1; }
  if [[ -n ${pid:-} ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir" "$state"
  exit 0
fi

"$0" stop "$state"  # a server left by an interrupted run
dir=$(mktemp -d /tmp/buzz-redis.XXXXXX)
for attempt in $(seq 20); do
  port=$((20000 + RANDOM % 40000))
  : >"$dir/server.log"
  setsid redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
    --daemonize no --logfile "$dir/server.log" --protected-mode yes >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    grep -q 'Ready to accept connections' "$dir/server.log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  if kill -0 "$pid" 2>/dev/null && grep -q 'Ready to accept connections' "$dir/server.log"; then
    echo "$dir $port $pid" >"$state"
    exit 0
  fi
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done
cat "$dir/server.log" >&2
rm -rf "$dir"
echo "$0: could not start redis-server on a free port" >&2
exit 1
