// What the TLS tests share (docs/tls.md): a throwaway CA and a server
// certificate it signs, made with the openssl CLI, and a GET over https that
// trusts that CA.
import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';

// A CA, and a certificate it signs for localhost: server.pem (the full chain)
// and server.key; spki is the leaf key's SHA-256, as Chromium's
// --ignore-certificate-errors-spki-list takes it.
export function makeTestPki(dir) {
  const openssl = (...args) => execFileSync('openssl', args, { stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-days', '2', '-subj', '/CN=buzz-test-ca', '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.pem'));
  openssl('req', ...ec, '-subj', '/CN=localhost', '-keyout', join(dir, 'server.key'), '-out', join(dir, 'server.csr'));
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', join(dir, 'server.csr'), '-CA', join(dir, 'ca.pem'), '-CAkey', join(dir, 'ca.key'),
          '-CAcreateserial', '-days', '2', '-extfile', join(dir, 'server.ext'), '-out', join(dir, 'server.leaf'));
  writeFileSync(join(dir, 'server.pem'), readFileSync(join(dir, 'server.leaf')) + readFileSync(join(dir, 'ca.pem')));
  const spkiDer = new X509Certificate(readFileSync(join(dir, 'server.leaf'))).publicKey.export({ type: 'spki', format: 'der' });
  return { dir, cert: join(dir, 'server.pem'), key: join(dir, 'server.key'), ca: readFileSync(join(dir, 'ca.pem')),
           spki: createHash('sha256').update(spkiDer).digest('base64') };
}

// GET over https trusting `ca`: { status, headers, body }.
export function httpsGet(url, ca, headers = {}) {
  return new Promise((resolve, reject) => {
    https.get(url, { ca, headers }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    }).on('error', reject);
  });
}
