// The signed-in screen: channel list (with unread counts and DMs) on the
// left, the open channel, search results or feed in the middle.
import { useEffect, useLayoutEffect, useMemo, useRef, useState, useCallback } from 'preact/hooks';
import { makeApi } from './api.js';
import { signOut, npub } from './signer.js';
import { ChannelView } from './channel.jsx';
import { SearchView, FeedView, pending } from './panels.jsx';
import { ChannelBrowser } from './browse.jsx';
import { watchTeamEmoji } from './emoji.jsx';
import { OperatorPage, useRelayRole } from './operator.jsx';
import { People, PeopleContext, usePeople, findPerson } from './people.js';
import { Outbox } from './outbox.js';
import { HuddleBar } from './huddle.jsx';
import { KeyBackup, backedUp } from './backup.jsx';
import { Avatar } from './avatar.jsx';
import { Profile } from './profile.jsx';
import { useFlags, toggleFlag, notify, showUnread } from './notify.jsx';
import { readUntil as lastRead, setRead, syncMarkers, flushMarkers } from './read_markers.js';
import { firstRender, rendered } from './startup.js';

const FEED_SEEN = 'buzz.feed.seen';
const OPEN = 'buzz.open';  // the channel open at the last visit, opened again on reload
// Read until now, or until the newest message seen there if later: a burst is
// dated up to a few seconds ahead (channel.jsx), and must not count as unread.
const newest = new Map();  // channel id -> created_at of the newest message seen in it
const markRead = (id) => setRead(id, Math.max(now(), newest.get(id) ?? 0));
const now = () => Math.floor(Date.now() / 1000);
const OPENED = Math.floor(Date.now() / 1000);  // when this page opened: what is said after it may be notified
const notified = new Set();  // ids of the messages notified
const UNREAD_WINDOW = 500;  // newest messages read for the unread counts at start (the relay's most per filter)

// The relay comes signed in (or signing in, for a key kept from the last visit).
// When the channel list first arrived, from the page's navigation (beside
// the workspace's first render, docs/performance.md).
const marks = {};

export function Workspace({ signer, relay, onSignOut, newName }) {
  const api = useMemo(() => makeApi(signer), [signer]);
  const people = useMemo(() => new People(relay, api), [relay]);
  const outbox = useMemo(() => new Outbox(relay, signer.pubkey), [relay]);
  const [status, setStatus] = useState(relay.status);
  useLayoutEffect(() => { relay.onStatus = setStatus; setStatus(relay.status); }, [relay]);
  return (
    <PeopleContext.Provider value={people}>
      <Screen signer={signer} onSignOut={onSignOut} newName={newName} relay={relay} api={api} status={status} outbox={outbox} />
    </PeopleContext.Provider>
  );
}

// What the connection is doing, in words: nothing while it is fine; lost
// (the browser offline, or the relay away) while the page reconnects; "back"
// for a moment once it is.
function ConnectionBanner({ status }) {
  const [online, setOnline] = useState(navigator.onLine);
  const [back, setBack] = useState(false);
  const lost = useRef(false);
  useEffect(() => {
    const on = () => setOnline(true);
    const off = () => setOnline(false);
    addEventListener('online', on);
    addEventListener('offline', off);
    return () => { removeEventListener('online', on); removeEventListener('offline', off); };
  }, []);
  useEffect(() => {
    if (status === 'offline') lost.current = true;
    if (status !== 'online' || !lost.current) return;
    lost.current = false;
    setBack(true);
    const t = setTimeout(() => setBack(false), 4000);
    return () => clearTimeout(t);
  }, [status]);
  if (!online) return <p class="connection offline" id="connection" role="status">You are offline. Messages you send wait here and go when the network is back.</p>;
  if (status === 'offline') return <p class="connection offline" id="connection" role="status">Connection to the relay lost. Reconnecting…</p>;
  if (back && status === 'online') return <p class="connection back" id="connection" role="status">Back online.</p>;
  return null;
}

// Where the keyboard's focus goes after a channel opens or a pane closes.
const focusComposer = () => setTimeout(() => document.getElementById('message-input')?.focus(), 0);

// What a failed request says when the network or the relay is away: shown
// while it lasts, gone once the relay answers again.
const NETWORK = /failed to fetch|networkerror|network error|load failed/i;
const offlineOnly = (e) => (NETWORK.test(e) ? '' : e);

// A huddle's own channel (docs/reference/huddle.md §2) is reached from its parent's header,
// never from the list; one that ended would stay there for its hour.
const huddleRoom = (c) => c.ttl_seconds && /^huddle-/.test(c.name);

function Screen({ signer, onSignOut, newName, relay, api, status, outbox }) {
  const people = usePeople();
  const [channels, setChannels] = useState([]);
  const [unread, setUnread] = useState({});
  const [view, setView] = useState({ type: 'none' });
  const [error, setError] = useState('');
  const [menu, setMenu] = useState(false);
  const relayRole = useRelayRole(api);
  const myNpub = useMemo(() => npub(signer.pubkey), [signer]);  // bech32, not again at every render
  const operator = relayRole === 'owner' || relayRole === 'admin';

  const refresh = useCallback(() => api.get('/api/channels').then((all) => {
    marks.list ??= performance.now();
    if (!all.some((c) => c.is_member)) rendered();  // no unread counts to wait for
    // The same list as before keeps its objects: the open channel is not drawn again.
    const next = all.filter((c) => !huddleRoom(c));
    setChannels((prev) => (JSON.stringify(prev) === JSON.stringify(next) ? prev : next));
    setError(offlineOnly);
  }, (e) => setError(e.message)), [api]);
  useEffect(() => { if (status === 'online') setError(offlineOnly); }, [status]);
  // The huddle I am in, kept while I read other channels: {channel, active, at}.
  const [call, setCall] = useState(null);
  const [taken, setTaken] = useState(null);  // a channel already called the name asked for
  // The list follows the relay's channel metadata: a 39000, emitted again after
  // every change to a channel, comes live for each channel I may read, in one
  // subscription from the page's opening (docs/reference/protocol.md §9.5); a
  // burst of them is one read. A channel whose metadata is gone for me (deleted,
  // or turned private while I am not in it, or I was removed from a private
  // one) comes in the same subscription as the relay's kind 5 deleting its
  // 39000 (docs/reference/kinds.md §4.13), never stored and sent to none who could
  // not read it: it leaves the list at once, a hidden page's too. What went by
  // while the socket was down is caught up on reconnecting, and when the page
  // is shown again. No poll: each read is a NIP-98 signature, which an
  // extension may prompt for, so a hidden page reads nothing. A layout effect:
  // the first read goes as the workspace is drawn, not a frame later.
  const soon = useRef(0);
  const refreshSoon = useCallback(() => {
    if (document.hidden) return;
    clearTimeout(soon.current);
    soon.current = setTimeout(refresh, 100);
  }, [refresh]);
  const [gone, setGone] = useState(null);  // the open channel, gone for me: {id, name, deleted}
  const channelsNow = useRef(channels);
  channelsNow.current = channels;
  // Reads only refs and stable values: the subscription below keeps the first render's.
  const drop = (ev) => {
    if (ev.pubkey !== people.relayKey) return;  // only the relay speaks for its group state
    const prefix = `39000:${ev.pubkey}:`;
    const ids = ev.tags.filter((t) => t[0] === 'a' && t[1]?.startsWith(prefix)).map((t) => t[1].slice(prefix.length));
    const open = channelsNow.current.find((c) => c.id === openNow.current && ids.includes(c.id));
    if (open) setGone({ id: open.id, name: open.name, deleted: /deleted/.test(ev.content) });
    setChannels((prev) => prev.filter((c) => !ids.includes(c.id)));
  };
  useLayoutEffect(() => {
    refresh();
    let ended = false;
    let stop = () => {};
    const follow = [{ kinds: [39000], since: OPENED }, { kinds: [5], '#k': ['39000'], since: OPENED }];
    firstRender.then(() => {
      if (!ended) stop = relay.subscribe(follow, (ev) => { if (ev.kind === 5) drop(ev); refreshSoon(); });
    });
    document.addEventListener('visibilitychange', refreshSoon);
    return () => { ended = true; stop(); clearTimeout(soon.current); document.removeEventListener('visibilitychange', refreshSoon); };
  }, [refresh]);
  const wasOffline = useRef(false);
  useEffect(() => {
    if (status === 'offline') wasOffline.current = true;
    else if (status === 'online' && wasOffline.current) { wasOffline.current = false; refreshSoon(); }
  }, [status]);

  useEffect(() => watchTeamEmoji(relay), [relay]);
  // My membership changing (added, removed) refreshes the list at once.
  useEffect(() => relay.subscribe([{ kinds: [44100, 44101], '#p': [signer.pubkey], limit: 0 }], () => refresh()), [relay]);

  // A name chosen at sign-in becomes my kind 0 profile.
  useEffect(() => { if (newName) people.saveProfile(signer.pubkey, { name: newName, display_name: newName }).catch((e) => setError(e.message)); }, []);
  useEffect(() => { people.want([signer.pubkey]); }, [people]);

  // Presence (kind 20001, kept 90 s by the relay): online while the page is
  // open and shown, away while it is hidden.
  useEffect(() => {
    const beat = () => {
      const s = document.hidden ? 'away' : 'online';
      people.setMine(signer.pubkey, s);
      relay.publish({ kind: 20001, content: s, tags: [] });
    };
    firstRender.then(beat);
    const t = setInterval(beat, 60000);
    document.addEventListener('visibilitychange', beat);
    return () => { clearInterval(t); document.removeEventListener('visibilitychange', beat); };
  }, [relay]);

  const openId = view.type === 'channel' ? view.id : null;
  const muted = useFlags('muted');
  const starred = useFlags('starred');
  // The sidebar lists (and the unread counts follow) the channels I am in and
  // those I starred, as Slack's does; the others I may read are found in the
  // channel browser. One opened from there (or a search hit) without joining
  // is listed while it is open.
  const follows = (c) => c.is_member || starred.has(c.id);
  const followed = channels.filter(follows);
  const listed = channels.filter((c) => follows(c) || c.id === openId);
  const mutedNow = useRef(muted);
  mutedNow.current = muted;
  // The tab's title and icon count what is unread outside muted channels.
  useEffect(() => { showUnread(Object.entries(unread).reduce((n, [id, k]) => n + (muted.has(id) ? 0 : k), 0)); }, [unread, muted]);
  // The channel open at the last visit opens again (once the list is known);
  // one left for the feed, search or settings does not. Written as the view is
  // drawn, not after the paint: a reload right after a switch must not reopen
  // the channel left (whose messages would then be read as they came).
  useLayoutEffect(() => {
    if (view.type === 'channel') localStorage.setItem(OPEN, view.id);
    else if (view.type !== 'none') localStorage.removeItem(OPEN);
  }, [view]);
  const reopened = useRef(false);
  useEffect(() => {
    if (reopened.current || !channels.length) return;
    reopened.current = true;
    const id = localStorage.getItem(OPEN);
    if (id && view.type === 'none' && channels.some((c) => c.id === id)) open(id);
  }, [channels]);
  const openNow = useRef(openId);
  openNow.current = openId;
  const feedOpen = useRef(false);
  feedOpen.current = view.type === 'feed';

  // What waits in the feed, on its button: mentions of me since I last looked
  // there, and approvals asked of me not yet answered. Read once, then live
  // through the channels' subscriptions below.
  const [waiting, setWaiting] = useState({ mentions: 0, approvals: 0 });
  const countFeed = useCallback(async () => {
    const { feed } = await api.get('/api/feed?types=mentions,needs_action');
    const seen = Number(localStorage.getItem(FEED_SEEN) || 0);
    const approvals = (await pending(relay, feed.needs_action.filter((i) => i.kind === 46010))).length;
    setWaiting({ mentions: feed.mentions.filter((i) => i.created_at > seen && i.pubkey !== signer.pubkey).length, approvals });
  }, [api]);
  useEffect(() => { firstRender.then(countFeed).catch(() => {}); }, [countFeed]);
  const openFeed = () => {
    localStorage.setItem(FEED_SEEN, String(now()));
    setWaiting((w) => ({ ...w, mentions: 0 }));
    setView({ type: 'feed', at: Date.now() });
    setMenu(false);
  };
  // Unread counts and live channel events in one subscription, whatever the
  // number of channels: the messages since the oldest last read (the newest
  // UNREAD_WINDOW of them), counted per channel against its own last read,
  // then live (the relay gives a REQ naming several channels the live events
  // of those the reader may read). Re-sent when the list changes.
  const ids = followed.map((c) => c.id).join(',');
  const unreadIds = useRef(new Map());  // channel id -> Map of its unread messages' ids to their created_at
  const counted = useRef(new Set());    // live events already counted for the feed
  const [more, setMore] = useState(new Set());  // channels with more unread than were read
  // A layout effect: the REQ goes out as the list is drawn, not a frame later.
  useLayoutEffect(() => {
    if (!followed.length) return;
    const listed = followed.map((c) => c.id);
    // The counts at once, from this browser's last reads; my read markers beside
    // them (read on another device counts here too) take back what they cover.
    let ended = false;
    const stop = count(listed);
    syncMarkers(relay, signer.pubkey, listed).catch(() => []).then((moved) => {
      if (ended || !moved.length) return;
      for (const { id, until } of moved) {
        const unreadHere = unreadIds.current.get(id);
        for (const [eid, at] of unreadHere ?? []) if (at <= until) unreadHere.delete(eid);
      }
      setUnread((u) => ({ ...u, ...Object.fromEntries(moved.map(({ id }) => [id, unreadIds.current.get(id)?.size ?? 0])) }));
      setMore((m) => new Set([...m].filter((id) => !moved.some((x) => x.id === id))));
    });
    return () => { ended = true; stop(); };
  }, [ids]);
  const count = (listed) => {
    // From the second of the oldest last read, that second included: a message
    // said while the subscription is sent again (a channel joined, another
    // left) is then among the stored ones rather than lost between the two.
    const since = Math.min(...listed.map(lastRead));
    let live = false;
    let oldest = Infinity;
    let stored = 0;
    const show = () => setUnread(Object.fromEntries(listed.map((id) => [id, unreadIds.current.get(id)?.size ?? 0])));
    const stop = relay.subscribe([
      { kinds: [9], '#h': listed, since, limit: UNREAD_WINDOW },
      { kinds: [46010], '#h': listed, '#p': [signer.pubkey], limit: 0 },
      { kinds: [46011, 46012], '#h': listed, '#p': [signer.pubkey], limit: 0 },
    ], (ev) => {
      const id = ev.tags.find((t) => t[0] === 'h' && listed.includes(t[1]))?.[1];
      if (!id) return;
      // An approval I answered, here or elsewhere (its DM's buttons, another device).
      if (ev.kind !== 46010 && ev.kind !== 9) { countFeed().catch(() => {}); return; }
      if (ev.kind === 46010) {
        if (live && !counted.current.has(ev.id)) { counted.current.add(ev.id); setWaiting((w) => ({ ...w, approvals: w.approvals + 1 })); }
        return;
      }
      if (!live) { stored++; oldest = Math.min(oldest, ev.created_at); }
      newest.set(id, Math.max(newest.get(id) ?? 0, ev.created_at));
      if (ev.pubkey === signer.pubkey) return;
      if (live && id === openNow.current && !document.hidden) markRead(id);  // read as it comes
      if (id !== openNow.current && ev.created_at > lastRead(id)) {
        if (!unreadIds.current.has(id)) unreadIds.current.set(id, new Map());
        unreadIds.current.get(id).set(ev.id, ev.created_at);
      }
      // A mention or a DM said since this page opened is notified once,
      // also when it comes with a list's history (the list just changed).
      const mentionsMe = ev.tags.some((t) => t[0] === 'p' && t[1] === signer.pubkey);
      const channel = channels.find((c) => c.id === id);
      if ((mentionsMe || channel?.channel_type === 'dm') && ev.created_at >= OPENED && !notified.has(ev.id) &&
          !mutedNow.current.has(id) && (id !== openNow.current || document.hidden)) {
        notified.add(ev.id);
        notify(channel?.channel_type === 'dm' ? people.name(ev.pubkey) : `${people.name(ev.pubkey)} in #${channel?.name ?? ''}`,
          ev.content, ev.id, () => open(id));
      }
      if (!live) return;
      show();
      if (mentionsMe && !feedOpen.current && !counted.current.has(ev.id)) {
        counted.current.add(ev.id);
        setWaiting((w) => ({ ...w, mentions: w.mentions + 1 }));
      }
    }, () => {
      live = true;
      // More than the window: a channel read before its oldest shows "n+".
      setMore(stored >= UNREAD_WINDOW ? new Set(listed.filter((id) => lastRead(id) < oldest)) : new Set());
      show();
      // The workspace's first render (its channels and unread counts drawn),
      // from the page's navigation: recorded for docs/performance.md.
      // What waits for it starts in a task of its own, after that frame is painted.
      if (!window.__buzzWorkspace) requestAnimationFrame(() => {
        window.__buzzWorkspace = { ms: performance.now(), channels: listed.length, auth: relay.readyAt, ...marks };
        setTimeout(rendered);
      });
    });
    return stop;
  };

  // The open channel is read until the reader leaves it (another view, or the
  // page goes away): what was said there meanwhile, my own messages too, is
  // not counted as unread next time.
  useEffect(() => {
    if (!openId) return;
    const leave = () => markRead(openId);
    const away = () => { leave(); flushMarkers(); };
    addEventListener('pagehide', away);
    return () => { removeEventListener('pagehide', away); leave(); };
  }, [openId]);

  const open = (id) => {
    if (id === openId) { setMenu(false); return focusComposer(); }
    const readUntil = lastRead(id);  // for the "new" line
    markRead(id);
    unreadIds.current.delete(id);
    setUnread((u) => ({ ...u, [id]: 0 }));
    setView({ type: 'channel', id, readUntil });
    setMenu(false);
    focusComposer();
  };

  // Keyboard: "/" search, Alt+↑/↓ the previous/next channel, Alt+1…9 the
  // channel at that place, Esc closes the channel menu on a phone.
  // A layout effect: the handler must name the channel on screen. A plain
  // effect runs after paint, so a key pressed in between stepped from the
  // channel before.
  const order = listed.filter((c) => c.channel_type !== 'dm').concat(listed.filter((c) => c.channel_type === 'dm'));
  useLayoutEffect(() => {
    const key = (e) => {
      const typing = /INPUT|TEXTAREA|SELECT/.test(document.activeElement?.tagName);
      if (e.key === '/' && !typing) {
        e.preventDefault();
        document.getElementById('search').focus();
      } else if (e.altKey && (e.key === 'ArrowDown' || e.key === 'ArrowUp') && order.length) {
        e.preventDefault();
        const at = order.findIndex((c) => c.id === openId);
        const step = e.key === 'ArrowDown' ? 1 : -1;
        open(order[(at + step + order.length) % order.length].id);
      } else if (e.altKey && /^[1-9]$/.test(e.key) && order[Number(e.key) - 1]) {
        e.preventDefault();
        open(order[Number(e.key) - 1].id);
      } else if (e.key === 'Escape' && menu) {
        setMenu(false);
      }
    };
    addEventListener('keydown', key);
    return () => removeEventListener('keydown', key);
  });

  const createChannel = async (e) => {
    e.preventDefault();
    const form = e.target;
    const name = form.name.value.trim();
    if (!name) return;
    // One name, one channel (as far as I can see), whatever the case.
    const same = channels.find((c) => c.channel_type !== 'dm' && c.name.toLowerCase() === name.toLowerCase());
    setTaken(same ?? null);
    if (same) return;
    const id = crypto.randomUUID();
    const r = await relay.publish({ kind: 9007, tags: [['h', id], ['name', name], ['visibility', form.visibility.value]] });
    if (!r.ok) return setError(r.message);
    form.reset();
    await refresh();
    open(id);
  };

  const openDmWith = async (pubkeys) => {
    const r = await api.post('/api/dms', { pubkeys });
    await refresh();
    open(r.channel_id);
  };
  // "npub…, alice": each an npub, a hex key, or a name the relay knows.
  const openDm = async (e) => {
    e.preventDefault();
    try {
      const names = e.target.who.value.split(',').map((w) => w.trim()).filter(Boolean);
      await openDmWith(await Promise.all(names.map((w) => findPerson(api, w))));
      e.target.reset();
    } catch (err) { setError(err.message); }
  };

  const search = (e) => {
    e.preventDefault();
    // A new search each time, the same words too: what was not indexed a moment ago may be now.
    setView({ type: 'search', q: e.target.q.value, at: Date.now() });
    setMenu(false);
  };

  const streams = listed.filter((c) => c.channel_type !== 'dm');
  const dms = listed.filter((c) => c.channel_type === 'dm');
  const current = channels.find((c) => c.id === openId);
  const others = (c) => (c.participant_pubkeys || []).filter((pk) => pk !== signer.pubkey);
  useEffect(() => { people.want(dms.flatMap(others)); }, [ids]);
  const dmLabel = (c) => {
    const pks = others(c);
    if (!pks.length) return (c.participants || []).join(', ') || 'DM';
    return (
      <span>
        {pks.length === 1 && pks[0] !== people.relayKey && <span class={'dot ' + people.presence(pks[0])} title={people.presence(pks[0])} />}
        {pks.map((pk) => people.name(pk)).join(', ')}
      </span>
    );
  };
  const editName = async () => {
    const name = prompt('Your name', people.name(signer.pubkey));
    if (name === null || !name.trim()) return;
    people.saveProfile(signer.pubkey, { name: name.trim(), display_name: name.trim() }).catch((e) => setError(e.message));
  };
  const entry = (c, label) => (
    <li key={c.id}>
      <button class={(c.id === openId ? 'chan active' : 'chan') + (muted.has(c.id) ? ' muted' : '')} data-channel={c.name} data-dm={c.channel_type === 'dm' ? others(c).join(',') : undefined} onClick={() => open(c.id)}
        aria-current={c.id === openId ? 'page' : undefined}>
        <span>{label}{muted.has(c.id) && <span class="muted-mark" aria-label="muted" title="muted"> 🔕</span>}</span>
        {unread[c.id] > 0 && <span class="unread" aria-label={`${unread[c.id]}${more.has(c.id) ? '+' : ''} unread`}>{unread[c.id]}{more.has(c.id) ? '+' : ''}</span>}
      </button>
    </li>
  );
  const streamLabel = (c) => (c.visibility === 'private' ? '🔒 ' : '# ') + c.name;

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
        <button class="chan" id="open-feed" onClick={openFeed}>
          <span>Feed</span>
          {waiting.mentions + waiting.approvals > 0 && <span class="unread" aria-label="waiting in the feed"
            title={`${waiting.mentions} new mentions, ${waiting.approvals} approvals to answer`}>{waiting.mentions + waiting.approvals}</span>}
        </button>
        {listed.some((c) => starred.has(c.id)) && <>
          <h2>Starred</h2>
          <ul id="starred-list">{listed.filter((c) => starred.has(c.id)).map((c) => entry(c, c.channel_type === 'dm' ? dmLabel(c) : streamLabel(c)))}</ul>
        </>}
        <h2>Channels</h2>
        <button class="chan" id="browse-channels" aria-current={view.type === 'browse' ? 'page' : undefined}
          onClick={() => { setView({ type: 'browse' }); setMenu(false); }}><span>Browse channels</span></button>
        <ul id="channel-list">{streams.filter((c) => !starred.has(c.id)).map((c) => entry(c, streamLabel(c)))}</ul>
        <form class="create" onSubmit={createChannel}>
          <input name="name" id="new-channel" placeholder="new channel" aria-label="new channel name" />
          <select name="visibility" id="new-visibility" aria-label="visibility">
            <option value="open">open</option>
            <option value="private">private</option>
          </select>
          <button type="submit" id="create-channel">Create</button>
        </form>
        <h2>Direct messages</h2>
        <ul id="dm-list">{dms.filter((c) => !starred.has(c.id)).map((c) => entry(c, dmLabel(c)))}</ul>
        <form class="create" onSubmit={openDm}>
          <input name="who" id="new-dm" placeholder="name, npub or hex" aria-label="open a DM with" />
          <button type="submit">DM</button>
        </form>
        <footer>
          <button class="me" id="my-name" title={'Change your name · ' + myNpub} onClick={editName}>
            <Avatar pubkey={signer.pubkey} people={people} size={22} /><span class={'dot ' + people.presence(signer.pubkey)} />{people.name(signer.pubkey)}
          </button>
          <button id="open-profile" title="Your picture, appearance, notifications" onClick={() => { setView({ type: 'profile' }); setMenu(false); }}>Settings</button>
          {operator && <button id="open-operator" title="The relay's members, roles and health" onClick={() => { setView({ type: 'operator' }); setMenu(false); }}>Relay</button>}
          {signer.nsec && <button id="backup-key" title="Show, copy or download your secret key" onClick={() => setView({ type: 'backup' })}>Key</button>}
          <button id="sign-out" onClick={async () => {
            if (signer.nsec && !backedUp(signer.pubkey) &&
                !confirm('Your key was never backed up: once signed out, this account is lost for good. Sign out anyway?')) {
              setView({ type: 'backup' });
              return;
            }
            await Promise.race([relay.publish({ kind: 20001, content: 'offline', tags: [] }), new Promise((r) => setTimeout(r, 1000))]);
            relay.close();
            signOut();
            onSignOut();
          }}>Sign out</button>
        </footer>
      </nav>
      <main class="main">
        <button class="menu-toggle" aria-label="channels" aria-expanded={menu} onClick={() => setMenu(!menu)}>☰</button>
        <ConnectionBanner status={status} />
        {error && <p class="error" role="alert" onClick={() => setError('')}>{error}</p>}
        {signer.nsec && !backedUp(signer.pubkey) && view.type !== 'backup' && <p class="note" id="backup-banner">
          Your key exists only in this browser. <button id="backup-open" onClick={() => setView({ type: 'backup' })}>Back up your key</button></p>}
        {taken && <p class="error" role="alert" id="name-taken">There is already a channel called “{taken.name}”.{' '}
          <button id="open-existing" onClick={() => { const id = taken.id; setTaken(null); document.getElementById('new-channel').value = ''; open(id); }}>
            Open #{taken.name}</button> <button aria-label="dismiss" onClick={() => setTaken(null)}>✕</button></p>}
        {call && <HuddleBar key={call.at} channel={call.channel} relay={relay} active={call.active} here={call.channel.id === openId}
          onBack={() => open(call.channel.id)} onClose={() => setCall(null)} />}
        {view.type === 'channel' && current && !current.is_member && current.channel_type !== 'dm' && <p class="note" id="preview-bar">
          You are reading #{current.name} without being in it.{' '}
          <button id="preview-join" onClick={async () => {
            const r = await relay.publish({ kind: 9021, tags: [['h', current.id]] });
            if (!r.ok) return setError(`You could not join #${current.name}: ${r.message}`);
            refresh();
          }}>Join #{current.name}</button></p>}
        {view.type === 'channel' && current && (
          <ChannelView key={current.id} channel={current} starred={starred.has(current.id)} muted={muted.has(current.id)}
            onStar={() => toggleFlag('starred', current.id)} onMute={() => toggleFlag('muted', current.id)} readUntil={view.readUntil} relay={relay} outbox={outbox} api={api}
            call={call} onJoin={(active) => setCall({ channel: current, active, at: Date.now() })} me={signer.pubkey} onError={setError} onChanged={refresh}
            onDm={(pk) => openDmWith([pk]).catch((e) => setError(e.message))}
            onOpen={(id) => refresh().then(() => open(id))} onHidden={() => { setView({ type: 'none' }); refresh(); }} />
        )}
        {view.type === 'channel' && !current && <p class="empty" id="channel-gone">{gone?.id !== openId
          ? 'You no longer have access to this channel, or it is gone.'
          : gone.deleted ? `#${gone.name} was deleted.`
            : `You no longer have access to #${gone.name}: it is private now, or you were removed.`}</p>}
        {view.type === 'search' && <SearchView key={view.q + view.at} q={view.q} api={api} onOpen={open} />}
        {view.type === 'feed' && <FeedView key={view.at} api={api} relay={relay} onOpen={open}
          onAnswered={() => setWaiting((w) => ({ ...w, approvals: Math.max(0, w.approvals - 1) }))} />}
        {view.type === 'browse' && <ChannelBrowser channels={channels} relay={relay} onOpen={open} onError={setError}
          onJoined={(id) => refresh().then(() => open(id))} />}
        {view.type === 'none' && <p class="empty">Pick a channel, or create one.</p>}
        {view.type === 'profile' && <Profile signer={signer} relay={relay} api={api} onError={setError} onClose={() => setView({ type: 'none' })}
          onBackup={() => setView({ type: 'backup' })} />}
        {view.type === 'operator' && operator && <OperatorPage api={api} me={signer.pubkey} role={relayRole} onError={setError} />}
        {view.type === 'backup' && <KeyBackup signer={signer} onClose={() => setView({ type: 'none' })} />}
      </main>
    </div>
  );
}
