// NIP-77 at the frame sizes clients hold their messages to: the reference
// negentropy implementation (../shared/reference/negentropy/js, run in place,
// never copied) as the client of our relay with a frameSizeLimit of 30,000
// bytes (buzz sync's), 60,000 (rust-nostr's) and 0 (no limit), over 5,000 and
// 1,000,000 events. A client's message is accepted up to the relay's message
// limit (max-message-bytes, 131,072); our answers stay within it whatever the
// client's limit, which NIP-77 has no field to state (docs/limits.md, NIP-77).
// Each cell must find exactly the ids only one side has.
//
// Time: the 1,000,000-event store is filled once (15–160 s), and each of its
// cells takes 15 s to 5 minutes on two cores loaded by builds (the reference's
// JavaScript hashes its million ids, at 60,000 bytes over 100-odd rounds); the
// 5,000-event cells about a second each. So this file is ctest's `slow` label
// (docs/testing.md).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { Conn, startRelay } from './relay_helpers.mjs';
import { referenceReconcile } from './reference_negentropy.mjs';
import { changed, readItems } from './neg_sets.mjs';

const run = promisify(execFile);
const peer = process.env.BUZZ_NEG_PEER ?? new URL('../../../build/tests/buzz-neg-peer', import.meta.url).pathname;
const kMaxMessage = 131072;  // max-message-bytes' default

const work = mkdtempSync(join(tmpdir(), 'buzz-neg-frames-'));
const sets = new Map();  // size -> { filter, items, relay }
const relays = [];

before(async () => {
  // Written straight into each relay's store before it starts (buzz-neg-peer fill).
  const dirs = [mkdtempSync(join(tmpdir(), 'buzz-neg-relay-')), mkdtempSync(join(tmpdir(), 'buzz-neg-relay-'))];
  for (const [relay, size] of [[0, 5000], [1, 1000000]]) {
    const author = getPublicKey(generateSecretKey());
    const out = join(work, `relay-${size}.items`);
    await run(peer, ['fill', dirs[relay], author, String(size), out]);
    const items = readItems(out);
    // The million is reconciled over a time bound: the relay reads its records in storage order.
    const filter = size === 1000000 ? { until: items.reduce((m, it) => Math.max(m, it.created_at), 0) }
                                    : { authors: [author], kinds: [1] };
    sets.set(size, { filter, items, relay });
  }
  for (const dir of dirs) relays.push(await startRelay(['--open', '--rate-limits', 'false'], null, dir));
});

after(async () => {
  for (const r of relays) await r.stop();
  rmSync(work, { recursive: true, force: true });
});

// One reconciliation by the reference client holding its messages to `limit`
// bytes (0 = none), `percent` of the relay's set changed on its side.
async function cell(size, limit, percent) {
  const { filter, items, relay } = sets.get(size);
  const theirs = changed(items, percent);
  const conn = await Conn.open(relays[relay].url, generateSecretKey());
  let largestUp = 0, largestDown = 0;
  try {
    const r = await referenceReconcile(conn, filter, theirs.items, limit, (round, down, up) => {
      largestDown = Math.max(largestDown, down);
      largestUp = Math.max(largestUp, up);
    });
    assert.deepEqual([...r.need].sort(), [...theirs.missing].sort());
    assert.deepEqual([...r.have].sort(), [...theirs.extra].sort());
    await conn.alive();
  } finally {
    conn.close();
  }
  // Ours fit the relay's own frame (hex doubles them); the client's are its own limit's.
  assert.ok(2 * largestDown < kMaxMessage, `an answer of ${largestDown} bytes`);
  if (limit) assert.ok(largestUp <= limit, `a message of ${largestUp} bytes`);
  return { largestUp, largestDown };
}

// 5,000 events, 20 % differing: the client's largest message is about 45,000
// bytes, past the old 65,536-byte frame as hex unless it holds them to 30,000.
for (const limit of [30000, 60000, 0]) {
  test(`the reference client at frameSizeLimit ${limit}: 5000 events, 20% differ`, async () => {
    const { largestUp } = await cell(5000, limit, 20);
    if (limit !== 30000) assert.ok(2 * largestUp > 65536, `its largest message was ${largestUp} bytes`);
  });
}

// 1,000,000 events (at 30,000 the interop grid's row, negentropy_interop.test.mjs).
// Without a limit the client splits every differing range it is sent into 16,
// so its messages grow with the differences: 150 fit the relay's limit (its
// largest about 48,000 bytes, 100 stay under the old frame), and at
// 10,000 (1 %) one outgrows it and is refused in words, the connection kept.
test('the reference client at frameSizeLimit 60000: 1000000 events, 1% differ', async () => {
  const { largestUp } = await cell(1000000, 60000, 1);
  assert.ok(2 * largestUp > 65536, `its largest message was ${largestUp} bytes`);
});

test('the reference client at frameSizeLimit 0: 1000000 events, 150 differ', async () => {
  const { largestUp } = await cell(1000000, 0, 0.015);
  assert.ok(2 * largestUp > 65536, `its largest message was ${largestUp} bytes`);
});

test('the reference client at frameSizeLimit 0: 1000000 events, 1% differ, outgrows the limit and is told so', async () => {
  const { filter, items, relay } = sets.get(1000000);
  const conn = await Conn.open(relays[relay].url, generateSecretKey());
  try {
    await assert.rejects(referenceReconcile(conn, filter, changed(items, 1).items, 0),
                         /^Error: blocked: message exceeds maximum size of 131072 bytes \(got \d+\)$/);
    await conn.alive();
  } finally {
    conn.close();
  }
});
