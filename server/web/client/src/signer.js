// Who the person is: a NIP-07 extension (window.nostr) when they choose it, or
// a secret key kept in this browser's localStorage (generated or pasted nsec).
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure';
import * as nip19 from 'nostr-tools/nip19';
import { bytesToHex, hexToBytes } from 'nostr-tools/utils';

const KEY = 'buzz.secret';

function localSigner(sk) {
  const pubkey = getPublicKey(sk);
  return { pubkey, kind: 'local', sign: async (t) => finalizeEvent(t, sk) };
}

export function savedSigner() {
  const hex = localStorage.getItem(KEY);
  if (hex === 'nip07') return null;  // the extension is asked again on each visit
  return hex ? localSigner(hexToBytes(hex)) : null;
}

// nsec1… or 64 hex characters; empty = a new key.
export function keySigner(text) {
  let sk;
  const t = (text || '').trim();
  if (!t) sk = generateSecretKey();
  else if (t.startsWith('nsec1')) sk = nip19.decode(t).data;
  else if (/^[0-9a-f]{64}$/i.test(t)) sk = hexToBytes(t.toLowerCase());
  else throw new Error('not an nsec or a 64-character hex key');
  localStorage.setItem(KEY, bytesToHex(sk));
  return localSigner(sk);
}

export async function extensionSigner() {
  const ext = window.nostr;
  const pubkey = await ext.getPublicKey();
  return { pubkey, kind: 'nip07', sign: (t) => ext.signEvent(t) };
}

export function signOut() { localStorage.removeItem(KEY); }

export function secretAsNsec() {
  const hex = localStorage.getItem(KEY);
  return hex ? nip19.nsecEncode(hexToBytes(hex)) : '';
}

export const npub = (hex) => nip19.npubEncode(hex);
export function pubkeyFrom(text) {
  const t = text.trim();
  if (t.startsWith('npub1')) return nip19.decode(t).data;
  if (/^[0-9a-f]{64}$/i.test(t)) return t.toLowerCase();
  throw new Error('not an npub or a 64-character hex pubkey');
}
