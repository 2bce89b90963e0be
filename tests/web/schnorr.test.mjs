// The web client's BIP-340 signing (server/web/client/src/schnorr.js), which
// skips noble's verification after signing and derives the public point once:
// its signatures must be noble's, byte for byte, for the same key, message and
// auxiliary randomness, and BIP-340's own vectors.
//   node --test schnorr.test.mjs   (after the client's npm ci, which the build runs)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { schnorr } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from 'nostr-tools/utils';
import { schnorrKey } from '../../server/web/client/src/schnorr.js';

test('BIP-340 vectors 0 and 1: the public key and the signature', () => {
  const vectors = [
    ['0000000000000000000000000000000000000000000000000000000000000003',
      'f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9',
      '0000000000000000000000000000000000000000000000000000000000000000',
      '0000000000000000000000000000000000000000000000000000000000000000',
      'e907831f80848d1069a5371b402410364bdf1c5f8307b0084c55f1ce2dca821525f66a4a85ea8b71e482a74f382d2ce5ebeee8fdb2172f477df4900d310536c0'],
    ['b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef',
      'dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659',
      '0000000000000000000000000000000000000000000000000000000000000001',
      '243f6a8885a308d313198a2e03707344a4093822299f31d0082efa98ec4e6c89',
      '6896bd60eeae296db48a229ff71dfe071bde413e6d43f917dc8dcf8c78de33418906d11ac976abccb20b091292bff4ea897efcb639ea871cfa95f6de339e4b0a'],
  ];
  for (const [secret, pubkey, aux, message, sig] of vectors) {
    const key = schnorrKey(hexToBytes(secret));
    assert.equal(key.pubkey, pubkey);
    assert.equal(bytesToHex(key.sign(hexToBytes(message), hexToBytes(aux))), sig);
  }
});

test('the same signature as noble\'s for random keys, messages and randomness, each verifying', () => {
  for (let i = 0; i < 50; i++) {
    const secret = schnorr.utils.randomSecretKey();
    const key = schnorrKey(secret);
    assert.equal(key.pubkey, bytesToHex(schnorr.getPublicKey(secret)));
    for (let j = 0; j < 3; j++) {
      const message = crypto.getRandomValues(new Uint8Array(32));
      const aux = crypto.getRandomValues(new Uint8Array(32));
      const sig = key.sign(message, aux);
      assert.equal(bytesToHex(sig), bytesToHex(schnorr.sign(message, secret, aux)));
      assert.ok(schnorr.verify(sig, message, hexToBytes(key.pubkey)));
    }
    // Without aux: fresh randomness, still a valid signature.
    const message = crypto.getRandomValues(new Uint8Array(32));
    assert.ok(schnorr.verify(key.sign(message), message, hexToBytes(key.pubkey)));
  }
});

test('a secret of 0 or the group order is refused', () => {
  assert.throws(() => schnorrKey(new Uint8Array(32)));
  assert.throws(() => schnorrKey(hexToBytes('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141')));
});
