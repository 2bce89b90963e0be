// End-to-end NIP-77: the real buzz binary against the reference negentropy
// implementation (../shared/reference/negentropy/js, loaded from there, never
// copied) as the client; the read rules (a non-member's set holds nothing of a
// private channel, not even a count); and hostile NEG messages, each answered
// with NEG-ERR while the connection and other users go on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure';
import { initNostrWasm } from 'nostr-wasm';
import { Conn, publishAll, startRelay } from './relay_helpers.mjs';
import { referenceReconcile as reconcile } from './reference_negentropy.mjs';

const kIdleSeconds = 2;
const kMaxEvents = 10000;  // the big author's set fits; everything does not
let relay, wasm;
const open = (sk) => Conn.open(relay.url, sk);

// n kind-1 events by sk over the last ten minutes (many share a second).
function notes(sk, n) {
  const now = Math.floor(Date.now() / 1000);
  const out = [];
  for (let i = 0; i < n; i++) {
    const e = { kind: 1, created_at: now - (i % 600), tags: [], content: `note ${i} ${randomUUID()}` };
    wasm.finalizeEvent(e, sk);
    out.push(e);
  }
  return out;
}

const sorted = (ids) => [...ids].sort();

let big;  // { sk, events } — the 10,000-event author
let single;

before(async () => {
  wasm = await initNostrWasm();
  // One loop, so the test of builds off the loop sees every connection on it.
  relay = await startRelay(['--open', '--rate-limits', 'false', '--neg-idle-timeout', String(kIdleSeconds),
                            '--neg-max-events', String(kMaxEvents), '--threads', '1']);
  const sk = generateSecretKey();
  const conn = await open(sk);
  big = { sk, events: notes(sk, 10000) };
  await publishAll(conn, big.events);
  conn.close();
  const sk1 = generateSecretKey();  // a connection publishes only its own events
  const conn1 = await open(sk1);
  single = { sk: sk1, events: notes(sk1, 1) };
  await publishAll(conn1, single.events);
  conn1.close();
});

after(async () => { if (relay) await relay.stop(); });

test('NIP-11 advertises 77', async () => {
  const r = await fetch(relay.url.replace('ws', 'http'), { headers: { Accept: 'application/nostr+json' } });
  assert.ok((await r.json()).supported_nips.includes(77));
});

// The grid of set sizes and differences, both ways against the reference, is
// negentropy_interop.test.mjs.

test('a small frame limit on the client still converges', async () => {
  const conn = await open(generateSecretKey());
  const items = big.events.slice(2500);
  const r = await reconcile(conn, { authors: [big.events[0].pubkey] }, items, 4096);
  assert.equal(r.need.size, 2500);
  assert.equal(r.have.size, 0);
  conn.close();
});

test('a private channel is in a member\'s set and nowhere in a non-member\'s', async () => {
  const owner = generateSecretKey(), member = generateSecretKey(), outsider = generateSecretKey();
  const ownerConn = await open(owner);
  const channel = randomUUID();
  const now = () => Math.floor(Date.now() / 1000);
  const sign = (kind, tags, content = '') => finalizeEvent({ kind, created_at: now(), tags, content }, owner);
  await publishAll(ownerConn, [sign(9007, [['h', channel], ['name', 'secret'], ['visibility', 'private']])]);
  await publishAll(ownerConn, [sign(9000, [['h', channel], ['p', getPublicKey(member)]], 'put')]);
  const secrets = Array.from({ length: 5 }, (_, i) => sign(9, [['h', channel]], `secret ${i}`));
  await publishAll(ownerConn, secrets);
  const secretIds = secrets.map((e) => e.id);
  const filter = { kinds: [9], authors: [getPublicKey(owner)] };

  const memberConn = await open(member);
  const seen = await reconcile(memberConn, filter, []);
  assert.deepEqual(sorted(seen.need), sorted(secretIds));

  // The outsider's set is empty: the fingerprint of its empty set matches in one round.
  const outsiderConn = await open(outsider);
  const none = await reconcile(outsiderConn, filter, []);
  assert.equal(none.need.size, 0);
  assert.equal(none.rounds, 1);
  // Holding the secret ids itself, it is told the relay lacks them: no count, no id leaks.
  const guess = await reconcile(outsiderConn, filter, secrets.map((e) => ({ created_at: e.created_at, id: e.id })));
  assert.deepEqual(sorted(guess.have), sorted(secretIds));
  // Naming the channel is refused before anything is read, as REQ is.
  outsiderConn.send(['NEG-OPEN', 'named', { '#h': [channel] }, '6100000200']);
  const err = await outsiderConn.next((m) => m[1] === 'named');
  assert.deepEqual(err, ['NEG-ERR', 'named', 'restricted: not a channel member']);
  for (const c of [ownerConn, memberConn, outsiderConn]) c.close();
});

test('hostile NEG messages get NEG-ERR; the connection and other users go on', async () => {
  const conn = await open(generateSecretKey());
  const bystander = await open(generateSecretKey());
  const filter = { authors: [big.events[0].pubkey] };
  const err = async (sub) => {
    const m = await conn.next((x) => x[1] === sub && (x[0] === 'NEG-ERR' || x[0] === 'NEG-MSG'));
    assert.equal(m[0], 'NEG-ERR', `${sub}: ${JSON.stringify(m).slice(0, 200)}`);
    return m[2];
  };
  conn.send(['NEG-OPEN', 'hex', filter, '61zz']);
  assert.equal(await err('hex'), 'invalid: message is not lowercase hex');
  conn.send(['NEG-OPEN', 'varint', filter, '61ff']);
  assert.equal(await err('varint'), 'invalid: parse ends prematurely');
  conn.send(['NEG-OPEN', 'range', filter, '6100000' + '2ffffffff0f']);  // an IdList claiming 4 billion ids
  assert.equal(await err('range'), 'invalid: parse ends prematurely');
  conn.send(['NEG-OPEN', 'mode', filter, '61000007']);
  assert.equal(await err('mode'), 'invalid: unexpected mode 7');
  // Past the message limit (131,072 bytes) a message is refused in words, not with 1009 (docs/limits.md).
  const huge = ['NEG-OPEN', 'huge', filter, '61' + '00'.repeat(70000)];
  conn.send(huge);
  assert.equal(await err('huge'), `blocked: message exceeds maximum size of 131072 bytes (got ${JSON.stringify(huge).length})`);
  conn.send(['NEG-OPEN', 'shape', filter]);
  assert.match(await err('shape'), /^invalid: NEG-OPEN requires its message as a hex string/);
  conn.send(['NEG-MSG', 'nothing-open', '6100']);
  assert.equal(await err('nothing-open'), 'closed: no such reconciliation open');
  conn.send(['NEG-OPEN', 'everything', {}, '6100000200']);
  assert.match(await err('everything'), /^blocked: more than 10000 events match/);
  await conn.alive();

  // Two sessions at once at most; a third is refused, a closed one frees its place.
  conn.send(['NEG-OPEN', 'a', filter, '6100000200']);
  conn.send(['NEG-OPEN', 'b', filter, '6100000200']);
  conn.send(['NEG-OPEN', 'c', filter, '6100000200']);
  assert.equal(await err('c'), 'blocked: too many open reconciliations on this connection (max 2)');
  for (const sub of ['a', 'b']) await conn.next((x) => x[0] === 'NEG-MSG' && x[1] === sub);  // their first replies
  // A session that never ends is closed once idle.
  const started = Date.now();
  assert.match(await err('a'), /^closed: idle for more than 2 s/);
  assert.match(await err('b'), /^closed: idle for more than 2 s/);
  assert.ok(Date.now() - started >= (kIdleSeconds - 1) * 1000);
  await conn.alive();
  await bystander.alive();
  const r = await reconcile(bystander, filter, []);
  assert.equal(r.need.size, 10000);
  conn.close();
  bystander.close();
});

test('the loop answers a REQ on another connection while NEG-OPEN sets are built', async () => {
  // Eight builds of the 10,000-event set queue on the NEG worker; a REQ sent
  // after them on another connection of the same (only) loop is answered
  // before the last of them. Built on the loop, it would wait for all eight.
  const openers = await Promise.all([0, 1, 2, 3].map(() => open(generateSecretKey())));
  const reader = await open(generateSecretKey());
  const filter = { authors: [big.events[0].pubkey] };
  const order = [];
  const answers = [];
  for (const conn of openers) {
    for (const sub of ['x', 'y']) {
      conn.send(['NEG-OPEN', sub, filter, '6100000200']);  // "I have nothing": the relay lists its ids
      answers.push(conn.next((m) => m[0] === 'NEG-MSG' && m[1] === sub).then(() => order.push('NEG-MSG')));
    }
  }
  reader.send(['REQ', 'r', { authors: [single.events[0].pubkey], limit: 1 }]);
  await reader.next((m) => m[0] === 'EOSE' && m[1] === 'r');
  order.push('EOSE');
  await Promise.all(answers);
  assert.notEqual(order.indexOf('EOSE'), order.length - 1, order.join(' '));
  for (const c of [...openers, reader]) c.close();
});

test('NEG-OPEN before AUTH is refused', async () => {
  const conn = await open(null);
  conn.send(['NEG-OPEN', 'anon', {}, '6100000200']);
  const m = await conn.next((x) => x[1] === 'anon');
  assert.deepEqual(m, ['NEG-ERR', 'anon', 'auth-required: not authenticated']);
  conn.close();
});
