#!/bin/bash
# The whole `buzz sync` of two 1,000,000-event data directories differing by 1 %.
# Run from the repository after `buzz-sync-fill $WORK/central $WORK/edge 1000000 1`;
# BUZZ names the binary (default ./build-ci/buzz), DIRECTION the sync direction (both).
set -e
cd "${WORK:-/tmp/negbench}"
B=${BUZZ:-$OLDPWD/build-ci/buzz}
KEYS=$($B admin generate-key --json)
SECRET=$(echo "$KEYS" | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret_key"])')
PUB=$(echo "$KEYS" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pubkey"])')
for d in central edge; do
  $B admin add-member --data-dir $d --pubkey $PUB --role admin > /dev/null
  $B admin mint-token --data-dir $d --pubkey $PUB --name sync --scopes messages:read,proxy:submit --json \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])' > $d.token
done
PORT=47123
$B serve --data-dir central --bind 127.0.0.1:$PORT --relay-url ws://127.0.0.1:$PORT > central.log 2>&1 &
CPID=$!
for i in $(seq 1 300); do curl -s -o /dev/null http://127.0.0.1:$PORT/ && break; sleep 0.2; done
/usr/bin/time -v $B sync --from ws://127.0.0.1:$PORT --data-dir edge --key $SECRET \
  --from-token $(cat central.token) --to-token $(cat edge.token) --direction ${DIRECTION:-both} --json \
  > sync.json 2> sync.time || true
kill $CPID; wait $CPID || true
cat sync.json
grep -E "Elapsed|Maximum resident|User time|System time" sync.time
