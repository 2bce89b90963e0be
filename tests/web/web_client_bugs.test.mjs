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
import { startWorld, signIn, waitText, waitNoText, type, say, act, rest, connect, createChannel, openChannel } from './browser.mjs';

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
    relay.close();
    const sent = [];
    const refused = [];
    const member = await signIn(limited, 'Ivy', undefined, async (page) => {
      const cdp = await page.createCDPSession();
      await cdp.send('Network.enable');
      cdp.on('Network.webSocketFrameSent', (f) => sent.push(f.response.payloadData));
      cdp.on('Network.webSocketFrameReceived', (f) => { if (f.response.payloadData.includes('rate-limited')) refused.push(f.response.payloadData); });
    });
    await member.page.waitForFunction(() => document.querySelectorAll('#channel-list [data-channel]').length === 40, { timeout: 30000 });
    await member.page.waitForFunction(() => [...document.querySelectorAll('#channel-list .chan')]
      .every((b) => b.querySelector('.unread')?.textContent === '1'), { timeout: 30000 });
    await new Promise((r) => setTimeout(r, 1000));  // anything still on its way at start-up
    const requests = sent.filter((f) => /^\["(REQ|COUNT)"/.test(f));
    assert.ok(requests.length <= 12, `${requests.length} REQ/COUNT frames at start-up for 40 channels`);
    assert.deepEqual(refused, []);
    await member.page.browserContext().close();
  } finally {
    await limited.stop();
  }
});

test('search finds an edited message by its new text only, and a deleted one not at all', async () => {
  const { gina } = people;
  await createChannel(gina, 'edits');
  await type(gina.page, '#message-input', 'the heron nests here');
  gina.page.once('dialog', (d) => d.accept('the stork nests here'));
  await act(gina.page, 'the heron nests here', '.edit');
  await waitText(gina.page, '.messages .msg', 'the stork nests here');
  const search = async (q) => {
    await gina.page.$eval('#search', (i) => { i.value = ''; });
    await type(gina.page, '#search', q);
    await gina.page.waitForFunction((t) => document.querySelector('#search-results h1')?.textContent.includes(t)
      && (document.querySelector('#search-results .hit') || document.querySelector('#search-results .empty')), { timeout: 30000 }, q);
    return gina.page.$$eval('#search-results .hit span', (els) => els.map((e) => e.textContent));
  };
  let found = [];
  for (let i = 0; i < 20 && !found.length; i++) found = await search('stork');  // searchable within a second
  assert.deepEqual(found, ['the stork nests here']);
  assert.deepEqual(await search('heron'), []);
  await openChannel(gina, 'edits');
  await act(gina.page, 'the stork nests here', '.delete');
  await waitNoText(gina.page, '.messages .msg', 'the stork nests here');
  for (let i = 0; i < 20 && found.length; i++) found = await search('stork');
  assert.deepEqual(found, []);
});
