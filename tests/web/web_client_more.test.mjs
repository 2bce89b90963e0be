// The rest of issue 33 §2, each done in headless Chromium as a person does it,
// against the real buzz binary: link previews (fetched by the relay through
// the workflows' SSRF-safe request, from a local test HTTP server: loopback
// is a private address, so the relay runs with 127.0.0.1 on the workflows'
// allow-list, as the webhook tests do; a private address shows nothing) and
// the channel browser (finding and joining open channels; a private one never
// listed) and the team's custom emoji (NIP-30: a set per member, :shortcode:
// completion, pictures in messages and reactions), with axe-core over the new
// screens and the phone layout; and the operator page (the relay's members and
// roles through NIP-86 under its rules, an admin refused what only the owner
// may do, a member never offered the page; health and metrics).
//   BUZZ_BINARY=build-ci/buzz node --test web_client_more.test.mjs
// BUZZ_WEB_SHOTS=<dir> keeps a screenshot of each screen checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { writeFileSync, rmSync, readFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { nsecEncode } from 'nostr-tools/nip19';
import { getToken } from 'nostr-tools/nip98';
import { startWorld, axeViolations, signIn, waitText, waitNoText, say, act, rest, connect, createChannel, openChannel, png } from './browser.mjs';

let world;
let site;  // the linked pages' server
const asked = [];  // the paths it was asked for
const people = {};

before(async () => {
  world = await startWorld({ env: { BUZZ_WORKFLOW_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
  site = http.createServer((req, res) => {
    asked.push(req.url);
    if (req.url === '/card.png') return res.writeHead(200, { 'Content-Type': 'image/png' }).end(png());
    if (req.url === '/article') {
      return res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head>
        <title>Plain title</title>
        <meta property="og:site_name" content="Team Handbook">
        <meta property="og:title" content="How we ship &amp; why">
        <meta property="og:description" content="Our release train, step by step: freeze, test, ship.">
        <meta property="og:image" content="/card.png"></head><body><script>alert(1)</script></body></html>`);
    }
    res.writeHead(404).end();
  });
  await new Promise((r) => site.listen(0, '127.0.0.1', r));
  for (const name of ['Alice', 'Bob']) people[name.toLowerCase()] = await signIn(world, name);
});

after(async () => {
  await world?.stop();
  site?.close();
});

const previewOf = (page, text) => page.evaluate((t) => {
  const m = [...document.querySelectorAll('.messages .msg')].find((x) => x.textContent.includes(t));
  const card = m?.querySelector('.link-preview');
  if (!card) return null;
  const img = card.querySelector('img');
  return { text: card.textContent, href: card.getAttribute('href'), image: img && { src: img.src.slice(0, img.src.indexOf(',') + 1), loaded: img.complete && img.naturalWidth > 0 } };
}, text);

test('a link shows its page\'s title, description and picture, fetched by the relay; a private address shows none', async () => {
  const { alice, bob } = people;
  await createChannel(alice, 'reading');
  await openChannel(bob, 'reading');
  const url = `http://127.0.0.1:${site.address().port}/article`;
  await say(alice, bob, `the release notes: ${url}`);
  // Both see the card; the site was asked once (the relay's cache), never by a browser.
  for (const { page } of [alice, bob]) {
    await page.waitForFunction(() => document.querySelector('.messages .msg .link-preview img')?.naturalWidth > 0, { timeout: 30000 });
    const card = await previewOf(page, 'the release notes');
    assert.match(card.text, /Team Handbook/);
    assert.match(card.text, /How we ship & why/);
    assert.match(card.text, /Our release train, step by step/);
    assert.equal(card.href, url);
    assert.deepEqual(card.image, { src: 'data:image/jpeg;base64,', loaded: true });
  }
  assert.deepEqual(asked, ['/article', '/card.png']);

  // A link to a private address: the relay refuses it (and never connects), nothing is shown.
  const refused = bob.page.waitForResponse((r) => r.url().includes('/api/link-preview') && r.url().includes('10.0.0.7'), { timeout: 30000 });
  await say(alice, bob, 'the router: http://10.0.0.7/admin');
  const answer = await refused;
  assert.equal(answer.status(), 502);
  assert.match((await answer.json()).error, /^no preview: SSRF blocked/);
  await new Promise((r) => setTimeout(r, 300));  // the refusal's render
  assert.equal(await previewOf(bob.page, 'the router'), null);
  assert.deepEqual(asked, ['/article', '/card.png']);

  assert.deepEqual(await axeViolations(bob.page, 'link-preview'), []);
});

test('the channel browser lists the open channels one is not in, finds them by name or topic, and joins one', async () => {
  const { alice, bob } = people;
  await createChannel(alice, 'design-crit');
  await alice.page.click('#toggle-settings');
  await alice.page.type('#settings-topic', 'mockups every Friday');
  await alice.page.click('#save-settings');
  await createChannel(alice, 'ops-oncall');
  await createChannel(alice, 'board-only', 'private');
  await bob.page.click('#browse-channels');
  await waitText(bob.page, '#channel-browser li', 'ops-oncall');
  // Each with its topic and a Join (reading one is not joining it); a private channel never.
  await waitText(bob.page, '#channel-browser li[data-browse="design-crit"]', 'mockups every Friday');
  for (const name of ['design-crit', 'ops-oncall']) {
    assert.ok(await bob.page.$(`#channel-browser li[data-browse="${name}"] button.join`), name);
  }
  assert.ok(await bob.page.$('#channel-browser li[data-browse="reading"] button.open-channel'), 'joined when he first opened it');
  assert.equal(await bob.page.$('#channel-browser li[data-browse="board-only"]'), null);
  assert.deepEqual(await axeViolations(bob.page, 'channel-browser'), []);
  // Found by its topic's words.
  await bob.page.type('#browse-filter', 'friday');
  await waitNoText(bob.page, '#channel-browser li', 'ops-oncall');
  assert.equal((await bob.page.$$('#channel-browser li')).length, 1);
  await bob.page.click('#channel-browser li[data-browse="design-crit"] button.join');
  // Joined: the channel opens, and he is one of its members.
  await waitText(bob.page, '.channel-head h1', 'design-crit');
  const listed = (await rest(world, bob, 'GET', '/api/channels')).json.find((c) => c.name === 'design-crit');
  assert.equal(listed.is_member, true);
  await bob.page.click('#browse-channels');
  await bob.page.waitForSelector('#channel-browser li[data-browse="design-crit"] button.open-channel');
  await bob.page.click('#channel-browser li[data-browse="design-crit"] button.open-channel');
  await waitText(bob.page, '.channel-head h1', 'design-crit');
  // The sidebar lists what he joined, not every channel he may read; one is read
  // from the browser without joining, listed only while open, and joined from its bar.
  await bob.page.waitForSelector('#channel-list [data-channel="design-crit"]');
  assert.equal(await bob.page.$('#channel-list [data-channel="ops-oncall"]'), null);
  await bob.page.click('#browse-channels');
  await (await bob.page.waitForSelector('#channel-browser li[data-browse="ops-oncall"] button.preview')).click();
  await waitText(bob.page, '#preview-bar', 'You are reading #ops-oncall without being in it.');
  assert.deepEqual(await axeViolations(bob.page, 'channel-preview'), []);
  await bob.page.click('[data-channel="design-crit"]');
  await bob.page.waitForFunction(() => !document.querySelector('#channel-list [data-channel="ops-oncall"]'));
  await bob.page.click('#browse-channels');
  await (await bob.page.waitForSelector('#channel-browser li[data-browse="ops-oncall"] button.preview')).click();
  await bob.page.click('#preview-join');
  await bob.page.waitForFunction(() => !document.getElementById('preview-bar'), { timeout: 30000 });
  await bob.page.click('[data-channel="design-crit"]');
  await bob.page.waitForSelector('#channel-list [data-channel="ops-oncall"]');
});

// The list learns of channels from the relay's live channel metadata (kind
// 39000, one subscription), never from a poll: what another opens or renames
// shows within about a second, a private channel never reaches a non-member
// (not one frame of it), and a channel turned private goes at once (the
// relay's kind 5 for its metadata, only to those who could read it).
test('the channel list follows what others open, rename and make private, live and without a poll', async () => {
  const { alice } = people;
  const frames = [];  // every frame the relay sends Dora's page
  const reads = [];   // when her page read the channel list
  const dora = await signIn(world, 'Dora', undefined, async (page) => {
    const cdp = await page.createCDPSession();
    await cdp.send('Network.enable');
    cdp.on('Network.webSocketFrameReceived', (f) => frames.push(f.response.payloadData));
    page.on('request', (r) => { if (new URL(r.url()).pathname === '/api/channels') reads.push(Date.now()); });
  });
  const relay = await connect(world, alice.secret);
  const publish = (kind, tags) => relay.publish(finalizeEvent({ kind, created_at: Math.floor(Date.now() / 1000), content: '', tags }, alice.secret));
  const browsed = (name) => dora.page.$(`#channel-browser li[data-browse="${name}"]`);
  const listedWithin = async (selector, started) => {
    await dora.page.waitForSelector(selector, { timeout: 30000 });
    return Date.now() - started;
  };
  try {
    await dora.page.click('#browse-channels');
    // Opened by another: in her channel browser within about a second.
    const roadmap = crypto.randomUUID();
    let started = Date.now();
    await publish(9007, [['h', roadmap], ['name', 'roadmap'], ['visibility', 'open']]);
    const opened = await listedWithin('#channel-browser li[data-browse="roadmap"]', started);
    await dora.page.click('#channel-browser li[data-browse="roadmap"] button.join');
    await dora.page.waitForSelector('#channel-list [data-channel="roadmap"]');
    // Renamed by another: her sidebar follows.
    started = Date.now();
    await publish(9002, [['h', roadmap], ['name', 'roadmap-2027']]);
    const renamed = await listedWithin('#channel-list [data-channel="roadmap-2027"]', started);
    console.log(`live channel list: opened shown in ${opened} ms, renamed in ${renamed} ms`);
    assert.ok(opened < 3000 && renamed < 3000, `opened ${opened} ms, renamed ${renamed} ms`);

    // A private channel she is not in: never listed, and not one frame names it.
    await dora.page.click('#browse-channels');
    const secret = crypto.randomUUID();
    await publish(9007, [['h', secret], ['name', 'exec-only'], ['visibility', 'private']]);
    await publish(9002, [['h', secret], ['name', 'exec-only-renamed']]);
    const town = crypto.randomUUID();
    await publish(9007, [['h', town], ['name', 'town-hall'], ['visibility', 'open']]);  // after it, so its events came first
    await dora.page.waitForSelector('#channel-browser li[data-browse="town-hall"]', { timeout: 30000 });
    assert.equal(await browsed('exec-only'), null);
    assert.equal(await browsed('exec-only-renamed'), null);
    assert.deepEqual(frames.filter((f) => f.includes(secret)), [], 'a private channel reached a non-member');

    // No poll: a quiet page reads the list no more (once the reads those
    // changes started are done).
    while (Date.now() - reads.at(-1) < 1000) await new Promise((r) => setTimeout(r, 200));
    const quiet = reads.length;
    await new Promise((r) => setTimeout(r, 6000));
    assert.equal(reads.length, quiet, 'the list was read with nothing changed');

    // Turned private: no metadata of it reaches her any more, but the relay's
    // word that it is gone for her does, and it leaves her browser at once.
    started = Date.now();
    await publish(9002, [['h', town], ['visibility', 'private']]);
    await dora.page.waitForFunction(() => !document.querySelector('#channel-browser li[data-browse="town-hall"]'), { polling: 50, timeout: 30000 });
    assert.ok(Date.now() - started < 2000, `turned private, gone in ${Date.now() - started} ms`);
  } finally {
    relay.close();
    await dora.page.browserContext().close();
  }
});

// A channel deleted, or turned private while one is not in it, leaves the
// sidebar of everyone who loses it within about a second, without a reload
// (the relay's kind 5 deleting its 39000, sent only to those who could read
// it), whether or not it is open; one who had it open is told so in plain
// words; a member of a channel turned private keeps it.
test('a channel deleted or turned private leaves the sidebars of those who lose it, live; its members keep it', async () => {
  const { alice, bob } = people;
  const relay = await connect(world, alice.secret);
  const publish = (kind, tags) => relay.publish(finalizeEvent({ kind, created_at: Math.floor(Date.now() / 1000), content: '', tags }, alice.secret));
  const listed = (page, name) => page.$(`nav [data-channel="${name}"]`);
  const leaves = async (page, name, started) => {
    await page.waitForFunction((n) => !document.querySelector(`nav [data-channel="${n}"]`), { polling: 50, timeout: 30000 }, name);
    return Date.now() - started;
  };
  try {
    const [doomed, closing, kept] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    await publish(9007, [['h', doomed], ['name', 'doomed'], ['visibility', 'open']]);
    await publish(9007, [['h', closing], ['name', 'closing'], ['visibility', 'open']]);
    await publish(9007, [['h', kept], ['name', 'kept'], ['visibility', 'open']]);
    // Bob is in #doomed and #kept, and starred #closing without being in it;
    // he reads #kept.
    await openChannel(bob, 'doomed');
    await openChannel(bob, 'closing', { join: false });
    await bob.page.click('#star-channel');
    await waitText(bob.page, '#starred-list', 'closing');
    await openChannel(bob, 'kept');
    await alice.page.waitForSelector('nav [data-channel="closing"]', { timeout: 30000 });
    await bob.page.evaluate(() => { window.__samePage = true; });

    let started = Date.now();
    await publish(9002, [['h', closing], ['visibility', 'private']]);
    const closed = await leaves(bob.page, 'closing', started);
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(await listed(alice.page, 'closing'), 'a member lost a channel turned private');

    started = Date.now();
    await publish(9008, [['h', doomed]]);
    const deleted = await leaves(bob.page, 'doomed', started);
    await leaves(alice.page, 'doomed', started);

    // The one he reads, deleted: gone from the list, and he is told.
    started = Date.now();
    await publish(9008, [['h', kept]]);
    const open = await leaves(bob.page, 'kept', started);
    await waitText(bob.page, '#channel-gone', '#kept was deleted.');
    console.log(`channel gone from the sidebar: turned private in ${closed} ms, deleted in ${deleted} ms, the open one in ${open} ms`);
    assert.ok(closed < 2000 && deleted < 2000 && open < 2000, `turned private ${closed} ms, deleted ${deleted} ms, open ${open} ms`);
    assert.ok(await bob.page.evaluate(() => window.__samePage), 'the page was reloaded');
  } finally {
    relay.close();
  }
});

test('a team emoji: added in Settings, completed in the composer, drawn in messages and reactions; one without its tag, or from elsewhere, stays text', async () => {
  const { alice, bob } = people;
  // Alice adds :partyparrot: (a picture uploaded to the relay, her emoji set 30030).
  await alice.page.click('#open-profile');
  await alice.page.type('#emoji-code', 'partyparrot');
  const file = join(world.dataDir, 'parrot.png');
  writeFileSync(file, png());
  try {
    await (await alice.page.$('#emoji-file')).uploadFile(file);
    await alice.page.click('#add-emoji');
    await alice.page.waitForFunction(() => document.querySelector('#team-emoji img.custom-emoji')?.naturalWidth > 0, { timeout: 30000 });
  } finally { rmSync(file, { force: true }); }
  await waitText(alice.page, '#team-emoji', ':partyparrot:');
  assert.deepEqual(await axeViolations(alice.page, 'settings-team-emoji'), []);
  await alice.page.click('#profile-close');
  await openChannel(alice, 'reading');

  // Bob, live: ":part" offers it first; Tab takes it; his message carries its emoji tag.
  await openChannel(bob, 'reading');
  await bob.page.focus('#message-input');
  await bob.page.keyboard.type('we shipped :part');
  await waitText(bob.page, '.emoji-options li:first-child', ':partyparrot:');
  assert.ok(await bob.page.$('.emoji-options li:first-child img.custom-emoji'));
  await bob.page.keyboard.press('Tab');
  assert.equal(await bob.page.$eval('#message-input', (t) => t.value), 'we shipped :partyparrot: ');
  await bob.page.keyboard.press('Enter');
  await waitText(alice.page, '.messages .msg', 'we shipped');
  await alice.page.waitForFunction(() => [...document.querySelectorAll('.messages .msg')].find((m) => m.textContent.includes('we shipped'))
    ?.querySelector('.content img.custom-emoji[alt=":partyparrot:"]')?.naturalWidth > 0, { timeout: 30000 });

  // Alice reacts with it from the picker; Bob sees the picture on the reaction.
  await act(alice.page, 'we shipped', 'button.react-any');
  await alice.page.type('.emoji-picker .emoji-search', 'parrot');
  await (await alice.page.waitForSelector('.emoji-picker button.emoji.team')).click();
  await bob.page.waitForFunction(() => document.querySelector('.messages .msg .reaction img.custom-emoji[alt=":partyparrot:"]')?.naturalWidth > 0, { timeout: 30000 });

  // Without its emoji tag, or with a picture from another site, a shortcode stays text.
  const channel = (await rest(world, alice, 'GET', '/api/channels')).json.find((c) => c.name === 'reading').id;
  const relay = await connect(world, alice.secret);
  const now = Math.floor(Date.now() / 1000);
  await relay.publish(finalizeEvent({ kind: 9, created_at: now, content: 'plain :partyparrot: here', tags: [['h', channel]] }, alice.secret));
  await relay.publish(finalizeEvent({ kind: 9, created_at: now + 1, content: 'far :evil: away',
    tags: [['h', channel], ['emoji', 'evil', 'https://evil.example/e.png']] }, alice.secret));
  relay.close();
  await waitText(bob.page, '.messages .msg', 'far :evil: away');
  await waitText(bob.page, '.messages .msg', 'plain :partyparrot: here');
  assert.equal(await bob.page.evaluate(() => [...document.querySelectorAll('.messages .msg')]
    .filter((m) => /plain :partyparrot:|far :evil:/.test(m.textContent)).some((m) => m.querySelector('.content img'))), false);
  assert.deepEqual(await axeViolations(bob.page, 'team-emoji-in-messages'), []);
});

test('a link preview and the channel browser on a phone stay within the screen', async () => {
  const dora = await signIn(world, 'Dora', { width: 390, height: 844 });
  await dora.page.click('.menu-toggle');
  await openChannel(dora, 'reading');
  await dora.page.waitForFunction(() => document.querySelector('.messages .msg .link-preview img')?.naturalWidth > 0, { timeout: 30000 });
  const right = await dora.page.$eval('.messages .msg .link-preview', (c) => c.getBoundingClientRect().right);
  assert.ok(right <= 390, `the card ends at ${right}px`);
  assert.equal(await dora.page.evaluate(() => document.documentElement.scrollWidth), 390);
  assert.deepEqual(await axeViolations(dora.page, 'phone-link-preview'), []);
  await dora.page.click('.menu-toggle');
  await dora.page.click('#browse-channels');
  await waitText(dora.page, '#channel-browser li', 'design-crit');
  assert.equal(await dora.page.evaluate(() => document.documentElement.scrollWidth), 390);
  const join = await dora.page.$eval('#channel-browser li[data-browse="ops-oncall"] button.join', (b) => b.getBoundingClientRect().right);
  assert.ok(join <= 390, `Join ends at ${join}px`);
  assert.deepEqual(await axeViolations(dora.page, 'phone-channel-browser'), []);
});

// A NIP-86 call (docs/reference/nip86.md) signed with this key, outside the browser.
async function rpc(relay, secret, method, params) {
  const url = relay.base + '/';
  const body = { method, params };
  const auth = await getToken(url, 'POST', (e) => finalizeEvent(e, secret), true, body);
  const r = await fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/nostr+json+rpc', Authorization: auth } });
  return { status: r.status, json: await r.json() };
}

// The relay's owner, Olive, signs in with her key pasted.
async function signInOwner(relay, secret) {
  const page = await (await relay.browser.createBrowserContext()).newPage();
  await page.setViewport({ width: 1200, height: 760 });
  await page.goto(relay.base + '/');
  await page.type('#nsec', nsecEncode(secret));
  await page.type('#signin-name', 'Olive');
  await page.click('#signin-key');
  await page.waitForSelector('.status.online', { timeout: 30000 });
  return { page, secret, pubkey: getPublicKey(secret) };
}

test('the operator page: the owner adds an admin and a member; an admin sees roles as text and is refused changing one; a member has no page', async () => {
  const secret = generateSecretKey();
  const relay = await startWorld({ owner: getPublicKey(secret) });
  try {
    const { page } = await signInOwner(relay, secret);
    const eve = await signIn(relay, 'Eve');
    const dave = await signIn(relay, 'Dave');
    // A member (here, anyone not owner or admin) is not offered the page.
    assert.equal(await dave.page.$('#open-operator'), null);

    await (await page.waitForSelector('#open-operator', { timeout: 30000 })).click();
    await waitText(page, '#relay-health', 'ready');
    await waitText(page, '#relay-figures', 'connections open');
    await waitText(page, '#relay-members', 'Olive (you)');
    await page.type('#relay-add', 'Eve');
    await page.select('#relay-add-role', 'admin');
    await page.click('#relay-add-button');
    await waitText(page, '#operator-said', 'Eve is a relay admin now.');
    await page.waitForFunction((pk) => document.querySelector(`[data-relay-member="${pk}"] select`)?.value === 'admin', { timeout: 30000 }, eve.pubkey);
    await page.type('#relay-add', 'Dave');
    await page.click('#relay-add-button');
    await waitText(page, '#operator-said', 'Dave is a relay member now.');
    assert.deepEqual(await axeViolations(page, 'operator'), []);

    // Eve, an admin now (after a reload), has the page, with the roles as text
    // (only the owner changes them) and adding members only; the relay refuses
    // her changing a role, and Dave, a member, reading the list at all.
    await eve.page.reload();
    await (await eve.page.waitForSelector('#open-operator', { timeout: 30000 })).click();
    await waitText(eve.page, '#relay-members', 'Dave');
    await waitText(eve.page, '#operator-role', 'only the owner gives or changes roles');
    assert.equal(await eve.page.$('#relay-members select'), null);
    assert.equal(await eve.page.$('#relay-add-role'), null);
    assert.equal(await eve.page.$(`[data-relay-member="${getPublicKey(secret)}"] button`), null);
    const refused = await rpc(relay, eve.secret, 'allowpubkey', [dave.pubkey, '', 'admin']);
    assert.equal(refused.status, 403);
    assert.match(refused.json.error, /not authorized/);
    const member = await rpc(relay, dave.secret, 'listallowedpubkeys', []);
    assert.equal(member.status, 403);
    assert.equal(await dave.page.$('#open-operator'), null);
    assert.deepEqual(await axeViolations(eve.page, 'operator-admin'), []);

    // On a phone the page fits the screen.
    await page.setViewport({ width: 390, height: 844 });
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
    assert.deepEqual(await axeViolations(page, 'phone-operator'), []);
  } finally { await relay.stop(); }
});

test('the operator page: my API tokens made (shown once), used, revoked; the audit log\'s newest entries, verified, and broken once tampered with; nobody else reads it', async () => {
  const secret = generateSecretKey();
  const relay = await startWorld({ owner: getPublicKey(secret) });
  try {
    const olive = await signInOwner(relay, secret);
    const { page } = olive;
    await createChannel(olive, 'audited');
    await page.type('#message-input', 'a message for the record');
    await page.keyboard.press('Enter');
    await waitText(page, '.messages .msg', 'a message for the record');
    await (await page.waitForSelector('#open-operator', { timeout: 30000 })).click();

    // A token made here is shown once, works, and stops when revoked.
    await waitText(page, '#operator', 'Your API tokens (0 not revoked)');
    await page.type('#token-name', 'ci bot');
    await page.select('#token-days', '30');
    await page.click('#token-mint');
    await page.waitForSelector('#token-secret');
    const token = await page.$eval('#token-secret', (i) => i.value);
    assert.match(token, /^buzz_[0-9a-f]{64}$/);
    await waitText(page, '[data-token="ci bot"]', 'messages:read, channels:read, users:read, files:read');
    await waitText(page, '[data-token="ci bot"]', 'expires');
    assert.deepEqual(await axeViolations(page, 'operator-token'), []);
    const bearer = (path) => fetch(relay.base + path, { headers: { Authorization: 'Bearer ' + token } })
      .then(async (r) => ({ status: r.status, json: await r.json().catch(() => null) }));
    assert.equal((await bearer('/api/channels')).status, 200);
    await page.click('#token-done');
    assert.equal(await page.$('#token-secret'), null, 'shown once');
    assert.ok(!(await page.content()).includes(token), 'the list never holds the secret');
    page.once('dialog', (d) => d.accept());
    await page.click('[data-token="ci bot"] .revoke-token');
    await waitText(page, '#tokens-said', 'The token “ci bot” is revoked.');
    await waitText(page, '[data-token="ci bot"]', 'revoked');
    assert.deepEqual((await bearer('/api/channels')).json, { error: 'token_revoked' });

    // The audit log: its newest entries (the message among them), the whole chain verified.
    await waitText(page, '#audit-tail', 'event created');
    assert.ok(await page.$eval('#audit-tail tbody tr', (r) => Number(r.dataset.seq) > 1), 'newest first');
    await page.click('#audit-verify');
    await waitText(page, '#audit-result', 'The chain is whole');
    assert.deepEqual(await axeViolations(page, 'operator-audit'), []);

    // Nobody but the owner and admins reads it: a relay member, a channel's guest, someone
    // not a relay member (the relay is open), nor the owner's own token without admin:users.
    const dave = await signIn(relay, 'Dave');
    assert.equal((await rpc(relay, secret, 'allowpubkey', [dave.pubkey, '', 'member'])).status, 200);
    const gail = await signIn(relay, 'Gail');
    const audited = (await rest(relay, olive, 'GET', '/api/channels')).json.find((c) => c.name === 'audited');
    const owner = await connect(relay, secret);
    await owner.publish(finalizeEvent({ kind: 9000, created_at: Math.floor(Date.now() / 1000), content: '',
      tags: [['h', audited.id], ['p', gail.pubkey], ['role', 'guest']] }, secret));
    owner.close();
    const nora = { secret: generateSecretKey() };
    for (const [who, person] of [['member', dave], ['guest', gail], ['not a member', nora]]) {
      for (const path of ['/api/audit?limit=5', '/api/audit/verify']) {
        const r = await rest(relay, person, 'GET', path);
        assert.equal(r.status, 403, `${who}: ${path}`);
        assert.deepEqual(r.json, { error: 'forbidden', message: 'only the relay owner and admins read the audit log' }, who);
      }
    }
    const minted = await rest(relay, olive, 'POST', '/api/tokens', { name: 'reader', scopes: ['messages:read'] });
    const scoped = await fetch(relay.base + '/api/audit', { headers: { Authorization: 'Bearer ' + minted.json.token } });
    assert.equal(scoped.status, 403);
    assert.equal((await scoped.json()).error, 'insufficient_scope');
    assert.equal((await rest(relay, olive, 'GET', '/api/audit?limit=0')).status, 400);
    assert.equal(await dave.page.$('#open-operator'), null);

    // One byte of an entry changed on disk: the check says where the chain breaks.
    const segment = join(relay.dataDir, 'audit', 'seg-00000000000000000001.bza');
    const bytes = readFileSync(segment);
    const at = bytes.indexOf('"action":"event_created"') + 11;
    assert.ok(at > 11);
    const fd = openSync(segment, 'r+');
    writeSync(fd, Buffer.from('E'), 0, 1, at);
    closeSync(fd);
    await page.click('#audit-verify');
    await waitText(page, '#audit-result', 'The chain is broken at entry #');
    assert.equal(await page.$eval('#audit-result', (p) => p.getAttribute('role')), 'alert');

    // On a phone the page, its tokens and its table fit the screen.
    await page.setViewport({ width: 390, height: 844 });
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
    assert.deepEqual(await axeViolations(page, 'phone-operator-audit'), []);
  } finally { await relay.stop(); }
});
