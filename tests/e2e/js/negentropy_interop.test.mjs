// The NIP-77 interop grid against the reference negentropy implementation
// (../shared/reference/negentropy/js, run in place, never copied), both ways:
// our relay with the reference as its client, and our initiator (the code
// `buzz sync` runs, driven by buzz-neg-peer) with the reference as its server;
// over sets of 0, 1, 10,000 and 1,000,000 ids differing by 0 %, 1 % and 50 %.
// Each cell must find exactly the ids only one side has.
//
// Time (more than 30 s, for the 1,000,000-id row): the small cells take under
// a second each; the 1,000,000-id store is filled once (~15–60 s), and a cell
// of that row takes 20 s (our initiator) to 66 s (the reference's JavaScript as
// the initiator, hashing its million ids over ~230 rounds) at 1 % on two loaded
// cores. At 50 % the reference's JavaScript client is quadratic whoever
// serves it: every round it hashes the whole unreconciled rest of its set
// again (its storage keeps no sums), over ~1,100 rounds of 30,000-byte frames,
// about 8 minutes of its CPU against our relay and ~2.8 times that against
// itself (docs/testing.md). So CI runs that row at 1 % only; NEG_GRID=full runs
// every cell (docs/testing.md records that run). CI does run 50,000 ids at
// 50 % against our relay (~3 s): the smallest set whose differing ranges
// outgrow a frame, where our relay once answered nothing and the reference
// asked the same range again forever.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { Conn, startRelay } from './relay_helpers.mjs';
import { referenceNegServer, referenceReconcile } from './reference_negentropy.mjs';
import { changed, randomItems, readItems, writeItems } from './neg_sets.mjs';

const run = promisify(execFile);
const peer = process.env.BUZZ_NEG_PEER ?? new URL('../../../build/tests/buzz-neg-peer', import.meta.url).pathname;
const full = process.env.NEG_GRID === 'full';
const sizes = [0, 1, 10000, 1000000];
const outgrown = 50000;  // our relay, 50 %: ranges listed whole no longer fit a frame
const percents = [0, 1, 50];
const runs = (size, percent) => full || size < 1000000 || percent === 1;

const work = mkdtempSync(join(tmpdir(), 'buzz-neg-grid-'));
const relays = [];
const relaySets = new Map();  // size -> { filter, items, relay } held by our relays[relay]

const sorted = (ids) => [...ids].sort();

before(async () => {
  // Our relays hold one author's set per size, written straight into the store
  // before the relay starts: the small sets share a relay and are reconciled
  // by author; the 1,000,000 are alone on theirs, reconciled over a time bound
  // (the relay then reads its records in storage order, not by index).
  const dirs = [mkdtempSync(join(tmpdir(), 'buzz-neg-relay-')), mkdtempSync(join(tmpdir(), 'buzz-neg-relay-'))];
  for (const size of [...sizes, outgrown]) {
    const author = getPublicKey(generateSecretKey());
    const out = join(work, `relay-${size}.items`);
    if (size > 0) await run(peer, ['fill', dirs[size === 1000000 ? 1 : 0], author, String(size), out]);
    const items = size > 0 ? readItems(out) : [];
    const filter = size === 1000000 ? { until: items.reduce((m, it) => Math.max(m, it.created_at), 0) }
                                    : { authors: [author], kinds: [1] };
    relaySets.set(size, { filter, items, relay: size === 1000000 ? 1 : 0 });
  }
  for (const dir of dirs) relays.push(await startRelay(['--open', '--rate-limits', 'false'], null, dir));
});

after(async () => {
  for (const r of relays) await r.stop();
  rmSync(work, { recursive: true, force: true });
});

async function ourRelayCell(size, percent) {
  const { filter, items, relay } = relaySets.get(size);
  const theirs = changed(items, percent);
  const conn = await Conn.open(relays[relay].url, generateSecretKey());
  const r = await referenceReconcile(conn, filter, theirs.items);
  conn.close();
  assert.deepEqual(sorted(r.need), sorted(theirs.missing));
  assert.deepEqual(sorted(r.have), sorted(theirs.extra));
  if (percent === 0) assert.equal(r.rounds, 1, 'equal sets agree in one round');
}

test(`our relay, the reference as client: ${outgrown} ids, 50% differ (whole differing ranges outgrow a frame)`,
     () => ourRelayCell(outgrown, 50));

for (const size of sizes) {
  for (const percent of percents) {
    if (!runs(size, percent)) continue;

    test(`our relay, the reference as client: ${size} ids, ${percent}% differ`, () => ourRelayCell(size, percent));

    test(`our initiator, the reference as server: ${size} ids, ${percent}% differ`, async () => {
      const items = randomItems(size);
      const server = await referenceNegServer(() => items);
      const ours = changed(items, percent);
      const input = join(work, `client-${size}-${percent}.items`), output = join(work, `client-${size}-${percent}.json`);
      writeItems(input, ours.items);
      try {
        await run(peer, ['reconcile', server.url, '{}', input, output]);
      } finally {
        server.close();
      }
      const r = JSON.parse(readFileSync(output, 'utf8'));
      assert.deepEqual(sorted(r.need), sorted(ours.missing));  // each id once
      assert.deepEqual(sorted(r.have), sorted(ours.extra));
      if (percent === 0) assert.equal(r.rounds, 1, 'equal sets agree in one round');
    });
  }
}
