// NIP-77 done by the reference negentropy implementation
// (../shared/reference/negentropy/js, run in place, never copied), an
// independent peer for ours: as the client of a relay (referenceReconcile),
// and as the server our initiator talks to (referenceNegHandler: NEG-OPEN,
// NEG-MSG and NEG-CLOSE over the set a callback gives for the filter;
// referenceNegServer adds a NIP-42 challenge, any AUTH accepted, and nothing else).
import { WebSocketServer } from 'ws';
import { referenceNegentropy } from './relay_helpers.mjs';

const { Negentropy, NegentropyStorageVector } = referenceNegentropy();

// A handler of one connection's messages: true when `m` was a NEG message.
// itemsFor(filter) returns [{ created_at, id }] (id as hex).
export function referenceNegHandler(send, itemsFor, frameSizeLimit = 30000) {
  const sessions = new Map();
  return async (m) => {
    if (m[0] === 'NEG-CLOSE') return sessions.delete(m[1]) || true;
    if (m[0] !== 'NEG-OPEN' && m[0] !== 'NEG-MSG') return false;
    if (m[0] === 'NEG-OPEN') {
      const storage = new NegentropyStorageVector();
      for (const it of itemsFor(m[2])) storage.insert(it.created_at, it.id);
      storage.seal();
      sessions.set(m[1], new Negentropy(storage, frameSizeLimit));
    }
    const session = sessions.get(m[1]);
    if (!session) return send(['NEG-ERR', m[1], 'closed: no such reconciliation open']) || true;
    try {
      const [reply] = await session.reconcile(m[0] === 'NEG-OPEN' ? m[3] : m[2]);
      send(['NEG-MSG', m[1], reply]);
    } catch (e) {
      sessions.delete(m[1]);
      send(['NEG-ERR', m[1], `invalid: ${e.message}`]);
    }
    return true;
  };
}

// A WebSocket server on loopback; `onMessage(m, send)` sees every message
// that is neither AUTH nor NEG. Returns { url, close }.
export async function referenceNegServer(itemsFor, onMessage = () => {}) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 64 << 20 });
  await new Promise((resolve) => wss.once('listening', resolve));
  wss.on('connection', (ws) => {
    const send = (m) => ws.send(JSON.stringify(m));
    const neg = referenceNegHandler(send, itemsFor);
    send(['AUTH', 'challenge']);
    // One message at a time, in order: a reconcile is async.
    let queue = Promise.resolve();
    ws.on('message', (data) => {
      queue = queue.then(async () => {
        const m = JSON.parse(data.toString());
        if (m[0] === 'AUTH') return send(['OK', m[1].id, true, '']);
        if (!(await neg(m))) onMessage(m, send);
      });
    });
  });
  return { url: `ws://127.0.0.1:${wss.address().port}`, close: () => wss.close() };
}

// Runs the reference client on `conn` over `filter` with `items` as its own
// set: { have, need } (Sets of hex ids), rounds, and the bytes (binary) each way.
// onRound(round, bytesIn, bytesOut), if given, follows each round after the client's step.
export async function referenceReconcile(conn, filter, items, frameSizeLimit = 30000, onRound = null) {
  const storage = new NegentropyStorageVector();
  for (const it of items) storage.insert(it.created_at, it.id);
  storage.seal();
  const ne = new Negentropy(storage, frameSizeLimit);
  const sub = 'neg' + Math.random();
  let msg = await ne.initiate();
  conn.send(['NEG-OPEN', sub, filter, msg]);
  const have = [], need = [];
  let rounds = 0, up = msg.length / 2, down = 0;
  for (;;) {
    const reply = await conn.next((m) => (m[0] === 'NEG-MSG' || m[0] === 'NEG-ERR') && m[1] === sub, 120000);
    if (reply[0] === 'NEG-ERR') throw new Error(reply[2]);
    rounds++;
    down += reply[2].length / 2;
    const [next, h, n] = await ne.reconcile(reply[2]);
    onRound?.(rounds, reply[2].length / 2, next ? next.length / 2 : 0);
    have.push(...h);
    need.push(...n);
    if (next === null) break;
    conn.send(['NEG-MSG', sub, next]);
    up += next.length / 2;
  }
  conn.send(['NEG-CLOSE', sub]);
  return { have: new Set(have), need: new Set(need), rounds, up, down };
}
