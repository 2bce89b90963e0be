// The signed-in screen: channel list (with unread counts and DMs) on the
// left, the open channel, search results or feed in the middle.
import { useEffect, useMemo, useState, useCallback } from 'preact/hooks';
import { Relay } from './relay.js';
import { makeApi } from './api.js';
import { signOut, pubkeyFrom, npub } from './signer.js';
import { ChannelView } from './channel.jsx';
import { SearchView, FeedView } from './panels.jsx';
import { shortKey } from './model.js';

const lastReadKey = (id) => 'buzz.read.' + id;
const now = () => Math.floor(Date.now() / 1000);

export function Workspace({ signer, onSignOut }) {
  const relay = useMemo(() => new Relay(location.origin.replace(/^http/, 'ws'), signer, (s) => setStatus(s)), [signer]);
  const api = useMemo(() => makeApi(signer), [signer]);
  const [status, setStatus] = useState('connecting');
  const [channels, setChannels] = useState([]);
  const [unread, setUnread] = useState({});
  const [view, setView] = useState({ type: 'none' });
  const [error, setError] = useState('');
  const [menu, setMenu] = useState(false);

  const refresh = useCallback(() => api.get('/api/channels').then(setChannels, (e) => setError(e.message)), [api]);
  useEffect(() => { refresh(); const t = setInterval(refresh, 5000); return () => clearInterval(t); }, [refresh]);

  // Presence: online while the page is open (the relay keeps it 90 s).
  useEffect(() => {
    const beat = () => api.put('/api/presence', { status: 'online' }).catch(() => {});
    beat();
    const t = setInterval(beat, 60000);
    return () => clearInterval(t);
  }, [api]);

  // "/" jumps to search from anywhere but a text field.
  useEffect(() => {
    const key = (e) => {
      if (e.key === '/' && !/INPUT|TEXTAREA|SELECT/.test(document.activeElement?.tagName)) {
        e.preventDefault();
        document.getElementById('search').focus();
      }
    };
    addEventListener('keydown', key);
    return () => removeEventListener('keydown', key);
  }, []);

  const openId = view.type === 'channel' ? view.id : null;
  // Unread: a COUNT of messages since the channel was last read, then live.
  const ids = channels.map((c) => c.id).join(',');
  useEffect(() => {
    if (!channels.length) return;
    for (const c of channels) {
      if (c.id === openId || unread[c.id] !== undefined) continue;
      const since = Number(localStorage.getItem(lastReadKey(c.id)) || 0) + 1;
      relay.count({ kinds: [9], '#h': [c.id], since }).then((n) => setUnread((u) => ({ ...u, [c.id]: n })));
    }
    return relay.subscribe([{ kinds: [9], '#h': channels.map((c) => c.id), since: now() }], (ev) => {
      const h = ev.tags.find((t) => t[0] === 'h')?.[1];
      if (h && h !== openId && ev.pubkey !== signer.pubkey) setUnread((u) => ({ ...u, [h]: (u[h] || 0) + 1 }));
    });
  }, [ids, openId]);

  const open = (id) => {
    localStorage.setItem(lastReadKey(id), String(now()));
    setUnread((u) => ({ ...u, [id]: 0 }));
    setView({ type: 'channel', id });
    setMenu(false);
  };

  const createChannel = async (e) => {
    e.preventDefault();
    const form = e.target;
    const name = form.name.value.trim();
    if (!name) return;
    const id = crypto.randomUUID();
    const r = await relay.publish({ kind: 9007, tags: [['h', id], ['name', name], ['visibility', form.visibility.value]] });
    if (!r.ok) return setError(r.message);
    form.reset();
    await refresh();
    open(id);
  };

  const openDm = async (e) => {
    e.preventDefault();
    try {
      const r = await api.post('/api/dms', { pubkeys: [pubkeyFrom(e.target.who.value)] });
      e.target.reset();
      await refresh();
      open(r.channel_id);
    } catch (err) { setError(err.message); }
  };

  const search = (e) => {
    e.preventDefault();
    setView({ type: 'search', q: e.target.q.value });
    setMenu(false);
  };

  const streams = channels.filter((c) => c.channel_type !== 'dm');
  const dms = channels.filter((c) => c.channel_type === 'dm');
  const current = channels.find((c) => c.id === openId);
  const entry = (c, label) => (
    <li key={c.id}>
      <button class={c.id === openId ? 'chan active' : 'chan'} data-channel={c.name} onClick={() => open(c.id)}>
        <span>{label}</span>
        {unread[c.id] > 0 && <span class="unread" aria-label="unread">{unread[c.id]}</span>}
      </button>
    </li>
  );

  return (
    <div class={menu ? 'app menu-open' : 'app'}>
      <nav class="sidebar" aria-label="channels">
        <header>
          <strong>Buzz</strong>
          <span class={'status ' + status} title={status}>{status}</span>
        </header>
        <form class="search" onSubmit={search} role="search">
          <input name="q" id="search" placeholder="Search (/)" aria-label="search" />
        </form>
        <button class="chan" id="open-feed" onClick={() => { setView({ type: 'feed', at: Date.now() }); setMenu(false); }}>Feed</button>
        <h2>Channels</h2>
        <ul id="channel-list">{streams.map((c) => entry(c, (c.visibility === 'private' ? '🔒 ' : '# ') + c.name))}</ul>
        <form class="create" onSubmit={createChannel}>
          <input name="name" id="new-channel" placeholder="new channel" aria-label="new channel name" />
          <select name="visibility" id="new-visibility" aria-label="visibility">
            <option value="open">open</option>
            <option value="private">private</option>
          </select>
          <button type="submit" id="create-channel">Create</button>
        </form>
        <h2>Direct messages</h2>
        <ul id="dm-list">{dms.map((c) => entry(c, (c.participants || []).join(', ') || 'DM'))}</ul>
        <form class="create" onSubmit={openDm}>
          <input name="who" id="new-dm" placeholder="npub or hex" aria-label="open a DM with" />
          <button type="submit">DM</button>
        </form>
        <footer>
          <span class="me" title={npub(signer.pubkey)}>you: {shortKey(signer.pubkey)}</span>
          <button onClick={() => { signOut(); onSignOut(); }}>Sign out</button>
        </footer>
      </nav>
      <main class="main">
        <button class="menu-toggle" aria-label="channels" onClick={() => setMenu(!menu)}>☰</button>
        {error && <p class="error" role="alert" onClick={() => setError('')}>{error}</p>}
        {view.type === 'channel' && current && (
          <ChannelView key={current.id} channel={current} relay={relay} api={api} me={signer.pubkey} onError={setError} onChanged={refresh} />
        )}
        {view.type === 'channel' && !current && <p class="empty">Loading…</p>}
        {view.type === 'search' && <SearchView key={view.q} q={view.q} api={api} onOpen={open} />}
        {view.type === 'feed' && <FeedView key={view.at} api={api} relay={relay} onOpen={open} />}
        {view.type === 'none' && <p class="empty">Pick a channel, or create one.</p>}
      </main>
    </div>
  );
}
