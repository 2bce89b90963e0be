// Read markers and delivery receipts in headless Chromium against the real
// buzz binary (issue 37 §2): the author sees "delivered to N of M · read by K"
// under her own messages, nobody else sees it; where a person read a channel
// follows her to another device (her read marker on the relay, kind 30078).
//   BUZZ_BINARY=build-ci/buzz node --test web_client_receipts.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bytesToHex } from 'nostr-tools/utils';
import { startWorld, signIn, waitText, say, createChannel, openChannel, addMember } from './browser.mjs';

let world;
const people = {};

before(async () => {
  world = await startWorld();
  for (const name of ['Alice', 'Bob', 'Carol']) people[name.toLowerCase()] = await signIn(world, name);
});

after(async () => { await world?.stop(); });

test('the author sees who her message reached and who read it; the others see no such line', async () => {
  const { alice, bob, carol } = people;
  await createChannel(alice, 'receipts');
  await addMember(alice, 'Bob', 2);
  await alice.page.type('#add-member', 'Carol');  // the members pane is open still
  await alice.page.click('#add-member-button');
  await waitText(alice.page, '.members h2', 'Members (3)');
  await openChannel(bob, 'receipts');
  await carol.page.waitForSelector('[data-channel="receipts"]', { timeout: 30000 });
  await say(alice, bob, 'did this reach you');
  // Bob has it open: it reaches him and he reads it as it comes (his marker,
  // 2 s later). Carol has the channel closed: she reads nothing, and is sent
  // it live if her page's unread counts already follow the channel.
  await waitText(alice.page, '.messages .msg .receipt', 'of 2 · read by 1', 45000);
  assert.match(await alice.page.$eval('.messages .msg .receipt', (e) => e.textContent), /^delivered to [12] of 2 · read by 1$/);
  await say(bob, alice, 'it did');
  await waitText(bob.page, '.messages .msg .receipt', 'of 2');
  assert.equal(await bob.page.$$eval('.messages .msg .receipt', (els) => els.length), 1, 'Bob sees only his own message\'s line');
  assert.match(await bob.page.$eval('.messages .msg .receipt', (e) => e.closest('.msg').textContent), /it did/);
});

test('what I read on one device is not unread on another', async () => {
  const { alice, carol } = people;
  await say(alice, alice, 'one for carol');
  await waitText(carol.page, '[data-channel="receipts"] .unread', '3');
  await openChannel(carol, 'receipts');
  await waitText(carol.page, '.messages .msg', 'one for carol');
  // The author sees it read (Carol's marker reached the relay); then Carol's second device.
  await waitText(alice.page, '.messages .msg .receipt', 'read by 2', 45000);
  // A line under every message of mine would be noise: the newest carries it, an older one when pointed at.
  const shown = () => alice.page.$$eval('.messages .msg .receipt', (els) => els.map((e) => e.checkVisibility()));
  await alice.page.hover('#message-input');
  assert.deepEqual(await shown(), [false, true]);
  await alice.page.hover('.messages .msg');  // the older of the two
  assert.deepEqual(await shown(), [true, true]);
  const context = await world.browser.createBrowserContext();
  const page = await context.newPage();
  await page.goto(world.base + '/');
  await page.evaluate((hex) => localStorage.setItem('buzz.secret', hex), bytesToHex(carol.secret));
  await page.reload();
  await page.waitForSelector('[data-channel="receipts"]', { timeout: 30000 });
  await page.waitForFunction(() => window.__buzzWorkspace, { timeout: 30000 });  // the counts are drawn
  assert.equal(await page.$$eval('[data-channel="receipts"] .unread', (els) => els.length), 0, 'read on her first device');
  await context.close();
});
