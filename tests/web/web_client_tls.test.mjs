// The web client over the relay's native TLS (docs/tls.md), in headless
// Chromium: the page comes over https:// and talks to wss:// on the same
// port; two people sign in and one's message reaches the other.
//   BUZZ_BINARY=build-ci/buzz node --test web_client_tls.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorld, signIn, say, waitText, createChannel, openChannel, addMember } from './browser.mjs';

let world;

before(async () => { world = await startWorld({ tls: true }); });
after(async () => { await world?.stop(); });

test('signing in and messaging over https and wss', async () => {
  assert.ok(world.base.startsWith('https://'));
  const alice = await signIn(world, 'Alice');
  const bob = await signIn(world, 'Bob');
  assert.equal(await alice.page.evaluate(() => location.protocol), 'https:');
  await createChannel(alice, 'over-tls', 'private');
  await addMember(alice, 'Bob', 2);
  await waitText(alice.page, '.members li', 'Bob');
  await openChannel(bob, 'over-tls');
  await say(alice, bob, 'hello over tls');
  await say(bob, alice, 'and back');
});
