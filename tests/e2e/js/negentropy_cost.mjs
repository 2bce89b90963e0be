// The interop grid's 50 % cells, measured (docs/testing.md): the reference
// negentropy client (../shared/reference/negentropy/js, run in place, never
// copied) against our relay, and against the reference itself as the server
// in the same process (the reference ships no server), over the same sets,
// 30,000-byte frames. Prints rounds, bytes, CPU and how many ids the
// reference hashed for fingerprints. Not a test: run by hand,
//   BUZZ_BINARY=../../../build-ci/buzz BUZZ_NEG_PEER=../../../build-ci/tests/buzz-neg-peer \
//   node negentropy_cost.mjs N PERCENT [ours|floor|both]   (TRACE=1: a line per round)
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { Conn, startRelay, referenceNegentropy } from './relay_helpers.mjs';
import { changed, readItems } from './neg_sets.mjs';
import { referenceReconcile } from './reference_negentropy.mjs';
const run = promisify(execFile);
const { Negentropy, NegentropyStorageVector } = referenceNegentropy();
const peer = process.env.BUZZ_NEG_PEER;
const [N, P, which] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4] ?? 'both'];

// Counts the ids the reference hashes for fingerprints.
let fpItems = 0, fpCalls = 0;
const origFp = NegentropyStorageVector.prototype.fingerprint;
NegentropyStorageVector.prototype.fingerprint = function (b, e) { fpItems += e - b; fpCalls++; return origFp.call(this, b, e); };

const store = (items) => { const s = new NegentropyStorageVector(); for (const it of items) s.insert(it.created_at, it.id); s.seal(); return s; };

// TRACE=1: each round's bytes and the ids the reference hashed in it.
let roundStart = 0;
const trace = (round, bytesIn, bytesOut) => {
  if (process.env.TRACE) console.error(`round ${round}: ${bytesIn} bytes in, ${bytesOut} out, ${fpItems - roundStart} ids hashed`);
  roundStart = fpItems;
};

const dir = mkdtempSync(join(tmpdir(), 'negm-'));
const author = getPublicKey(generateSecretKey());
const out = join(dir, 'items');
await run(peer, ['fill', dir, author, String(N), out]);
const items = readItems(out);
const theirs = changed(items, P);
const cpu0 = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

if (which !== 'floor') {
  const relay = await startRelay(['--open', '--rate-limits', 'false'], null, dir);
  const conn = await Conn.open(relay.url, generateSecretKey());
  const filter = { until: items.reduce((m, it) => Math.max(m, it.created_at), 0) };
  fpItems = fpCalls = 0;
  const t0 = Date.now(), c0 = cpu0();
  const r = await referenceReconcile(conn, filter, theirs.items, 30000, trace);
  const wall = (Date.now() - t0) / 1000, cpu = cpu0() - c0;
  conn.close();
  const ok = r.need.size === theirs.missing.length && r.have.size === theirs.extra.length;
  console.log(JSON.stringify({ cell: 'ours', N, P, ok, wall, jsCpu: +cpu.toFixed(2), rounds: r.rounds, upKB: Math.round(r.up / 1024), downKB: Math.round(r.down / 1024), fpItems, fpCalls }));
  await relay.stop();
}
if (which !== 'ours') {
  // The floor: the reference as both client and server, in one process.
  const client = new Negentropy(store(theirs.items), 30000), server = new Negentropy(store(items), 30000);
  fpItems = fpCalls = 0;
  const t0 = Date.now(), c0 = cpu0();
  let msg = await client.initiate(), rounds = 0, up = msg.length / 2, down = 0; const have = new Set(), need = new Set();
  let clientFp = 0;
  for (;;) {
    const [reply] = await server.reconcile(msg); down += reply.length / 2; rounds++;
    const before = fpItems;
    const [next, h, n] = await client.reconcile(reply); clientFp += fpItems - before;
    h.forEach((x) => have.add(x)); n.forEach((x) => need.add(x));
    if (next === null) break; msg = next; up += next.length / 2;
  }
  const wall = (Date.now() - t0) / 1000, cpu = cpu0() - c0;
  const ok = need.size === theirs.missing.length && have.size === theirs.extra.length;
  console.log(JSON.stringify({ cell: 'floor', N, P, ok, wall, jsCpu: +cpu.toFixed(2), rounds, upKB: Math.round(up / 1024), downKB: Math.round(down / 1024), fpItems, clientFp }));
}
rmSync(dir, { recursive: true, force: true });
