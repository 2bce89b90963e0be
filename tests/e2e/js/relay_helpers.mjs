// What the npm-driven end-to-end tests share: starting a real `buzz serve` on
// a free loopback port, and Conn, a WebSocket that authenticates (NIP-42) and
// waits for the message it expects.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import WebSocket from 'ws';
import { finalizeEvent } from 'nostr-tools/pure';
import { Relay } from 'nostr-tools/relay';
import { spawnRelay } from './spawn_relay.mjs';

export const binary = process.env.BUZZ_BINARY ?? new URL('../../../build/buzz', import.meta.url).pathname;

// The reference negentropy implementation, run in place from ../shared (never
// copied): { Negentropy, NegentropyStorageVector }.
export function referenceNegentropy() {
  const path = process.env.NEGENTROPY_JS ??
    new URL('../../../../shared/reference/negentropy/js/Negentropy.js', import.meta.url).pathname;
  return createRequire(import.meta.url)(path);
}

export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// Once `proc` (spawnRelay's) says it listens, until /health answers on its port.
export async function waitHealthy(port, proc) {
  await proc.listening;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('relay did not become healthy');
}

// A relay on a fresh data directory (or `dataDir`). `prepare(dataDir)` runs
// before it starts (offline admin commands); stop() ends it and removes the directory.
export async function startRelay(args = [], prepare = null, dataDir = mkdtempSync(join(tmpdir(), 'buzz-js-'))) {
  const port = await freePort();
  const url = `ws://127.0.0.1:${port}`;
  if (prepare) prepare(dataDir);
  const proc = spawnRelay(binary, ['--bind', `127.0.0.1:${port}`, '--relay-url', url, '--data-dir', dataDir, ...args]);
  await waitHealthy(port, proc);
  return {
    url, dataDir,
    // The data directory goes only after the relay has exited.
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((resolve) => proc.once('exit', resolve));
        proc.kill('SIGTERM');
        assert.equal(await exited, 0, 'the relay exits cleanly on SIGTERM');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// `buzz admin add-member` on a stopped relay's data directory.
export function addMember(dataDir, pubkey, role = 'member') {
  execFileSync(binary, ['admin', 'add-member', '--data-dir', dataDir, '--pubkey', pubkey, '--role', role]);
}

// `buzz admin mint-token` on a stopped relay's data directory; returns the token.
export function mintToken(dataDir, pubkey, scopes) {
  const out = execFileSync(binary, ['admin', 'mint-token', '--data-dir', dataDir, '--pubkey', pubkey, '--name', 'test',
                                    '--scopes', scopes, '--json']);
  return JSON.parse(out.toString()).token;
}

// One WebSocket with a queue of messages (parsed, and their text); next()
// waits for one matching.
export class Conn {
  static async open(url, sk, token = null) {
    const c = new Conn();
    c.url = url;
    c.ws = new WebSocket(url, { maxPayload: 1 << 20 });
    c.queue = [];
    c.waiters = [];
    c.ws.on('message', (data) => {
      const text = data.toString();
      const msg = JSON.parse(text);
      Object.defineProperty(msg, 'text', { value: text });
      c.queue.push(msg);
      for (const w of c.waiters.splice(0)) w();
    });
    await new Promise((resolve, reject) => { c.ws.once('open', resolve); c.ws.once('error', reject); });
    if (sk) {
      const [, challenge] = await c.next((m) => m[0] === 'AUTH');
      const tags = [['relay', url], ['challenge', challenge]];
      if (token) tags.push(['auth_token', token]);
      const auth = finalizeEvent({ kind: 22242, created_at: Math.floor(Date.now() / 1000), tags, content: '' }, sk);
      c.send(['AUTH', auth]);
      const ok = await c.next((m) => m[0] === 'OK' && m[1] === auth.id);
      assert.equal(ok[2], true, ok[3]);
    }
    return c;
  }
  send(msg) { this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg)); }
  async next(match, timeoutMs = 20000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.queue.findIndex(match);
      if (i >= 0) return this.queue.splice(i, 1)[0];
      if (Date.now() > deadline) throw new Error('timed out waiting for a message');
      await new Promise((r) => { this.waiters.push(r); setTimeout(r, 200); });
    }
  }
  // Still served: a REQ gets its EOSE.
  async alive() {
    const sub = 'alive' + Math.random();
    this.send(['REQ', sub, { limit: 1 }]);
    await this.next((m) => m[0] === 'EOSE' && m[1] === sub);
    this.send(['CLOSE', sub]);
  }
  // The stored events of one filter, as the exact text of each event object.
  async history(filter) {
    const sub = 'history' + Math.random();
    this.send(['REQ', sub, filter]);
    const prefix = `["EVENT",${JSON.stringify(sub)},`;
    const out = [];
    for (;;) {
      const m = await this.next((x) => x[1] === sub);
      if (m[0] !== 'EVENT') break;
      out.push(m.text.slice(prefix.length, -1));
    }
    this.send(['CLOSE', sub]);
    return out;
  }
  close() { this.ws.close(); }
}

// Publishes signed events on one connection, pipelined, at most `window`
// awaiting their OK at a time; every one must be accepted.
export async function publishAll(conn, events, window = 500) {
  for (let at = 0; at < events.length; at += window) {
    const batch = events.slice(at, at + window);
    for (const e of batch) conn.send(['EVENT', e]);
    const pending = new Set(batch.map((e) => e.id));
    while (pending.size) {
      const ok = await conn.next((m) => m[0] === 'OK' && pending.has(m[1]));
      assert.equal(ok[2], true, ok[3]);
      pending.delete(ok[1]);
    }
  }
}

// A nostr-tools Relay at url, authenticated as sk: buzz sends the NIP-42
// challenge first, and nostr-tools answers it with auth(). The caller has set
// the WebSocket implementation (useWebSocketImplementation).
export async function connectAuthed(url, sk) {
  const relay = await Relay.connect(url);
  for (let i = 0; i < 50 && !relay.challenge; i++) await new Promise((r) => setTimeout(r, 20));
  await relay.auth((evt) => finalizeEvent(evt, sk));
  return relay;
}
