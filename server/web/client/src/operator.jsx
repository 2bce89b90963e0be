// The operator page, for the relay's owner and admins: the relay's members
// and their roles, changed through NIP-86 (docs/reference/nip86.md), which runs
// each change as the NIP-43 command it stands for, under the same rules: only
// the owner grants or changes roles, so an admin sees them as text and adds
// members only; anything else the relay refuses is said in its words. And the
// relay's health and main metrics (/_readiness, /metrics).
import { useEffect, useState } from 'preact/hooks';
import { usePeople, findPerson } from './people.js';

// My relay role (owner, admin, member), or null when the relay has none for me.
export function useRelayRole(api) {
  const [role, setRole] = useState(null);
  useEffect(() => { api.get('/api/relay/members/me').then((m) => setRole(m.role), () => setRole(null)); }, [api]);
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
    </section>
  );
}
