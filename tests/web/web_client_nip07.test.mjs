// Signing in with a NIP-07 browser extension, in headless Chromium against the
// real buzz binary. Headless Chromium runs no extensions, so the page gets a
// provider the way one injects it (extension.mjs): window.nostr before the
// page's scripts, signing in Node.js, the key never in the page. The person
// signs in with it (NIP-42 AUTH); the REST calls (NIP-98), the messages and an
// upload (Blossom) are signed by it; someone with a key in the browser reads
// them under the right name. The denied cases: an extension refusing the
// public key or the signature, or signing with another key than it named,
// leaves the person on the sign-in screen, told why, nothing kept (and a
// prompt nobody answers can be given up); a refused message says so and keeps
// the text; a page without window.nostr offers no extension, and one
// injected late is noticed. And a closed relay refusing a key: the same.
//   BUZZ_BINARY=build-ci/buzz node --test web_client_nip07.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { npubEncode, decode } from 'nostr-tools/nip19';
import { bytesToHex } from 'nostr-tools/utils';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWorld, signIn, waitText, type, say, act, rest, createChannel, openChannel, addMember, png } from './browser.mjs';
import { installExtension } from './extension.mjs';

let world;
let bob;

before(async () => {
  world = await startWorld();
  bob = await signIn(world, 'Bob');
});

after(async () => { await world?.stop(); });

// A fresh browser context on the sign-in screen, with an extension holding a new key.
async function visitor(options) {
  const context = await world.browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width: 1200, height: 760 });
  page.on('pageerror', (e) => console.error('[extension page] page error:', e.message));
  const secret = generateSecretKey();
  const ext = options === null ? null : await installExtension(page, secret, options);
  await page.goto(world.base + '/');
  await page.waitForSelector('#signin-key');
  return { page, secret, ext, context };
}

// Nothing of a session: still the sign-in screen, no workspace, nothing kept.
async function notSignedIn(page) {
  assert.ok(await page.$('#signin-key'), 'the sign-in screen stays');
  assert.equal(await page.$('.sidebar'), null, 'no workspace');
  assert.equal(await page.evaluate(() => localStorage.getItem('buzz.secret')), null, 'nothing kept');
  assert.equal(await page.$eval('#signin-extension', (b) => b.disabled), false, 'the button can be tried again');
}

test('no window.nostr: no extension button; an extension injected late is noticed', async () => {
  const { page, context } = await visitor(null);
  await new Promise((r) => setTimeout(r, 1000));  // past the page's look-again interval
  assert.equal(await page.$('#signin-extension'), null);
  await context.close();

  const late = await visitor({ late: true });
  assert.equal(await late.page.$('#signin-extension'), null);
  await late.ext.inject();
  await late.page.waitForSelector('#signin-extension', { timeout: 5000 });
  await late.context.close();
});

test('the extension refusing the public key or the signature, or signing with another key: told why, not signed in', async () => {
  const { page, ext, context } = await visitor();
  ext.refuse.publicKey = true;
  await page.click('#signin-extension');
  await waitText(page, '#signin-error', 'The browser extension did not share your public key (the user denied access to the public key)');
  await notSignedIn(page);
  assert.deepEqual(ext.signed, []);

  // The key given, the AUTH refused: no workspace either, and no second prompt behind the person's back.
  ext.refuse.publicKey = false;
  ext.refuse.all = true;
  await page.click('#signin-extension');
  await waitText(page, '#signin-error', 'The browser extension refused to sign (the user denied the signature)');
  await notSignedIn(page);
  await new Promise((r) => setTimeout(r, 2000));  // past the WebSocket's reconnect delay
  assert.equal(await page.$('.sidebar'), null);
  assert.deepEqual(ext.signed, []);
  assert.equal(ext.asked, 1, 'asked once, not again on a reconnect');

  // Signing with another key than the one it named: refused by the page itself.
  ext.refuse.all = false;
  ext.signWith = generateSecretKey();
  await page.click('#signin-extension');
  await waitText(page, '#signin-error', 'The browser extension returned an event that is not the one asked for, signed by your key.');
  await notSignedIn(page);

  // A prompt nobody answers: the page waits, says so, and Cancel gives up.
  ext.signWith = null;
  ext.ignore = true;
  await page.click('#signin-extension');
  await waitText(page, '#signin-waiting', 'Waiting for your browser extension');
  await page.click('#signin-cancel');
  await page.waitForFunction(() => !document.querySelector('#signin-waiting'));
  await notSignedIn(page);
  ext.ignore = false;

  // Allowed at the next try: signed in.
  await page.click('#signin-extension');
  await page.waitForSelector('.status.online', { timeout: 30000 });
  assert.equal(await page.$('#signin-error'), null);
  await context.close();
});

test('signed in with the extension: AUTH, REST, messages and uploads signed by it, read by another under the right name', async () => {
  const { page, secret, ext } = await visitor();
  const nora = { name: 'Nora', page, secret, pubkey: ext.pubkey };
  await page.type('#signin-name', 'Nora');
  await page.click('#signin-extension');
  await page.waitForSelector('.status.online', { timeout: 30000 });
  await waitText(page, '#my-name', 'Nora');  // her kind 0, signed by the extension and accepted
  assert.ok(ext.signed.includes(22242), 'the NIP-42 AUTH');
  assert.ok(ext.signed.includes(27235), 'the REST calls (NIP-98)');
  assert.ok(ext.signed.includes(0), 'the profile');
  // The page keeps only that the extension is used, never a key.
  const stored = await page.evaluate(() => JSON.stringify(Object.entries(localStorage)));
  assert.ok(!stored.includes(bytesToHex(secret)));
  assert.equal(await page.evaluate(() => localStorage.getItem('buzz.secret')), 'nip07');

  // Bob adds her to a private channel by her name; they talk.
  await createChannel(bob, 'ext-room', 'private');
  await addMember(bob, 'Nora', 2);
  await openChannel(nora, 'ext-room');
  await say(nora, bob, 'signed by my extension');
  await waitText(bob.page, '.messages .msg .author', 'Nora');
  await say(bob, nora, 'read you, Nora');
  await act(page, 'read you, Nora', 'button[aria-label="react 👍"]');
  await waitText(bob.page, '.msg .reaction', '👍 1');
  assert.ok(ext.signed.includes(9) && ext.signed.includes(7));
  // An image: the Blossom upload's authorization (kind 24242) is signed by the extension too.
  const file = join(world.dataDir, 'red.png');
  writeFileSync(file, png());
  await (await page.$('.channel > .composer input[type=file]')).uploadFile(file);
  await page.waitForSelector('.channel > .composer .preview img');
  await page.click('.channel > .composer button[type=submit]');
  await bob.page.waitForFunction(() => [...document.querySelectorAll('.messages img.inline')]
    .some((i) => i.complete && i.naturalWidth === 160), { timeout: 30000 });
  assert.ok(ext.signed.includes(24242));

  // The stored message's author is the extension's key.
  const room = (await rest(world, bob, 'GET', '/api/channels')).json.find((c) => c.name === 'ext-room');
  const { messages } = (await rest(world, bob, 'GET', `/api/channels/${room.id}/messages?kinds=9`)).json;
  assert.equal(messages.find((m) => m.content === 'signed by my extension')?.pubkey, ext.pubkey);

  // The person denies one message at the extension's prompt: said in the page, the text kept, nothing sent.
  ext.refuse.kinds.add(9);
  await type(page, '#message-input', 'a message the extension refuses');
  await waitText(page, '[role=alert]', 'The browser extension refused to sign');
  assert.equal(await page.$eval('#message-input', (t) => t.value), 'a message the extension refuses');
  ext.refuse.kinds.clear();
  await page.click('[role=alert]');  // dismissed
  await page.focus('#message-input');
  await page.keyboard.press('Enter');
  await waitText(bob.page, '.messages .msg', 'a message the extension refuses');
  assert.equal((await rest(world, bob, 'GET', `/api/channels/${room.id}/messages?kinds=9`)).json.messages
    .filter((m) => m.content === 'a message the extension refuses').length, 1);

  // A reload signs in with the extension again, without a click; signing out forgets it.
  const auths = ext.signed.filter((k) => k === 22242).length;
  await page.reload();
  await page.waitForSelector('.status.online', { timeout: 30000 });
  await waitText(page, '#my-name', 'Nora');
  assert.equal(ext.signed.filter((k) => k === 22242).length, auths + 1);
  // Bob's member list shows her online, and offline once she signs out.
  await bob.page.waitForSelector(`.members [data-member="${ext.pubkey}"] .dot.online`, { timeout: 30000 });
  await page.click('#sign-out');
  await page.waitForSelector('#signin-extension');
  await bob.page.waitForSelector(`.members [data-member="${ext.pubkey}"] .dot.offline`, { timeout: 30000 });
  await page.reload();
  await page.waitForSelector('#signin-extension');
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(await page.$('.sidebar'), null, 'signed out stays signed out');
});

test('a closed relay refusing a key that is not a member: told why and by which key, not signed in', async () => {
  const closed = await startWorld({ closed: true });
  try {
    const context = await closed.browser.createBrowserContext();
    const page = await context.newPage();
    await page.goto(closed.base + '/');
    await page.type('#signin-name', 'Stranger');
    await page.click('#signin-key');  // a new key, which no admin has added
    await waitText(page, '#signin-error', 'The relay refused the sign-in: restricted: not a relay member. An admin can add you by your public key, npub1');
    // The key to give an admin is said, and the same key stays in the field for the next try.
    const said = (await page.$eval('#signin-error', (e) => e.textContent)).match(/npub1[0-9a-z]+/)[0];
    const kept = await page.$eval('#nsec', (i) => i.value);
    assert.equal(npubEncode(getPublicKey(decode(kept).data)), said);
    assert.ok(await page.$('#signin-key'), 'the sign-in screen stays');
    assert.equal(await page.$('.sidebar'), null, 'no workspace');
    assert.equal(await page.evaluate(() => localStorage.getItem('buzz.secret')), null, 'nothing kept');
  } finally {
    await closed.stop();
  }
});
