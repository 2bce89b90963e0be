// What a returning page needs before anything else: the key kept in this
// browser (localStorage `buzz.secret`: its hex, or EXTENSION when the person
// signed in with a NIP-07 extension last time) and the relay's address. Apart
// from signer.js so the page's boot script (boot.js) reads them without the rest.
export const KEY = 'buzz.secret';
export const EXTENSION = 'nip07';  // stored instead of a key: "signed in with the extension"

// The kept key's hex, or null (none, or the extension was used last).
export function keptHex() {
  const hex = localStorage.getItem(KEY);
  return hex && hex !== EXTENSION ? hex : null;
}

export const relayUrl = () => location.origin.replace(/^http/, 'ws');
