// Who people are, for every screen: display names from their kind 0 profiles
// (NIP-01 metadata, read over the WebSocket and kept live) and presence
// (GET /api/presence once, then kind 20001 live). Screens ask for the pubkeys
// they show with want(); the answers come in batches and re-render through
// usePeople().
import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { shortKey } from './model.js';
import { pubkeyFrom } from './signer.js';
import { firstRender } from './startup.js';

const BATCH = 100;  // authors per kind 0 subscription

export class People {
  constructor(relay, api) {
    this.relay = relay;
    this.api = api;
    this.profiles = new Map();  // pubkey -> {created_at, content (parsed)}
    this.status = new Map();    // pubkey -> 'online' | 'away' | 'offline' | …
    this.known = new Set();
    this.pending = new Set();
    this.listeners = new Set();
    this.notifying = false;
    // The relay's own key (NIP-11 `self`) signs what the relay itself says,
    // such as an approval's DM: shown under the relay's name, not as a key.
    // Read from /info, which is only ever NIP-11: the page's own URL answers
    // NIP-11 too, by Accept, and a cached answer there would stand for the page.
    this.relayKey = null;
    this.relayName = 'the relay';
    fetch('/info').then((r) => r.json()).then((doc) => {
      if (typeof doc.self !== 'string') return;
      this.relayKey = doc.self;
      if (typeof doc.name === 'string' && doc.name) this.relayName = doc.name;
      this.changed();
    }, () => {});
    // Presence changes of everyone sharing a channel with me, as they happen;
    // the relay's own "offline" names its subject in a p tag.
    relay.subscribe([{ kinds: [20001], limit: 0 }], (ev) => {
      const who = ev.tags.find((t) => t[0] === 'p')?.[1] ?? ev.pubkey;
      this.status.set(who, ev.content || 'online');
      this.changed();
    });
  }

  name(pubkey) {
    const p = this.profiles.get(pubkey)?.content;
    if (p && (p.display_name || p.name)) return p.display_name || p.name;
    return pubkey === this.relayKey ? this.relayName : shortKey(pubkey);
  }
  presence(pubkey) { return this.status.get(pubkey) || 'offline'; }
  profile(pubkey) { return this.profiles.get(pubkey)?.content || {}; }

  // Names and presence of these pubkeys are wanted soon.
  want(pubkeys) {
    for (const pk of pubkeys) if (!this.known.has(pk)) this.pending.add(pk);
    if (this.pending.size && !this.timer) this.timer = setTimeout(() => this.fetch(), 20);
  }

  fetch() {
    this.timer = null;
    const fresh = [...this.pending];
    this.pending.clear();
    if (!fresh.length) return;
    for (const pk of fresh) this.known.add(pk);
    for (let i = 0; i < fresh.length; i += BATCH) {
      const authors = fresh.slice(i, i + BATCH);
      this.relay.subscribe([{ kinds: [0], authors }], (ev) => this.learn(ev));
      firstRender.then(() => this.api.get('/api/presence?pubkeys=' + authors.join(','))).then((map) => {
        for (const [pk, s] of Object.entries(map)) if (!this.status.has(pk)) this.status.set(pk, s);
        this.changed();
      }, () => {});
    }
  }

  learn(ev) {
    const prev = this.profiles.get(ev.pubkey);
    if (prev && prev.created_at >= ev.created_at) return;
    let content;
    try { content = JSON.parse(ev.content); } catch { return; }
    if (!content || typeof content !== 'object') return;
    this.profiles.set(ev.pubkey, { created_at: ev.created_at, content });
    this.changed();
  }

  // My own profile: the fields given replace those in my newest kind 0.
  async saveProfile(pubkey, fields) {
    const content = { ...this.profile(pubkey), ...fields };
    const r = await this.relay.publish({ kind: 0, content: JSON.stringify(content), tags: [] });
    if (!r.ok) throw new Error(r.message);
    this.learn(r.event);
  }

  setMine(pubkey, status) { this.status.set(pubkey, status); this.changed(); }

  // Listeners hear once per task, however many events arrived in it.
  changed() {
    if (this.notifying) return;
    this.notifying = true;
    setTimeout(() => { this.notifying = false; for (const l of this.listeners) l(); }, 0);
  }
}

export const PeopleContext = createContext(null);

// The shared People; the calling component re-renders when names or presence change.
export function usePeople() {
  const people = useContext(PeopleContext);
  const [, setVersion] = useState(0);
  useEffect(() => {
    const l = () => setVersion((v) => v + 1);
    people.listeners.add(l);
    return () => people.listeners.delete(l);
  }, [people]);
  return people;
}

// A workflow's text names people by their 64-hex pubkeys: by their names instead.
export function named(text, people) {
  const keys = text.match(/\b[0-9a-f]{64}\b/g) ?? [];
  people.want(keys);
  for (const pk of keys) text = text.replaceAll(pk, '@' + people.name(pk));
  return text;
}

// A person by npub, hex key, or a display name the relay knows (one match).
export async function findPerson(api, text) {
  try { return pubkeyFrom(text); } catch {}
  const { users } = await api.get('/api/users/search?limit=5&q=' + encodeURIComponent(text));
  const exact = users.filter((u) => (u.display_name || '').toLowerCase() === text.toLowerCase());
  const one = exact.length === 1 ? exact[0] : users.length === 1 ? users[0] : null;
  if (!one) throw new Error(users.length ? `"${text}" matches more than one person` : `nobody called "${text}"`);
  return one.pubkey;
}
