// The relay's REST API with NIP-98 and its Blossom upload (kind 24242).
import { getToken } from 'nostr-tools/nip98';
import { bytesToHex } from 'nostr-tools/utils';

// The path of a URL this relay serves (absolute, or relative to the page), else null:
// the page's CSP shows pictures from this relay only.
export const ours = (url) => { if (!url) return null; try { const u = new URL(url, location.href); return u.origin === location.origin ? u.pathname : null; } catch { return null; } };

export function makeApi(signer) {
  // A NIP-98 Authorization for one request. A nonce makes each unique: two identical
  // calls in one second would otherwise sign the same event, which the relay refuses as a replay.
  function authorization(url, method, body) {
    const nonce = bytesToHex(crypto.getRandomValues(new Uint8Array(8)));
    return getToken(url, method, (e) => signer.sign({ ...e, tags: [...e.tags, ['nonce', nonce]] }), true, body);
  }

  async function call(method, path, body, type = 'application/json') {
    const url = location.origin + path;
    const text = body === undefined ? undefined : JSON.stringify(body);
    const token = await authorization(url, method, body);
    const r = await fetch(url, {
      method, body: text,
      headers: { Authorization: token, ...(text ? { 'Content-Type': type } : {}) },
    });
    const json = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(json.error || `HTTP ${r.status}`);
    return json;
  }

  async function upload(file) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const sha = bytesToHex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
    const now = Math.floor(Date.now() / 1000);
    const auth = await signer.sign({
      kind: 24242, created_at: now, content: 'Upload file',
      tags: [['t', 'upload'], ['x', sha], ['expiration', String(now + 600)], ['server', location.host]],
    });
    const r = await fetch('/media/upload', {
      method: 'PUT', body: bytes,
      headers: {
        Authorization: 'Nostr ' + btoa(JSON.stringify(auth)),
        'X-SHA-256': sha,
        'Content-Type': file.type || 'application/octet-stream',
      },
    });
    const json = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(json.error || `upload failed: HTTP ${r.status}`);
    return json;  // {url, sha256, size, type, dim?}
  }

  // A channel's media blob (a huddle recording's track, docs/reference/media.md §6.5),
  // served only with a proof of the reader's key, which an <audio src> cannot send:
  // fetched with a NIP-98 header, for the caller to play from a blob URL.
  async function media(url) {
    const path = ours(url);
    if (!path?.startsWith('/media/')) throw new Error('not a file of this relay');
    const r = await fetch(location.origin + path, { headers: { Authorization: await authorization(location.origin + path, 'GET') } });
    if (!r.ok) throw new Error(r.status === 404 ? 'This file is not there, or not yours to hear.' : `HTTP ${r.status}`);
    return r.blob();
  }

  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),
    del: (path) => call('DELETE', path),
    // NIP-86 relay management (docs/reference/nip86.md): JSON-RPC at POST /; its result.
    rpc: async (method, params = []) => (await call('POST', '/', { method, params }, 'application/nostr+json+rpc')).result,
    upload,
    media,
  };
}
