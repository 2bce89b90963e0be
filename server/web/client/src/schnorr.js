// BIP-340 signing for a key kept in this browser, at a fraction of the curve
// work of noble's schnorr.sign on a cold page (docs/performance.md, "Web
// client first render"): the public point is derived once per key, not again
// for every signature; the signature is not verified again after signing
// (two more multiplications, one of them by a point without a table; the
// relay verifies every event anyway); and the base point's table has windows
// of 4 bits, 264 points to build instead of the default's 2,176, at the price
// of twice the additions a signature, which a page signing a few events a
// minute never gets back. The arithmetic is noble's own (constant-time multiply,
// tagged hashes); tests/web/schnorr.test.mjs checks every signature against
// noble's for the same auxiliary randomness, and BIP-340's vectors.
import { schnorr } from '@noble/curves/secp256k1.js';
import { bytesToHex } from 'nostr-tools/utils';

const { Point, utils: { taggedHash, pointToBytes } } = schnorr;
const { Fn, BASE } = Point;
BASE.precompute(4);

const int = (bytes) => BigInt('0x' + bytesToHex(bytes));

// A signer for one 32-byte secret: {pubkey: its x-only public key in hex, sign(message bytes, aux?) -> 64 bytes}.
export function schnorrKey(secret) {
  const d0 = Fn.fromBytes(secret);  // refuses 0 and n or more
  const P = BASE.multiply(d0);
  const d = P.hasEvenY() ? d0 : Fn.neg(d0);
  const publicKey = pointToBytes(P);
  const sign = (message, aux = crypto.getRandomValues(new Uint8Array(32))) => {
    const t = Fn.toBytes(d ^ int(taggedHash('BIP0340/aux', aux)));
    const k0 = Fn.create(int(taggedHash('BIP0340/nonce', t, publicKey, message)));
    if (k0 === 0n) throw new Error('sign: nonce is zero');
    const R = BASE.multiply(k0);
    const k = R.hasEvenY() ? k0 : Fn.neg(k0);
    const rx = pointToBytes(R);
    const e = Fn.create(int(taggedHash('BIP0340/challenge', rx, publicKey, message)));
    const sig = new Uint8Array(64);
    sig.set(rx, 0);
    sig.set(Fn.toBytes(Fn.create(k + e * d)), 32);
    return sig;
  };
  return { pubkey: bytesToHex(publicKey), sign };
}
