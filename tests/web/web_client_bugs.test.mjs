// The web client's first-day bugs (issue 33 §1), each reproduced in headless
// Chromium against the real buzz binary: start-up in a bounded number of
// frames with many channels, the outbox across a relay crash, reopening at the
// newest message, one second's messages in order, backing up a new key,
// search after an edit, a network error that goes when the relay is back,
// right-to-left text, any file attached, one channel per name, and one
// message's actions at a time.
//   BUZZ_BINARY=build-ci/buzz node --test web_client_bugs.test.mjs
// BUZZ_WEB_SHOTS=<dir> keeps a screenshot of the visible ones there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure';
import * as nip19 from 'nostr-tools/nip19';
import { writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, signIn, waitText, waitNoText, type, say, act, rest, connect, createChannel, openChannel, editMessage, deleteMessage } from './browser.mjs';

let world;
const people = {};
const shot = (person, name) => process.env.BUZZ_WEB_SHOTS && person.page.screenshot({ path: `${process.env.BUZZ_WEB_SHOTS}/${name}.png` });
const actionSets = (page) => page.$$eval('.messages .actions', (els) => els.length);

before(async () => {
  world = await startWorld();
  for (const name of ['Gina', 'Hugo']) people[name.toLowerCase()] = await signIn(world, name);
});

after(async () => { await world?.stop(); });

test('a member with 40 channels starts in a bounded number of frames, every unread count shown', async () => {
  // Its own relay, with the human rate limits on; the owner is exempt from them, the member is not.
  const owner = generateSecretKey();
  const limited = await startWorld({ rateLimits: true, owner: getPublicKey(owner) });
  try {
    const relay = await connect(limited, owner);
    const ids = [];
    for (let i = 0; i < 40; i++) {
      const id = crypto.randomUUID();
      ids.push(id);
      await relay.publish(finalizeEvent({ kind: 9007, created_at: Math.floor(Date.now() / 1000), content: '',
        tags: [['h', id], ['name', `team-${String(i).padStart(2, '0')}`], ['visibility', 'open']] }, owner));
      await relay.publish(finalizeEvent({ kind: 9, created_at: Math.floor(Date.now() / 1000), content: `hello ${i}`, tags: [['h', id]] }, owner));
    }
    const sent = [];
    const refused = [];
    const member = await signIn(limited, 'Ivy', undefined, async (page) => {
      const cdp = await page.createCDPSession();
      await cdp.send('Network.enable');
      cdp.on('Network.webSocketFrameSent', (f) => sent.push(f.response.payloadData));
      cdp.on('Network.webSocketFrameReceived', (f) => { if (f.response.payloadData.includes('rate-limited')) refused.push(f.response.payloadData); });
    });
    // In none of them yet: the sidebar lists none, the channel browser all 40.
    await member.page.click('#browse-channels');
    await member.page.waitForFunction(() => document.querySelectorAll('#channel-browser [data-browse]').length === 40, { timeout: 30000 });
    assert.equal(await member.page.$$eval('#channel-list [data-channel]', (els) => els.length), 0);
    for (const id of ids) {
      await relay.publish(finalizeEvent({ kind: 9000, created_at: Math.floor(Date.now() / 1000), content: '',
        tags: [['h', id], ['p', member.pubkey]] }, owner));
    }
    relay.close();
    // The old page settled first: each membership re-reads its list and sends
    // its subscription again, which must not count as the new page's start-up.
    await member.page.waitForFunction(() => document.querySelectorAll('#channel-list [data-channel]').length === 40, { timeout: 30000 });
    // The start-up measured: the page opened again, a member of the 40.
    sent.length = 0;
    refused.length = 0;
    await member.page.reload();
    await member.page.waitForFunction(() => document.querySelectorAll('#channel-list [data-channel]').length === 40, { timeout: 30000 });
    await member.page.waitForFunction(() => [...document.querySelectorAll('#channel-list .chan')]
      .every((b) => b.querySelector('.unread')?.textContent === '1'), { timeout: 30000 });
    await new Promise((r) => setTimeout(r, 1000));  // anything still on its way at start-up
    const requests = sent.filter((f) => /^\["(REQ|COUNT)"/.test(f));
    assert.ok(requests.length <= 12, `${requests.length} REQ/COUNT frames at start-up for 40 channels: ${requests.map((f) => f.slice(0, 70)).join(' | ')}`);
    assert.deepEqual(refused, []);
    await member.page.browserContext().close();
  } finally {
    await limited.stop();
  }
});

// What Gina does and sees while the relay is down.
async function offline(gina) {
  await type(gina.page, '#message-input', 'said while the relay was down');
  await waitText(gina.page, '.messages .pending', 'said while the relay was down');
  await waitText(gina.page, '.messages .pending .sending', 'sending…');
  assert.equal(await gina.page.$eval('#message-input', (t) => t.value), '');
  await type(gina.page, '#message-input', 'and a second one');  // Send is not stuck
  await waitText(gina.page, '.messages .pending', 'and a second one');
  // The page shown again catches its channel list up, which fails while the relay is away.
  await gina.page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
  await waitText(gina.page, '.main > .error', 'Failed to fetch', 15000);
  await shot(gina, 'bug2-outbox-offline');
}

test('a message sent while the relay is down waits in the outbox and goes when it is back; the network error goes too', async () => {
  const { gina, hugo } = people;
  await createChannel(gina, 'outbox');
  await openChannel(hugo, 'outbox');
  await world.crash();
  try {
    await offline(gina);
  } finally {
    await world.restart();  // for the tests after this one, whatever happened
  }
  await waitText(hugo.page, '.messages .msg', 'said while the relay was down', 30000);
  await waitText(hugo.page, '.messages .msg', 'and a second one');
  await gina.page.waitForFunction(() => !document.querySelector('.messages .pending'), { timeout: 30000 });
  await waitNoText(gina.page, '.main > .error', 'Failed to fetch', 15000);
  // Exactly once each, for both.
  for (const p of [gina, hugo]) {
    const texts = await p.page.$$eval('.messages .msg .content', (els) => els.map((e) => e.textContent));
    assert.equal(texts.filter((t) => t === 'said while the relay was down').length, 1);
  }
});

test('a refused message says why and offers a retry', async () => {
  // A page whose clock runs two hours ahead: the relay refuses what it signs.
  const kit = await signIn(world, 'Kit');
  await createChannel(kit, 'refusals');
  await kit.page.evaluate(() => { const real = Date.now; Date.now = () => real() + 2 * 3600 * 1000; });
  await type(kit.page, '#message-input', 'from the future');
  await waitText(kit.page, '.messages .pending .not-sent', 'Not sent: invalid: event timestamp too far from server time');
  await kit.page.waitForSelector('.messages .pending .retry');
  await shot(kit, 'bug2-refused');
  await kit.page.click('.messages .pending .discard');
  await kit.page.waitForFunction(() => !document.querySelector('.messages .pending'), { timeout: 30000 });
  await kit.page.browserContext().close();
});

test('reopening a long channel shows its newest message', async () => {
  const { gina, hugo } = people;
  await createChannel(gina, 'long');
  const relay = await connect(world, gina.secret);
  const channel = (await rest(world, gina, 'GET', '/api/channels')).json.find((c) => c.name === 'long').id;
  const base = Math.floor(Date.now() / 1000) - 200;
  for (let i = 0; i < 120; i++) {
    const text = `line ${i} ` + 'word '.repeat((i * 37) % 90);
    await relay.publish(finalizeEvent({ kind: 9, created_at: base + i, content: i === 119 ? 'the very last line' : text, tags: [['h', channel]] }, gina.secret));
  }
  relay.close();
  await openChannel(hugo, 'long');
  await openChannel(hugo, 'outbox');
  await openChannel(hugo, 'long');
  await waitText(hugo.page, '.messages .msg', 'the very last line');
  await new Promise((r) => setTimeout(r, 500));  // what the layout does after the first frames
  const place = await hugo.page.$eval('.messages', (el) => {
    const last = [...el.querySelectorAll('.msg')].pop().getBoundingClientRect();
    const box = el.getBoundingClientRect();
    return { fromBottom: el.scrollHeight - el.scrollTop - el.clientHeight, lastVisible: last.top < box.bottom && last.bottom > box.top };
  });
  await shot(hugo, 'bug3-reopened');
  assert.ok(place.lastVisible, `the newest message is off screen (${place.fromBottom}px from the bottom)`);
  assert.ok(place.fromBottom < 60, `${place.fromBottom}px from the bottom`);
});

test('messages of the same second keep the order they were sent in, on reopening too', async () => {
  const { gina, hugo } = people;
  await createChannel(gina, 'burst');
  await openChannel(hugo, 'burst');
  const sent = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'].map((w) => 'burst ' + w);
  for (const text of sent) await type(gina.page, '#message-input', text);
  await waitText(hugo.page, '.messages .msg', sent.at(-1));
  await openChannel(hugo, 'outbox');
  await openChannel(hugo, 'burst');
  await waitText(hugo.page, '.messages .msg', sent.at(-1));
  for (const p of [gina, hugo]) {
    const shown = await p.page.$$eval('.messages .msg .content', (els) => els.map((e) => e.textContent).filter((t) => t.startsWith('burst')));
    assert.deepEqual(shown, sent, p.name);
  }
});

test('a reply said at once stays below what it answers, for both and on reopening, however the clocks stand', async () => {
  const { gina, hugo } = people;
  await createChannel(gina, 'talk');
  await openChannel(hugo, 'talk');
  const said = [];
  for (let i = 0; i < 4; i++) {
    await say(gina, hugo, `ping ${i}`);
    await say(hugo, gina, `pong ${i}`);
    said.push(`ping ${i}`, `pong ${i}`);
  }
  for (const p of [gina, hugo]) {
    await openChannel(p, 'burst');
    await openChannel(p, 'talk');
    await waitText(p.page, '.messages .msg', 'pong 3');
    const shown = await p.page.$$eval('.messages .msg .content', (els) => els.map((e) => e.textContent).filter((t) => /^p[io]ng/.test(t)));
    assert.deepEqual(shown, said, p.name);
  }
});

test('a new key can be backed up, and signing out a key never backed up asks first', async () => {
  const jo = await signIn(world, 'Jo');
  await jo.page.waitForSelector('#backup-banner');
  let asked = '';
  jo.page.once('dialog', (d) => { asked = d.message(); d.dismiss(); });
  await jo.page.click('#sign-out');
  await jo.page.waitForSelector('#key-backup');
  assert.match(asked, /never backed up/);
  assert.ok(await jo.page.$('#my-name'), 'still signed in');
  await jo.page.click('#backup-show');
  assert.equal(await jo.page.$eval('#backup-nsec', (i) => i.value), nip19.nsecEncode(jo.secret));
  assert.equal(await jo.page.$eval('#backup-download', (a) => a.getAttribute('download')), 'buzz-key.txt');
  await jo.page.click('#backup-close');
  assert.equal(await jo.page.$('#backup-banner'), null);
  jo.page.once('dialog', (d) => { asked = 'asked again'; d.dismiss(); });
  asked = '';
  await jo.page.click('#sign-out');
  await jo.page.waitForSelector('#signin-key');
  assert.equal(asked, '');
  await jo.page.browserContext().close();
});

// Pressing Enter on the same words searches again (it once kept the first answer,
// given before the edit was indexed, however often one asked).
test('search finds an edited message by its new text only, and a deleted one not at all', async () => {
  const { gina } = people;
  await createChannel(gina, 'edits');
  await type(gina.page, '#message-input', 'the heron nests here');
  await editMessage(gina.page, 'the heron nests here', 'the stork nests here');
  await waitText(gina.page, '.messages .msg', 'the stork nests here');
  const search = async (q) => {
    const before = await gina.page.$('#search-results');
    await gina.page.$eval('#search', (i) => { i.value = ''; });
    await type(gina.page, '#search', q);
    await gina.page.waitForFunction((t, old) => {
      const view = document.querySelector('#search-results');
      return view && view !== old && view.querySelector('h1').textContent.includes(t) && view.querySelector('.hit, .empty');
    }, { timeout: 30000 }, q, before);
    return gina.page.$$eval('#search-results .hit span', (els) => els.map((e) => e.textContent));
  };
  // The index follows the store a moment behind (its search lag): ask again for a while, not a number of times.
  const pause = () => new Promise((resolve) => setTimeout(resolve, 250));
  let found = [];
  for (const until = Date.now() + 20000; !found.length && Date.now() < until; await pause()) found = await search('stork');
  assert.deepEqual(found, ['the stork nests here']);
  // The same words again ask the relay again.
  const asked = [];
  const count = (r) => { if (r.url().includes('/api/search?')) asked.push(r.url()); };
  gina.page.on('request', count);
  await search('stork');
  await search('stork');
  gina.page.off('request', count);
  assert.equal(asked.length, 2);
  assert.deepEqual(await search('heron'), []);
  await openChannel(gina, 'edits');
  await deleteMessage(gina.page, 'the stork nests here');
  await waitNoText(gina.page, '.messages .msg', 'the stork nests here');
  for (const until = Date.now() + 20000; found.length && Date.now() < until; await pause()) found = await search('stork');
  assert.deepEqual(found, []);
});

test('right-to-left text reads right to left, in messages and in the composer', async () => {
  const { gina, hugo } = people;
  await createChannel(gina, 'rtl');
  await openChannel(hugo, 'rtl');
  await say(gina, hugo, 'שלום לכולם, the meeting is at 10');
  const direction = await hugo.page.$$eval('.messages .msg .content', (els) => getComputedStyle(els.at(-1)).direction);
  assert.equal(direction, 'rtl');
  await hugo.page.type('#message-input', 'مرحبا');
  assert.equal(await hugo.page.$eval('#message-input', (t) => t.getAttribute('dir')), 'auto');
  assert.equal(await hugo.page.$eval('#message-input', (t) => t.matches(':dir(rtl)')), true);
  await shot(hugo, 'bug8-rtl');
  await hugo.page.$eval('#message-input', (t) => { t.value = ''; t.dispatchEvent(new Event('input', { bubbles: true })); });
});

test('any file the relay accepts can be attached: shown with its name, type and size, downloadable', async () => {
  const { gina, hugo } = people;
  await createChannel(gina, 'files');
  await openChannel(hugo, 'files');
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
  const path = join(tmpdir(), `report-${Date.now()}.pdf`);
  writeFileSync(path, pdf);
  const input = await gina.page.$('.composer input.file');
  await input.uploadFile(path);
  await waitText(gina.page, '.composer .preview', 'report-');
  await gina.page.click('.composer button[type=submit]');
  await waitText(hugo.page, '.messages .msg .file-card', 'report-', 30000);
  const card = await hugo.page.$eval('.messages .msg .file-card', (c) => ({ text: c.textContent, href: c.querySelector('a').getAttribute('href'),
    download: c.querySelector('a').hasAttribute('download') }));
  assert.match(card.text, /application\/pdf/);
  assert.match(card.text, /\d+ B/);
  assert.ok(card.download);
  const got = await fetch(world.base + card.href);
  assert.equal(got.status, 200);
  assert.equal(Buffer.compare(Buffer.from(await got.arrayBuffer()), pdf), 0);
  assert.equal(await hugo.page.$('.messages .msg img.inline'), null, 'no broken image');
  await shot(hugo, 'bug9-file');
  rmSync(path);
});

test('a channel name already taken, in any case, is refused in the page with the other channel offered', async () => {
  const { gina, hugo } = people;
  await createChannel(gina, 'general');
  await hugo.page.click('#browse-channels');
  await hugo.page.waitForSelector('[data-browse="general"]', { timeout: 30000 });
  await hugo.page.type('#new-channel', 'General');
  await hugo.page.click('#create-channel');
  await waitText(hugo.page, '#name-taken', 'already a channel called “general”');
  await hugo.page.click('#open-existing');
  await waitText(hugo.page, '.channel-head h1', 'general');
  const listed = (await rest(world, hugo, 'GET', '/api/channels')).json.filter((c) => c.name.toLowerCase() === 'general');
  assert.equal(listed.length, 1);
});

test('only one message shows its actions, by pointer or keyboard', async () => {
  const { gina, hugo } = people;
  await createChannel(gina, 'hover');
  await openChannel(hugo, 'hover');
  for (const t of ['first', 'second', 'third']) await say(gina, hugo, 'hover ' + t);
  // The keyboard: each message reached in turn.
  for (const t of ['first', 'second', 'third']) {
    await hugo.page.$$eval('.messages .msg', (els, x) => els.find((e) => e.textContent.includes(x)).focus(), 'hover ' + t);
  }
  assert.equal(await actionSets(hugo.page), 1);
  // The pointer: a reaction given on one, then over the others.
  await act(hugo.page, 'hover first', '.react');
  for (const t of ['second', 'third']) {
    const m = await hugo.page.evaluateHandle((x) => [...document.querySelectorAll('.messages .msg')].find((e) => e.textContent.includes(x)), 'hover ' + t);
    await m.asElement().hover();
  }
  await shot(hugo, 'bug13-hover');
  assert.equal(await actionSets(hugo.page), 1);
});
