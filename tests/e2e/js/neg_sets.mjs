// The sets the NIP-77 interop grid reconciles (negentropy_interop.test.mjs,
// negentropy_cost.mjs): buzz-neg-peer's items files, random sets, and the
// other side's copy of a set with a share of it changed.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

// The items file buzz-neg-peer reads and writes: created_at (u64 LE) and the id, 40 bytes an item.
export function writeItems(path, items) {
  const buf = Buffer.alloc(items.length * 40);
  items.forEach((it, i) => {
    buf.writeBigUInt64LE(BigInt(it.created_at), i * 40);
    buf.write(it.id, i * 40 + 8, 'hex');
  });
  writeFileSync(path, buf);
}
export function readItems(path) {
  const buf = readFileSync(path);
  const items = [];
  for (let at = 0; at < buf.length; at += 40) {
    items.push({ created_at: Number(buf.readBigUInt64LE(at)), id: buf.toString('hex', at + 8, at + 40) });
  }
  return items;
}

// n items over a day, many in the same second.
export function randomItems(n) {
  const now = Math.floor(Date.now() / 1000);
  const ids = randomBytes(32 * n).toString('hex');
  return Array.from({ length: n }, (_, i) => ({ created_at: now - 86400 + Math.floor((86400 * i) / n),
                                                 id: ids.slice(64 * i, 64 * i + 64) }));
}

// The other side's set: `percent` of `items` changed, spread over the whole
// range, half of them missing (the other side needs them) and half joined by
// a new id in the same second (the other side has it). At least one of each
// when the percentage is not 0, so a tiny set differs too.
export function changed(items, percent) {
  const count = percent === 0 ? 0 : Math.max(2, Math.round((items.length * percent) / 100));
  const step = items.length / Math.max(count, 1);
  const touched = new Set(Array.from({ length: Math.min(count, items.length) }, (_, i) => Math.floor(i * step)));
  const missing = [], extra = [], kept = [];
  items.forEach((it, i) => {
    if (!touched.has(i)) return kept.push(it);
    if (missing.length <= extra.length) return missing.push(it);
    kept.push(it);
    extra.push({ created_at: it.created_at, id: randomBytes(32).toString('hex') });
  });
  if (percent !== 0 && extra.length === 0) extra.push({ created_at: items[0]?.created_at ?? 1700000000, id: randomBytes(32).toString('hex') });
  return { items: [...kept, ...extra], missing: missing.map((it) => it.id), extra: extra.map((it) => it.id) };
}
