// The web client's team screens in headless Chromium against the real buzz
// binary: members and roles (an owner, an admin, and a member who is shown
// that he may not), channel settings, the canvas, the keyboard, a
// phone-sized window, unread counts, and mentions chosen by keyboard.
//   BUZZ_BINARY=build-ci/buzz node --test web_client_team.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorld, signIn, textOf, waitText, type, say, rest, createChannel, openChannel, addMember } from './browser.mjs';

let world;
const people = {};
const row = (pubkey) => `.members [data-member="${pubkey}"]`;

before(async () => {
  world = await startWorld();
  for (const name of ['Dana', 'Erin', 'Frank']) people[name.toLowerCase()] = await signIn(world, name);
});

after(async () => { await world?.stop(); });

test('an owner and an admin manage members and roles; a member is shown he cannot', async () => {
  const { dana, erin, frank } = people;
  await createChannel(dana, 'ops', 'private');
  await dana.page.click('#toggle-members');
  await dana.page.type('#add-member', 'Erin');
  await dana.page.select('#add-member-role', 'admin');
  await dana.page.click('#add-member-button');
  await dana.page.waitForFunction((sel) => document.querySelector(sel)?.value === 'admin', { timeout: 30000 }, row(erin.pubkey) + ' .role-select');
  await dana.page.type('#add-member', 'Frank');
  await dana.page.click('#add-member-button');
  await waitText(dana.page, '.members h2', 'Members (3)');

  // Frank, a member: roles as text, no remove buttons, and the reason said.
  await openChannel(frank, 'ops');
  await frank.page.click('#toggle-members');
  await waitText(frank.page, '#members-denied', 'Only the channel\'s owners and admins');
  assert.equal(await frank.page.$('.members .role-select'), null);
  assert.equal(await frank.page.$('.members .remove-member'), null);
  await frank.page.click('#toggle-settings');
  await waitText(frank.page, '#settings-denied', 'Only the channel\'s owners and admins');
  assert.equal(await frank.page.$('#settings-name'), null);
  assert.equal(await frank.page.$('#archive-channel'), null);

  // Erin, an admin: manages Frank, not the owner; no delete (owner only).
  await openChannel(erin, 'ops');
  await erin.page.click('#toggle-members');
  await erin.page.waitForSelector(row(frank.pubkey) + ' .role-select');
  assert.equal(await erin.page.$(row(dana.pubkey) + ' .role-select'), null);
  await erin.page.click('#toggle-settings');
  await erin.page.waitForSelector('#settings-name');
  assert.equal(await erin.page.$('#delete-channel'), null);
  await erin.page.click('#toggle-settings');

  // Erin makes Frank a guest; Dana's open member list follows (39002 live).
  await erin.page.select(row(frank.pubkey) + ' .role-select', 'guest');
  await dana.page.waitForFunction((sel) => document.querySelector(sel)?.value === 'guest', { timeout: 30000 }, row(frank.pubkey) + ' .role-select');
  await waitText(frank.page, row(frank.pubkey) + ' .role', 'guest');

  // Erin removes Frank: his open channel closes and leaves his list.
  erin.page.once('dialog', (d) => d.accept());
  await erin.page.click(row(frank.pubkey) + ' .remove-member');
  await waitText(dana.page, '.members h2', 'Members (2)');
  await waitText(frank.page, '#channel-gone', 'no longer');
  await frank.page.waitForFunction(() => !document.querySelector('[data-channel="ops"]'), { timeout: 30000 });

  // Dana renames it; Erin's header and list follow.
  await dana.page.click('#toggle-settings');
  await dana.page.$eval('#settings-name', (i) => { i.value = ''; });
  await dana.page.type('#settings-name', 'ops-team');
  await dana.page.click('#save-settings');
  await waitText(erin.page, '.channel-head h1', 'ops-team');

  // Dana archives it: Erin may read, not write; then unarchives.
  await dana.page.click('#toggle-settings');
  await dana.page.click('#archive-channel');
  await waitText(erin.page, '.channel-head .archived', 'archived');
  assert.ok(await erin.page.$eval('#message-input', (t) => t.disabled));
  await dana.page.click('#toggle-settings');
  await dana.page.click('#archive-channel');
  await erin.page.waitForFunction(() => !document.querySelector('#message-input').disabled, { timeout: 30000 });
  await say(erin, dana, 'back in business');

  // From the member list, a DM with a member.
  await dana.page.click(row(erin.pubkey) + ' .dm-member');  // her member pane is still open
  await waitText(dana.page, '.channel-head h1', 'Erin');
  await openChannel(dana, 'ops-team');
});

test('the canvas: written by one, read and edited live by another', async () => {
  const { dana, erin } = people;
  await dana.page.click('#toggle-canvas');
  await waitText(dana.page, '.canvas', 'No canvas yet');
  await erin.page.click('#toggle-canvas');
  await waitText(erin.page, '.canvas', 'No canvas yet');

  await dana.page.click('#canvas-edit');
  await dana.page.type('#canvas-text', '# Launch plan\n- ship the **beta**\n- write the notes');
  await dana.page.click('#canvas-save');
  await waitText(erin.page, '.canvas .markdown h1', 'Launch plan');
  await waitText(erin.page, '.canvas .markdown li strong', 'beta');
  await waitText(erin.page, '.canvas .canvas-meta', 'Dana');

  await erin.page.click('#canvas-edit');
  // Emptied as typing would (an input event), or the next render puts the old text back.
  await erin.page.$eval('#canvas-text', (t) => { t.value = ''; t.dispatchEvent(new Event('input', { bubbles: true })); });
  await erin.page.type('#canvas-text', '# Launch plan\n1. ship on Friday');
  await erin.page.click('#canvas-save');
  // Erin's own page first: a refused save fails here, not as a silence on Dana's.
  await waitText(erin.page, '.canvas .markdown ol li', 'ship on Friday');
  await waitText(dana.page, '.canvas .markdown ol li', 'ship on Friday');
  await waitText(dana.page, '.canvas .canvas-meta', 'Erin');

  // REST readers get the newest canvas too (docs/reference/rest-api.md §3.2).
  const list = (await rest(world, dana, 'GET', '/api/channels')).json;
  const ops = list.find((c) => c.name === 'ops-team');
  const canvas = await rest(world, dana, 'GET', `/api/channels/${ops.id}/canvas`);
  assert.equal(canvas.json.content, '# Launch plan\n1. ship on Friday');
  assert.equal(canvas.json.author, erin.pubkey);
});

test('keyboard: Tab reaches a message and its actions, Esc closes panes, Alt+arrows and Alt+digits switch channels, / searches', async () => {
  const { erin } = people;
  const { page } = erin;
  await createChannel(erin, 'lobby');
  await openChannel(erin, 'ops-team');
  // Opening a channel puts the keyboard in its composer; Enter sends.
  await page.waitForFunction(() => document.activeElement?.id === 'message-input');
  await page.keyboard.type('sent with the keyboard');
  await page.keyboard.press('Enter');
  await waitText(page, '.messages .msg', 'sent with the keyboard');

  // Tab reaches a message and then its actions: a reaction given without the mouse.
  await page.focus('.messages .msg:last-of-type');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'react 👍');
  await page.keyboard.press('Enter');
  await waitText(page, '.messages .msg:last-of-type .reaction', '👍 1');
  await page.focus('#message-input');

  // Esc closes the open pane and gives the composer back.
  await page.click('#toggle-members');
  await page.waitForSelector('.members');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('.members') && !document.querySelector('.canvas'));
  await page.waitForFunction(() => document.activeElement?.id === 'message-input');

  // Alt+↓ / Alt+↑ step through the list (channels, then DMs); Alt+1 is its first channel.
  const order = await page.$$eval('#channel-list .chan, #dm-list .chan', (bs) => bs.map((b) => b.textContent.replace(/^[#🔒] /u, '')));
  const here = order.indexOf('ops-team');
  await page.keyboard.down('Alt');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.up('Alt');
  await waitText(page, '.channel-head h1', order[(here + 1) % order.length]);
  await page.keyboard.down('Alt');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.up('Alt');
  await waitText(page, '.channel-head h1', 'ops-team');
  await page.keyboard.down('Alt');
  await page.keyboard.press('1');
  await page.keyboard.up('Alt');
  await waitText(page, '.channel-head h1', order[0]);

  // "/" outside a text field goes to search.
  await page.click('.channel-head h1');
  await page.keyboard.press('/');
  await page.waitForFunction(() => document.activeElement?.id === 'search');
});

test('a phone-sized window: the sidebar folds away, everything fits the width', async () => {
  const gus = people.gus = await signIn(world, 'Gus', { width: 390, height: 780, isMobile: true, hasTouch: true });
  const { page } = gus;
  const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  assert.ok(await page.$eval('.sidebar', (s) => getComputedStyle(s).display === 'none'), 'the sidebar starts folded');
  // Not in it: read from the channel browser without joining.
  await page.click('.menu-toggle');
  await page.click('#browse-channels');
  await (await page.waitForSelector('[data-browse="lobby"] button.preview', { timeout: 30000 })).click();
  await waitText(page, '.channel-head h1', 'lobby');
  await waitText(page, '#preview-bar', 'You are reading #lobby without being in it.');
  assert.ok(await page.$eval('.sidebar', (s) => getComputedStyle(s).display === 'none'), 'picking a channel folds it again');
  await page.waitForSelector('.messages[aria-busy="false"]');
  await type(page, '#message-input', 'hello from a phone');
  await waitText(page, '.messages .msg', 'hello from a phone');
  assert.ok(await fits(), 'no sideways scrolling');
  const composer = await page.$eval('#message-input', (t) => t.getBoundingClientRect().bottom);
  assert.ok(composer <= 780, 'the composer is on screen');

  // A pane covers the screen; a passer-by joins the open channel from it; ✕ closes it.
  await page.click('#toggle-members');
  await page.click('#join-channel');
  await waitText(page, '.members li', 'Gus (you)');
  const pane = await page.$eval('.members', (m) => m.getBoundingClientRect().width);
  assert.ok(pane >= 380, `the member pane takes the width (${pane} px)`);
  await page.click('button[aria-label="close members"]');
  await page.waitForFunction(() => !document.querySelector('.members'));
  assert.ok(await fits());
});

test('unread counts: live for a channel not open, kept over a reload, cleared by opening it, a line where the new ones begin; my own words never count', async () => {
  const { dana, erin } = people;
  const badge = (page) => page.$eval('[data-channel="ops-team"]', (b) => b.querySelector('.unread')?.textContent ?? '');
  // Dana writes in ops-team, then looks at her feed and reloads: her own message is not unread.
  await openChannel(dana, 'ops-team');
  await type(dana.page, '#message-input', 'my own words');
  await waitText(dana.page, '.messages .msg', 'my own words');
  await dana.page.click('#open-feed');
  await dana.page.reload();
  await dana.page.waitForSelector('[data-channel="ops-team"]', { timeout: 30000 });
  await new Promise((r) => setTimeout(r, 1000));  // the COUNT's answer
  assert.equal(await badge(dana.page), '');

  // Erin writes twice: Dana's list counts them as they come.
  await openChannel(erin, 'ops-team');
  await type(erin.page, '#message-input', 'first of two');
  await type(erin.page, '#message-input', 'second of two');
  await waitText(erin.page, '.messages .msg', 'second of two');
  await waitText(dana.page, '[data-channel="ops-team"] .unread', '2');
  // A reload asks the relay (NIP-45 COUNT since she last read it): still 2.
  await dana.page.reload();
  await waitText(dana.page, '[data-channel="ops-team"] .unread', '2');
  // Opening it clears the count, and a line marks where the new ones begin; what comes while it is open is read.
  await openChannel(dana, 'ops-team');
  assert.equal(await badge(dana.page), '');
  // (Two messages of one second come in the relay's order, by id: either may be first.)
  const after = await dana.page.$$eval('#new-messages ~ .msg .content', (cs) => cs.map((c) => c.textContent).sort());
  assert.deepEqual(after, ['first of two', 'second of two']);
  assert.equal(await dana.page.$$eval('.new-line', (l) => l.length), 1);
  await say(erin, dana, 'while you are here');
  assert.equal(await badge(dana.page), '');
  await dana.page.click('#open-feed');
  await dana.page.reload();
  await dana.page.waitForSelector('[data-channel="ops-team"]', { timeout: 30000 });
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(await badge(dana.page), '');
  // Nothing new since: no line.
  await openChannel(dana, 'ops-team');
  assert.equal(await dana.page.$('#new-messages'), null);
});

test('mentions by keyboard: ↑/↓ choose among the suggestions, Tab or Enter take one, Esc puts them away', async () => {
  const { dana, gus } = people;
  const { page } = dana;
  await openChannel(dana, 'ops-team');
  await addMember(dana, 'Gus', 3);  // the member pane stays open: Esc must not close it here
  await page.focus('#message-input');
  await page.keyboard.type('@');
  // Until a member's kind 0 arrives the suggestion shows the short pubkey: wait for both names.
  await page.waitForFunction(() => {
    const names = [...document.querySelectorAll('.mentions [role=option]')].map((b) => b.textContent).sort();
    return names.join() === '@Erin,@Gus';
  }, { timeout: 30000 });
  const offered = await textOf(page, '.mentions [role=option]');
  assert.deepEqual([...offered].sort(), ['@Erin', '@Gus']);
  const chosen = () => page.$eval('.mentions [aria-selected=true]', (b) => b.textContent);
  assert.equal(await chosen(), offered[0]);
  await page.keyboard.press('ArrowDown');
  assert.equal(await chosen(), offered[1]);
  await page.keyboard.press('ArrowDown');  // round to the first again
  assert.equal(await chosen(), offered[0]);
  await page.keyboard.press('ArrowUp');
  assert.equal(await chosen(), offered[1]);
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('.mentions'));
  assert.ok(await page.$('.members'), 'Esc put the suggestions away, not the pane');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('@G');
  await page.waitForSelector('.mentions [aria-selected=true]');
  assert.equal(await chosen(), '@Gus');
  await page.keyboard.press('Tab');
  assert.equal(await page.$eval('#message-input', (t) => t.value), '@Gus ');
  await page.keyboard.type('the rota is yours');
  await page.keyboard.press('Enter');
  for (let i = 0; i < 60; i++) {
    const feed = (await rest(world, gus, 'GET', '/api/feed?types=mentions')).json.feed.mentions;
    if (feed.some((m) => m.content === '@Gus the rota is yours')) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.fail('the mention did not reach Gus\'s feed');
});
