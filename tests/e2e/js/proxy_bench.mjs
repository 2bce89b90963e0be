// The proxy's benchmark (docs/performance.md), run by hand against the build:
//
//   cd tests/e2e/js && BUZZ_BINARY=../../../build/buzz node proxy_bench.mjs [samples] [clients]
//
// 1. Latency: a guest's kind 42 through the proxy → the kind 9 a member
//    subscribed on the relay receives, one at a time; and a guest → another
//    guest through the proxy both ways. The floor, in the same run: a member's
//    kind 9 straight to the relay → the same subscriber.
// 2. Fan-out: `clients` guests (default 1,000) each subscribed to the channel
//    through the proxy, which holds one upstream connection; a member's message
//    → the moment the last guest has it.
// The relay runs with --rate-limits false: one author sends hundreds of messages.
import { execFileSync } from 'node:child_process';
import { generateSecretKey, finalizeEvent } from 'nostr-tools/pure';
import { Conn } from './relay_helpers.mjs';
import { now, startTeamRelay, createChannel, startProxy } from './proxy_helpers.mjs';

const samples = Number(process.argv[2] ?? 500);
const clients = Number(process.argv[3] ?? 1000);

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(2)} ms, p99 ${pct(xs, 99).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms`;

// Sends `make(i)` from `from` and times until `to` has the EVENT `match`es, `samples` times.
async function timeRoundTrips(from, to, sub, make, match) {
  const out = [];
  for (let i = 0; i < samples; i++) {
    const e = make(i);
    const t0 = performance.now();
    from.send(['EVENT', e]);
    await to.next((m) => m[0] === 'EVENT' && m[1] === sub && match(m[2], e, i));
    out.push(performance.now() - t0);
    await from.next((m) => m[0] === 'OK' && m[1] === e.id);
  }
  return out;
}

const team = await startTeamRelay(['--rate-limits', 'false']);
const ownerSk = generateSecretKey();
const owner = await Conn.open(team.relay.url, ownerSk);
const channel = await createChannel(owner, ownerSk, 'bench', 'open');
const proxy = await startProxy(team);
try {
  const invite = (await proxy.admin('POST', '/admin/invite', { channels: channel, max_uses: clients + 10 })).body.token;
  const guestSk = generateSecretKey();
  const guest = await Conn.open(`${proxy.url}/?token=${invite}`, guestSk);
  guest.send(['REQ', 'c', { kinds: [40] }]);
  const [, , create] = await guest.next((m) => m[0] === 'EVENT' && m[1] === 'c');
  const reader = await Conn.open(`${proxy.url}/?token=${invite}`, generateSecretKey());
  reader.send(['REQ', 'r', { kinds: [42], '#e': [create.id], limit: 0 }]);
  await reader.next((m) => m[0] === 'EOSE' && m[1] === 'r');
  const member = await Conn.open(team.relay.url, generateSecretKey());
  member.send(['REQ', 'm', { kinds: [9], '#h': [channel], limit: 0 }]);
  await member.next((m) => m[0] === 'EOSE' && m[1] === 'm');

  const kind9 = (i) => finalizeEvent({ kind: 9, created_at: now(), tags: [['h', channel]], content: `floor ${i}` }, ownerSk);
  const kind42 = (tag) => (i) =>
    finalizeEvent({ kind: 42, created_at: now(), tags: [['e', create.id, '', 'root']], content: `${tag} ${i}` }, guestSk);
  const sameContent = (got, sent) => got.content === sent.content;

  await timeRoundTrips(owner, member, 'm', kind9, sameContent);  // warm-up
  const floor = await timeRoundTrips(owner, member, 'm', kind9, sameContent);
  const viaProxy = await timeRoundTrips(guest, member, 'm', kind42('to member'), sameContent);
  const guestToGuest = await timeRoundTrips(guest, reader, 'r', kind42('to guest'), sameContent);
  console.log(`samples ${samples}`);
  console.log(`floor   member kind 9 → relay subscriber:          ${fmt(floor)}`);
  console.log(`proxy   guest kind 42 → relay subscriber:          ${fmt(viaProxy)}  (p99 ${(pct(viaProxy, 99) / pct(floor, 99)).toFixed(1)}× floor)`);
  console.log(`proxy   guest kind 42 → guest subscriber (proxy):  ${fmt(guestToGuest)}  (p99 ${(pct(guestToGuest, 99) / pct(floor, 99)).toFixed(1)}× floor)`);

  // Fan-out to `clients` guests on one upstream connection.
  const t0 = performance.now();
  const many = [];
  for (let i = 0; i < clients; i += 50) {
    many.push(...await Promise.all(Array.from({ length: Math.min(50, clients - i) }, () =>
      Conn.open(`${proxy.url}/?token=${invite}`, generateSecretKey()))));
  }
  await Promise.all(many.map(async (c, i) => {
    c.send(['REQ', 'live', { kinds: [42], '#e': [create.id], limit: 0 }]);
    await c.next((m) => m[0] === 'EOSE' && m[1] === 'live', 60000);
  }));
  console.log(`clients ${clients} connected, authenticated and subscribed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  // The proxy's TCP connections to the relay: its WebSocket (and the HTTP worker's keep-alive).
  const relayPort = new URL(team.relay.url).port;
  const ss = execFileSync('ss', ['-tnpH', 'state', 'established', `( dport = :${relayPort} )`]).toString();
  const fromProxy = ss.split('\n').filter((l) => l.includes(`pid=${proxy.proc.pid},`)).length;
  console.log(`the proxy's TCP connections to the relay: ${fromProxy} (one WebSocket for all guests; the HTTP worker's keep-alive, if open, is the other)`);
  const fanout = [], fanoutFloor = [];
  for (let round = 0; round < 20; round++) {
    const e = kind9(`fanout ${round}`);
    const start = performance.now();
    owner.send(['EVENT', e]);
    const seenBy = await Promise.all(many.map(async (c) => {
      await c.next((m) => m[0] === 'EVENT' && m[1] === 'live' && m[2].content === e.content, 60000);
      return performance.now() - start;
    }));
    await member.next((m) => m[0] === 'EVENT' && m[1] === 'm' && m[2].content === e.content);
    fanout.push(Math.max(...seenBy));
    fanoutFloor.push(pct(seenBy, 50));
    await owner.next((m) => m[0] === 'OK' && m[1] === e.id);
  }
  console.log(`fan-out member kind 9 → all ${clients} guests (last one): ${fmt(fanout)}`);
  console.log(`fan-out member kind 9 → the median guest:               ${fmt(fanoutFloor)}`);
  for (const c of many) c.close();
} finally {
  await proxy.stop();
  owner.close();
  await team.relay.stop();
}
