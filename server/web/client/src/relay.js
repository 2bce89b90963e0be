// The relay's own WebSocket (same origin as the page): answers the NIP-42
// challenge, keeps subscriptions across reconnects, and resolves publishes
// with the relay's OK. `ready` settles at the first AUTH: resolved when the
// relay accepted it, rejected with a sentence when the signer refused to sign
// it or the relay refused it (signing in waits for it).
export class Relay {
  constructor(url, signer) {
    this.url = url;
    this.signer = signer;
    this.status = 'connecting';
    this.onStatus = () => {};
    this.ready = new Promise((resolve, reject) => { this.settle = { resolve, reject }; });
    this.ready.catch(() => {});  // a session already signed in only shows it in its status
    this.subs = new Map();     // id -> {filters, onEvent, onEose, onClosed}
    this.pending = new Map();  // event id -> {resolve}
    this.counts = new Map();
    this.authed = false;
    this.queue = [];
    this.next = 0;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    this.authed = false;
    ws.onmessage = (m) => this.receive(JSON.parse(m.data));
    ws.onclose = () => {
      this.setStatus('offline');
      if (!this.closed) setTimeout(() => this.connect(), 1500);
    };
  }

  async receive(msg) {
    const [type, a, b, c] = msg;
    if (type === 'AUTH') {
      const ws = this.ws;
      let ev;
      try {
        ev = await this.signer.sign({
          kind: 22242, created_at: Math.floor(Date.now() / 1000), content: '',
          tags: [['relay', this.url], ['challenge', a]],
        });
      } catch (e) { this.fail(e.message); return; }
      if (ws !== this.ws) return;  // that connection is gone meanwhile
      this.authId = ev.id;
      ws.send(JSON.stringify(['AUTH', ev]));
    } else if (type === 'OK' && a === this.authId) {
      if (!b) { this.fail('The relay refused the sign-in: ' + c, true); return; }
      this.authed = true;
      this.setStatus('online');
      this.settle.resolve();
      for (const [id, s] of this.subs) this.ws.send(JSON.stringify(['REQ', id, ...s.filters]));
      for (const frame of this.queue.splice(0)) this.ws.send(frame);
    } else if (type === 'OK') {
      const p = this.pending.get(a);
      if (p) { this.pending.delete(a); p({ ok: b, message: c }); }
    } else if (type === 'EVENT') {
      this.subs.get(a)?.onEvent(b);
    } else if (type === 'EOSE') {
      this.subs.get(a)?.onEose?.();
    } else if (type === 'CLOSED') {
      // The relay ended it (access revoked, channel deleted): not resent on reconnect.
      const s = this.subs.get(a);
      this.subs.delete(a);
      s?.onClosed?.(b);
    } else if (type === 'COUNT') {
      const p = this.counts.get(a);
      if (p) { this.counts.delete(a); p(b.count); }
    }
  }

  setStatus(s) { this.status = s; this.onStatus(s); }
  fail(message, byRelay = false) {
    this.setStatus('refused: ' + message);
    this.settle.reject(Object.assign(new Error(message), { byRelay }));
  }

  // Signing out: no reconnecting afterwards.
  close() {
    this.closed = true;
    this.ws.close();
  }

  send(frame) {
    const text = JSON.stringify(frame);
    if (this.authed && this.ws.readyState === 1) this.ws.send(text);
    else this.queue.push(text);
  }

  subscribe(filters, onEvent, onEose, onClosed) {
    const id = 's' + this.next++;
    this.subs.set(id, { filters, onEvent, onEose, onClosed });
    if (this.authed) this.send(['REQ', id, ...filters]);
    return () => { if (this.subs.delete(id)) this.send(['CLOSE', id]); };
  }

  // The stored events matching, once: resolves at EOSE (or CLOSED) and closes.
  query(filters) {
    return new Promise((resolve) => {
      const events = [];
      const close = this.subscribe(filters, (ev) => events.push(ev), () => { close(); resolve(events); }, () => resolve(events));
    });
  }

  count(filter) {
    const id = 'c' + this.next++;
    return new Promise((resolve) => { this.counts.set(id, resolve); this.send(['COUNT', id, filter]); });
  }

  // Signs and sends; resolves with {ok, message, event}. A signer's refusal
  // (an extension's "deny") is an answer like the relay's refusal: ok false.
  async publish(template) {
    let event;
    try {
      event = await this.signer.sign({ created_at: Math.floor(Date.now() / 1000), content: '', ...template });
    } catch (e) { return { ok: false, message: e.message }; }
    const answer = new Promise((resolve) => this.pending.set(event.id, resolve));
    this.send(['EVENT', event]);
    return { ...(await answer), event };
  }
}
