// What the proxy's npm-driven tests and benchmark share: a relay with a
// proxy token minted offline, channels made by a team member, and `buzz
// proxy` started against it on a free loopback port.
import { spawn } from 'node:child_process';
import { randomBytes, createHmac } from 'node:crypto';
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure';
import { binary, freePort, startRelay, mintToken, Conn } from './relay_helpers.mjs';

export const now = () => Math.floor(Date.now() / 1000);
export const hex = (bytes) => Buffer.from(bytes).toString('hex');

// The shadow pubkey the proxy derives for `pubkeyHex` under `saltHex` (docs/reference/proxy.md §7.1).
export function shadowPubkey(saltHex, pubkeyHex) {
  const secret = createHmac('sha256', Buffer.from(saltHex, 'hex')).update(Buffer.from(pubkeyHex, 'hex')).digest();
  return getPublicKey(new Uint8Array(secret));
}

// A relay whose key the test knows, the proxy's token minted on its data directory.
export async function startTeamRelay(relayArgs = []) {
  const relaySk = generateSecretKey();
  const proxySk = generateSecretKey();
  let token;
  const relay = await startRelay(['--open', '--relay-private-key', hex(relaySk), ...relayArgs], (dir) => {
    token = mintToken(dir, getPublicKey(proxySk), 'proxy:submit,channels:read,messages:read');
  });
  return { relay, relaySk, proxySk, token };
}

// A channel created by `ownerConn` (authenticated), with `members` (hex) added.
export async function createChannel(ownerConn, ownerSk, name, visibility, members = []) {
  const uuid = crypto.randomUUID();
  const make = (kind, tags, content = '') => finalizeEvent({ kind, created_at: now(), tags, content }, ownerSk);
  const publish = async (e) => {
    ownerConn.send(['EVENT', e]);
    const ok = await ownerConn.next((m) => m[0] === 'OK' && m[1] === e.id);
    if (!ok[2]) throw new Error(`${e.kind}: ${ok[3]}`);
  };
  await publish(make(9007, [['h', uuid], ['name', name], ['visibility', visibility], ['about', `about ${name}`]]));
  for (const pk of members) await publish(make(9000, [['h', uuid], ['p', pk]]));
  return uuid;
}

// `buzz proxy` against `team`, listening on a free port; stop() ends it.
export async function startProxy(team, extraEnv = {}) {
  const port = await freePort();
  const salt = randomBytes(16).toString('hex');
  const adminSecret = 'admin-' + randomBytes(8).toString('hex');
  const proc = spawn(binary, ['proxy'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      BUZZ_UPSTREAM_URL: team.relay.url,
      BUZZ_PROXY_SERVER_KEY: hex(team.proxySk),
      BUZZ_PROXY_SALT: salt,
      BUZZ_PROXY_API_TOKEN: team.token,
      BUZZ_RELAY_PUBKEY: getPublicKey(team.relaySk),
      BUZZ_PROXY_BIND_ADDR: `127.0.0.1:${port}`,
      BUZZ_PROXY_ADMIN_SECRET: adminSecret,
      ...extraEnv,
    },
  });
  let log = '';
  proc.stderr.on('data', (d) => { log += d.toString(); });
  // Ready once the upstream AUTH went through.
  for (let i = 0; i < 200 && !log.includes('connected to'); i++) {
    if (proc.exitCode !== null) throw new Error(`buzz proxy exited: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!log.includes('connected to')) throw new Error(`buzz proxy did not connect upstream: ${log}`);
  const http = `http://127.0.0.1:${port}`;
  return {
    url: `ws://127.0.0.1:${port}`, http, salt, adminSecret, proc,
    log: () => log,
    async admin(method, path, body) {
      const r = await fetch(http + path, {
        method, headers: { Authorization: `Bearer ${adminSecret}`, 'Content-Type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: r.status, body: await r.json() };
    },
    async stop() {
      if (proc.exitCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

export { Conn };
