// Who the person is: a NIP-07 extension (window.nostr) when they choose it, or
// a secret key kept in this browser's localStorage (generated or pasted nsec).
// A signer is {pubkey, kind, sign(template) -> signed event}; its errors are
// sentences a person can read.
import { generateSecretKey, getEventHash, verifyEvent } from 'nostr-tools/pure';
import { schnorrKey } from './schnorr.js';
import * as nip19 from 'nostr-tools/nip19';
import { bytesToHex, hexToBytes } from 'nostr-tools/utils';

const KEY = 'buzz.secret';
const EXTENSION = 'nip07';  // stored instead of a key: "signed in with the extension"

// The public key is derived once, when first asked for (a kept key's page
// opens its WebSocket first), and each signature reuses it (schnorr.js).
function localSigner(sk) {
  let key;
  const mine = () => (key ??= schnorrKey(sk));
  const sign = async (t) => {
    const ev = { ...t, pubkey: mine().pubkey };
    ev.id = getEventHash(ev);
    ev.sig = bytesToHex(mine().sign(hexToBytes(ev.id)));
    return ev;
  };
  return { get pubkey() { return mine().pubkey; }, kind: 'local', sign, remember: () => localStorage.setItem(KEY, bytesToHex(sk)),
    nsec: () => nip19.nsecEncode(sk) };
}

// The key kept in this browser, or null (none, or the extension was used last).
export function savedSigner() {
  const hex = localStorage.getItem(KEY);
  return hex && hex !== EXTENSION ? localSigner(hexToBytes(hex)) : null;
}

// The extension signed in last time: sign in with it again once it is there.
export const extensionRemembered = () => localStorage.getItem(KEY) === EXTENSION;

// nsec1… or 64 hex characters; empty = a new key. Kept once the relay accepted it.
export function keySigner(text) {
  let sk;
  const t = (text || '').trim();
  if (!t) sk = generateSecretKey();
  else if (t.startsWith('nsec1')) sk = nip19.decode(t).data;
  else if (/^[0-9a-f]{64}$/i.test(t)) sk = hexToBytes(t.toLowerCase());
  else throw new Error('not an nsec or a 64-character hex key');
  return { ...localSigner(sk), pasted: !!t };
}

// What an extension's rejection says: an Error, a string, or nothing at all.
const reason = (e) => (e && (e.message || (typeof e === 'string' && e))) || 'no reason given';

// The extension holds the key; the page only ever sees public keys and signed
// events. What it returns is checked: a valid signature by the key it named,
// over the event asked for (an extension with another account selected would
// otherwise post as someone else).
export async function extensionSigner() {
  const ext = window.nostr;
  if (!ext) throw new Error('No browser extension (NIP-07) is available in this page.');
  let pubkey;
  try { pubkey = await ext.getPublicKey(); } catch (e) {
    throw new Error(`The browser extension did not share your public key (${reason(e)}).`);
  }
  if (typeof pubkey !== 'string' || !/^[0-9a-f]{64}$/.test(pubkey)) {
    throw new Error('The browser extension gave something that is not a public key.');
  }
  const sign = async (template) => {
    let ev;
    try { ev = await ext.signEvent(template); } catch (e) {
      throw new Error(`The browser extension refused to sign (${reason(e)}).`);
    }
    if (!ev || ev.pubkey !== pubkey || ev.kind !== template.kind || ev.content !== template.content
        || JSON.stringify(ev.tags) !== JSON.stringify(template.tags ?? []) || !verifyEvent(ev)) {
      throw new Error('The browser extension returned an event that is not the one asked for, signed by your key.');
    }
    return ev;
  };
  return { pubkey, kind: 'nip07', sign, remember: () => localStorage.setItem(KEY, EXTENSION) };
}

export function signOut() { localStorage.removeItem(KEY); }

export function secretAsNsec() {
  const hex = localStorage.getItem(KEY);
  return hex && hex !== EXTENSION ? nip19.nsecEncode(hexToBytes(hex)) : '';
}

export const npub = (hex) => nip19.npubEncode(hex);
export function pubkeyFrom(text) {
  const t = text.trim();
  if (t.startsWith('npub1')) return nip19.decode(t).data;
  if (/^[0-9a-f]{64}$/i.test(t)) return t.toLowerCase();
  throw new Error('not an npub or a 64-character hex pubkey');
}
