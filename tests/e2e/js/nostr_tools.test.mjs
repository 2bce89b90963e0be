// End-to-end: the real buzz binary driven by nostr-tools, a standard client
// library — NIP-42 auth, publish, subscribe and live delivery over loopback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startRelay, connectAuthed } from './relay_helpers.mjs';
import { useWebSocketImplementation, Relay } from 'nostr-tools/relay';
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure';

useWebSocketImplementation(WebSocket);

let relay, url;

before(async () => {
  relay = await startRelay(['--open']);
  url = relay.url;
});

after(async () => { if (relay) await relay.stop(); });

test('NIP-11 document is served as application/nostr+json', async () => {
  const r = await fetch(url.replace('ws', 'http'), { headers: { Accept: 'application/nostr+json' } });
  assert.equal(r.headers.get('content-type'), 'application/nostr+json');
  const doc = await r.json();
  assert.ok(doc.supported_nips.includes(42));
  assert.equal(doc.limitation.auth_required, true);
});

test('publish before auth is refused with auth-required', async () => {
  const sk = generateSecretKey();
  const relay = await Relay.connect(url);
  const ev = finalizeEvent({ kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [], content: 'x' }, sk);
  await assert.rejects(relay.publish(ev), /auth-required/);
  relay.close();
});

test('authenticate, publish, query history and receive live events', async () => {
  const alice = generateSecretKey();
  const bob = generateSecretKey();
  const a = await connectAuthed(url, alice);
  const b = await connectAuthed(url, bob);

  const first = finalizeEvent({ kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [['t', 'buzz']], content: 'hello' }, alice);
  assert.equal(await a.publish(first), '');

  // History, then live: bob subscribes by author and sees the stored note, then a new one.
  const seen = [];
  let eose = false;
  const live = new Promise((resolve) => {
    b.subscribe([{ kinds: [1], authors: [getPublicKey(alice)] }], {
      onevent: (e) => { seen.push(e.id); if (eose) resolve(e); },
      oneose: () => { eose = true; },
    });
  });
  for (let i = 0; i < 100 && !eose; i++) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(seen, [first.id]);

  const second = finalizeEvent({ kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [], content: 'live' }, alice);
  await a.publish(second);
  const got = await live;
  assert.equal(got.id, second.id);
  assert.equal(got.content, 'live');

  a.close();
  b.close();
});

// With default limits (this relay runs with them): what standard clients do
// at connect and when they come back online is not refused.
test('a client opens every subscription NIP-11 promises at once', async () => {
  const doc = await (await fetch(url.replace('ws', 'http'), { headers: { Accept: 'application/nostr+json' } })).json();
  const max = doc.limitation.max_subscriptions;
  assert.ok(max >= 100, `max_subscriptions ${max}`);
  const sk = generateSecretKey();
  const r = await connectAuthed(url, sk);
  const closed = [];
  const eoses = await Promise.all(Array.from({ length: max }, (_, i) => new Promise((resolve) => {
    r.subscribe([{ kinds: [1], authors: [getPublicKey(sk)], '#t': [`s${i}`] }], {
      oneose: () => resolve(true),
      onclose: (reason) => { closed.push(reason); resolve(false); },
    });
  })));
  assert.deepEqual(closed, []);
  assert.equal(eoses.filter(Boolean).length, max);
  r.close();
});

test('a client flushing an outbox of 100 notes has them all accepted, then reads back the newest 50', async () => {
  const sk = generateSecretKey();
  const r = await connectAuthed(url, sk);
  const now = Math.floor(Date.now() / 1000);
  const notes = Array.from({ length: 100 }, (_, i) =>
    finalizeEvent({ kind: 1, created_at: now - 100 + i, tags: [], content: `outbox ${i}` }, sk));
  const results = await Promise.allSettled(notes.map((e) => r.publish(e)));
  const refused = results.filter((x) => x.status === 'rejected').map((x) => String(x.reason));
  assert.deepEqual(refused, []);
  const got = [];
  await new Promise((resolve) => {
    r.subscribe([{ kinds: [1], authors: [getPublicKey(sk)], limit: 50 }], { onevent: (e) => got.push(e.id), oneose: resolve });
  });
  assert.deepEqual(got, notes.slice(50).reverse().map((e) => e.id));
  r.close();
});
