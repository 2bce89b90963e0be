// What a daily user of the web client expects (issue 33 §2, §3), each done in
// headless Chromium as a person does it, against the real buzz binary:
// accessibility (axe-core over every main screen), markdown drawn safely,
// messages grouped with day dividers, editing in place and deleting with a
// confirmation, the jump to the first unread, the connection banner, dark
// mode, drafts and the reading place across reloads, notifications with the
// tab's count and muting, emoji (picker, :shortcode:, any reaction), avatars
// and starred channels, and the phone layout.
//   BUZZ_BINARY=build-ci/buzz node --test web_client_daily.test.mjs
// BUZZ_WEB_SHOTS=<dir> keeps a screenshot of each screen checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finalizeEvent } from 'nostr-tools/pure';
import http from 'node:http';
import zlib from 'node:zlib';
import { startWorld, axeViolations, signIn, waitText, waitNoText, type, say, act, connect, rest, createChannel, openChannel, editMessage, png } from './browser.mjs';

let world;
const people = {};
const shot = (page, name) => process.env.BUZZ_WEB_SHOTS && page.screenshot({ path: `${process.env.BUZZ_WEB_SHOTS}/${name}.png` });
const violations = axeViolations;

const channelId = async (person, name) => (await rest(world, person, 'GET', '/api/channels')).json.find((c) => c.name === name).id;

// A channel's messages, published outside the browser, one second apart
// (from `from`, default ending now).
async function publish(person, channelName, texts, from) {
  const channel = await channelId(person, channelName);
  const relay = await connect(world, person.secret);
  const start = from ?? Math.floor(Date.now() / 1000) - texts.length + 1;
  for (let i = 0; i < texts.length; i++) {
    await relay.publish(finalizeEvent({ kind: 9, created_at: start + i, content: texts[i], tags: [['h', channel]] }, person.secret));
  }
  relay.close();
  return channel;
}

before(async () => {
  world = await startWorld();
  for (const name of ['Alice', 'Bob']) people[name.toLowerCase()] = await signIn(world, name);
});

after(async () => { await world?.stop(); });

test('markdown is drawn and links open safely; HTML and javascript: links in content stay text', async () => {
  const { alice, bob } = people;
  await createChannel(alice, 'markup');
  await openChannel(bob, 'markup');
  await bob.page.evaluate(() => { window.__pwned = 0; });
  await publish(alice, 'markup', [
    '**bold** and *italic* and _also_ and `code` and ~~gone~~ see https://example.org/page.',
    '```\nconst x = 1 < 2;\n```\n> a quote\n- one\n- two\n1. first',
    'hostile <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> [click](javascript:window.__pwned=3) [fine](https://example.org/a)',
  ]);
  await waitText(bob.page, '.messages .msg', 'hostile');
  const drawn = await bob.page.evaluate(() => {
    const msgs = [...document.querySelectorAll('.messages .msg .content')];
    const [first, second, third] = msgs.slice(-3);
    return {
      strong: first.querySelector('strong')?.textContent, em: [...first.querySelectorAll('em')].map((e) => e.textContent),
      code: first.querySelector('code')?.textContent, s: first.querySelector('s')?.textContent,
      bare: first.querySelector('a') && { href: first.querySelector('a').getAttribute('href'), target: first.querySelector('a').target, rel: first.querySelector('a').rel },
      pre: second.querySelector('pre code')?.textContent, quote: second.querySelector('blockquote')?.textContent,
      items: [...second.querySelectorAll('ul li')].map((e) => e.textContent), ordered: second.querySelectorAll('ol li').length,
      hostileElements: third.querySelectorAll('img, script, [onerror]').length,
      links: [...third.querySelectorAll('a')].map((a) => a.getAttribute('href')),
      text: third.textContent,
    };
  });
  assert.equal(drawn.strong, 'bold');
  assert.deepEqual(drawn.em, ['italic', 'also']);
  assert.equal(drawn.code, 'code');
  assert.equal(drawn.s, 'gone');
  assert.deepEqual(drawn.bare, { href: 'https://example.org/page', target: '_blank', rel: 'noopener noreferrer' });
  assert.equal(drawn.pre, 'const x = 1 < 2;');
  assert.equal(drawn.quote, 'a quote');
  assert.deepEqual(drawn.items, ['one', 'two']);
  assert.equal(drawn.ordered, 1);
  assert.equal(drawn.hostileElements, 0);
  assert.deepEqual(drawn.links, ['https://example.org/a'], 'a javascript: link is not a link');
  assert.ok(drawn.text.includes('<img src=x onerror="window.__pwned=1">'), 'the HTML shows as the text it is');
  assert.ok(drawn.text.includes('[click](javascript:window.__pwned=3)'));
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(await bob.page.evaluate(() => window.__pwned), 0);
});

test('messages group by sender under a day divider; edited in place; deleted only once confirmed', async () => {
  const { alice, bob } = people;
  await createChannel(alice, 'grouping');
  await openChannel(bob, 'grouping');
  await say(alice, bob, 'first of three');
  await say(alice, bob, 'second of three');
  await say(alice, bob, 'third of three');
  await new Promise((r) => setTimeout(r, 3000));  // a burst is dated a second apart, ahead of the clock
  await say(bob, alice, 'my turn');
  await say(alice, bob, 'and me again');
  const shape = await bob.page.$$eval('.messages .list > *', (els) => els.map((e) =>
    e.matches('.day') ? 'day:' + e.textContent : e.matches('.msg') ? (e.matches('.cont') ? 'cont' : 'head') + (e.querySelector('.avatar') ? '+avatar' : '') : null).filter(Boolean));
  assert.deepEqual(shape, ['day:Today', 'head+avatar', 'cont', 'cont', 'head+avatar', 'head+avatar']);
  // The author of a grouped message is still there for a screen reader.
  assert.equal(await bob.page.$eval('.msg.cont .author', (e) => e.textContent), 'Alice');

  // Edit in place: Esc leaves it as it was; Enter saves, and Bob sees it.
  await act(alice.page, 'second of three', 'button.edit');
  await alice.page.waitForSelector('.msg .edit-text');
  await alice.page.keyboard.type(' (not saved)');
  await alice.page.keyboard.press('Escape');
  await alice.page.waitForFunction(() => !document.querySelector('.msg .edit-text'));
  assert.equal(await alice.page.$('.channel .thread, .channel .members'), null, 'Esc closed the edit only');
  await editMessage(alice.page, 'second of three', 'second of three, corrected');
  await waitText(bob.page, '.messages .msg', 'second of three, corrected');

  // Delete asks first: Cancel keeps it, the confirmation deletes it for Bob too.
  await act(alice.page, 'third of three', 'button.delete');
  await waitText(alice.page, '.msg .confirm', 'Delete this message for everyone?');
  await alice.page.click('.msg .cancel-delete');
  await new Promise((r) => setTimeout(r, 300));
  await waitText(bob.page, '.messages .msg', 'third of three');
  await act(alice.page, 'third of three', 'button.delete');
  await (await alice.page.waitForSelector('.msg .confirm-delete')).click();
  await waitNoText(bob.page, '.messages .msg', 'third of three');
});

test('a channel with many new messages opens at the newest, with a jump to the first unread', async () => {
  const { alice, bob } = people;
  await createChannel(alice, 'busy');
  await openChannel(bob, 'busy');
  await say(alice, bob, 'read before');
  await openChannel(bob, 'markup');
  // Dated after Bob's last read (now, or his newest message seen there).
  await publish(alice, 'busy', Array.from({ length: 60 }, (_, i) => `unread number ${i}`), Math.floor(Date.now() / 1000) + 5);
  await waitText(bob.page, '[data-channel="busy"] .unread', '60');
  await openChannel(bob, 'busy');
  await bob.page.waitForSelector('#jump-unread');
  await bob.page.click('#jump-unread');
  await bob.page.waitForFunction(() => {
    const line = document.getElementById('new-messages').getBoundingClientRect();
    const view = document.querySelector('.messages').getBoundingClientRect();
    return line.top >= view.top - 2 && line.bottom <= view.bottom;
  }, { timeout: 5000 });
  await bob.page.waitForFunction(() => !document.getElementById('jump-unread'));
  assert.equal(await bob.page.$eval('#new-messages + .msg .content', (e) => e.textContent), 'unread number 0');
});

test('drafts stay with their channel across switching and a reload; the open channel and reading place too', async () => {
  const { alice, bob } = people;
  await openChannel(bob, 'grouping');
  await bob.page.type('#message-input', 'half a thought about grouping');
  await openChannel(bob, 'markup');
  assert.equal(await bob.page.$eval('#message-input', (e) => e.value), '');
  await bob.page.type('#message-input', 'a markup draft');
  await openChannel(bob, 'grouping');
  assert.equal(await bob.page.$eval('#message-input', (e) => e.value), 'half a thought about grouping');

  // The reading place: Bob scrolls up in #busy to a message, then reloads.
  await openChannel(bob, 'busy');
  await bob.page.evaluate(() => {
    const list = document.querySelector('.messages');
    const target = [...list.querySelectorAll('.msg')].find((m) => m.textContent.includes('unread number 20'));
    list.scrollTop += target.getBoundingClientRect().top - list.getBoundingClientRect().top;
  });
  await new Promise((r) => setTimeout(r, 800));  // the place is kept a moment after scrolling stops
  // The message Bob sees at the top now (the messages around it have their real heights by now).
  const top = await bob.page.evaluate(() => {
    const list = document.querySelector('.messages').getBoundingClientRect();
    return [...document.querySelectorAll('.messages .list > .msg')].find((m) => m.getBoundingClientRect().bottom > list.top + 4).dataset.id;
  });
  assert.equal(await bob.page.evaluate(() => localStorage.getItem('buzz.place.' + localStorage.getItem('buzz.open'))), top);
  await bob.page.reload();
  await waitText(bob.page, '.channel-head h1', 'busy');
  await bob.page.waitForSelector('.messages[aria-busy="false"]');
  await bob.page.waitForFunction((id) => {
    const list = document.querySelector('.messages').getBoundingClientRect();
    const m = document.querySelector(`.msg[data-id="${id}"]`)?.getBoundingClientRect();
    return m && Math.abs(m.top - list.top) < 60;
  }, { timeout: 5000 }, top);

  await openChannel(bob, 'markup');
  await bob.page.reload();
  await waitText(bob.page, '.channel-head h1', 'markup');
  await bob.page.waitForFunction(() => document.querySelector('#message-input')?.value === 'a markup draft', { timeout: 10000 });
  // Sent, the draft is gone for good.
  await bob.page.keyboard.press('Enter');
  await waitText(alice.page, '.messages .msg', 'a markup draft').catch(() => {});
  await bob.page.reload();
  await waitText(bob.page, '.channel-head h1', 'markup');
  assert.equal(await bob.page.$eval('#message-input', (e) => e.value), '');
});

test('the connection banner says the relay is lost, then back; the browser offline, then online', async () => {
  const { bob } = people;
  await world.crash();
  await waitText(bob.page, '#connection', 'Connection to the relay lost. Reconnecting…');
  await shot(bob.page, 'connection-lost');
  await world.restart();
  await waitText(bob.page, '#connection', 'Back online.', 30000);
  await bob.page.waitForFunction(() => !document.getElementById('connection'), { timeout: 10000 });
  await bob.page.setOfflineMode(true);
  await waitText(bob.page, '#connection', 'You are offline.');
  await bob.page.setOfflineMode(false);
  await bob.page.waitForFunction(() => !document.querySelector('#connection.offline'), { timeout: 30000 });
});

test('dark mode follows the system, and the switch in the settings is remembered', async () => {
  const { bob } = people;
  // The theme follows a media change on its event, and colours may ease in: wait for the colour.
  const background = async (want) => {
    await bob.page.waitForFunction((c) => getComputedStyle(document.body).backgroundColor === c, { timeout: 5000 }, want)
      .catch(() => {});
    return bob.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  };
  await bob.page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
  assert.equal(await background('rgb(26, 29, 33)'), 'rgb(26, 29, 33)');
  await bob.page.click('#open-profile');
  await bob.page.select('#theme', 'light');
  assert.equal(await background('rgb(255, 255, 255)'), 'rgb(255, 255, 255)');
  await bob.page.reload();
  await bob.page.waitForSelector('.status.online');
  assert.equal(await background('rgb(255, 255, 255)'), 'rgb(255, 255, 255)', 'light kept while the system is dark');
  await bob.page.click('#open-profile');
  await bob.page.select('#theme', 'system');
  assert.equal(await background('rgb(26, 29, 33)'), 'rgb(26, 29, 33)');
  await bob.page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
  await bob.page.select('#theme', 'dark');
  assert.equal(await background('rgb(26, 29, 33)'), 'rgb(26, 29, 33)');
  await bob.page.select('#theme', 'system');
});

test('notifications for a mention and a DM, never asked on load; the tab counts unread; a muted channel is quiet', async () => {
  const { alice } = people;
  // Carol's browser records what the page asks of the Notification API.
  const carol = await signIn(world, 'Carol', undefined, async (page) => {
    await page.evaluateOnNewDocument(() => {
      window.__asked = 0;
      window.__notes = [];
      let permission = 'default';
      window.Notification = class { constructor(title, o) { window.__notes.push({ title, body: o.body }); } };
      Object.defineProperty(window.Notification, 'permission', { get: () => permission });
      window.Notification.requestPermission = async () => { window.__asked++; permission = 'granted'; return permission; };
    });
  });
  people.carol = carol;
  await carol.page.reload();
  await carol.page.waitForSelector('.status.online');
  assert.equal(await carol.page.evaluate(() => window.__asked), 0, 'not asked on load');
  await carol.page.click('#open-profile');
  await carol.page.click('#notify-on');
  assert.equal(await carol.page.evaluate(() => window.__asked), 1);
  await carol.page.waitForFunction(() => !document.getElementById('notify-on'));

  await createChannel(alice, 'loud');
  await openChannel(carol, 'loud');
  await openChannel(carol, 'markup');
  await new Promise((r) => setTimeout(r, 1100));  // after the second she last read #loud in (joining opened it)
  const relay = await connect(world, alice.secret);
  const loud = await channelId(alice, 'loud');
  const send = (content, tags = []) => relay.publish(finalizeEvent({ kind: 9, created_at: Math.floor(Date.now() / 1000), content,
    tags: [['h', loud], ...tags] }, alice.secret));
  await send('@Carol have a look', [['p', carol.pubkey]]);
  await carol.page.waitForFunction(() => window.__notes.length === 1, { timeout: 30000 });
  assert.deepEqual(await carol.page.evaluate(() => window.__notes[0]), { title: 'Alice in #loud', body: '@Carol have a look' });
  // The tab counts what is unread in every channel she is in and has not muted.
  await waitText(carol.page, '[data-channel="loud"] .unread', '1');
  const counted = () => carol.page.evaluate(() => Number(/^\((\d+)\) Buzz$/.exec(document.title)?.[1] ?? 0));
  const before = await counted();
  assert.ok(before >= 1);
  await send('no mention here');
  await carol.page.waitForFunction((n) => document.title === `(${n}) Buzz`, { timeout: 30000 }, before + 1);
  assert.match(await carol.page.$eval('link[rel=icon]', (l) => l.href), /^data:image\/svg\+xml/);

  // Muted: no notification, not in the title's count.
  await openChannel(carol, 'loud');
  await carol.page.waitForFunction((n) => document.title === (n ? `(${n}) Buzz` : 'Buzz'), {}, before - 1);
  await carol.page.click('#mute-channel');
  await openChannel(carol, 'markup');
  await new Promise((r) => setTimeout(r, 1100));  // after the second she last read #loud in
  await send('@Carol again', [['p', carol.pubkey]]);
  await waitText(carol.page, '[data-channel="loud"] .unread', '1');
  assert.equal(await counted(), before - 1);
  assert.equal(await carol.page.evaluate(() => window.__notes.length), 1);
  assert.ok(await carol.page.$('[data-channel="loud"] .muted-mark'));

  // A DM from Alice notifies under her name.
  await alice.page.type('#new-dm', 'Carol');
  await alice.page.click('#new-dm + button');
  await waitText(alice.page, '.channel-head h1', 'Carol');
  await type(alice.page, '#message-input', 'just between us');
  await carol.page.waitForFunction(() => window.__notes.length === 2, { timeout: 30000 });
  assert.deepEqual(await carol.page.evaluate(() => window.__notes[1]), { title: 'Alice', body: 'just between us' });
  relay.close();
});

test('emoji: :shortcode: completion, the picker, and a reaction with any emoji', async () => {
  const { alice, bob } = people;
  await openChannel(alice, 'grouping');
  await openChannel(bob, 'grouping');
  await alice.page.focus('#message-input');
  await alice.page.keyboard.type('ship it :rock');
  await waitText(alice.page, '.emoji-options', ':rocket:');
  await alice.page.keyboard.press('Enter');
  assert.equal(await alice.page.$eval('#message-input', (e) => e.value), 'ship it 🚀 ');
  await alice.page.click('.composer .emoji-open');
  await alice.page.waitForSelector('.composer .emoji-picker');
  await alice.page.keyboard.type('tada');
  await alice.page.keyboard.press('Enter');
  assert.equal(await alice.page.$eval('#message-input', (e) => e.value), 'ship it 🚀 🎉');
  await alice.page.focus('#message-input');
  await alice.page.keyboard.press('Enter');
  await waitText(bob.page, '.messages .msg', 'ship it 🚀 🎉');

  await act(bob.page, 'ship it', 'button.react-any');
  await bob.page.waitForSelector('.emoji-picker');
  await (await bob.page.waitForSelector('.emoji-picker button[aria-label="unicorn"]')).click();
  await waitText(alice.page, '.messages .msg .reaction', '🦄 1');
});

test('a picture uploaded in the settings is the avatar others see; a starred channel is listed first, after a reload too', async () => {
  const { alice, bob } = people;
  const file = join(tmpdir(), `buzz-avatar-${process.pid}.png`);
  writeFileSync(file, png());
  try {
    await alice.page.click('#open-profile');
    await (await alice.page.$('#picture-file')).uploadFile(file);
    await alice.page.waitForSelector('#my-name img.avatar', { timeout: 30000 });
  } finally { rmSync(file, { force: true }); }
  await openChannel(alice, 'grouping');
  await openChannel(bob, 'grouping');
  await bob.page.waitForFunction(() => [...document.querySelectorAll('.msg')].some((m) =>
    m.querySelector('.author')?.textContent === 'Alice' && m.querySelector('img.avatar')?.complete), { timeout: 30000 });

  await bob.page.click('#star-channel');
  await waitText(bob.page, '#starred-list', 'grouping');
  assert.ok(!(await bob.page.$('#channel-list [data-channel="grouping"]')));
  await bob.page.reload();
  await waitText(bob.page, '#starred-list', 'grouping');
  await bob.page.click('#star-channel');
  await bob.page.waitForFunction(() => !document.getElementById('starred-list'));
});

test('a pinned message: marked, listed in the channel\'s pins for everyone, shown from there, unpinned', async () => {
  const { alice, bob } = people;
  await openChannel(alice, 'grouping');
  await openChannel(bob, 'grouping');
  await act(alice.page, 'first of three', 'button.pin');
  await waitText(bob.page, '.msg .pinned-mark', 'Pinned by Alice');
  await waitText(bob.page, '#toggle-pins', 'Pins 1');
  await bob.page.click('#toggle-pins');
  await waitText(bob.page, '.pins li', 'first of three');
  await bob.page.click('.pins .go-to');
  await bob.page.waitForFunction(() => document.activeElement?.textContent.includes('first of three'), { timeout: 5000 });
  assert.equal(await bob.page.$('.pins'), null);
  await act(alice.page, 'first of three', 'button.unpin');
  await waitText(bob.page, '#toggle-pins', 'Pins 0');
  await waitNoText(bob.page, '.messages', 'Pinned by');
});

test('on a phone: the menu, grouped messages, the emoji picker within the screen, editing', async () => {
  const { alice } = people;
  const phone = await signIn(world, 'Dora', { width: 390, height: 844, isMobile: true, hasTouch: true });
  people.dora = phone;
  const { page } = phone;
  await openChannel(phone, 'grouping');
  assert.ok(await page.$('.msg.cont'));
  await type(page, '#message-input', 'from my phone');
  await waitText(alice.page, '.messages .msg', 'from my phone');
  await page.click('.composer .emoji-open');
  const box = await (await page.waitForSelector('.composer .emoji-picker')).boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390 && box.y >= 0 && box.y + box.height <= 844, JSON.stringify(box));
  await page.keyboard.press('Escape');
  await editMessage(page, 'from my phone', 'from my phone, edited');
  await waitText(alice.page, '.messages .msg', 'from my phone, edited');
  await page.click('#toggle-pins');
  const pins = await (await page.waitForSelector('.pins')).boundingBox();
  assert.ok(pins.x >= 0 && pins.width <= 390, JSON.stringify(pins));
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('.pins'));
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `nothing wider than the screen (${width} px)`);
  await shot(page, 'phone');
});

// A GET with these headers, the body as sent (not decompressed).
const raw = (path, headers) => new Promise((resolve, reject) => {
  http.get(world.base + path, { headers }, (r) => {
    const chunks = [];
    r.on('data', (c) => chunks.push(c));
    r.on('end', () => resolve({ status: r.statusCode, headers: r.headers, body: Buffer.concat(chunks) }));
  }).on('error', reject);
});

test('the bundle is served compressed, the page revalidated and its hashed assets cached for good', async () => {
  const page = await raw('/', { Accept: 'text/html', 'Accept-Encoding': 'gzip, deflate, br' });
  assert.equal(page.headers['content-encoding'], 'br');
  assert.equal(page.headers['cache-control'], 'no-cache');
  const html = zlib.brotliDecompressSync(page.body).toString();
  const script = /src="(\/app\/app-[0-9a-f]{12}\.js)"/.exec(html)?.[1];
  const style = /href="(\/app\/app-[0-9a-f]{12}\.css)"/.exec(html)?.[1];
  assert.ok(script && style, html);
  const plain = await raw(script, {});
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.match(plain.headers['content-type'], /^text\/javascript/);
  const br = await raw(script, { 'Accept-Encoding': 'gzip, deflate, br, zstd' });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.ok(br.body.length < plain.body.length / 2, `${br.body.length} of ${plain.body.length} bytes`);
  assert.deepEqual(zlib.brotliDecompressSync(br.body), plain.body);
  const gz = await raw(script, { 'Accept-Encoding': 'gzip, deflate' });  // Chromium over plain HTTP
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.deepEqual(zlib.gunzipSync(gz.body), plain.body);
  assert.match(gz.headers.vary, /Accept-Encoding/);
  assert.notEqual(gz.headers.etag, plain.headers.etag);
  assert.equal((await raw(script, { 'Accept-Encoding': 'gzip;q=0, br;q=0' })).headers['content-encoding'], undefined);
  assert.equal((await raw(script, { 'Accept-Encoding': 'gzip', 'If-None-Match': gz.headers.etag })).status, 304);
  const css = await raw(style, { 'Accept-Encoding': 'gzip' });
  assert.equal(css.headers['content-encoding'], 'gzip');
  assert.equal(css.headers['cache-control'], 'public, max-age=31536000, immutable');
  // By its plain name (an older page, a script), revalidated instead.
  assert.equal((await raw('/app/app.js', {})).headers['cache-control'], 'no-cache');
  // The huddle's audio, imported by its hashed name.
  assert.match(zlib.gunzipSync(gz.body).toString(), /"\/app\/huddle-[0-9a-f]{12}\.js"/);
});

test('first render of the workspace, from navigation to its channels and unread counts drawn', async () => {
  const { bob } = people;
  // Nine reloads after one that warms the caches up (the browser's, the
  // relay's), each once the page before has done what follows its first
  // render: the median, and beside each run when the relay accepted the
  // sign-in, the floor no client change moves, which says how loaded the
  // machine was (docs/performance.md).
  const reload = async () => {
    await bob.page.reload();
    const r = await (await bob.page.waitForFunction(() => window.__buzzWorkspace, { timeout: 30000 })).jsonValue();
    await new Promise((settled) => setTimeout(settled, 300));
    return r;
  };
  await reload();
  const runs = [];
  for (let i = 0; i < 9; i++) {
    const r = await reload();
    assert.ok(r.channels >= 3, 'the channels he is in');
    runs.push(r);
  }
  runs.sort((a, b) => a.ms - b.ms);
  const ms = (k) => runs.map((r) => r[k].toFixed(0)).join(', ');
  const median = runs[4].ms;
  const auth = runs.map((r) => r.auth).sort((a, b) => a - b)[4];
  console.log(`first render of the workspace: median ${median.toFixed(0)} ms, signed in at a median ${auth.toFixed(0)} ms ` +
    `(runs: ${ms('ms')} ms; signed in at ${ms('auth')}, channel list at ${ms('list')})`);
  assert.ok(median < 2000, 'under two seconds even on a loaded CI machine');
});

test('no serious or critical accessibility violation on any main screen (axe-core)', async () => {
  const { alice, bob, dora } = people;
  const found = [];
  // Sign-in.
  const context = await world.browser.createBrowserContext();
  const fresh = await context.newPage();
  await fresh.goto(world.base + '/');
  await fresh.waitForSelector('#signin-key');
  found.push(...await violations(fresh, 'sign-in'));
  await context.close();

  // The workspace with a channel open, light and dark.
  await openChannel(alice, 'grouping');
  await alice.page.mouse.move(600, 300);
  found.push(...await violations(alice.page, 'channel'));
  await alice.page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
  found.push(...await violations(alice.page, 'channel-dark'));
  // A thread, the emoji picker, the members and canvas panes, the settings.
  await act(alice.page, 'ship it', 'button.reply');
  await type(alice.page, '#thread-input', 'a reply in the thread');
  await waitText(alice.page, '.thread .msg', 'a reply in the thread');
  found.push(...await violations(alice.page, 'thread-dark'));
  await alice.page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
  found.push(...await violations(alice.page, 'thread'));
  await alice.page.keyboard.press('Escape');
  await alice.page.click('.composer .emoji-open');
  await alice.page.waitForSelector('.emoji-picker');
  found.push(...await violations(alice.page, 'emoji-picker'));
  await alice.page.keyboard.press('Escape');
  await alice.page.click('#toggle-members');
  await alice.page.waitForSelector('.members li');
  found.push(...await violations(alice.page, 'members'));
  await alice.page.click('#toggle-pins');
  await alice.page.waitForSelector('.pins');
  found.push(...await violations(alice.page, 'pins'));
  await alice.page.click('#toggle-canvas');
  await alice.page.waitForSelector('#canvas-edit');
  await alice.page.click('#toggle-settings');
  found.push(...await violations(alice.page, 'canvas-and-settings'));
  await alice.page.click('#toggle-settings');
  await alice.page.click('#toggle-canvas');
  // A DM, the feed, search, the settings page and the key backup.
  await openChannel(bob, 'grouping');
  const dm = await bob.page.$$eval('#dm-list .chan', (b) => b.length);
  if (!dm) {
    await bob.page.type('#new-dm', 'Alice');
    await bob.page.click('#new-dm + button');
  } else await bob.page.click('#dm-list .chan');
  await bob.page.waitForSelector('.messages[aria-busy="false"]');
  await type(bob.page, '#message-input', 'a direct word');
  found.push(...await violations(bob.page, 'dm'));
  await bob.page.click('#open-feed');
  await bob.page.waitForSelector('#feed');
  found.push(...await violations(bob.page, 'feed'));
  await type(bob.page, '#search', 'ship');
  await bob.page.waitForSelector('#search-results .hit, #search-results .empty', { timeout: 30000 });
  found.push(...await violations(bob.page, 'search'));
  await bob.page.click('#open-profile');
  await bob.page.waitForSelector('#profile');
  found.push(...await violations(bob.page, 'settings'));
  await bob.page.click('#backup-key');
  await bob.page.waitForSelector('#key-backup');
  found.push(...await violations(bob.page, 'key-backup'));
  // The phone: its channel, and the menu open.
  await dora.page.waitForSelector('.messages[aria-busy="false"]');
  found.push(...await violations(dora.page, 'phone-channel'));
  await dora.page.click('.menu-toggle');
  found.push(...await violations(dora.page, 'phone-menu'));
  assert.deepEqual(found, []);
});
