// Huddles in the web client, in headless Chromium with its fake microphone
// against the real buzz binary: two members of a channel join its huddle and
// Opus frames go both ways (encoded and decoded by WebCodecs in each page);
// someone who is not a member is refused with the relay's reason in words, and
// a browser without WebCodecs audio says so; the owner records a call and everyone in it sees so,
// then finds the recording beside the channel's messages and plays a track, which someone
// reading the channel from outside the call neither sees nor can fetch.
// Also prints the time from clicking Join to the other page's first frame.
//   BUZZ_BINARY=build-ci/buzz node --test web_client_huddle.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorld, signIn, waitText, createChannel, openChannel, addMember, axeViolations, rest } from './browser.mjs';

let world;
const people = {};
const FRAMES = 25;  // half a second of 20 ms frames each way
const ROUNDS = 3;   // joins timed for docs/performance.md

before(async () => {
  world = await startWorld({ browserArgs: ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream',
    '--autoplay-policy=no-user-gesture-required'] });
  for (const p of await Promise.all(['Gina', 'Hank', 'Ivy'].map((name) => signIn(world, name)))) people[p.name.toLowerCase()] = p;
});

after(async () => { await world?.stop(); });

// Zeros until the page has loaded the huddle's audio (app/huddle.js).
const counters = (person) => person.page.evaluate(() => ({ sent: 0, received: 0, decoded: 0, ...window.__buzzHuddle }));
// Waits until this page's counter (sent, received, decoded) reaches n.
const reach = (person, name, n) => person.page.waitForFunction((c, k) => (window.__buzzHuddle?.[c] ?? 0) >= k,
  { timeout: 30000 }, name, n);
const roster = (person) => person.page.$$eval('#huddle-roster li', (els) => els.map((e) => e.textContent).sort());
const rosterIs = (person, names) => person.page.waitForFunction((want) =>
  JSON.stringify([...document.querySelectorAll('#huddle-roster li')].map((e) => e.textContent).sort()) === want,
{ timeout: 30000 }, JSON.stringify([...names].sort()));

// Resolves when the relay has answered (EOSE or CLOSED) the first REQ the page sends
// from now on whose filter contains `filterText`: proof that a refused subscription
// has come back empty, where waiting a fixed time could pass with the answer still on
// its way. (The page's socket is already open, so it is watched from its own `send`.)
// Call it before the page subscribes; await the function it returns after.
async function watchAnswer(page, filterText) {
  await page.evaluate((text) => {
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      const m = typeof data === 'string' && !window.__watchedSub && data.startsWith('["REQ"') && data.includes(text)
        && data.match(/^\["REQ","([^"]+)"/);
      if (m) {
        window.__watchedSub = m[1];
        this.addEventListener('message', (e) => {
          const [type, id] = JSON.parse(e.data);
          if ((type === 'EOSE' || type === 'CLOSED') && id === m[1]) window.__watchedAnswer = type;
        });
      }
      return send.call(this, data);
    };
  }, filterText);
  // Polled: a page in the background gets no animation frames to poll on.
  return () => page.waitForFunction(() => window.__watchedAnswer, { polling: 50, timeout: 30000 });
}

test('two members of a channel hear each other in its huddle; a non-member is refused', async () => {
  const { gina, hank, ivy } = people;

  await createChannel(gina, 'standup', 'open');
  await addMember(gina, 'Hank', 2);
  await gina.page.click('#toggle-members');

  // Gina starts the huddle (its channel, the 48100 announcement) and is in it alone.
  await waitText(gina.page, '#huddle-join', 'Start huddle');
  await gina.page.click('#huddle-join');
  await waitText(gina.page, '#huddle-status', 'In the huddle');
  await rosterIs(gina, ['Gina']);

  // Hank sees it going on (48101 from the relay) and joins, a few times over.
  await openChannel(hank, 'standup');
  const firstFrameMs = [];
  for (let round = 0; round < ROUNDS; round++) {
    await waitText(hank.page, '#huddle-join', 'Join huddle (1)');
    const before = { gina: await counters(gina), hank: await counters(hank) };
    await gina.page.evaluate(() => { window.__buzzHuddle.first = 0; });
    await hank.page.click('#huddle-join');
    await reach(gina, 'received', before.gina.received + 1);
    const h0 = await counters(hank);
    firstFrameMs.push({ total: (await counters(gina)).first - h0.clicked, admitted: h0.admitted - h0.clicked, sent: h0.firstSent - h0.clicked });

    // Frames both ways, each decoded by the receiving page's AudioDecoder.
    await reach(gina, 'decoded', before.gina.decoded + FRAMES);
    await reach(hank, 'decoded', before.hank.decoded + FRAMES);
    const g = await counters(gina);
    const h = await counters(hank);
    assert.ok(g.received - before.gina.received >= FRAMES && h.received - before.hank.received >= FRAMES, JSON.stringify({ g, h }));
    await rosterIs(gina, ['Gina', 'Hank']);
    await rosterIs(hank, ['Gina', 'Hank']);
    // The fake microphone beeps: Gina sees Hank marked as speaking (his frames' level).
    if (round === 0) await gina.page.waitForSelector(`#huddle-roster li.speaking[data-pubkey="${hank.pubkey}"]`, { timeout: 30000 });

    // Hank leaves: Gina's roster follows (the relay's `left`).
    await hank.page.click('#huddle-leave');
    await rosterIs(gina, ['Gina']);
  }
  // The floor, in the same run: a huddle socket opened from Hank's page until the relay's challenge arrives.
  const floorMs = await hank.page.evaluate(async (n) => {
    const runs = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const ws = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/huddle/${crypto.randomUUID()}/audio`);
      await new Promise((resolve) => { ws.onmessage = resolve; ws.onclose = resolve; });
      runs.push(Math.round(performance.now() - t));
      ws.close();
    }
    return runs.sort((a, b) => a - b);
  }, ROUNDS);
  // Each run: Hank admitted (his own `joined`), his first frame sent, Gina's first frame received, ms after his click.
  firstFrameMs.sort((a, b) => a.total - b.total);
  console.log(`huddle: click Join -> first frame at the other page: median ${firstFrameMs[ROUNDS >> 1].total} ms ` +
    `(runs, admitted/sent/received: ${firstFrameMs.map((r) => `${r.admitted}/${r.sent}/${r.total}`).join(', ')} ms); ` +
    `floor (a huddle socket's connect to its challenge): median ${floorMs[ROUNDS >> 1]} ms (${floorMs.join(', ')})`);

  // Ivy may read the open channel and see the huddle, but is no member: the relay says no, the page says why.
  await openChannel(ivy, 'standup', { join: false });
  await waitText(ivy.page, '#huddle-join', 'Join huddle (1)');
  await ivy.page.click('#huddle-join');
  await waitText(ivy.page, '#huddle-error', 'You are not a member of this channel');
  await waitText(ivy.page, '#huddle-error', '(not a member)');
  assert.equal((await counters(ivy)).received, 0);
  assert.deepEqual(await roster(gina), ['Gina']);

  // The other refusals of §3.3, as the relay words them, in the page's words.
  const said = await ivy.page.evaluate(async (errors) => {
    const { explain } = await import('/app/huddle.js');
    return errors.map(explain);
  }, [{ code: 'room_full', message: 'peer index space exhausted', type: 'error' },
    { code: 'upgrade_required', message: 'this huddle is using audio protocol v1; your client requested v2', pinned_version: 1, requested_version: 2, type: 'error' },
    { code: 'room_ended', message: 'huddle has ended', type: 'error' },
    { message: 'restricted: not a relay member', type: 'error' }]);
  assert.deepEqual(said, [
    'This huddle is full (25 people). (peer index space exhausted)',
    'This huddle uses audio protocol v1, this page speaks v2. (this huddle is using audio protocol v1; your client requested v2)',
    'This huddle has ended. (huddle has ended)',
    'You are not a member of this relay. (restricted: not a relay member)']);

  // A browser without WebCodecs audio is told so, and nothing is started.
  await ivy.page.click('#huddle-dismiss');
  await ivy.page.evaluate(() => { delete window.AudioEncoder; });
  await ivy.page.click('#huddle-join');
  await waitText(ivy.page, '#huddle-error', 'This browser has no WebCodecs audio');

  // Gina leaves last: the relay ends the huddle (48103), and the button offers a new one.
  await gina.page.click('#huddle-leave');
  await waitText(hank.page, '#huddle-join', 'Start huddle');
});

test('the call goes on while one reads other channels, with a bar back to it; huddle channels stay out of the list', async () => {
  const { gina, hank } = people;
  await createChannel(gina, 'planning', 'open');
  await addMember(gina, 'Hank', 2);
  await gina.page.click('#toggle-members');
  await gina.page.click('#huddle-join');
  await waitText(gina.page, '#huddle-status', 'In the huddle');
  await openChannel(hank, 'planning');
  await waitText(hank.page, '#huddle-join', 'Join huddle (1)');
  await hank.page.click('#huddle-join');
  await rosterIs(gina, ['Gina', 'Hank']);

  // Gina reads another channel: still in the call, and told so.
  await createChannel(gina, 'elsewhere', 'open');
  await waitText(gina.page, '#huddle-status', 'In the huddle of #planning');
  const before = await counters(hank);
  await reach(hank, 'decoded', before.decoded + FRAMES);
  await rosterIs(hank, ['Gina', 'Hank']);
  if (process.env.BUZZ_WEB_SHOTS) await gina.page.screenshot({ path: `${process.env.BUZZ_WEB_SHOTS}/bug11-in-call.png` });
  // The huddle's own channel is in nobody's list, even after the list's re-read.
  await new Promise((r) => setTimeout(r, 5500));
  for (const p of [gina, hank]) assert.deepEqual(await p.page.$$eval('[data-channel^="huddle-"]', (els) => els.length), 0);

  await gina.page.click('#huddle-back');
  await waitText(gina.page, '.channel-head h1', 'planning');
  await waitText(gina.page, '#huddle-status', 'In the huddle');
  await hank.page.click('#huddle-leave');
  await gina.page.click('#huddle-leave');
  await waitText(hank.page, '#huddle-join', 'Start huddle');
});

test('the huddle\'s owner records it and everyone in the call sees so; a member who may not is told why; the call\'s members play the recording, nobody else', async () => {
  const { gina, hank, ivy } = people;
  await createChannel(gina, 'retro', 'open');
  await addMember(gina, 'Hank', 2);
  await gina.page.click('#huddle-join');
  await waitText(gina.page, '#huddle-status', 'In the huddle');
  await openChannel(hank, 'retro');
  await waitText(hank.page, '#huddle-join', 'Join huddle (1)');
  await hank.page.click('#huddle-join');
  await rosterIs(hank, ['Gina', 'Hank']);

  // Hank is a member of the huddle's channel, not its owner: the relay refuses, the call goes on.
  await hank.page.click('#huddle-record');
  await waitText(hank.page, '#huddle-notice', 'only the huddle channel\'s owners and admins may record');
  assert.equal(await hank.page.$('#huddle-recording'), null);
  await waitText(hank.page, '#huddle-status', 'In the huddle');

  // Gina started the huddle, so she owns its channel: both pages show the recording while it runs.
  await gina.page.click('#huddle-record');
  for (const p of [gina, hank]) await waitText(p.page, '#huddle-recording', 'Recording');
  await waitText(gina.page, '#huddle-record', 'Stop recording');
  const sent = (await counters(gina)).sent;
  await reach(gina, 'sent', sent + FRAMES);  // half a second of her microphone kept
  await gina.page.click('#huddle-record');
  await hank.page.waitForFunction(() => !document.querySelector('#huddle-recording'), { timeout: 10000 });

  // The recording (the relay's 48111 in the huddle's channel) is listed beside the
  // messages of those in that channel; Hank plays Gina's track, fetched with his signature.
  for (const p of [gina, hank]) await waitText(p.page, '#toggle-recordings', 'Recordings 1');
  await hank.page.click('#toggle-recordings');
  const track = `.recordings li[data-participant="${gina.pubkey}"]`;
  await hank.page.click(`${track} .play-track`);
  const duration = await hank.page.waitForFunction((sel) => {
    const a = document.querySelector(`${sel} audio`);
    return a && Number.isFinite(a.duration) && a.duration > 0 && a.duration;
  }, { timeout: 30000 }, track);
  assert.ok(await duration.jsonValue() >= 0.4, `the track lasts ${await duration.jsonValue()} s`);
  assert.deepEqual(await axeViolations(hank.page, 'huddle-recordings'), []);

  // Ivy reads the open channel but was never in the call: no recording listed, and the file is not hers.
  const path = new URL(await hank.page.$eval(track, (li) => li.dataset.url)).pathname;
  assert.equal((await rest(world, ivy, 'GET', path)).status, 404);
  assert.equal((await fetch(world.base + path)).status, 401);
  await ivy.page.click('#huddle-dismiss');  // her page's refusal of the first test
  const answered = await watchAnswer(ivy.page, '"kinds":[48111]');
  await openChannel(ivy, 'retro', { join: false });
  await waitText(ivy.page, '#huddle-join', 'Join huddle (2)');
  await answered();  // her recordings subscription's EOSE or CLOSED: no 48111 came before it
  assert.equal(await ivy.page.$('#toggle-recordings'), null);

  await hank.page.click('#huddle-leave');
  await gina.page.click('#huddle-leave');
  await waitText(hank.page, '#huddle-join', 'Start huddle');
});
