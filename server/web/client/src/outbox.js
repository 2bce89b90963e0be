// Messages on their way: each signed event is kept in IndexedDB from the
// moment it is sent until the relay's OK, so one sent while the relay is down
// (or just before it crashes, or the page is closed) is not lost. It shows in
// its channel as "sending…" and goes again on every reconnect and on the next
// visit, with the same id (a copy the relay already stored is a "duplicate:",
// which counts as sent). A refusal is kept with the relay's reason until the
// person retries or discards it.
import { firstRender } from './startup.js';

const DB = 'buzz-outbox';
const STORE = 'events';

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'id' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

export class Outbox {
  constructor(relay, pubkey) {
    this.relay = relay;
    this.pubkey = pubkey;
    this.items = new Map();  // event id -> {id, event, channel, state: 'sending' | 'refused', reason}
    this.listeners = new Set();
    // Opened after the workspace's first render: its first transaction held
    // the page's thread for milliseconds on the start's path.
    this.db = firstRender.then(open).catch(() => null);  // no IndexedDB (private mode): kept in memory only
    this.db.then((db) => db && this.tx(db, 'readonly', (s) => s.getAll())).then((all) => {
      for (const item of all || []) {
        if (item.event.pubkey !== this.pubkey || this.items.has(item.id)) continue;
        this.items.set(item.id, item);
        if (item.state === 'sending') this.deliver(item);
      }
      this.changed();
    }, () => {});
  }

  tx(db, mode, op) {
    return new Promise((resolve, reject) => {
      const req = op(db.transaction(STORE, mode).objectStore(STORE));
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }
  async save(item) { const db = await this.db; if (db) await this.tx(db, 'readwrite', (s) => s.put(item)).catch(() => {}); }
  async forget(id) { const db = await this.db; if (db) await this.tx(db, 'readwrite', (s) => s.delete(id)).catch(() => {}); }

  // Signs (a signer's refusal throws, so the composer keeps the text), keeps
  // and sends; resolves once kept, not when the relay answers.
  async send(template, channel) {
    const event = await this.relay.sign(template);
    const item = { id: event.id, event, channel, state: 'sending', reason: '' };
    this.items.set(item.id, item);
    this.changed();
    await this.save(item);
    this.deliver(item);
    return event;
  }

  async deliver(item) {
    const r = await this.relay.deliver(item.event);
    if (this.items.get(item.id) !== item) return;  // discarded meanwhile
    if (r.ok) {
      this.items.delete(item.id);
      this.forget(item.id);
    } else {
      item.state = 'refused';
      item.reason = r.message || 'refused';
      this.save(item);
    }
    this.changed();
  }

  retry(id) {
    const item = this.items.get(id);
    if (!item) return;
    item.state = 'sending';
    item.reason = '';
    this.changed();
    this.save(item);
    this.deliver(item);
  }

  discard(id) {
    this.items.delete(id);
    this.relay.unacked.delete(id);
    this.forget(id);
    this.changed();
  }

  // What waits in this channel, oldest first.
  of(channel) {
    return [...this.items.values()].filter((i) => i.channel === channel).sort((a, b) => a.event.created_at - b.event.created_at);
  }

  changed() { for (const l of this.listeners) l(); }
}
