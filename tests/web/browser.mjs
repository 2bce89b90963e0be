// What the browser suites share: the real buzz binary on a loopback port,
// headless Chromium (puppeteer-core), people signed in in browser contexts of
// their own, the steps a person takes (type, wait for text, hover a
// message and click one of its buttons), and a real PNG to upload.
import { spawnRelay } from '../e2e/js/spawn_relay.mjs';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import puppeteer from 'puppeteer-core';
import WebSocket from 'ws';
import { useWebSocketImplementation, Relay } from 'nostr-tools/relay';
import { getPublicKey, finalizeEvent } from 'nostr-tools/pure';
import { hexToBytes } from 'nostr-tools/utils';
import { getToken } from 'nostr-tools/nip98';
import { makeTestPki, httpsGet } from '../e2e/js/tls_helpers.mjs';

useWebSocketImplementation(WebSocket);

const binary = process.env.BUZZ_BINARY ?? new URL('../../build-ci/buzz', import.meta.url).pathname;
const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium';

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// A relay in a fresh data directory (open, unless closed: only relay members
// may sign in; rate limits off unless asked for, with this relay owner), and
// a browser (with these extra command-line flags). stop() ends both; crash()
// kills the relay and restart() starts it again on the same port and data.
// With tls, the relay serves https:// and wss:// itself (docs/tls.md) with a
// certificate from a test CA, which the browser trusts by its key. env: the
// relay's extra environment (its configuration, docs/configuration.md).
export async function startWorld({ browserArgs = [], closed = false, rateLimits = false, owner = '', tls = false, env = {} } = {}) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'buzz-web-'));
  const pki = tls ? makeTestPki(mkdtempSync(join(tmpdir(), 'buzz-web-pki-'))) : null;
  const base = tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;
  if (pki) browserArgs = [...browserArgs, `--ignore-certificate-errors-spki-list=${pki.spki}`];
  let server;
  const launch = async () => {
    server = spawnRelay(binary, [...(closed ? [] : ['--open']), ...(rateLimits ? [] : ['--rate-limits', 'false']),
      ...(owner ? ['--owner', owner] : []), '--bind', `127.0.0.1:${port}`,
      '--relay-url', base.replace('http', 'ws'), '--data-dir', dataDir,
      ...(pki ? ['--tls-cert', pki.cert, '--tls-key', pki.key] : [])], { env: { ...process.env, ...env } });
    await server.listening;
    let healthy = false;
    for (let i = 0; i < 100 && !healthy; i++) {
      try { healthy = pki ? (await httpsGet(`${base}/health`, pki.ca)).status === 200 : (await fetch(`${base}/health`)).ok; } catch {}
      if (!healthy) await new Promise((r) => setTimeout(r, 100));
    }
    if (!healthy) throw new Error('relay did not become healthy');
  };
  await launch();
  const crash = async () => {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGKILL');
    await exited;
  };
  const restart = async () => { if (server.exitCode !== null || server.signalCode !== null) await launch(); };
  const browser = await puppeteer.launch({ executablePath: chromium, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', ...browserArgs] });
  const stop = async () => {
    await browser.close();
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
    if (pki) rmSync(pki.dir, { recursive: true, force: true });
  };
  return { base, dataDir, browser, stop, crash, restart };
}

const AXE = readFileSync(new URL('./node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

// axe-core's serious and critical violations on the page as it is now, each
// named by the screen. BUZZ_WEB_SHOTS=<dir> keeps a screenshot of each screen checked.
export async function axeViolations(page, screen) {
  if (process.env.BUZZ_WEB_SHOTS) await page.screenshot({ path: `${process.env.BUZZ_WEB_SHOTS}/axe-${screen}.png` });
  await page.evaluate(AXE);  // evaluated by the debugger protocol, so the page's CSP does not apply
  const found = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`));
  return found.map((f) => `${screen}: ${f}`);
}

// A person in a browser context of their own, signed in with a new key and this display name.
// beforeLoad(page) runs before the page is opened (to watch its frames, say).
export async function signIn(world, name, viewport = { width: 1200, height: 760 }, beforeLoad = async () => {}) {
  const context = await world.browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport(viewport);
  await beforeLoad(page);
  page.on('pageerror', (e) => console.error(`[${name}] page error:`, e.message));
  await page.goto(world.base + '/');
  await page.type('#signin-name', name);
  await page.click('#signin-key');
  await page.waitForSelector('.status.online', { timeout: 30000 });
  const secret = hexToBytes(await page.evaluate(() => localStorage.getItem('buzz.secret')));
  return { name, page, secret, pubkey: getPublicKey(secret) };
}

export const textOf = (page, selector) => page.$$eval(selector, (els) => els.map((e) => e.textContent));
export async function waitText(page, selector, text, timeout = 30000) {
  try {
    await page.waitForFunction((s, t) => [...document.querySelectorAll(s)].some((e) => e.textContent.includes(t)),
      { timeout }, selector, text);
  } catch (e) {
    // What the page said it could not do is the likeliest reason.
    const shown = await page.$$eval('[role=alert]', (els) => els.map((x) => x.textContent)).catch(() => []);
    if (process.env.BUZZ_WEB_DEBUG) await page.screenshot({ path: `${process.env.BUZZ_WEB_DEBUG}/failed-${Date.now()}.png` });
    e.message += ` (waiting for "${text}" in ${selector}; the page shows: ${JSON.stringify(shown)})`;
    throw e;
  }
}
export async function waitNoText(page, selector, text, timeout = 30000) {
  await page.waitForFunction((s, t) => ![...document.querySelectorAll(s)].some((e) => e.textContent.includes(t)),
    { timeout }, selector, text);
}
export async function type(page, selector, text) {
  await page.focus(selector);
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}
// One person sends a message; another sees it arrive in the open channel.
export async function say(from, to, text) {
  await type(from.page, '#message-input', text);
  await waitText(to.page, '.messages .msg', text);
}

// Clicks a button of the message holding this text, as a person would: the
// message's action buttons appear on hover.
export async function act(page, text, button, scope = '.messages') {
  await waitText(page, scope + ' .msg', text);
  const message = await page.evaluateHandle((s, t) =>
    [...document.querySelectorAll(s + ' .msg')].find((m) => m.textContent.includes(t)), scope, text).then((h) => h.asElement());
  await message.focus();  // on a touch screen, a tap; with a mouse, the pointer over it
  await message.hover();
  await (await message.waitForSelector(button)).click();
}

// Edits my message in place (its Edit button, the text replaced, Enter).
export async function editMessage(page, text, newText) {
  await act(page, text, 'button.edit');
  const box = await page.waitForSelector('.msg .edit-text');
  // The box puts its caret at the end once focused (an effect, after paint):
  // select only after that, or the new text lands behind the old.
  await page.waitForFunction((b) => document.activeElement === b, {}, box);
  await box.evaluate((b) => b.select());
  await page.keyboard.type(newText);
  await page.keyboard.press('Enter');
}

// Deletes my message: its Delete button, then the confirmation's.
export async function deleteMessage(page, text) {
  await act(page, text, 'button.delete');
  await (await page.waitForSelector('.msg .confirm-delete')).click();
}

// Creates a channel from the sidebar and waits until it is open.
export async function createChannel(person, name, visibility = 'open') {
  await person.page.type('#new-channel', name);
  await person.page.select('#new-visibility', visibility);
  await person.page.click('#create-channel');
  await waitText(person.page, '.channel-head h1', name);
  await person.page.waitForSelector('.messages[aria-busy="false"]');
}

// Opens the current channel's members pane and adds someone by name; waits until it counts `count`.
export async function addMember(person, name, count) {
  await person.page.click('#toggle-members');
  await person.page.type('#add-member', name);
  await person.page.click('#add-member-button');
  await waitText(person.page, '.members h2', `Members (${count})`);
}

// Opens a channel from the sidebar once it is listed (the list follows the channels' live metadata).
// The sidebar lists the channels one is in: another is joined in the channel
// browser (or opened there, once a member), as a person does; on a phone, behind ☰.
// `join: false` reads an open channel from the browser without joining it.
export async function openChannel(person, name, { join = true } = {}) {
  const { page } = person;
  const listed = `nav [data-channel="${name}"]`;
  if (await page.$eval('.sidebar', (s) => getComputedStyle(s).display === 'none')) await page.click('.menu-toggle');
  if (join && await page.$(listed)) {
    await page.click(listed);
  } else {
    await page.click('#browse-channels');
    const pick = join ? 'button.join, button.open-channel' : 'button.preview';
    const row = await page.waitForSelector(`[data-browse="${name}"] :is(${pick})`, { timeout: 30000 });
    await row.click();
  }
  await waitText(page, '.channel-head h1', name);
  await person.page.waitForSelector('.messages[aria-busy="false"]');
}

// The REST API as this person (NIP-98), outside the browser. A nonce makes
// each authorization unique: the same call twice in one second would sign the
// same event, which the relay refuses as a replay.
export async function rest(world, person, method, path, body) {
  const url = world.base + path;
  const nonce = randomBytes(8).toString('hex');
  const sign = (e) => finalizeEvent({ ...e, tags: [...e.tags, ['nonce', nonce]] }, person.secret);
  const r = await fetch(url, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: {
    ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    Authorization: await getToken(url, method, sign, true, body) } });
  return { status: r.status, json: await r.json().catch(() => null) };
}

// A nostr-tools relay connection authenticated with this secret key.
export async function connect(world, secret) {
  const relay = await Relay.connect(world.base.replace('http', 'ws'));
  for (let i = 0; i < 50 && !relay.challenge; i++) await new Promise((r) => setTimeout(r, 20));
  await relay.auth((evt) => finalizeEvent(evt, secret));
  relay.publishTimeout = 60000;  // a loaded CI machine
  return relay;
}

function crc32(bytes) {  // zlib.crc32 is newer than Debian 12's Node.js
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

// A real 160x90 PNG (a red banner), so the media service's image checks pass.
export function png() {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(160, 0); ihdr.writeUInt32BE(90, 4); ihdr[8] = 8; ihdr[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(480).fill(Buffer.from([220, 30, 60]))]);
  const raw = Buffer.concat(Array(90).fill(row));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
