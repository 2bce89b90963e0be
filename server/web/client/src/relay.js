// The relay's own WebSocket (same origin as the page): answers the NIP-42
// challenge, keeps subscriptions across reconnects, and resolves publishes
// with the relay's OK. `ready` settles at the first AUTH: resolved when the
// relay accepted it, rejected with a sentence when the signer refused to sign
// it or the relay refused it (signing in waits for it). A REQ the relay
// refused for its rate limit is sent again after a back-off (1 s,
// doubling to 30 s); an EVENT not yet answered is sent again on reconnecting
// (the same id, so a copy the relay already holds is only a "duplicate:").
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
    this.unacked = new Map();  // event id -> its EVENT frame, until the relay's OK
    this.backoff = 0;          // rate-limit refusals in a row: the next retry waits 2^n s
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
      this.readyAt ??= performance.now();  // the first sign-in accepted (docs/performance.md)
      this.settle.resolve();
      for (const [id, s] of this.subs) this.ws.send(JSON.stringify(['REQ', id, ...s.filters]));
      for (const frame of this.unacked.values()) this.ws.send(frame);
      for (const frame of this.queue.splice(0)) this.ws.send(frame);
    } else if (type === 'OK') {
      this.unacked.delete(a);
      const p = this.pending.get(a);
      if (p) { this.pending.delete(a); p({ ok: b, message: c }); }
    } else if (type === 'EVENT') {
      this.subs.get(a)?.onEvent(b);
    } else if (type === 'EOSE') {
      this.backoff = 0;
      this.subs.get(a)?.onEose?.();
    } else if (type === 'CLOSED' && String(b).startsWith('rate-limited:') && this.subs.has(a)) {
      this.later(() => { const s = this.subs.get(a); if (s) this.send(['REQ', a, ...s.filters]); });
    } else if (type === 'CLOSED') {
      // The relay ended it (access revoked, channel deleted): not resent on reconnect.
      const s = this.subs.get(a);
      this.subs.delete(a);
      s?.onClosed?.(b);
    }
  }

  // Runs again after the back-off; each refusal in a row doubles it.
  later(retry) {
    const wait = Math.min(30000, 1000 * 2 ** this.backoff++);
    setTimeout(retry, wait);
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

  // Signs and sends; resolves with {ok, message, event}. A signer's refusal
  // (an extension's "deny") is an answer like the relay's refusal: ok false.
  async publish(template) {
    let event;
    try {
      event = await this.sign(template);
    } catch (e) { return { ok: false, message: e.message }; }
    return this.deliver(event);
  }

  sign(template) { return this.signer.sign({ created_at: Math.floor(Date.now() / 1000), content: '', ...template }); }

  // A signed event, sent now (or once signed in again) and again on every
  // reconnect until the relay answers; resolves with {ok, message, event}.
  async deliver(event) {
    const answer = new Promise((resolve) => this.pending.set(event.id, resolve));
    const frame = JSON.stringify(['EVENT', event]);
    this.unacked.set(event.id, frame);
    if (this.authed && this.ws.readyState === 1) this.ws.send(frame);
    return { ...(await answer), event };
  }
}
