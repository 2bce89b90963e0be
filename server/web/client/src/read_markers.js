// Read markers (kind 30078, d buzz:read:<channel>, docs/reference/kinds.md §2.1):
// how far I have read each channel, kept in this browser and on the relay, so
// the unread counts follow me to my other devices and the author of a message
// learns how many have read it (delivery receipts). A marker is mine alone:
// the relay gives it to no one else.
const key = (id) => 'buzz.read.' + id;
const d = (id) => 'buzz:read:' + id;
const DELAY = 2000;  // a channel's marker is written this long after its last move
const timers = new Map();  // channel id -> its pending write
let relayNow = null;

export const readUntil = (id) => Number(localStorage.getItem(key(id)) || 0);

const write = (id) => relayNow?.publish({ kind: 30078, tags: [['d', d(id)], ['read_until', String(readUntil(id))]] });

// Moves a channel's read position forward (never back): here at once, on the relay soon.
export function setRead(id, until) {
  if (until <= readUntil(id)) return;
  localStorage.setItem(key(id), String(until));
  if (!relayNow) return;
  clearTimeout(timers.get(id));
  timers.set(id, setTimeout(() => { timers.delete(id); write(id); }, DELAY));
}

// The writes still waiting, now (the page goes away).
export function flushMarkers() {
  for (const [id, t] of timers) { clearTimeout(t); write(id); }
  timers.clear();
}

// Signed in: my markers of these channels, where they read further than this
// browser; answers those channels, [{id, until}]. Each channel is asked once a
// page: the sidebar's list changing again costs no request.
const synced = new Set();
export async function syncMarkers(relay, me, ids) {
  relayNow = relay;
  const fresh = ids.filter((id) => !synced.has(id));
  if (!fresh.length) return [];
  for (const id of fresh) synced.add(id);
  const got = await relay.query([{ kinds: [30078], authors: [me], '#d': fresh.map(d) }]);
  const moved = [];
  for (const ev of got) {
    const id = ev.tags.find((t) => t[0] === 'd')?.[1]?.slice(d('').length);
    const until = Number(ev.tags.find((t) => t[0] === 'read_until')?.[1]);
    if (id && until > readUntil(id)) {
      localStorage.setItem(key(id), String(until));
      moved.push({ id, until });
    }
  }
  return moved;
}
