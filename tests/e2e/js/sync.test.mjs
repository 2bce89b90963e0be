// End-to-end `buzz sync`: two real relays with overlapping histories converge,
// byte for byte, in both directions, and a second run moves nothing; a member
// of a private channel syncs its events to an edge relay, a non-member syncs
// none of them; and our negentropy client against the reference implementation
// as the server (a minimal in-memory relay in this file).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Conn, addMember, binary, mintToken, publishAll, startRelay } from './relay_helpers.mjs';
import { referenceNegServer } from './reference_negentropy.mjs';

const run = promisify(execFile);
const syncKey = generateSecretKey();
const syncPub = getPublicKey(syncKey);
const relays = [];

// An open relay where `pubkey` (the sync key) holds a proxy token (to publish what others signed).
async function relayWithToken(pubkey = syncPub) {
  let token;
  const r = await startRelay(['--open', '--rate-limits', 'false'], (dir) => {
    token = mintToken(dir, pubkey, 'messages:read,proxy:submit');
  });
  relays.push(r);
  return { ...r, token };
}

async function sync(from, to, extra = [], key = syncKey) {
  const { stdout } = await run(binary, ['sync', '--from', from.url, '--to', to.url, '--key', Buffer.from(key).toString('hex'),
                                        '--from-token', from.token ?? '', '--to-token', to.token ?? '', '--json',
                                        ...extra]);
  return JSON.parse(stdout);
}

const note = (sk, text, ageSeconds) =>
  finalizeEvent({ kind: 1, created_at: Math.floor(Date.now() / 1000) - ageSeconds, tags: [], content: text }, sk);

after(async () => { for (const r of relays) await r.stop(); });

// A relay of events in memory whose NIP-77 side is the reference implementation:
// AUTH accepted, EVENT stored, REQ by ids / kinds / until / limit, NEG-OPEN and NEG-MSG.
async function referenceRelay(events) {
  const store = new Map(events.map((e) => [e.id, e]));
  const matches = (f, e) => (!f.ids || f.ids.includes(e.id)) && (!f.kinds || f.kinds.includes(e.kind)) &&
    (f.until === undefined || e.created_at <= f.until) && (f.since === undefined || e.created_at >= f.since);
  const server = await referenceNegServer((filter) => [...store.values()].filter((e) => matches(filter, e)), (m, send) => {
    if (m[0] === 'EVENT') {
      store.set(m[1].id, m[1]);
      send(['OK', m[1].id, true, '']);
    }
    if (m[0] === 'REQ') {
      const list = [...store.values()].filter((e) => matches(m[2], e))
        .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1));
      for (const e of list.slice(0, m[2].limit ?? list.length)) send(['EVENT', m[1], e]);
      send(['EOSE', m[1]]);
    }
  });
  return { ...server, store };
}

test('two relays with overlapping histories converge byte for byte, both ways', async () => {
  const a = await relayWithToken(), b = await relayWithToken();
  const authors = [generateSecretKey(), generateSecretKey()];
  const shared = [], onlyA = [], onlyB = [];
  for (let i = 0; i < 30; i++) shared.push(note(authors[i % 2], `shared ${i} ${randomUUID()}`, i));
  for (let i = 0; i < 20; i++) onlyA.push(note(authors[i % 2], `a ${i} ${randomUUID()}`, i * 7));
  for (let i = 0; i < 15; i++) onlyB.push(note(authors[i % 2], `b ${i} ${randomUUID()}`, i * 5));
  for (const [relay, events] of [[a, [...shared, ...onlyA]], [b, [...shared, ...onlyB]]]) {
    for (const sk of authors) {
      const c = await Conn.open(relay.url, sk);
      await publishAll(c, events.filter((e) => e.pubkey === getPublicKey(sk)));
      c.close();
    }
  }

  const report = await sync(a, b, ['--direction', 'both', '--filter', '{"kinds":[1]}']);
  assert.equal(report.destination_events, 45);
  assert.equal(report.missing_on_destination, 20);
  assert.equal(report.missing_on_source, 15);
  assert.equal(report.stored_down, 20);
  assert.equal(report.stored_up, 15);
  assert.equal(report.refused_down + report.refused_up, 0);

  const reader = generateSecretKey();
  const [ca, cb] = [await Conn.open(a.url, reader), await Conn.open(b.url, reader)];
  const [ha, hb] = [await ca.history({ kinds: [1] }), await cb.history({ kinds: [1] })];
  assert.equal(ha.length, 65);
  assert.deepEqual([...ha].sort(), [...hb].sort(), 'the same events, the same bytes');
  ca.close();
  cb.close();

  const again = await sync(a, b, ['--direction', 'both', '--filter', '{"kinds":[1]}']);
  assert.equal(again.missing_on_destination + again.missing_on_source, 0, 'a second run moves nothing');
  assert.equal(again.rounds, 1);
});

test('a member syncs its private channel to an edge relay; a non-member syncs none of it', async () => {
  const central = await relayWithToken();
  const owner = generateSecretKey(), member = generateSecretKey();
  const channel = randomUUID();
  const now = Math.floor(Date.now() / 1000);
  const sign = (kind, tags, content, at) => finalizeEvent({ kind, created_at: now - at, tags, content }, owner);
  const oc = await Conn.open(central.url, owner);
  await publishAll(oc, [sign(9007, [['h', channel], ['name', 'secret'], ['visibility', 'private']], '', 30)]);
  await publishAll(oc, [sign(9000, [['h', channel], ['p', getPublicKey(member)]], 'put', 20)]);
  const secrets = Array.from({ length: 4 }, (_, i) => sign(9, [['h', channel]], `secret ${i}`, 10 - i));
  await publishAll(oc, secrets);
  oc.close();
  // No #h: the edge does not know the channel until its creation arrives.
  const filter = JSON.stringify({ kinds: [9007, 9000, 9] });

  // The member: its key reads the channel on central; a proxy token writes on the edge.
  const edge = await relayWithToken(getPublicKey(member));
  const down = await sync({ url: central.url }, edge, ['--filter', filter], member);
  assert.equal(down.missing_on_destination, 6);
  assert.equal(down.stored_down, 6, JSON.stringify(down));
  const mc = await Conn.open(edge.url, member);
  const copied = await mc.history({ kinds: [9], '#h': [channel] });
  assert.deepEqual(copied.map((t) => JSON.parse(t).id).sort(), secrets.map((e) => e.id).sort());
  mc.close();

  // The outsider: nothing of the channel is in its set, so nothing moves.
  const outsider = generateSecretKey();
  const edge2 = await relayWithToken(getPublicKey(outsider));
  const none = await sync({ url: central.url }, edge2, ['--filter', filter], outsider);
  assert.equal(none.missing_on_destination, 0);
  assert.equal(none.stored_down, 0);
  const xc = await Conn.open(edge2.url, outsider);
  assert.equal((await xc.history({ kinds: [9007, 9000, 9] })).length, 0);
  xc.close();
});

test('our negentropy client agrees with the reference implementation as the server', async () => {
  const authors = [generateSecretKey(), generateSecretKey()];
  const events = Array.from({ length: 1000 }, (_, i) => note(authors[i % 2], `ref ${i} ${randomUUID()}`, i % 400));
  const onlyReference = events.slice(0, 40), onlyBuzz = events.slice(40, 70), shared = events.slice(70);
  const reference = await referenceRelay([...shared, ...onlyReference]);
  const buzz = await relayWithToken();
  for (const sk of authors) {
    const c = await Conn.open(buzz.url, sk);
    await publishAll(c, [...shared, ...onlyBuzz].filter((e) => e.pubkey === getPublicKey(sk)));
    c.close();
  }
  // A quote in the source's URL comes back escaped in the --json report (it was once copied in as it was).
  const from = reference.url + '/?name="ref"';
  const report = await sync({ url: from }, buzz, ['--direction', 'both', '--filter', '{"kinds":[1]}']);
  assert.equal(report.from, from);
  assert.equal(report.destination_events, 960);
  assert.equal(report.missing_on_destination, 40);
  assert.equal(report.missing_on_source, 30);
  assert.equal(report.stored_down, 40);
  assert.equal(report.stored_up, 30);
  assert.equal(reference.store.size, 1000, 'the reference relay got what it lacked');
  reference.close();
});

test('--data-dir syncs into a stopped appliance through its own relay, closed to non-members', async () => {
  const central = await relayWithToken();
  const author = generateSecretKey();
  const events = Array.from({ length: 12 }, (_, i) => note(author, `edge ${i} ${randomUUID()}`, i));
  const c = await Conn.open(central.url, author);
  await publishAll(c, events);
  c.close();
  // The appliance: a closed relay (the default) where the sync key is a member with a proxy token.
  const dir = mkdtempSync(join(tmpdir(), 'buzz-edge-'));
  addMember(dir, syncPub);
  const token = mintToken(dir, syncPub, 'messages:read,proxy:submit');
  const { stdout } = await run(binary, ['sync', '--from', central.url, '--data-dir', dir, '--key',
                                        Buffer.from(syncKey).toString('hex'), '--from-token', central.token,
                                        '--to-token', token, '--json', '--filter', '{"kinds":[1]}']);
  const report = JSON.parse(stdout);
  assert.equal(report.stored_down, 12, stdout);
  // Started again as the appliance, it holds them.
  const edge = await startRelay([], null, dir);
  relays.push(edge);
  const reader = await Conn.open(edge.url, syncKey, token);
  assert.equal((await reader.history({ kinds: [1] })).length, 12);
  reader.close();
});

test('an upload past the rate limits: a member is held to them, a relay admin is not', async () => {
  // Central keeps its default limits: 60 messages a minute per author after a
  // burst of 120 (a proxy:submit connection has no frame limit).
  const admin = generateSecretKey(), member = generateSecretKey();
  let adminToken, memberToken;
  const central = await startRelay(['--open'], (dir) => {
    addMember(dir, getPublicKey(admin), 'admin');
    addMember(dir, getPublicKey(member));
    adminToken = mintToken(dir, getPublicKey(admin), 'messages:read,proxy:submit');
    memberToken = mintToken(dir, getPublicKey(member), 'messages:read,proxy:submit');
  });
  relays.push(central);
  const edge = await startRelay(['--open', '--rate-limits', 'false']);
  relays.push(edge);
  // What one person wrote while the edge was offline: more than the burst.
  const author = generateSecretKey();
  const offline = Array.from({ length: 150 }, (_, i) => note(author, `offline ${i} ${randomUUID()}`, i));
  const c = await Conn.open(edge.url, author);
  await publishAll(c, offline);
  c.close();
  const up = (key, token) => sync({ url: central.url, token }, { url: edge.url }, ['--direction', 'up'], key);

  const held = await up(member, memberToken);
  assert.equal(held.missing_on_source, 150);
  assert.ok(held.stored_up >= 120 && held.stored_up <= 125 && held.refused_up === 150 - held.stored_up,
    JSON.stringify(held));
  assert.match(held.last_refusal_up, /^rate-limited: message rate exceeded/);

  // An admin's upload copies messages already written: not counted, not refused.
  // The next run finishes what the member's could not.
  const exempt = await up(admin, adminToken);
  assert.equal(exempt.missing_on_source, 150 - held.stored_up);
  assert.equal(exempt.stored_up, exempt.missing_on_source, JSON.stringify(exempt));
  assert.equal(exempt.refused_up, 0);
});
