// End-to-end: nostr-tools over wss:// against the relay's native TLS
// (docs/tls.md), trusting a test CA made here with the openssl CLI — the
// certificate is verified, host name included, as a deployed client would.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { useWebSocketImplementation } from 'nostr-tools/relay';
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure';
import { binary, freePort, connectAuthed } from './relay_helpers.mjs';
import { spawnRelay } from './spawn_relay.mjs';
import { makeTestPki, httpsGet } from './tls_helpers.mjs';

let dir, proc, url, pki;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'buzz-tls-js-'));
  pki = makeTestPki(dir);
  const port = await freePort();
  url = `wss://localhost:${port}`;
  proc = spawnRelay(binary, ['--open', '--bind', `127.0.0.1:${port}`, '--data-dir', join(dir, 'data'),
                             '--tls-cert', pki.cert, '--tls-key', pki.key]);
  await proc.listening;
  for (let i = 0; ; i++) {
    try {
      if ((await httpsGet(`https://localhost:${port}/health`, pki.ca)).status === 200) break;
    } catch (e) {
      if (i > 100) throw e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // Every WebSocket nostr-tools opens trusts the test CA, and only it.
  const ca = pki.ca;
  useWebSocketImplementation(class extends WebSocket {
    constructor(address, protocols) { super(address, protocols, { ca }); }
  });
});

after(async () => {
  if (proc && proc.exitCode === null) {
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    assert.equal(await exited, 0, 'the relay exits cleanly on SIGTERM');
  }
  rmSync(dir, { recursive: true, force: true });
});

test('NIP-11 over https', async () => {
  const r = await httpsGet(url.replace('wss', 'https'), pki.ca, { Accept: 'application/nostr+json' });
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'application/nostr+json');
  assert.ok(JSON.parse(r.body).supported_nips.includes(42));
});

test('an untrusted certificate is refused by the client', async () => {
  await assert.rejects(new Promise((resolve, reject) => {
    const ws = new WebSocket(url);  // the plain class: no test CA
    ws.on('open', resolve);
    ws.on('error', reject);
  }), /self-signed|unable to verify|certificate/);
});

test('authenticate, publish, query history and receive live events over wss', async () => {
  const alice = generateSecretKey();
  const a = await connectAuthed(url, alice);
  const b = await connectAuthed(url, generateSecretKey());
  const live = [];
  let eose;
  const eosed = new Promise((r) => { eose = r; });
  b.subscribe([{ kinds: [1], authors: [getPublicKey(alice)] }], { onevent: (e) => live.push(e), oneose: () => eose() });
  await eosed;
  const big = 'x'.repeat(40000);  // several TLS records each way
  for (const content of ['hello over wss', big]) {
    await a.publish(finalizeEvent({ kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [], content }, alice));
  }
  for (let i = 0; i < 100 && live.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(live.map((e) => e.content), ['hello over wss', big]);
  const history = [];
  await new Promise((resolve) => {
    a.subscribe([{ authors: [getPublicKey(alice)] }], { onevent: (e) => history.push(e), oneose: resolve });
  });
  assert.equal(history.length, 2);
  a.close();
  b.close();
});
