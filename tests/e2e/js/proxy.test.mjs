// `buzz proxy` end to end (docs/reference/proxy.md): a real relay, a real proxy, and
// nostr-tools as a plain NIP-28 client. A guest joins with an invite, reads
// history, posts, and a team member sees the post in the channel under the
// guest's shadow key; a guest never sees a channel it was not invited to; bad
// input gets the spec's messages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { useWebSocketImplementation, Relay } from 'nostr-tools/relay';
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure';
import { Conn } from './relay_helpers.mjs';
import { now, shadowPubkey, startTeamRelay, createChannel, startProxy } from './proxy_helpers.mjs';

useWebSocketImplementation(WebSocket);

let team, proxy, owner, ownerSk, general, secret;
const history = [];

before(async () => {
  team = await startTeamRelay();
  ownerSk = generateSecretKey();
  owner = await Conn.open(team.relay.url, ownerSk);
  general = await createChannel(owner, ownerSk, 'general', 'open');
  // Private, with the proxy as a member: only the proxy keeps guests out of it.
  secret = await createChannel(owner, ownerSk, 'secret', 'private', [getPublicKey(team.proxySk)]);
  for (const [channel, content] of [[general, 'history one'], [general, 'history two'], [secret, 'classified']]) {
    const e = finalizeEvent({ kind: 9, created_at: now(), tags: [['h', channel]], content }, ownerSk);
    owner.send(['EVENT', e]);
    assert.equal((await owner.next((m) => m[0] === 'OK' && m[1] === e.id))[2], true);
    history.push(e);
  }
  proxy = await startProxy(team);
});

after(async () => {
  owner?.close();
  await proxy?.stop();
  await team?.relay.stop();
});

// A nostr-tools relay connection through the proxy, authenticated as `sk`.
async function guest(sk, token = null) {
  const r = await Relay.connect(token ? `${proxy.url}/?token=${token}` : proxy.url);
  for (let i = 0; i < 50 && !r.challenge; i++) await new Promise((res) => setTimeout(res, 20));
  await r.auth((evt) => finalizeEvent(evt, sk));
  return r;
}

// Every event of one REQ up to its EOSE.
function query(r, filters) {
  return new Promise((resolve) => {
    const out = [];
    const sub = r.subscribe(filters, { onevent: (e) => out.push(e), oneose: () => { sub.close(); resolve(out); } });
  });
}

async function invite(channels, extra = {}) {
  const r = await proxy.admin('POST', '/admin/invite', { channels: channels.join(','), ...extra });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.token;
}

// The NIP-28 channel id (kind 40 id) of a UUID, as a guest allowed in it sees it.
async function channelId(uuid) {
  const sk = generateSecretKey();
  const r = await guest(sk, await invite([uuid]));
  const [create] = await query(r, [{ kinds: [40] }]);
  r.close();
  assert.equal(JSON.parse(create.content).name, uuid);
  return create.id;
}

test('the proxy answers NIP-11 and guards its admin API', async () => {
  const doc = await (await fetch(proxy.http, { headers: { Accept: 'application/nostr+json' } })).json();
  assert.equal(doc.name, 'buzz-proxy');
  assert.deepEqual(doc.supported_nips, [1, 11, 28, 42]);
  assert.equal(doc.limitation.auth_required, true);
  const r = await fetch(proxy.http + '/admin/guests');
  assert.equal(r.status, 401);
  assert.deepEqual(await r.json(), { error: 'unauthorized: missing or invalid Authorization header' });
});

test('a guest joins with an invite, reads history, posts, and the team sees it under the guest\'s shadow key', async () => {
  const guestSk = generateSecretKey();
  const guestPk = getPublicKey(guestSk);
  const g = await guest(guestSk, await invite([general]));

  // The channel as NIP-28 sees it: kind 40 (its UUID) and kind 41 (its name).
  const channels = await query(g, [{ kinds: [40, 41] }]);
  assert.deepEqual(channels.map((e) => e.kind), [40, 41]);
  const [create, meta] = channels;
  assert.equal(JSON.parse(create.content).name, general);
  assert.equal(JSON.parse(meta.content).name, 'general');
  assert.equal(JSON.parse(meta.content).about, 'about general');
  assert.deepEqual(meta.tags, [['e', create.id]]);

  // History: the member's kind 9s as kind 42s, signed by the member's shadow.
  const past = await query(g, [{ kinds: [42], '#e': [create.id] }]);
  assert.deepEqual(past.map((e) => e.content).sort(), ['history one', 'history two']);
  for (const e of past) {
    assert.equal(e.pubkey, shadowPubkey(proxy.salt, getPublicKey(ownerSk)));
    assert.deepEqual(e.tags[0], ['e', create.id]);
  }

  // The member watches the channel on the relay; the guest watches through the proxy.
  owner.send(['REQ', 'watch', { kinds: [9, 7], '#h': [general], since: now() - 5 }]);
  await owner.next((m) => m[0] === 'EOSE' && m[1] === 'watch');
  const mine = [];
  g.subscribe([{ kinds: [42], '#e': [create.id], since: now() - 5 }], { onevent: (e) => mine.push(e) });

  const post = finalizeEvent({ kind: 42, created_at: now(), tags: [['e', create.id, '', 'root']], content: 'hello from a guest' }, guestSk);
  assert.equal(await g.publish(post), '');
  const [, , seen] = await owner.next((m) => m[0] === 'EVENT' && m[1] === 'watch' && m[2].content === 'hello from a guest');
  assert.equal(seen.content, 'hello from a guest');
  assert.equal(seen.pubkey, shadowPubkey(proxy.salt, guestPk), 'attributed to the guest\'s shadow key');
  assert.deepEqual(seen.tags, [['h', general]]);

  // Live the other way: a member's message reaches the guest.
  const live = finalizeEvent({ kind: 9, created_at: now(), tags: [['h', general]], content: 'welcome, guest' }, ownerSk);
  owner.send(['EVENT', live]);
  for (let i = 0; i < 100 && !mine.some((e) => e.content === 'welcome, guest'); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(mine.some((e) => e.content === 'welcome, guest'), 'the member\'s message arrives live');
  // The guest's own post comes back naming the guest.
  const echo = mine.find((e) => e.content === 'hello from a guest');
  assert.ok(echo);
  assert.deepEqual(echo.tags.at(-1), ['p', guestPk]);

  // A reaction to a message the guest has seen lands on the relay's id.
  const target = past.find((e) => e.content === 'history one');
  const reaction = finalizeEvent({ kind: 7, created_at: now(), tags: [['e', target.id], ['p', target.pubkey]], content: '+' }, guestSk);
  assert.equal(await g.publish(reaction), '');
  const [, , stored] = await owner.next((m) => m[0] === 'EVENT' && m[1] === 'watch' && m[2].id !== undefined && m[2].kind === 7);
  assert.deepEqual(stored.tags.slice(0, 2), [['h', general], ['e', history[0].id]]);
  owner.send(['CLOSE', 'watch']);
  g.close();
});

test('a guest never sees a channel it was not invited to', async () => {
  const secretId = await channelId(secret);
  const sk = generateSecretKey();
  const g = await guest(sk, await invite([general]));

  // REQ: naming the channel, or asking for everything.
  assert.deepEqual(await query(g, [{ kinds: [42], '#e': [secretId] }]), []);
  assert.deepEqual(await query(g, [{ '#e': [secretId] }]), []);
  const everything = await query(g, [{}]);
  assert.ok(everything.length > 0);
  assert.ok(everything.every((e) => !e.content.includes('classified') && !e.content.includes(secret)));
  assert.ok(!everything.some((e) => e.id === secretId));

  // Live: a guest of the secret channel sees the next message there, this one does not.
  const insider = await guest(generateSecretKey(), await invite([secret]));
  const outsiderSaw = [], insiderSaw = [];
  await new Promise((resolve) => g.subscribe([{ kinds: [42] }], { onevent: (e) => outsiderSaw.push(e), oneose: resolve }));
  await new Promise((resolve) => insider.subscribe([{ kinds: [42], '#e': [secretId] }], { onevent: (e) => insiderSaw.push(e), oneose: resolve }));
  const before = outsiderSaw.length;
  const e = finalizeEvent({ kind: 9, created_at: now(), tags: [['h', secret]], content: 'still classified' }, ownerSk);
  owner.send(['EVENT', e]);
  for (let i = 0; i < 100 && !insiderSaw.some((x) => x.content === 'still classified'); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(insiderSaw.some((x) => x.content === 'still classified'), 'the event went out');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(outsiderSaw.length, before, 'nothing of the secret channel reached the outsider');

  // A post into it.
  const post = finalizeEvent({ kind: 42, created_at: now(), tags: [['e', secretId, '', 'root']], content: 'let me in' }, sk);
  await assert.rejects(g.publish(post), { message: `error: permission denied: channel ${secret} not in invite scope` });
  g.close();
  insider.close();
});

test('kinds the proxy does not translate, COUNT and garbage get the spec\'s answers', async () => {
  const sk = generateSecretKey();
  const c = await Conn.open(`${proxy.url}/?token=${await invite([general])}`, sk);
  for (const kind of [4, 5, 40, 30023]) {
    const e = finalizeEvent({ kind, created_at: now(), tags: [], content: 'x' }, sk);
    c.send(['EVENT', e]);
    const ok = await c.next((m) => m[0] === 'OK' && m[1] === e.id);
    assert.equal(ok[2], false);
    assert.equal(ok[3], `error: permission denied: kind ${kind} not accepted by proxy (expected 1, 7, 41, or 42)`);
  }
  const note = finalizeEvent({ kind: 1, created_at: now(), tags: [], content: 'a plain note' }, sk);
  c.send(['EVENT', note]);
  assert.equal((await c.next((m) => m[0] === 'OK' && m[1] === note.id))[3],
               'error: permission denied: kind:42 event must have an #e tag referencing a known channel');
  const other = finalizeEvent({ kind: 42, created_at: now(), tags: [], content: 'x' }, generateSecretKey());
  c.send(['EVENT', other]);
  assert.equal((await c.next((m) => m[0] === 'OK' && m[1] === other.id))[3],
               'invalid: event pubkey does not match authenticated identity');
  c.send(['COUNT', 'n', { kinds: [42] }]);
  assert.deepEqual(await c.next((m) => m[0] === 'CLOSED'), ['CLOSED', 'n', 'unsupported: COUNT is not available through the proxy']);
  c.send('not json');
  assert.deepEqual(await c.next((m) => m[0] === 'NOTICE'), ['NOTICE', 'error: invalid message']);
  await c.alive();
  c.close();
});

// Opens a raw socket, answers the AUTH challenge as `sk`, and collects what follows until the proxy closes it.
async function authOnly(url, sk, beforeAuth = null) {
  const ws = new WebSocket(url);
  const got = [];
  const closed = new Promise((resolve) => ws.on('close', resolve));
  const challenge = await new Promise((resolve) => ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    if (m[0] === 'AUTH') resolve(m[1]); else got.push(m);
  }));
  if (beforeAuth) {
    for (const m of beforeAuth) ws.send(JSON.stringify(m));
    await new Promise((r) => setTimeout(r, 200));
  }
  const auth = finalizeEvent({ kind: 22242, created_at: now(), tags: [['relay', url], ['challenge', challenge]], content: '' }, sk);
  ws.send(JSON.stringify(['AUTH', auth]));
  await Promise.race([closed, new Promise((r) => setTimeout(r, 3000))]);
  ws.close();
  return got;
}

test('a bad, exhausted or missing invite token is refused and the socket closed', async () => {
  let got = await authOnly(`${proxy.url}/?token=buzz_invite_00000000000000000000000000000000`, generateSecretKey());
  assert.deepEqual(got.at(-1), ['NOTICE', 'error: token invalid: invite token not found']);
  const once = await invite([general], { max_uses: 1 });
  (await guest(generateSecretKey(), once)).close();
  got = await authOnly(`${proxy.url}/?token=${once}`, generateSecretKey());
  assert.deepEqual(got.at(-1), ['NOTICE', 'error: token invalid: invite token exhausted']);
  got = await authOnly(proxy.url, generateSecretKey());
  assert.equal(got.at(-1)[0], 'OK');
  assert.deepEqual(got.at(-1).slice(2), [false, 'restricted: pubkey not registered and no invite token provided']);
});

test('before AUTH, REQ and EVENT are refused with auth-required', async () => {
  const sk = generateSecretKey();
  const e = finalizeEvent({ kind: 42, created_at: now(), tags: [], content: 'x' }, sk);
  const got = await authOnly(proxy.url, sk, [['REQ', 'early', {}], ['EVENT', e]]);
  assert.deepEqual(got[0], ['CLOSED', 'early', 'auth-required: authenticate before subscribing']);
  assert.deepEqual(got[1], ['OK', e.id, false, 'auth-required: authenticate before sending events']);
});

test('a registered guest needs no token, and revoking it closes its session', async () => {
  const sk = generateSecretKey();
  const pk = getPublicKey(sk);
  const added = await proxy.admin('POST', '/admin/guests', { pubkey: pk, channels: `${general},not-a-uuid` });
  assert.deepEqual(added.body, { pubkey: pk, channels: [general] });
  const listed = await proxy.admin('GET', '/admin/guests');
  assert.ok(listed.body.guests.some((x) => x.pubkey === pk));
  const c = await Conn.open(proxy.url, sk);
  await c.alive();
  const closed = new Promise((resolve) => c.ws.on('close', resolve));
  assert.deepEqual((await proxy.admin('DELETE', '/admin/guests', { pubkey: pk })).body, { revoked: true });
  await closed;
  assert.equal((await proxy.admin('DELETE', '/admin/guests', { pubkey: pk })).status, 404);
});

// GET path on the team relay, NIP-98 signed by sk.
async function restGet(sk, path) {
  const url = team.relay.url.replace(/^ws:/, 'http:') + path;
  const auth = finalizeEvent({ kind: 27235, created_at: now(), tags: [['u', url], ['method', 'GET']], content: '' }, sk);
  const r = await fetch(url, { headers: { Authorization: 'Nostr ' + Buffer.from(JSON.stringify(auth)).toString('base64') } });
  return { status: r.status, body: await r.json() };
}

// What /api/presence says of pk to sk, once it is `want` (within five seconds).
async function presenceUntil(sk, pk, want) {
  let got;
  for (let i = 0; i < 100; i++) {
    got = (await restGet(sk, `/api/presence?pubkeys=${pk}`)).body[pk];
    if (got === want) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return got;
}

test('a guest connecting and leaving shows online and offline in its channel\'s presence, under its shadow key', async () => {
  const guestSk = generateSecretKey();
  const shadow = shadowPubkey(proxy.salt, getPublicKey(guestSk));
  const outsiderSk = generateSecretKey();  // shares no channel with the guest
  const outsider = await Conn.open(team.relay.url, outsiderSk);
  owner.send(['REQ', 'presence', { kinds: [20001], authors: [shadow] }]);
  outsider.send(['REQ', 'presence', { kinds: [20001], authors: [shadow] }]);
  await owner.next((m) => m[0] === 'EOSE' && m[1] === 'presence');
  await outsider.next((m) => m[0] === 'EOSE' && m[1] === 'presence');
  assert.equal(await presenceUntil(ownerSk, shadow, 'offline'), 'offline');

  const g = await Conn.open(`${proxy.url}/?token=${await invite([secret])}`, guestSk);
  const [, , online] = await owner.next((m) => m[0] === 'EVENT' && m[1] === 'presence' && m[2].content === 'online');
  assert.equal(online.kind, 20001);
  assert.deepEqual(online.tags, [['h', secret]]);
  assert.equal(await presenceUntil(ownerSk, shadow, 'online'), 'online');
  // A relay user who is not in the guest's channel learns nothing of it.
  assert.equal((await restGet(outsiderSk, `/api/presence?pubkeys=${shadow}`)).body[shadow], 'offline');

  g.close();
  const [, , offline] = await owner.next((m) => m[0] === 'EVENT' && m[1] === 'presence' && m[2].content === 'offline');
  assert.equal(offline.pubkey, shadow);
  assert.equal(await presenceUntil(ownerSk, shadow, 'offline'), 'offline');
  assert.equal(outsider.queue.filter((m) => m[0] === 'EVENT').length, 0, 'the outsider heard the guest\'s presence');
  owner.send(['CLOSE', 'presence']);
  outsider.close();
});

test('buzz proxy --help, and a start-up without a salt fails with the spec\'s text', async () => {
  const { spawnSync } = await import('node:child_process');
  const { binary } = await import('./relay_helpers.mjs');
  const help = spawnSync(binary, ['proxy', '--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout.toString(), /BUZZ_PROXY_SALT/);
  const env = { ...process.env, BUZZ_UPSTREAM_URL: 'ws://127.0.0.1:1', BUZZ_PROXY_SERVER_KEY: '01'.repeat(32),
                BUZZ_PROXY_SALT: '', BUZZ_PROXY_API_TOKEN: 'buzz_x', BUZZ_RELAY_PUBKEY: 'ab'.repeat(32) };
  const run = spawnSync(binary, ['proxy'], { env });
  assert.equal(run.status, 1);
  assert.match(run.stderr.toString(), /shadow key derivation failed: shadow key salt must not be empty/);
  const short = spawnSync(binary, ['proxy'], { env: { ...env, BUZZ_PROXY_SALT: '00', BUZZ_RELAY_PUBKEY: 'ab' } });
  assert.equal(short.status, 1);
  assert.match(short.stderr.toString(), /BUZZ_RELAY_PUBKEY must be 64 hex characters/);
});
