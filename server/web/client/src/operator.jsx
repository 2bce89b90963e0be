// The operator page, for the relay's owner and admins: the relay's members
// and their roles, changed through NIP-86 (docs/reference/nip86.md), which runs
// each change as the NIP-43 command it stands for, under the same rules: only
// the owner grants or changes roles, so an admin sees them as text and adds
// members only; anything else the relay refuses is said in its words. The
// relay's health and main metrics (/_readiness, /metrics). My own API tokens
// (docs/reference/rest-api.md §3.1, over NIP-98: listed, minted and shown once,
// revoked). And the audit log's newest entries with a check of the whole
// chain (GET /api/audit, /api/audit/verify, docs/access.md).
import { useEffect, useState } from 'preact/hooks';
import { usePeople, findPerson } from './people.js';
import { firstRender } from './startup.js';

// My relay role (owner, admin, member), or null when the relay has none for me.
export function useRelayRole(api) {
  const [role, setRole] = useState(null);
  useEffect(() => { firstRender.then(() => api.get('/api/relay/members/me')).then((m) => setRole(m.role), () => setRole(null)); }, [api]);
  return role;
}

// The figures an operator looks at first, by their Prometheus names.
const FIGURES = [
  ['buzz_ws_connections_active', 'connections open'],
  ['buzz_subscriptions_active', 'live subscriptions'],
  ['buzz_events_stored_total', 'events stored'],
  ['buzz_events_rejected_total', 'events refused'],
  ['buzz_rate_limited_total', 'rate-limited'],
  ['buzz_store_writer_queue', 'store writer queue'],
  ['buzz_search_lag_ms', 'search lag (ms)'],
  ['buzz_audit_queue_depth', 'audit queue'],
];

// A metric's value summed over its labels, from the Prometheus text.
function figure(text, name) {
  let sum = null;
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(?:\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line);
    if (m && m[1] === name) sum = (sum ?? 0) + Number(m[2]);
  }
  return sum;
}

function Health() {
  const [state, setState] = useState(null);
  const read = async () => {
    const [ready, metrics] = await Promise.all([
      fetch('/_readiness').then((r) => r.json()).catch(() => ({ status: 'unreachable' })),
      fetch('/metrics').then((r) => r.text()).catch(() => ''),
    ]);
    setState({ ready, metrics, at: new Date() });
  };
  useEffect(() => { read(); const t = setInterval(read, 10000); return () => clearInterval(t); }, []);
  if (!state) return <p class="note">Reading…</p>;
  return (
    <>
      <p id="relay-health" class={'health ' + state.ready.status}>Relay: <strong>{state.ready.status}</strong>
        {state.ready.storage && ` · storage ${state.ready.storage}`} · read at {state.at.toLocaleTimeString()}</p>
      <dl class="figures" id="relay-figures">{FIGURES.map(([name, label]) => {
        const v = figure(state.metrics, name);
        return v === null ? null : <div key={name}><dt>{label}</dt><dd>{v.toLocaleString()}</dd></div>;
      })}</dl>
    </>
  );
}

// The scopes a person may give a token of their own (the relay refuses the admin ones).
const SCOPES = ['messages:read', 'messages:write', 'channels:read', 'channels:write', 'users:read', 'users:write', 'files:read', 'files:write'];
const DAY = (t) => (t ? new Date(t).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' }) : '');

function tokenState(t) {
  if (t.revoked_at) return `revoked ${DAY(t.revoked_at)}`;
  if (t.expires_at && new Date(t.expires_at) < new Date()) return `expired ${DAY(t.expires_at)}`;
  return t.expires_at ? `expires ${DAY(t.expires_at)}` : 'never expires';
}

function Tokens({ api }) {
  const [tokens, setTokens] = useState(null);
  const [minted, setMinted] = useState(null);  // {name, token}: shown once
  const [said, setSaid] = useState('');
  const load = () => api.get('/api/tokens').then((r) => setTokens(r.tokens), (e) => setSaid(`Refused: ${e.message}`));
  useEffect(() => { load(); }, []);
  const act = async (what, call) => {
    setSaid('');
    try { await call(); setSaid(what); } catch (e) { setSaid(`Refused: ${e.message}`); }
    load();
  };
  const mint = async (e) => {
    e.preventDefault();
    const f = e.target;
    const scopes = SCOPES.filter((s) => f.elements.namedItem('scope-' + s).checked);
    const body = { name: f.name.value.trim(), scopes, ...(f.days.value ? { expires_in_days: Number(f.days.value) } : {}) };
    setSaid('');
    try {
      const r = await api.post('/api/tokens', body);
      setMinted({ name: r.name, token: r.token });
      f.reset();
    } catch (err) { setSaid(`Refused: ${err.message}`); }
    load();
  };
  const copy = async () => {
    try { await navigator.clipboard.writeText(minted.token); setSaid('Copied.'); } catch { setSaid('The browser did not allow copying: select the token and copy it by hand.'); }
  };
  const active = (tokens || []).filter((t) => !t.revoked_at);
  return (
    <>
      <h2>Your API tokens ({active.length} not revoked)</h2>
      <p class="note">For scripts, agents and other clients acting as you. Each is shown once, when made: the relay keeps only its hash.</p>
      {said && <p id="tokens-said" role="status" class={said.startsWith('Refused') ? 'error' : 'note'}>{said}</p>}
      {minted && <div class="minted" id="token-minted">
        <p>The token “{minted.name}”: copy it now, it is never shown again.</p>
        <input id="token-secret" readOnly value={minted.token} aria-label={'the token ' + minted.name} onFocus={(e) => e.target.select()} />
        <button id="token-copy" onClick={copy}>Copy</button> <button id="token-done" onClick={() => setMinted(null)}>Done</button>
      </div>}
      <ul id="api-tokens">{(tokens || []).map((t) => (
        <li key={t.id} data-token={t.name} class={t.revoked_at ? 'revoked' : undefined}>
          <span class="who"><strong>{t.name}</strong> <small>{t.scopes.join(', ')}{t.channel_ids.length ? ` · ${t.channel_ids.length} channels only` : ''}</small><br />
            <small>made {DAY(t.created_at)} · {t.last_used_at ? `last used ${DAY(t.last_used_at)}` : 'never used'} · {tokenState(t)}</small></span>
          {!t.revoked_at && <button class="revoke-token" aria-label={'revoke the token ' + t.name}
            onClick={() => confirm(`Revoke the token “${t.name}”? Whatever uses it stops at once.`) &&
              act(`The token “${t.name}” is revoked.`, () => api.del('/api/tokens/' + t.id))}>Revoke</button>}
        </li>
      ))}</ul>
      {tokens && !tokens.length && <p class="empty">No tokens yet.</p>}
      <form class="mint-token" id="mint-token" onSubmit={mint}>
        <input name="name" id="token-name" required maxLength={100} placeholder="what it is for" aria-label="token name" />
        <fieldset><legend>Scopes</legend>{SCOPES.map((s) => (
          <label key={s}><input type="checkbox" name={'scope-' + s} defaultChecked={s.endsWith(':read')} /> {s}</label>
        ))}</fieldset>
        <select name="days" id="token-days" aria-label="expires">
          <option value="">never expires</option><option value="7">expires in 7 days</option><option value="30">expires in 30 days</option>
          <option value="90">expires in 90 days</option><option value="365">expires in a year</option>
        </select>
        <button type="submit" id="token-mint">Make a token</button>
      </form>
      {active.length > 0 && <p><button id="tokens-revoke-all" class="danger"
        onClick={() => confirm('Revoke every token of yours? Everything using them stops at once.') &&
          act('Every token of yours is revoked.', () => api.del('/api/tokens'))}>Revoke all my tokens</button></p>}
    </>
  );
}

// The audit log's newest entries (the relay's own hash chain) and a check of it all.
function Audit({ api }) {
  const [entries, setEntries] = useState(null);
  const [check, setCheck] = useState(null);  // null, 'checking', or the relay's report
  const [error, setError] = useState('');
  const load = () => api.get('/api/audit?limit=25').then((r) => { setEntries(r.entries); setError(''); }, (e) => setError(e.message));
  useEffect(() => { load(); }, []);
  const verify = async () => {
    setCheck('checking');
    try { setCheck(await api.get('/api/audit/verify')); } catch (e) { setCheck(null); setError(e.message); }
    load();
  };
  const people = usePeople();
  useEffect(() => { if (entries) people.want(entries.map((e) => e.actor)); }, [entries]);
  return (
    <>
      <h2>Audit log</h2>
      <p class="note">Every change the relay made, each entry chained to the one before by its hash, so a change to any of them shows.</p>
      <p><button id="audit-verify" disabled={check === 'checking'} onClick={verify}>Verify the whole chain</button>{' '}
        <button id="audit-reload" onClick={load}>Reload</button></p>
      {check && check !== 'checking' && (check.ok
        ? <p id="audit-result" role="status" class="health ok">The chain is whole: {check.entries.toLocaleString()} entries verified, up to #{check.last_seq}.</p>
        : <p id="audit-result" role="alert" class="error">The chain is broken at entry #{check.seq}{check.segment && ` (${check.segment}, offset ${check.offset})`}: {check.error}</p>)}
      {check === 'checking' && <p id="audit-result" role="status" class="note">Verifying…</p>}
      {error && <p class="error" role="alert">{error}</p>}
      {entries && !entries.length && <p class="empty">No entries yet.</p>}
      {entries && entries.length > 0 && <div class="audit-scroll" tabIndex={0} role="region" aria-label="the audit log's newest entries"><table id="audit-tail">
        <caption>The newest {entries.length} entries, newest first</caption>
        <thead><tr><th scope="col">#</th><th scope="col">when</th><th scope="col">who</th><th scope="col">what</th><th scope="col">kind</th><th scope="col">hash</th></tr></thead>
        <tbody>{entries.map((e) => (
          <tr key={e.seq} data-seq={e.seq}>
            <td>{e.seq}</td><td><time dateTime={e.ts}>{new Date(e.ts).toLocaleString()}</time></td>
            <td>{/^[0-9a-f]{64}$/.test(e.actor) ? people.name(e.actor) : e.actor}</td><td>{e.action.replaceAll('_', ' ')}</td>
            <td>{e.kind}</td><td><code title={e.hash}>{e.hash.slice(0, 12)}…</code></td>
          </tr>
        ))}</tbody>
      </table></div>}
    </>
  );
}

export function OperatorPage({ api, me, role, onError }) {
  const people = usePeople();
  const [members, setMembers] = useState(null);
  const [said, setSaid] = useState('');
  const load = () => api.rpc('listallowedpubkeys').then((list) => { people.want(list.map((m) => m.pubkey)); setMembers(list); }, (e) => onError(e.message));
  useEffect(() => { load(); }, []);
  // Each change is the relay's to allow: its refusal is said here, in its words.
  const change = async (what, method, params) => {
    setSaid('');
    try {
      await api.rpc(method, params);
      setSaid(what);
    } catch (e) {
      setSaid(`Refused: ${e.message}`);
    }
    load();
  };
  const add = async (e) => {
    e.preventDefault();
    const f = e.target;
    const who = f.who.value.trim();
    try {
      const pk = await findPerson(api, who);
      // Named as typed when a name was typed (the profile may not be read yet).
      const name = /^(npub1|[0-9a-f]{64}$)/.test(who) ? people.name(pk) : who;
      const as = owner ? f.role.value : 'member';
      await change(`${name} is a relay ${as} now.`, 'allowpubkey', [pk, '', as]);
      f.reset();
    } catch (err) { setSaid(`Refused: ${err.message}`); }
  };
  // Owners are named by the configuration (--owner), never granted here.
  const roles = ['member', 'admin'];
  const owner = role === 'owner';
  return (
    <section class="panel operator" id="operator" aria-labelledby="operator-title">
      <h1 id="operator-title">Relay</h1>
      <p class="note" id="operator-role">You are this relay's {role}. {!owner && 'Admins add and remove members; only the owner gives or changes roles.'}</p>
      {said && <p id="operator-said" role="status" class={said.startsWith('Refused') ? 'error' : 'note'}>{said}</p>}
      <h2>Health</h2>
      <Health />
      <h2>Members ({members?.length ?? '…'})</h2>
      <ul id="relay-members">{(members || []).map((m) => (
        <li key={m.pubkey} data-relay-member={m.pubkey}>
          <span class="who">{people.name(m.pubkey)}{m.pubkey === me && ' (you)'}</span>
          {!owner || m.role === 'owner' || m.pubkey === me ? <small class="role">{m.role}</small> : (
            <select class="relay-role" aria-label={'relay role of ' + people.name(m.pubkey)} value={m.role}
              onChange={(e) => change(`${people.name(m.pubkey)} is a relay ${e.target.value} now.`, 'allowpubkey', [m.pubkey, '', e.target.value])}>
              {roles.map((r) => <option value={r}>{r}</option>)}
            </select>
          )}
          {m.role !== 'owner' && m.pubkey !== me && <button class="remove-relay-member" aria-label={'remove ' + people.name(m.pubkey) + ' from the relay'}
            onClick={() => confirm(`Remove ${people.name(m.pubkey)} from the relay?`) &&
              change(`${people.name(m.pubkey)} is no longer a member.`, 'disallowpubkey', [m.pubkey, ''])}>Remove</button>}
        </li>
      ))}</ul>
      <form class="add-relay-member" onSubmit={add}>
        <input name="who" id="relay-add" placeholder="name, npub or hex" aria-label="add a relay member" />
        {owner && <select name="role" id="relay-add-role" aria-label="relay role of the new member">{roles.map((r) => <option value={r}>{r}</option>)}</select>}
        <button type="submit" id="relay-add-button">Add</button>
      </form>
      <Tokens api={api} />
      <Audit api={api} />
    </section>
  );
}
