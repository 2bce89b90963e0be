// A NIP-07 browser extension for a puppeteer page, injected the way a real one
// is: `window.nostr` with getPublicKey() and signEvent() exists before the
// page's own scripts run, and the signing happens elsewhere, here in Node.js
// with nostr-tools, so the secret key never enters the page. The test plays
// the person at the extension's prompt: `refuse` makes it deny the public
// key, every signature, or those of some kinds; `signWith` makes it sign with
// another key than the one it named (another account selected meanwhile);
// `ignore` leaves its prompts unanswered.
import { getPublicKey, finalizeEvent } from 'nostr-tools/pure';

export async function installExtension(page, secret, { late = false } = {}) {
  const ext = {
    pubkey: getPublicKey(secret),
    asked: 0,                                     // signatures asked for, refused or not
    signed: [],                                   // the kinds signed, in order
    refuse: { publicKey: false, all: false, kinds: new Set() },
    signWith: null,
    ignore: false,
  };
  await page.exposeFunction('__extensionPublicKey', () => {
    if (ext.refuse.publicKey) throw new Error('the user denied access to the public key');
    return ext.pubkey;
  });
  await page.exposeFunction('__extensionSign', (template) => {
    ext.asked++;
    if (ext.ignore) return new Promise(() => {});
    if (ext.refuse.all || ext.refuse.kinds.has(template.kind)) throw new Error('the user denied the signature');
    // An extension signs only the fields NIP-07 names, whatever else comes along.
    const { kind, created_at, tags, content } = template;
    ext.signed.push(kind);
    return finalizeEvent({ kind, created_at, tags, content }, ext.signWith ?? secret);
  });
  const provider = () => {
    window.nostr = {
      getPublicKey: () => window.__extensionPublicKey(),
      signEvent: (event) => window.__extensionSign(event),
    };
  };
  // Some extensions inject at the document's end or later: the page must look again.
  if (late) ext.inject = () => page.evaluate(provider);
  else await page.evaluateOnNewDocument(provider);
  return ext;
}
